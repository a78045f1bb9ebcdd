"""WSS 2's passes over the active set (Fan, Chen and Lin 2005, "Working set selection using
second order information for training support vector machines", JMLR 6: the first index, eq. 13's
I_up maximum; the second-order gains b_it^2 / a_it of the second, eqs. 13-15; LIBSVM's gradient
update and G_bar's) in blocks of PARALLEL_CHUNK positions, for long active sets.

One parallel region an iteration over the samples, where there were three: the step's update of G
and the next iteration's first pass (the violators of I_up and I_low and their maxima, which read
the G just updated) run in the same pass over each block (``step_and_violators_parallel``: loop
fusion of the update and the selection). Only the second index's pass has a region of its own: it
needs Q's row of the first index, which is known when that pass has ended. oneDAL's SVC (its
thunder solver, svm_train_thunder_impl.i) goes further, selecting a block of samples, running
many SMO steps inside it on its kernel block, then updating G once for all of them; that is
another path than LIBSVM's, which this Solver keeps step for step.

Each position's value is computed by the serial pass's own code and a maximum does not depend on
the order it is taken in, so the pair, the step and G are the serial ones bit for bit; the last
position holding a maximum is looked up in the last block whose maximum it is (smo.wss2_first and
wss2_second send ties to the last position).
"""

import numpy as np
from numba import njit, prange

from svmbench.kernels.math import add_scaled
from svmbench.kernels.provider import PARALLEL_CHUNK
from svmbench.solvers.smo_step import (
    lane_max,
    last_index_of,
    update_gradient,
    wss2_gains,
    wss2_violators,
)

# active sets shorter than this are passed over by one thread (see smo.solver_loop). 2-thread wall
# summed over the bench's 9 points (waiting workers spin 3000 turns, kernels/threads.py), quiet:
# 4096: w7a 4.09 s, a8a 7.76; 8192: 4.18, 7.92; 16384: 4.74, 7.92 (1 thread: 5.8, 9.9)
WSS2_PARALLEL_MIN = 8192


@njit(cache=True, inline="always")
def _blocks(length):
    return (length + PARALLEL_CHUNK - 1) // PARALLEL_CHUNK


@njit(cache=True)
def last_position_of_max(values, block_max):
    """(the last position holding max(values), that maximum) from the maxima of values' blocks;
    position -1 when the maximum is -inf."""
    maxima = block_max[:_blocks(values.shape[0])]
    best = lane_max(maxima)
    if best == -np.inf:
        return -1, best
    lo = last_index_of(maxima, best) * PARALLEL_CHUNK
    hi = min(values.shape[0], lo + PARALLEL_CHUNK)
    return lo + last_index_of(values[lo:hi], best), best


@njit(cache=True, inline="always")
def _violators_block(y, alpha, gradient, C, up, low, up_max, low_max, c):
    """smo.wss2_first's values over block c, with its maxima."""
    lo = c * PARALLEL_CHUNK
    hi = min(up.shape[0], lo + PARALLEL_CHUNK)
    wss2_violators(y[lo:hi], alpha[lo:hi], gradient[lo:hi], C, up[lo:hi], low[lo:hi])
    up_max[c], low_max[c] = lane_max(up[lo:hi]), lane_max(low[lo:hi])


@njit(cache=True, parallel=True)
def violators_parallel(y, alpha, gradient, C, up, low, up_max, low_max):
    """smo.wss2_first's values (-y G over I_up into ``up``, y G over I_low into ``low``, -inf
    elsewhere) over the active set (up's length), with each block's maxima."""
    for c in prange(_blocks(up.shape[0])):
        _violators_block(y, alpha, gradient, C, up, low, up_max, low_max, c)


@njit(cache=True, parallel=True)
def step_and_violators_parallel(gradient, row_i, row_j, step_i, step_j, y, alpha, C, up, low,
                                up_max, low_max):
    """smo_step.update_gradient over the active set (up's length) and then, block by block in the
    same region, violators_parallel's values of the next selection from the updated G and
    ``alpha`` (the step's new alphas already in it)."""
    length = up.shape[0]
    for c in prange(_blocks(length)):
        lo = c * PARALLEL_CHUNK
        hi = min(length, lo + PARALLEL_CHUNK)
        update_gradient(gradient[lo:hi], row_i[lo:hi], row_j[lo:hi], step_i, step_j, hi - lo)
        _violators_block(y, alpha, gradient, C, up, low, up_max, low_max, c)


@njit(cache=True, parallel=True)
def gains_parallel(y, diag, row_i, i, gmax, low, gain, gain_max):
    """smo.wss2_second's gains over the active set (low's length), with each block's maximum."""
    length = low.shape[0]
    for c in prange(_blocks(length)):
        lo = c * PARALLEL_CHUNK
        hi = min(length, lo + PARALLEL_CHUNK)
        wss2_gains(y[lo:hi], diag[lo:hi], row_i[lo:hi], y[i], diag[i], gmax, low[lo:hi],
                   gain[lo:hi])
        gain_max[c] = lane_max(gain[lo:hi])


@njit(cache=True, parallel=True)
def add_scaled_parallel(total, column, value):
    """kernels.math.add_scaled (total += value * column), a block to a thread."""
    length = total.shape[0]
    for c in prange(_blocks(length)):
        lo = c * PARALLEL_CHUNK
        hi = min(length, lo + PARALLEL_CHUNK)
        add_scaled(total[lo:hi], column[lo:hi], value)
