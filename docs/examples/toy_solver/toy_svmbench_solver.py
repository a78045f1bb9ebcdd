"""A solver that lives outside svmbench: greedy coordinate descent on the C-SVM dual without
bias, min 1/2 a'Qa - 1'a subject to 0 <= a_i <= C (plain Python over svmbench's Q-matrix).

svmbench finds it through the entry point in this folder's pyproject.toml (group
``svmbench.solvers``); ``algorithm=toy_cd`` then runs it in any sweep or leaderboard. Kernel rows
come from the same counted, cached Q-matrix the built-in solvers read, so its K1/K2 counts are
comparable to theirs.
"""

import numpy as np

from svmbench.capabilities import Capabilities
from svmbench.kernels.provider import kernel_row
from svmbench.solvers.base import MAX_ITER, OPTIMAL, finish
from svmbench.solvers.plugins import SolverPlugin


def projected_gradient(alpha, gradient, C):
    """Per coordinate, how far the box-constrained KKT conditions fail (0 at an optimum)."""
    down = np.where(alpha > 0, gradient, np.minimum(gradient, 0.0))
    return np.abs(np.where(alpha < C, down, np.maximum(down, 0.0)))


def solve(q, y, params):
    """Each step: the coordinate of largest projected gradient, moved to its exact minimiser."""
    C, tol, max_iter = params["C"], params["tol"], params["max_iter"]
    n = y.shape[0]
    alpha, gradient = np.zeros(n), -np.ones(n)
    limit = 100 * n if max_iter < 0 else max_iter
    reason, steps = MAX_ITER, 0
    while steps < limit:
        violation = projected_gradient(alpha, gradient, C)
        i = int(np.argmax(violation))
        if violation[i] <= tol:
            reason = OPTIMAL
            break
        row = np.array(kernel_row(q, i, n)[:n])  # Q row i, counted by the provider
        new = min(C, max(0.0, alpha[i] - gradient[i] / q.diag[i]))
        gradient += (new - alpha[i]) * row
        alpha[i] = new
        steps += 1
    objective = 0.5 * alpha @ (gradient + 1.0) - alpha.sum()  # a'Qa = a'(g + 1)
    return finish(q, alpha, 0.0, steps, reason, objective,
                  float(projected_gradient(alpha, gradient, C).max()), tol)


PLUGIN = SolverPlugin(solve=solve, params={"C": 1.0, "tol": 1e-3, "max_iter": -1},
                      problem="csvc_nobias", capabilities=Capabilities())
