"""LIBSVM 2.83's SMO: second-order working-set selection, shrinking, LRU kernel cache.

Fan, Chen and Lin (2005), "Working set selection using second order information for training
SVMs" (WSS 2), as implemented by LIBSVM's ``Solver`` (svm.cpp): ``select_working_set``,
``do_shrinking`` / ``be_shrunk`` / ``reconstruct_gradient`` (LIBSVM 3.x rules, as in
scikit-learn's copy), stop when the maximal violation m(a) - M(a) <= tol, bias = -rho from
``calculate_rho``. Positions [0, active_size) are the active set; shrinking swaps positions in the
provider (its ``swap_index``) and in the solver's own arrays.

Kernel counting: each iteration requests the row of i (active-set prefix) during selection and
reuses it for the update, then the row of j; a change of upper-bound status requests a full row.
"""

import numpy as np
from numba import njit

from svmbench.kernels.provider import kernel_row, swap_positions
from svmbench.solvers.base import MAX_ITER, OPTIMAL, finish, register_solver
from svmbench.solvers.smo_step import (
    TAU,
    check_two_classes,
    in_low_set,
    in_up_set,
    is_free,
    outcome,
    smo_settings,
    solve_pair,
    update_gradient,
)

# iterations between two shrinking passes (LIBSVM: min(l, 1000))
SHRINK_PERIOD = 1000


@njit(cache=True)
def select_working_set(provider, alpha, gradient, y, C, active_size):
    """Fan et al. 2005, WSS 2: i maximises -y_i G_i over I_up; j minimises the second-order
    decrease -b_ij^2 / a_ij over I_low with b_ij > 0. Returns (i, j, gap, row of i); j = -1 when
    there is no such j; gap = m(a) - M(a) over the active set."""
    gmax, i = -np.inf, -1
    for t in range(active_size):
        if in_up_set(y[t], alpha[t], C) and -y[t] * gradient[t] >= gmax:
            gmax, i = -y[t] * gradient[t], t
    if i < 0:
        return -1, -1, -np.inf, provider.cache[0]
    row_i = kernel_row(provider, i, active_size)
    gmax2, j, best_decrease = -np.inf, -1, np.inf
    for t in range(active_size):
        if not in_low_set(y[t], alpha[t], C):
            continue
        gmax2 = max(gmax2, y[t] * gradient[t])
        gradient_diff = gmax + y[t] * gradient[t]  # b_it, Fan et al. 2005, eq. (13)
        if gradient_diff > 0.0:
            curvature = provider.diag[i] + provider.diag[t] - 2.0 * row_i[t]  # a_it
            decrease = -gradient_diff * gradient_diff / (curvature if curvature > 0.0 else TAU)
            if decrease <= best_decrease:
                j, best_decrease = t, decrease
    return i, j, gmax + gmax2, row_i


@njit(cache=True)
def be_shrunk(t, y, alpha, gradient, C, gmax_up, gmax_low):
    """LIBSVM Solver::be_shrunk: a bound sample whose gradient says it will stay at its bound."""
    if is_free(alpha[t], C):
        return False
    if in_up_set(y[t], alpha[t], C):  # a bound sample in I_up only
        return y[t] * gradient[t] > gmax_low
    return -y[t] * gradient[t] > gmax_up


@njit(cache=True)
def swap(provider, y, alpha, gradient, gradient_bar, a, b):
    """LIBSVM Solver::swap_index: the provider's positions and the solver's arrays together."""
    swap_positions(provider, a, b)
    y[a], y[b] = y[b], y[a]
    alpha[a], alpha[b] = alpha[b], alpha[a]
    gradient[a], gradient[b] = gradient[b], gradient[a]
    gradient_bar[a], gradient_bar[b] = gradient_bar[b], gradient_bar[a]


@njit(cache=True)
def reconstruct_gradient(provider, y, alpha, gradient, gradient_bar, C, active_size):
    """LIBSVM Solver::reconstruct_gradient: G of the shrunk samples from G_bar and the free ones."""
    n = y.shape[0]
    if active_size == n:
        return
    for t in range(active_size, n):
        gradient[t] = gradient_bar[t] - 1.0
    n_free = 0
    for t in range(active_size):
        if is_free(alpha[t], C):
            n_free += 1
    if n_free * n > 2 * active_size * (n - active_size):
        for t in range(active_size, n):
            row = kernel_row(provider, t, active_size)
            for s in range(active_size):
                if is_free(alpha[s], C):
                    gradient[t] += alpha[s] * y[s] * y[t] * row[s]
    else:
        for s in range(active_size):
            if is_free(alpha[s], C):
                row = kernel_row(provider, s, n)
                for t in range(active_size, n):
                    gradient[t] += alpha[s] * y[s] * y[t] * row[t]


@njit(cache=True)
def do_shrinking(provider, y, alpha, gradient, gradient_bar, C, tol, active_size, unshrink):
    """LIBSVM Solver::do_shrinking; returns (active_size, unshrink)."""
    gmax_up, gmax_low = -np.inf, -np.inf  # max of -y G over I_up, of y G over I_low
    for t in range(active_size):
        if in_up_set(y[t], alpha[t], C):
            gmax_up = max(gmax_up, -y[t] * gradient[t])
        if in_low_set(y[t], alpha[t], C):
            gmax_low = max(gmax_low, y[t] * gradient[t])
    if not unshrink and gmax_up + gmax_low <= tol * 10:
        unshrink = True
        reconstruct_gradient(provider, y, alpha, gradient, gradient_bar, C, active_size)
        active_size = y.shape[0]
    t = 0
    while t < active_size:
        if be_shrunk(t, y, alpha, gradient, C, gmax_up, gmax_low):
            active_size -= 1
            while active_size > t:
                if not be_shrunk(active_size, y, alpha, gradient, C, gmax_up, gmax_low):
                    swap(provider, y, alpha, gradient, gradient_bar, t, active_size)
                    break
                active_size -= 1
        t += 1
    return active_size, unshrink


