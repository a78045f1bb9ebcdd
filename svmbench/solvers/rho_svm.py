"""Multiplicative updates for the hard-margin rho-SVM (multiplicative-rho-svm, Tsang & Kwok 2007).

The dual (eq. 2) is min alpha' Q alpha over the probability simplex, Q_ij = y_i y_j k(x_i, x_j)
(the "csvc" Q-matrix); f_t(x) = sum_i alpha_i^(t) y_i k(x_i, x) (eq. 3), no bias. Solvers:

- ``rho_svm``: Algorithm 1 (adaptive learning rate eta_t from the 1-D problem (9)); it also keeps
  the ensemble sum_t eta_t f_t / sum_t eta_t (§3.2) as one coefficient vector, updated in place;
- ``eg_fixed``: the fixed-learning-rate multiplicative update of Cristianini et al. (1999).

``Q alpha`` is read row by row from the Q-matrix (O(m^2) per product, counted by the provider), or,
with ``rank > 0``, from a pivoted incomplete Cholesky factor G of Q (Q ~ G G', §3.3), O(m r); the
low-rank model then predicts with the same approximate kernel, as an expansion over the r pivots.
"""

import numpy as np
from numba import njit
from scipy.linalg import solve_triangular

from svmbench.capabilities import Capabilities
from svmbench.kernels.borrowed import borrowed
from svmbench.kernels.compile_cache import jit_callee
from svmbench.kernels.fixed_order import ordered_dot
from svmbench.kernels.provider import kernel_row, kernel_row_once
from svmbench.kernels.qmatrix import check_labels_folded
from svmbench.solvers.base import CLOSED_FORM, MAX_ITER, OWN_RULE, finish, register_solver
from svmbench.solvers.checkpoints import Checkpoints, close, due, note
from svmbench.specs import SolverPlugin

OUTPUTS = ("last", "ensemble", "first")  # rho-SVM f_{T+1}, the ensemble (§3.2), Parzen window f_1
NEWTON_STEPS = 200
# the relative gap eg_fixed's returned point is judged at: rho_svm's eps (multiplicative-rho-svm §4)
EG_TOLERANCE = 0.005


@njit(cache=True)
def pivoted_cholesky(provider, rank, tol):
    """G (m x r), Q ~ G G', by pivoted incomplete Cholesky (Fine & Scheinberg 2001) on counted
    Q rows; stops at ``rank`` columns or when the residual trace falls to ``tol`` * trace(Q).
    Returns (G, the pivots in order, residual trace / trace(Q))."""
    m = provider.diag.shape[0]
    residual = provider.diag.copy()
    total = residual.sum()
    factor = np.zeros((m, rank))
    pivots = np.empty(rank, dtype=np.int64)
    row = np.empty(m)
    columns = 0
    while columns < rank:
        pivot = np.argmax(residual)
        if residual[pivot] <= tol * total:
            break
        kernel_row_once(provider, pivot, m, row)
        root = np.sqrt(residual[pivot])
        for i in range(m):
            value = row[i]
            for c in range(columns):
                value -= factor[i, c] * factor[pivot, c]
            factor[i, columns] = value / root
        for i in range(m):
            residual[i] = max(residual[i] - factor[i, columns] ** 2, 0.0)
        residual[pivot] = 0.0
        pivots[columns] = pivot
        columns += 1
    return factor[:, :columns].copy(), pivots[:columns].copy(), residual.sum() / total


@jit_callee
def q_times(provider, factor, v, out):
    """out = Q v: from cached Q rows, or from the low-rank factor G when it has columns."""
    m = v.shape[0]
    if factor.shape[1] > 0:
        width = factor.shape[1]
        projection = np.zeros(width)  # G'v, each entry summed over i ascending
        for i in range(m):
            for c in range(width):
                projection[c] += factor[i, c] * v[i]
        for i in range(m):
            out[i] = ordered_dot(factor[i], projection, width)
        return
    for i in range(m):
        row = kernel_row(provider, i, m)
        total = 0.0
        for j in range(m):
            total += row[j] * v[j]
        out[i] = total


