"""SMO with two thresholds: Keerthi, Shevade, Bhattacharyya and Murthy (2001), Modifications 1 and 2.

Follows the paper's pseudo-code: the error cache F_i = sum_j alpha_j y_j k(x_i, x_j) - y_i (its
eq. 3 without b) is kept for the free samples I0 only, as the dual gradient G = Q alpha - 1 of the
C-SVC Q-matrix (F_i = y_i G_i). takeStep updates it over I0 (and i1, i2) with the Q rows of i1 and
i2 over I0, then sets b_up = min F over I_up and b_low = max F over I_low over I0 + {i1, i2}.
examineExample computes G of a bound sample from the support vectors and lets its F refresh the
threshold of its set; optimality is b_low <= b_up + 2 tol.
Modification 1 loops over I0 and leaves as soon as I0 is optimal; Modification 2 steps on the
maximal violating pair (i_up, i_low) until I0 is optimal. Both alternate with passes over all
samples (Platt's outer loop) until a full pass changes nothing.

Kernel entries: the provider's positions are kept in three blocks, [I0 | alpha = C | alpha = 0],
by swapping positions as samples change block (LIBSVM's swap_index). The entries of i1 and i2
against I0 are then the row prefixes over I0 (2 |I0| + 1 per step with k_12), and F of a bound
sample the row prefix over the support vectors (n_SV entries). Rows go through the provider's LRU
cache, so the computed count (K1) is below the requested one (K2). A pass over all samples that
changes nothing leaves F valid for every sample, so the objective, bias and violation need no
further entries; a run stopped by ``max_iter`` recomputes F of the bound samples first (counted).
"""

import numpy as np
from numba import njit

from svmbench.kernels.provider import kernel_row, swap_positions
from svmbench.kernels.qmatrix import check_labels_folded
from svmbench.solvers.base import MAX_ITER, OPTIMAL, finish, register_solver
from svmbench.solvers.smo_step import (
    check_two_classes,
    in_low_set,
    in_up_set,
    next_examine_all,
    outcome,
    propose_pair,
    smo_settings,
    update_gradient,
)

# takeStep's minimal relative change. Platt's 1e-3 refuses a short step clipped at a bound; with one
# partner per examined sample the loops then stop with violations far above 2 tol (seen on iris),
# so only null steps are refused by default.
KEERTHI_EPS = 1e-12
# thresholds[...] and extremes[...] indices: b_up / i_up, b_low / i_low
UP, LOW = 0, 1
# blocks of positions: I0 = [0, ends[FREE]), alpha = C: [ends[FREE], ends[AT_C]), alpha = 0: the rest
FREE, AT_C, AT_ZERO = 0, 1, 2


@njit(cache=True)
def block_of(alpha_i, C):
    if alpha_i <= 0.0:
        return AT_ZERO
    return AT_C if alpha_i >= C else FREE


@njit(cache=True)
def swap(provider, y, alpha, g, a, b):
    """Exchange positions a and b in the provider and in the solver's arrays."""
    swap_positions(provider, a, b, True)  # rows keep their prefix before min(a, b)
    y[a], y[b] = y[b], y[a]
    alpha[a], alpha[b] = alpha[b], alpha[a]
    g[a], g[b] = g[b], g[a]


@njit(cache=True)
def place(provider, y, alpha, g, C, ends, p, other):
    """Move position p into the block of its alpha, one block boundary at a time (each move swaps
    p with the boundary position). Returns the new positions of p and of ``other``."""
    target = block_of(alpha[p], C)
    while True:
        current = FREE if p < ends[FREE] else (AT_C if p < ends[AT_C] else AT_ZERO)
        if current == target:
            return p, other
        if current > target:  # the first position of p's block joins the block before it
            q = ends[current - 1]
            ends[current - 1] += 1
        else:  # the last position of p's block joins the block after it
            ends[current] -= 1
            q = ends[current]
        swap(provider, y, alpha, g, p, q)
        if other == q:
            other = p
        elif other == p:
            other = q
        p = q


