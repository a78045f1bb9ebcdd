"""What every solver returns, and the registry that maps config names to solvers.

A solver is a function ``solve(provider, y, params) -> SolverResult``: ``provider`` is a
:class:`svmbench.kernels.provider.KernelProvider` over the training points, ``y`` the labels in
{-1, +1} (float64), ``params`` a dict of the solver's own settings. Counting kernel entries is the
provider's job; timing is the caller's.
"""

from dataclasses import dataclass, field

import numpy as np

from svmbench.kernels.provider import counts

CONVERGED, MAX_ITER = "converged", "max_iter"


@dataclass
class SolverResult:
    alpha: np.ndarray  # dual variables, indexed like the training samples
    bias: float  # decision f(x) = sum_i alpha_i y_i k(x_i, x) + bias
    iterations: int
    status: str  # "converged" or "max_iter"
    objective: float  # dual objective 1/2 a'Qa - 1'a (minimisation form) where defined
    kernel_requested: int
    kernel_computed: int
    trace: dict = field(default_factory=dict)  # optional per-iteration arrays (objective, ...)


def finish(provider, alpha, bias, iterations, converged, objective, **trace):
    """Build the SolverResult: alpha back in sample order, kernel counts read from the provider.

    ``alpha`` is indexed by provider position (solvers that shrink swap positions).
    """
    requested, computed = counts(provider)
    alpha_by_sample = np.empty_like(alpha)
    alpha_by_sample[provider.perm] = alpha
    return SolverResult(
        alpha=alpha_by_sample,
        bias=float(bias),
        iterations=int(iterations),
        status=CONVERGED if converged else MAX_ITER,
        objective=float(objective),
        kernel_requested=requested,
        kernel_computed=computed,
        trace=trace,
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


def get_solver(name):
    import svmbench.solvers  # noqa: F401  (registers the built-in solvers)

    if name not in SOLVERS:
        raise ValueError(f"unknown solver {name!r}; choose one of {sorted(SOLVERS)}")
    return SOLVERS[name]
