"""CVM, FW and MFW (frank-wolfe-svm Algs. 1-3) against the exact optimum of the L2-SVM dual (12)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from svmbench.kernels.provider import kernel_row
from svmbench.kernels.qmatrix import make_qmatrix
from svmbench.models import MEBSVC, mean_squared_distance, resolve_gamma
from svmbench.solvers import get_solver
from svmbench.solvers.meb import away_step


def problem(seed, n=24, kernel="rbf"):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.7 * rng.normal(size=n) > 0, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    return X, y, {"C": 2.0, "kernel": kernel, "gamma": 0.5, "coef0": 0.0, "degree": 2}


def qmatrix(X, y, settings_, cache_mb=1.0):
    return make_qmatrix(X, y, "l2svm", cache_mb=cache_mb, **settings_)


def dense(X, y, settings_):
    """Q by sample index, read row by row from a fresh provider."""
    q = qmatrix(X, y, settings_)
    n = X.shape[0]
    rows = np.array([np.asarray(kernel_row(q, p, n), dtype=np.float64) for p in range(n)])
    order = np.argsort(q.perm)
    Q = rows[order][:, order]
    return (Q + Q.T) / 2.0


def exact_optimum(Q):
    """min a'Qa on the simplex: SLSQP's support, then the KKT system on it solved exactly and
    checked (alpha_S > 0, (Q alpha)_i >= R off the support)."""
    n = Q.shape[0]
    guess = minimize(lambda a: a @ Q @ a, np.full(n, 1.0 / n), jac=lambda a: 2.0 * Q @ a,
                     bounds=[(0.0, None)] * n, method="SLSQP",
                     constraints=[{"type": "eq", "fun": lambda a: a.sum() - 1.0}],
                     options={"ftol": 1e-15, "maxiter": 2000}).x
    support = np.flatnonzero(guess > 1e-7)
    solved = np.linalg.solve(Q[np.ix_(support, support)], np.ones(support.size))
    alpha = np.zeros(n)
    alpha[support] = solved / solved.sum()
    R = alpha @ Q @ alpha
    assert alpha.min() >= 0.0 and np.all(Q @ alpha >= R - 1e-10), "reference is not optimal"
    return alpha, R


def solve(name, X, y, settings_, **params):
    return get_solver(name)(qmatrix(X, y, settings_), y, {"seed": 3, **params})


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), eps=st.sampled_from([1e-2, 1e-4, 1e-6]))
def test_stopping_value_within_eq41_of_the_optimum(seed, eps):
    X, y, rbf = problem(seed)
    Q = dense(X, y, rbf)
    _, optimum = exact_optimum(Q)
    delta2 = Q.diagonal().max()
    bound = (1.0 + eps) ** 2 - 1.0
    for name, params in (("cvm", {"sample_size": 0}), ("fw", {"sample_size": 0}),
                         ("mfw", {"sample_size": 0}), ("mfw", {"sample_size": 5,
                                                              "verify_stop": True})):
        result = solve(name, X, y, rbf, eps=eps, **params)
        value = delta2 - result.alpha @ Q @ result.alpha  # g(alpha), eq. (34)
        best = delta2 - optimum
        assert result.status == "converged"
        assert (1.0 - bound) * best - 1e-12 <= value <= best + 1e-12, (name, params)  # eq. (41)


@pytest.mark.parametrize("name", ["cvm", "fw", "mfw"])
def test_iterates_stay_on_the_simplex_and_fw_objective_never_decreases(name):
    X, y, rbf = problem(7)
    for steps in range(30):
        result = solve(name, X, y, rbf, sample_size=0, max_iter=steps)
        assert result.alpha.min() >= 0.0
        assert abs(result.alpha.sum() - 1.0) < 1e-12
    radius2 = solve(name, X, y, rbf, sample_size=0, eps=1e-8).trace["radius2"]
    assert np.all(np.diff(radius2) >= -1e-12)  # g(alpha_k) = r_k^2 non-decreasing


def test_mfw_active_set_is_the_optimal_support():
    X, y, rbf = problem(11, n=40)
    rbf["C"] = 100.0  # 21 of 40 support points: FW without away steps keeps 24
    reference, _ = exact_optimum(dense(X, y, rbf))
    result = solve("mfw", X, y, rbf, sample_size=0, eps=1e-9, initial_points=2)
    np.testing.assert_array_equal(np.flatnonzero(result.alpha > 0),
                                  np.flatnonzero(reference > 0))


def test_drop_step_removes_exactly_the_chosen_point():
    X, y, rbf = problem(5, n=12)
    q = qmatrix(X, y, rbf, cache_mb=1.0)
    n, core = 12, 6
    Q = dense(X, y, rbf)
    for j in range(core):  # a nearly empty core point nearer the centre than the average
        alpha = np.zeros(n)
        alpha[:core] = (1.0 - 1e-6) / (core - 1)
        alpha[j] = 1e-6
        by_sample = np.zeros(n)
        by_sample[q.perm] = alpha
        grad = (Q @ by_sample)[q.perm]
        R = alpha @ grad
        if grad[j] > R:
            break
    chosen = q.perm[j]
    members = set(q.perm[:core].tolist())
    core_after, R_after, dropped = away_step(q, alpha, grad, core, n, j, R)
    assert dropped == 1 and core_after == core - 1
    assert set(q.perm[:core_after].tolist()) == members - {chosen}
    by_sample[q.perm] = alpha
    assert by_sample[chosen] == 0.0 and np.all(alpha[:core_after] > 0)
    assert abs(alpha.sum() - 1.0) < 1e-12
    np.testing.assert_allclose(grad, (Q @ by_sample)[q.perm], atol=1e-6)
    assert R_after == pytest.approx(by_sample @ Q @ by_sample, rel=1e-9)


def test_cvm_refuses_a_non_normalized_kernel():
    X, y, poly = problem(1, kernel="poly")
    with pytest.raises(ValueError, match="normalized kernel"):
        solve("cvm", X, y, poly)
    assert solve("mfw", X, y, poly, sample_size=0).status == "converged"


def test_estimator_decision_is_eq13_and_gamma_names():
    X, y, _ = problem(2, n=40)
    model = MEBSVC(variant="mfw", C=2.0, gamma="libcvm_default", sample_size=0).fit(X, y)
    gamma = 1.0 / mean_squared_distance(X)
    assert resolve_gamma("paper_default", X) == pytest.approx(gamma / 2.0)
    pairs = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    assert gamma == pytest.approx(1.0 / (pairs.sum() / (40 * 39)))
    alpha = model.fit_results_[0].alpha
    labels = np.where(y > 0, 1.0, -1.0)
    decision = (alpha * labels) @ (np.exp(-gamma * pairs) + 1.0)
    np.testing.assert_allclose(model.decision_function(X), decision, atol=1e-9)
