"""GS-SVM (gs-svm-tnn2008 Algorithm 1) against what the paper's equations guarantee."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_iris
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from svmbench.kernels.provider import PARALLEL_CHUNK, PARALLEL_MIN, kernel_row_once
from svmbench.kernels.qmatrix import make_qmatrix
from svmbench.models import GSSVC, pair_votes
from svmbench.solvers.gs_svm import solve


def random_problem(seed, n, d=4, sparse=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.7 * rng.normal(size=n) > 0, 1.0, -1.0)
    return (sp.csr_matrix(X) if sparse else X), y


def dual_objective(alpha, y, K):
    """eq. 10: 1/2 sum_ij a_i a_j y_i y_j K_ij - sum_i a_i."""
    ya = alpha * y
    return 0.5 * ya @ K @ ya - alpha.sum()


def run(X, y, gamma, max_iter=-1, cache_mb=10):
    q = make_qmatrix(X, y, "csvc", gamma=gamma, cache_mb=cache_mb)
    return solve(q, y, {"max_iter": max_iter})


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 60), gamma=st.floats(0.05, 5.0),
       sparse=st.booleans())
def test_objective_decreases_at_every_step_and_stop_condition_holds(seed, n, gamma, sparse):
    X, y = random_problem(seed, n, sparse=sparse)
    K = rbf_kernel(X, X, gamma=gamma)
    result = run(X, y, gamma)
    steps = result.iterations
    objectives = [dual_objective(run(X, y, gamma, max_iter=m).alpha, y, K) for m in range(steps + 1)]
    assert np.all(np.diff(objectives) < 0)  # every step strictly decreases eq. 10
    np.testing.assert_allclose(result.trace["objective_trace"], objectives, atol=1e-5)
    assert result.objective == pytest.approx(objectives[-1], abs=1e-5)
    # stopping rule (Algorithm 1, step 3): every unused sample has gradient >= 0
    gradient = y * (K @ (result.alpha * y)) - 1.0  # eq. 15
    unused = result.alpha == 0
    assert np.all(gradient[unused] >= -1e-6)
    assert result.status == "converged"
    assert np.all(result.alpha >= 0)
    # each sample is used at most once, and every used sample is a support vector
    assert steps == np.count_nonzero(result.alpha) <= n


@pytest.mark.parametrize("seed", range(5))
def test_each_selection_is_the_brute_force_argmin_of_eq20(seed):
    X, y = random_problem(seed, 12)
    gamma = 0.7
    K = rbf_kernel(X, X, gamma=gamma)
    alpha = np.zeros(12)
    used = np.zeros(12, dtype=bool)
    for m in range(1, 13):
        gradient = y * (K @ (alpha * y)) - 1.0
        h = np.where(gradient < 0, -gradient**2 / (2 * np.diag(K)), 0.0)
        h[used] = np.inf
        if np.all(gradient[~used] >= 0):
            break
        beta = int(np.argmin(h))
        alpha[beta] = -gradient[beta] / K[beta, beta]  # eq. 22
        used[beta] = True
        solved = run(X, y, gamma, max_iter=m).alpha
        np.testing.assert_array_equal(solved > 0, alpha > 0)  # the same samples, chosen in order
        np.testing.assert_allclose(solved, alpha, atol=1e-6)  # kernel rows are cached as float32


@pytest.mark.parametrize("cache_mb", [0, 10])
def test_kernel_counts_are_one_full_row_per_support_vector(cache_mb):
    X, y = random_problem(3, 80)
    result = run(X, y, 0.5, cache_mb=cache_mb)
    n_sv = np.count_nonzero(result.alpha)
    assert result.kernel_requested == result.kernel_computed == n_sv * 80


def test_estimator_decision_is_the_kernel_expansion_without_bias():
    X, y = random_problem(4, 70)
    model = GSSVC(gamma=0.5).fit(X, y)
    Xt = random_problem(5, 30)[0]
    expected = rbf_kernel(Xt, model.support_vectors_, gamma=0.5) @ model.dual_coef_[0]
    np.testing.assert_allclose(model.decision_function(Xt), expected, rtol=1e-9)
    assert model.intercept_[0] == 0.0


def test_sparse_and_dense_input_give_the_same_model():
    X, y = random_problem(6, 90, d=10)
    dense, sparse = GSSVC(gamma=0.2).fit(X, y), GSSVC(gamma=0.2).fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.support_, sparse.support_)
    np.testing.assert_allclose(dense.dual_coef_, sparse.dual_coef_, rtol=1e-6)


def test_multiclass_one_vs_one_voting():
    X, y = load_iris(return_X_y=True)
    model = GSSVC(gamma=0.5).fit(X, y)
    assert model.dual_coef_.shape[0] == 3  # one row per class pair
    assert model.score(X, y) > 0.9
    np.testing.assert_array_equal(np.argmax(model.decision_function(X), axis=1),
                                  np.searchsorted(model.classes_, model.predict(X)))


def test_one_class_is_a_clear_error():
    X, _ = random_problem(7, 20)
    with pytest.raises(ValueError, match="at least two classes"):
        GSSVC().fit(X, np.ones(20))



@pytest.mark.parametrize("seed", range(5))
def test_one_vs_one_votes_elect_what_libsvm_elects_on_a_fixed_model(seed):
    """Our voting (pair_votes, ties to the lowest class index) on scikit-learn's own pairwise
    decision values gives scikit-learn's prediction (pair (i, j) > 0 means class i in both)."""
    rng = np.random.default_rng(seed)
    X, y = rng.normal(size=(120, 2)), rng.integers(0, 4, size=120)  # noisy: many tied votes
    svc = SVC(gamma=5.0, C=10.0, decision_function_shape="ovo").fit(X, y)
    X_test = rng.normal(size=(300, 2))
    votes = pair_votes(svc.decision_function(X_test), 4)
    assert (np.sort(votes, axis=1)[:, -1] == np.sort(votes, axis=1)[:, -2]).any()  # ties occur
    np.testing.assert_array_equal(svc.classes_[np.argmax(votes, axis=1)], svc.predict(X_test))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 80), gamma=st.floats(0.05, 5.0),
       sparse=st.booleans(), duplicated=st.booleans())