@njit(cache=True)
def update_gradient_bar(provider, y, gradient_bar, t, was_upper, C):
    """Keep G_bar_k = sum over alpha_s = C of C Q_ks when t enters or leaves the upper bound."""
    n = y.shape[0]
    row = kernel_row(provider, t, n)
    sign = -1.0 if was_upper else 1.0
    for k in range(n):
        gradient_bar[k] += sign * C * y[t] * y[k] * row[k]


@njit(cache=True)
def initial_gradient(provider, y, alpha, C, gradient, gradient_bar):
    """LIBSVM Solver::Solve: G = Q alpha - 1 and G_bar = sum over alpha_s = C of C Q_s, for a
    warm start from a feasible alpha (one full row per nonzero alpha)."""
    n = y.shape[0]
    for s in range(n):
        if alpha[s] > 0.0:
            row = kernel_row(provider, s, n)
            for t in range(n):
                gradient[t] += alpha[s] * y[s] * y[t] * row[t]
                if alpha[s] >= C:
                    gradient_bar[t] += C * y[s] * y[t] * row[t]


@njit(cache=True)
def wss2_loop(provider, y, alpha, C, tol, max_iter, shrinking):
    n = y.shape[0]
    gradient = -np.ones(n)
    gradient_bar = np.zeros(n)
    initial_gradient(provider, y, alpha, C, gradient, gradient_bar)
    active_size = n
    unshrink = False
    counter = min(n, SHRINK_PERIOD) + 1
    iterations = 0
    converged = False
    while iterations < max_iter:
        counter -= 1
        if counter == 0:
            counter = min(n, SHRINK_PERIOD)
            if shrinking:
                active_size, unshrink = do_shrinking(provider, y, alpha, gradient, gradient_bar,
                                                     C, tol, active_size, unshrink)
        i, j, gap, row_i = select_working_set(provider, alpha, gradient, y, C, active_size)
        if gap < tol or j < 0:
            reconstruct_gradient(provider, y, alpha, gradient, gradient_bar, C, active_size)
            active_size = n
            i, j, gap, row_i = select_working_set(provider, alpha, gradient, y, C, active_size)
            if gap < tol or j < 0:
                converged = True
                break
            counter = 1  # shrink again in the next iteration
        iterations += 1
        row_j = kernel_row(provider, j, active_size)
        old_i, old_j = alpha[i], alpha[j]
        new_i, new_j = solve_pair(old_i, old_j, gradient[i], gradient[j], y[i], y[j],
                                  provider.diag[i], provider.diag[j], row_i[j], C)
        update_gradient(gradient, y, row_i, row_j, y[i] * (new_i - old_i), y[j] * (new_j - old_j),
                        active_size)
        alpha[i], alpha[j] = new_i, new_j
        for t, old in ((i, old_i), (j, old_j)):
            if (old >= C) != (alpha[t] >= C):
                update_gradient_bar(provider, y, gradient_bar, t, old >= C, C)
    reconstruct_gradient(provider, y, alpha, gradient, gradient_bar, C, active_size)
    return outcome(alpha, gradient, y, C, iterations, converged)


def feasible_start(alpha_init, y, C):
    """The starting alpha: zeros, or a checked copy of ``alpha_init``."""
    if alpha_init is None:
        return np.zeros(y.shape[0])
    alpha = np.array(alpha_init, dtype=np.float64)
    scale = max(1.0, float(np.sum(alpha)))
    if (alpha.shape != y.shape or alpha.min() < 0.0 or alpha.max() > C * (1 + 1e-12)
            or abs(float(y @ alpha)) > 1e-9 * scale):
        raise ValueError(
            f"alpha_init must have one entry per sample (got shape {alpha.shape} for {y.shape[0]}),"
            f" lie in [0, C={C}] and satisfy y'alpha = 0; scale a previous solution by "
            f"min(1, C / max(alpha)) to keep it feasible"
        )
    return np.minimum(alpha, C)


@register_solver("smo_wss2")
def solve(provider, y, params):
    """Params: ``C``, ``tol`` (maximal violation, LIBSVM's eps, default 1e-3), ``shrinking``
    (default True), ``max_iter`` (-1: no limit), ``alpha_init`` (optional warm
    start: a feasible alpha, 0 <= alpha <= C and y'alpha = 0)."""
    check_two_classes(y)
    C, tol, max_iter = smo_settings(params)
    shrinking = bool(params.get("shrinking", True))
    labels = np.array(y, dtype=np.float64)  # permuted in place by shrinking
    alpha = feasible_start(params.get("alpha_init"), labels, C)
    alpha, bias, iterations, converged, objective, violation = wss2_loop(
        provider, labels, alpha, C, tol, max_iter, shrinking
    )
    # stopped at m(a) - M(a) < tol, which bounds every sample's violation at the bias by tol
    return finish(provider, alpha, bias, iterations, OPTIMAL if converged else MAX_ITER, objective,
                  violation, tol)
