"""HM-SVM: the hard-margin dual without bias, min 1/2 a'Qa - 1'a s.t. a >= 0 (gs-svm-tnn2008, eq. 2).

Method: a primal active-set method, i.e. Lawson & Hanson's NNLS (1974, ch. 23, Algorithm NNLS)
written for the QP (Nocedal & Wright 2006, Algorithm 16.3, with bounds as the only constraints):

- the passive set S holds the coordinates free to move; Q_SS = L L' is kept as a Cholesky factor,
  grown by a bordered solve when coordinates enter S and repaired by Givens rotations when they
  leave it (Golub & Van Loan 2013, §6.5.4);
- a Newton step solves Q_SS d = -g_S on the face {a_i = 0, i not in S}; when it would make a
  coordinate negative, the step stops at the first one that reaches 0 (ratio test, LH step 8-10)
  and that coordinate leaves S;
- at a face optimum the most violating coordinates (most negative g_j) enter S. LH add one at a
  time; here a block of up to ``block`` coordinates enters at once (factored 64 at a time), the
  block doubling after a round where every entrant moved up and halving, down to LH's single
  entrant, when entrants had to be dropped again. When every sample is a support vector (large
  gamma) this takes ~2 log2(n) iterations instead of n;
- a coordinate whose column is numerically dependent on S (Schur pivot <= 1e-12 Q_jj) is not
  factored: the solver moves along the null direction v (v_j = 1, v_S = -Q_SS^-1 Q_Sj), on which
  the objective falls linearly, until a coordinate of S reaches 0 (Nocedal & Wright §16.5); with
  nothing blocking the dual is unbounded (no hard-margin separator) and the solver stops.

Precision: kernel rows are requested from the provider in double precision
(``kernel_row_once``, counted as requested and computed) and kept by the solver for the
coordinates of S, so a row is requested once each time its coordinate enters S; the provider's
float32 LRU cache is not used (``cache_mb`` does not matter; the rows and the factor take
8 (n + |S|) |S| bytes, up to twice that as the storage grows by doubling).
Entries below 1e-150 in magnitude are stored as 0 (see TINY). Rounded to float32, Q is indefinite
at small gamma (heart, gamma = 2^-8: smallest eigenvalue -1.7e-7 instead of +2.3e-9), and the
hard-margin alphas there reach ~1e6, so float32 rows cannot give a KKT violation of 1e-6.

Stopping: the KKT violation of sample i is |g_i| if a_i > 0 and max(-g_i, 0) if a_i = 0
(g = Qa - 1, :func:`svmbench.solvers.kkt.kkt_violation` with no bias and C = inf), and the solver
stops when the largest violation is <= ``tol`` (absolute, default 1e-6): status "converged" (see
:mod:`svmbench.solvers.base`), and only then. g is evaluated in floating point with an error of
about eps * sum_j |Q_ij| a_j, so when the alphas exceed ~1e8 (tiny gamma, overlapping classes) no
point can be shown to satisfy 1e-6: the loop then works to the rounding floor 1e-14 ||a||_1
max_i Q_ii instead (its best point) and stops there with status "stalled" (``trace["stop"]`` =
"rounding"), as it does when rounding stalls the Newton refinement. "infeasible": the dual is
unbounded, i.e. no hard-margin separator exists (e.g. one point with both labels); "max_iter":
``max_iter`` iterations (Newton steps + entering rounds; -1: no limit) did not reach ``tol``.
"""

import numpy as np
from numba import njit

from svmbench.capabilities import Capabilities
from svmbench.kernels.borrowed import borrowed
from svmbench.kernels.compile_cache import jit_callee
from svmbench.kernels.fixed_order import ordered_dot
from svmbench.kernels.provider import kernel_row_once
from svmbench.kernels.qmatrix import check_labels_folded
from svmbench.solvers.base import (
    INFEASIBLE,
    MAX_ITER,
    OPTIMAL,
    STALLED,
    finish,
    register_solver,
    resolve_max_iter,
)
from svmbench.solvers.checkpoints import Checkpoints, close, due, note
from svmbench.solvers.kkt import kkt_violation
from svmbench.solvers.smo_step import dual_objective
from svmbench.specs import HARNESS_GAMMA, SolverPlugin

