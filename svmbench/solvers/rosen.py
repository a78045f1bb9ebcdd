"""Rosen's gradient projection for the C-SVM dual with bias (rosen-projection-svm §3, López and
Dorronsoro 2009).

min f(a) = 1/2 a'Qa - 1'a over 0 <= a_i <= C, y'a = 0, Q_ij = y_i y_j k(x_i, x_j) from the
Q-matrix provider (kind "csvc"). The gradient G = Qa - 1 is kept for every sample and updated
after each step with the rows of the samples that moved, so a step requests exactly the Q rows of
its direction's support, through the provider's LRU cache. With F_i = y_i G_i (Keerthi et al.'s
F, b dropped), one iteration is:

1. Projection on the free set J = {0 < a_i < C}, N = |J|: d_i = -(G_i - y_i/N sum_J y_k G_k),
   i.e. d_i = -y_i (F_i - mean_J F) on J, 0 elsewhere (§3, P_ij = delta_ij - y_i y_j / N).
2. d is taken as 0 when the most negative multiplier of eq. (4), u_p, violates the KKT
   conditions more than the face does (-u_p > max_J F - min_J F, the face's spread counted as 0
   once it is <= 2 tol): the paper's test is d = 0, which a descent on the face reaches only in
   the limit, and waiting for the spread to fall below 2 tol zig-zags for long on ill-conditioned
   faces (IDA image realization 1 at 1e-3: 1.6 million steps, against 162 thousand). The
   released sample p joins J: d-hat over J + {p} with 1 / (1 + N), eq. (5). With J empty the
   equality multiplier is free (eq. (4) has no N); then the maximal violating pair is released
   together, which is eq. (5)'s projection over those two samples (the paper does not say how it
   starts).
3. Exact line search lambda0 = -(w'z - s) / ||z||^2 = -G'd / d'Qd (§3), clipped to the box by
   lambda_max over the support of d (the released sample included: its bound is the paper's
   extra term C / d_p or -C / d_p).

The loop stops on the absolute KKT violation of smo_mod2, b_low - b_up <= 2 tol (Keerthi et al.
2001, eq. 12), checked on the full gradient before every step, or after ``max_iter`` steps.
"""

import numpy as np
from numba import njit

from svmbench.capabilities import Capabilities
from svmbench.kernels.borrowed import borrowed
from svmbench.kernels.compile_cache import jit_callee
from svmbench.kernels.cycles import cycle_count
from svmbench.kernels.math import bits_float, float_bits, popcount
from svmbench.kernels.provider import held_kernel_rows, kernel_row
from svmbench.kernels.qmatrix import check_labels_folded
from svmbench.solvers.base import MAX_ITER, OPTIMAL, STALLED, finish, register_solver
from svmbench.solvers.checkpoints import Checkpoints, close, due, note
from svmbench.solvers.smo_step import (
    check_two_classes,
    dual_objective,
    in_low_set,
    in_up_set,
    is_free,
    outcome,
    smo_settings,
)
from svmbench.specs import HARNESS_GAMMA, SolverPlugin

GROUP = 8  # cached Q rows added to Q d in one pass over it
SCAN_CHUNK = 512  # samples step_and_scan takes at a time (their F: 4 KB, in L1)
MAGNITUDE = np.int64(0x7FFF_FFFF_FFFF_FFFF)  # a float64's bits but its sign
INF_KEY = np.int64(0x7FF0_0000_0000_0000)  # +inf's bits and key; -inf's key is -INF_KEY - 1


@njit(cache=True, inline="always")
def lesser(a, b):
    """a if a < b, else b: a pick, where numba's min also tests for NaN (the pass over the
    samples one at a time, before step_chunk: 2.6 ns a sample with min and max, 2.1 with
    these); step_and_scan takes a chunk's extremes into its own with them."""
    return a if a < b else b  # noqa: FURB136 (see the docstring)


@njit(cache=True, inline="always")
def greater(a, b):
    """a if a > b, else b (see lesser)."""
    return a if a > b else b  # noqa: FURB136 (see lesser)


