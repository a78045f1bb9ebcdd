"""What every solver returns, and the registry (SOLVERS) that maps config names to solve functions,
which the solver modules fill and svmbench.solvers.plugins.get_solver looks up.

A solver is a function ``solve(provider, y, params) -> SolverResult``: ``provider`` is a
:class:`svmbench.kernels.provider.KernelProvider` over the training points, ``y`` the labels in
{-1, +1} (float64), ``params`` a dict of the solver's own settings. Counting kernel entries is the
provider's job; timing is the caller's. A solver may also have a form over a list of problems
(``register_many``), compiled end to end, for the many small class pairs of a grid search.

Status (docs/DESIGN.md "Run record"): a solver says why it stopped (the ``reason`` it passes to
:func:`finish`: its own optimality test, its own published rule that is no KKT test, ``max_iter``,
a proof that no solution exists, no further progress, or a closed form) and measures the KKT
violation of the point it returns (:mod:`svmbench.solvers.kkt`); :func:`decide_status` turns the
two into the status it *claims*, and :data:`STOP_RECORDED` into the recorded ``stop``. The
recorded status is not the solver's: the harness's referee (svmbench.referee) measures the
returned point itself and decides it, refuting a claim of convergence it does not measure.
"""

from dataclasses import dataclass, field

import numpy as np

from svmbench.kernels.provider import computing_cycles, counts
from svmbench.statuses import (  # noqa: F401  (re-exported: solvers and callers import them here)
    CLOSED_FORM,
    CONVERGED,
    FAULTS,
    INFEASIBLE,
    MAX_ITER,
    OPTIMAL,
    OWN_RULE,
    SEVERITY,
    STALLED,
    STATUSES,
    STOP_RECORDED,
    STOPS,
)


def decide_status(stop, violation, tolerance):
    """``converged`` when the returned point satisfies KKT to ``tolerance``, whatever the solver
    believed; else why it stopped, where a passed optimality test that KKT contradicts is
    ``stalled`` (e.g. a step-size rule refusing the steps still needed), while a published rule
    that is no KKT test (``own_rule``) or a ``closed_form`` is what it is."""
    if stop not in STOPS:
        raise ValueError(f"unknown stop reason {stop!r}; one of {STOPS}")
    if violation <= tolerance:
        return CONVERGED
    return STALLED if stop == OPTIMAL else stop


def worst_status(statuses):
    """One status for several trainings (e.g. the class pairs of one fit): the worst, in the order
    of STATUSES (converged < closed_form < own_rule < max_iter < stalled < infeasible), then
    anything else (e.g. "failed:<reason>")."""
    return max(statuses, key=lambda status: SEVERITY.get(status, len(SEVERITY)))


def resolve_max_iter(max_iter, unlimited=2**62):
    """``max_iter < 0`` means no limit (scikit-learn's ``max_iter=-1``)."""
    return unlimited if max_iter < 0 else max_iter


@dataclass
class SolverResult:
    alpha: np.ndarray  # dual variables, indexed like the training samples
    bias: float  # decision f(x) = sum_i alpha_i y_i k(x_i, x) + bias
    iterations: int
    status: str  # one of STATUSES, from decide_status
    objective: float  # dual objective 1/2 a'Qa - 1'a (minimisation form) where defined
    kkt_violation: float  # largest KKT violation at the returned (alpha, bias), svmbench.solvers.kkt
    tolerance: float  # the violation below which the status is "converged"
    kernel_requested: int
    kernel_computed: int
    trace: dict = field(default_factory=dict)  # optional per-iteration arrays (objective, ...)
    stop: str = OWN_RULE  # why it stopped, as recorded: a value of STOP_RECORDED
    reason: str = OPTIMAL  # why it stopped, as the solver told finish: one of STOPS


def finish(provider, alpha, bias, iterations, reason, objective, violation, tolerance,
           checkpoints=None, **trace):
    """Build the SolverResult: alpha back in sample order, kernel counts read from the provider,
    the status from ``reason`` (why the solver stopped, one of STOPS) and the measured KKT
    ``violation``; the trace's ``curve`` holds the ``checkpoints`` (svmbench.solvers.checkpoints.
    Checkpoints) when the solver recorded them.

    ``alpha`` is indexed by provider position (solvers that shrink swap positions). The trace's
    ``row_computing_cycles`` is the provider's computing_cycles: the time the counted entries took.
    """
    alpha_by_sample = np.empty_like(alpha)
    alpha_by_sample[provider.perm] = alpha
    return make_result(alpha_by_sample, bias, iterations, reason, objective, violation, tolerance,
                       *counts(provider), checkpoints,
                       row_computing_cycles=computing_cycles(provider), **trace)


def make_result(alpha, bias, iterations, reason, objective, violation, tolerance, requested,
                computed, checkpoints=None, **trace):
    """The SolverResult of ``alpha`` in sample order, its status decided from ``reason`` and the
    measured ``violation``, with the ``checkpoints``' curve in the trace."""
    if checkpoints is not None:
        trace["curve"] = checkpoints.points(STOP_RECORDED[reason])
    return SolverResult(
        alpha=alpha,
        bias=float(bias),
        iterations=int(iterations),
        status=decide_status(reason, violation, tolerance),
        objective=float(objective),
        kkt_violation=float(violation),
        tolerance=float(tolerance),
        kernel_requested=int(requested),
        kernel_computed=int(computed),
        trace=trace,
        stop=STOP_RECORDED[reason],
        reason=reason,
    )


SOLVERS = {}


def register_solver(name):
    """Decorator: make ``solve`` available under ``name`` in configs and estimators."""

    def register(solve):
        if name in SOLVERS:
            raise ValueError(f"a solver named {name!r} is already registered")
        SOLVERS[name] = solve
        return solve

    return register


MANY_SOLVERS = {}


def register_many(name):
    """Decorator: ``solve_many(providers, params, alpha_init=None) -> [SolverResult]`` solves the
    problems of a numba typed list of Q-matrices (svmbench.kernels.qmatrix.
    make_precomputed_qmatrices; labels = their signs) in one compiled call, with the results of
    solver ``name`` on each; the estimators use it for the class pairs of a kept Gram matrix."""

    def register(solve_many):
        MANY_SOLVERS[name] = solve_many
        return solve_many

    return register

