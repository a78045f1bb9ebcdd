"""numba's worker threads: a wait policy, and a governor that runs a fit's parallel work on one
thread while other processes keep the cores busy, so that neither collapses beside competitors.

The kernel-row filler runs a parallel region per long row, thousands of fork/joins per fit. A
worker that spins while it waits (GNU OpenMP's default) takes the core the working thread needs
when other processes compete, and a 2-thread smo_wss2 fit on a4a ran 6-19 s instead of 0.8-1.3 s
on one thread (2 cores, load average 9-10, under load). With waiting workers asleep at once
(OMP_WAIT_POLICY=passive; KMP_BLOCKTIME=0 for Intel's OpenMP) the same fit took 1.5-1.7 s; TBB
1.3-1.6 s, numba's workqueue 1.6-2.0 s. numba's own layer order stays (TBB when the ``tbb``
package is installed, else OpenMP, else workqueue): see docs/explanation/performance.md,
"Threads".

Asleep at once, though, a worker wakes too late to help: a dense ijcnn1 row (two parallel regions)
took 211 us on 2 threads against 227 on one, and 111 us when GNU OpenMP's workers spin 1000
turns before they sleep (GOMP_SPINCOUNT). The spin count bounds what a waiting worker takes from
a competing process. GS-SVM on ijcnn1 (gamma 2), 2 threads, wall, median of fits 2-4 of a
process, quiet -> beside a second 2-thread fit (smo_wss2 on ijcnn1) under the same policy, 2 cores,
commit 1e773b4: passive 1.51 -> 1.66 s; 100 spins 1.42 -> 1.91; 500 spins 1.11 -> 1.94; 1000
spins 1.12 -> 2.20; 3000 spins 0.90 -> 3.28; 10000 spins 0.91 -> 5.17; GNU's default (300000)
0.92 -> 5.66. 500 spins keep the slowdown beside a competitor within its fair share (2x) and most
of the quiet speed.

Not for smo_wss2's passes, though: they were 3-5 short parallel regions an iteration (2-4 since
the G update and the next selection's first pass share one, svmbench.solvers.wss2_parallel), and a
worker that sleeps after 500 spins sleeps between them. Sum of wall times over the bench's 9 points of
w7a (studies/bench.py's load and grid, smo_wss2 alone in one process, no peers, each point
fitted once after a warm-up fit), 1 thread -> 2 threads, quiet, commit ee81ca0: 500 spins 5.56 -> 6.59 s, 1000 5.76 -> 5.67,
2000 5.77 -> 4.82, 3000 5.68 -> 4.06, 5000 / 50000 / 300000 5.6 -> 4.0; at 3000 spins a8a 9.91 ->
7.64, w8a 19.0 -> 12.1, ijcnn1 18.7 -> 12.0 (500: 10.5, 16.6, 15.0). Beside a second 2-thread
process the same 2-thread w7a sum took 11.5-12.9 s at 500 spins and 33.5 s at 3000. So waiting
workers spin 3000 turns (joblib's launcher gives each of its n_jobs workers cores // n_jobs numba
threads), and a fit does not fork where it would compete for a core instead:

The governor (FitThreads). No spin count serves both a quiet machine and a busy one (at 3000
spins a 2-thread smo_wss2 fit on ijcnn1 took 2.8x its quiet time beside a 1-thread fit of the
same cell, main b4143deb, quiet otherwise), so while a fit may split work among threads a daemon
thread samples /proc/stat every GOVERNOR_PERIOD_S: the cores other processes kept busy (the
machine's busy seconds less this process's CPU time, its spinning workers included). When the
cores they leave, rounded, are fewer than the fit's threads, the fit runs its parallel passes and
rows on one thread (smo.use_threads: the serial code, the same bits) until they are free again;
it starts on one when another thread is runnable at its start (procs_running). The compiled loop
reads the decision at each iteration and releases the GIL so that the sampler runs. It is one
thread or all: numba.set_num_threads in compiled code is not cacheable, so a fit cannot take 2 of
4 threads. ``threads=`` stays the most a fit may use; the record's ``iterations_by_threads`` says
what it used. Measurements: docs/explanation/performance.md, "Threads". ADAPT_THREADS = False
turns the governor off (the studies' A/B).

Importing svmbench.kernels applies the policy before numba starts its threads; variables the
user has set win.

A run's thread count (``threads=``) also bounds the BLAS under numpy and scipy (Gram matrices,
decision values): an idle OpenBLAS worker spins. One Segment inner-grid fold of smo_wss2 with
numba on 1 thread took 27.2 s wall and 52.3 s of CPU with OpenBLAS's default 2 threads (its
second thread spun the whole time, taking the core a second sweep worker needs), 27.5 s wall and
26.9 s of CPU with 1 (2 cores, quiet).
"""

import os
import threading
import time

import numba
import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

# GOMP_SPINCOUNT, when set, overrides the spin count OMP_WAIT_POLICY implies (GNU OpenMP)
PASSIVE_WAIT = {"OMP_WAIT_POLICY": "PASSIVE", "KMP_BLOCKTIME": "0", "GOMP_SPINCOUNT": "3000"}


def use_passive_wait():
    """Set the wait policy (brief spin, then sleep) unless the user chose one (OpenMP reads it
    when it loads)."""
    for name, value in PASSIVE_WAIT.items():
        os.environ.setdefault(name, value)


def limit_threads(count):
    """Run numba's parallel regions and the BLAS libraries loaded (numpy's, scipy's) on ``count``
    threads each."""
    numba.set_num_threads(count)
    threadpool_limits(limits=count, user_api="blas")


