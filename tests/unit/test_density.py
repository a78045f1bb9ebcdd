"""The engine follows the data's density, not its container: a sparse matrix dense enough is served
by the dense row filler, with the same kernel values, bit for bit, and the same fits; and a fit on
two threads equals the fit on one."""

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import svmbench.kernels.math as kernel_math
import svmbench.kernels.provider as kernel_provider
from svmbench.algorithms import build_estimator
from svmbench.kernels.math import column_density, make_points
from svmbench.kernels.provider import kernel_row_once, make_provider, swap_positions

PARAMS = {"rbf": {"gamma": 0.3}, "poly": {"gamma": 0.5, "coef0": 1.0, "degree": 2}, "linear": {}}


def dense_enough_csr(seed, n, d, density):
    """A CSR matrix of rounded normal values, each entry nonzero with probability ``density``,
    its zero features as often as not stored explicitly (they count as nonzeros for the layout)."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 3) * (rng.random((n, d)) < density)
    return sp.csr_matrix(X)


def test_column_density_is_the_share_of_points_a_column_walk_touches():
    X = sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [1.0, 0.0, 0.0], [1.0, 3.0, 0.0],
                                [1.0, 0.0, 0.0]]))
    # feature counts 4, 1, 1: (16 + 1 + 1) / (6 nonzeros * 4 points)
    assert column_density(X) == pytest.approx(18 / 24)
    assert column_density(sp.csr_matrix((3, 2))) == 0.0
    dense_share = kernel_math.DENSE_MIN_COLUMN_DENSITY
    assert make_points(X)[0].shape == (4, 3) and dense_share <= 0.75
    sparse = sp.csr_matrix(np.eye(4))  # column density 1/4
    assert make_points(sparse)[0].shape == (0, 0) and dense_share > 0.25
    wide = sp.hstack([sp.csr_matrix(np.ones((4, 1))), sp.csr_matrix((4, 20))]).tocsr()
    assert column_density(wide) == 1.0  # but 4 of 84 entries nonzero: kept sparse
    assert make_points(wide)[0].shape == (0, 0)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 60), st.integers(1, 30), st.floats(0.5, 1.0),
       st.sampled_from(sorted(PARAMS)))
def test_dense_enough_sparse_rows_equal_the_sparse_fillers_rows(seed, n, d, density, kernel):
    """Every row, short and full, before and after positions are swapped, equals the row of the
    same data kept sparse exactly (same products summed in feature order)."""
    X = dense_enough_csr(seed, n, d, density)
    X.data[::3] = 0.0  # explicit zeros
    densified = make_provider(X, kernel, cache_mb=0, **PARAMS[kernel])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kernel_math, "DENSE_MIN_COLUMN_DENSITY", np.inf)
        sparse = make_provider(X, kernel, cache_mb=0, **PARAMS[kernel])
    expect_dense = (column_density(X) >= kernel_math.DENSE_MIN_COLUMN_DENSITY
                    and X.nnz >= kernel_math.DENSE_MIN_DENSITY * n * d)
    assert (densified.points[0].shape[0] > 0) == expect_dense
    assert sparse.points[0].shape == (0, 0)
    np.testing.assert_array_equal(densified.diag, sparse.diag)
    got, reference = np.empty(n), np.empty(n)
    rng = np.random.default_rng(seed)
    for _ in range(2):
        for i in sorted({0, n // 2, n - 1}):
            for length in (1, 3, n):
                kernel_row_once(densified, i, length, got)
                kernel_row_once(sparse, i, length, reference)
                np.testing.assert_array_equal(got[:length], reference[:length])
        for a, b in rng.integers(0, n, size=(n, 2)):
            swap_positions(densified, a, b)
            swap_positions(sparse, a, b)



@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 numba threads")
@pytest.mark.parametrize("threads", [1, 2])
def test_long_dense_rows_after_swaps_equal_the_sparse_fillers_rows(threads):
    """Rows long enough to be filled in parallel (from the dense points' columns by position, a
    chunk to a thread), full and prefixes, after positions were swapped: equal, exactly, to the
    rows of the same data kept sparse."""
    n = 2 * kernel_provider.PARALLEL_MIN_ENTRIES + 100
    X = dense_enough_csr(7, n, 9, 0.8)
    densified = make_provider(X, "rbf", cache_mb=0, gamma=0.3)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kernel_math, "DENSE_MIN_COLUMN_DENSITY", np.inf)
        sparse = make_provider(X, "rbf", cache_mb=0, gamma=0.3)
    assert densified.position_columns.shape == (9, n) and sparse.points[0].shape == (0, 0)
    got, reference = np.empty(n), np.empty(n)
    rng = np.random.default_rng(0)
    numba.set_num_threads(threads)
    try:
        for _ in range(2):
            for i in (0, n // 3, n - 1):
                for length in (n - 50, n):
                    kernel_row_once(densified, i, length, got)
                    kernel_row_once(sparse, i, length, reference)
                    np.testing.assert_array_equal(got[:length], reference[:length])
            for a, b in rng.integers(0, n, size=(n // 4, 2)):
                swap_positions(densified, a, b)
                swap_positions(sparse, a, b)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)

def fit_summary(X, y, name, threads):
    numba.set_num_threads(threads)
    try:
        params = {"name": name, "gamma": 0.2, "cache_mb": 1.0}
        if name != "gs_svm":
            params.update(C=10.0, tol=1e-3)
        model = build_estimator(params).fit(X, y)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return (model.n_iter_.tolist(), model.kernel_requested_, model.kernel_computed_,
            model.support_.tolist(), model.dual_coef_, model.intercept_,
            model.decision_function(X[:40]))


def assert_same_fit(a, b):
    assert a[:4] == b[:4]
    for got, expected in zip(a[4:], b[4:]):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 numba threads")
@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10**6), st.integers(1500, 3000), st.integers(3, 12),
       st.sampled_from(["smo_wss2", "gs_svm"]))
def test_fits_equal_across_containers_and_thread_counts(seed, n, d, name):
    """smo_wss2 and GS-SVM on a dense-enough CSR matrix: the same iterations, kernel counts,
    support, coefficients and decision values as on the matrix kept sparse, and on 2 threads as
    on 1 (rows split among threads from 1024 entries, so that these problems' rows are split)."""
    X = dense_enough_csr(seed, n, d, 0.8)
    y = np.where(X[:, 0].toarray().ravel() + 0.3 * X[:, 1].toarray().ravel() > 0, 1, -1)
    y[:2] = (1, -1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kernel_provider, "PARALLEL_MIN_ENTRIES", 1024)
        one = fit_summary(X, y, name, 1)
        two = fit_summary(X, y, name, 2)
        patch.setattr(kernel_math, "DENSE_MIN_COLUMN_DENSITY", np.inf)
        kept_sparse = fit_summary(X, y, name, 1)
    assert_same_fit(one, two)
    assert_same_fit(one, kept_sparse)
