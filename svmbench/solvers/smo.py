"""One soft-margin SMO Solver over the C-SVC Q-matrix, as LIBSVM's ``Solver`` (svm.cpp); its
variants differ only in working-set selection and stopping.

The Solver owns what every variant shares, in one source (``make_solver_loop``): the state
arrays (alpha, the gradient G = Q alpha - 1 kept valid over an *active prefix* of positions,
G_bar, the labels, permuted with the provider's positions by ``swap``), the pair step
(``take_step``: the rows of i and j over the active prefix, G updated there), the gradient of
positions past the prefix rebuilt on demand, and every kernel entry requested through the
provider, which counts. A variant is a working-set rule (the loop branches on ``rule``, a
constant of each compiled loop, SOLVER_LOOPS: a fit compiles its own rule only) returning the
pair and its new alphas, or -1 to stop, plus what it keeps after a step (G_bar;
Platt's threshold; Keerthi's blocks, ``keerthi_blocks``):

- ``smo_wss2``: Fan, Chen and Lin (2005) WSS 2 with LIBSVM's shrinking: the active prefix is
  LIBSVM's active set, rebuilt from G_bar (LIBSVM 2.83's rules by default, 3.x's on request;
  the rules change the kernel counts, not the path: identical iterations on a1a-a4a, w1a, w4a);
  stop when m(a) - M(a) <= tol. Which LIBSVM's path it takes is set by the sample order it is
  given (models.PairProblems: "libsvm" = LIBSVM 2.83 and 3.0-3.16; docs/deviations.md, 1).
- ``smo_mod1`` / ``smo_mod2``: Keerthi et al. (2001) Modifications 1 and 2: the active prefix is
  I0 (their F cache over the free samples; positions kept in blocks [I0 | alpha = C | alpha = 0]),
  a bound sample's G is rebuilt from the support vectors when it is examined; stop at
  b_low <= b_up + 2 tol.
- ``smo_platt``: Platt (1998): the active prefix is every sample (his error cache kept for all,
  from the shared gradient), one threshold b (eqs. 20-21) for examineExample's KKT test. Platt
  keeps the error cache for the non-bound samples only and computes a bound sample's output from
  the support vectors when examined (as Keerthi's blocks above do): the path is his up to
  rounding, the kernel counts are not (each step requests two full rows, 2n entries, where his
  requests about 2 |I0|, plus n_SV per examined bound sample).

Platt's outer loop (alternate passes over all samples and over the non-bound ones, until a full pass
changes nothing) is a stateful working-set selection (``next_examined``): each call resumes the pass
where the last step left it; Keerthi et al. run the same loop with their examineExample. It walks
positions, not sample indices: a step that moves a sample to another block [I0 | alpha = C |
alpha = 0] reorders what the pass has left to visit, where Platt's and Keerthi et al.'s
pseudo-code walk the indices 1..n (the index order costs Keerthi's rules 10-13 % fewer kernel
entries on a1a and w1a; docs/deviations.md, 2).

Kernel counting (gs2008 Tables II-III, gs2005 Table 1): wss2 requests the row of i over the active
set during selection and reuses it for the step, then the row of j; a change of upper-bound status
requests a full row (G_bar), and so does gradient reconstruction (2.83: the full row of each free
sample). The trace splits kernel_requested into ``requested_working_set`` (rows i and j),
``requested_gradient_bar`` and ``requested_reconstruction``. LIBSVM 2.83 itself requests row i
twice per iteration (selection and update), so its own total is ours plus one more active row per
iteration; gs2008 Tables II-III print K2 = the working-set rows. Keerthi's and Platt's steps request
Q_ij first (a refused pair costs one entry, none when L == H: takeStep returns before its kernel
entries), then the rows of i and j over the active prefix (I0 for Keerthi: 2 |I0| + 1 per step; n
for Platt); a bound sample examined by Keerthi's rule requests its row over the support vectors
(n_SV entries).
"""

from collections import namedtuple

import numpy as np
from numba import get_num_threads, njit

from svmbench.capabilities import Capabilities
from svmbench.kernels.borrowed import borrowed
from svmbench.kernels.cache import BATCHES, PENDING
from svmbench.kernels.compile_cache import jit_callee
from svmbench.kernels.provider import (
    CACHING,
    COMPUTED,
    COMPUTING_CYCLES,
    PARALLEL_CHUNK,
    PARALLEL_MIN,
    REQUESTED,
    cached_kernel_row,
    computing_cycles,
    counts,
    defer_swap_positions,
    kernel_entry,
    kernel_row,
    swap_positions,
)
from svmbench.kernels.qmatrix import check_labels_folded
from svmbench.kernels.threads import ALL_THREADS, NOW, ONE_THREAD, FitThreads
from svmbench.solvers import wss2_parallel
from svmbench.solvers.base import (
    MAX_ITER,
    OPTIMAL,
    make_result,
    register_many,
    register_solver,
)
from svmbench.solvers.checkpoints import Checkpoints, close, new_curve, note
from svmbench.solvers.smo_step import (
    BOUND_SNAP,
    TWO_SIGNS,
    check_two_classes,
    curvature_of,
    dual_objective,
    first_index_of,
    in_low_set,
    in_up_set,
    is_free,
    lane_max,
    lane_sum,
    last_index_of,
    objective_change,
    outcome,
    pair_solution,
    segment,
    segment_is_a_point,
    smo_settings,
    snap_to_bounds,
    snapped,
    solve_pair,
    update_gradient,
    wss2_gains,
    wss2_violators,
)
from svmbench.solvers.wss2_parallel import (
    add_scaled_parallel,
    gains_parallel,
    last_position_of_max,
    step_and_violators_parallel,
    violators_parallel,
)
from svmbench.specs import HARNESS_GAMMA, SolverPlugin

# working-set rules
WSS2, PLATT, MOD1, MOD2 = 0, 1, 2, 3
VARIANTS = {"smo_wss2": WSS2, "smo_platt": PLATT, "smo_mod1": MOD1, "smo_mod2": MOD2}
# iterations between two shrinking passes (LIBSVM: min(l, 1000))
SHRINK_PERIOD = 1000
# shrinking and gradient-reconstruction rules: LIBSVM 2.83's (svm.cpp of Nov. 2006) or 3.x's
LIBSVM283, LIBSVM3 = 0, 1
SHRINKING_RULES = {"libsvm283": LIBSVM283, "libsvm3": LIBSVM3}
# takeStep's minimal relative change (Platt 1998: 1e-3). Keerthi's default refuses null steps
# only: Platt's 1e-3 refuses a short step clipped at a bound, and with one partner per examined
# sample the loops then stop with violations far above 2 tol (seen on iris)
PLATT_EPS, KEERTHI_EPS = 1e-3, 1e-12

# ints[...]: ACTIVE = length of the prefix over which G is valid (LIBSVM's active_size; I0 for
# Keerthi), SV_END = end of the support vectors [I0 | alpha = C] (Keerthi), COUNTER / UNSHRINK:
# LIBSVM's shrinking state; EXAMINE_ALL / CURSOR / CHANGED / STEPPED: Platt's outer loop (pass
# kind, next position, steps in this pass, the last examined sample stepped); I_UP / I_LOW:
# Keerthi's i_up / i_low; PARALLEL_FROM: wss2's passes over this many positions or more run in
# parallel regions (solver_loop); SELECTED: 1 when the last step's pass left the next selection's
# first pass in the work vector (step_and_select); N_FREE: the length of Platt's list of the free
# samples (State.free)
(RULE, SHRINKING, SHRINK_RULES, ACTIVE, SV_END, COUNTER, UNSHRINK, EXAMINE_ALL, CURSOR, CHANGED,
 STEPPED, I_UP, I_LOW, PARALLEL_FROM, SELECTED, N_FREE) = range(16)
# reals[...]: settings, Keerthi's b_up / b_low, Platt's threshold b
C_, TOL, EPS, B_UP, B_LOW, THRESHOLD = range(6)
# requests[...]: entries requested for G_bar (and a warm start's gradient), for reconstruction
GRADIENT_BAR, RECONSTRUCTION = 0, 1

# work: 2 n scratch values for the working-set selection (wss2_pair), then the maxima of their
# blocks (block_maxima); curve: the convergence checkpoints (svmbench.solvers.checkpoints); free:
# Platt's free samples' positions, increasing, the first ints[N_FREE] (list_free; empty for the
# other rules)
State = namedtuple("State", ["y", "alpha", "gradient", "gradient_bar", "ints", "reals",
                             "requests", "work", "curve", "free"])


# ---------------------------------------------------------------- the Solver's shared machinery

@njit(cache=True, inline="always")
def _exchange_state(s, a, b):
    for values in (s.y, s.alpha, s.gradient, s.gradient_bar):
        values[a], values[b] = values[b], values[a]


@njit(cache=True, inline="always")
def shrink_swap(provider, s, a, b):
    """swap_positions(provider, a, b) and the state's arrays, the cached rows' entries left to the
    next request (defer_swap_positions), inlined into the shrinking pass for the reference counts
    (see solver_loop)."""
    defer_swap_positions(provider, a, b)
    _exchange_state(s, a, b)