# a Schur pivot <= PIVOT_RTOL * Q_jj: column j is numerically dependent on the columns of S
PIVOT_RTOL = 1e-12
# violations <= VIOLATION_RTOL * ||a||_1 * max_i Q_ii are rounding noise (about 45 eps)
VIOLATION_RTOL = 1e-14
# null-direction components |v_k| <= RAY_RTOL max(1, |v|_inf) are rounding noise, not blockers
RAY_RTOL = 1e-10
# Newton steps in a row on an unchanged face before the refinement counts as stalled
MAX_REFINE = 4
# |x| < TINY is stored as 0: products of such values would be subnormal, and subnormal
# arithmetic is ~100x slower (RBF rows at large gamma hold values like exp(-160))
TINY = 1e-150
# entrants are factored CHUNK at a time (a blocked bordered Cholesky)
CHUNK = 64
# sizes[...] indices: coordinates in S, free row slots
M, N_FREE = 0, 1
# rows of the work array buf; COS and SIN hold the Givens rotations of a deletion
STEP, WORK, AUX, COS, SIN = 0, 1, 2, 3, 4
# how an entering round ended
ENTERED, RAY_STEP, UNBOUNDED, NONE_ENTERED = 0, 1, 2, 3
# loop outcomes
STOP_TOLERANCE, STOP_MAX_ITER, STOP_STALLED, STOP_UNBOUNDED, STOP_ROUNDING = 0, 1, 2, 3, 4
STOP_NAMES = ("tolerance", "max_iter", "stalled", "unbounded", "rounding")
STOP_REASONS = (OPTIMAL, MAX_ITER, STALLED, INFEASIBLE, STALLED)  # as base.finish takes them


@njit(cache=True)
def flush(x):
    return x if abs(x) >= TINY else 0.0


@jit_callee
def fetch_row(provider, position, out):
    """out[k] = Q_pk = y_p y_k k(x_p, x_k) in double precision, counted by the provider."""
    kernel_row_once(provider, position, out.shape[0], out)
    for k in range(out.shape[0]):
        out[k] = flush(out[k])


@jit_callee
def forward_solve(L, m, b, out):
    """out[:m] = L^-1 b for the lower-triangular L[:m, :m]."""
    for i in range(m):
        out[i] = flush((b[i] - ordered_dot(L[i], out, i)) / L[i, i])


@jit_callee
def backward_solve(L, m, b, out):
    """out[:m] = L^-T b (column-oriented, so it walks the rows of L)."""
    out[:m] = b[:m]
    for i in range(m - 1, -1, -1):
        out[i] = flush(out[i] / L[i, i])
        x, row = out[i], L[i]
        for k in range(i):
            out[k] -= row[k] * x


@jit_callee
def forward_solve_block(L, m, T, c, acc, acc_next):
    """T[:m, :c] = L^-1 T[:m, :c], one pass over L for c right-hand sides (rows of T), two rows
    of the solution at a time: row i + 1 subtracts its terms k < i together with row i's, so
    that each row T[k] read serves both and their two chains of subtractions overlap, then its
    term k = i; each entry subtracts its terms in the order k = 0, 1, ... as a row at a time
    would (the same bits). ``acc``, ``acc_next``: work space of at least c."""
    for i in range(0, m - 1, 2):
        row, row_next = L[i], L[i + 1]
        acc[:c] = T[i, :c]
        acc_next[:c] = T[i + 1, :c]
        for k in range(i):
            lik, lnk, tk = row[k], row_next[k], T[k]
            for r in range(c):
                acc[r] -= lik * tk[r]
                acc_next[r] -= lnk * tk[r]
        solved, lni = T[i], row_next[i]
        for r in range(c):
            solved[r] = flush(acc[r] / row[i])
            acc_next[r] -= lni * solved[r]
        for r in range(c):
            T[i + 1, r] = flush(acc_next[r] / row_next[i + 1])
    if m % 2:
        i, row = m - 1, L[m - 1]
        acc[:c] = T[i, :c]
        for k in range(i):
            lik, tk = row[k], T[k]
            for r in range(c):
                acc[r] -= lik * tk[r]
        for r in range(c):
            T[i, r] = flush(acc[r] / row[i])


