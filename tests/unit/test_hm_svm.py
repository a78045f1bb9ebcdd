"""HM-SVM (hard margin, no bias) against brute-force QP solutions and the KKT conditions.

The references: on tiny problems, enumeration of every active set (the KKT point of a strictly
convex QP is unique); on larger well-conditioned ones, NNLS on the Cholesky factor of Q.
"""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numba import njit
from scipy.linalg import cholesky, solve_triangular
from scipy.optimize import nnls
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import linear_kernel, rbf_kernel

from svmbench.data import DataError, load_dataset, scale_features
from svmbench.kernels.qmatrix import make_qmatrix
from svmbench.models import HardMarginSVC
from svmbench.solvers import get_solver
from svmbench.solvers.hm_svm import TINY, delete_from_factor, forward_solve_block

TOL = 1e-6
solve = get_solver("hm_svm")


def random_problem(seed, n, d):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    return X, y


def kkt_violation(Q, alpha):
    """|g_i| where a_i > 0, max(-g_i, 0) where a_i = 0, g = Q a - 1 (in float64)."""
    g = Q @ alpha - 1.0
    return max(np.abs(g[alpha > 0]).max(initial=0.0), np.maximum(-g[alpha == 0], 0.0).max(initial=0.0))


def objective(Q, alpha):
    return 0.5 * alpha @ Q @ alpha - alpha.sum()


def enumerate_active_sets(Q):
    """The KKT point of min 1/2 a'Qa - 1'a, a >= 0 (Q positive definite), by trying every S."""
    n = Q.shape[0]
    for size in range(1, n + 1):
        for S in map(list, combinations(range(n), size)):
            alpha = np.zeros(n)
            alpha[S] = np.linalg.solve(Q[np.ix_(S, S)], np.ones(size))
            if np.all(alpha[S] > 0) and np.all(Q @ alpha - 1.0 >= -1e-9):
                return alpha
    raise AssertionError("no KKT point: Q is not positive definite")


def nnls_reference(Q):
    """min 1/2 a'Qa - 1'a, a >= 0 as NNLS: with Q = L L', it is 1/2 ||L'a - L^-1 1||^2 + const."""
    L = cholesky(Q, lower=True)
    alpha, _ = nnls(L.T, solve_triangular(L, np.ones(Q.shape[0]), lower=True), maxiter=100_000)
    return alpha


def check_solution(result, Q, reference):
    assert result.status == "converged" and result.trace["stop"] == "tolerance"
    assert np.all(result.alpha >= 0) and np.all(np.isfinite(result.alpha))
    assert result.kkt_violation <= TOL
    assert kkt_violation(Q, result.alpha) <= TOL
    assert result.objective == pytest.approx(objective(Q, result.alpha), rel=1e-9, abs=1e-9)
    assert result.objective == pytest.approx(objective(Q, reference), rel=1e-9, abs=1e-9)
    np.testing.assert_allclose(result.alpha, reference, atol=1e-5 * max(1.0, reference.max()))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 9), d=st.integers(1, 4),
       log2_gamma=st.floats(-2.0, 3.0))
def test_tiny_problems_match_active_set_enumeration(seed, n, d, log2_gamma):
    X, y = random_problem(seed, max(n, 2), d)
    gamma = 2.0**log2_gamma
    Q = np.outer(y, y) * rbf_kernel(X, gamma=gamma)
    # beyond, rounding in the solves (ours and the enumeration's) exceeds the 1e-9 checks
    # (cond 2.5e7 failed them); test_numerically_singular_q_terminates_without_nan covers it
    assume(np.linalg.cond(Q) <= 1e6)
    result = solve(make_qmatrix(X, y, "csvc", None, "rbf", gamma, cache_mb=1.0), y, {"tol": TOL})
    check_solution(result, Q, enumerate_active_sets(Q))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(10, 150), d=st.integers(2, 8),
       log2_gamma=st.floats(-4.0, 4.0))