@njit(cache=True, inline="always")
def take_step(s, i, j, new_i, new_j, q_ii, q_jj, q_ij, row_i, row_j):
    """Move (alpha_i, alpha_j) to (new_i, new_j) and update G over the active prefix with the rows
    of i and j (requested by the loop over that prefix; empty when it is empty); G_i and G_j past
    the prefix from Q_ii, Q_jj, Q_ij, which must be the rows' own entries (LIBSVM's "update G";
    Keerthi et al. 2001, takeStep's fcache update); a prefix of PARALLEL_FROM positions or more
    is left to step_and_select. Written without branches around arrays, for the reference
    counts (see solver_loop)."""
    alpha, gradient, length = s.alpha, s.gradient, s.ints[ACTIVE]
    step_i, step_j = new_i - alpha[i], new_j - alpha[j]
    update_gradient(gradient, row_i, row_j, step_i, step_j,
                    length if length < s.ints[PARALLEL_FROM] else 0)
    past_i = gradient[i] + (step_i * q_ii + step_j * q_ij)
    past_j = gradient[j] + (step_i * q_ij + step_j * q_jj)
    gradient[i] = past_i if i >= length else gradient[i]
    gradient[j] = past_j if j >= length else gradient[j]
    alpha[i], alpha[j] = new_i, new_j


@jit_callee
def gradient_from_support_vectors(provider, s, p):
    """G_p = sum over the support vectors [0, SV_END) of alpha_j Q_pj - 1 (= y_p F_p, Keerthi et
    al. 2001, eq. 3 without b): the row prefix over the support vectors, n_SV entries."""
    n_sv = s.ints[SV_END]
    total = 0.0
    if n_sv > 0:
        row = requested_row(provider, p, n_sv)
        for t in range(n_sv):
            total += s.alpha[t] * row[t]
    return total - 1.0


@jit_callee
def reconstruct_gradient(provider, s):
    """LIBSVM Solver::reconstruct_gradient: G of the shrunk samples from G_bar and the free ones.

    LIBSVM 2.83 requests the full row of every free active sample; LIBSVM 3.x instead requests the
    active prefix of every shrunk sample's row when that is fewer entries (its nr_free * l >
    2 * active_size * (l - active_size) rule)."""
    y, alpha, gradient, C = s.y, s.alpha, s.gradient, s.reals[C_]
    n, active_size = y.shape[0], s.ints[ACTIVE]
    if active_size == n:
        return
    cache, settings, counters = provider.cache, provider.settings, provider.counters
    before = provider.counters[REQUESTED]
    for t in range(active_size, n):
        gradient[t] = s.gradient_bar[t] - 1.0
    n_free = 0
    for t in range(active_size):
        if is_free(alpha[t], C):
            n_free += 1
    if s.ints[SHRINK_RULES] == LIBSVM3 and n_free * n > 2 * active_size * (n - active_size):
        for t in range(active_size, n):
            row = cached_kernel_row(cache, settings, counters, t, active_size)
            if row.shape[0] == 0:
                row = requested_row(provider, t, active_size)
            for p in range(active_size):
                if is_free(alpha[p], C):
                    gradient[t] += alpha[p] * row[p]
    else:
        for p in range(active_size):
            if is_free(alpha[p], C):
                row = cached_kernel_row(cache, settings, counters, p, n)
                if row.shape[0] == 0:
                    row = requested_row(provider, p, n)
                if n - active_size >= s.ints[PARALLEL_FROM]:  # the same sums, in blocks
                    add_scaled_parallel(gradient[active_size:], row[active_size:n], alpha[p])
                else:
                    for t in range(active_size, n):
                        gradient[t] += alpha[p] * row[t]
    s.requests[RECONSTRUCTION] += provider.counters[REQUESTED] - before


@jit_callee
def bound_gradients(provider, s):
    """Keerthi's bound samples' G from the support vectors, so that G is valid at every position
    before the bias, objective and KKT check (wss2 rebuilds it with reconstruct_gradient; Platt
    keeps it everywhere)."""
    for p in range(s.ints[ACTIVE], s.y.shape[0]):
        s.gradient[p] = gradient_from_support_vectors(provider, s, p)


# Reference counts. numba takes and drops an atomic reference on every array of a tuple it binds
# to a new name, unless its pruner sees the pair; it does not when a call that LLVM does not
# inline lies between them, even in a branch never taken. An inlined function's tuple parameters
# are such new names; the loop's own arguments are not. perf, 560-sample Gram matrix (australian,
# C = 1024, 9122 iterations): with every step function called, 58 % of the fit went to
# NRT_incref/decref (48 ms a fit; LIBSVM 9 ms), inlined 79 % of 24 ms. A branch that holds array
# references has the same effect (LLVM merges the releases of its arms into a form the pruner
# does not recognize), and so do the bound checks of a slice with a variable end. So the loop
# below calls what may call out (shrinking, reconstruction, a row that is not cached) itself,
# what it inlines with the provider or the state makes no call and takes no such branch
# (take_step, be_shrunk, shrink_swap), and a cached row is looked up without binding the
# provider (cached_kernel_row takes its cache, settings and counters): 5.3-5.6 ms a fit, LIBSVM
# 8.7-9.9 in the same runs. The loop binds its provider borrowed (svmbench.kernels.borrowed): a
# BorrowedTuple, whose binding counts no reference, each function counting only the provider's
# arrays it reads (null tests: their memory-manager pointers are cleared). The provider's 37
# arrays had been bound again by every out-of-line function that takes it (the kernel-row miss
# path, swaps, Keerthi's per-step functions: studies/nrt_callers.py; the changelog has the
# counts and the A/B). solve_each, compiled, hands the loop its state borrowed too (a grid
# search's solves: some 4,400 reference counts a solve, 72 % of them on live arrays, before;
# 0.1 % after); from Python (solve) the state comes as it is, and the rules above stand for it.
# Borrowed inside the loop instead (a local, not an argument), the state lost stores: G_bar's
# update stayed zero (iris, classes 2 and 3, C 1, gamma 2).
def make_solver_loop(rule, parallel=False):
    """The Solver's loop for working-set rule ``rule``, a constant of the compiled code: numba
    prunes the other rules' branches before it types them, so that a fit compiles its own rule
    only (a wss2 fit none of Platt's and Keerthi's code, theirs none of LIBSVM's shrinking and
    parallel passes). ``parallel`` (wss2 only), also a constant: the loop may run its passes in
    parallel regions; without it the parallel passes are not compiled (solver_loop_for picks the
    loop a fit can use). One source, one compiled loop per rule and wss2's two (SOLVER_LOOPS)."""
    wss2 = rule == WSS2

    @njit(cache=True, nogil=True)
    def solver_loop(given, s, max_iter, seed, parallel_from, threads):
        """LIBSVM Solver::Solve: select a pair, step, until the rule stops or max_iter steps;
        wss2's passes over active sets of ``parallel_from`` positions or more run in parallel
        regions (wss2_parallel: the same bits), the step's update of G and the next selection's
        first pass in one (step_and_select), while ``threads[NOW]`` (kernels.threads.FitThreads,
        read at each iteration; the GIL released for its sampler) is more than one; so are the
        provider's long rows. ``threads`` counts the iterations run on one thread and on all
        (long passes and rows split; shorter ones run serially at any count)."""
        provider = borrowed(given)  # the caller holds its arrays (see kernels.borrowed)
        np.random.seed(seed)  # Platt's random starts
        n, tol, no_row = s.y.shape[0], s.reals[TOL], provider.cache.pool[:0]
        passes_from = parallel_from if parallel else n + 1
        rows_from = provider.settings[PARALLEL_MIN]
        on = threads[NOW]
        use_threads(provider, s, on, passes_from, rows_from)

        # closures over the loop's own arguments: numba inlines them without binding new names
        def row(position, length):
            """kernel_row, with the cached case inlined (see above)."""
            cached = cached_kernel_row(provider.cache, provider.settings,
                                       provider.counters, position, length)
            return cached if cached.shape[0] > 0 else requested_row(provider, position, length)

        def stored(entry):
            """A Q entry as the cache stores the rows that keep G (float32 like LIBSVM's Qfloat;
            float64 for a precomputed matrix). kernel_entry serves Q_ij unrounded when it computes
            it, and the step solves with that; G and the objective must take the rows' numbers, or G
            drifts from Q alpha - 1 (Keerthi's samples entering I0: ~1e-8 a step, kept in I0)."""
            return np.float64(no_row.dtype.type(entry))

        def wss2_pair():
            """Fan et al. 2005, WSS 2 over the active set: (i, j, gap, row of i), j = -1 when there is
            no pair; gap = m(a) - M(a)."""
            if parallel and s.ints[ACTIVE] >= s.ints[PARALLEL_FROM]:
                return wss2_pair_parallel(provider, s)
            i, gmax = wss2_first(s)
            if i < 0:
                return i, -1, -np.inf, no_row
            row_i = row(i, s.ints[ACTIVE])
            j, gap = wss2_second(s, provider.diag, row_i, i, gmax)
            return i, j, gap, row_i

        def update_gradient_bar(t, old):
            """Keep G_bar_k = sum over alpha_p = C of C Q_kp as t enters or leaves the upper
            bound (in parallel blocks from PARALLEL_FROM samples: the same sums)."""
            C = s.reals[C_]
            before = provider.counters[REQUESTED]
            row_t = requested_row(provider, t, n)
            step = -C if old >= C else C
            if parallel and n >= s.ints[PARALLEL_FROM]:
                add_scaled_parallel(s.gradient_bar, row_t, step)
            else:
                for k in range(n):
                    s.gradient_bar[k] += step * row_t[k]
            s.requests[GRADIENT_BAR] += provider.counters[REQUESTED] - before

        iterations = 0
        converged = False
        objective, gap = dual_objective(s.alpha, s.gradient), np.nan  # G is valid everywhere here
        while iterations < max_iter:
            if threads[NOW] != on:
                on = threads[NOW]
                use_threads(provider, s, on, passes_from, rows_from)
            if wss2:  # LIBSVM: shrink every min(l, 1000) iterations; when the active set is optimal,
                # rebuild G over every sample and select again; stop when that is optimal too
                if shrinking_due(s):
                    do_shrinking(provider, s)
                i, j, gap, row_i = wss2_pair()
                if gap < tol or j < 0:
                    reconstruct_gradient(provider, s)
                    s.ints[ACTIVE] = n
                    i, j, gap, row_i = wss2_pair()
                    if gap < tol or j < 0:
                        converged = True
                        break
                    s.ints[COUNTER] = 1  # shrink again in the next iteration
                q_ij = np.float64(row_i[j])
                new_i, new_j = solve_pair(s.alpha[i], s.alpha[j], s.gradient[i], s.gradient[j],
                                          s.y[i], s.y[j], provider.diag[i], provider.diag[j], q_ij,
                                          s.reals[C_])
            else:
                i, j, new_i, new_j, q_ij, row_i = next_examined(provider, s)
                if i < 0:
                    converged = True
                    break
            note(s.curve, iterations, provider.counters, objective, own_gap(s, gap))
            q_ii, q_jj, q_ij = stored(provider.diag[i]), stored(provider.diag[j]), stored(q_ij)
            objective += objective_change(s.gradient[i], s.gradient[j], new_i - s.alpha[i],
                                          new_j - s.alpha[j], q_ii, q_jj, q_ij)
            old_i, old_j = s.alpha[i], s.alpha[j]
            row_j = no_row
            if s.ints[ACTIVE] > 0:
                row_i = row_i if row_i.shape[0] > 0 else row(i, s.ints[ACTIVE])
                row_j = row(j, s.ints[ACTIVE])
            take_step(s, i, j, new_i, new_j, q_ii, q_jj, q_ij, row_i, row_j)
            if parallel and s.ints[ACTIVE] >= s.ints[PARALLEL_FROM]:  # take_step left the prefix
                step_and_select(s, row_i, row_j, new_i - old_i, new_j - old_j)
            threads[ALL_THREADS if on > 1 else ONE_THREAD] += 1
            iterations += 1
            if rule == PLATT:
                platt_threshold(s, i, j)
                list_free(s.free, s.ints, s.alpha, s.reals[C_], i, j)
                continue
            if not wss2:
                keerthi_blocks(provider, s, i, j)
                continue
            if leaves_or_enters_upper_bound(s, i, old_i):
                update_gradient_bar(i, old_i)
            if leaves_or_enters_upper_bound(s, j, old_j):
                update_gradient_bar(j, old_j)
        provider.settings[PARALLEL_MIN] = rows_from
        if wss2:  # G valid everywhere before the bias, objective and KKT check
            reconstruct_gradient(provider, s)
        elif rule != PLATT and not converged:  # a full pass that changed nothing left it so
            bound_gradients(provider, s)
        result = outcome(s.alpha, s.gradient, s.y, s.reals[C_], iterations, converged)
        close(s.curve, iterations, provider.counters, result[4], own_gap(s, gap))
        return result

    return solver_loop


