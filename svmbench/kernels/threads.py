"""numba's worker threads: a wait policy that does not collapse beside competing processes.

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
workers spin 3000 turns: a run is meant to have its cores to itself (joblib's launcher gives each
of its n_jobs workers cores // n_jobs numba threads); beside other busy processes, set
GOMP_SPINCOUNT=500.

Importing svmbench.kernels applies the policy before numba starts its threads; variables the
user has set win.

A run's thread count (``threads=``) also bounds the BLAS under numpy and scipy (Gram matrices,
decision values): an idle OpenBLAS worker spins. One Segment inner-grid fold of smo_wss2 with
numba on 1 thread took 27.2 s wall and 52.3 s of CPU with OpenBLAS's default 2 threads (its
second thread spun the whole time, taking the core a second sweep worker needs), 27.5 s wall and
26.9 s of CPU with 1 (2 cores, quiet).
"""

import os

import numba
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