@jit_callee
def delete_from_factor(L, m, k, rotations):
    """Cholesky factor of Q_SS without row/column k: drop row k, then Givens rotations on
    columns (c, c+1) restore the lower-triangular shape (Golub & Van Loan §6.5.4). Applied row
    by row (row r takes rotations k..r-1, then defines rotation r) to walk L in memory order,
    two rows at a time so that their chains of rotations overlap (each row's operations those
    of one row at a time: the same bits)."""
    cos, sin = rotations[0], rotations[1]
    for r in range(k, m - 2, 2):  # rows r and r + 1 take rotations k..r-1 together
        row, row_next = L[r], L[r + 1]
        row[: r + 2] = L[r + 1, : r + 2]
        row_next[: r + 3] = L[r + 2, : r + 3]
        for c in range(k, r):
            rotate(row, c, cos[c], sin[c])
            rotate(row_next, c, cos[c], sin[c])
        define_rotation(row, r, cos, sin)
        rotate(row_next, r, cos[r], sin[r])
        define_rotation(row_next, r + 1, cos, sin)
    if (m - 1 - k) % 2:
        r, row = m - 2, L[m - 2]
        row[: r + 2] = L[r + 1, : r + 2]
        for c in range(k, r):
            rotate(row, c, cos[c], sin[c])
        define_rotation(row, r, cos, sin)
    L[m - 1, :m] = 0.0


@jit_callee
def rotate(row, c, cos_c, sin_c):
    """Givens rotation c on columns (c, c + 1) of a row of the factor."""
    left, right = row[c], row[c + 1]
    row[c] = flush(cos_c * left + sin_c * right)
    row[c + 1] = flush(cos_c * right - sin_c * left)


@jit_callee
def define_rotation(row, r, cos, sin):
    """Rotation r zeroes row[r + 1] into row[r] (the row's new diagonal)."""
    radius = np.hypot(row[r], row[r + 1])
    if radius > 0.0:
        cos[r], sin[r] = row[r] / radius, row[r + 1] / radius
    else:
        cos[r], sin[r] = 1.0, 0.0
    row[r], row[r + 1] = radius, 0.0


@jit_callee
def leave_face(L, order, slot, in_face, free, sizes, rotations, k):
    """Factor index k leaves S; its row slot is freed."""
    m = sizes[M]
    delete_from_factor(L, m, k, rotations)
    in_face[order[k]] = False
    free[sizes[N_FREE]] = slot[k]
    sizes[N_FREE] += 1
    order[k : m - 1] = order[k + 1 : m]
    slot[k : m - 1] = slot[k + 1 : m]
    sizes[M] = m - 1


@jit_callee
def leave_zeros(L, order, slot, in_face, free, sizes, rotations, alpha):
    """Coordinates of S that reached 0 (or crossed it by rounding) leave S (LH step 11)."""
    for k in range(sizes[M] - 1, -1, -1):
        if alpha[order[k]] <= 0.0:
            alpha[order[k]] = 0.0
            leave_face(L, order, slot, in_face, free, sizes, rotations, k)


@jit_callee
def join_face(L, order, slot, in_face, sizes, p, s, l, pivot):
    """p (its row in slot s) enters S: factor row (l, sqrt(pivot))."""
    m = sizes[M]
    L[m, :m] = l[:m]
    L[m, m] = np.sqrt(pivot)
    order[m], slot[m] = p, s
    in_face[p] = True
    sizes[M] = m + 1


