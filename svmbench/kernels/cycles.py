"""The processor's cycle counter, read from compiled code, for timing one part of a solver's
iteration from inside its loop.

A solver's time per iteration with its kernel rows taken out (issue 42 item 1) subtracts the
rows' time from the fit's. Where a rule reads many cached entries an iteration (Rosen's Q d: up
to 84 million on w7a), a time per entry calibrated apart misses the fit's own by a tenth or more
(the row pool's size decides what the processor's caches hold), which is more than the rest of
the iteration: the difference came out negative in 13 of the 49 cells Rosen finished at one
thread in the bench of 2026-11-29. Such a part is timed where it runs instead: :func:`cycle_count` costs a few dozen
cycles (LLVM's ``readcyclecounter``: ``rdtsc`` on x86-64), :func:`cycles_per_second` converts.
The counter ticks at a constant rate on current processors, sleeping or not, so a part timed
this way counts wall time, the time the process was switched out included.
"""

import functools
import time

from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def _read_cycle_counter(typingctx):
    def codegen(context, builder, signature, args):
        counter = builder.module.declare_intrinsic("llvm.readcyclecounter",
                                                   fnty=ir.FunctionType(ir.IntType(64), []))
        return builder.call(counter, [])

    return types.int64(), codegen


@njit(cache=True, inline="always")
def cycle_count():
    """The cycle counter now (int64; only differences mean anything)."""
    return _read_cycle_counter()


@functools.cache
def cycles_per_second(interval=0.05, samples=5):
    """The counter's ticks per second of time.perf_counter: the median of ``samples`` intervals
    of ``interval`` seconds."""
    cycle_count()  # compiled or loaded before the first interval
    rates = []
    for _ in range(samples):
        start, ticks = time.perf_counter(), cycle_count()
        time.sleep(interval)
        ticks, seconds = cycle_count() - ticks, time.perf_counter() - start
        rates.append(ticks / seconds)
    return sorted(rates)[samples // 2]
