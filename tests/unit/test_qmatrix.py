"""The Q-matrix layer: every kind's rows, entries and diagonal against a dense reference, through
the cache, without it, after swaps, dense and sparse."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics.pairwise import rbf_kernel

from svmbench.kernels.provider import kernel_entry, kernel_row, kernel_row_once, swap_positions
from svmbench.kernels.qmatrix import make_precomputed_qmatrix, make_qmatrix


def reference_q(K, y, kind, C):
    if kind == "kernel":
        return K
    shift, ridge = (0.0, 0.0) if kind == "csvc" else (1.0, 1.0 / C)
    return np.outer(y, y) * (K + shift) + ridge * np.eye(K.shape[0])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), kind=st.sampled_from(["kernel", "csvc", "l2svm"]),
       sparse=st.booleans(), cache_mb=st.sampled_from([0.0, 0.001, 10.0]),
       C=st.floats(0.01, 100.0))
def test_rows_entries_diagonal_and_swaps_match_the_dense_q(seed, kind, sparse, cache_mb, C):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 40))
    X = rng.normal(size=(n, 5)) * (rng.random((n, 5)) < 0.5)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    expected = reference_q(rbf_kernel(X, X, gamma=0.4), y, kind, C)
    q = make_qmatrix(sp.csr_matrix(X) if sparse else X, y, kind, C=C, gamma=0.4,
                     cache_mb=cache_mb)
    order = np.arange(n)
    for _ in range(6):
        a, b = rng.integers(0, n, size=2)
        swap_positions(q, a, b)
        order[[a, b]] = order[[b, a]]
        view = expected[np.ix_(order, order)]
        i, length = int(rng.integers(0, n)), int(rng.integers(1, n + 1))
        np.testing.assert_allclose(kernel_row(q, i, length)[:length], view[i, :length], rtol=1e-6,
                                   atol=1e-6)
        out = np.empty(n)
        kernel_row_once(q, i, n, out)
        np.testing.assert_allclose(out, view[i], rtol=1e-6, atol=1e-6)
        j = int(rng.integers(0, n))
        assert kernel_entry(q, i, j) == pytest.approx(view[i, j], rel=1e-6, abs=1e-6)
        np.testing.assert_allclose(q.diag, np.diag(view), rtol=1e-12)


@pytest.mark.parametrize("kind", ["kernel", "csvc", "l2svm"])
def test_precomputed_q_folds_the_same_way(kind):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(12, 3))
    y = np.where(rng.random(12) < 0.5, -1.0, 1.0)
    gram = rbf_kernel(X, X, gamma=0.7)
    members = np.array([1, 4, 5, 9, 11])
    q = make_precomputed_qmatrix(gram, members, y[members], kind, C=2.0)
    expected = reference_q(gram[np.ix_(members, members)], y[members], kind, 2.0)
    for i in range(5):
        np.testing.assert_allclose(kernel_row(q, i, 5)[:5], expected[i], rtol=1e-12)
    np.testing.assert_allclose(q.diag, np.diag(expected), rtol=1e-12)


@pytest.mark.parametrize("kind, y, C, message", [
    ("qp", None, None, "unknown Q-matrix kind"),
    ("csvc", None, None, "pass y"),
    ("l2svm", np.ones(4), 0.0, "needs C > 0"),
    ("csvc", np.ones(3), None, "one sign"),
])
def test_bad_q_matrix_requests_say_what_to_fix(kind, y, C, message):
    with pytest.raises(ValueError, match=message):
        make_qmatrix(np.zeros((4, 2)), y, kind, C=C)