@njit(cache=True, inline="always")
def ordered(bits):
    """The bits of a float64 (float_bits) as an int64 in the order of the floats (-0.0 one
    below 0.0; NaNs beyond the infinities), its own inverse: an extreme taken as an integer min
    or max, which LLVM vectorizes, where a float's needs fast-math flags that numba puts on the
    comparison but not on the select."""
    return bits ^ ((bits >> 63) & MAGNITUDE)


@njit(cache=True, inline="always")
def extreme(key):
    """The float64 of an ``ordered`` key."""
    return bits_float(ordered(key))


@jit_callee
def step_chunk(y, alpha, gradient, lam, qd, C, f):
    """G += lam Q d and F = y G over a chunk (F into f), qd zeroed for the next Q d; returns the
    chunk's min F over I_up, max over I_low, min over the bound samples of I_up, max over those
    of I_low, min and max over the free samples (an empty set's +-inf; a NaN F in no set, as a
    comparison skips it). Every test a mask, every extreme an integer min or max of ``ordered``
    keys: LLVM vectorizes the loop."""
    up_min, low_max, up_bound, low_bound = INF_KEY, -INF_KEY - 1, INF_KEY, -INF_KEY - 1
    free_min, free_max = INF_KEY, -INF_KEY - 1
    for k in range(alpha.shape[0]):
        g = gradient[k] + lam * qd[k]
        gradient[k] = g
        qd[k] = 0.0
        value = y[k] * g
        f[k] = value
        bits = float_bits(value)
        key, number = ordered(bits), (bits & MAGNITUDE) <= INF_KEY
        free = is_free(alpha[k], C)
        bound = (free ^ True) & number
        free &= number
        up, low_set = in_up_set(y[k], alpha[k], C) & number, in_low_set(y[k], alpha[k], C) & number
        up_min = min(up_min, key if up else INF_KEY)
        low_max = max(low_max, key if low_set else -INF_KEY - 1)
        up_bound = min(up_bound, key if up & bound else INF_KEY)
        low_bound = max(low_bound, key if low_set & bound else -INF_KEY - 1)
        free_min = min(free_min, key if free else INF_KEY)
        free_max = max(free_max, key if free else -INF_KEY - 1)
    return (extreme(up_min), extreme(low_max), extreme(up_bound), extreme(low_bound),
            extreme(free_min), extreme(free_max))


@jit_callee
def first_at(f, value, y, alpha, C, low):
    """The first k of I_low (``low``, else I_up) with f[k] == value (-1: none)."""
    for k in range(alpha.shape[0]):
        member = in_low_set(y[k], alpha[k], C) if low else in_up_set(y[k], alpha[k], C)
        if member and f[k] == value:
            return k
    return -1


@njit(cache=True, inline="always")
def free_word(alpha, C, start, size):
    """Bit b set when alpha[start + b] is free, b < size <= 64."""
    word = np.uint64(0)
    for b in range(size):
        word |= np.uint64(is_free(alpha[start + b], C)) << np.uint64(b)
    return word


@jit_callee
def gather_free(alpha, C, f, offset, support, count, total):
    """Append a chunk's free positions (offset + k) to ``support`` from ``count`` on, in order,
    and add their F to ``total`` in that order: a word of 64 free-flags at a time, a free sample
    found by its bit (one step each, not one a sample). Returns (count, total)."""
    size = alpha.shape[0]
    for start in range(0, size, 64):
        word = free_word(alpha, C, start, min(64, size - start))
        while word != np.uint64(0):
            lowest = word & (~word + np.uint64(1))
            k = start + np.int64(popcount(lowest - np.uint64(1)))
            word ^= lowest
            support[count] = offset + k
            total += f[k]
            count += 1
    return count, total


