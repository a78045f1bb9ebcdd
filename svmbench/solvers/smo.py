"""LIBSVM 2.83's SMO: second-order working-set selection, shrinking, LRU kernel cache.

Fan, Chen and Lin (2005), "Working set selection using second order information for training
SVMs" (WSS 2), as implemented by LIBSVM's ``Solver`` (svm.cpp): ``select_working_set``,
``do_shrinking`` / ``be_shrunk`` / ``reconstruct_gradient`` (LIBSVM 2.83's rules by default,
``shrinking_rules="libsvm3"`` for LIBSVM 3.x's, as in scikit-learn's copy), stop when the
maximal violation m(a) - M(a) <= tol, bias = -rho from
``calculate_rho``. Positions [0, active_size) are the active set; shrinking swaps positions in the
provider (its ``swap_index``) and in the solver's own arrays.

Reads the C-SVC Q-matrix (Q_ij = y_i y_j k_ij) as LIBSVM's Solver reads SVC_Q.
Kernel counting: each iteration requests the row of i (active-set prefix) during selection and
reuses it for the update, then the row of j; a change of upper-bound status requests a full row
(G_bar), and so does gradient reconstruction (2.83: the full row of each free sample). The trace
splits kernel_requested into ``requested_working_set`` (rows i and j), ``requested_gradient_bar``
and ``requested_reconstruction``. LIBSVM 2.83 itself requests row i twice per iteration (selection
and update), so its own total is ours plus one more active row per iteration; gs2008 Tables II-III
print K2 = the working-set rows (a4a: LIBSVM 2.83 requests 6.94M entries for row i in selection
and 6.94M for row j, 13.9M; the paper: 13.9M).
"""

import numpy as np
from numba import njit