def test_larger_problems_match_nnls(seed, n, d, log2_gamma):
    X, y = random_problem(seed, n, d)
    gamma = 2.0**log2_gamma
    Q = np.outer(y, y) * rbf_kernel(X, gamma=gamma)
    assume(np.linalg.cond(Q) <= 1e10)
    result = solve(make_qmatrix(X, y, "csvc", None, "rbf", gamma, cache_mb=1.0), y, {"tol": TOL})
    check_solution(result, Q, nnls_reference(Q))


@pytest.mark.data
@pytest.mark.parametrize("log2_gamma", [-8, 0, 8])
def test_heart_to_1e_6_at_small_and_large_gamma(log2_gamma):
    """Heart at gamma = 2^-8 needs alphas ~1e6 (cond(Q) ~ 1e11): still KKT to 1e-6 in float64."""
    try:
        dataset = load_dataset("heart", download=False)
    except DataError as error:
        pytest.skip(str(error))
    X, _ = scale_features(dataset.X_train)
    y = np.where(dataset.y_train == dataset.y_train.max(), 1.0, -1.0)
    gamma = 2.0**log2_gamma
    Q = np.outer(y, y) * rbf_kernel(X, gamma=gamma)
    result = solve(make_qmatrix(X, y, "csvc", None, "rbf", gamma), y, {})
    assert result.status == "converged" and result.tolerance == TOL
    assert kkt_violation(Q, result.alpha) <= TOL
    assert result.objective == pytest.approx(objective(Q, nnls_reference(Q)), rel=1e-9)


def test_kernel_rows_are_counted_once_per_entry_and_bypass_the_cache():
    """At a huge gamma Q is the identity to working precision: every sample enters S once (alpha
    = 1) and none leaves, so exactly n full rows are requested; with a cache that would hold
    them all, none is served from it."""
    X, y = random_problem(3, 40, 3)
    for mb in (0.0, 1.0):
        result = solve(make_qmatrix(X, y, "csvc", None, "rbf", 1e4, cache_mb=mb), y, {})
        np.testing.assert_allclose(result.alpha, 1.0)
        assert result.kernel_requested == result.kernel_computed == y.shape[0] ** 2


def test_max_iter_stops_early():
    X, y = random_problem(5, 30, 3)
    result = solve(make_qmatrix(X, y, "csvc", None, "rbf", 0.5), y, {"max_iter": 2})
    assert result.status == "max_iter" and result.iterations == 2
    assert result.trace["stop"] == "max_iter" and result.kkt_violation > TOL
    with pytest.warns(ConvergenceWarning, match="max_iter after 2 iterations"):
        HardMarginSVC(gamma=0.5, max_iter=2).fit(X, y)


def test_max_iter_minus_one_means_no_limit():
    """Every sample a support vector takes n entering rounds when they enter one at a time:
    more than the old default cap would allow for nothing; -1 must not cap at all."""
    X, y = random_problem(5, 30, 3)
    unlimited = solve(make_qmatrix(X, y, "csvc", None, "rbf", 0.5), y, {"max_iter": -1})
    assert unlimited.status == "converged"
    capped = solve(make_qmatrix(X, y, "csvc", None, "rbf", 0.5), y, {"max_iter": unlimited.iterations - 1})
    assert capped.status == "max_iter"


def test_identical_points_with_the_same_label_are_fine():
    """A duplicated sample makes Q singular but the dual stays bounded (its column is dependent)."""
    X, y = random_problem(7, 30, 3)
    X, y = np.vstack([X, X[:5]]), np.concatenate([y, y[:5]])
    Q = np.outer(y, y) * rbf_kernel(X, gamma=0.5)
    result = solve(make_qmatrix(X, y, "csvc", None, "rbf", 0.5), y, {})
    assert result.status == "converged"
    assert kkt_violation(Q, result.alpha) <= TOL
    reference = solve(make_qmatrix(X[:30], y[:30], "csvc", None, "rbf", 0.5), y[:30], {})
    assert result.objective == pytest.approx(reference.objective, rel=1e-9)