SOLVER_LOOPS = {(rule, False): make_solver_loop(rule) for rule in VARIANTS.values()}
SOLVER_LOOPS[WSS2, True] = wss2_loop = make_solver_loop(WSS2, parallel=True)


def solver_loop_for(rule, n, parallel_from):
    """The compiled loop a fit of rule ``rule`` over ``n`` samples runs: wss2's parallel one
    when its passes can be parallel (``parallel_from``, wss2_parallel_from, at most n), else the
    serial one, which compiles none of the parallel passes (the same path: bit for bit)."""
    return SOLVER_LOOPS[rule, rule == WSS2 and parallel_from <= n]


@njit(cache=True, inline="always")
def block_maxima(s):
    """The work vector's tail: room for the maxima of the blocks of the selection's values
    (wss2_parallel), two vectors of one entry per PARALLEL_CHUNK positions and one more."""
    n = s.y.shape[0]
    blocks = n // PARALLEL_CHUNK + 1
    return s.work[2 * n:2 * n + blocks], s.work[2 * n + blocks:2 * n + 2 * blocks]


@jit_callee
def use_threads(provider, s, count, passes_from, rows_from):
    """The passes over active sets of ``passes_from`` positions or more and the rows of
    ``rows_from`` entries or more in parallel regions when ``count`` (the governor's
    FitThreads[NOW]) is more than one, else none: the same bits either way. The next selection
    makes its first pass again (a first pass left by a parallel step would be out of date after
    serial steps)."""
    parallel = count > 1
    s.ints[PARALLEL_FROM] = passes_from if parallel else s.y.shape[0] + 1
    provider.settings[PARALLEL_MIN] = rows_from if parallel else np.iinfo(np.int64).max
    s.ints[SELECTED] = 0


@jit_callee
def step_and_select(s, row_i, row_j, step_i, step_j):
    """take_step's update of G over a long active set and the next selection's first pass (its
    values and their blocks' maxima, as wss2_pair_parallel would make them) in one parallel
    region (wss2_parallel.step_and_violators_parallel), after take_step moved the alphas."""
    active = s.ints[ACTIVE]
    block_max, block_low = block_maxima(s)
    step_and_violators_parallel(s.gradient, row_i, row_j, step_i, step_j, s.y, s.alpha,
                                s.reals[C_], s.work[:active], s.work[active:2 * active],
                                block_max, block_low)
    s.ints[SELECTED] = 1


@jit_callee
def wss2_pair_parallel(provider, s):
    """solver_loop's wss2_pair over a long active set, its passes in parallel blocks
    (wss2_parallel): the same (i, j, gap, row of i). The first pass is the last step's
    (step_and_select) unless shrinking came between (do_shrinking) or there was no step since
    the last selection. Not inlined: its array slices and calls would cost the loop its
    reference-count pruning (see the note before solver_loop)."""
    active = s.ints[ACTIVE]
    up, low = s.work[:active], s.work[active:2 * active]
    block_max, block_low = block_maxima(s)
    if s.ints[SELECTED] == 0:
        violators_parallel(s.y, s.alpha, s.gradient, s.reals[C_], up, low, block_max, block_low)
    s.ints[SELECTED] = 0  # the gains pass below writes over up and its maxima
    i, gmax = last_position_of_max(up, block_max)
    if i < 0:
        return i, -1, -np.inf, provider.cache.pool[:0]
    row_i = cached_kernel_row(provider.cache, provider.settings, provider.counters, i, active)
    if row_i.shape[0] == 0:
        row_i = requested_row(provider, i, active)
    gains_parallel(s.y, provider.diag, row_i, i, gmax, low, up, block_max)
    j, _ = last_position_of_max(up, block_max)
    return i, j, gmax + last_position_of_max(low, block_low)[1], row_i


@njit(cache=True, inline="always")
def own_gap(s, wss2_gap):
    """The rule's own optimality gap: wss2's m(a) - M(a) over the active set, Keerthi's
    b_low - b_up; none for Platt's (a full pass without a step)."""
    rule = s.ints[RULE]
    if rule == MOD1 or rule == MOD2:
        return s.reals[B_LOW] - s.reals[B_UP]
    return wss2_gap


@jit_callee
def keerthi_blocks(provider, s, i, j):
    """What Keerthi's rules keep up to date after a step: the blocks [I0 | alpha = C | alpha = 0]
    (``place``, a closure over this function's arguments: see the note before next_examined) and
    the thresholds (Platt's keeps its threshold: platt_threshold)."""
    ends = s.ints[ACTIVE:SV_END + 1]  # I0 = [0, ends[0]), alpha = C: [ends[0], ends[1])
    alpha = s.alpha  # one name per statement (see next_examined)
    C = s.reals[C_]

    def place(p, other):
        """Move position p into the block of its alpha, one block boundary at a time (each move
        swaps p with the boundary position; the rows keep their prefix before it). Returns the
        new positions of p and of ``other``."""
        target = 2 if alpha[p] <= 0.0 else (1 if alpha[p] >= C else 0)
        while True:
            current = 0 if p < ends[0] else (1 if p < ends[1] else 2)
            if current == target:
                return p, other
            if current > target:  # the first position of p's block joins the block before it
                q = ends[current - 1]
                ends[current - 1] += 1
            else:  # the last position of p's block joins the block after it
                ends[current] -= 1
                q = ends[current]
            swap_positions(provider, p, q, True)
            _exchange_state(s, p, q)
            if other == q:
                other = p
            elif other == p:
                other = q
            p = q

    i, j = place(i, j)  # update I0, I1, ..., I4
    j, i = place(j, i)
    refresh_thresholds(s, i, j)


# ---------------------------------------------------------------- wss2: LIBSVM's rule

