"""The registry of every solver: the built-in ones, declared by the modules of svmbench.solvers,
and those of other packages, found through the entry point group ``svmbench.solvers``; each is
a solver spec (:class:`SolverPlugin`, svmbench.specs, importable from here too).

A spec declares a solver once: its algorithm name, its settings with their defaults (whose types
the config checks take from them), the dual it solves (``problem``, or its Q-matrix kind), the
estimator that trains it (``model``), its capabilities and size limits (svmbench.capabilities).
svmbench.models makes the estimator from it, svmbench.algorithms and svmbench.configs the
harness's algorithm config (``algorithm=<name>``), svmbench.algorithm_keys and
svmbench.runner.check_algorithm the key and type checks. A built-in solver is one module of
svmbench.solvers that lists its specs in ``SPECS`` (no config file: svmbench.specs reads the
declaration for Hydra without importing the solver).

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
import pkgutil
from dataclasses import replace
from importlib.metadata import entry_points

from svmbench.capabilities import PLUGIN_GROUP as GROUP
from svmbench.solvers.base import MANY_SOLVERS, SOLVERS
from svmbench.specs import KERNEL_SETTINGS, HarnessDefault, SolverPlugin  # noqa: F401 (the API)


class PluginError(ValueError):
    """An entry point of the group that is not a usable solver."""


@functools.cache
def builtin_specs():
    """name -> SolverPlugin of every built-in solver: the ``SPECS`` of each module of
    svmbench.solvers (importing a module registers its solve functions)."""
    import svmbench.solvers as package

    found = {}
    for module in pkgutil.iter_modules(package.__path__):
        for spec in getattr(importlib.import_module(f"{package.__name__}.{module.name}"),
                            "SPECS", ()):
            found[spec.name] = spec
    return found


@functools.cache
def plugins():
    """name -> SolverPlugin for every entry point of ``svmbench.solvers``, each registered as a
    solver (loaded once per process)."""
    builtin_specs()  # the built-in names come first

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


def specs():
    """name -> SolverPlugin of every solver: the built-in ones, then other packages'."""
    return {**builtin_specs(), **plugins()}


def get_solver(name):
    """The solve function registered as ``name`` (a built-in solver or another package's)."""
    plugins()  # registers the built-in solvers, then those of other packages (entry points)
    if name not in SOLVERS:
        raise ValueError(f"unknown solver {name!r}; choose one of {sorted(SOLVERS)}")
    return SOLVERS[name]


def get_many_solver(name):
    """The registered solve_many of solver ``name``, or None."""
    get_solver(name)
    return MANY_SOLVERS.get(name)


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
