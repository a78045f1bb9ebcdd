"""What every soft-margin SMO variant shares: the two-variable step, the gradient, the bias.

Every variant reads a C-SVC Q-matrix (Q_ij = y_i y_j k_ij, svmbench.kernels.qmatrix) and keeps the
gradient of the dual ``G = Q alpha - 1``: Platt's and LIBSVM's for every sample, Keerthi et al.'s
over the free samples only. Keerthi et al.'s ``F_i = y_i G_i`` (2001, eq. 3 with b dropped) and
Platt's errors ``E_i = F_i - b`` (Platt 1998, u = w.x - b) are read off G. The index sets
``I_up`` / ``I_low`` are Keerthi et al.'s I0+I1+I2 / I0+I3+I4 and LIBSVM's I_up / I_low.
"""

import numpy as np
from numba import njit

from svmbench.kernels.compile_cache import jit_callee
from svmbench.solvers.base import resolve_max_iter
from svmbench.solvers.kkt import kkt_violation

# LIBSVM's TAU: the curvature used when k_ii + k_jj - 2 k_ij <= 0
TAU = 1e-12
# relative distance from a bound within which Platt's and Keerthi's steps put an alpha on it
BOUND_SNAP = 1e-12


def smo_settings(params):
    """Validated ``(C, tol, max_iter)``; ``max_iter=-1`` means no limit."""
    C = float(params.get("C", 1.0))
    tol = float(params.get("tol", 1e-3))
    max_iter = int(params.get("max_iter", -1))
    if not C > 0:
        raise ValueError(f"C must be > 0 (got {C})")
    if not tol > 0:
        raise ValueError(f"tol must be > 0 (got {tol})")
    return C, tol, resolve_max_iter(max_iter)


TWO_SIGNS = "a soft-margin SVM with bias needs labels of both signs (+1 and -1)"


def check_two_classes(y):
    if not (np.any(y > 0) and np.any(y < 0)):
        raise ValueError(TWO_SIGNS)


@njit(cache=True, inline="always")
def lane_max(values):
    """max(values) (-inf when empty), kept in eight independent running maxima so that the loop
    vectorizes (a vector register of doubles); the maximum of a set does not depend on the order
    it is taken in. No allocation and no call: it is inlined into solver loops (see the note on
    reference counts in svmbench.solvers.smo)."""
    m0 = m1 = m2 = m3 = m4 = m5 = m6 = m7 = -np.inf
    whole = values.shape[0] - values.shape[0] % 8
    for t in range(0, whole, 8):
        m0, m1 = max(m0, values[t]), max(m1, values[t + 1])
        m2, m3 = max(m2, values[t + 2]), max(m3, values[t + 3])
        m4, m5 = max(m4, values[t + 4]), max(m5, values[t + 5])
        m6, m7 = max(m6, values[t + 6]), max(m7, values[t + 7])
    best = max(max(max(m0, m1), max(m2, m3)), max(max(m4, m5), max(m6, m7)))
    for t in range(whole, values.shape[0]):
        best = max(best, values[t])
    return best


@njit(cache=True, inline="always")
def lane_sum(values):
    """sum(values) in eight independent running sums, so that the loop vectorizes (as lane_max).
    The order of the additions differs from a loop's: exact, and so the same, only where every
    partial sum is, e.g. small whole numbers (the marks of smo.first_taker)."""
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    whole = values.shape[0] - values.shape[0] % 8
    for t in range(0, whole, 8):
        s0, s1 = s0 + values[t], s1 + values[t + 1]
        s2, s3 = s2 + values[t + 2], s3 + values[t + 3]
        s4, s5 = s4 + values[t + 4], s5 + values[t + 5]
        s6, s7 = s6 + values[t + 6], s7 + values[t + 7]
    total = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
    for t in range(whole, values.shape[0]):
        total += values[t]
    return total


@njit(cache=True, inline="always")
def first_index_of(values, target):
    """The first t with values[t] == target, or -1."""
    for t in range(values.shape[0]):
        if values[t] == target:
            return t
    return -1


@njit(cache=True, inline="always")
def last_index_of(values, target):
    """The last t with values[t] == target, or -1."""
    for t in range(values.shape[0] - 1, -1, -1):
        if values[t] == target:
            return t
    return -1


@jit_callee
def is_free(alpha_i, C):
    return 0.0 < alpha_i < C


@jit_callee
def in_up_set(y_i, alpha_i, C):
    """i may move so that y_i alpha_i grows (Keerthi et al. 2001: I0, I1, I2)."""
    return alpha_i < C if y_i > 0 else alpha_i > 0.0


