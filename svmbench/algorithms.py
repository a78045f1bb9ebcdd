"""Algorithm config names -> estimators, configs and declared capabilities: one per solver spec
(svmbench.solvers.plugins: the built-in solvers' and other packages'), plus the external
references (EXTERNAL: scikit-learn's SVC, oneDAL's, the certified optimum).

Every algorithm config has a ``name`` and the estimator's own parameters (``gamma``, ``C``, ``tol``,
``cache_mb``, ...), as the solver's spec declares them (SolverPlugin.config; Hydra's
``algorithm=<name>`` is put in place by svmbench.configs from the same declaration). To add a
solver inside svmbench: a module of svmbench.solvers with its ``solve`` function and ``SPECS``,
nothing else; outside svmbench: an entry point, or an algorithm config whose ``_target_`` names
the solver (svmbench.solvers.plugins).
"""

import functools
from functools import partial

from sklearn.svm import SVC

from svmbench import models
from svmbench.capabilities import Capabilities
from svmbench.optimum import OptimumSVC
from svmbench.solvers.plugins import (
    KERNEL_SETTINGS,
    builtin_specs,
    plugins,
    register,
    specs,
    target_plugin,
)

TARGET = "_target_"  # an algorithm config's key naming a solver by its Python path
PROBLEM = "problem"  # with a _target_: the dual its solver solves (svmbench.referee.PROBLEMS)


def libsvm_reference(C=1.0, kernel="rbf", gamma="scale", coef0=0.0, degree=3, tol=1e-3,
                     cache_mb=100.0, shrinking=True, max_iter=-1):
    """The external reference: scikit-learn's SVC (LIBSVM), cache given in MB like our solvers.

    LIBSVM does not expose kernel counts: records leave them missing, never zero.
    """
    return SVC(C=C, kernel=kernel, gamma=gamma, coef0=coef0, degree=degree, tol=tol,
               cache_size=cache_mb, shrinking=shrinking, max_iter=max_iter)


def onedal_reference(C=1.0, kernel="rbf", gamma="scale", coef0=0.0, degree=3, tol=1e-3,
                     cache_mb=100.0, shrinking=True, max_iter=-1):
    """The second external reference: scikit-learn-intelex's SVC (oneDAL), the ``peers`` extra."""
    from sklearnex.svm import SVC as OneDalSVC

    return OneDalSVC(C=C, kernel=kernel, gamma=gamma, coef0=coef0, degree=degree, tol=tol,
                     cache_size=cache_mb, shrinking=shrinking, max_iter=max_iter)


# the algorithms that are no solver of ours: their estimators, configs
# (svmbench/conf/algorithm/<name>.yaml, the only algorithm configs written as files) and
# capabilities
EXTERNAL = {"libsvm": libsvm_reference, "onedal": onedal_reference, "optimum": OptimumSVC}
# the dual each of them solves (svmbench.referee.PROBLEMS): scikit-learn's and oneDAL's SVC, LIBSVM's
# C-SVC
EXTERNAL_PROBLEMS = {"libsvm": "csvc", "onedal": "csvc"}
EXTERNAL_CAPABILITIES = {
    "onedal": Capabilities(module="sklearnex", install="pip install -e '.[peers]'"),
    "optimum": Capabilities(max_train=20000, size_reason=(
        "memory cap: the reference solve keeps the kernel matrix in float64 (n^2 x 8 bytes: "
        "3.2 GB at 20,000)")),
}


def spec_estimator(name, spec):
    """The estimator class (or factory) a spec declares: its model of svmbench.models with the
    settings that select it (SMOSVC with variant="platt"), or a KernelSVC made for it."""
    if spec.model is None:
        return models.plugin_estimator(name, spec)
    model = getattr(models, spec.model)
    selected = {key: spec.params[key] for key in spec.selects}
    return partial(model, **selected) if selected else model


@functools.cache
def builtin_estimators():
    """name -> estimator class or factory of every built-in solver."""
    return {name: spec_estimator(name, spec) for name, spec in builtin_specs().items()}


