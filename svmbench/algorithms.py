"""Algorithm config names -> estimators and their declared capabilities. One entry per name in
``conf/algorithm/``, plus one per solver of another package (svmbench.solvers.plugins).

Every algorithm config has a ``name`` and the estimator's own parameters (``gamma``, ``C``, ``tol``,
``cache_mb``, ...). To add a solver inside svmbench: register its ``solve`` function
(svmbench.solvers.base), give it a ``KernelSVC`` subclass in svmbench.models, add it here and add
conf/algorithm/<name>.yaml; outside svmbench: an entry point, or an algorithm config whose
``_target_`` names the solver (svmbench.solvers.plugins).
"""

import functools
from functools import partial

from sklearn.svm import SVC

from svmbench import models
from svmbench.capabilities import NORMALIZED_KERNELS, Capabilities
from svmbench.optimum import OptimumSVC
from svmbench.solvers.plugins import plugins, register, target_plugin

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


ESTIMATORS = {
    "gs_svm": models.GSSVC,
    "hm_svm": models.HardMarginSVC,
    "smo_platt": partial(models.SMOSVC, variant="platt"),
    "smo_mod1": partial(models.SMOSVC, variant="mod1"),
    "smo_mod2": partial(models.SMOSVC, variant="mod2"),
    "smo_wss2": partial(models.SMOSVC, variant="wss2"),
    "libsvm": libsvm_reference,
    "onedal": onedal_reference,
    "rsvm": models.RSVC,
    "rosen": models.RosenSVC,
    "rho_svm": partial(models.RhoSVC, output="last"),
    "rho_ensemble": partial(models.RhoSVC, output="ensemble"),
    "parzen": partial(models.RhoSVC, output="first", max_iter=0),
    "eg_fixed": models.EGFixedSVC,
    "csvm_xialpha": models.XiAlphaSVC,
    "cvm": partial(models.MEBSVC, variant="cvm"),
    "fw": partial(models.MEBSVC, variant="fw"),
    "mfw": partial(models.MEBSVC, variant="mfw"),
    "optimum": OptimumSVC,
}


# Training-set size limits: a cost cap that keeps a sweep's time bounded, not a property of the
# algorithm. All of them are here: delete a line to lift that cap, empty the table to lift all.
# Platt's and Rosen's caps are measured (a fit at the cap that finishes, a larger one that did
# not finish in 10 minutes of CPU); the others were set, not measured: each reason gives the
# largest timed fit there is (committed records, wall seconds, load not recorded;
# docs/leaderboard.md "Size limits"). Keerthi 1/2 have no cap (issue 30: a7a, w7a and ijcnn1).
SIZE_LIMITS = {
    "smo_platt": (24692, ("cost cap, measured: w7a (24,692 samples, C 4, gamma 0.05) 116 s CPU; "
                          "ijcnn1 (49,990, C 32, gamma 2) not done after 10 min CPU")),
    "rosen": (16100, ("cost cap, measured: a7a (16,100 samples, C 2, gamma 0.05) 50 s CPU; w7a "
                      "(24,692, C 4, gamma 0.05) not done after 11 min CPU (its rule requests "
                      "|J| + 1 rows of n entries an iteration)")),
    "hm_svm": (10000, ("cost cap, set, not measured at this size (a dense Cholesky factor and "
                       "the rows of every support vector; largest timed fits: 4,926 samples, "
                       "1 s)")),
    "rho_svm": (10000, ("cost cap, set, not measured at this size (one committed a9a fit, "
                        "32,561 samples: 87 s wall)")),
    "rho_ensemble": (10000, ("cost cap, set, not measured at this size (one committed a9a fit, "
                             "32,561 samples: 101 s wall)")),
}
CAPABILITIES = {
    **{name: Capabilities(max_train=limit, size_reason=reason)
       for name, (limit, reason) in SIZE_LIMITS.items()},
    "csvm_xialpha": Capabilities(multiclass=False, kernels=("rbf",),
                                 kernel_reason="the xi-alpha bound's R^2 is that of an RBF kernel"),
    "cvm": Capabilities(kernels=NORMALIZED_KERNELS,
                        kernel_reason="CVM's MEB needs k(x, x) constant (frank-wolfe-svm §2)"),
    "onedal": Capabilities(module="sklearnex", install="pip install -e '.[peers]'"),
    "optimum": Capabilities(max_train=20000, size_reason=(
        "memory cap: the reference solve keeps the kernel matrix in float64 (n^2 x 8 bytes: "
        "3.2 GB at 20,000)")),
}


@functools.cache
def plugin_estimators():
    """name -> estimator class of every solver of another package (svmbench.solvers.plugins)."""
    return {name: models.plugin_estimator(name, plugin) for name, plugin in plugins().items()}


def estimator_factories():
    """name -> estimator class or factory: the built-in algorithms and other packages' solvers."""
    return {**ESTIMATORS, **plugin_estimators()}


def plugin_configs():
    """name -> algorithm config (``name`` and its estimator's defaults) of every solver of another
    package: what ``algorithm=<name>`` selects, as conf/algorithm/<name>.yaml does for ours."""
    return {name: {"name": name, **estimator().get_params()}
            for name, estimator in plugin_estimators().items()}


def target_estimator(algorithm):
    """(SolverPlugin, estimator class) of the solver an algorithm config's ``_target_`` names,
    registered under the config's ``name``; a bare solve function's settings are the config's
    own keys."""
    settings = {key: value for key, value in algorithm.items()
                if key not in ("name", TARGET, PROBLEM, *models.PLUGIN_ESTIMATOR_DEFAULTS)}
    plugin = target_plugin(algorithm[TARGET], settings, algorithm.get(PROBLEM))
    register(algorithm["name"], plugin, f"algorithm._target_={algorithm[TARGET]}")
    return plugin, models.plugin_estimator(algorithm["name"], plugin)


def with_target_defaults(algorithm):
    """An algorithm config with the defaults of the solver its ``_target_`` names filled in (the
    config's own values win), as conf/algorithm/<name>.yaml spells out a built-in one's."""
    if not algorithm.get(TARGET):
        return algorithm
    return {**target_estimator(algorithm)[1]().get_params(), **algorithm}


def capabilities(name, target=None):
    """The declared Capabilities of algorithm ``name`` (of the solver ``target`` names, if given)."""
    plugin = target_estimator({"name": name, TARGET: target})[0] if target else plugins().get(name)
    return plugin.capabilities if plugin else CAPABILITIES.get(name, Capabilities())


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