@njit(cache=True)
def gradient(rows, slot, order, m, alpha, grad):
    """grad = Q a - 1 from the stored rows of S (a_i = 0 outside S)."""
    grad[:] = -1.0
    for k in range(m):
        a = alpha[order[k]]
        if a != 0.0:
            row = rows[slot[k]]
            for i in range(grad.shape[0]):
                grad[i] += a * row[i]


@jit_callee
def face_violation(grad, order, m):
    """Largest |g_i| over S: how far the face optimum is."""
    worst = 0.0
    for k in range(m):
        worst = max(worst, abs(grad[order[k]]))
    return worst


@jit_callee
def grow(rows, L, free, sizes, needed):
    """Enlarge the storage for rows of S and the factor to at least ``needed`` rows (<= n)."""
    cap, n = rows.shape[0], rows.shape[1]
    new_cap = cap
    while new_cap < needed:
        new_cap = min(n, 2 * new_cap)
    new_rows = np.empty((new_cap, n))
    new_rows[:cap] = rows
    new_L = np.zeros((new_cap, new_cap))
    new_L[:cap, :cap] = L
    for s in range(new_cap - 1, cap - 1, -1):
        free[sizes[N_FREE]] = s
        sizes[N_FREE] += 1
    return new_rows, new_L


@jit_callee
def ray_step(L, rows, order, slot, in_face, free, sizes, alpha, grad, diag, p, s, pivot, buf):
    """p's column is numerically dependent on S: move along v (v_p = 1, v_S = -L^-T l), where the
    objective falls linearly, until a coordinate of S reaches 0 (Nocedal & Wright §16.5); then p
    enters S. l = L^-1 Q_Sp comes in buf[WORK]. Returns RAY_STEP, UNBOUNDED (nothing in the way)
    or NONE_ENTERED (v not downhill)."""
    m, step, work, rotations = sizes[M], buf[STEP], buf[AUX], buf[COS:]
    backward_solve(L, m, buf[WORK], step)
    slope, largest = grad[p], 1.0
    for k in range(m):
        step[k] = -step[k]
        slope += grad[order[k]] * step[k]
        largest = max(largest, abs(step[k]))
    t, blocking = np.inf, -1
    for k in range(m):  # components at rounding level (e.g. v of an exact duplicate) are 0
        if step[k] < -RAY_RTOL * largest and alpha[order[k]] < -t * step[k]:
            t, blocking = alpha[order[k]] / -step[k], k
    if slope >= 0.0:
        return NONE_ENTERED
    if blocking < 0:
        return UNBOUNDED
    for k in range(m):
        alpha[order[k]] += t * step[k]
    alpha[order[blocking]] = 0.0
    alpha[p] = t
    grad[p] += t * pivot  # Q v = pivot e_p on S + p: g_S does not change
    leave_zeros(L, order, slot, in_face, free, sizes, rotations, alpha)
    m = sizes[M]
    row = rows[s]
    for k in range(m):
        work[k] = row[order[k]]
    forward_solve(L, m, work, step)
    # removing the blocking coordinate broke the dependence; the floor only guards rounding
    pivot = max(diag[p] - ordered_dot(step, step, m), PIVOT_RTOL * diag[p])
    join_face(L, order, slot, in_face, sizes, p, s, step, pivot)
    return RAY_STEP