@jit_callee
def eta_slope(alpha, margins, rho, eta):
    """(phi'(eta), phi''(eta)) of phi(eta) = ln Z_t(eta) + rho eta (eq. 9), Z_t = sum_i alpha_i
    exp(-eta y_i f_t(x_i)); exponents shifted by the smallest margin so nothing overflows."""
    low = margins.min()
    weight_sum, first, second = 0.0, 0.0, 0.0
    for i in range(alpha.shape[0]):
        w = alpha[i] * np.exp(-eta * (margins[i] - low))
        weight_sum += w
        first += w * margins[i]
        second += w * margins[i] * margins[i]
    mean = first / weight_sum
    return rho - mean, max(second / weight_sum - mean * mean, 0.0)


@njit(cache=True)
def log_objective(alpha, margins, rho, eta):
    """phi(eta) = ln(Z_t(eta) exp(rho eta)) (eq. 9), computed stably."""
    low = margins.min()
    total = 0.0
    for i in range(alpha.shape[0]):
        total += alpha[i] * np.exp(-eta * (margins[i] - low))
    return np.log(total) - eta * low + rho * eta


@njit(cache=True)
def best_eta(alpha, margins, rho):
    """argmin over eta of Z_t(eta) exp(rho eta) (eq. 9; convex): Newton's method kept inside a
    sign-change bracket, bisecting when a Newton step leaves it; to machine precision.
    Negative when the minimiser is negative (phi'(0) > 0), 0 when eta = 0 is optimal, +inf when
    phi keeps decreasing (every margin above rho)."""
    slope, _ = eta_slope(alpha, margins, rho, 0.0)
    if slope > 0.0:
        return -1.0
    if slope == 0.0:
        return 0.0
    if margins.min() >= rho:
        return np.inf
    low, high = 0.0, 1.0 / max(margins.max() - margins.min(), 1e-300)
    while eta_slope(alpha, margins, rho, high)[0] < 0.0:
        low, high = high, 2.0 * high
    eta = 0.5 * (low + high)
    for _ in range(NEWTON_STEPS):
        slope, curvature = eta_slope(alpha, margins, rho, eta)
        if slope == 0.0:
            return eta
        if slope < 0.0:
            low = eta
        else:
            high = eta
        step = eta - slope / curvature if curvature > 0.0 else eta
        if not (low < step < high):  # outside the bracket, or no curvature: bisect
            step = 0.5 * (low + high)
        if step == eta or high - low <= 4e-16 * high:
            return step
        eta = step
    return eta


@jit_callee
def exponentiated_step(alpha, margins, eta, out):
    """out_i = alpha_i exp(-eta y_i f_t(x_i)) / Z_t(eta) (eq. 8)."""
    low = margins.min()
    total = 0.0
    for i in range(alpha.shape[0]):
        out[i] = alpha[i] * np.exp(-eta * (margins[i] - low))
        total += out[i]
    out /= total


@njit(cache=True)
def relative_gap(rhobar, margins):
    """(rhobar - min_i (Q alpha)_i) / rhobar: 0 at the optimum, where every margin is >= a'Qa
    (KKT (5) of min a'Qa on the simplex)."""
    return (rhobar - margins.min()) / rhobar


