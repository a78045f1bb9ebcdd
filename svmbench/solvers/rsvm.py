"""RSVM (gs-svm-tnn2008 §VI, eq. 29): min sum xi subject to ||w||^2 <= Delta0^-2, Delta0 from GS-SVM.

Solved, as the paper notes RSVM and SVM coincide for the matching C, as a soft-margin C-SVM whose C
is found by bisection on log2 C so that ||w(C)||^2 = Delta0^-2 (||w(C)||^2 grows with C):

1. GS-SVM on the same data and kernel gives alpha0 and Delta0^-2 = a0'Q a0, a0 = alpha0 * y (eq. 28);
2. bracket the target by doubling / halving C from 1, then bisect on log2 C until
   |~||w||^2 - target| <= bisection_tol * target (or the bracket is narrower than 2^-30).

The soft-margin solver is ``params["inner_solver"]`` (default ``smo_wss2``), taken from the
registry. Every training shares one provider (its kernel cache too); the result's kernel counts
and iterations are the totals of GS-SVM, every soft-margin training and the ||w||^2 evaluations.
If the target is out of reach within C in [2^-30, 2^30] (e.g. above the hard-margin ||w||^2), the
closest end is returned and ``trace["target_reached"]`` is False.
"""

from dataclasses import replace

import numpy as np

from svmbench.kernels.fixed_order import ordered_dot
from svmbench.kernels.provider import computing_cycles, counts, kernel_row, swap_positions
from svmbench.solvers.base import register_solver
from svmbench.solvers.plugins import get_solver
from svmbench.specs import HARNESS_GAMMA, SolverPlugin

LOG2_C_LIMIT = 30
LOG2_C_RESOLUTION = 2.0 ** -30


def restore_positions(provider):
    """Undo a solver's shrinking swaps so that position p holds training sample p again."""
    where = np.argsort(provider.perm)  # where[i] = position of sample i
    for p in range(provider.perm.shape[0]):
        q = where[p]
        if q != p:
            moved = provider.perm[p]
            swap_positions(provider, p, q)
            where[p], where[moved] = p, q


def w_norm2(provider, alpha):
    """||w||^2 = sum_ij a_i a_j K_ij with a = alpha * y (gs-svm-tnn2008 eq. 28), = alpha'Q alpha
    for the C-SVC Q-matrix; alpha indexed by position, rows counted."""
    n = alpha.shape[0]
    return float(sum(alpha[i] * ordered_dot(kernel_row(provider, i, n).astype(np.float64), alpha,
                                            n) for i in np.flatnonzero(alpha)))


def bracket(train, target):
    """(low, high) in log2 C with ||w(low)||^2 < target <= ||w(high)||^2, found by doubling or
    halving C from 1; None when C in [2^-30, 2^30] does not reach the target."""
    log2_C = 0
    step = 1 if train(0) < target else -1
    while abs(log2_C) < LOG2_C_LIMIT:
        neighbour = log2_C + step
        if (train(neighbour) < target) != (train(log2_C) < target):
            return tuple(sorted((log2_C, neighbour)))
        log2_C = neighbour
    return None


@register_solver("rsvm")
def solve(provider, y, params):
    """Params: ``bisection_tol`` (relative, default 1e-3), ``inner_solver`` (default "smo_wss2")
    and the inner solver's ``tol``, ``shrinking``, ``max_iter``."""
    soft_margin = get_solver(params.get("inner_solver", "smo_wss2"))
    inner_params = {k: params[k] for k in ("tol", "shrinking", "max_iter") if k in params}
    tolerance = float(params.get("bisection_tol", 1e-3))
    gs = get_solver("gs_svm")(provider, y, {})
    target = w_norm2(provider, gs.alpha)
    trainings = {}  # log2 C -> (result, ||w||^2)

    def train(log2_C):
        if log2_C not in trainings:
            result = soft_margin(provider, y, {**inner_params, "C": 2.0 ** log2_C})
            restore_positions(provider)
            trainings[log2_C] = result, w_norm2(provider, result.alpha)
        return trainings[log2_C][1]

    def reached():
        return any(abs(w - target) <= tolerance * target for _, w in trainings.values())

    span = bracket(train, target)
    if span is not None:
        low, high = span
        while not reached() and high - low > LOG2_C_RESOLUTION:
            middle = (low + high) / 2
            low, high = (middle, high) if train(middle) < target else (low, middle)
    best = min(trainings, key=lambda log2_C: abs(trainings[log2_C][1] - target))
    result, best_w_norm2 = trainings[best]
    requested, computed = counts(provider)
    order = sorted(trainings)
    return replace(
        result,
        iterations=gs.iterations + sum(r.iterations for r, _ in trainings.values()),
        kernel_requested=requested,
        kernel_computed=computed,
        trace={
            "C": 2.0 ** best,
            "w_norm2": best_w_norm2,
            "target_w_norm2": target,
            "target_reached": abs(best_w_norm2 - target) <= tolerance * target,
            "log2_C_tried": np.array(order),
            "w_norm2_tried": np.array([trainings[c][1] for c in order]),
            "row_computing_cycles": computing_cycles(provider),
        },
    )


SPECS = (SolverPlugin(
    solve=solve, name="rsvm", model="RSVC", summary=(
        "RSVM, gs-svm-tnn2008 §VI eq. 29: soft-margin SVM whose C is bisected (on log2 C) until "
        "||w||^2 equals GS-SVM's ||w||^2 on the same data and gamma (relative bisection_tol)."),
    params={"kernel": "rbf", "gamma": "scale", "coef0": 0.0, "degree": 3, "cache_mb": 100,
            "bisection_tol": 1e-3, "inner_solver": "smo_wss2", "tol": 1e-3, "shrinking": True,
            "max_iter": -1},
    harness={"gamma": HARNESS_GAMMA}),)
