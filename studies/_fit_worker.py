"""Fits in a worker process that the bench can stop: a hard time budget for our slow solvers.

A numba fit cannot be interrupted from Python (no signal reaches compiled code), and a slow
solver's cell can take hours (Rosen on w7a, issue 30), so the bench runs these fits in a spawned
process (``spawn``: numba's OpenMP layer is not fork-safe) that holds the data set and keeps its
kernel-cache pool between fits, as the bench's own process does. A fit not done within the
budget has its worker killed (or later, while the bench asks: studies/bench.py, past_budget);
the next fit starts a new one. The worker writes its fits'
convergence checkpoints into memory it shares with the bench (svmbench.solvers.checkpoints,
``Checkpoints.shared``), so that a stopped fit still tells how far it went (``progress``).
"""

import math
import multiprocessing
import time
from collections import Counter
from multiprocessing import shared_memory

import numba
import numpy as np
from threadpoolctl import threadpool_limits

from svmbench.algorithms import build_estimator
from svmbench.referee import certify_scikit_learn
from svmbench.runner import failure
from svmbench.solvers.base import FAULTS
from svmbench.solvers.checkpoints import COUNT, GAP, MAX_POINTS, Checkpoints, last_point
from svmbench.warm_up import points_kind, warm_up

CURVE_SHAPE = (1 + MAX_POINTS, 6)  # a curve's array (checkpoints.new_curve)
POLL_S = 5.0  # past the budget, seconds between two readings of the fit's progress


def one_blas_thread():
    """Run numpy's and scipy's BLAS on one thread for the rest of the process. The bench's fits
    do not use it (LIBSVM, oneDAL and our solvers have their own loops) but its untimed
    predictions do, and an idle OpenBLAS worker spins on after a call (~0.1 s, estimated from
    the CPU excess below) on the second core, beside the next timed fit: SVC's CPU time read
    1.95x its wall time over a1a's 9 points in the bench of 851e3cf, 1.0x on the large sets;
    ours at 2 threads lost that core."""
    threadpool_limits(limits=1, user_api="blas")


def certified_fit(model, X, y):
    """(wall, CPU seconds, failure) of one fit, without the referee's check of it
    (svmbench.referee: our estimators certify inside ``fit`` and say how long it took; an
    external SVC is certified here, after its timed fit), so that no time column carries it.
    ``failure``: "" for a certified fit; otherwise the store's status of a fit that raised
    (svmbench.runner.failure: "failed:refuted: ..." when the referee refuted it), with no
    times (NaN): the bench records the cell and goes on."""
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        model.fit(X, y)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if hasattr(model, "referee_time_s_"):
            return wall - model.referee_time_s_, cpu - model.referee_cpu_time_s_, ""
        certify_scikit_learn(model, X, y)
    except Exception as error:  # noqa: BLE001 - any fit's failure is a recorded cell
        return math.nan, math.nan, failure(error)
    return wall, cpu, ""


def summarize(model, X_test, y_test):
    """What a bench cell keeps of a fitted model (None when its fit raised before it was
    fitted; an external SVC the referee refuted is fitted, with no referee's time); ``faults``:
    the class pairs whose solver ended in a fault (max_iter, stalled, infeasible), e.g.
    "stalled 2 of 325 pairs", or ""; ``referee s``: the wall seconds the referee took to certify
    it (outside the fit's time)."""
    if not hasattr(model, "support_"):
        return None
    statuses = list(getattr(model, "status_", []))
    faults = Counter(status for status in statuses if status in FAULTS)
    return {"faults": ", ".join(f"{status} {count} of {len(statuses)} pairs"
                                for status, count in sorted(faults.items())),
            "SV": len(model.support_),
            "test acc %": 100.0 * float(np.mean(model.predict(X_test) == y_test)),
            "iter": int(np.sum(getattr(model, "n_iter_", [np.nan]))),
            "K1": getattr(model, "kernel_computed_", None),
            "K2": getattr(model, "kernel_requested_", None),
            **timed_parts(model),
            "referee s": getattr(model, "referee_time_s_", math.nan)}


# a fit's parts that its solver times where they run (svmbench.kernels.cycles), by the trace
# key of their cycles: Rosen's reading of requested Q entries in Q d; the provider's computing
# of the entries counted as K1 (svmbench.kernels.provider.computing_cycles)
TIMED_PARTS = {"reads s": "row_adding_cycles", "rows s": "row_computing_cycles"}


