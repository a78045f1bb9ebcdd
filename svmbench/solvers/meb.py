"""Core Vector Machine, Frank-Wolfe and modified Frank-Wolfe on the L2-SVM dual (frank-wolfe-svm
eq. 12): minimise R(alpha) = alpha' Q alpha over the unit simplex, Q the ``"l2svm"`` Q-matrix.

Shared state, all indexed by provider position: ``alpha``; ``grad[p] = (Q alpha)_p`` (half the
gradient of R); the core set I_k = positions [0, core) (kept a prefix by swaps, as LIBSVM keeps its
active set); ``R = alpha' Q alpha``. ``grad`` is kept over positions [0, tracked): every position
when the furthest point is searched over all points, only the core set under the probabilistic
speed-up (a sample of ``sample_size`` points, Theorem 1), whose points outside the core set are
scored by one Q row over the core set. The sampled stopping test holds for the sample only (as in
libCVM); ``verify_stop`` re-checks it over all points before stopping, so that eq. (41) holds.

With ``Delta2 = max_i Q_ii`` (= Q_11 for a normalized kernel, eq. 17; any constant for the others,
§4.4), the squared distance of point i from the centre is gamma^2(i) = Delta2 + R - 2 grad_i
(eq. 20), the squared radius r^2 = Delta2 - R (Alg. 2 step 5), and every algorithm stops when
gamma^2(i*) <= (1 + eps)^2 r^2 (Alg. 1 step 8), i.e. 2 (R - grad_i*) <= ((1 + eps)^2 - 1) r^2,
which bounds the objective within eq. (41) of the optimum.
"""

import numpy as np
from numba import njit

from svmbench.capabilities import NORMALIZED_KERNELS, Capabilities
from svmbench.kernels.borrowed import borrowed
from svmbench.kernels.compile_cache import jit_callee
from svmbench.kernels.fixed_order import ordered_dot
from svmbench.kernels.provider import kernel_row, swap_positions
from svmbench.kernels.qmatrix import check_labels_folded
from svmbench.solvers.base import MAX_ITER, OPTIMAL, OWN_RULE, finish, register_solver
from svmbench.solvers.checkpoints import Checkpoints, close, note
from svmbench.specs import HarnessDefault, SolverPlugin

INITIAL_POINTS = 20  # p, the random initial MEB (frank-wolfe-svm §3, libCVM)
SMO_EPS = 1e-3  # CVM's reduced QP: 2 (max gap) <= SMO_EPS r^2 when a point enters (libCVM SMO_EPS)
SAMPLE_SIZE = 59  # probabilistic speed-up (Theorem 1: the top 5% with probability 0.95)
# trace[...] rows
TRACE_RADIUS2, TRACE_OBJECTIVE, TRACE_CORE = 0, 1, 2
# algorithms
CVM, FW, MFW = 0, 1, 2
TRACE_LENGTH = 100_000  # iterations traced by default


@jit_callee
def _swap(q, alpha, grad, a, b):
    swap_positions(q, a, b, True)
    alpha[a], alpha[b] = alpha[b], alpha[a]
    grad[a], grad[b] = grad[b], grad[a]


@jit_callee
def _tracked(n, core, full_search):
    return n if full_search else core


@jit_callee
def _score(q, alpha, core, position):
    """(Q alpha)_position from the Q row of ``position`` over the core set."""
    row = kernel_row(q, position, core)
    total = 0.0
    for p in range(core):
        total += alpha[p] * row[p]
    return total


@jit_callee
def _furthest(q, alpha, grad, core, tracked, draws):
    """(position, grad) of the point furthest from the centre (smallest grad, eq. 28): over all
    points when ``draws`` >= n, else over ``draws`` random points."""
    n = alpha.shape[0]
    best, best_grad = -1, np.inf
    everywhere = draws >= n
    for draw in range(n if everywhere else draws):
        p = draw if everywhere else np.random.randint(n)
        value = grad[p] if p < tracked else _score(q, alpha, core, p)
        if value < best_grad:
            best, best_grad = p, value
    return best, best_grad