from svmbench.kernels.provider import REQUESTED, kernel_row, swap_positions
from svmbench.kernels.qmatrix import check_labels_folded
from svmbench.solvers.base import MAX_ITER, OPTIMAL, finish, register_solver
from svmbench.solvers.smo_step import (
    check_two_classes,
    curvature,
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
# shrinking and gradient-reconstruction rules: LIBSVM 2.83's (svm.cpp of Nov. 2006) or 3.x's
LIBSVM283, LIBSVM3 = 0, 1
SHRINKING_RULES = {"libsvm283": LIBSVM283, "libsvm3": LIBSVM3}
# requests[...] indices: entries requested for G_bar (and a warm start's gradient), for gradient
# reconstruction; the rest are the working-set rows Q_i, Q_j (gs2008 Tables II-III count those)
GRADIENT_BAR, RECONSTRUCTION = 0, 1


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
        return -1, -1, -np.inf, provider.cache.pool[:0]
    row_i = kernel_row(provider, i, active_size)
    gmax2, j, best_decrease = -np.inf, -1, np.inf
    for t in range(active_size):
        if not in_low_set(y[t], alpha[t], C):
            continue
        gmax2 = max(gmax2, y[t] * gradient[t])
        gradient_diff = gmax + y[t] * gradient[t]  # b_it, Fan et al. 2005, eq. (13)
        if gradient_diff > 0.0:
            a_it = curvature(provider.diag[i], provider.diag[t], row_i[t], y[i], y[t])
            decrease = -gradient_diff * gradient_diff / a_it
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
def reconstruct_gradient(provider, y, alpha, gradient, gradient_bar, C, active_size, rules):
    """LIBSVM Solver::reconstruct_gradient: G of the shrunk samples from G_bar and the free ones.

    LIBSVM 2.83 requests the full row of every free active sample; LIBSVM 3.x instead requests the
    active prefix of every shrunk sample's row when that is fewer entries (its nr_free * l >
    2 * active_size * (l - active_size) rule)."""
    n = y.shape[0]
    if active_size == n:
        return
    for t in range(active_size, n):
        gradient[t] = gradient_bar[t] - 1.0
    n_free = 0
    for t in range(active_size):
        if is_free(alpha[t], C):
            n_free += 1
    if rules == LIBSVM3 and n_free * n > 2 * active_size * (n - active_size):
        for t in range(active_size, n):
            row = kernel_row(provider, t, active_size)
            for s in range(active_size):
                if is_free(alpha[s], C):
                    gradient[t] += alpha[s] * row[s]
    else:
        for s in range(active_size):
            if is_free(alpha[s], C):
                row = kernel_row(provider, s, n)
                for t in range(active_size, n):
                    gradient[t] += alpha[s] * row[t]


@njit(cache=True)
def violating_extremes(y, alpha, gradient, C, active_size):
    """(max of -y G over I_up, max of y G over I_low) over the active set."""
    gmax_up, gmax_low = -np.inf, -np.inf
    for t in range(active_size):
        if in_up_set(y[t], alpha[t], C):
            gmax_up = max(gmax_up, -y[t] * gradient[t])
        if in_low_set(y[t], alpha[t], C):
            gmax_low = max(gmax_low, y[t] * gradient[t])
    return gmax_up, gmax_low


@njit(cache=True)
def shrink_libsvm3(provider, y, alpha, gradient, gradient_bar, C, tol, active_size, unshrink):
    """LIBSVM 3.x Solver::do_shrinking; returns (active_size, unshrink). At the first gap
    <= 10 tol every sample becomes active again before the shrinking pass."""
    gmax_up, gmax_low = violating_extremes(y, alpha, gradient, C, active_size)
    if not unshrink and gmax_up + gmax_low <= tol * 10:
        unshrink = True
        reconstruct_gradient(provider, y, alpha, gradient, gradient_bar, C, active_size, LIBSVM3)
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
def shrink_libsvm283(provider, y, alpha, gradient, gradient_bar, C, tol, active_size, unshrink):
    """LIBSVM 2.83 Solver::do_shrinking; returns (active_size, unshrink). Nothing happens when the
    active set is optimal (gap < tol); a shrunk sample is swapped with the last active position
    and that newcomer examined in turn; at the first gap <= 10 tol the gradient is reconstructed
    and only the shrunk samples that no longer pass the shrinking test become active again."""
    gmax_up, gmax_low = violating_extremes(y, alpha, gradient, C, active_size)
    if gmax_up + gmax_low < tol:
        return active_size, unshrink
    t = 0
    while t < active_size:
        if be_shrunk(t, y, alpha, gradient, C, gmax_up, gmax_low):
            active_size -= 1
            swap(provider, y, alpha, gradient, gradient_bar, t, active_size)
        else:
            t += 1
    if unshrink or gmax_up + gmax_low > tol * 10:
        return active_size, unshrink
    reconstruct_gradient(provider, y, alpha, gradient, gradient_bar, C, active_size, LIBSVM283)
    t = y.shape[0] - 1
    while t >= active_size:
        if is_free(alpha[t], C) or be_shrunk(t, y, alpha, gradient, C, gmax_up, gmax_low):
            t -= 1
        else:
            swap(provider, y, alpha, gradient, gradient_bar, t, active_size)
            active_size += 1
    return active_size, True


@njit(cache=True)
def update_gradient_bar(provider, gradient_bar, t, was_upper, C):
    """Keep G_bar_k = sum over alpha_s = C of C Q_ks when t enters or leaves the upper bound."""
    n = gradient_bar.shape[0]
    row = kernel_row(provider, t, n)
    step = -C if was_upper else C
    for k in range(n):
        gradient_bar[k] += step * row[k]


@njit(cache=True)
def initial_gradient(provider, alpha, C, gradient, gradient_bar):
    """LIBSVM Solver::Solve: G = Q alpha - 1 and G_bar = sum over alpha_s = C of C Q_s, for a
    warm start from a feasible alpha (one full row per nonzero alpha)."""
    n = alpha.shape[0]
    for s in range(n):
        if alpha[s] > 0.0:
            row = kernel_row(provider, s, n)
            for t in range(n):
                gradient[t] += alpha[s] * row[t]
                if alpha[s] >= C:
                    gradient_bar[t] += C * row[t]


@njit(cache=True)
def wss2_loop(provider, y, alpha, C, tol, max_iter, shrinking, rules):
    n = y.shape[0]
    gradient = -np.ones(n)
    gradient_bar = np.zeros(n)
    requests = np.zeros(2, dtype=np.int64)
    before = provider.counters[REQUESTED]
    initial_gradient(provider, alpha, C, gradient, gradient_bar)
    requests[GRADIENT_BAR] += provider.counters[REQUESTED] - before
    active_size = n
    unshrink = False
    counter = min(n, SHRINK_PERIOD) + 1
    iterations = 0
    converged = False
    while iterations < max_iter:
        counter -= 1
        if counter == 0:
            counter = min(n, SHRINK_PERIOD)
            before = provider.counters[REQUESTED]  # shrinking requests rows to reconstruct G
            if shrinking and rules == LIBSVM283:
                active_size, unshrink = shrink_libsvm283(provider, y, alpha, gradient,
                                                         gradient_bar, C, tol, active_size,
                                                         unshrink)
            elif shrinking:
                active_size, unshrink = shrink_libsvm3(provider, y, alpha, gradient, gradient_bar,
                                                       C, tol, active_size, unshrink)
            requests[RECONSTRUCTION] += provider.counters[REQUESTED] - before
        i, j, gap, row_i = select_working_set(provider, alpha, gradient, y, C, active_size)
        if gap < tol or j < 0:
            before = provider.counters[REQUESTED]
            reconstruct_gradient(provider, y, alpha, gradient, gradient_bar, C, active_size, rules)
            requests[RECONSTRUCTION] += provider.counters[REQUESTED] - before
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
        update_gradient(gradient, row_i, row_j, new_i - old_i, new_j - old_j, active_size)
        alpha[i], alpha[j] = new_i, new_j
        for t, old in ((i, old_i), (j, old_j)):
            if (old >= C) != (alpha[t] >= C):
                before = provider.counters[REQUESTED]
                update_gradient_bar(provider, gradient_bar, t, old >= C, C)
                requests[GRADIENT_BAR] += provider.counters[REQUESTED] - before
    before = provider.counters[REQUESTED]
    reconstruct_gradient(provider, y, alpha, gradient, gradient_bar, C, active_size, rules)
    requests[RECONSTRUCTION] += provider.counters[REQUESTED] - before
    return outcome(alpha, gradient, y, C, iterations, converged), requests


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
    (default True), ``shrinking_rules`` ("libsvm283", default, or "libsvm3"), ``max_iter``
    (-1: no limit), ``alpha_init`` (optional warm
    start: a feasible alpha, 0 <= alpha <= C and y'alpha = 0)."""
    check_two_classes(y)
    check_labels_folded(provider, y)
    C, tol, max_iter = smo_settings(params)
    shrinking = bool(params.get("shrinking", True))
    rules = params.get("shrinking_rules", "libsvm283")
    if rules not in SHRINKING_RULES:
        raise ValueError(f"unknown shrinking_rules {rules!r}; "
                         f"choose one of {list(SHRINKING_RULES)}")
    labels = np.array(y, dtype=np.float64)  # permuted in place by shrinking
    alpha = feasible_start(params.get("alpha_init"), labels, C)
    (alpha, bias, iterations, converged, objective, violation), requests = wss2_loop(
        provider, labels, alpha, C, tol, max_iter, shrinking, SHRINKING_RULES[rules]
    )
    # stopped at m(a) - M(a) < tol, which bounds every sample's violation at the bias by tol
    result = finish(provider, alpha, bias, iterations, OPTIMAL if converged else MAX_ITER,
                    objective, violation, tol,
                    requested_gradient_bar=int(requests[GRADIENT_BAR]),
                    requested_reconstruction=int(requests[RECONSTRUCTION]))
    result.trace["requested_working_set"] = (result.kernel_requested - int(requests.sum()))
    return result