@njit(cache=True)
def rho_svm_loop(given, factor, eps_min, eps_first, max_iter, curve):
    """Algorithm 1 of multiplicative-rho-svm. Returns the last alpha, the ensemble coefficients
    sum_t eta_t alpha_t / sum_t eta_t, traces of eta_t, rho_t, rhobar_t (accepted steps; rhobar
    has one more entry, the final objective), the margins Q alpha of the last alpha, of the
    ensemble and of the first alpha (1/m: the Parzen window), and whether it stopped by its own
    rule (step 8 or eta_t = 0). Checkpoints into ``curve``: rhobar and the relative KKT gap
    (rhobar - min margin) / rhobar against accepted steps."""
    provider = borrowed(given)  # the caller holds its arrays (see kernels.borrowed)
    m = provider.diag.shape[0]
    alpha = np.full(m, 1.0 / m)  # step 2
    margins = np.empty(m)  # y_i f_t(x_i) = (Q alpha_t)_i
    q_times(provider, factor, alpha, margins)
    rhobar = ordered_dot(alpha, margins, m)
    first_margins = margins.copy()
    ensemble, ensemble_margins = np.zeros(m), np.zeros(m)
    etas, rhos, rhobars = [0.0][:0], [0.0][:0], [rhobar]  # [0.0][:0]: an empty list of floats
    trial, trial_margins = np.empty(m), np.empty(m)
    eps = eps_first
    converged = False
    while len(etas) != max_iter:
        if due(curve, len(etas)):
            note(curve, len(etas), provider.counters, rhobar, relative_gap(rhobar, margins))
        rho = rhobar / (1.0 + eps)  # step 4
        eta = best_eta(alpha, margins, rho)  # step 5
        if eta == 0.0:
            converged = True
            break
        if eta > 0.0:
            if eta == np.inf:  # every margin exceeds rho: all weight on the smallest margins
                trial[:] = np.where(margins == margins.min(), alpha, 0.0)
                trial /= trial.sum()
            else:
                exponentiated_step(alpha, margins, eta, trial)  # step 6
            q_times(provider, factor, trial, trial_margins)
            trial_rhobar = ordered_dot(trial, trial_margins, m)
            if trial_rhobar <= rhobar:  # step 7: accept
                if eta == np.inf:
                    eta = 1.0 / eps_min  # weight of this member in the ensemble; a rare corner
                ensemble += eta * alpha
                ensemble_margins += eta * margins
                etas.append(eta)
                rhos.append(rho)
                alpha, trial = trial, alpha
                margins, trial_margins = trial_margins, margins
                rhobar = trial_rhobar
                rhobars.append(rhobar)
                continue
        eps *= 0.5  # steps 5 and 7: overshoot or negative eta
        if eps < eps_min:  # step 8
            converged = True
            break
    close(curve, len(etas), provider.counters, rhobar, relative_gap(rhobar, margins))
    eta_sum = np.sum(np.array(etas))
    if eta_sum > 0.0:
        ensemble /= eta_sum
        ensemble_margins /= eta_sum
    else:
        ensemble[:] = 1.0 / m
        ensemble_margins[:] = first_margins
    return (alpha, ensemble, np.array(etas), np.array(rhos), np.array(rhobars), margins,
            ensemble_margins, first_margins, converged)


@njit(cache=True)
def eg_fixed_loop(given, factor, eta, max_iter):
    """Cristianini, Campbell & Shawe-Taylor (1999): multiplicative updates of the hard-margin dual
    without bias, max W(a) = 1'a - a'Qa / 2, a_i <- a_i exp(eta (1 - y_i f(x_i))), from a = 1/m.
    Its solution is the rho-SVM's up to scale (alpha = a / 1'a), so the trace holds the rho-SVM
    objective of a / 1'a; ``overshoot`` is the first iteration whose step lowered W (-1: none).
    Returns a / 1'a, its margins Q a / 1'a, the trace and ``overshoot``."""
    provider = borrowed(given)  # the caller holds its arrays (see kernels.borrowed)
    m = provider.diag.shape[0]
    a = np.full(m, 1.0 / m)
    margins = np.empty(m)
    q_times(provider, factor, a, margins)
    objective = np.full(max_iter + 1, np.nan)
    total = a.sum()
    objective[0] = ordered_dot(a, margins, m) / (total * total)
    dual = total - 0.5 * ordered_dot(a, margins, m)
    overshoot = -1
    previous = np.empty(m)
    for t in range(1, max_iter + 1):
        previous[:] = a
        for i in range(m):
            a[i] *= np.exp(min(eta * (1.0 - margins[i]), 700.0))
        total = a.sum()
        if not 0.0 < total < np.inf:  # diverged after an overshoot: the trace ends here (NaN)
            a[:] = previous
            break
        q_times(provider, factor, a, margins)
        objective[t] = ordered_dot(a, margins, m) / (total * total)
        new_dual = total - 0.5 * ordered_dot(a, margins, m)
        if overshoot < 0 and new_dual < dual:
            overshoot = t
        dual = new_dual
    total = a.sum()  # margins = Q a here (after a divergence: of the restored a)
    return a / total, margins / total, objective, overshoot


