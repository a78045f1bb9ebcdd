"""rho-SVM by multiplicative updates (multiplicative-rho-svm Algorithm 1), its ensemble, the
fixed-eta baseline and the low-rank path, against brute force on small problems."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel

from svmbench.kernels.qmatrix import make_qmatrix
from svmbench.models import EGFixedSVC, HardMarginSVC, RhoSVC, resolve_gamma
from svmbench.solvers.checkpoints import new_curve
from svmbench.solvers.rho_svm import best_eta, log_objective, pivoted_cholesky, rho_svm_loop


def problem(seed, n=40, separable=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    score = X[:, 0] + 0.3 * X[:, 1]
    if not separable:
        score += rng.normal(scale=0.7, size=n)
    y = np.where(score > 0, 1.0, -1.0)
    if abs(y.sum()) == n:
        y[0] = -y[0]
    return X, y


def run(X, y, gamma=0.5, eps=0.005, rank=0):
    q = make_qmatrix(X, y, "csvc", gamma=gamma)
    factor = pivoted_cholesky(q, rank, 1e-14)[0] if rank else np.zeros((X.shape[0], 0))
    return q, rho_svm_loop(q, factor, eps, 0.1, -1, new_curve(0))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), gamma=st.sampled_from([0.1, 0.5, 2.0]))
def test_alpha_stays_on_the_simplex_and_rhobar_never_increases(seed, gamma):
    X, y = problem(seed)
    _, (alpha, ensemble, etas, rhos, rhobars, *_) = run(X, y, gamma)
    for weights in (alpha, ensemble):
        assert np.all(weights >= 0.0)
        assert weights.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.diff(rhobars) <= 0.0)  # Algorithm 1 step 7: only non-increasing steps
    assert np.all(etas > 0.0) and np.all(rhos < rhobars[:-1])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), eps=st.sampled_from([0.1, 0.01, 0.001]))
def test_eta_minimises_the_one_dimensional_problem_to_1e_10(seed, eps):
    rng = np.random.default_rng(seed)
    m = 30
    alpha = rng.dirichlet(np.ones(m))
    margins = rng.normal(0.3, 0.4, size=m)
    rhobar = alpha @ margins
    if rhobar <= 0 or margins.min() >= rhobar / (1 + eps):
        return
    rho = rhobar / (1 + eps)
    eta = best_eta(alpha, margins, rho)
    assert eta > 0
    grid = np.linspace(0.0, 4.0 * eta, 400_001)  # dense grid around the minimiser
    values = np.array([log_objective(alpha, margins, rho, g) for g in grid])
    # no grid point is better (phi is flat to rounding near its minimum, so compare values)
    assert log_objective(alpha, margins, rho, eta) <= values.min() + 1e-14
    # at the minimiser the next alpha's edge equals rho (eq. 16): solved to 1e-10
    weights = alpha * np.exp(-eta * (margins - margins.min()))
    assert (weights / weights.sum()) @ margins == pytest.approx(rho, abs=1e-10)


def test_converged_rho_svm_meets_kkt_and_the_hard_margin_svm():
    X, y = problem(0, n=60, separable=True)
    _, (alpha, _, _, _, rhobars, margins, _, _, converged) = run(X, y, eps=1e-8)
    assert converged
    rho_star = 1.0 / np.abs(HardMarginSVC(gamma=0.5, tol=1e-10).fit(X, y).dual_coef_).sum()
    rhobar = rhobars[-1]
    # KKT (5): 0 <= alpha  _|_  y_i f(x_i) - rhobar >= 0, to the tolerance
    assert np.all(alpha >= 0)
    assert margins.min() >= rhobar * (1 - 1e-2)
    assert alpha @ (margins - rhobar) == pytest.approx(0.0, abs=1e-12)
    # the rho-SVM's dual value and geometric margin are the hard-margin SVM's (eq. 4)
    assert rhobar == pytest.approx(rho_star, rel=1e-3)
    assert margins.min() / np.sqrt(rhobar) == pytest.approx(np.sqrt(rho_star), rel=1e-2)


def test_ensemble_decision_is_the_eta_weighted_sum_of_stored_hypotheses():
    X, y = problem(3, n=30)
    gamma = resolve_gamma("spread", X)
    kernel = rbf_kernel(X, X, gamma=gamma)
    q = make_qmatrix(X, y, "csvc", gamma=gamma)
    factor = np.zeros((30, 0))
    etas, alphas = [], [np.full(30, 1 / 30)]
    for steps in range(1, 200):  # replay the run one accepted step longer each time
        alpha, *_ = rho_svm_loop(q, factor, 0.005, 0.1, steps, new_curve(0))
        if len(alphas) > 1 and np.array_equal(alpha, alphas[-1]):
            break
        alphas.append(alpha)
    _, _, etas, *_ = rho_svm_loop(q, factor, 0.005, 0.1, -1, new_curve(0))
    hypotheses = [kernel @ (a * y) for a in alphas[:etas.shape[0]]]  # f_1 .. f_T (eq. 3)
    expected = sum(e * f for e, f in zip(etas, hypotheses)) / etas.sum()
    model = RhoSVC(output="ensemble").fit(X, y)
    assert np.allclose(model.decision_function(X), expected, rtol=1e-6, atol=1e-9)
    parzen = RhoSVC(output="first", max_iter=0).fit(X, y)
    assert np.allclose(parzen.decision_function(X), hypotheses[0], rtol=1e-6, atol=1e-9)


def test_low_rank_path_agrees_with_the_exact_path():
    X, y = problem(5, n=50)
    # a fixed number of steps: the exact path reads single-precision cached rows, so the two runs
    # may stop at different steps once eps is small; until then they take the same steps
    exact = RhoSVC(output="ensemble", max_iter=30).fit(X, y)
    full_rank = RhoSVC(output="ensemble", rank=49, max_iter=30).fit(X, y)
    assert full_rank.record_fields_["lowrank_trace_error"] < 1e-6
    assert np.allclose(full_rank.decision_function(X), exact.decision_function(X), rtol=1e-4,
                       atol=1e-7)
    assert np.array_equal(full_rank.predict(X), exact.predict(X))


def test_low_rank_model_predicts_with_its_own_kernel():
    X, y = problem(9, n=50)
    model = RhoSVC(output="last", rank=8).fit(X, y)
    result = model.fit_results_[0]
    assert len(model.support_) == 8  # an expansion over the pivots
    # on the training points, y_i f(x_i) is (G G' alpha)_i, the margins the run worked with
    assert np.allclose(y * model.decision_function(X), result.trace["margins"], rtol=1e-6,
                       atol=1e-9)


def test_pivoted_cholesky_reports_its_trace_error():
    X, y = problem(6, n=50)
    q = make_qmatrix(X, y, "csvc", gamma=2.0)
    factor, pivots, error = pivoted_cholesky(q, 10, 1e-14)
    Q = np.outer(y, y) * rbf_kernel(X, X, gamma=2.0)
    assert factor.shape == (50, 10)
    assert error == pytest.approx(np.trace(Q - factor @ factor.T) / np.trace(Q), rel=1e-5)
    assert np.allclose(factor @ factor[pivots].T, Q[:, pivots])  # the pivot columns are exact


def test_fixed_eta_overshoots_only_at_large_rates():
    X, y = problem(7, n=60)
    small = EGFixedSVC(eta=0.001, max_iter=300).fit(X, y).record_fields_
    large = EGFixedSVC(eta=50.0, max_iter=300).fit(X, y).record_fields_
    assert small["overshoot"] == -1
    assert np.all(np.diff(small["objective_trace"]) <= 1e-12)
    assert large["overshoot"] > 0


def test_bad_settings_fail_with_their_name():
    X, y = problem(8)
    with pytest.raises(ValueError, match="eps"):
        RhoSVC(eps=0.5, eps_first=0.1).fit(X, y)
    with pytest.raises(ValueError, match="output"):
        RhoSVC(output="middle").fit(X, y)
    with pytest.raises(ValueError, match="rank"):
        RhoSVC(rank=-1).fit(X, y)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), output=st.sampled_from(["last", "ensemble", "first"]))
def test_status_is_the_kkt_gap_of_the_returned_point_and_why_it_stopped(seed, output):
    """The gap is measured on the classifier returned (last, ensemble or Parzen window f_1),
    against min a'Qa on the simplex computed here from the kernel matrix; the paper's eps rule
    that stops short of it is "own_rule" and the Parzen window "closed_form", neither a warning."""
    X, y = problem(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ConvergenceWarning fails the test
        model = RhoSVC(output=output, gamma=0.5, eps=1e-3).fit(X, y)
    result = model.fit_results_[0]
    alpha = result.alpha
    margins = (np.outer(y, y) * rbf_kernel(X, X, gamma=0.5)) @ alpha
    objective = alpha @ margins
    gap = (objective - margins.min()) / objective
    # the solver reads single-precision cached Q rows
    assert result.kkt_violation == pytest.approx(gap, rel=1e-3, abs=1e-4)
    assert result.objective == pytest.approx(objective, rel=1e-4)
    holds = result.kkt_violation <= 1e-3
    if output == "first":
        assert (result.stop, result.iterations) == ("closed_form", 0)
        assert result.status == ("converged" if holds else "closed_form")
    else:
        assert result.stop == "own_rule"
        assert result.status == ("converged" if holds else "own_rule")


def test_max_iter_is_a_fault_with_a_warning():
    X, y = problem(3)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        model = RhoSVC(max_iter=2).fit(X, y)
    assert (model.status_, model.stop_) == (["max_iter"], ["max_iter"])


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), eta=st.sampled_from([0.001, 0.05, 2.0, 50.0]))
def test_fixed_eta_stops_by_its_own_rule_with_the_gap_of_the_returned_point(seed, eta):
    """A fixed number of updates is eg_fixed's published rule: stop "own_rule", never a
    ConvergenceWarning; the relative KKT gap (5) of the alpha returned (diverged runs included) is
    measured against the kernel matrix computed here, and "converged" iff it is <= 0.005."""
    X, y = problem(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ConvergenceWarning fails the test
        model = EGFixedSVC(eta=eta, max_iter=200, gamma=0.5).fit(X, y)
    result = model.fit_results_[0]
    margins = (np.outer(y, y) * rbf_kernel(X, X, gamma=0.5)) @ result.alpha
    objective = result.alpha @ margins
    gap = (objective - margins.min()) / objective
    assert (result.stop, result.iterations) == ("own_rule", 200)
    assert result.kkt_violation == pytest.approx(gap, rel=1e-3, abs=1e-4)
    assert result.objective == pytest.approx(objective, rel=1e-4)
    assert result.status == ("converged" if result.kkt_violation <= 0.005 else "own_rule")