def test_rows_over_the_unused_set_give_the_same_model_at_the_papers_2005_count(seed, n, gamma,
                                                                              sparse, duplicated):
    """``duplicated``: every sample twice, in reversed order, so that h ties and the tie goes
    to the first sample, which positions moved by swaps do not keep first."""
    X, y = random_problem(seed, n, sparse=sparse)
    if duplicated:
        X, y = (sp.vstack([X, X[::-1]]) if sparse else np.vstack([X, X[::-1]])), \
            np.concatenate([y, y[::-1]])
        n = 2 * n
    results = {}
    for rows in ("full", "unused"):
        q = make_qmatrix(X, y, "csvc", gamma=gamma, cache_mb=10)
        results[rows] = solve(q, y, {"rows": rows})
    full, unused = results["full"], results["unused"]
    np.testing.assert_allclose(unused.alpha, full.alpha, rtol=1e-12, atol=1e-12)
    assert unused.objective == pytest.approx(full.objective, rel=1e-12)
    assert unused.status == full.status == "converged"
    n_sv = full.iterations
    assert full.kernel_requested == full.kernel_computed == n_sv * n  # gs-svm-tnn2008 K2
    # gs-svm-pakdd2005 Table 1: step m reads its row over the n - m unused samples
    assert unused.kernel_requested == unused.kernel_computed == n_sv * n - n_sv * (n_sv - 1) // 2


def reference_gs_svm(Q, diag):
    """Algorithm 1 in numpy over the whole Q (rows Q, diagonal diag): each step's argmin of eq.
    20, ties to the first."""
    alpha, gradient = np.zeros(len(diag)), -np.ones(len(diag))
    unused = np.ones(len(diag), dtype=bool)
    while True:
        h = np.where(unused & (gradient < 0), -gradient**2 / (2 * diag), np.inf)
        beta = int(np.argmin(h))
        if h[beta] == np.inf:
            return alpha
        alpha[beta] = -gradient[beta] / diag[beta]  # eq. 22
        unused[beta] = False
        gradient += alpha[beta] * Q[beta]