@jit_callee
def _nearest_in_core(alpha, grad, core):
    """Core position with alpha > 0 nearest the centre (largest grad): the away vertex j*."""
    best, best_grad = -1, -np.inf
    for p in range(core):
        if alpha[p] > 0.0 and grad[p] > best_grad:
            best, best_grad = p, grad[p]
    return best


@jit_callee
def _enter(q, alpha, grad, core, position, position_grad):
    """Put ``position`` at the end of the core prefix; returns the new core size."""
    _swap(q, alpha, grad, core, position)
    grad[core] = position_grad
    return core + 1


@jit_callee
def _toward(q, alpha, grad, core, tracked, position, step):
    """alpha <- (1 - step) alpha + step e_position (eq. 24 for step >= 0, the away step of eq. 25
    for step < 0); grad follows with one Q row."""
    row = kernel_row(q, position, tracked)
    for p in range(core):
        alpha[p] *= 1.0 - step
    alpha[position] += step
    for p in range(tracked):
        grad[p] = (1.0 - step) * grad[p] + step * row[p]


@jit_callee
def frank_wolfe_step(q, alpha, grad, core, tracked, i, R):
    """Step toward vertex e_i (i in the core set) with eq. (29)'s step on a normalized kernel,
    the exact line search on any kernel (§4.4); returns the new R."""
    grad_i = grad[i]
    step = min(1.0, (R - grad_i) / (R - 2.0 * grad_i + q.diag[i]))
    _toward(q, alpha, grad, core, tracked, i, step)
    return (1.0 - step) ** 2 * R + 2.0 * step * (1.0 - step) * grad_i + step * step * q.diag[i]


@njit(cache=True)
def away_step(q, alpha, grad, core, tracked, j, R):
    """Away step from core position j (eq. 31); a drop step when the step reaches the end of its
    interval alpha_j / (1 - alpha_j): j leaves the core set, moved to the end of the prefix.
    Returns (core, R, 1 if dropped else 0)."""
    grad_j = grad[j]
    longest = alpha[j] / (1.0 - alpha[j])
    step = (grad_j - R) / (R - 2.0 * grad_j + q.diag[j])
    dropped = step >= longest
    step = min(step, longest)
    _toward(q, alpha, grad, core, tracked, j, -step)
    R = (1.0 + step) ** 2 * R - 2.0 * step * (1.0 + step) * grad_j + step * step * q.diag[j]
    if not dropped:
        return core, R, 0
    alpha[j] = 0.0
    _swap(q, alpha, grad, j, core - 1)
    return core - 1, R, 1


@jit_callee
def _simplex_smo(q, alpha, grad, core, tracked, R, delta2, eps_stop, max_steps):
    """SMO on min alpha'Qalpha over the simplex of the core set (CVM's reduced QP, eq. 21),
    warm-started from ``alpha``: weight moves to the furthest point i from the point j with
    alpha_j > 0 of largest second-order gain (grad_j - grad_i)^2 / curvature (Fan et al. 2005),
    until 2 (max_{alpha_j > 0} grad_j - grad_i) <= ((1 + eps)^2 - 1) r^2. Returns (R, steps)."""
    steps = 0
    while steps < max_steps:
        i, nearest = 0, -np.inf
        for p in range(core):
            if grad[p] < grad[i]:
                i = p
            if alpha[p] > 0.0 and grad[p] > nearest:
                nearest = grad[p]
        if 2.0 * (nearest - grad[i]) <= eps_stop * (delta2 - R):
            break
        row_i = kernel_row(q, i, tracked)
        j, best_gain = -1, -1.0
        for p in range(core):
            gap = grad[p] - grad[i]
            if alpha[p] > 0.0 and gap > 0.0:
                gain = gap * gap / max(q.diag[i] + q.diag[p] - 2.0 * row_i[p], 1e-12)
                if gain > best_gain:
                    j, best_gain = p, gain
        gap = grad[j] - grad[i]
        curvature = max(q.diag[i] + q.diag[j] - 2.0 * row_i[j], 1e-12)
        row_j = kernel_row(q, j, tracked)
        t = min(gap / curvature, alpha[j])
        alpha[i] += t
        alpha[j] = alpha[j] - t if t < alpha[j] else 0.0
        R += -2.0 * t * gap + t * t * curvature
        for p in range(tracked):
            grad[p] += t * (row_i[p] - row_j[p])
        steps += 1
    return R, steps


