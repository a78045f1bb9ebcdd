"""Platt's original SMO (1998): examineExample / takeStep with a single threshold b.

The outer loop alternates a pass over all samples with passes over the non-bound ones until a full
pass changes nothing. examineExample picks the partner of a KKT violator (|r2| > tol) by the
second-choice heuristic max |E1 - E2| over non-bound samples, then tries the non-bound samples,
then all samples, each time from a random start. The threshold follows Platt's eqs. (20)-(21).

The error cache is kept for every sample (E = y G - b from the shared gradient, two full kernel
rows per step) rather than for the non-bound ones only; the final bias is LIBSVM's
calculate_rho, shared with the other SMO variants. Non-positive curvature is handled with
LIBSVM's TAU step instead of Platt's end-point objective test: both move to the better end.
"""

import numpy as np
from numba import njit

from svmbench.kernels.qmatrix import check_labels_folded
from svmbench.solvers.base import MAX_ITER, OPTIMAL, finish, register_solver
from svmbench.solvers.smo_step import (
    check_two_classes,
    is_free,
    next_examine_all,
    outcome,
    smo_settings,
    take_step,
)


@njit(cache=True)
def platt_step(provider, alpha, gradient, y, i1, i2, C, eps, threshold):
    """takeStep plus Platt's threshold update (eqs. 20-21); threshold[0] is Platt's b.

    Eq. (20)'s b1 = E1 + y1 (a1' - a1) k11 + y2 (a2' - a2) k12 + b is the b that zeroes E1 after the
    step: F1 = y1 G1 of the updated gradient (eq. 21 likewise for b2)."""
    progress = take_step(provider, alpha, gradient, y, i1, i2, C, eps)
    if progress:
        b1, b2 = y[i1] * gradient[i1], y[i2] * gradient[i2]
        if is_free(alpha[i1], C):
            threshold[0] = b1
        elif is_free(alpha[i2], C):
            threshold[0] = b2
        else:
            threshold[0] = 0.5 * (b1 + b2)
    return progress


@njit(cache=True)
def examine_example(provider, alpha, gradient, y, i2, C, tol, eps, threshold):
    """Platt 1998, examineExample: 1 if a step was taken."""
    n = y.shape[0]
    error_2 = y[i2] * gradient[i2] - threshold[0]
    r2 = error_2 * y[i2]
    if not ((r2 < -tol and alpha[i2] < C) or (r2 > tol and alpha[i2] > 0.0)):
        return 0
    best, best_gap, n_free = -1, -1.0, 0
    for k in range(n):  # second-choice heuristic: max |E1 - E2| over non-bound samples
        if is_free(alpha[k], C):
            n_free += 1
            gap = abs(y[k] * gradient[k] - threshold[0] - error_2)
            if gap > best_gap:
                best, best_gap = k, gap
    if n_free > 1 and platt_step(provider, alpha, gradient, y, best, i2, C, eps, threshold):
        return 1
    for free_only in (True, False):
        start = np.random.randint(n)
        for offset in range(n):
            i1 = (start + offset) % n
            if (not free_only or is_free(alpha[i1], C)) and platt_step(
                provider, alpha, gradient, y, i1, i2, C, eps, threshold
            ):
                return 1
    return 0


@njit(cache=True)
def platt_loop(provider, y, C, tol, eps, max_iter, seed):
    np.random.seed(seed)
    n = y.shape[0]
    alpha = np.zeros(n)
    gradient = -np.ones(n)
    threshold = np.zeros(1)
    iterations = 0
    examine_all = True
    changed = 0
    while (changed > 0 or examine_all) and iterations < max_iter:
        changed = 0
        for i in range(n):
            if examine_all or is_free(alpha[i], C):
                changed += examine_example(provider, alpha, gradient, y, i, C, tol, eps, threshold)
                if iterations + changed >= max_iter:
                    break
        iterations += changed
        examine_all = next_examine_all(examine_all, changed)
    converged = not (changed > 0 or examine_all) and iterations < max_iter
    return outcome(alpha, gradient, y, C, iterations, converged)


@register_solver("smo_platt")
def solve(provider, y, params):
    """Params: ``C``, ``tol`` (KKT tolerance on y E, default 1e-3), ``eps`` (takeStep's minimal
    relative change, default 1e-3), ``max_iter`` (-1: no limit), ``seed`` (random starts,
    default 0)."""
    check_two_classes(y)
    check_labels_folded(provider, y)
    C, tol, max_iter = smo_settings(params)
    eps = float(params.get("eps", 1e-3))
    seed = int(params.get("seed", 0))
    alpha, bias, iterations, converged, objective, violation = platt_loop(
        provider, np.asarray(y, dtype=np.float64), C, tol, eps, max_iter, seed
    )
    # |r_i| <= tol at Platt's own threshold for every sample bounds the violation at the final
    # (LIBSVM) bias by 2 tol
    return finish(provider, alpha, bias, iterations, OPTIMAL if converged else MAX_ITER, objective,
                  violation, 2.0 * tol)
