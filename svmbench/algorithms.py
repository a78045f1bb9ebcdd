"""Algorithm config names -> estimators. One entry per name in ``conf/algorithm/``.

Every algorithm config has a ``name`` and the estimator's own parameters (``gamma``, ``C``, ``tol``,
``cache_mb``, ...). To add a solver: register its ``solve`` function (svmbench.solvers.base),
give it a ``KernelSVC`` subclass in svmbench.models, add it here and add conf/algorithm/<name>.yaml.
"""

from functools import partial

from sklearn.svm import SVC

from svmbench import models


def libsvm_reference(C=1.0, kernel="rbf", gamma="scale", coef0=0.0, degree=3, tol=1e-3,
                     cache_mb=100.0, shrinking=True, max_iter=-1):
    """The external reference: scikit-learn's SVC (LIBSVM), cache given in MB like our solvers.

    LIBSVM does not expose kernel counts: records leave them missing, never zero.
    """
    return SVC(C=C, kernel=kernel, gamma=gamma, coef0=coef0, degree=degree, tol=tol,
               cache_size=cache_mb, shrinking=shrinking, max_iter=max_iter)


ESTIMATORS = {
    "gs_svm": models.GSSVC,
    "hm_svm": models.HardMarginSVC,
    "smo_platt": partial(models.SMOSVC, variant="platt"),
    "smo_mod1": partial(models.SMOSVC, variant="mod1"),
    "smo_mod2": partial(models.SMOSVC, variant="mod2"),
    "smo_wss2": partial(models.SMOSVC, variant="wss2"),
    "libsvm": libsvm_reference,
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
}


def build_estimator(algorithm):
    """Estimator for an algorithm config (a dict with ``name`` and the estimator's parameters)."""
    params = dict(algorithm)
    name = params.pop("name")
    if name not in ESTIMATORS:
        raise ValueError(f"unknown algorithm {name!r}; choose one of {sorted(ESTIMATORS)}")
    try:
        return ESTIMATORS[name](**params)
    except TypeError as error:
        raise ValueError(f"algorithm {name!r} does not take these parameters: {error}") from None