@jit_callee
def _initialise(q, alpha, grad, initial_points, full_search, delta2, eps_stop, max_steps):
    """Random initial MEB of ``initial_points`` points solved by the simplex SMO; the core set
    C_0 keeps the points with positive weight (§3, libCVM). Returns (core, R)."""
    n = alpha.shape[0]
    core = min(initial_points, n)
    for p in range(core):
        _swap(q, alpha, grad, p, p + np.random.randint(n - p))
    tracked = _tracked(n, core, full_search)
    for p in range(core):
        alpha[p] = 1.0 / core
    grad[:] = 0.0
    for p in range(core):
        row = kernel_row(q, p, tracked)
        for k in range(tracked):
            grad[k] += row[k] / core
    R = 0.0
    for p in range(core):
        R += alpha[p] * grad[p]
    R, _ = _simplex_smo(q, alpha, grad, core, tracked, R, delta2, eps_stop, max_steps)
    p = 0
    while p < core:
        if alpha[p] > 0.0:
            p += 1
        else:
            core -= 1
            _swap(q, alpha, grad, p, core)
    return core, R


def make_run(algorithm):
    """The loop of Algorithm 1 (CVM), 2 (FW) or 3 (MFW), ``algorithm`` a constant of the compiled
    code: numba prunes the other algorithms' branches before it types them, so that a fit
    compiles its own steps only (RUNS: one compiled loop per algorithm)."""

    @njit(cache=True)
    def run(given, eps, smo_eps, full_search, sample_size, verify_stop, initial_points, seed,
            max_iter, inner_max_steps, trace, curve):
        """The loop of the algorithm. Returns (alpha, R, iterations, converged, inner_steps, drops,
        violation): ``violation`` is the last stopping value delta_plus, against (1 + eps)^2 - 1,
        over the points searched (all, or the sample), which the checkpoints in ``curve`` record
        beside R."""
        q = borrowed(given)  # the caller holds its arrays (see kernels.borrowed)
        np.random.seed(seed)
        n = q.diag.shape[0]
        alpha = np.zeros(n)
        grad = np.zeros(n)
        delta2 = q.diag.max()
        eps_stop = (1.0 + eps) ** 2 - 1.0
        core, R = _initialise(q, alpha, grad, initial_points, full_search, delta2, eps_stop,
                              inner_max_steps)
        inner_steps, drops, iterations, converged = 0, 0, 0, False
        while True:
            tracked = _tracked(n, core, full_search)
            i, grad_i = _furthest(q, alpha, grad, core, tracked, n if full_search else sample_size)
            radius2 = delta2 - R
            if verify_stop and 2.0 * (R - grad_i) <= eps_stop * radius2:
                i, grad_i = _furthest(q, alpha, grad, core, tracked, n)
            if iterations < trace.shape[1]:
                trace[TRACE_RADIUS2, iterations] = radius2
                trace[TRACE_OBJECTIVE, iterations] = R
                trace[TRACE_CORE, iterations] = core
            delta_plus = 2.0 * (R - grad_i) / radius2
            note(curve, iterations, q.counters, R, delta_plus)
            if delta_plus <= eps_stop:
                converged = True
                break
            if iterations >= max_iter:
                break
            iterations += 1
            j = _nearest_in_core(alpha, grad, core) if algorithm == MFW else -1
            delta_minus = 2.0 * (grad[j] - R) / radius2 if j >= 0 else -np.inf
            if algorithm != CVM and delta_plus < delta_minus:  # eq. (32): the better ascent direction
                core, R, dropped = away_step(q, alpha, grad, core, tracked, j, R)
                drops += dropped
                continue
            entering = i >= core
            if entering:
                core = _enter(q, alpha, grad, core, i, grad_i)
                i = core - 1
            tracked = _tracked(n, core, full_search)
            if algorithm == CVM:
                # libCVM's looser SMO tolerance; the outer eps once a core point is the furthest
                inner_eps = max(smo_eps, eps_stop) if entering else eps_stop
                R, steps = _simplex_smo(q, alpha, grad, core, tracked, R, delta2, inner_eps,
                                        inner_max_steps)
                inner_steps += steps
            else:
                R = frank_wolfe_step(q, alpha, grad, core, tracked, i, R)
        close(curve, iterations, q.counters, R, delta_plus)
        return alpha, R, iterations, converged, inner_steps, drops, delta_plus

    return run