@pytest.mark.parametrize("case", ["conflicting duplicate", "zero vector, linear kernel"])
def test_infeasible_hard_margin_stops_as_infeasible(case):
    """No separating hyperplane through the origin: the dual is unbounded; stop, no NaN."""
    X, y = random_problem(11, 20, 3)
    if case == "conflicting duplicate":
        X, y, kernel = np.vstack([X, X[:1]]), np.concatenate([y, -y[:1]]), "rbf"
    else:
        X, kernel = np.vstack([X, np.zeros((1, 3))]), "linear"
        y = np.concatenate([y, [1.0]])
    result = solve(make_qmatrix(X, y, "csvc", None, kernel, 0.5), y, {})
    assert result.status == "infeasible" and result.trace["stop"] == "unbounded"
    assert np.all(np.isfinite(result.alpha)) and np.isfinite(result.objective)
    with pytest.warns(ConvergenceWarning, match="infeasible.*no hard-margin separator"):
        HardMarginSVC(kernel=kernel, gamma=0.5).fit(X, y)


def test_no_hard_margin_is_never_converged():
    """Overlapping classes at a small gamma: the old relative tolerance (1e-14 ||a||_1 max Q_ii)
    called points with KKT violations of order 1 converged; the absolute check may not."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = np.where(X[:, 0] + rng.normal(size=200) > 0, 1.0, -1.0)
    Q = np.outer(y, y) * rbf_kernel(X, gamma=2.0**-4)
    result = solve(make_qmatrix(X, y, "csvc", None, "rbf", 2.0**-4), y, {})
    independent = kkt_violation(Q, result.alpha)
    assert result.status != "converged" and independent > TOL
    rounding = 1e-12 * (np.abs(Q) @ result.alpha + 1.0).max()  # g's rounding, both ways
    assert result.kkt_violation == pytest.approx(independent, abs=rounding)
    with pytest.warns(ConvergenceWarning):
        model = HardMarginSVC(gamma=2.0**-4).fit(X, y)
    assert model.status_ == [result.status]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(5, 60), d=st.integers(1, 3),
       log2_gamma=st.floats(-30.0, -6.0))
def test_numerically_singular_q_terminates_without_nan(seed, n, d, log2_gamma):
    """Tiny gamma: Q is singular to working precision; the solver stops, finite, and reports it."""
    X, y = random_problem(seed, n, d)
    gamma = 2.0**log2_gamma
    result = solve(make_qmatrix(X, y, "csvc", None, "rbf", gamma), y, {})
    assert result.iterations <= 10 * n + 1000
    assert np.all(np.isfinite(result.alpha)) and np.all(result.alpha >= 0)
    assert np.isfinite(result.objective) and np.isfinite(result.kkt_violation)
    assert result.status in ("converged", "stalled", "infeasible")
    assert (result.status == "converged") == (result.kkt_violation <= TOL)
    Q = np.outer(y, y) * rbf_kernel(X, gamma=gamma)
    rounding = 1e-12 * (np.abs(Q) @ result.alpha + 1.0).max()  # g's rounding, both ways
    assert kkt_violation(Q, result.alpha) == pytest.approx(result.kkt_violation, abs=rounding)


def test_linear_kernel_matches_nnls():
    X, y = random_problem(13, 6, 8)  # 6 points in 8 dimensions: separable through the origin
    Q = np.outer(y, y) * linear_kernel(X)
    result = solve(make_qmatrix(X, y, "csvc", None, "linear"), y, {})
    check_solution(result, Q, nnls_reference(Q))


def test_bad_labels_and_tolerance_are_rejected():
    X, y = random_problem(1, 10, 2)
    with pytest.raises(ValueError, match="-1, \\+1"):
        solve(make_qmatrix(X, y, "csvc", None, "rbf", 1.0), np.where(y > 0, 1.0, 0.0), {})
    with pytest.raises(ValueError, match="one label per training point"):
        solve(make_qmatrix(X, y, "csvc", None, "rbf", 1.0), y[:5], {})
    with pytest.raises(ValueError, match="tol must be > 0"):
        solve(make_qmatrix(X, y, "csvc", None, "rbf", 1.0), y, {"tol": 0.0})


@njit
def blocked(L, m, T, c, acc, acc_next):
    """forward_solve_block, which has no entry point for Python."""
    forward_solve_block(L, m, T, c, acc, acc_next)


@njit
def deleted(L, m, k, rotations):
    """delete_from_factor, which has no entry point for Python."""
    delete_from_factor(L, m, k, rotations)


@given(seed=st.integers(0, 10_000), m=st.integers(0, 13), c=st.integers(1, 7))
@settings(max_examples=40, deadline=None)
def test_the_blocked_forward_solve_takes_each_entrys_terms_in_row_order(seed, m, c):
    """forward_solve_block (two rows of the solution at a time) gives the bits of solving row
    after row, each entry's terms k = 0, 1, ... subtracted in order, and L^-1 T."""
    rng = np.random.default_rng(seed)
    L = np.tril(rng.normal(size=(m + 2, m + 2)))
    L[np.diag_indices(m + 2)] = rng.uniform(0.5, 2.0, size=m + 2)
    T = rng.normal(size=(m + 2, 9))
    T[rng.random(T.shape) < 0.2] = 1e-160  # flushed to 0 where a row of the solution starts
    given_T, row_by_row = T.copy(), T.copy()
    blocked(L, m, T, c, np.empty(c), np.empty(c))
    for i in range(m):
        acc = row_by_row[i, :c].copy()
        for k in range(i):
            acc = acc - L[i, k] * row_by_row[k, :c]
        solved = acc / L[i, i]
        row_by_row[i, :c] = np.where(np.abs(solved) >= TINY, solved, 0.0)
    assert np.array_equal(T, row_by_row)  # columns past c and rows past m untouched too
    if m:
        np.testing.assert_allclose(T[:m, :c], solve_triangular(L[:m, :m], given_T[:m, :c],
                                                                lower=True), atol=1e-9, rtol=1e-9)