@njit(cache=True, inline="always")
def shrinking_due(s):
    """Count an iteration; True every min(l, 1000) iterations when shrinking is on."""
    s.ints[COUNTER] -= 1
    if s.ints[COUNTER] > 0:
        return False
    s.ints[COUNTER] = min(s.y.shape[0], SHRINK_PERIOD)
    return s.ints[SHRINKING] != 0


@njit(cache=True, inline="always")
def wss2_first(s):
    """Fan et al. 2005, WSS 2, first index: i maximises -y_i G_i over I_up; (i, that maximum), i =
    -1 when I_up is empty. Ties go to the last position. Leaves -y G over I_up and y G over I_low
    (-inf elsewhere) in the state's work vector for wss2_second.

    Each pass writes its candidates' values (-inf for the others) and takes their maximum in
    loops that vectorize (lane_max), then looks up the last position holding it: the same pair,
    in about a quarter of the time of one branching loop at 40,000 active samples (microbenchmark)."""
    y, alpha, gradient, C = s.y, s.alpha, s.gradient, s.reals[C_]
    active_size = s.ints[ACTIVE]
    up, low = s.work[:active_size], s.work[active_size:2 * active_size]
    wss2_violators(y, alpha, gradient, C, up, low)
    gmax = lane_max(up)
    return (last_index_of(up, gmax) if gmax > -np.inf else -1), gmax


@njit(cache=True, inline="always")
def wss2_second(s, diag, row_i, i, gmax):
    """Fan et al. 2005, WSS 2, second index: j minimises the second-order decrease -b_ij^2 / a_ij
    over I_low with b_ij > 0, from Q's row of i; (j, gap), j = -1 when there is none, gap =
    m(a) - M(a) over the active set. Ties go to the last position."""
    y, active_size = s.y, s.ints[ACTIVE]
    gain, low = s.work[:active_size], s.work[active_size:2 * active_size]  # gain reuses up
    wss2_gains(y, diag, row_i, y[i], diag[i], gmax, low, gain)
    best_gain = lane_max(gain)
    j = last_index_of(gain, best_gain) if best_gain > -np.inf else -1
    return j, gmax + lane_max(low)


@njit(cache=True, inline="always")
def be_shrunk(s, t, gmax_up, gmax_low):
    """LIBSVM Solver::be_shrunk: a bound sample whose gradient says it will stay at its bound
    (a bound sample in I_up is in I_up only). Inlined and reading the state first, for the
    reference counts (see solver_loop)."""
    y_t, alpha_t, f, C = s.y[t], s.alpha[t], s.y[t] * s.gradient[t], s.reals[C_]
    return not is_free(alpha_t, C) and (f > gmax_low if in_up_set(y_t, alpha_t, C)
                                        else -f > gmax_up)


@jit_callee
def violating_extremes(s):
    """(max of -y G over I_up, max of y G over I_low) over the active set."""
    y, alpha, gradient, C = s.y, s.alpha, s.gradient, s.reals[C_]
    gmax_up, gmax_low = -np.inf, -np.inf
    for t in range(s.ints[ACTIVE]):
        if in_up_set(y[t], alpha[t], C):
            gmax_up = max(gmax_up, -y[t] * gradient[t])
        if in_low_set(y[t], alpha[t], C):
            gmax_low = max(gmax_low, y[t] * gradient[t])
    return gmax_up, gmax_low


@jit_callee
def do_shrinking(provider, s):
    """LIBSVM Solver::do_shrinking, 2.83's or 3.x's (``shrinking_rules``).

    3.x: at the first gap <= 10 tol every sample becomes active again before the shrinking pass.
    2.83: nothing happens when the active set is optimal (gap < tol); a shrunk sample is swapped
    with the last active position and that newcomer examined in turn; at the first gap <= 10 tol
    the gradient is reconstructed and only the shrunk samples that no longer pass the shrinking
    test become active again."""
    ints, tol = s.ints, s.reals[TOL]
    ints[SELECTED] = 0  # positions may move: the last step's first pass is out of date
    gmax_up, gmax_low = violating_extremes(s)
    if ints[SHRINK_RULES] == LIBSVM3:
        if not ints[UNSHRINK] and gmax_up + gmax_low <= tol * 10:
            ints[UNSHRINK] = 1
            reconstruct_gradient(provider, s)
            ints[ACTIVE] = s.y.shape[0]
        t = 0
        while t < ints[ACTIVE]:
            if be_shrunk(s, t, gmax_up, gmax_low):
                ints[ACTIVE] -= 1
                while ints[ACTIVE] > t:
                    if not be_shrunk(s, ints[ACTIVE], gmax_up, gmax_low):
                        shrink_swap(provider, s, t, ints[ACTIVE])
                        break
                    ints[ACTIVE] -= 1
            t += 1
        return
    if gmax_up + gmax_low < tol:
        return
    t = 0
    while t < ints[ACTIVE]:
        if be_shrunk(s, t, gmax_up, gmax_low):
            ints[ACTIVE] -= 1
            shrink_swap(provider, s, t, ints[ACTIVE])
        else:
            t += 1
    if ints[UNSHRINK] or gmax_up + gmax_low > tol * 10:
        return
    reconstruct_gradient(provider, s)
    t = s.y.shape[0] - 1
    while t >= ints[ACTIVE]:
        if is_free(s.alpha[t], s.reals[C_]) or be_shrunk(s, t, gmax_up, gmax_low):
            t -= 1
        else:
            shrink_swap(provider, s, t, ints[ACTIVE])
            ints[ACTIVE] += 1
    ints[UNSHRINK] = 1


@njit(cache=True, inline="always")
def leaves_or_enters_upper_bound(s, t, old):
    """Whether alpha_t moved from ``old`` across the upper bound C (G_bar changes)."""
    return (old >= s.reals[C_]) != (s.alpha[t] >= s.reals[C_])


@njit(cache=True)
def initial_gradient(provider, s):
    """LIBSVM Solver::Solve: G = Q alpha - 1 and G_bar = sum over alpha_p = C of C Q_p, for a
    warm start from a feasible alpha (one full row per nonzero alpha)."""
    alpha, gradient, gradient_bar, C = s.alpha, s.gradient, s.gradient_bar, s.reals[C_]
    cache, settings, counters = provider.cache, provider.settings, provider.counters
    n = alpha.shape[0]
    before = provider.counters[REQUESTED]
    for p in range(n):
        if alpha[p] > 0.0:
            row = cached_kernel_row(cache, settings, counters, p, n)
            if row.shape[0] == 0:
                row = requested_row(provider, p, n)
            for t in range(n):
                gradient[t] += alpha[p] * row[t]
            if alpha[p] >= C:
                for t in range(n):
                    gradient_bar[t] += C * row[t]
    s.requests[GRADIENT_BAR] += provider.counters[REQUESTED] - before


@jit_callee
def requested_row(provider, position, length):
    """kernel_row, not inlined: the miss path of code that looks rows up in the cache first
    (cached_kernel_row), and one copy of kernel_row's body (the cache's allocation, the pending
    swaps) where there were one per call site, each compiled and optimized again in every
    compiled caller (a cold smo_wss2 fit's compile: see docs/explanation/performance.md)."""
    return kernel_row(provider, position, length)


# ---------------------------------------------------------------- Platt's outer loop, shared by
# Platt's and Keerthi et al.'s examineExample

# Reference counts again (see the note before solver_loop): examineExample, takeStep's first half
# and Keerthi's threshold updates were functions of the provider and the state, and each call of
# one took and dropped a reference on each of their 43 arrays; a pass over all samples examines
# every one of them, most without a step. perf, letter at C 2, gamma 0.5, ten class pairs:
# NRT_incref/decref were about half of smo_mod2's fit and of smo_platt's. So the rules run as
# closures over next_examined's own arguments, and the calls they make out of line take arrays
# only, or compute kernel values (a row, or an entry that no cached row holds). The provider
# comes borrowed from the loop since (see the note before solver_loop), so binding it counts
# nothing: the state's references remain.

@njit(cache=True, inline="always")
def moves_enough(alpha_j, new_j, eps):
    """Platt 1998, takeStep's progress test: alpha_j moves by eps (relative) or more."""
    return not abs(new_j - alpha_j) < eps * (new_j + alpha_j + eps)


SCAN_BLOCK = 256  # candidates first_taker judges before it reads their marks
FIRST_BLOCK = 8  # first_listed_taker's first block (the non-bound samples)


@njit(cache=True, inline="always")
def judged(alpha_i, alpha_j, gradient_i, gradient_j, y_i, y_j, q_ii, q_jj, q_ij, C, eps, same):
    """propose's verdict on candidate i for the examined sample j, as a mark: 0 when it requests
    no entry (``same``: i == j, or L == H), 1 when the step would not move alpha_j by eps
    (relative), 2 when it would (pair_solution's clipping picked, not branched)."""
    _, new_j = pair_solution(alpha_i, alpha_j, gradient_i, gradient_j, y_i, y_j, q_ii, q_jj,
                             q_ij, C)
    point = same | segment_is_a_point(alpha_i, alpha_j, y_i, y_j, C)
    progress = moves_enough(alpha_j, snapped(new_j, C), eps)
    return 0.0 if point else 2.0 if progress else 1.0


