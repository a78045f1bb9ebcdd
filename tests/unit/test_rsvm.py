"""RSVM (gs-svm-tnn2008 §VI, eq. 29): ||w||^2 of the bisected C-SVM hits GS-SVM's ||w||^2."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from svmbench.kernels.provider import kernel_row, make_provider, swap_positions
from svmbench.kernels.qmatrix import make_qmatrix
from svmbench.models import GSSVC, RSVC, SMOSVC
from svmbench.solvers.rsvm import restore_positions, w_norm2


def noisy_problem(seed, n=70, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.where(X[:, 0] + 0.8 * rng.normal(size=n) > 0, 1, -1)


def squared_norm(model, X, gamma):
    """||w||^2 of a fitted binary model from its dual coefficients (eq. 28)."""
    coef = model.dual_coef_[0]
    return coef @ rbf_kernel(X[model.support_], X[model.support_], gamma=gamma) @ coef


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("gamma, shrinking", [(0.3, True), (1.0, False), (3.0, True)])
def test_w_norm_hits_the_gs_svm_target_within_the_bisection_tolerance(seed, gamma, shrinking):
    X, y = noisy_problem(seed)
    model = RSVC(gamma=gamma, bisection_tol=1e-3, shrinking=shrinking).fit(X, y)
    target = squared_norm(GSSVC(gamma=gamma).fit(X, y), X, gamma)  # Delta0^-2, eq. 28
    assert model.target_w_norm2_[0] == pytest.approx(target, rel=1e-5)
    assert abs(squared_norm(model, X, gamma) - target) <= 1e-3 * target * (1 + 1e-4)
    assert model.fit_results_[0].trace["target_reached"]
    # the returned model is the C-SVM at the bisected C (eq. 29 and the C-SVM coincide there)
    reference = SMOSVC(C=model.C_[0], gamma=gamma, shrinking=shrinking).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), reference.decision_function(X),
                               atol=1e-6)


def test_multiclass_gets_one_c_per_class_pair():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=60), [-0.5, 0.5])
    model = RSVC(gamma=1.0).fit(X, y)
    assert model.C_.shape == (3,) and np.all(model.C_ > 0)
    assert model.score(X, y) > 0.6


def test_restoring_positions_after_shrinking_swaps_keeps_rows_right():
    X, _ = noisy_problem(0, n=12)
    provider = make_provider(X, "rbf", 0.5, cache_mb=1)
    kernel_row(provider, 3, 12)  # a cached row must follow its sample through the swaps
    for a, b in [(0, 5), (3, 7), (11, 2), (5, 3)]:
        swap_positions(provider, a, b)
    restore_positions(provider)
    assert provider.perm.tolist() == list(range(12))
    for i in (3, 7):
        np.testing.assert_allclose(kernel_row(provider, i, 12), rbf_kernel(X, gamma=0.5)[i],
                                   rtol=1e-6)
    alpha = np.abs(np.random.default_rng(0).normal(size=12))
    y = np.where(np.arange(12) % 2, 1.0, -1.0)
    assert w_norm2(make_qmatrix(X, y, "csvc", gamma=0.5), alpha) == pytest.approx(
        (alpha * y) @ rbf_kernel(X, gamma=0.5) @ (alpha * y), rel=1e-5)

