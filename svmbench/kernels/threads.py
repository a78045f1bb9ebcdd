"""numba's worker threads: a wait policy that does not collapse beside competing processes.

The kernel-row filler runs a parallel region per long row, thousands of fork/joins per fit. A
worker that spins while it waits (GNU OpenMP's default) takes the core the working thread needs
when other processes compete, and a 2-thread smo_wss2 fit on a4a ran 6-19 s instead of 0.8-1.3 s
on one thread (2 cores, load average 9-10, under load). With waiting workers asleep at once
(OMP_WAIT_POLICY=passive; KMP_BLOCKTIME=0 for Intel's OpenMP) the same fit took 1.5-1.7 s; TBB
1.3-1.6 s, numba's workqueue 1.6-2.0 s. numba's own layer order stays (TBB when the ``tbb``
package is installed, else OpenMP, else workqueue): see README, "Threads".

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

PASSIVE_WAIT = {"OMP_WAIT_POLICY": "PASSIVE", "KMP_BLOCKTIME": "0"}


def use_passive_wait():
    """Set the passive wait policy unless the user chose one (OpenMP reads it when it loads)."""
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


def threading_info():
    """What a run record should carry about threads: ``numba_threads``, ``threading_layer``
    (tbb, omp or workqueue; starts numba's threading layer if it has not started), the wait
    policy in force and ``blas_threads``."""
    threads = numba.get_num_threads()  # starts the threading layer
    return {
        "numba_threads": threads,
        "threading_layer": numba.threading_layer(),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", ""),
        "kmp_blocktime": os.environ.get("KMP_BLOCKTIME", ""),
        "blas_threads": blas_threads(),
    }
