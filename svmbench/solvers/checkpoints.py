"""Convergence checkpoints: a solver's objective and own optimality gap against iterations, kernel
entries (K1, K2) and time, recorded at log-spaced iterations into a preallocated array.

One mechanism for every iterative solver, compiled or not. A solve makes a :class:`Checkpoints`
(the array and the clocks at its start) and passes ``checkpoints.array`` to its loop, which calls
:func:`note` once per iteration (inlined: when no checkpoint is due it is one comparison) and
:func:`close` once when it stops; :meth:`Checkpoints.points` turns the array into the run record's
``curve`` (DESIGN.md, "SolverResult / run record").

- Schedule: iteration 0, then whenever ``iteration >= next``, with ``next = max(iteration + 1,
  ceil(iteration * FACTOR))``: every iteration up to 10, then ~24 points a decade (127 up to 10^6).
  At most ``capacity - 1`` scheduled points are kept (the last row is the final point's), so a curve
  has at most MAX_POINTS points whatever the iteration count.
- Kernel entries: the provider's counters (``kernel_requested``, ``kernel_computed``), read at the
  checkpoint, never a solver's own count.
- Time: the loop reads the CPU's time-stamp counter (``llvm.readcyclecounter``, one instruction, no
  call, so it leaves the loop's compiled code as it was); ``points`` maps ticks to seconds of
  CLOCK_MONOTONIC by the two clocks read together at the start and at the end of the fit (the TSC
  runs at a constant rate on CPUs with ``constant_tsc``). ``time_s`` is wall time since the solve
  started; where the counter does not tick (no such instruction) it is None.
"""

import math
import time

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

MAX_POINTS = 300  # rows of a curve, the final point included
FACTOR = 1.1  # the schedule's ratio between two checkpoints
# columns of a point
ITERATION, REQUESTED, COMPUTED, TICKS, OBJECTIVE, GAP = range(6)
COLUMNS = ("iteration", "kernel_requested", "kernel_computed", "time_s", "objective", "gap")
# row 0 (header): points kept, the next checkpoint's iteration, the tick count at the start
COUNT, NEXT, START_TICK = range(3)


@intrinsic
def ticks(typingctx):
    """The CPU's time-stamp counter (0 where the target has none)."""

    def codegen(context, builder, signature, args):
        counter = builder.module.declare_intrinsic(
            "llvm.readcyclecounter", fnty=ir.FunctionType(ir.IntType(64), []))
        return builder.call(counter, [])

    return types.int64(), codegen


@njit(cache=True)
def read_ticks():
    """:func:`ticks`, callable from Python."""
    return ticks()


@njit(cache=True)
def new_curve(capacity):
    """An empty curve of ``capacity`` points (0: records nothing; 1: the final point only),
    started now."""
    curve = np.zeros((1 + capacity, 6))
    curve[0, NEXT] = 0.0 if capacity > 1 else np.inf
    curve[0, START_TICK] = ticks()
    return curve


@njit(cache=True, inline="always")
def _write(curve, row, iteration, counters, objective, gap):
    curve[row, ITERATION] = iteration
    curve[row, REQUESTED] = counters[0]
    curve[row, COMPUTED] = counters[1]
    curve[row, TICKS] = ticks()
    curve[row, OBJECTIVE] = objective
    curve[row, GAP] = gap


@njit(cache=True, inline="always")
def due(curve, iteration):
    """Whether :func:`note` records at ``iteration`` (for an objective that costs to compute)."""
    return iteration >= curve[0, NEXT]


@njit(cache=True, inline="always")
def note(curve, iteration, counters, objective, gap):
    """Record (iteration, the provider's ``counters``, now, objective, gap) if a checkpoint is due."""
    if due(curve, iteration):
        count = int(curve[0, COUNT])
        _write(curve, 1 + count, iteration, counters, objective, gap)
        curve[0, COUNT] = count + 1
        following = max(iteration + 1.0, math.ceil(iteration * FACTOR))
        curve[0, NEXT] = following if count + 2 < curve.shape[0] - 1 else np.inf


@njit(cache=True)
def close(curve, iteration, counters, objective, gap):
    """Record the final point (replacing a checkpoint of the same iteration)."""
    if curve.shape[0] == 1:
        return
    count = int(curve[0, COUNT])
    if count > 0 and curve[count, ITERATION] == iteration:
        count -= 1
    _write(curve, 1 + count, iteration, counters, objective, gap)
    curve[0, COUNT] = count + 1
    curve[0, NEXT] = np.inf


def last_point(curve):
    """(iteration, kernel_requested, kernel_computed) of the last point of a curve, or None."""
    count = int(curve[0, COUNT])
    if count == 0:
        return None
    row = curve[count]
    return int(row[ITERATION]), int(row[REQUESTED]), int(row[COMPUTED])


def _number(value):
    return None if math.isnan(value) else float(value)


class Checkpoints:
    """A fit's curve: ``array`` for the solver loop (:func:`note`, :func:`close`), and the wall
    clock at its start.

    ``Checkpoints.shared``: None, or an array of the curve's shape that every curve of that shape
    is written into instead of a new one, so that another process that maps it reads how far a
    fit went when it stops that fit (studies/_fit_worker.py)."""

    shared = None

    def __init__(self, capacity=None):
        self.array = new_curve(MAX_POINTS if capacity is None else capacity)
        if Checkpoints.shared is not None and Checkpoints.shared.shape == self.array.shape:
            Checkpoints.shared[:] = self.array
            self.array = Checkpoints.shared
        self.start_ns = time.monotonic_ns()

    def points(self, stop):
        """The curve as run-record points {iteration, kernel_requested, kernel_computed, time_s,
        objective, gap} (objective and gap None where the solver has none), the last one also
        with ``stop``, why the solver stopped. Call it when the fit ends: it reads the clocks."""
        end_tick, end_ns = read_ticks(), time.monotonic_ns()
        header, rows = self.array[0], self.array[1:1 + int(self.array[0, COUNT])]
        elapsed_ticks = end_tick - header[START_TICK]
        seconds_per_tick = (end_ns - self.start_ns) * 1e-9 / elapsed_ticks if elapsed_ticks > 0 \
            else math.nan
        points = [{"iteration": int(row[ITERATION]), "kernel_requested": int(row[REQUESTED]),
                   "kernel_computed": int(row[COMPUTED]),
                   "time_s": _number((row[TICKS] - header[START_TICK]) * seconds_per_tick),
                   "objective": _number(row[OBJECTIVE]), "gap": _number(row[GAP])}
                  for row in rows]
        if points:
            points[-1]["stop"] = stop
        return points
