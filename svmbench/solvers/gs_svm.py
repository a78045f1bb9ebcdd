"""GS-SVM: the greedy stagewise algorithm for SVMs (gs-svm-tnn2008, Algorithm 1, eqs. 15-23).

No bias, no regularisation parameter: each training sample enters the expansion at most once,
with the exact minimiser of the dual (eq. 10) along its coordinate, and the algorithm stops when
no unused sample has a negative gradient. The dual's Q_ij = y_i y_j k_ij is a C-SVC Q-matrix.

Kernel rows (``rows``): ``"full"`` requests each selected sample's whole row, keeping the gradient
of every sample, so ``kernel_requested`` = n_sv * n, gs-svm-tnn2008's K2; ``"unused"`` requests
only its entries against the unused set Q, the only ones the algorithm reads, which is
gs-svm-pakdd2005 Table 1's count n_sv * n - n_sv (n_sv - 1) / 2. The unused samples are kept in
the position prefix [0, |Q|) (the provider's swap_index), so the provider counts a row prefix. No
row is requested twice, so rows bypass the cache and K1 == K2. Both give the same model.
"""

import numpy as np
from numba import get_num_threads, njit, prange

from svmbench.kernels.borrowed import borrowed
from svmbench.kernels.compile_cache import jit_callee
from svmbench.kernels.provider import (
    PARALLEL_CHUNK,
    PARALLEL_MIN,
    kernel_row_once,
    swap_positions,
)
from svmbench.kernels.qmatrix import check_labels_folded
from svmbench.solvers.base import MAX_ITER, OPTIMAL, finish, register_solver, resolve_max_iter
from svmbench.solvers.checkpoints import Checkpoints, close, note
from svmbench.solvers.kkt import entry_violation
from svmbench.specs import HARNESS_GAMMA, SolverPlugin


# Q_ii > 0 is checked by solve, so the division needs no zero check, which keeps the loop scalar
@jit_callee(error_model="numpy")
def _step_and_score(gradient, row, step, diag, unused, score, length):
    """Algorithm 1 step 6 over positions [0, length), and in the same pass (one that vectorizes)
    eq. 20's h = -g^2 / (2 Q_ii) there for the candidates, unused samples with g < 0 (+inf for
    the others: a candidate whose h underflows to -0 is still one, as step 3 wants)."""
    for b in range(length):
        gradient[b] += step * row[b]
        g = gradient[b]
        score[b] = -g * g / (2.0 * diag[b]) if unused[b] & (g < 0.0) else np.inf


@jit_callee
def _minimum(values):
    """min(+inf, values), over four running minima (a single one is a chain of dependent
    comparisons; the order changes no minimum)."""
    low0 = low1 = low2 = low3 = np.inf
    whole = values.shape[0] // 4 * 4
    for b in range(0, whole, 4):
        low0, low1 = min(low0, values[b]), min(low1, values[b + 1])
        low2, low3 = min(low2, values[b + 2]), min(low3, values[b + 3])
    low = min(min(low0, low1), min(low2, low3))
    for b in range(whole, values.shape[0]):
        low = min(low, values[b])
    return low


@jit_callee(error_model="numpy")
def _step_chunk(gradient, row, step, diag, unused, score, lows, c, length):
    """_step_and_score over chunk c of [0, length) (PARALLEL_CHUNK positions), its minimum h into
    lows[c] while the chunk is still in the first-level cache."""
    lo = c * PARALLEL_CHUNK
    hi = min(length, lo + PARALLEL_CHUNK)
    _step_and_score(gradient[lo:hi], row[lo:hi], step, diag[lo:hi], unused[lo:hi], score[lo:hi],
                    hi - lo)
    lows[c] = _minimum(score[lo:hi])