def _low_rank_factor(provider, params):
    """(G, pivots, relative residual trace) for ``rank`` > 0, else an empty factor: exact Q rows."""
    rank = int(params.get("rank", 0))
    if rank < 0:
        raise ValueError(f"rank must be >= 0 (got {rank}); 0 uses exact Q rows")
    m = provider.diag.shape[0]
    if rank == 0 or rank >= m:
        return np.zeros((m, 0)), np.zeros(0, dtype=np.int64), 0.0
    return pivoted_cholesky(provider, rank, float(params.get("rank_tol", 1e-12)))


def on_pivots(alpha, factor, pivots, y):
    """The low-rank model's own out-of-sample extension (Nystroem): f(x) = sum_i alpha_i y_i
    G_i . L^-1 k(x_P, x), L = diag(y_P) G_P the Cholesky factor of K on the pivots P, written as
    an expansion over the pivots. Returns alpha' with alpha'_p y_p = (L^-T G' alpha)_p on the
    pivots and 0 elsewhere; on the training points it reproduces G G' exactly."""
    if factor.shape[1] == 0:
        return alpha
    pivot_factor = y[pivots, None] * factor[pivots]
    coefficients = solve_triangular(pivot_factor, factor.T @ alpha, lower=True, trans="T")
    expansion = np.zeros_like(alpha)
    expansion[pivots] = coefficients * y[pivots]
    return expansion


@register_solver("rho_svm")
def solve_rho_svm(provider, y, params):
    """Algorithm 1; ``output`` chooses which classifier ``alpha`` holds: "last" (the rho-SVM),
    "ensemble" (§3.2) or "first" (the Parzen window f_1); the trace holds all three."""
    check_labels_folded(provider, y)
    output = params.get("output", "last")
    if output not in OUTPUTS:
        raise ValueError(f"unknown rho-SVM output {output!r}; choose one of {OUTPUTS}")
    eps, eps_first = float(params.get("eps", 0.005)), float(params.get("eps_first", 0.1))
    if not 0.0 < eps <= eps_first < 1.0:
        raise ValueError(f"need 0 < eps <= eps_first < 1 (got eps={eps}, eps_first={eps_first})")
    checkpoints = Checkpoints()  # the low-rank factor's time and rows count
    factor, pivots, lowrank_error = _low_rank_factor(provider, params)
    alpha, ensemble, etas, rhos, rhobars, margins, ensemble_margins, first_margins, converged = \
        rho_svm_loop(provider, factor, eps, eps_first, int(params.get("max_iter", -1)),
                     checkpoints.array)
    first = np.full_like(alpha, 1.0 / alpha.shape[0])
    returned, returned_margins = {"last": (alpha, margins), "ensemble": (ensemble, ensemble_margins),
                                  "first": (first, first_margins)}[output]
    # KKT (5) of min a'Qa on the simplex at the returned point: every margin (Qa)_i >= a'Qa; the
    # relative gap is checked against eps. Step 8 (eps_t < eps) is the paper's own rule, no KKT
    # test: a stop by it short of the gap is "own_rule", the Parzen window f_1 "closed_form"
    objective = ordered_dot(returned, returned_margins, returned.shape[0])
    reason = CLOSED_FORM if output == "first" else OWN_RULE if converged else MAX_ITER
    return finish(provider, on_pivots(returned, factor, pivots, y), 0.0,
                  0 if output == "first" else etas.shape[0], reason, objective,
                  relative_gap(objective, returned_margins), eps, checkpoints, eta=etas,
                  rho=rhos, rhobar=rhobars, alpha_last=alpha, alpha_ensemble=ensemble,
                  margins=margins, rank=factor.shape[1], lowrank_trace_error=lowrank_error,
                  simplex_point=returned[np.argsort(provider.perm)])