@njit(cache=True)
def step_and_scan(y, alpha, gradient, lam, qd, C, support, f):
    """G += lam Q d (lam = 0 on a zero qd: the scan alone), qd zeroed for the next Q d, and in
    the same pass over the samples what the stop test and the next direction read: J = {0 < a_i
    < C} into ``support`` in position order. Returns (N = |J|, the mean over J of F = y G,
    max_J F - min_J F, b_low - b_up, argmin F over I_up, argmax F over I_low, min F over the
    bound samples of I_up, max F over those of I_low) (Keerthi et al. 2001, eq. 12: the gap -inf
    and an index -1 when a set is empty; the first position of a tie; the last two +-inf when
    there are none), the mean and spread 0 when J is empty; ``least_multiplier`` turns the last
    two into eq. (4)'s least multiplier. ``f``: SCAN_CHUNK entries of work space.

    The pass goes SCAN_CHUNK samples at a time: step_chunk steps their G, writes their F to f
    and takes the six extremes at once as integer keys (vectorized), first_at finds an
    arg-extreme's first position only in a chunk that improves it, and gather_free lists J and
    sums F over it in position order, as one sample at a time would (the same values and
    bits, but for the sign of a zero extreme, which no test sees). A sample at a time, whether
    it is in each set followed no pattern a branch predictor learns: 7.4-8.3 ns a sample on an
    Intel Xeon, 2.2 in chunks (random sets of 22,696 and 49,749 samples, a quarter free); 1.6
    on the AMD EPYC of the last bench (random sets of 1,500 and 22,696)."""
    n = alpha.shape[0]
    total, count = 0.0, 0
    b_up, b_low, i_up, i_low = np.inf, -np.inf, -1, -1
    up_bound, low_bound, low, high = np.inf, -np.inf, np.inf, -np.inf
    for start in range(0, n, SCAN_CHUNK):
        stop = min(start + SCAN_CHUNK, n)
        y_part, alpha_part = y[start:stop], alpha[start:stop]
        up_min, low_max, up_least, low_most, free_min, free_max = step_chunk(
            y_part, alpha_part, gradient[start:stop], lam, qd[start:stop], C, f)
        if up_min < b_up:
            k = first_at(f, up_min, y_part, alpha_part, C, False)
            b_up, i_up = f[k], start + k
        if low_max > b_low:
            k = first_at(f, low_max, y_part, alpha_part, C, True)
            b_low, i_low = f[k], start + k
        up_bound, low_bound = lesser(up_least, up_bound), greater(low_most, low_bound)
        low, high = lesser(free_min, low), greater(free_max, high)
        count, total = gather_free(alpha_part, C, f, start, support, count, total)
    if count == 0:
        return 0, 0.0, 0.0, b_low - b_up, i_up, i_low, up_bound, low_bound
    return (count, total / count, high - low, b_low - b_up, i_up, i_low, up_bound,
            low_bound)


@njit(cache=True, inline="always")
def multiplier(y_i, alpha_i, gradient_i, C, mean):
    """Eq. (4): u_i = G_i - y_i/N sum_J y_k G_k on J0 (a_i = 0), -G_i + y_i/N sum_J y_k G_k on
    JC (a_i = C), 0 on J; ``mean`` = 1/N sum_J y_k G_k (step_and_scan's, N >= 1)."""
    if is_free(alpha_i, C):
        return 0.0
    if alpha_i <= 0.0:
        return gradient_i - y_i * mean
    return -gradient_i + y_i * mean


@jit_callee
def least_multiplier(mean, up_bound, low_bound):
    """min over the bound samples of eq. (4)'s multipliers, from step_and_scan's least F over
    those of I_up and greatest over those of I_low, each sample's u being F - mean (a_i = 0,
    y_i = 1 or a_i = C, y_i = -1) or mean - F (the others), to the bit as ``multiplier``
    computes it (F = y G, so G - y mean and -G + y mean are these, with the same rounding) and
    rounding is monotone: the least u is that of the least F (greatest F); +inf when no sample
    is bound. Only a step that releases a sample then reads the samples, up to the first of that
    u (first_multiplier_at): 19 % of the iterations on a8a at C 0.5, gamma 0.0125, 89 % on
    pendigits' first five class pairs at C 2, gamma 2, where every iteration read them all."""
    return min(up_bound - mean, mean - low_bound)