RUNS = {algorithm: make_run(algorithm) for algorithm in (CVM, FW, MFW)}


def _check_normalized(provider):
    diag = provider.diag
    if diag.max() - diag.min() > 1e-9 * diag.max():
        raise ValueError(
            "cvm needs a normalized kernel (k(x, x) constant, frank-wolfe-svm eq. 17, e.g. RBF): "
            f"here Q_ii ranges over [{diag.min():.6g}, {diag.max():.6g}]. Use algorithm=fw or "
            "algorithm=mfw, which solve eq. (12) with any kernel (§4.4)."
        )


def solve_meb(provider, y, params, algorithm):
    """Run ``algorithm`` (CVM, FW or MFW) on an ``"l2svm"`` Q-matrix provider."""
    check_labels_folded(provider, y)
    eps = float(params.get("eps", 1e-6))
    sample_size = int(params.get("sample_size", SAMPLE_SIZE))
    max_iter = int(params.get("max_iter", -1))
    if not eps > 0:
        raise ValueError(f"eps must be > 0 (got {eps})")
    if sample_size < 0:
        raise ValueError(f"sample_size must be >= 0 (got {sample_size}); 0 searches all points")
    if algorithm == CVM:
        _check_normalized(provider)
    n = provider.diag.shape[0]
    max_iter = 100 * n + 10**6 if max_iter < 0 else max_iter
    trace_length = int(params.get("trace_length", TRACE_LENGTH))
    trace = np.full((3, trace_length), np.nan)
    full_search = sample_size == 0 or sample_size >= n
    checkpoints = Checkpoints()
    alpha, R, iterations, converged, inner_steps, drops, violation = RUNS[algorithm](
        provider, eps, float(params.get("smo_eps", SMO_EPS)), full_search, sample_size,
        bool(params.get("verify_stop", False)),
        int(params.get("initial_points", INITIAL_POINTS)), int(params.get("seed", 0)), max_iter,
        10**7, trace, checkpoints.array,
    )
    kept = min(iterations + 1, trace_length)
    bias = ordered_dot(alpha, provider.signs[provider.perm], n)  # b = sum alpha_i y_i, eq. (9)
    checked_on_all = full_search or bool(params.get("verify_stop", False))
    # a stop tested on a sample of points only (Theorem 1's speed-up) is the algorithm's own rule,
    # no optimality test: the referee measures the gap over all points
    reason = MAX_ITER if not converged else OPTIMAL if checked_on_all else OWN_RULE
    return finish(
        provider, alpha, bias, iterations, reason, R, violation,
        (1.0 + eps) ** 2 - 1.0, checkpoints,
        stop_checked_on="all points" if checked_on_all else f"a sample of {sample_size} points",
        radius2=trace[TRACE_RADIUS2, :kept], objective_trace=trace[TRACE_OBJECTIVE, :kept],
        core_size=trace[TRACE_CORE, :kept], inner_steps=inner_steps, drops=drops,
        delta2=float(provider.diag.max()),
    )


