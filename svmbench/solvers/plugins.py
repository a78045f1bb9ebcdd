"""The solver spec (:class:`SolverPlugin`) and the registry of every solver: the built-in ones, declared
by the modules of svmbench.solvers, and those of other packages, found through the entry point
group ``svmbench.solvers``.

A spec declares a solver once: its algorithm name, its settings with their defaults (whose types
the config checks take from them), the dual it solves (``problem``, or its Q-matrix kind), the
estimator that trains it (``model``), its capabilities and size limits (svmbench.capabilities).
svmbench.models makes the estimator from it, svmbench.algorithms the harness's algorithm config
(``algorithm=<name>``), svmbench.algorithm_keys and svmbench.runner.check_algorithm the key and
type checks. A built-in solver is one module of svmbench.solvers that lists its specs in
``SPECS``.

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
from dataclasses import dataclass, field, replace
from importlib.metadata import entry_points

from svmbench.capabilities import PLUGIN_GROUP as GROUP
from svmbench.capabilities import Capabilities
from svmbench.solvers.base import MANY_SOLVERS, SOLVERS

# the kernel's settings and the Q-row cache, which every estimator has; a spec's ``params`` that
# lacks one has these defaults (scikit-learn's SVC's, LIBSVM's cache in MB)
KERNEL_SETTINGS = {"kernel": "rbf", "gamma": "scale", "coef0": 0.0, "degree": 3, "cache_mb": 100.0}
# the harness's default kernel width where a built-in estimator has scikit-learn's "scale": every
# committed sweep of those algorithms was composed with it (a spec's ``harness`` names it)
HARNESS_GAMMA = 0.05


@dataclass(frozen=True)
class SolverPlugin:
    """A solver's spec, the one place it is declared (a built-in's in its module's ``SPECS``, a
    plug-in's at its entry point). ``problem`` names the dual it solves (svmbench.referee.PROBLEMS:
    "csvc" with bias, "csvc_nobias", "hard_margin", "stagewise", "rho_simplex", "meb"; None: the
    one of ``q_kind``), against which the harness's referee checks every point it returns;
    ``tolerance(params)`` is the violation up to which such a point counts as converged (None:
    the setting ``tol``, else LIBSVM's 1e-3), whatever the solver says of its own point.

    ``params``: its settings -> defaults, in the estimator's signature order; the types the
    config checks accept are those of the defaults. A plug-in lists its own settings only (the
    kernel's, KERNEL_SETTINGS, come first); ``reads``: the settings the solve function is given
    (None: all but the kernel's and the Q-row cache).

    ``name``: the algorithm name (``algorithm=<name>``); an entry point's is the entry point's.
    ``model``: the name of the estimator class in svmbench.models that trains it (None: a
    KernelSVC is made for it); ``selects``: the settings whose values in ``params`` pick this
    algorithm in its model (SMOSVC's ``variant``), fixed by the algorithm and left out of its
    config.

    The harness's algorithm config is ``params`` but for ``unconfigured`` (settings the config
    does not spell out: the estimator's default applies) and ``selects``, with the harness's own
    default where ``harness`` names one: the second named default, e.g. gamma 0.05 (the papers'
    theta) where the estimator, for a Python user, has scikit-learn's "scale". Every committed
    record's config hash was taken over that config (tests/unit/test_solver_specs.py).

    A size limit (``capabilities.max_train``) is a cost cap that keeps a sweep's time bounded, not
    a property of the algorithm: its ``size_reason`` says whether it was measured (a fit at the
    cap that finishes, a larger one that did not in 10 minutes of CPU) or set, with the largest
    timed fit there is (docs/leaderboard.md "Size limits"); drop it from the spec to lift it."""

    solve: object  # solve(qmatrix, y, params) -> SolverResult
    params: dict = field(default_factory=dict)  # its settings -> defaults (e.g. C, tol)
    q_kind: str = "csvc"  # svmbench.kernels.qmatrix.Q_KINDS
    capabilities: Capabilities = field(default_factory=Capabilities)
    problem: str | None = None
    tolerance: object = None  # tolerance(params) -> float
    name: str | None = None
    model: str | None = None
    selects: tuple = ()
    reads: tuple | None = None
    harness: dict = field(default_factory=dict)
    unconfigured: tuple = ()
    doc: str = ""  # the docstring of the estimator made for it (model None or not in models)

    def settings(self):
        """Every setting of its estimator -> the estimator's default, in signature order."""
        kernel = {key: value for key, value in KERNEL_SETTINGS.items() if key not in self.params}
        return {**kernel, **self.params}

    def solver_settings(self):
        """The settings the solve function is given."""
        if self.reads is not None:
            return self.reads
        return tuple(key for key in self.params if key not in KERNEL_SETTINGS)

    def config(self, name=None):
        """The harness's algorithm config of it (``name``: the entry point's, else its own)."""
        left_out = {*self.unconfigured, *self.selects}
        return {"name": name or self.name,
                **{key: self.harness.get(key, default) for key, default in self.settings().items()
                   if key not in left_out}}


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