@jit_callee
def first_multiplier_at(y, alpha, gradient, C, mean, u):
    """The first sample whose multiplier of eq. (4) is u (least_multiplier's, negative: a bound
    sample), the one the paper's most negative multiplier u_p names when several tie."""
    for i in range(alpha.shape[0]):
        if multiplier(y[i], alpha[i], gradient[i], C, mean) == u:
            return i
    return -1


@jit_callee
def project(y, gradient, support, count, d):
    """d_i = -(G_i - y_i / count sum_{k in support} y_k G_k) on the support, the projection of
    -G (§3, and eq. (5) when the support holds the released sample); d is 0 elsewhere."""
    mean = 0.0
    for t in range(count):
        mean += y[support[t]] * gradient[support[t]]
    mean /= count
    for t in range(count):
        i = support[t]
        d[i] = -(gradient[i] - y[i] * mean)


@njit(cache=True)
def direction(y, alpha, gradient, C, tol, support, d, scanned):
    """Fill d (zero on entry) with this iteration's feasible descent direction and ``support``
    (J from ``scanned``, step_and_scan's answer at this point) with its nonzero positions;
    return their count (0: no sample to release)."""
    count, mean, spread, _, i_up, i_low, up_bound, low_bound = scanned
    if count == 0:  # the equality multiplier is free: release the maximal violating pair
        if i_up < 0 or i_low < 0 or i_up == i_low:
            return 0
        support[0], support[1] = i_up, i_low
        count = 2
    else:
        u = least_multiplier(mean, up_bound, low_bound)
        face_violation = spread if spread > 2.0 * tol else 0.0
        if -u > face_violation:  # d is taken as 0: release u's sample (eq. (5))
            support[count] = first_multiplier_at(y, alpha, gradient, C, mean, u)
            count += 1
        elif face_violation == 0.0:
            return 0
    project(y, gradient, support, count, d)
    return count


@jit_callee
def add_row(out, row, weight):
    """out += weight row (over out's length)."""
    for k in range(out.shape[0]):
        out[k] += weight * row[k]


@jit_callee
def add_group(out, pool, offsets, weights, g):
    """out += the GROUP rows pool[offsets[t]:] times weights[t], t = g .. g + 7, added to each
    entry in t order, as add_row one row after the other would (to the bit), in one pass over
    out: eight rows' reads per read and write of out (out is float64, rows float32)."""
    n = out.shape[0]
    o0, o1, o2, o3 = offsets[g], offsets[g + 1], offsets[g + 2], offsets[g + 3]
    o4, o5, o6, o7 = offsets[g + 4], offsets[g + 5], offsets[g + 6], offsets[g + 7]
    w0, w1, w2, w3 = weights[g], weights[g + 1], weights[g + 2], weights[g + 3]
    w4, w5, w6, w7 = weights[g + 4], weights[g + 5], weights[g + 6], weights[g + 7]
    r0, r1, r2, r3 = pool[o0:o0 + n], pool[o1:o1 + n], pool[o2:o2 + n], pool[o3:o3 + n]
    r4, r5, r6, r7 = pool[o4:o4 + n], pool[o5:o5 + n], pool[o6:o6 + n], pool[o7:o7 + n]
    for k in range(n):
        first = ((out[k] + w0 * r0[k]) + w1 * r1[k]) + w2 * r2[k]
        out[k] = ((((first + w3 * r3[k]) + w4 * r4[k]) + w5 * r5[k]) + w6 * r6[k]) + w7 * r7[k]


@njit(cache=True)  # not a jit_callee: the bench times it from Python (read_time_per_entry)
def add_rows(out, pool, offsets, weights, count):
    """out += sum over t < count of weights[t] pool[offsets[t]:offsets[t] + n], each entry's
    terms added in t order (the bits of one row at a time), GROUP rows per pass."""
    grouped = count - count % GROUP
    for g in range(0, grouped, GROUP):
        add_group(out, pool, offsets, weights, g)
    for t in range(grouped, count):
        add_row(out, pool[offsets[t]:], weights[t])