# screened's margin below the progress threshold, relative: far above the rounding of the step
# (a few units in the last place), so that a candidate it calls short is short
SCREEN_SHORTFALL = 1e-6


@njit(cache=True, inline="always")
def screened(alpha_i, alpha_j, gradient_i, gradient_j, y_i, y_j, q_ii, q_jj, q_ij, C, eps, same):
    """judged's mark where it follows without solving the pair, else 2 (judged decides): 0 as
    judged; 1 when alpha_j cannot move by eps (relative). alpha_j's unclipped step is push /
    curvature (pair_solution's delta, push = y_i y_j G_i - G_j); clipping keeps it on the
    segment [L, H], so alpha_j moves by at most that step and at most the room to the segment's
    end that push points to, give or take rounding (units in the last place of C) and snapping
    (BOUND_SNAP C). Either one shorter than eps (alpha_j + eps), the least moves_enough takes,
    less SCREEN_SHORTFALL of it and 8 BOUND_SNAP C, and judged refuses the candidate too
    (tests/unit/test_smo.py compares the two). No division and no clipping: cheaper than judged,
    whose verdict it leaves to the candidates it cannot refuse."""
    low, high = segment(alpha_i, alpha_j, y_i, y_j, C)
    push = y_i * y_j * gradient_i - gradient_j
    room = high - alpha_j if push > 0.0 else alpha_j - low
    least = (1.0 - SCREEN_SHORTFALL) * eps * (alpha_j + eps) - 8.0 * BOUND_SNAP * C
    short = (abs(push) < curvature_of(q_ii, q_jj, q_ij, y_i, y_j) * least) | (room < least)
    return 0.0 if same | (low == high) else 1.0 if short else 2.0


@njit(cache=True, inline="always")
def marked_taker(marks, length, asked):
    """(the first t < length marked 2 or -1, asked + the entries requested before it: one per
    candidate marked 1)."""
    for t in range(length):
        if marks[t] == 2.0:
            return t, asked
        asked += int(marks[t])
    return -1, asked


@jit_callee
def first_taker(y, alpha, gradient, diag, row, j, lo, hi, C, eps, marks):
    """Platt 1998, examineExample's loop over all samples, over positions [lo, hi), for the
    examined sample j whose Q row ``row`` the cache holds whole: (the first i whose takeStep with
    j makes progress, or -1; the kernel entries requested before it). Here a block of
    candidates is marked in one loop over the arrays (``marks``: screened's, then judged's from
    the first candidate the screen cannot refuse), then read in order: the same taker and the
    same requests as next_examined's propose one candidate after the other, each a call and an
    entry request. On a stratified sample of 10,000 of ijcnn1's samples at C 128, gamma 2 (839
    million of the fit's 900 million candidates in this loop, every entry from the examined
    sample's row) the fit took 15.2 s of CPU with propose, 5.1 s judging each block in vector
    lanes (same steps, counts and bits; issue 42)."""
    block = min(SCAN_BLOCK, marks.shape[0])
    asked = 0
    alpha_j, gradient_j, y_j, diag_j = alpha[j], gradient[j], y[j], diag[j]
    for first in range(lo, hi, block):
        end = min(hi, first + block)
        # views of the block, so that the loops over it run in vector lanes
        alphas, gradients, labels = alpha[first:end], gradient[first:end], y[first:end]
        diagonal, entries, verdicts = diag[first:end], row[first:end], marks[:end - first]
        for t in range(end - first):
            verdicts[t] = screened(alphas[t], alpha_j, gradients[t], gradient_j, labels[t], y_j,
                                   diagonal[t], diag_j, np.float64(entries[t]), C, eps,
                                   first + t == j)
        if lane_max(verdicts) < 2.0:  # every candidate refused: each 1 is a request
            asked += int(lane_sum(verdicts))
        else:
            hopeful, asked = marked_taker(verdicts, end - first, asked)
            for t in range(hopeful, end - first):  # judged decides from there on
                verdicts[t] = judged(alphas[t], alpha_j, gradients[t], gradient_j, labels[t],
                                     y_j, diagonal[t], diag_j, np.float64(entries[t]), C, eps,
                                     first + t == j)
            taker, asked = marked_taker(verdicts[hopeful:], end - first - hopeful, asked)
            if taker >= 0:
                return first + hopeful + taker, asked
    return -1, asked


@jit_callee
def first_listed_taker(y, alpha, gradient, diag, row, j, listed, C, eps, marks):
    """first_taker over the samples ``listed`` (positions, in that order): Platt's loop over the
    non-bound samples, marked from their gathered values in blocks of FIRST_BLOCK, then twice as
    many each time up to SCAN_BLOCK, so that a partner found early costs few verdicts."""
    most = min(SCAN_BLOCK, marks.shape[0])
    asked, first, block = 0, 0, min(FIRST_BLOCK, most)
    alpha_j, gradient_j, y_j, diag_j = alpha[j], gradient[j], y[j], diag[j]
    while first < listed.shape[0]:
        end = min(listed.shape[0], first + block)
        for t in range(end - first):
            i = listed[first + t]
            marks[t] = screened(alpha[i], alpha_j, gradient[i], gradient_j, y[i], y_j, diag[i],
                                diag_j, np.float64(row[i]), C, eps, i == j)
        verdicts = marks[:end - first]
        if lane_max(verdicts) < 2.0:  # every candidate refused: each 1 is a request
            asked += int(lane_sum(verdicts))
        else:
            hopeful, asked = marked_taker(verdicts, end - first, asked)
            for t in range(hopeful, end - first):  # judged decides from there on
                i = listed[first + t]
                verdicts[t] = judged(alpha[i], alpha_j, gradient[i], gradient_j, y[i], y_j,
                                     diag[i], diag_j, np.float64(row[i]), C, eps, i == j)
            taker, asked = marked_taker(verdicts[hopeful:], end - first - hopeful, asked)
            if taker >= 0:
                return listed[first + hopeful + taker], asked
        first, block = end, min(2 * block, most)
    return -1, asked