def timed_parts(model):
    """{part: the seconds its fit spent on it, summed over class pairs} for TIMED_PARTS; None for
    a part its solver's results do not carry (the bench then estimates it: from K2, from K1)."""
    results = getattr(model, "fit_results_", ())
    parts = {}
    for part, cycles_key in TIMED_PARTS.items():
        cycles = [result.trace[cycles_key] for result in results if cycles_key in result.trace]
        parts[part] = sum(cycles) / cycles_per_second() if cycles else None
    return parts


def cycles_per_second():
    """svmbench.kernels.cycles.cycles_per_second, imported when first needed: iteration_cost.py
    --ab runs this file over checkouts without the module."""
    from svmbench.kernels.cycles import cycles_per_second as measured
    return measured()


def curve_in(memory):
    """The curve array over shared ``memory``."""
    return np.ndarray(CURVE_SHAPE, dtype=np.float64, buffer=memory.buf)


def serve(connection, data, solvers, curve_name):
    """The worker: compile ``solvers``, then fit each (params, threads) it receives, sending
    (wall, CPU) as soon as the fit ends and then the model's summary; its fits' checkpoints go
    to the shared memory named ``curve_name``."""
    X, y, X_test, y_test = data
    memory = shared_memory.SharedMemory(name=curve_name)
    Checkpoints.shared = curve_in(memory)
    one_blas_thread()
    for solver in solvers:
        warm_up(solver, "rbf", kind=points_kind(X))
    connection.send("ready")
    while True:
        params, threads = connection.recv()
        numba.set_num_threads(threads)
        model = build_estimator(params)
        connection.send(certified_fit(model, X, y))
        connection.send(summarize(model, X_test, y_test))


class FitWorker:
    """A worker process over one data set, started on the first fit, restarted after a kill."""

    def __init__(self, data, solvers):
        self.data, self.solvers = data, solvers
        self.process = self.connection = None
        self.memory = shared_memory.SharedMemory(create=True,
                                                 size=int(np.prod(CURVE_SHAPE)) * 8)
        self.curve = curve_in(self.memory)
        # (iteration, K2, K1, gap) of the last fit stopped, at its last checkpoint, and the
        # seconds it ran
        self.progress, self.ran = None, None

    def fit(self, params, threads, budget, keep_going=None):
        """((wall, CPU, failure), summary) of one fit (certified_fit, summarize; a worker that
        ended while compiling or within the fit: a failed fit, ``ended``),
        or None when it was not done within ``budget`` seconds of wall time (the worker is then
        killed, and ``progress`` tells how far the fit went: its last checkpoint, or None
        before its first). Past the budget, the fit goes on while ``keep_going(progress,
        seconds since it started)`` is true (read every POLL_S)."""
        if self.process is None:
            context = multiprocessing.get_context("spawn")
            self.connection, child = context.Pipe()
            self.process = context.Process(target=serve, args=(child, self.data, self.solvers,
                                                               self.memory.name), daemon=True)
            self.process.start()
            child.close()  # the worker's end, so that its exit ends our reads (EOFError)
            try:
                self.connection.recv()  # "ready": compiled, outside the budget
            except EOFError:  # the worker ended while compiling (e.g. an unknown solver)
                return self.ended("the fit's worker process ended while compiling")
        self.curve[0, COUNT] = 0  # no point yet
        self.connection.send((params, threads))
        started = time.perf_counter()
        done = self.connection.poll(budget)
        while not done and keep_going is not None and keep_going(
                self.last_checkpoint(), time.perf_counter() - started):
            done = self.connection.poll(POLL_S)
        if not done:
            self.progress = self.last_checkpoint()
            self.ran = time.perf_counter() - started
            self.stop()
            return None
        try:
            return self.connection.recv(), self.connection.recv()
        except EOFError:  # the worker ended within the fit (e.g. the system's memory killer)
            return self.ended("the fit's worker process ended")

    def ended(self, what):
        """The failed fit of a worker that ended: "failed:``what`` (exit code ...)", no times,
        no summary; the next fit starts a new worker."""
        self.process.join(timeout=POLL_S)
        failed = f"failed:{what} (exit code {self.process.exitcode})"
        self.stop()
        return (math.nan, math.nan, failed), None

    def last_checkpoint(self):
        """(iteration, K2, K1, gap) of the running fit's last checkpoint (of the class pair it
        is fitting), or None before its first."""
        point = last_point(self.curve)
        return None if point is None else (*point, float(self.curve[int(self.curve[0, COUNT]),
                                                                    GAP]))

    def stop(self):
        """Kill the worker (the next fit starts a new one)."""
        if self.process is not None:
            self.process.kill()
            self.process.join()
            self.process = self.connection = None

    def close(self):
        """Kill the worker and free the shared memory."""
        self.stop()
        self.curve = None
        self.memory.close()
        self.memory.unlink()