@jit_callee
def in_low_set(y_i, alpha_i, C):
    """i may move so that y_i alpha_i shrinks (Keerthi et al. 2001: I0, I3, I4)."""
    return alpha_i > 0.0 if y_i > 0 else alpha_i < C


@njit(cache=True, inline="always")
def curvature_of(q_ii, q_jj, q_ij, y_i, y_j):
    """k_ii + k_jj - 2 k_ij from Q entries (q_ij = y_i y_j k_ij), TAU when it is not positive."""
    value = q_ii + q_jj - 2.0 * y_i * y_j * q_ij
    return value if value > 0.0 else TAU


@jit_callee
def curvature(q_ii, q_jj, q_ij, y_i, y_j):
    """curvature_of, out of line (see solve_pair)."""
    return curvature_of(q_ii, q_jj, q_ij, y_i, y_j)


@njit(cache=True, inline="always")
def wss2_violators(y, alpha, gradient, C, up, low):
    """Fan et al. 2005, WSS 2, first index's pass over positions [0, len(up)): -y_t G_t over I_up
    into up, y_t G_t over I_low into low, -inf elsewhere."""
    for t in range(up.shape[0]):
        up[t] = -y[t] * gradient[t] if in_up_set(y[t], alpha[t], C) else -np.inf
        low[t] = y[t] * gradient[t] if in_low_set(y[t], alpha[t], C) else -np.inf


@njit(cache=True, inline="always")
def wss2_gains(y, diag, row_i, y_i, diag_i, gmax, low, gain):
    """Fan et al. 2005, WSS 2, second index's pass over positions [0, len(gain)): the decrease
    b_it^2 / a_it (eqs. 13-15) over I_low with b_it = gmax + low[t] > 0, -inf elsewhere."""
    for t in range(gain.shape[0]):
        gradient_diff = gmax + low[t]  # b_it, eq. (13); -inf outside I_low
        a_it = curvature(diag_i, diag[t], row_i[t], y_i, y[t])
        gain[t] = gradient_diff * gradient_diff / a_it if gradient_diff > 0.0 else -np.inf


@njit(cache=True, inline="always")
def segment(alpha_i, alpha_j, y_i, y_j, C):
    """(L, H) of Platt 1998, takeStep (eqs. 13-14): the ends of alpha_j's feasible segment on
    y_i a_i + y_j a_j = const within [0, C]^2."""
    if y_i == y_j:
        return max(0.0, alpha_i + alpha_j - C), min(C, alpha_i + alpha_j)
    return max(0.0, alpha_j - alpha_i), min(C, C + alpha_j - alpha_i)


@njit(cache=True, inline="always")
def segment_is_a_point(alpha_i, alpha_j, y_i, y_j, C):
    """L == H: the pair's feasible segment is one point, so no step can move it (both alphas on
    bounds the constraint line meets only at a corner). takeStep returns before its kernel
    entries."""
    low, high = segment(alpha_i, alpha_j, y_i, y_j, C)
    return low == high


@njit(cache=True, inline="always")
def pair_solution(alpha_i, alpha_j, gradient_i, gradient_j, y_i, y_j, q_ii, q_jj, q_ij, C):
    """Exact minimiser over (alpha_i, alpha_j) on y_i a_i + y_j a_j = const, clipped to [0, C]^2
    (Platt 1998, eqs. 16-18, in LIBSVM's Solver::Solve form with TAU for non-positive curvature).
    LIBSVM's clipping with each test a pick between values, not a jump: both label cases are
    computed and one kept, each value as LIBSVM's branches compute it."""
    curvature_ij = curvature_of(q_ii, q_jj, q_ij, y_i, y_j)
    opposite = y_i != y_j
    delta = ((-gradient_i - gradient_j) if opposite else (gradient_i - gradient_j)) / curvature_ij
    # y_i != y_j: alpha_i - alpha_j is kept
    diff = alpha_i - alpha_j
    ahead = diff > 0.0
    o_i, o_j = alpha_i + delta, alpha_j + delta
    j_low, i_low = ahead & (o_j < 0.0), (not ahead) & (o_i < 0.0)
    o_i = diff if j_low else 0.0 if i_low else o_i
    o_j = 0.0 if j_low else -diff if i_low else o_j
    i_high, j_high = ahead & (o_i > C), (not ahead) & (o_j > C)
    o_i = C if i_high else C + diff if j_high else o_i
    o_j = C - diff if i_high else C if j_high else o_j
    # y_i == y_j: alpha_i + alpha_j is kept
    total = alpha_i + alpha_j
    over = total > C
    s_i, s_j = alpha_i - delta, alpha_j + delta
    i_high, j_low = over & (s_i > C), (not over) & (s_j < 0.0)
    s_i = C if i_high else total if j_low else s_i
    s_j = total - C if i_high else 0.0 if j_low else s_j
    j_high, i_low = over & (s_j > C), (not over) & (s_i < 0.0)
    s_j = C if j_high else total if i_low else s_j
    s_i = total - C if j_high else 0.0 if i_low else s_i
    return (o_i if opposite else s_i), (o_j if opposite else s_j)