@jit_callee
def next_examined(provider, s):
    """Platt 1998's outer loop as a stateful selection: the next pair examineExample steps on.
    Passes alternate between all samples and the non-bound ones (Keerthi et al. 2001: I0; Mod 1
    leaves the pass as soon as I0 is optimal, Mod 2 steps on the maximal violating pair until
    I0 is optimal instead) until a pass over all samples changes nothing. Returns the pair with
    its new alphas and Q_ij (and an empty row), or i = -1 to stop."""
    # one name per statement: numba drops a closure-inlined function's writes into an array that
    # it does not see alias an argument, and it does not see through a tuple (``a, b = s.a, s.b``)
    ints = s.ints
    reals = s.reals
    y = s.y
    alpha = s.alpha
    gradient = s.gradient
    free = s.free
    work = s.work
    rule, n, C, tol, eps = ints[RULE], y.shape[0], reals[C_], reals[TOL], reals[EPS]
    no_row = provider.cache.pool[:0]
    no_pair = (-1, -1, 0.0, 0.0, 0.0, no_row)

    def entry(a, b):
        """kernel_entry(provider, a, b), a cached entry served inline (the row of a holds b, else
        the row of b holds a; rows up to date, no swap pending), counted the same. Straight-line
        up to the branch, which calls out only on a miss (see the note above)."""
        ready = ((provider.settings[CACHING] == 1) & (provider.cache.state[PENDING] == 0))
        batches = provider.cache.state[BATCHES]
        length_a, length_b = provider.cache.length[a], provider.cache.length[b]
        in_a = ready & (length_a > b) & (provider.cache.row_batches[a] == batches)
        in_b = ready & (length_a <= b) & (length_b > a) & (provider.cache.row_batches[b] == batches)
        at = (provider.cache.offset[a] + b) * in_a + (provider.cache.offset[b] + a) * in_b
        value = np.float64(provider.cache.pool[at])
        provider.counters[REQUESTED] += in_a | in_b
        if in_a | in_b:
            return value
        return kernel_entry(provider, a, b)

    def support_gradient(k):
        """G_k from the support vectors (gradient_from_support_vectors), the cached row inlined."""
        n_sv, total = ints[SV_END], 0.0
        if n_sv > 0:
            values = cached_kernel_row(provider.cache, provider.settings, provider.counters, k,
                                       n_sv)
            if values.shape[0] == 0:
                values = requested_row(provider, k, n_sv)
            for t in range(n_sv):
                total += alpha[t] * values[t]
        return total - 1.0

    def offer(k):
        """Let F_k lower b_up (k in I_up) or raise b_low (k in I_low) (Keerthi et al. 2001,
        eq. 12)."""
        f = y[k] * gradient[k]
        if in_up_set(y[k], alpha[k], C) and f < reals[B_UP]:
            reals[B_UP], ints[I_UP] = f, k
        if in_low_set(y[k], alpha[k], C) and f > reals[B_LOW]:
            reals[B_LOW], ints[I_LOW] = f, k

    def propose(i, j):
        """The first half of Platt's takeStep, as a working-set answer: the pair with its new
        alphas and Q_ij, or no pair when i == j, when L == H (no kernel entry requested, as in
        takeStep) or when alpha_j would move by less than eps (relative). Only Q_ij is
        requested before the progress test, so any other refused pair costs one kernel entry,
        read first from the row of the sample a scan holds fixed (Platt's examined j, Keerthi's
        i_up or i_low: i), which the scan then reads in order."""
        if i == j or segment_is_a_point(alpha[i], alpha[j], y[i], y[j], C):
            return no_pair
        q_ij = entry(j, i) if rule == PLATT else entry(i, j)
        new_i, new_j = solve_pair(alpha[i], alpha[j], gradient[i], gradient[j], y[i], y[j],
                                  provider.diag[i], provider.diag[j], q_ij, C)
        new_i, new_j = snap_to_bounds(new_i, C), snap_to_bounds(new_j, C)
        if not moves_enough(alpha[j], new_j, eps):  # Platt 1998, takeStep
            return no_pair
        return i, j, new_i, new_j, q_ij, no_row

    def whole_row(j):
        """Whether entry(j, i) reads every i from the cached row of j (up to date, n entries)."""
        return ((provider.settings[CACHING] == 1) & (provider.cache.state[PENDING] == 0)
                & (provider.cache.length[j] >= n)
                & (provider.cache.row_batches[j] == provider.cache.state[BATCHES]))

    def i0_optimal():
        """b_up > b_low - 2 tol (Keerthi et al. 2001, eq. 13, over I0 and the samples
        examined)."""
        return reals[B_UP] > reals[B_LOW] - 2.0 * tol

    def platt_partner(i2):
        """Platt 1998, examineExample: the first partner that takes a step, by the second-choice
        heuristic max |E1 - E2| over non-bound samples, then the non-bound samples, then all
        samples, each from a random start; E_k = y_k G_k - b. The non-bound samples are read
        from their list (``free``, in position order: the same choices as a walk over all
        positions, and the walk from a random start resumes at the first listed one at or after
        it)."""
        threshold = reals[THRESHOLD]
        error_2 = y[i2] * gradient[i2] - threshold
        r2 = error_2 * y[i2]
        if not ((r2 < -tol and alpha[i2] < C) or (r2 > tol and alpha[i2] > 0.0)):
            return no_pair
        best, best_gap, n_free = -1, -1.0, ints[N_FREE]
        for t in range(n_free):
            k = free[t]
            gap = abs(y[k] * gradient[k] - threshold - error_2)
            if gap > best_gap:
                best, best_gap = k, gap
        for stage in range(3):  # the heuristic's choice, the non-bound samples, all samples
            start = np.random.randint(n) if stage > 0 else 0
            if stage == 2 and whole_row(i2):  # all samples, judged in blocks (first_taker)
                at = provider.cache.offset[i2]
                row = provider.cache.pool[at:at + n]
                for lo, hi in ((start, n), (0, start)):
                    taker, asked = first_taker(y, alpha, gradient, provider.diag, row, i2, lo,
                                               hi, C, eps, work)
                    provider.counters[REQUESTED] += asked
                    if taker >= 0:
                        return propose(taker, i2)
                return no_pair
            first = np.searchsorted(free[:n_free], start)
            if stage == 1 and n_free > 1 and whole_row(i2):
                # the non-bound samples: the first proposed, the others judged in blocks
                head = first % n_free
                pair = propose(free[head], i2)
                if pair[0] >= 0:
                    return pair
                at = provider.cache.offset[i2]
                row = provider.cache.pool[at:at + n]
                for listed in (free[head + 1:n_free], free[:head]):
                    taker, asked = first_listed_taker(y, alpha, gradient, provider.diag, row, i2,
                                                      listed, C, eps, work)
                    provider.counters[REQUESTED] += asked
                    if taker >= 0:
                        return propose(taker, i2)
                continue
            for offset in range((1 if n_free > 1 else 0) if stage == 0
                                else (n_free if stage == 1 else n)):
                if stage == 0:
                    i1 = best
                elif stage == 1:
                    i1 = free[(first + offset) % n_free]
                else:
                    i1 = (start + offset) % n
                pair = propose(i1, i2)
                if pair[0] >= 0:
                    return pair
        return no_pair

    def keerthi_partner(i2):
        """Keerthi et al. 2001, examineExample: a bound sample's G from the support vectors,
        which may move the threshold of its set (eq. 12, ``offer``); a violator of b_low <= F_i2
        + 2 tol or F_i2 <= b_up + 2 tol is paired with i_low or i_up (for i2 in I0 the better of
        the two)."""
        if i2 >= ints[ACTIVE]:
            gradient[i2] = support_gradient(i2)
            offer(i2)
        f2 = y[i2] * gradient[i2]
        b_up, b_low = reals[B_UP], reals[B_LOW]
        i1 = -1
        if in_up_set(y[i2], alpha[i2], C) and b_low - f2 > 2.0 * tol:
            i1 = ints[I_LOW]
        if in_low_set(y[i2], alpha[i2], C) and f2 - b_up > 2.0 * tol:
            i1 = ints[I_UP]
        if i1 < 0:
            return -1, i2
        if i2 < ints[ACTIVE]:
            i1 = ints[I_LOW] if b_low - f2 > f2 - b_up else ints[I_UP]
        return i1, i2

    while True:
        examine_all = ints[EXAMINE_ALL] == 1
        if not examine_all and rule == MOD2:
            if not i0_optimal():  # Modification 2: step on (i_up, i_low)
                pair = propose(ints[I_UP], ints[I_LOW])
                if pair[0] >= 0:
                    return pair
        else:
            leaves_when_optimal = not examine_all and rule == MOD1
            done = ints[STEPPED] == 1 and leaves_when_optimal and i0_optimal()
            ints[STEPPED] = 0
            # a pass examines every sample, or I0 = [0, ACTIVE) for Keerthi's Modification 1
            # (the block layout keeps I0 a prefix)
            while not done and ints[CURSOR] < (n if examine_all or rule == PLATT
                                               else ints[ACTIVE]):
                p = ints[CURSOR]
                if rule == PLATT and not examine_all:  # the next non-bound sample from p on
                    at = np.searchsorted(free[:ints[N_FREE]], p)
                    p = free[at] if at < ints[N_FREE] else n
                    if p == n:
                        ints[CURSOR] = n
                        continue
                ints[CURSOR] = p + 1
                if rule == PLATT:
                    pair = platt_partner(p)
                else:
                    i1, i2 = keerthi_partner(p)
                    pair = propose(i1, i2) if i1 >= 0 else no_pair
                if pair[0] >= 0:
                    ints[CHANGED] += 1
                    ints[STEPPED] = 1
                    return pair
                done = leaves_when_optimal and i0_optimal()
            if done:
                ints[CHANGED] = 0  # Modification 1: I0 is optimal, check every sample next
        if examine_all:
            if ints[CHANGED] == 0:
                return no_pair
            ints[EXAMINE_ALL] = 0
        else:
            ints[EXAMINE_ALL] = 1 if ints[CHANGED] == 0 else 0
        ints[CHANGED] = 0
        ints[CURSOR] = 0


@jit_callee
def list_free(free, ints, alpha, C, i, j):
    """Keep Platt's list of the free samples' positions (free[:ints[N_FREE]], increasing) after a
    step on (i, j): each enters or leaves it as its alpha became free or bound. Platt's
    examineExample reads the non-bound samples there, in what was a walk over all n samples
    (a4a at C 2, gamma 0.05: 163,693 steps on 4,781 samples)."""
    for k in (i, j):
        count = ints[N_FREE]
        at = np.searchsorted(free[:count], k)
        listed = at < count and free[at] == k
        if is_free(alpha[k], C) and not listed:
            for t in range(count, at, -1):
                free[t] = free[t - 1]
            free[at] = k
            ints[N_FREE] = count + 1
        elif listed and not is_free(alpha[k], C):
            for t in range(at, count - 1):
                free[t] = free[t + 1]
            ints[N_FREE] = count - 1


@njit(cache=True, inline="always")
def platt_threshold(s, i1, i2):
    """Platt 1998, eqs. (20)-(21): b1 = E1 + y1 (a1' - a1) k11 + y2 (a2' - a2) k12 + b is the b
    that zeroes E1 after the step, i.e. F1 = y1 G1 of the updated gradient (b2 likewise)."""
    C = s.reals[C_]
    b1, b2 = s.y[i1] * s.gradient[i1], s.y[i2] * s.gradient[i2]
    if is_free(s.alpha[i1], C):
        s.reals[THRESHOLD] = b1
    elif is_free(s.alpha[i2], C):
        s.reals[THRESHOLD] = b2
    else:
        s.reals[THRESHOLD] = 0.5 * (b1 + b2)


# ---------------------------------------------------------------- Keerthi et al. 2001

@jit_callee
def refresh_thresholds(s, i1, i2):
    """(b_up, i_up) and (b_low, i_low) over I0 + {i1, i2} (Keerthi et al. 2001, takeStep), the
    first position holding each extreme of I0, then i1 and i2 where strictly better.

    I0 = [0, ACTIVE) holds free samples only, members of I_up and I_low both: its extremes of F
    are taken in loops that vectorize (lane_max over F and -F in the state's work vector), then
    looked up; a branching loop over I0 took 45 % of smo_mod2's fit on a7a."""
    y, gradient, C = s.y, s.gradient, s.reals[C_]
    n_free = s.ints[ACTIVE]
    f, negated = s.work[:n_free], s.work[n_free:2 * n_free]
    for t in range(n_free):
        f[t] = y[t] * gradient[t]
        negated[t] = -f[t]
    b_up, b_low = -lane_max(negated), lane_max(f)
    i_up = first_index_of(f, b_up) if n_free > 0 else -1
    i_low = first_index_of(f, b_low) if n_free > 0 else -1
    for k in (i1, i2):
        f_k = y[k] * gradient[k]
        if in_up_set(y[k], s.alpha[k], C) and f_k < b_up:
            b_up, i_up = f_k, k
        if in_low_set(y[k], s.alpha[k], C) and f_k > b_low:
            b_low, i_low = f_k, k
    s.reals[B_UP], s.reals[B_LOW] = b_up, b_low
    if i_up >= 0:
        s.ints[I_UP] = i_up
    if i_low >= 0:
        s.ints[I_LOW] = i_low


