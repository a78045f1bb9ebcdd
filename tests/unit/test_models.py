"""The estimators' fitted attributes against scikit-learn's SVC, their warnings, and the prediction
kernel count."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from svmbench.models import GSSVC, RSVC, SMOSVC, HardMarginSVC
from svmbench.solvers.base import resolve_max_iter, worst_status
from svmbench.solvers.smo_step import smo_settings


def svc_pair_coefficients(svc, n_samples):
    """SVC's dual_coef_ (LIBSVM's layout) as one row per class pair (i, j), i < j, over samples."""
    start = np.concatenate([[0], np.cumsum(svc.n_support_)])
    n_classes = len(svc.classes_)
    rows = []
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            row = np.zeros(n_samples)
            of_i, of_j = slice(start[i], start[i + 1]), slice(start[j], start[j + 1])
            row[svc.support_[of_i]] = svc.dual_coef_[j - 1, of_i]
            row[svc.support_[of_j]] = svc.dual_coef_[i, of_j]
            rows.append(row)
    return np.array(rows)


def test_multiclass_dual_coef_and_intercept_have_svc_signs_on_iris():
    X, y = load_iris(return_X_y=True)
    svc = SVC(C=2.0, gamma=0.5, tol=1e-6).fit(X, y)
    ours = SMOSVC(C=2.0, gamma=0.5, tol=1e-6).fit(X, y)
    coefficients = np.zeros((3, len(X)))
    coefficients[:, ours.support_] = ours.dual_coef_
    np.testing.assert_allclose(coefficients, svc_pair_coefficients(svc, len(X)), atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, svc.intercept_, atol=1e-6)
    np.testing.assert_allclose(ours.decision_function(X), svc.decision_function(X), atol=1e-5)
    np.testing.assert_array_equal(ours.predict(X), svc.predict(X))


def test_binary_dual_coef_has_svc_sign():
    X, y = load_iris(return_X_y=True)
    X, y = X[y > 0], y[y > 0]
    svc = SVC(C=2.0, gamma=0.5, tol=1e-6).fit(X, y)
    ours = SMOSVC(C=2.0, gamma=0.5, tol=1e-6).fit(X, y)
    coefficients = np.zeros(len(X))
    coefficients[ours.support_] = ours.dual_coef_[0]
    np.testing.assert_allclose(coefficients, svc_pair_coefficients(svc, len(X))[0], atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, svc.intercept_, atol=1e-6)


@pytest.mark.parametrize("estimator", [GSSVC(gamma=0.5), SMOSVC(gamma=0.5), RSVC(gamma=0.5),
                                       HardMarginSVC(gamma=0.5)], ids=lambda e: type(e).__name__)
def test_prediction_kernel_values_are_counted(estimator):
    X, y = load_iris(return_X_y=True)
    estimator.fit(X[:100], y[:100])
    estimator.predict(X[:7])
    assert estimator.kernel_predict_ == 7 * len(estimator.support_)
    estimator.decision_function(X[:3])
    assert estimator.kernel_predict_ == 3 * len(estimator.support_)


def test_precomputed_prediction_computes_no_kernel_values():
    X, y = load_iris(return_X_y=True)
    model = SMOSVC(kernel="precomputed").fit(rbf_kernel(X, gamma=0.5), y)
    model.predict(rbf_kernel(X[:5], X, gamma=0.5))
    assert model.kernel_predict_ == 0


@pytest.mark.parametrize("variant", ["wss2", "platt", "mod1", "mod2"])
def test_max_iter_raises_a_convergence_warning(variant):
    X, y = load_iris(return_X_y=True)
    with pytest.warns(ConvergenceWarning, match=r"classes \(0, 1\): max_iter after [0-9]+ "
                                                r"iterations.*raise max_iter \(-1 means no limit\)"):
        model = SMOSVC(variant=variant, gamma=0.5, max_iter=3).fit(X, y)
    assert "max_iter" in model.status_ and worst_status(model.status_) == "max_iter"
    assert np.all(model.kkt_violation_[np.array(model.status_) == "max_iter"] > 0)


def test_converged_fit_warns_nothing(recwarn):
    X, y = load_iris(return_X_y=True)
    model = SMOSVC(gamma=0.5).fit(X, y)
    assert model.status_ == ["converged"] * 3 and np.all(model.kkt_violation_ <= 1e-3)
    assert not [w for w in recwarn if issubclass(w.category, ConvergenceWarning)]


def test_max_iter_minus_one_is_unlimited():
    """scikit-learn's convention; LIBSVM's cap max(10^7, 100 n) is gone."""
    assert smo_settings({"max_iter": -1})[2] == resolve_max_iter(-1) >= 2**62
    assert smo_settings({"max_iter": 7})[2] == 7


def test_worst_status_orders_failures():
    assert worst_status(["converged", "max_iter", "stalled"]) == "stalled"
    assert worst_status(["max_iter", "infeasible"]) == "infeasible"
    assert worst_status(["converged"]) == "converged"
