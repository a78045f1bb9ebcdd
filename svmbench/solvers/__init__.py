"""Solvers: one module per algorithm family, each registering its ``solve`` functions."""

# importing each module registers its solvers
from svmbench.solvers import gs_svm, hm_svm, meb, rsvm, smo, smo_keerthi, smo_platt  # noqa: F401
from svmbench.solvers.base import SOLVERS, SolverResult, get_solver, register_solver

__all__ = ["SOLVERS", "SolverResult", "get_solver", "register_solver"]