@njit(cache=True)
def q_times_direction(provider, support, count, d, out, offsets, weights):
    """out += Q d (out is zero on entry: step_and_scan leaves it so) from the Q rows of the
    support, requested in support order, one request per row, as one row at a time would ask
    (same counts, same LRU order). The rows the cache holds are looked up in one pass up to the
    first it does not (held_kernel_rows), only noted (their offsets in the pool), and added
    GROUP at a time (add_rows); before a row the cache must compute, the held rows are added
    first (the computation may evict or move them), then the computed row alone. Returns the
    cycles spent adding rows (svmbench.kernels.cycles): the reading of the requested entries,
    timed where it runs, the cache's lookups and the rows' computation left out."""
    n = out.shape[0]
    cache, settings, counters = provider.cache, provider.settings, provider.counters
    held, adding, t = 0, 0, 0
    while True:
        hits = held_kernel_rows(cache, settings, counters, support, t, count, n, offsets, held)
        for k in range(t, hits):
            weights[held + k - t] = d[support[k]]
        held += hits - t
        if hits == count:
            break
        j = support[hits]
        start = cycle_count()
        add_rows(out, cache.pool, offsets, weights, held)
        adding += cycle_count() - start
        held = 0
        row = kernel_row(provider, j, n)
        start = cycle_count()
        add_row(out, row, d[j])
        adding += cycle_count() - start
        t = hits + 1
    start = cycle_count()
    add_rows(out, cache.pool, offsets, weights, held)
    return adding + cycle_count() - start


@jit_callee(error_model="numpy")
def room(alpha_i, d_i, C):
    """The largest lambda with 0 <= alpha_i + lambda d_i <= C (inf when d_i = 0): the room to C
    or to 0 by d_i's sign, selected with no branch on it (the signs over a support are as good
    as random, and a branch on them was mispredicted; a quotient by 0 is only not chosen)."""
    quotient = ((C - alpha_i) if d_i > 0.0 else -alpha_i) / d_i
    return quotient if d_i != 0.0 else np.inf


@jit_callee
def step_length(alpha, gradient, C, support, count, d, qd):
    """(lambda, blocked): the exact minimiser lambda0 = -G'd / d'Qd (§3), clipped to
    lambda_max = the least room over the support (the released sample's included)."""
    slope, curvature, lam_max = 0.0, 0.0, np.inf
    for t in range(count):
        i = support[t]
        slope += gradient[i] * d[i]
        curvature += d[i] * qd[i]
        lam_max = min(lam_max, room(alpha[i], d[i], C))
    lam = -slope / curvature if curvature > 0.0 else np.inf
    if lam_max <= lam:
        return lam_max, True
    return lam, False


@njit(cache=True)
def move(alpha, gradient, C, support, count, d, qd):
    """The clipped exact line search along d and the update of alpha, d zeroed on the support
    for the next direction; returns lambda (not finite: nothing moved, d kept). G is updated
    after, from qd, by step_and_scan."""
    lam, blocked = step_length(alpha, gradient, C, support, count, d, qd)
    if not np.isfinite(lam):
        return lam
    for t in range(count):
        i = support[t]
        if blocked and room(alpha[i], d[i], C) <= lam:  # the blocking sample (and any tie)
            alpha[i] = C if d[i] > 0.0 else 0.0
        else:
            alpha[i] = min(C, max(0.0, alpha[i] + lam * d[i]))
        d[i] = 0.0
    return lam


