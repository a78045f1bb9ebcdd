"""HM-SVM: the hard-margin dual without bias, min 1/2 a'Qa - 1'a s.t. a >= 0 (gs-svm-tnn2008, eq. 2).

Greedy coordinate descent with exact steps: GS-SVM (Algorithm 1) with re-selection allowed and
steps clipped at a_i = 0. Each step takes the coordinate with the largest exact decrease of the
dual; the KKT violation of sample i is max(-g_i, 0) if a_i = 0 and |g_i| if a_i > 0 (g = Qa - 1),
and the solver stops when the largest violation is <= tol (default 1e-6).
"""

import numpy as np
from numba import njit

from svmbench.kernels.provider import kernel_row
from svmbench.solvers.base import finish, register_solver
from svmbench.solvers.smo_step import resolve_max_iter


@njit(cache=True)
def kkt_violation(alpha_i, gradient_i):
    return abs(gradient_i) if alpha_i > 0.0 else max(-gradient_i, 0.0)


@njit(cache=True)
def select_coordinate(alpha, gradient, diag):
    """(coordinate with the largest decrease, its clipped exact step, the largest KKT violation)."""
    best, best_step, best_decrease, violation = -1, 0.0, 0.0, 0.0
    for i in range(alpha.shape[0]):
        violation = max(violation, kkt_violation(alpha[i], gradient[i]))
        step = max(-alpha[i], -gradient[i] / diag[i])  # exact minimiser along e_i, kept in a >= 0
        decrease = -(gradient[i] * step + 0.5 * diag[i] * step * step)
        if decrease > best_decrease:
            best, best_step, best_decrease = i, step, decrease
    return best, best_step, violation


@njit(cache=True)
def hm_svm_loop(provider, y, tol, max_iter):
    n = y.shape[0]
    alpha = np.zeros(n)
    gradient = -np.ones(n)
    iterations = 0
    converged = False
    violation = np.inf
    while iterations < max_iter:
        best, step, violation = select_coordinate(alpha, gradient, provider.diag)
        if violation <= tol or best < 0:
            converged = violation <= tol
            break
        row = kernel_row(provider, best, n)
        alpha[best] = max(alpha[best] + step, 0.0)
        scale = step * y[best]
        for k in range(n):
            gradient[k] += scale * y[k] * row[k]
        iterations += 1
    objective = 0.5 * np.dot(alpha, gradient - 1.0)
    return alpha, iterations, converged, objective, violation


@register_solver("hm_svm")
def solve(provider, y, params):
    """Params: ``tol`` (largest KKT violation, default 1e-6), ``max_iter`` (-1: max(10^7, 100 n))."""
    tol = float(params.get("tol", 1e-6))
    if not tol > 0:
        raise ValueError(f"tol must be > 0 (got {tol})")
    max_iter = resolve_max_iter(int(params.get("max_iter", -1)), y.shape[0])
    alpha, iterations, converged, objective, violation = hm_svm_loop(
        provider, np.asarray(y, dtype=np.float64), tol, max_iter
    )
    return finish(provider, alpha, 0.0, iterations, converged, objective, violation=violation)