# ---------------------------------------------------------------- Python: validate and shape

ALPHA_INIT_RULE = ("alpha_init must have one entry per sample, lie in [0, C] and satisfy "
                   "y'alpha = 0; scale a previous solution by min(1, C / max(alpha)) to keep it "
                   "feasible")


@njit(cache=True)
def is_feasible(alpha, y, C):
    """Whether alpha lies in [0, C] and satisfies y'alpha = 0, both to rounding."""
    low, high, total, balance = np.inf, -np.inf, 0.0, 0.0
    for t in range(alpha.shape[0]):
        low, high = min(low, alpha[t]), max(high, alpha[t])
        total += alpha[t]
        balance += y[t] * alpha[t]
    return low >= 0.0 and high <= C * (1 + 1e-12) and abs(balance) <= 1e-9 * max(1.0, total)


def feasible_start(alpha_init, y, C):
    """The starting alpha: zeros, or a checked copy of ``alpha_init``."""
    if alpha_init is None:
        return np.zeros(y.shape[0])
    alpha = np.array(alpha_init, dtype=np.float64)
    if alpha.shape != y.shape or not is_feasible(alpha, y, C):
        raise ValueError(f"{ALPHA_INIT_RULE} (got shape {alpha.shape} for {y.shape[0]} samples, "
                         f"C={C})")
    return np.minimum(alpha, C)


def state_settings(params, variant):
    """Validated ``(rule, shrinking, shrinking rules, C, tol, eps, max_iter)`` of ``variant``."""
    C, tol, max_iter = smo_settings(params)
    rule = VARIANTS[variant]
    eps = float(params.get("eps", PLATT_EPS if rule == PLATT else KEERTHI_EPS))
    rules = params.get("shrinking_rules", "libsvm283")
    if rules not in SHRINKING_RULES:
        raise ValueError(f"unknown shrinking_rules {rules!r}; "
                         f"choose one of {list(SHRINKING_RULES)}")
    return (rule, int(bool(params.get("shrinking", True))), SHRINKING_RULES[rules], C, tol, eps,
            max_iter)