@njit(cache=True)
def rosen_loop(given, y, C, tol, max_iter, curve):
    """Steps until b_low - b_up <= 2 tol; checkpoints of the objective and b_low - b_up into
    ``curve``. An iteration: direction, Q d (the one call that takes the provider), move, then
    step_and_scan, whose one pass updates G and finds the stop test's gap and the next J.
    Returns ``outcome``'s values and the cycles Q d spent adding rows."""
    provider = borrowed(given)  # the caller holds its arrays (see kernels.borrowed)
    n = y.shape[0]
    alpha = np.zeros(n)
    gradient = -np.ones(n)  # G = Qa - 1 at a = 0
    support = np.empty(n, dtype=np.int64)
    d, qd = np.zeros(n), np.zeros(n)
    offsets, weights = np.empty(n, dtype=np.int64), np.empty(n)  # q_times_direction's rows
    f = np.empty(SCAN_CHUNK)  # step_and_scan's F of a chunk
    iterations, adding = 0, 0
    scanned = step_and_scan(y, alpha, gradient, 0.0, qd, C, support, f)
    gap = scanned[3]
    converged = gap <= 2.0 * tol
    while not converged and iterations < max_iter:
        if due(curve, iterations):
            note(curve, iterations, provider.counters, dual_objective(alpha, gradient), gap)
        count = direction(y, alpha, gradient, C, tol, support, d, scanned)
        if count == 0:
            break
        adding += q_times_direction(provider, support, count, d, qd, offsets, weights)
        lam = move(alpha, gradient, C, support, count, d, qd)
        if not np.isfinite(lam):
            break
        scanned = step_and_scan(y, alpha, gradient, lam, qd, C, support, f)
        iterations += 1
        gap = scanned[3]  # b_low - b_up
        converged = gap <= 2.0 * tol
    alpha, bias, iterations, converged, objective, violation = outcome(alpha, gradient, y, C,
                                                                      iterations, converged)
    close(curve, iterations, provider.counters, objective, gap)
    return alpha, bias, iterations, converged, objective, violation, adding


@register_solver("rosen")
def solve(provider, y, params):
    """Params: ``C``, ``tol`` (stop at b_low <= b_up + 2 tol, default 1e-3), ``max_iter`` (-1:
    no limit)."""
    check_two_classes(y)
    labels = np.ascontiguousarray(y, dtype=np.float64)
    check_labels_folded(provider, labels)
    C, tol, max_iter = smo_settings(params)
    checkpoints = Checkpoints()
    alpha, bias, iterations, converged, objective, violation, adding = rosen_loop(
        provider, labels, C, tol, max_iter, checkpoints.array
    )
    # stopped at b_low <= b_up + 2 tol, which bounds every sample's violation at the bias by 2 tol
    reason = OPTIMAL if converged else MAX_ITER if iterations >= max_iter else STALLED
    return finish(provider, alpha, bias, iterations, reason, objective, violation, 2.0 * tol,
                  checkpoints, row_adding_cycles=int(adding))


def tolerance(settings):
    """The violation its stop bounds: b_low <= b_up + 2 tol bounds every sample's by 2 tol."""
    return 2.0 * float(settings["tol"])


SPECS = (SolverPlugin(
    solve=solve, name="rosen", model="RosenSVC", tolerance=tolerance, summary=(
        "Rosen's gradient projection (rosen-projection-svm §3); C-SVM with bias. Same keys as "
        "smo_mod2, so one sweep holds both (shrinking aside: Rosen's working set is the free set "
        "by construction)."), doc=(
        "C-SVM with bias trained by Rosen's gradient projection (rosen-projection-svm §3), "
        "solver ``rosen``, over the C-SVC Q-matrix. Parameters as ``SMOSVC(variant=\"mod2\")``: "
        "``C``, ``kernel``, ``gamma``, ``coef0``, ``degree``, ``tol`` (stop at b_low <= b_up + "
        "2 tol), ``cache_mb`` (LRU Q-row cache), ``max_iter`` (-1: no limit)."),
    params={"C": 1.0, "kernel": "rbf", "gamma": "scale", "coef0": 0.0, "degree": 3, "tol": 1e-3,
            "cache_mb": 100, "max_iter": -1},
    harness={"gamma": HARNESS_GAMMA},
    capabilities=Capabilities(max_train=16100, size_reason=(
        "cost cap, measured: a7a (16,100 samples, C 2, gamma 0.05) 50 s CPU; w7a (24,692, C 4, "
        "gamma 0.05) not done after 11 min CPU (its rule requests |J| + 1 rows of n entries an "
        "iteration)"))),)
