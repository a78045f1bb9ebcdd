"""Solvers from outside svmbench, found through the entry point group ``svmbench.solvers``.

A package of one's own declares (pyproject.toml)::

    [project.entry-points."svmbench.solvers"]
    my_solver = "my_package.solver:PLUGIN"

where ``PLUGIN`` is a :class:`SolverPlugin`: a solve function as svmbench.solvers.base describes
(``solve(qmatrix, y, params) -> SolverResult``, reading kernel rows from the same counted, cached
Q-matrix the built-in solvers read), the solver's own settings with their defaults, the Q-matrix
kind and its declared capabilities. svmbench registers it under the entry point's name when its
registry loads; ``algorithm=my_solver`` then works in every command, sweep and table, with no
edit to svmbench.
"""

import functools
from dataclasses import dataclass, field
from importlib.metadata import entry_points

from svmbench.capabilities import Capabilities
from svmbench.solvers.base import SOLVERS

GROUP = "svmbench.solvers"


@dataclass(frozen=True)
class SolverPlugin:
    solve: object  # solve(qmatrix, y, params) -> SolverResult
    params: dict = field(default_factory=dict)  # its own settings -> defaults (e.g. C, tol)
    q_kind: str = "csvc"  # svmbench.kernels.qmatrix.Q_KINDS
    capabilities: Capabilities = field(default_factory=Capabilities)


class PluginError(ValueError):
    """An entry point of the group that is not a usable solver."""


@functools.cache
def plugins():
    """name -> SolverPlugin for every entry point of ``svmbench.solvers``, each registered as a
    solver (loaded once per process)."""
    import svmbench.solvers  # noqa: F401  (the built-in names come first)

    found = {}
    for point in entry_points(group=GROUP):
        where = f"entry point {point.name} = {point.value} (group {GROUP})"
        try:
            plugin = point.load()
        except Exception as error:
            raise PluginError(f"{where} does not load: {type(error).__name__}: {error}; fix or "
                              "uninstall the package that declares it") from error
        if not isinstance(plugin, SolverPlugin):
            raise PluginError(f"{where} is a {type(plugin).__name__}, not a "
                              "svmbench.solvers.plugins.SolverPlugin; point it at one")
        if point.name in SOLVERS:
            raise PluginError(f"{where}: a solver named {point.name!r} exists already; rename the "
                              "entry point")
        SOLVERS[point.name] = plugin.solve
        found[point.name] = plugin
    return found