@jit_callee
def enter(provider, diag, alpha, grad, tolerance, block, L, rows, order, slot, in_face,
          excluded, free, sizes, T, S22, L22, chosen, chunk_slots, accepted, buf):
    """LH steps 2-5 for up to ``block`` coordinates: the most violating ones (g_j most negative)
    enter S, CHUNK at a time by a blocked bordered Cholesky (T = L^-1 Q_S,C, Schur complement
    Q_CC - T'T factored with a pivot test per entrant). Returns (outcome, number entered)."""
    work = buf[WORK]
    n_chosen = 0
    for p in np.argsort(grad):
        if grad[p] >= -tolerance or n_chosen >= block:
            break
        if not in_face[p] and not excluded[p]:
            chosen[n_chosen] = p
            n_chosen += 1
    added = 0
    for c0 in range(0, n_chosen, CHUNK):
        c = min(CHUNK, n_chosen - c0)
        m = sizes[M]
        for r in range(c):
            chunk_slots[r] = free[sizes[N_FREE] - 1]
            sizes[N_FREE] -= 1
            fetch_row(provider, chosen[c0 + r], rows[chunk_slots[r]])
            row = rows[chunk_slots[r]]
            for k in range(m):
                T[k, r] = row[order[k]]
        forward_solve_block(L, m, T, c, work, buf[AUX])
        for r in range(c):
            row = rows[chunk_slots[r]]
            for u in range(c):
                S22[r, u] = row[chosen[c0 + u]]
        for k in range(m):
            tk = T[k]
            for r in range(c):
                a = tk[r]
                if a != 0.0:  # RBF rows at large gamma are mostly (flushed) zeros
                    for u in range(c):
                        S22[r, u] -= a * tk[u]
        n_accepted = 0
        for r in range(c):
            p = chosen[c0 + r]
            for j in range(n_accepted):
                work[j] = flush((S22[r, accepted[j]] - ordered_dot(L22[j], work, j)) / L22[j, j])
            pivot = S22[r, r] - ordered_dot(work, work, n_accepted)
            if pivot > PIVOT_RTOL * diag[p]:
                L22[n_accepted, :n_accepted] = work[:n_accepted]
                L22[n_accepted, n_accepted] = np.sqrt(pivot)
                accepted[n_accepted] = r
                n_accepted += 1
                continue
            if c0 > 0 or r > 0:  # the null-direction step needs a face optimum: next round
                free[sizes[N_FREE]] = chunk_slots[r]
                sizes[N_FREE] += 1
                continue
            for k in range(m):
                work[k] = T[k, 0]
            outcome = ray_step(L, rows, order, slot, in_face, free, sizes, alpha, grad, diag, p,
                               chunk_slots[0], pivot, buf)
            if outcome == NONE_ENTERED:
                excluded[p] = True
                free[sizes[N_FREE]] = chunk_slots[0]
                sizes[N_FREE] += 1
                continue
            if outcome == UNBOUNDED:
                free[sizes[N_FREE]] = chunk_slots[0]
                sizes[N_FREE] += 1
            for u in range(1, c):  # S changed under the rest of the chunk
                free[sizes[N_FREE]] = chunk_slots[u]
                sizes[N_FREE] += 1
            return outcome, added + (outcome == RAY_STEP)
        for j in range(n_accepted):
            r = accepted[j]
            mm = sizes[M]
            for k in range(m):
                L[mm, k] = T[k, r]
            L[mm, m : mm + 1] = L22[j, : j + 1]
            order[mm], slot[mm] = chosen[c0 + r], chunk_slots[r]
            in_face[chosen[c0 + r]] = True
            sizes[M] = mm + 1
        added += n_accepted
    return (ENTERED if added > 0 else NONE_ENTERED), added


