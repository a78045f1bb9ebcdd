"""smo_wss2 at 1 and 2 numba threads, interleaved in one process (issue 42, item 3).

    python studies/wss2_threads.py --repeats 5 ijcnn1:32:2 a8a:2:0.05 w7a:4:0.05 w8a:4:0.05
    python studies/wss2_threads.py --repeats 5 --busy ijcnn1:32:2
    python studies/wss2_threads.py --repeats 5 --busy --fixed ijcnn1:32:2

Each round fits every cell at 1 then 2 threads (the first round warms up and is dropped); a
fit's time is its wall time less the referee's (the harness's certificate, outside the solver).
A 2-thread fit runs its parallel passes on one thread while other processes keep a core busy
(svmbench.kernels.threads.FitThreads); ``--fixed`` adds a 2-thread fit that keeps both threads
whatever runs beside it (the governor off: the code before it), interleaved with the others.
``--busy`` starts a second process that, in every round after the quiet fits, fits the same cell
at 1 thread in a loop while the same fits run again beside it: the slowdown of a fit beside a
busy neighbour (the contention target: at most 1.5x) is the ratio of its two medians, measured in
the same rounds. Prints one JSON line per cell: the fit times and their medians by arm
(``1``, ``2``, ``2 fixed``; `` busy`` beside the neighbour), the 1-thread / 2-thread ratio of the
quiet medians, each arm's slowdown beside the neighbour, the iterations (which must not depend on
the thread count), each arm's iterations by thread count (its last fit), the load average
before and after, and the run's provenance (commit, dirty flag, code fingerprint, versions,
host, CPU, time).
"""
import argparse
import json
import multiprocessing
import os
import statistics
import time

import numba

from svmbench.algorithms import build_estimator
from svmbench.data import load_dataset
from svmbench.kernels import threads as fit_threads
from svmbench.provenance import code_fingerprint, provenance

# (label, numba threads, governor on)
ARMS = [("1", 1, True), ("2", 2, True)]
FIXED_ARM = ("2 fixed", 2, False)


def fit_seconds(data, C, gamma, threads, adapt=True):
    """(solver seconds, iterations, iterations by thread count) of one smo_wss2 fit at
    ``threads`` numba threads, the governor on or off (``adapt``)."""
    numba.set_num_threads(threads)
    fit_threads.ADAPT_THREADS = adapt
    model = build_estimator({"name": "smo_wss2", "C": C, "gamma": gamma, "tol": 1e-3,
                             "cache_mb": 1024.0})
    start = time.perf_counter()
    model.fit(data.X_train, data.y_train)
    fit_threads.ADAPT_THREADS = True
    return (time.perf_counter() - start - model.referee_time_s_, int(model.n_iter_.sum()),
            model.iterations_by_threads_)


def busy_neighbour(name, C, gamma, run, working, idle, stop):
    """Fit the cell at 1 thread while ``run`` is set (``working`` set once a fit started,
    ``idle`` once the last one ended), until ``stop`` is set: the contention check's second
    process."""
    data = load_dataset(name)
    while not stop.is_set():
        if not run.wait(0.05):
            working.clear()
            idle.set()
            continue
        idle.clear()
        working.set()
        fit_seconds(data, C, gamma, 1)


class Neighbour:
    """The busy neighbour's process and its switches."""

    def __init__(self, name, C, gamma):
        self.run, self.working, self.idle, self.stop = (multiprocessing.Event() for _ in range(4))
        self.process = multiprocessing.Process(
            target=busy_neighbour, args=(name, C, gamma, self.run, self.working, self.idle,
                                         self.stop))
        self.process.start()

    def busy(self, on):
        """Start fitting and return once a fit runs (``on``), or stop and return once idle."""
        if on:
            self.run.set()
            self.working.wait()
        else:
            self.run.clear()
            self.idle.wait()

    def close(self):
        self.run.clear()
        self.stop.set()
        self.process.join()


def measure(cell, repeats, busy, fixed):
    name, C, gamma = cell.split(":")
    C, gamma = float(C), float(gamma)
    data = load_dataset(name)
    arms = ARMS + ([FIXED_ARM] if fixed else [])
    neighbour = Neighbour(name, C, gamma) if busy else None
    load_before = os.getloadavg()
    seconds, iterations, by_threads = {}, set(), {}
    for round_ in range(repeats + 1):
        for beside in (False, True) if busy else (False,):
            if neighbour is not None:
                neighbour.busy(beside)
            for label, threads, adapt in arms:
                key = label + (" busy" if beside else "")
                spent, n_iter, by_threads[key] = fit_seconds(data, C, gamma, threads, adapt)
                iterations.add(n_iter)
                if round_:
                    seconds.setdefault(key, []).append(spent)
    if neighbour is not None:
        neighbour.close()
    medians = {key: statistics.median(times) for key, times in seconds.items()}
    slowdowns = {label: medians[label + " busy"] / medians[label]
                 for label, _, _ in arms if label + " busy" in medians}
    return {"cell": cell, "busy_neighbour": busy, "seconds": seconds, "median_s": medians,
            "ratio_1t_over_2t": medians["1"] / medians["2"],
            **({"ratio_1t_over_2t_fixed": medians["1"] / medians["2 fixed"]} if fixed else {}),
            "slowdown_beside_neighbour": slowdowns, "iterations": sorted(iterations),
            "iterations_by_threads": by_threads,
            "load_before": load_before, "load_after": os.getloadavg(),
            "code_fingerprint": code_fingerprint(), **provenance()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cells", nargs="+", help="set:C:gamma")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--busy", action="store_true")
    parser.add_argument("--fixed", action="store_true")
    args = parser.parse_args()
    for cell in args.cells:
        print(json.dumps(measure(cell, args.repeats, args.busy, args.fixed)), flush=True)


if __name__ == "__main__":
    main()
