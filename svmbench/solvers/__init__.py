"""Solvers: one module per algorithm family, each registering its ``solve`` functions."""

from svmbench.solvers import gs_svm  # noqa: F401
from svmbench.solvers import hm_svm  # noqa: F401
from svmbench.solvers import rsvm  # noqa: F401
from svmbench.solvers import smo  # noqa: F401
from svmbench.solvers import smo_keerthi  # noqa: F401
from svmbench.solvers import smo_platt  # noqa: F401
from svmbench.solvers.base import SOLVERS, SolverResult, get_solver, register_solver

__all__ = ["SOLVERS", "SolverResult", "get_solver", "register_solver"]