@jit_callee
def newton_step(L, order, slot, in_face, excluded, free, sizes, alpha, grad, buf, single_entrant):
    """Newton step on the face S (LH steps 6-11). Entrants (a = 0) that would not move up leave
    S first (returns -1: solve again); else the step stops at the first coordinate that reaches 0
    (ratio test), which leaves S. Returns 1 for a full step (no coordinate blocked), 0 else."""
    m, step, work, rotations = sizes[M], buf[STEP], buf[WORK], buf[COS:]
    for k in range(m):
        work[k] = -grad[order[k]]
    forward_solve(L, m, work, work)
    backward_solve(L, m, work, step)
    dropped = False
    for k in range(m - 1, -1, -1):
        if alpha[order[k]] == 0.0 and step[k] <= 0.0:
            if order[k] == single_entrant:
                excluded[order[k]] = True  # rounding defeated LH's guarantee: skip it for now
            leave_face(L, order, slot, in_face, free, sizes, rotations, k)
            dropped = True
    if dropped:
        return -1
    t, blocking = 1.0, -1
    for k in range(m):
        if step[k] < 0.0 and alpha[order[k]] < -t * step[k]:
            t, blocking = alpha[order[k]] / -step[k], k
    for k in range(m):
        alpha[order[k]] += t * step[k]
        grad[order[k]] *= 1.0 - t  # Q_SS step = -g_S
    if blocking >= 0:
        alpha[order[blocking]] = 0.0
        leave_zeros(L, order, slot, in_face, free, sizes, rotations, alpha)
    return 1 if blocking < 0 else 0