@given(seed=st.integers(0, 10_000), m=st.integers(1, 12), data=st.data())
@settings(max_examples=40, deadline=None)
def test_deleting_from_the_factor_rotates_row_after_row_and_factors_q_without_k(seed, m, data):
    """delete_from_factor (two rows at a time) gives the bits of rotating one row after the
    other, and a lower-triangular factor of Q without row and column k."""
    def flush(x):
        return x if abs(x) >= TINY else 0.0

    k = data.draw(st.integers(0, m - 1))
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(m, m + 2))
    Q = A @ A.T
    L = np.zeros((m + 1, m + 1))
    L[:m, :m] = cholesky(Q, lower=True)
    one_by_one = L.copy()
    deleted(L, m, k, np.empty((2, m + 1)))
    cos, sin = np.empty(m + 1), np.empty(m + 1)
    for r in range(k, m - 1):
        row = one_by_one[r]
        row[: r + 2] = one_by_one[r + 1, : r + 2]
        for c in range(k, r):
            left, right = row[c], row[c + 1]
            row[c] = flush(cos[c] * left + sin[c] * right)
            row[c + 1] = flush(cos[c] * right - sin[c] * left)
        radius = np.hypot(row[r], row[r + 1])
        cos[r], sin[r] = (row[r] / radius, row[r + 1] / radius) if radius > 0.0 else (1.0, 0.0)
        row[r], row[r + 1] = radius, 0.0
    one_by_one[m - 1, :m] = 0.0
    assert np.array_equal(L, one_by_one)
    kept = np.delete(np.arange(m), k)
    factor = L[: m - 1, : m - 1]
    assert np.array_equal(factor, np.tril(factor))
    np.testing.assert_allclose(factor @ factor.T, Q[np.ix_(kept, kept)], atol=1e-9 * Q.max())