@register_solver("eg_fixed")
def solve_eg_fixed(provider, y, params):
    check_labels_folded(provider, y)
    eta = float(params.get("eta", 0.01))
    max_iter = int(params.get("max_iter", 1000))
    if not eta > 0 or max_iter < 1:
        raise ValueError(f"eg_fixed needs eta > 0 and max_iter >= 1 (got {eta}, {max_iter})")
    factor, pivots, lowrank_error = _low_rank_factor(provider, params)
    alpha, margins, objective, overshoot = eg_fixed_loop(provider, factor, eta, max_iter)
    # a fixed number of updates is the published rule (no stopping test): "own_rule", the returned
    # point judged by the relative KKT gap (5) as the rho-SVM's
    value = ordered_dot(alpha, margins, alpha.shape[0])
    return finish(provider, on_pivots(alpha, factor, pivots, y), 0.0, max_iter, OWN_RULE,
                  value, relative_gap(value, margins), EG_TOLERANCE, objective_trace=objective,
                  overshoot=overshoot, rank=factor.shape[1], lowrank_trace_error=lowrank_error,
                  simplex_point=alpha[np.argsort(provider.perm)])


# the settings of RhoSVC, in its signature order; ``output`` picks the algorithm
RHO_SETTINGS = {"output": "last", "kernel": "rbf", "gamma": "spread", "coef0": 0.0, "degree": 3,
                "eps": 0.005, "eps_first": 0.1, "rank": 0, "cache_mb": 100, "max_iter": -1}
RHO_CAP = ("cost cap, set, not measured at this size (one committed a9a fit, 32,561 samples: "
           "{seconds} s wall)")


def rho_spec(name, output, selects=("output",), unconfigured=("coef0", "degree"), **declared):
    """The spec of a RhoSVC algorithm: solver rho_svm with ``output`` (and ``declared``)."""
    return SolverPlugin(
        solve=solve_rho_svm, name=name, model="RhoSVC", problem="rho_simplex",
        params={**RHO_SETTINGS, "output": output, **declared.pop("params", {})},
        selects=selects, unconfigured=unconfigured, **declared)


RHO = "rho-SVM by multiplicative updates with adaptive eta (multiplicative-rho-svm Algorithm 1)"
RHO_KEYS = ("gamma \"spread\": 1 / mean squared distance to the data mean (paper §4.2). rank 0: "
            "exact Q rows; rank r > 0: pivoted incomplete Cholesky Q ~ G G' of rank r (§3.3).")
SPECS = (
    rho_spec("rho_svm", "last", summary=f"{RHO}: the last hypothesis f_(T+1). {RHO_KEYS}",
             capabilities=Capabilities(max_train=10000, size_reason=RHO_CAP.format(seconds=87))),
    rho_spec("rho_ensemble", "ensemble", summary=(
        f"{RHO}: the ensemble sum_t eta_t f_t / sum_t eta_t (§3.2). {RHO_KEYS}"),
        capabilities=Capabilities(max_train=10000, size_reason=RHO_CAP.format(seconds=101))),
    rho_spec("parzen", "first", params={"max_iter": 0}, selects=("output", "max_iter"),
             unconfigured=("coef0", "degree", "eps", "eps_first"), summary=(
                 "The Parzen window classifier f_1 (alpha = 1/m), the first member of the "
                 "rho-SVM ensemble (multiplicative-rho-svm §3.1); no iterations. gamma "
                 "\"spread\" and rank as rho_svm.")),
    SolverPlugin(
        solve=solve_eg_fixed, name="eg_fixed", model="EGFixedSVC", problem="rho_simplex",
        summary=("Fixed-learning-rate multiplicative updates (Cristianini et al. 1999) on the "
                 "hard-margin dual, the baseline of multiplicative-rho-svm Fig. 1 (eta in "
                 "0.005, 0.01, 0.02, 0.04)."),
        params={"eta": 0.01, "kernel": "rbf", "gamma": "spread", "coef0": 0.0, "degree": 3,
                "rank": 0, "cache_mb": 100, "max_iter": 1000},
        unconfigured=("coef0", "degree")),
)