@jit_callee
def solve_pair(alpha_i, alpha_j, gradient_i, gradient_j, y_i, y_j, q_ii, q_jj, q_ij, C):
    """pair_solution, out of line: the solver loops call it (with it, curvature_of and snapped
    inlined into them, smo_mod1's tests failed inside the compiled loop, "'descr' is NULL" on
    returning to Python, numba 0.68); smo.first_taker inlines pair_solution, so that its loop
    over a block runs in vector lanes."""
    return pair_solution(alpha_i, alpha_j, gradient_i, gradient_j, y_i, y_j, q_ii, q_jj, q_ij, C)


@njit(cache=True, inline="always")
def update_gradient(gradient, row_i, row_j, step_i, step_j, length):
    """G_k += Q_ki d_i + Q_kj d_j for k < length (LIBSVM's "update G"). Inlined: a call here would
    cost the step its reference counts (see the note in svmbench.solvers.smo)."""
    for k in range(length):
        gradient[k] += step_i * row_i[k] + step_j * row_j[k]


@njit(cache=True, inline="always")
def snapped(alpha_i, C):
    """An alpha within BOUND_SNAP * C of a bound is put on it (Platt 1998, takeStep: "if (a2 < 1e-8)
    a2 = 0 else if (a2 > C - 1e-8) a2 = C"): the clipping arithmetic can leave an alpha one ulp
    inside the box, where every later test takes it for a free sample and the bias goes wrong."""
    at_top = C if alpha_i > C - BOUND_SNAP * C else alpha_i
    return 0.0 if alpha_i < BOUND_SNAP * C else at_top


@jit_callee
def snap_to_bounds(alpha_i, C):
    """snapped, out of line (see solve_pair)."""
    return snapped(alpha_i, C)


@njit(cache=True)
def bias_from_gradient(alpha, gradient, y, C, length):
    """-rho of LIBSVM's Solver::calculate_rho: mean y_i G_i over free samples, else the middle
    of the feasible interval [max over I_low-bound, min over I_up-bound]."""
    upper, lower = np.inf, -np.inf
    free_sum, n_free = 0.0, 0
    for i in range(length):
        y_gradient = y[i] * gradient[i]
        if is_free(alpha[i], C):
            free_sum += y_gradient
            n_free += 1
        elif in_up_set(y[i], alpha[i], C):
            upper = min(upper, y_gradient)
        else:
            lower = max(lower, y_gradient)
    rho = free_sum / n_free if n_free > 0 else 0.5 * (upper + lower)
    return -rho


@njit(cache=True)
def dual_objective(alpha, gradient):
    """1/2 a'Qa - 1'a = 1/2 sum_i a_i (G_i - 1) (LIBSVM's "calculate objective value")."""
    total = 0.0
    for i in range(alpha.shape[0]):
        total += alpha[i] * (gradient[i] - 1.0)
    return 0.5 * total


@njit(cache=True, inline="always")
def objective_change(gradient_i, gradient_j, step_i, step_j, q_ii, q_jj, q_ij):
    """f(a + d) - f(a) = d'G + 1/2 d'Qd for a step d on the pair (i, j), f = 1/2 a'Qa - 1'a."""
    return (step_i * gradient_i + step_j * gradient_j
            + 0.5 * (step_i * step_i * q_ii + 2.0 * step_i * step_j * q_ij + step_j * step_j * q_jj))


@njit(cache=True)
def outcome(alpha, gradient, y, C, iterations, converged):
    """What an SMO loop returns: (alpha, bias, iterations, converged, objective, violation),
    from the gradient ``G`` of every sample; violation is the KKT violation at (alpha, bias)."""
    bias = bias_from_gradient(alpha, gradient, y, C, y.shape[0])
    return (alpha, bias, iterations, converged, dual_objective(alpha, gradient),
            kkt_violation(alpha, gradient, y, C, bias))


@njit(cache=True)
def max_violation(alpha, gradient, y, C, length):
    """b_low - b_up = max over I_low of F - min over I_up of F (Keerthi et al. 2001, eq. 12;
    LIBSVM's Gmax + Gmax2); -inf when one of the sets is empty."""
    b_up, b_low = np.inf, -np.inf
    for i in range(length):
        f = y[i] * gradient[i]
        if in_up_set(y[i], alpha[i], C):
            b_up = min(b_up, f)
        if in_low_set(y[i], alpha[i], C):
            b_low = max(b_low, f)
    return b_low - b_up