def blas_threads():
    """The largest thread count of the BLAS libraries loaded (None when none is)."""
    counts = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    return max(counts) if counts else None


def blas_cores():
    """The BLAS libraries loaded and the CPU kernels they chose, e.g. "openblas 0.3.31 SkylakeX"
    ("" when none is loaded). Another machine's BLAS kernel rounds differently: decision values
    and hm_svm's objective can differ in the last bits (the grid search's kernel matrices do not
    use BLAS: svmbench.kernels.cross)."""
    pools = threadpool_info()
    return ", ".join(sorted({f"{pool['internal_api']} {pool['version']} "
                             f"{pool.get('architecture') or ''}".strip()
                             for pool in pools if pool["user_api"] == "blas"}))


def threading_info():
    """What a run record should carry about threads: ``numba_threads``, ``threading_layer``
    (tbb, omp or workqueue; starts numba's threading layer if it has not started), the wait
    policy in force (OMP_WAIT_POLICY, KMP_BLOCKTIME, GOMP_SPINCOUNT), ``blas_threads`` and
    ``blas_core``."""
    threads = numba.get_num_threads()  # starts the threading layer
    return {
        "numba_threads": threads,
        "threading_layer": numba.threading_layer(),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", ""),
        "kmp_blocktime": os.environ.get("KMP_BLOCKTIME", ""),
        "gomp_spincount": os.environ.get("GOMP_SPINCOUNT", ""),
        "blas_threads": blas_threads(),
        "blas_core": blas_cores(),
    }


# threads[...] of a fit's thread array (FitThreads): the threads its parallel passes and rows may
# use now (1 or all), then the iterations it ran on one thread and on all
NOW, ONE_THREAD, ALL_THREADS = 0, 1, 2
# how often the governor samples the cores' use (seconds)
GOVERNOR_PERIOD_S = 0.1
# False: a fit keeps all its threads whatever else runs (the studies' A/B of the governor)
ADAPT_THREADS = True


def cpu_seconds_used():
    """machine_busy of /proc/stat now, or None without one (not Linux)."""
    try:
        with open("/proc/stat") as stat:
            return machine_busy(stat.read())
    except OSError:
        return None


def machine_busy(stat):
    """(the seconds all the machine's cores have spent busy since boot: user, nice, system, irq,
    softirq and steal of the ``cpu`` line; the threads runnable now, ``procs_running``) from the
    text of /proc/stat (proc(5))."""
    lines = stat.splitlines()
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, lines[0].split()[1:9])
    running = next(int(line.split()[1]) for line in lines if line.startswith("procs_running"))
    ticks = user + nice + system + irq + softirq + steal
    return ticks / os.sysconf("SC_CLK_TCK"), running


def others_busy(machine_busy_s, own_cpu_s, elapsed_s):
    """The cores other processes kept busy over ``elapsed_s`` seconds: the machine's busy seconds
    less this process's CPU seconds (its spinning workers included), per second."""
    return max(0.0, (machine_busy_s - own_cpu_s) / elapsed_s)


def threads_for(busy_elsewhere, cores, most):
    """All ``most`` threads when each finds a free core among ``cores`` once other processes have
    taken ``busy_elsewhere`` cores (rounded to the nearest core), else one: a fit cannot change
    its thread count from compiled code (numba.set_num_threads there is not cacheable), only
    whether its parallel regions run."""
    return most if cores - busy_elsewhere >= most - 0.5 else 1


class FitThreads:
    """The thread array a fit's compiled loop reads (``array``: NOW, ONE_THREAD, ALL_THREADS)
    and, while the fit runs on more than one thread, a daemon thread that samples /proc/stat
    every GOVERNOR_PERIOD_S and sets ``array[NOW]`` (threads_for). The fit's loop releases the
    GIL (nogil), so the sampler runs beside it."""

    def __init__(self, most):
        self.most, self.array = most, np.array([most, 0, 0], dtype=np.int64)
        self._stop, self._sampler = threading.Event(), None
        first = cpu_seconds_used() if most > 1 and ADAPT_THREADS else None
        if first is not None:
            # another process running now (procs_running counts this thread): start on one
            self.array[NOW] = most if first[1] <= 1 else 1
            start = (first[0], time.process_time(), time.perf_counter())
            self._sampler = threading.Thread(target=self._sample, args=start, daemon=True)
            self._sampler.start()

    def _sample(self, machine_busy, own, wall):
        """Every GOVERNOR_PERIOD_S until closed: the cores other processes kept busy since the
        last sample, and the thread count they leave (threads_for)."""
        while not self._stop.wait(GOVERNOR_PERIOD_S):
            machine_now, own_now, wall_now = (cpu_seconds_used()[0], time.process_time(),
                                              time.perf_counter())
            elsewhere = others_busy(machine_now - machine_busy, own_now - own, wall_now - wall)
            self.array[NOW] = threads_for(elsewhere, os.cpu_count(), self.most)
            machine_busy, own, wall = machine_now, own_now, wall_now

    def close(self):
        """Stop the sampler."""
        self._stop.set()
        if self._sampler is not None:
            self._sampler.join()

    def counts(self, iterations):
        """The record's iterations by thread count, {"1": on one thread, "<most>": on all}, from
        ``iterations`` = (on one, on all) (``array[ONE_THREAD:]`` or a part of them)."""
        on_one, on_all = (int(count) for count in iterations)
        return {"1": on_one, **({str(self.most): on_all} if self.most > 1 else {})}
