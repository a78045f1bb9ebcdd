"""Solvers: one module per algorithm family, each registering its ``solve`` functions."""

# importing each module registers its solvers
from svmbench.solvers import (  # noqa: F401
    gs_svm,
    hm_svm,
    meb,
    rho_svm,
    rosen,
    rsvm,
    smo,
)
from svmbench.solvers.base import SOLVERS, SolverResult, get_solver, register_solver

__all__ = ["SOLVERS", "SolverResult", "get_solver", "register_solver"]
