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

Or, with no package at all, a Hydra ``_target_`` in an algorithm config names the solver by its
Python path (``algorithm=target algorithm._target_=my_module.PLUGIN``, or a conf file of one's own
on ``hydra.searchpath``): :func:`target_plugin` reads it, :func:`register` registers it under the
config's name, the same way as an entry point's.
"""

import functools
import importlib
from dataclasses import dataclass, field, replace
from importlib.metadata import entry_points

from svmbench.capabilities import PLUGIN_GROUP as GROUP
from svmbench.capabilities import Capabilities
from svmbench.solvers.base import SOLVERS


@dataclass(frozen=True)
class SolverPlugin:
    """A solver of one's own. ``problem`` names the dual it solves (svmbench.referee.PROBLEMS:
    "csvc" with bias, "csvc_nobias", "hard_margin", "stagewise", "rho_simplex", "meb"; None: the
    one of ``q_kind``), against which the harness's referee checks every point it returns;
    ``tolerance(params)`` is the violation up to which such a point counts as converged (None:
    the setting ``tol``, else LIBSVM's 1e-3), whatever the solver says of its own point."""

    solve: object  # solve(qmatrix, y, params) -> SolverResult
    params: dict = field(default_factory=dict)  # its own settings -> defaults (e.g. C, tol)
    q_kind: str = "csvc"  # svmbench.kernels.qmatrix.Q_KINDS
    capabilities: Capabilities = field(default_factory=Capabilities)
    problem: str | None = None
    tolerance: object = None  # tolerance(params) -> float


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
        register(point.name, plugin, where)
        found[point.name] = plugin
    return found


def register(name, plugin, where):
    """Register ``plugin``'s solve function as solver ``name``; ``where`` (the entry point or the
    ``_target_``) is named when it is not a SolverPlugin or another solver has the name."""
    if not isinstance(plugin, SolverPlugin):
        raise PluginError(f"{where} is a {type(plugin).__name__}, not a "
                          "svmbench.solvers.plugins.SolverPlugin; point it at one")
    if SOLVERS.get(name, plugin.solve) is not plugin.solve:
        raise PluginError(f"{where}: a solver named {name!r} exists already; give it another "
                          "name")
    SOLVERS[name] = plugin.solve


def locate(path):
    """The object a dotted Python path names (``package.module.attribute``, or ``module:attribute``
    as entry points write it)."""
    module_path, _, attribute = path.replace(":", ".").rpartition(".")
    parts = [attribute]
    while module_path:
        try:
            found = importlib.import_module(module_path)
        except ModuleNotFoundError as error:
            if error.name is None or not module_path.startswith(error.name):
                raise  # a module that exists failed on an import of its own
            module_path, _, parent = module_path.rpartition(".")
            parts.insert(0, parent)
            continue
        for part in parts:
            found = getattr(found, part)
        return found
    raise ModuleNotFoundError(f"no module in {path!r} is on the Python path")


def target_plugin(target, settings, problem=None):
    """The SolverPlugin a Hydra ``_target_`` names: a SolverPlugin, or a solve function, whose
    settings (names -> defaults) are then ``settings``, the algorithm config's own keys;
    ``problem`` (the config's ``problem`` key, svmbench.referee.PROBLEMS) declares the dual it
    solves, over what the SolverPlugin says."""
    where = f"algorithm._target_={target}"
    try:
        found = locate(target)
    except Exception as error:
        raise PluginError(f"{where} does not load: {type(error).__name__}: {error}; put its "
                          "module on the Python path (PYTHONPATH) or fix the path") from error
    if callable(found) and not isinstance(found, SolverPlugin):
        return SolverPlugin(solve=found, params=dict(settings), problem=problem)
    if problem is not None and isinstance(found, SolverPlugin):
        return replace(found, problem=problem)
    return found