@njit(cache=True)
def hm_svm_loop(given, y, tol, max_iter, curve):
    """The active-set loop; checkpoints of the objective and the last full KKT violation (NaN
    while the gradient outside S is stale) into ``curve``."""
    provider = borrowed(given)  # the caller holds its arrays (see kernels.borrowed)
    n = provider.diag.shape[0]
    diag = provider.diag.copy()  # Q_ii = k_ii since y_i^2 = 1
    max_diag = diag.max() if n > 0 else 0.0
    alpha, grad = np.zeros(n), -np.ones(n)
    cap = min(n, CHUNK)
    rows, L = np.empty((cap, n)), np.zeros((cap, cap))  # rows[slot[k]] = Q's row of order[k]
    order, slot = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    free = np.empty(n, dtype=np.int64)
    free[:cap] = np.arange(cap - 1, -1, -1)
    sizes = np.array([0, cap], dtype=np.int64)
    in_face = np.zeros(n, dtype=np.bool_)  # in S
    excluded = np.zeros(n, dtype=np.bool_)  # may not enter S until a moves (LH: w_j := 0)
    buf = np.empty((5, n))  # work vectors: STEP, WORK, AUX, COS, SIN
    T, S22, L22 = np.empty((n, CHUNK)), np.empty((CHUNK, CHUNK)), np.empty((CHUNK, CHUNK))
    chosen, chunk_slots = np.empty(n, dtype=np.int64), np.empty(CHUNK, dtype=np.int64)
    accepted = np.empty(CHUNK, dtype=np.int64)
    block, iterations, refinements = 1, 0, 0
    fresh = True  # grad is exact everywhere (else only on S)
    entered, single_entrant = False, -1  # the last round's entrants await their first step
    violation, tolerance = np.inf, tol  # tolerance: tol, or the rounding floor when above it
    stop = STOP_MAX_ITER
    while True:
        m = sizes[M]
        on_face = face_violation(grad, order, m)
        if not fresh and on_face <= tolerance:  # at a face optimum: g outside S is needed again
            gradient(rows, slot, order, m, alpha, grad)
            on_face = face_violation(grad, order, m)
            fresh = True
        if fresh:
            violation = kkt_violation(alpha, grad, y, np.inf, 0.0)
            tolerance = max(tol, VIOLATION_RTOL * alpha.sum() * max_diag)
            if violation <= tolerance:
                stop = STOP_TOLERANCE if violation <= tol else STOP_ROUNDING
                break
        if due(curve, iterations):  # alpha = 0 off S, where grad may be stale
            note(curve, iterations, provider.counters, dual_objective(alpha, grad),
                 violation if fresh else np.nan)
        if iterations >= max_iter:
            break
        iterations += 1
        if on_face > tolerance:
            had_entrants = entered
            full = newton_step(L, order, slot, in_face, excluded, free, sizes, alpha, grad, buf,
                               single_entrant)
            if entered:  # block size: double after a clean round, halve after drops
                block = max(1, block // 2) if full < 0 else min(n, 2 * block)
                entered, single_entrant = False, -1
            if full < 0:
                refinements = 0
                continue
            fresh = False
            if full == 0 or had_entrants:  # a moved for real: excluded samples may retry
                excluded[:] = False
                refinements = 0
            else:
                refinements += 1
                if refinements > MAX_REFINE:
                    stop = STOP_STALLED
                    break
            continue
        # at a face optimum: the most violating coordinates enter S (LH steps 2-5)
        refinements = 0
        if min(n, m + block) > rows.shape[0]:
            rows, L = grow(rows, L, free, sizes, min(n, m + block))
        outcome, added = enter(provider, diag, alpha, grad, tolerance, block, L, rows, order,
                               slot, in_face, excluded, free, sizes, T, S22, L22, chosen,
                               chunk_slots, accepted, buf)
        if outcome == UNBOUNDED:
            stop = STOP_UNBOUNDED
            break
        if outcome == NONE_ENTERED:  # every violator is excluded: rounding has the last word
            stop = STOP_STALLED
            break
        if outcome == RAY_STEP:
            fresh = False
            excluded[:] = False
        else:
            entered = True
            single_entrant = order[sizes[M] - 1] if added == 1 else -1
    if not fresh:
        gradient(rows, slot, order, sizes[M], alpha, grad)
        violation = kkt_violation(alpha, grad, y, np.inf, 0.0)
        if stop != STOP_UNBOUNDED and violation <= tol:
            stop = STOP_TOLERANCE
    objective = 0.5 * ordered_dot(alpha, grad - 1.0, alpha.shape[0])
    close(curve, iterations, provider.counters, objective, violation)
    return alpha, iterations, stop, objective, violation


@register_solver("hm_svm")
def solve(provider, y, params):
    """Params: ``tol`` (largest KKT violation, default 1e-6), ``max_iter`` (-1: no limit)."""
    tol = float(params.get("tol", 1e-6))
    if not tol > 0:
        raise ValueError(f"tol must be > 0 (got {tol})")
    y = np.asarray(y, dtype=np.float64)
    if y.ndim != 1 or y.shape[0] != provider.perm.shape[0]:
        raise ValueError(f"y must hold one label per training point ({provider.perm.shape[0]}), "
                         f"got shape {y.shape}")
    if not np.all(np.abs(y) == 1.0):
        raise ValueError("hm_svm needs labels in {-1, +1}; map the classes first (models.py does)")
    if not np.all(np.isfinite(provider.diag)) or np.any(provider.diag < 0):
        raise ValueError("the kernel has non-finite or negative k(x, x): HM-SVM needs a PSD kernel")
    check_labels_folded(provider, y)
    max_iter = resolve_max_iter(int(params.get("max_iter", -1)))
    checkpoints = Checkpoints()
    alpha, iterations, stop, objective, violation = hm_svm_loop(provider, y, tol, max_iter,
                                                                checkpoints.array)
    return finish(provider, alpha, 0.0, iterations, STOP_REASONS[stop], objective, violation, tol,
                  checkpoints, stop=STOP_NAMES[stop])


SPECS = (SolverPlugin(
    solve=solve, name="hm_svm", model="HardMarginSVC", problem="hard_margin", summary=(
        "Hard-margin SVM without bias (gs-svm-tnn2008 eq. 3), solved exactly (active set) to "
        "KKT tolerance 1e-6. max_iter -1: 10 n + 1000 active-set iterations; cache_mb is unused "
        "(double-precision rows of S)."),
    params={"kernel": "rbf", "gamma": "scale", "coef0": 0.0, "degree": 3, "tol": 1e-6,
            "cache_mb": 100, "max_iter": -1},
    reads=("tol", "max_iter"), harness={"gamma": HARNESS_GAMMA},
    capabilities=Capabilities(max_train=10000, size_reason=(
        "cost cap, set, not measured at this size (a dense Cholesky factor and the rows of every "
        "support vector; largest timed fits: 4,926 samples, 1 s)"))),)