@njit(cache=True)
def gradient_from_support_vectors(provider, alpha, p, n_sv):
    """G_p = sum over support vectors j of alpha_j Q_pj - 1 (= y_p F_p, Keerthi et al. 2001,
    eq. 3 without b): the row prefix over the support vectors, n_SV entries."""
    total = 0.0
    if n_sv > 0:
        row = kernel_row(provider, p, n_sv)
        for j in range(n_sv):
            total += alpha[j] * row[j]
    return total - 1.0


@njit(cache=True)
def offer(y, alpha, g, C, k, thresholds, extremes):
    """Let F_k lower b_up (k in I_up) or raise b_low (k in I_low) (Keerthi et al. 2001, eq. 12)."""
    f = y[k] * g[k]
    if in_up_set(y[k], alpha[k], C) and f < thresholds[UP]:
        thresholds[UP], extremes[UP] = f, k
    if in_low_set(y[k], alpha[k], C) and f > thresholds[LOW]:
        thresholds[LOW], extremes[LOW] = f, k


@njit(cache=True)
def refresh_thresholds(y, alpha, g, C, n_free, i1, i2, thresholds, extremes):
    """(b_up, i_up) and (b_low, i_low) over I0 + {i1, i2} (Keerthi et al. 2001, takeStep).

    Written out rather than calling ``offer`` per sample: a call that passes arrays costs more
    than the comparison itself.
    """
    b_up, b_low, i_up, i_low = np.inf, -np.inf, -1, -1
    for t in range(n_free + 2):
        k = t if t < n_free else (i1 if t == n_free else i2)
        f = y[k] * g[k]
        if in_up_set(y[k], alpha[k], C) and f < b_up:
            b_up, i_up = f, k
        if in_low_set(y[k], alpha[k], C) and f > b_low:
            b_low, i_low = f, k
    thresholds[UP], thresholds[LOW] = b_up, b_low
    if i_up >= 0:
        extremes[UP] = i_up
    if i_low >= 0:
        extremes[LOW] = i_low


@njit(cache=True)
def take_step(provider, y, alpha, g, C, eps, ends, i1, i2, thresholds, extremes):
    """Keerthi et al. 2001, takeStep: True if (alpha_i1, alpha_i2) moved."""
    # the pair's exact minimiser (Platt 1998, eqs. 16-18)
    progress, new_1, new_2, q_12 = propose_pair(provider, alpha, y, i1, i2, g[i1], g[i2], C, eps)
    if not progress:
        return False
    step_1, step_2 = new_1 - alpha[i1], new_2 - alpha[i2]
    n_free = ends[FREE]
    if n_free > 0:  # update fcache[i] for i in I0: the rows of i1 and i2 over I0 only
        row_1 = kernel_row(provider, i1, n_free)
        row_2 = kernel_row(provider, i2, n_free)
        update_gradient(g, row_1, row_2, step_1, step_2, n_free)
    if i1 >= n_free:  # G of i1 and i2 when they were not in I0
        g[i1] += step_1 * provider.diag[i1] + step_2 * q_12
    if i2 >= n_free:
        g[i2] += step_1 * q_12 + step_2 * provider.diag[i2]
    alpha[i1], alpha[i2] = new_1, new_2
    i1, i2 = place(provider, y, alpha, g, C, ends, i1, i2)  # update I0, I1, ..., I4
    i2, i1 = place(provider, y, alpha, g, C, ends, i2, i1)
    refresh_thresholds(y, alpha, g, C, ends[FREE], i1, i2, thresholds, extremes)
    return True


@njit(cache=True)
def examine_example(provider, y, alpha, g, C, tol, eps, ends, i2, thresholds, extremes):
    """Keerthi et al. 2001, examineExample: 1 if a step was taken."""
    if i2 >= ends[FREE]:  # not in I0: G from the support vectors, then the threshold of its set
        g[i2] = gradient_from_support_vectors(provider, alpha, i2, ends[AT_C])
        offer(y, alpha, g, C, i2, thresholds, extremes)
    f2 = y[i2] * g[i2]
    i1 = -1
    if in_up_set(y[i2], alpha[i2], C) and thresholds[LOW] - f2 > 2.0 * tol:
        i1 = extremes[LOW]
    if in_low_set(y[i2], alpha[i2], C) and f2 - thresholds[UP] > 2.0 * tol:
        i1 = extremes[UP]
    if i1 < 0:
        return 0
    if i2 < ends[FREE]:  # i2 in I0: the better of the two partners
        i1 = extremes[LOW] if thresholds[LOW] - f2 > f2 - thresholds[UP] else extremes[UP]
    return 1 if take_step(provider, y, alpha, g, C, eps, ends, i1, i2, thresholds, extremes) else 0


