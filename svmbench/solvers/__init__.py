"""Solvers: one module per algorithm family, each registering its ``solve`` functions and listing
its specs in ``SPECS`` (svmbench.solvers.plugins finds every module's)."""

from svmbench.solvers.base import SOLVERS, SolverResult, register_solver
from svmbench.solvers.plugins import get_solver

__all__ = ["SOLVERS", "SolverResult", "get_solver", "register_solver"]
