"""SMO with two thresholds: Keerthi, Shevade, Bhattacharyya and Murthy (2001), Modifications 1 and 2.

b_up = min F over I_up and b_low = max F over I_low are kept over I0 + {i1, i2} after each step
and refreshed by every examined sample (examineExample); optimality is b_low <= b_up + 2 tol.
Modification 1 loops over I0 and leaves as soon as I0 is optimal; Modification 2 steps on the
maximal violating pair (i_up, i_low) until I0 is optimal. Both alternate with passes over all
samples (Platt's outer loop) until a full pass changes nothing.

Unlike the paper's code, which caches F over I0 only and computes F of bound samples from the
support vectors, F is kept for every sample (two full kernel rows per step, as LIBSVM), so the
kernel counts are those of a row-based SMO; the choice of pairs is the paper's.
"""

import numpy as np
from numba import njit

from svmbench.solvers.base import finish, register_solver
from svmbench.solvers.smo_step import (
    bias_from_gradient,
    check_two_classes,
    dual_objective,
    in_low_set,
    in_up_set,
    is_free,
    max_violation,
    smo_settings,
    take_step,
)

# takeStep's minimal relative change. Platt's 1e-3 refuses a short step clipped at a bound; with one
# partner per examined sample the loops then stop with violations far above 2 tol (seen on iris),
# so only null steps are refused by default.
KEERTHI_EPS = 1e-12
# thresholds[...] and extremes[...] indices: b_up / i_up, b_low / i_low
UP, LOW = 0, 1


@njit(cache=True)
def refresh_thresholds(alpha, gradient, y, C, i1, i2, thresholds, extremes):
    """b_up, b_low over I0 + {i1, i2} (Keerthi et al. 2001, takeStep)."""
    thresholds[UP], thresholds[LOW] = np.inf, -np.inf
    for k in range(y.shape[0]):
        if not (is_free(alpha[k], C) or k == i1 or k == i2):
            continue
        f = y[k] * gradient[k]
        if in_up_set(y[k], alpha[k], C) and f < thresholds[UP]:
            thresholds[UP], extremes[UP] = f, k
        if in_low_set(y[k], alpha[k], C) and f > thresholds[LOW]:
            thresholds[LOW], extremes[LOW] = f, k


@njit(cache=True)
def step_pair(provider, alpha, gradient, y, i1, i2, C, eps, thresholds, extremes):
    progress = take_step(provider, alpha, gradient, y, i1, i2, C, eps)[0]
    if progress:
        refresh_thresholds(alpha, gradient, y, C, i1, i2, thresholds, extremes)
    return progress


@njit(cache=True)
def examine_example(provider, alpha, gradient, y, i2, C, tol, eps, thresholds, extremes):
    """Keerthi et al. 2001, examineExample: 1 if a step was taken."""
    f2 = y[i2] * gradient[i2]
    if not is_free(alpha[i2], C):  # a bound sample refreshes the threshold of its set
        if in_up_set(y[i2], alpha[i2], C) and f2 < thresholds[UP]:
            thresholds[UP], extremes[UP] = f2, i2
        elif in_low_set(y[i2], alpha[i2], C) and f2 > thresholds[LOW]:
            thresholds[LOW], extremes[LOW] = f2, i2
    i1 = -1
    if in_up_set(y[i2], alpha[i2], C) and thresholds[LOW] - f2 > 2.0 * tol:
        i1 = extremes[LOW]
    if in_low_set(y[i2], alpha[i2], C) and f2 - thresholds[UP] > 2.0 * tol:
        i1 = extremes[UP]
    if i1 < 0:
        return 0
    if is_free(alpha[i2], C):  # the better of the two partners
        i1 = extremes[LOW] if thresholds[LOW] - f2 > f2 - thresholds[UP] else extremes[UP]
    return 1 if step_pair(provider, alpha, gradient, y, i1, i2, C, eps, thresholds, extremes) else 0


@njit(cache=True)
def keerthi_loop(provider, y, C, tol, eps, max_iter, maximal_pair):
    n = y.shape[0]
    alpha = np.zeros(n)
    gradient = -np.ones(n)
    thresholds = np.array([-1.0, 1.0])  # F = -y at alpha = 0
    extremes = np.array([np.argmax(y > 0), np.argmax(y < 0)])
    iterations = 0
    examine_all = True
    changed = 0
    while (changed > 0 or examine_all) and iterations < max_iter:
        changed = 0
        if examine_all:
            for i in range(n):
                changed += examine_example(provider, alpha, gradient, y, i, C, tol, eps,
                                           thresholds, extremes)
                if iterations + changed >= max_iter:
                    break
            iterations += changed
        elif not maximal_pair:  # Modification 1: loop over I0 until I0 is optimal
            for i in range(n):
                if is_free(alpha[i], C):
                    changed += examine_example(provider, alpha, gradient, y, i, C, tol, eps,
                                               thresholds, extremes)
                    if iterations + changed >= max_iter:
                        break
                    if thresholds[UP] > thresholds[LOW] - 2.0 * tol:
                        iterations += changed
                        changed = 0  # I0 is optimal: check every sample next
                        break
            iterations += changed
        else:  # Modification 2: the maximal violating pair until I0 is optimal
            while iterations < max_iter:
                if not step_pair(provider, alpha, gradient, y, extremes[UP], extremes[LOW], C,
                                 eps, thresholds, extremes):
                    break
                iterations += 1
                if thresholds[UP] > thresholds[LOW] - 2.0 * tol:
                    break
        if examine_all:
            examine_all = False
        elif changed == 0:
            examine_all = True
    converged = not (changed > 0 or examine_all) and iterations < max_iter
    bias = bias_from_gradient(alpha, gradient, y, C, n)
    violation = max_violation(alpha, gradient, y, C, n)
    return alpha, bias, iterations, converged, dual_objective(alpha, gradient), violation


def solve(provider, y, params, maximal_pair):
    check_two_classes(y)
    C, tol, max_iter = smo_settings(params, y.shape[0])
    eps = float(params.get("eps", KEERTHI_EPS))
    alpha, bias, iterations, converged, objective, violation = keerthi_loop(
        provider, np.asarray(y, dtype=np.float64), C, tol, eps, max_iter, maximal_pair
    )
    return finish(provider, alpha, bias, iterations, converged, objective, violation=violation)


@register_solver("smo_mod1")
def solve_mod1(provider, y, params):
    """Params: ``C``, ``tol`` (stop at b_low <= b_up + 2 tol, default 1e-3), ``eps`` (takeStep's
    minimal relative change, default 1e-12), ``max_iter`` (-1: max(10^7, 100 n))."""
    return solve(provider, y, params, maximal_pair=False)


@register_solver("smo_mod2")
def solve_mod2(provider, y, params):
    """Params as ``smo_mod1``."""
    return solve(provider, y, params, maximal_pair=True)