@njit(cache=True)
def new_state(labels, alpha, rule, shrinking, shrink_rules, C, tol, eps, curve):
    """The Solver's state at the start of working-set rule ``rule`` from ``alpha`` (the state
    keeps ``labels`` and ``alpha`` as they are and permutes them with the positions), recording
    checkpoints into ``curve``."""
    n = labels.shape[0]
    ints = np.zeros(16, dtype=np.int64)
    ints[RULE], ints[SHRINK_RULES], ints[SHRINKING] = rule, shrink_rules, shrinking
    ints[ACTIVE] = n if rule == WSS2 or rule == PLATT else 0  # Keerthi: I0 is empty at alpha = 0
    ints[COUNTER] = min(n, SHRINK_PERIOD) + 1
    ints[EXAMINE_ALL] = 1
    ints[PARALLEL_FROM] = n + 1  # serial, unless solver_loop says otherwise
    ints[I_UP], ints[I_LOW] = np.argmax(labels > 0), np.argmax(labels < 0)
    # b_up = -1 at a sample of class 1, b_low = 1 of class 2 (Keerthi et al. 2001, initialisation)
    reals = np.array([C, tol, eps, -1.0, 1.0, 0.0])
    work = np.empty(2 * n + 2 * (n // PARALLEL_CHUNK + 1))  # see block_maxima
    return State(labels, alpha, -np.ones(n), np.zeros(n), ints, reals,
                 np.zeros(2, dtype=np.int64), work, curve,
                 np.zeros(n if rule == PLATT else 0, dtype=np.int64))


def initial_state(y, alpha_init, settings, curve):
    """The Solver's state at the start, for ``settings`` of state_settings (labels copied:
    shrinking permutes them), recording checkpoints into ``curve``."""
    rule, shrinking, shrink_rules, C, tol, eps, _ = settings
    labels = np.array(y, dtype=np.float64)
    alpha = (feasible_start(alpha_init, labels, C) if rule == WSS2
             else np.zeros(labels.shape[0]))
    return new_state(labels, alpha, rule, shrinking, shrink_rules, C, tol, eps, curve)


def smo_result(variant, tol, alpha, bias, iterations, converged, objective, violation, requested,
               computed, computing, requests, checkpoints=None, threads_used=None):
    """The SolverResult of a variant's solve (``alpha`` in sample order): wss2 stops at
    m(a) - M(a) < tol, which bounds every sample's violation at the bias by tol; Keerthi's
    b_low <= b_up + 2 tol and Platt's |r_i| <= tol at his own threshold by 2 tol. wss2's trace
    splits kernel_requested by purpose and says how many iterations ran on one thread and on all
    (``iterations_by_threads``, FitThreads.counts); the trace's ``curve`` holds the
    ``checkpoints``, its ``row_computing_cycles`` the ``computing`` cycles (the provider's
    computing_cycles)."""
    trace = {"row_computing_cycles": computing}
    if variant == "smo_wss2":
        trace |= {"requested_gradient_bar": int(requests[GRADIENT_BAR]),
                  "requested_reconstruction": int(requests[RECONSTRUCTION]),
                  "requested_working_set": int(requested - sum(requests)),
                  "iterations_by_threads": threads_used}
    return make_result(alpha, bias, iterations, OPTIMAL if converged else MAX_ITER, objective,
                       violation, tol if variant == "smo_wss2" else 2.0 * tol, requested,
                       computed, checkpoints, **trace)


def wss2_parallel_from():
    """The active set length from which wss2's passes run in parallel: WSS2_PARALLEL_MIN on more
    than one thread, never on one (read at each solve, so a test may lower it)."""
    return wss2_parallel.WSS2_PARALLEL_MIN if get_num_threads() > 1 else np.iinfo(np.int64).max


def wss2_compiled_size(n_train):
    """smo_wss2's SolverPlugin.compiled_size: a fit of ``n_train`` samples runs the loop with
    parallel passes from wss2_parallel_from() samples on (solver_loop_for), which a smaller fit
    never compiles; below that, a fit of any size runs the serial loop."""
    parallel_from = wss2_parallel_from()
    return parallel_from if parallel_from <= n_train else 1


@njit(cache=True)
def may_split(provider, parallel_from):
    """Whether a pass or a row of ``provider``'s problem may be split among threads: its length
    reaches ``parallel_from`` (wss2's passes, wss2_parallel_from) or the provider's shortest row
    filled in parallel."""
    return min(parallel_from, provider.settings[PARALLEL_MIN]) <= provider.signs.shape[0]


@njit(cache=True)
def any_may_split(providers, parallel_from):
    """may_split for some provider of a typed list, read in compiled code (unboxing each from
    Python to ask cost a grid search's fits over 21 Q-matrices more than the solver's Python
    wrapper; svmbench.kernels.typed_lists)."""
    for k in range(len(providers)):
        if may_split(providers[k], parallel_from):
            return True
    return False


def fit_threads(split):
    """The FitThreads of a solve: numba's thread count, governed while the fit runs, when a
    pass or a row may be ``split`` among threads (may_split), else one."""
    return FitThreads(get_num_threads() if split else 1)


def solve(provider, y, params, variant):
    check_two_classes(y)
    check_labels_folded(provider, y)
    settings = state_settings(params, variant)
    checkpoints = Checkpoints()
    state = initial_state(y, params.get("alpha_init"), settings, checkpoints.array)
    initial_gradient(provider, state)
    parallel_from = wss2_parallel_from()
    loop = solver_loop_for(settings[0], y.shape[0], parallel_from)
    threads = fit_threads(get_num_threads() > 1 and may_split(provider, parallel_from))
    try:
        alpha, bias, iterations, converged, objective, violation = loop(
            provider, state, settings[-1], int(params.get("seed", 0)), parallel_from,
            threads.array)
    finally:
        threads.close()
    alpha_by_sample = np.empty_like(alpha)
    alpha_by_sample[provider.perm] = alpha
    return smo_result(variant, state.reals[TOL], alpha_by_sample, bias, iterations, converged,
                      objective, violation, *counts(provider), computing_cycles(provider),
                      state.requests, checkpoints, threads.counts(threads.array[ONE_THREAD:]))


# columns of solve_each's integer results
SIZE, ITERATIONS, CONVERGED, REQUESTED_, COMPUTED_, COMPUTING_, REQUESTS = range(7)
THREAD_ITERATIONS = REQUESTS + 2


@njit(cache=True, nogil=True)
def solve_each(providers, alpha_init, shrinking, shrink_rules, C, tol, eps, max_iter, seed,
               parallel_from, threads):
    """wss2's solve for every Q-matrix of a typed list, in one call (LIBSVM's svm_train runs its
    one-vs-one class pairs so): the labels are each provider's signs, ``alpha_init`` the
    problems' starting alphas one after the other (empty: zeros). Returns alpha in sample order
    (one problem after the other), per problem (bias, objective, violation), and the integers
    SIZE .. REQUESTS + 1 (the last two: the solver's requests for G_bar and reconstruction),
    then the iterations run on one thread and on all (``threads``: solver_loop)."""
    # a loop, not a list comprehension: with one over a typed List, numba 0.68.1 dropped later
    # stores into a namedtuple's array field in this function (like numba issue 7595)
    sizes = np.empty(len(providers), dtype=np.int64)
    for k in range(len(providers)):
        sizes[k] = providers[k].signs.shape[0]
    alpha_out = np.empty(sizes.sum())
    reals = np.empty((len(providers), 3))
    ints = np.zeros((len(providers), THREAD_ITERATIONS + 2), dtype=np.int64)
    start = 0
    for k in range(len(providers)):
        provider, n = providers[k], sizes[k]
        labels = provider.signs.copy()
        if not (np.any(labels > 0) and np.any(labels < 0)):
            raise ValueError(TWO_SIGNS)
        alpha = np.zeros(n)
        if alpha_init.shape[0] > 0:
            alpha = alpha_init[start:start + n].copy()
            if not is_feasible(alpha, labels, C):
                raise ValueError(ALPHA_INIT_RULE)
            alpha = np.minimum(alpha, C)
        s = new_state(labels, alpha, WSS2, shrinking, shrink_rules, C, tol, eps, new_curve(0))
        # s holds its arrays until its last read below; the loop gets them borrowed (see the
        # note before solver_loop), and its alpha is read through s, not from the loop's result
        lent_state = borrowed(s)
        initial_gradient(provider, lent_state)
        before = threads[ONE_THREAD:].copy()
        _, bias, iterations, converged, objective, violation = wss2_loop(
            provider, lent_state, max_iter, seed, parallel_from, threads)
        ints[k, THREAD_ITERATIONS:] = threads[ONE_THREAD:] - before
        for p in range(n):
            alpha_out[start + provider.perm[p]] = s.alpha[p]
        reals[k, 0], reals[k, 1], reals[k, 2] = bias, objective, violation
        ints[k, SIZE], ints[k, ITERATIONS], ints[k, CONVERGED] = n, iterations, converged
        ints[k, REQUESTED_] = provider.counters[REQUESTED]
        ints[k, COMPUTED_] = provider.counters[COMPUTED]
        ints[k, COMPUTING_] = provider.counters[COMPUTING_CYCLES]
        ints[k, REQUESTS:THREAD_ITERATIONS] = s.requests
        start += n
    return alpha_out, reals, ints


@register_many("smo_wss2")
def solve_wss2_many(providers, params, alpha_init=None):
    """solve_wss2 over each Q-matrix of a numba typed list (the class pairs of one fit,
    svmbench.kernels.qmatrix.make_precomputed_qmatrices) in one compiled call, the labels being
    each Q-matrix's signs; ``alpha_init``: the problems' starting alphas one after the other
    (None: zeros). The same results as ``solve`` on each, without Python between them."""
    _, shrinking, shrink_rules, C, tol, eps, max_iter = state_settings(params, "smo_wss2")
    parallel_from = wss2_parallel_from()
    threads = fit_threads(get_num_threads() > 1 and any_may_split(providers, parallel_from))
    try:
        alpha, reals, ints = solve_each(
            providers, np.zeros(0) if alpha_init is None else np.asarray(alpha_init, dtype=float),
            shrinking, shrink_rules, C, tol, eps, max_iter, int(params.get("seed", 0)),
            parallel_from, threads.array)
    finally:
        threads.close()
    ends = np.cumsum(ints[:, SIZE]).tolist()
    # Python numbers, read pair by pair (numpy scalars cost more than the rest of a result)
    return [smo_result("smo_wss2", tol, alpha[end - counts_[SIZE]:end], bias, counts_[ITERATIONS],
                       counts_[CONVERGED], objective, violation, counts_[REQUESTED_],
                       counts_[COMPUTED_], counts_[COMPUTING_], counts_[REQUESTS:THREAD_ITERATIONS],
                       threads_used=threads.counts(counts_[THREAD_ITERATIONS:]))
            for end, (bias, objective, violation), counts_
            in zip(ends, reals.tolist(), ints.tolist())]


@register_solver("smo_wss2")
def solve_wss2(provider, y, params):
    """LIBSVM 2.83's SMO. Params: ``C``, ``tol`` (maximal violation, LIBSVM's eps, default 1e-3),
    ``shrinking`` (default True), ``shrinking_rules`` ("libsvm283", default, or "libsvm3"),
    ``max_iter`` (-1: no limit), ``alpha_init`` (optional warm start: a feasible alpha,
    0 <= alpha <= C and y'alpha = 0)."""
    return solve(provider, y, params, "smo_wss2")


@register_solver("smo_platt")
def solve_platt(provider, y, params):
    """Platt's SMO (1998). Params: ``C``, ``tol`` (KKT tolerance on y E, default 1e-3), ``eps``
    (takeStep's minimal relative change, default 1e-3), ``max_iter`` (-1: no limit), ``seed``
    (random starts, default 0)."""
    return solve(provider, y, params, "smo_platt")


@register_solver("smo_mod1")
def solve_mod1(provider, y, params):
    """Keerthi et al. (2001) Modification 1. Params: ``C``, ``tol`` (stop at b_low <= b_up + 2 tol,
    default 1e-3), ``eps`` (takeStep's minimal relative change, default 1e-12), ``max_iter``
    (-1: no limit)."""
    return solve(provider, y, params, "smo_mod1")


@register_solver("smo_mod2")
def solve_mod2(provider, y, params):
    """Keerthi et al. (2001) Modification 2. Params as ``smo_mod1``."""
    return solve(provider, y, params, "smo_mod2")


# the settings of SMOSVC, in its signature order; ``variant`` picks the solver
SETTINGS = {"variant": "wss2", "C": 1.0, "kernel": "rbf", "gamma": "scale", "coef0": 0.0,
            "degree": 3, "tol": 1e-3, "shrinking": True, "cache_mb": 100, "max_iter": -1,
            "warm_start": False, "shrinking_rules": "libsvm283", "sample_order": "given"}
READS = ("C", "tol", "shrinking", "shrinking_rules", "max_iter")


def smo_spec(solve_variant, variant, **declared):
    """The spec of SMO variant ``variant`` (solver ``smo_<variant>``), trained by SMOSVC."""
    return SolverPlugin(
        solve=solve_variant, name=f"smo_{variant}", model="SMOSVC",
        params={**SETTINGS, "variant": variant}, selects=("variant",), reads=READS,
        harness={"gamma": HARNESS_GAMMA}, **declared)


OTHERS_UNCONFIGURED = ("warm_start", "sample_order", "shrinking_rules")
SPECS = (
    smo_spec(solve_wss2, "wss2", unconfigured=("warm_start", "sample_order"),
             compiled_size=wss2_compiled_size, summary=(
        "LIBSVM 2.83's solver: Fan-Chen-Lin (2005) second-order working set, shrinking, LRU "
        "cache; C-SVM with bias. shrinking_rules libsvm3: LIBSVM 3.x shrinking, unshrink and "
        "gradient reconstruction.")),
    smo_spec(solve_platt, "platt", unconfigured=OTHERS_UNCONFIGURED, summary=(
        "Platt's SMO (1998) with its heuristics; C-SVM with bias."), capabilities=Capabilities(
        max_train=24692, size_reason=(
            "cost cap, measured: w7a (24,692 samples, C 4, gamma 0.05) 116 s CPU; ijcnn1 "
            "(49,990, C 32, gamma 2) not done after 10 min CPU"))),
    smo_spec(solve_mod1, "mod1", unconfigured=OTHERS_UNCONFIGURED, summary=(
        "Keerthi et al. (2001) SMO Modification 1 (two thresholds b_up / b_low); C-SVM with "
        "bias.")),
    smo_spec(solve_mod2, "mod2", unconfigured=OTHERS_UNCONFIGURED, summary=(
        "Keerthi et al. (2001) SMO Modification 2 (maximal violating pair); C-SVM with bias.")),
    # LIBSVM's solver with Joachims' xi-alpha bound on the leave-one-out error (XiAlphaSVC)
    SolverPlugin(
        solve=solve_wss2, name="csvm_xialpha", model="XiAlphaSVC", summary=(
            "C-SVM (LIBSVM's algorithm, smo_wss2) that also records Joachims' (2000) xi-alpha "
            "bound on its leave-one-out error: the SVM(BEST) / SVM(LOO) baselines of "
            "multiplicative-rho-svm Table 2."),
        params={"C": 1.0, "kernel": "rbf", "gamma": "spread", "coef0": 0.0, "degree": 3,
                "tol": 1e-3, "shrinking": True, "cache_mb": 100, "max_iter": -1},
        reads=READS, unconfigured=("coef0", "degree"),
        capabilities=Capabilities(multiclass=False, kernels=("rbf",), kernel_reason=(
            "the xi-alpha bound's R^2 is that of an RBF kernel"))),
)