@functools.cache
def plugin_estimators():
    """name -> estimator class of every solver of another package (svmbench.solvers.plugins)."""
    return {name: models.plugin_estimator(name, plugin) for name, plugin in plugins().items()}


def estimator_factories():
    """name -> estimator class or factory: the built-in algorithms and other packages' solvers."""
    return {**EXTERNAL, **builtin_estimators(), **plugin_estimators()}


def plugin_configs():
    """name -> algorithm config (SolverPlugin.config) of every solver of another package: what
    ``algorithm=<name>`` selects, as a built-in spec's config does for ours
    (svmbench.specs.declared_configs)."""
    return {name: plugin.config(name) for name, plugin in plugins().items()}


def target_estimator(algorithm):
    """(SolverPlugin, estimator class) of the solver an algorithm config's ``_target_`` names,
    registered under the config's ``name``; a bare solve function's settings are the config's
    own keys."""
    settings = {key: value for key, value in algorithm.items()
                if key not in ("name", TARGET, PROBLEM, *KERNEL_SETTINGS)}
    plugin = target_plugin(algorithm[TARGET], settings, algorithm.get(PROBLEM))
    register(algorithm["name"], plugin, f"algorithm._target_={algorithm[TARGET]}")
    return plugin, models.plugin_estimator(algorithm["name"], plugin)


def with_target_defaults(algorithm):
    """An algorithm config with the defaults of the solver its ``_target_`` names filled in (the
    config's own values win), as a built-in spec's config spells out its own."""
    if not algorithm.get(TARGET):
        return algorithm
    return {**target_estimator(algorithm)[1]().get_params(), **algorithm}


def capabilities(name, target=None):
    """The declared Capabilities of algorithm ``name`` (of the solver ``target`` names, if given)."""
    plugin = target_estimator({"name": name, TARGET: target})[0] if target else None
    plugin = plugin or specs().get(name)
    return plugin.capabilities if plugin else EXTERNAL_CAPABILITIES.get(name, Capabilities())


def solver_problem(algorithm):
    """The dual an algorithm config's solver declares it solves (svmbench.referee.PROBLEMS), as the
    models board reads it (svmbench.analysis.model_board): a built-in solver's (its spec's, or its
    Q-matrix kind's), LIBSVM's and oneDAL's the C-SVC's, a plug-in's or ``_target_``'s only if
    it declares one (None: it is its own model)."""
    name = algorithm["name"]
    if algorithm.get(TARGET):
        return algorithm.get(PROBLEM) or target_estimator(algorithm)[0].problem
    if name in EXTERNAL_PROBLEMS:
        return EXTERNAL_PROBLEMS[name]
    if name in builtin_specs():
        return models.plugin_problem(builtin_specs()[name])
    plugin = plugins().get(name)
    return plugin.problem if plugin else None


def harness_config(name):
    """The harness's algorithm config of solver ``name`` (its spec's, SolverPlugin.config: what
    svmbench/conf/algorithm/<name>.yaml spells out for a built-in one)."""
    found = specs()
    if name not in found:
        raise ValueError(f"{name!r} is no solver of svmbench or of an installed package; choose "
                         f"one of {sorted(found)}")
    return found[name].config(name)


def build_estimator(algorithm):
    """Estimator for an algorithm config (a dict with ``name`` and the estimator's parameters, or
    a ``_target_`` naming a solver of one's own)."""
    params = dict(algorithm)
    name = params.pop("name")
    factories = {name: target_estimator(algorithm)[1]} if params.pop(TARGET, None) \
        else estimator_factories()
    if algorithm.get(TARGET):
        params.pop(PROBLEM, None)
    if name not in factories:
        raise ValueError(f"unknown algorithm {name!r}; choose one of {sorted(factories)}")
    try:
        return factories[name](**params)
    except TypeError as error:
        raise ValueError(f"algorithm {name!r} does not take these parameters: {error}") from None