@register_solver("cvm")
def solve_cvm(provider, y, params):
    """Core Vector Machine (frank-wolfe-svm Algorithm 1), reduced QP by the warm-started simplex SMO."""
    return solve_meb(provider, y, params, CVM)


@register_solver("fw")
def solve_fw(provider, y, params):
    """Frank-Wolfe (frank-wolfe-svm Algorithm 2), step size eq. (29)."""
    return solve_meb(provider, y, params, FW)


@register_solver("mfw")
def solve_mfw(provider, y, params):
    """Modified Frank-Wolfe (frank-wolfe-svm Algorithm 3): away and drop steps, eqs. (31)-(32)."""
    return solve_meb(provider, y, params, MFW)


# the settings of MEBSVC, in its signature order; ``variant`` picks the solver. sample_size 59:
# the furthest point among 59 random ones (Theorem 1), 0 searches all; verify_stop true re-checks
# a sampled stop over all points (eq. 41 then holds surely); initial_points: p, the random
# initial MEB; smo_eps (cvm only): the reduced QP's tolerance when a point enters (libCVM's
# SMO_EPS). cache_mb 200, where the other solvers have LIBSVM's 100: the MEB configs' value since
# they were first written (commit 20a4c165, no reason recorded), which every committed cvm / fw /
# mfw record's config hash holds (100 changes the quick leaderboard's, studies/cell_hashes.py);
# the estimator's default too, so that a cell and a Python fit get one value (the cache's size
# changes K1 and time; the solver reads the same rows)
SETTINGS = {"variant": "mfw", "C": 1.0, "kernel": "rbf", "gamma": "paper_default", "coef0": 0.0,
            "degree": 3, "eps": 1e-6, "smo_eps": 1e-3, "sample_size": 59, "verify_stop": False,
            "initial_points": 20, "seed": 0, "cache_mb": 200, "max_iter": -1}
# the harness's default where it differs from the estimator's (SETTINGS), with the reason
HARNESS = {
    "seed": HarnessDefault("${seed}", (
        "the solver's random draws follow the cell's seed (the repetitions: seed=0,1,2,3,4); "
        "the estimator's is a number")),
}
GAMMA_RULES = ("gamma: paper_default = 1/(2 sigma^2), sigma^2 = mean squared distance "
               "(frank-wolfe-svm §5.2.1); libcvm_default = 1/sigma^2; or a number.")


def meb_spec(solve_variant, variant, summary, **declared):
    """The spec of MEB algorithm ``variant`` (solver of the same name), trained by MEBSVC."""
    return SolverPlugin(
        solve=solve_variant, name=variant, model="MEBSVC", problem="meb",
        params={**SETTINGS, "variant": variant}, selects=("variant",), harness=HARNESS,
        reads=("eps", "smo_eps", "sample_size", "verify_stop", "initial_points", "seed",
               "max_iter"), summary=f"{summary} {GAMMA_RULES}", **declared)


SPECS = (
    meb_spec(solve_cvm, "cvm", (
        "Core Vector Machine (frank-wolfe-svm Algorithm 1): L2-SVM as a MEB, reduced QP by a "
        "warm-started simplex SMO; normalized kernels only."), capabilities=Capabilities(
            kernels=NORMALIZED_KERNELS,
            kernel_reason="CVM's MEB needs k(x, x) constant (frank-wolfe-svm §2)")),
    meb_spec(solve_fw, "fw", ("Frank-Wolfe (frank-wolfe-svm Algorithm 2) on the L2-SVM dual, eq. "
                              "(12); step size eq. (29)."), unconfigured=("smo_eps",)),
    meb_spec(solve_mfw, "mfw", ("Modified Frank-Wolfe (frank-wolfe-svm Algorithm 3): away and drop "
                                "steps, eqs. (31)-(32)."), unconfigured=("smo_eps",)),
)
