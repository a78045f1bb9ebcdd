"""scikit-learn's estimator checks for every public estimator (and every variant of one), with
the exceptions an algorithm really has declared with their reason."""

import inspect

from sklearn.utils.estimator_checks import parametrize_with_checks

import svmbench
from svmbench.models import (
    GSSVC,
    MEBSVC,
    RSVC,
    SMOSVC,
    EGFixedSVC,
    HardMarginSVC,
    KernelSVC,
    RhoSVC,
    RosenSVC,
    XiAlphaSVC,
)

NO_BIAS = ("no bias: f(x) = sum_i alpha_i y_i k(x_i, x) (multiplicative-rho-svm eq. 3) has no "
           "threshold, so on the check's shifted blobs it stays below the 0.83 training accuracy "
           "scikit-learn asks of every classifier")
ESTIMATORS = [
    GSSVC(),
    HardMarginSVC(),
    *(SMOSVC(variant=variant) for variant in ("wss2", "platt", "mod1", "mod2")),
    RSVC(),
    RosenSVC(),
    RhoSVC(output="last"),
    RhoSVC(output="ensemble"),
    RhoSVC(output="first", max_iter=0),  # the Parzen window (algorithm "parzen")
    EGFixedSVC(),
    XiAlphaSVC(),
    # eps 1e-4 as in the leaderboard: at the default 1e-6 FW takes 40-45 s a check on 2 cores
    *(MEBSVC(variant=variant, eps=1e-4) for variant in ("cvm", "fw", "mfw")),
]


def expected_failed_checks(estimator):
    """{check name: reason} for the checks an algorithm fails by its nature."""
    if isinstance(estimator, EGFixedSVC) or (isinstance(estimator, RhoSVC)
                                              and estimator.output == "last"):
        return {"check_classifiers_train": NO_BIAS}
    if isinstance(estimator, RhoSVC) and estimator.output == "first":
        return {"check_non_transformer_estimators_n_iter":
                "closed form: the Parzen window f_1 (alpha = 1/m) runs no iteration, n_iter_ is "
                "0 (status closed_form)"}
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_every_public_estimator_is_checked():
    public = {getattr(svmbench, name) for name in svmbench.__all__
              if inspect.isclass(getattr(svmbench, name, None))}
    assert public == {cls for cls in public if issubclass(cls, KernelSVC)}
    assert public <= {type(estimator) for estimator in ESTIMATORS}