@jit_callee(parallel=True)
def _step_chunks_parallel(gradient, row, step, diag, unused, score, lows, length):
    """_step_chunk over every chunk, a chunk to a thread: with the row's fill, the whole step runs
    on all threads, so the workers keep spinning between rows instead of sleeping (a sleeping
    worker's wake-up, on this VM's 2 cores, cost more than the serial step it waited for)."""
    for c in prange((length + PARALLEL_CHUNK - 1) // PARALLEL_CHUNK):
        _step_chunk(gradient, row, step, diag, unused, score, lows, c, length)


@njit(cache=True)
def _step(gradient, row, step, diag, unused, score, lows, length, parallel):
    """Algorithm 1 step 6 and eq. 20 over [0, length), with each chunk's minimum h in lows."""
    if parallel:
        _step_chunks_parallel(gradient, row, step, diag, unused, score, lows, length)
    else:
        for c in range((length + PARALLEL_CHUNK - 1) // PARALLEL_CHUNK):
            _step_chunk(gradient, row, step, diag, unused, score, lows, c, length)


@njit(cache=True)
def _select(score, lows, sample, length, positions_are_samples):
    """beta_m = argmin of h over the candidates at positions [0, length) (eqs. 20-21), from the
    chunk minima ``lows``; ties to the first sample whatever its position (the first position when
    positions are samples: full rows never swap, so the scan starts at the first chunk holding
    the minimum and stops at its first tie); -1 when there is none."""
    chunks = (length + PARALLEL_CHUNK - 1) // PARALLEL_CHUNK
    best_h = _minimum(lows[:chunks])
    if best_h == np.inf:
        return -1, 0.0
    if positions_are_samples:
        first = 0
        while lows[first] != best_h:
            first += 1
        for b in range(first * PARALLEL_CHUNK, length):
            if score[b] == best_h:
                return b, best_h
    best = -1
    for b in range(length):
        if score[b] == best_h and (best < 0 or sample[b] < sample[best]):
            best = b
    return best, best_h


@njit(cache=True)
def gs_svm_loop(given, max_iter, unused_rows_only, parallel_min, curve):
    """Algorithm 1; the step runs in parallel over rows of at least ``parallel_min`` entries.
    Checkpoints into ``curve``: the objective and the next step's gain -h (eq. 20)."""
    provider = borrowed(given)  # the caller holds its arrays (see kernels.borrowed)
    n = provider.diag.shape[0]
    gradient = -np.ones(n)  # eq. 15, m = 0; kept for every sample so the objective is exact
    alpha = np.zeros(n)
    unused = np.ones(n, dtype=np.bool_)
    score = np.empty(n)
    lows = np.empty((n + PARALLEL_CHUNK - 1) // PARALLEL_CHUNK)
    objective = np.zeros(n + 1)
    row = np.zeros(n)
    _step(gradient, row, 0.0, provider.diag, unused, score, lows, n, n >= parallel_min)
    n_unused = n  # positions [0, n_unused) hold Q when unused_rows_only
    iterations = 0
    converged = False
    while True:
        length = n_unused if unused_rows_only else n
        best, best_h = _select(score, lows, provider.perm, length, not unused_rows_only)
        note(curve, iterations, provider.counters, objective[iterations], -best_h)
        if best < 0:  # Algorithm 1, step 3
            converged = True
            break
        if iterations == max_iter:
            break
        step = -gradient[best] / provider.diag[best]  # eq. 22
        if unused_rows_only:  # best leaves Q: swap it behind the prefix, then use it there
            n_unused -= 1
            swap_positions(provider, best, n_unused)
            for values in (gradient, alpha, score):
                values[best], values[n_unused] = values[n_unused], values[best]
            unused[best], unused[n_unused] = unused[n_unused], unused[best]
            best = n_unused
        kernel_row_once(provider, best, length, row)  # each row is used once: no caching
        alpha[best] = step
        unused[best] = False
        _step(gradient, row, step, provider.diag, unused, score, lows, length,
              length >= parallel_min)
        iterations += 1
        objective[iterations] = objective[iterations - 1] + best_h
    close(curve, iterations, provider.counters, objective[iterations], 0.0 - best_h)
    return alpha, gradient, iterations, converged, objective[: iterations + 1]


ROWS = ("full", "unused")


@register_solver("gs_svm")
def solve(provider, y, params):
    """Params: ``max_iter`` (-1: no limit), ``rows`` ("full", default, or "unused": see above)."""
    check_labels_folded(provider, y)
    if not np.all(provider.diag > 0.0):
        p = int(np.flatnonzero(~(provider.diag > 0.0))[0])
        raise ValueError(f"GS-SVM needs Q_ii = k(x_i, x_i) > 0 for every sample (eq. 22 divides "
                         f"by it); sample {provider.perm[p]} has {provider.diag[p]} (an all-zero "
                         "point under a linear or polynomial kernel): drop such points or use "
                         "the RBF kernel")
    max_iter = resolve_max_iter(int(params.get("max_iter", -1)))
    rows = params.get("rows", "full")
    if rows not in ROWS:
        raise ValueError(f"unknown rows {rows!r}; choose one of {list(ROWS)}")
    # the step in parallel where the provider's rows are, when there is more than one thread
    parallel_min = provider.settings[PARALLEL_MIN] if get_num_threads() > 1 else len(y) + 1
    checkpoints = Checkpoints()
    alpha, gradient, iterations, converged, objective = gs_svm_loop(
        provider, max_iter, rows == "unused", parallel_min, checkpoints.array)
    # GS-SVM never revisits a sample, so its KKT conditions are those of the unused samples
    return finish(provider, alpha, 0.0, iterations, OPTIMAL if converged else MAX_ITER,
                  objective[-1], entry_violation(alpha, gradient), 0.0, checkpoints,
                  objective_trace=objective)


SPECS = (SolverPlugin(
    solve=solve, name="gs_svm", model="GSSVC", problem="stagewise",
    summary="GS-SVM, gs-svm-tnn2008 Algorithm 1: no bias, no C; gamma is the papers' theta.",
    params={"kernel": "rbf", "gamma": "scale", "coef0": 0.0, "degree": 3, "cache_mb": 100,
            "max_iter": -1, "rows": "full"},
    harness={"gamma": HARNESS_GAMMA}, unconfigured=("rows",)),)