def provider_q(X, y, gamma):
    """The whole Q as the solver reads it: the provider's double-precision rows (kernel_row_once)
    and its diagonal. Its rows take distances as |x|^2 + |z|^2 - 2 <x, z>, so a dense point's
    own entry can be 1 - 5e-15 where the diagonal is 1: after a sample's step its duplicate keeps
    a gradient of -4e-18, not the 0 of K from differences, and may be selected at the end (seed
    481, n 2742: step 1491, h = -2.6e-36). The reference reads the same numbers, so the test
    compares the selection, not the kernel's rounding."""
    q = make_qmatrix(X, y, "csvc", gamma=gamma, cache_mb=0)
    Q = np.empty((len(y), len(y)))
    for position in range(len(y)):
        kernel_row_once(q, position, len(y), Q[position])
    return Q, q.diag


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(PARALLEL_CHUNK + 1, 3 * PARALLEL_CHUNK),
       gamma=st.floats(0.5, 5.0), duplicated=st.booleans())
@example(seed=481, n=2742, gamma=2.7370141982159293, duplicated=True)  # see provider_q
def test_steps_chunk_by_chunk_on_one_thread_or_all_give_the_one_pass_model(seed, n, gamma,
                                                                           duplicated):
    """Over several PARALLEL_CHUNKs, the step and its selection chunk by chunk (in parallel or
    not, full rows or unused rows) select what numpy's argmin over the whole Q selects; with
    every sample twice, ties across chunks go to the first sample."""
    X, y = random_problem(seed, n // 2 if duplicated else n)
    if duplicated:
        X, y = np.vstack([X, X[::-1]]), np.concatenate([y, y[::-1]])
    Q, diag = provider_q(X, y, gamma)
    if duplicated:  # the ties are exact: a sample's row is its duplicate's
        np.testing.assert_array_equal(Q, Q[::-1])
    expected = reference_gs_svm(Q, diag)
    models = {}
    for rows in ("full", "unused"):
        for parallel_min in (0, np.iinfo(np.int64).max):
            q = make_qmatrix(X, y, "csvc", gamma=gamma, cache_mb=0)
            q.settings[PARALLEL_MIN] = parallel_min
            models[rows, parallel_min] = solve(q, y, {"rows": rows}).alpha
    for alpha in models.values():
        np.testing.assert_array_equal(alpha > 0, expected > 0)
        np.testing.assert_allclose(alpha, expected, rtol=1e-9, atol=1e-12)
    for rows in ("full", "unused"):
        np.testing.assert_array_equal(*[alpha for (kind, _), alpha in models.items()
                                        if kind == rows])


def test_unknown_rows_is_refused():
    X, y = random_problem(0, 10)
    with pytest.raises(ValueError, match="unknown rows 'some'"):
        solve(make_qmatrix(X, y, "csvc", gamma=1.0), y, {"rows": "some"})


def test_a_sample_with_zero_diagonal_is_refused_with_the_fix():
    X, y = random_problem(3, 20)
    X[7] = 0.0  # k(x, x) = 0 under the linear kernel: eq. 22 would divide by it
    with pytest.raises(ValueError, match=r"Q_ii = k\(x_i, x_i\) > 0.*sample 7 has 0.0"):
        GSSVC(kernel="linear").fit(X, y)


def test_a_candidate_whose_h_underflows_to_zero_is_still_selected():
    """Algorithm 1 step 3 goes on while an unused sample has g < 0, even when its h = -g^2 /
    (2 Q_ii) underflows to -0 (zoo at gamma 16: g = -7.8e-258), here as the last sample."""
    from svmbench.solvers.gs_svm import _select, _step

    gradient, score, lows = np.array([0.5, 1.0, 0.2, -1e-200]), np.empty(4), np.empty(1)
    for parallel in (False, True):
        gradient[3] = -1e-200
        _step(gradient, np.zeros(4), 0.0, np.ones(4), np.ones(4, dtype=bool), score, lows, 4,
              parallel)
        assert _select(score, lows, np.arange(4), 4, True) == (3, 0.0)
        gradient[3] = 0.0
        _step(gradient, np.zeros(4), 0.0, np.ones(4), np.ones(4, dtype=bool), score, lows, 4,
              parallel)
        assert _select(score, lows, np.arange(4), 4, True) == (-1, 0.0)