@njit(cache=True)
def keerthi_loop(provider, y, C, tol, eps, max_iter, maximal_pair):
    """The paper's main routine; y is permuted in place with the provider's positions."""
    n = y.shape[0]
    alpha = np.zeros(n)
    g = -np.ones(n)  # G = -1 (F = -y) at alpha = 0, every sample; kept valid over I0 from now on
    ends = np.zeros(2, dtype=np.int64)  # I0 and the support vectors are empty
    thresholds = np.array([-1.0, 1.0])  # b_up = -1 at a sample of class 1, b_low = 1 of class 2
    extremes = np.array([np.argmax(y > 0), np.argmax(y < 0)])
    iterations = 0
    examine_all = True
    changed = 0
    while (changed > 0 or examine_all) and iterations < max_iter:
        changed = 0
        if examine_all:
            for i in range(n):
                changed += examine_example(provider, y, alpha, g, C, tol, eps, ends, i,
                                           thresholds, extremes)
                if iterations + changed >= max_iter:
                    break
            iterations += changed
        elif not maximal_pair:  # Modification 1: loop over I0 until I0 is optimal
            i = 0
            while i < ends[FREE]:
                changed += examine_example(provider, y, alpha, g, C, tol, eps, ends, i,
                                           thresholds, extremes)
                if iterations + changed >= max_iter:
                    break
                if thresholds[UP] > thresholds[LOW] - 2.0 * tol:
                    iterations += changed
                    changed = 0  # I0 is optimal: check every sample next
                    break
                i += 1
            iterations += changed
        else:  # Modification 2: the maximal violating pair until I0 is optimal
            while thresholds[UP] <= thresholds[LOW] - 2.0 * tol and iterations < max_iter:
                if not take_step(provider, y, alpha, g, C, eps, ends, extremes[UP], extremes[LOW],
                                 thresholds, extremes):
                    break
                iterations += 1
        examine_all = next_examine_all(examine_all, changed)
    converged = not (changed > 0 or examine_all) and iterations < max_iter
    if not converged:  # F of the bound samples dates from their last examination
        for i in range(ends[FREE], n):
            g[i] = gradient_from_support_vectors(provider, alpha, i, ends[AT_C])
    return outcome(alpha, g, y, C, iterations, converged)


def solve(provider, y, params, maximal_pair):
    check_two_classes(y)
    check_labels_folded(provider, y)
    C, tol, max_iter = smo_settings(params)
    eps = float(params.get("eps", KEERTHI_EPS))
    labels = np.array(y, dtype=np.float64)  # permuted in place with the provider's positions
    alpha, bias, iterations, converged, objective, violation = keerthi_loop(
        provider, labels, C, tol, eps, max_iter, maximal_pair
    )
    # stopped at b_low <= b_up + 2 tol, which bounds every sample's violation at the bias by 2 tol
    return finish(provider, alpha, bias, iterations, OPTIMAL if converged else MAX_ITER, objective,
                  violation, 2.0 * tol)


@register_solver("smo_mod1")
def solve_mod1(provider, y, params):
    """Params: ``C``, ``tol`` (stop at b_low <= b_up + 2 tol, default 1e-3), ``eps`` (takeStep's
    minimal relative change, default 1e-12), ``max_iter`` (-1: no limit)."""
    return solve(provider, y, params, maximal_pair=False)


@register_solver("smo_mod2")
def solve_mod2(provider, y, params):
    """Params as ``smo_mod1``."""
    return solve(provider, y, params, maximal_pair=True)
