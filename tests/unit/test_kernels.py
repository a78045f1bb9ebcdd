"""The kernel provider against scikit-learn's pairwise kernels, and its counting and caching."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from svmbench.kernels.cache import (
    apply_pending_swaps,
    cache_entries,
    cached_row,
    get_data,
    make_row_cache,
    swap_index,
)
from svmbench.kernels.cross import weighted_kernel_sums
from svmbench.kernels.math import binary_bits, exp_nonpositive, make_kernel_spec, make_points
from svmbench.kernels.provider import (
    CACHING,
    PARALLEL_MIN,
    PARALLEL_MIN_ENTRIES,
    BinaryProvider,
    counts,
    defer_swap_positions,
    kernel_entry,
    kernel_row,
    kernel_row_once,
    make_provider,
    swap_positions,
    with_kind,
)

KERNELS = {
    "rbf": lambda A, B: rbf_kernel(A, B, gamma=0.3),
    "poly": lambda A, B: polynomial_kernel(A, B, degree=2, gamma=0.5, coef0=1.0),
    "linear": linear_kernel,
}
PARAMS = {"rbf": {"gamma": 0.3}, "poly": {"gamma": 0.5, "coef0": 1.0, "degree": 2}, "linear": {}}


def random_data(seed, n=60, d=7, sparse=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.4)
    return sp.csr_matrix(X) if sparse else X


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_rows_entries_and_diagonal_match_sklearn(kernel, sparse):
    X = random_data(1, n=5000 if kernel == "rbf" else 50, sparse=sparse)  # 5000: parallel path
    expected = KERNELS[kernel](X, X)
    provider = make_provider(X, kernel, cache_mb=1, **PARAMS[kernel])
    provider.settings[PARALLEL_MIN] = PARALLEL_MIN_ENTRIES  # sparse rows too
    for i in (0, 3, X.shape[0] - 1):
        np.testing.assert_allclose(kernel_row(provider, i, X.shape[0]), expected[i], rtol=1e-6,
                                   atol=1e-6)
    assert kernel_entry(provider, 2, 4) == pytest.approx(expected[2, 4], rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(provider.diag, np.diag(expected), rtol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_prediction_sums_match_sklearn(sparse):
    A, B = random_data(2, n=3000, sparse=sparse), random_data(3, n=40, sparse=sparse)
    weights = np.random.default_rng(4).normal(size=(3, 40))
    weights[1, ::3] = 0.0  # a class pair's coefficients are 0 off its own support vectors
    sums, evaluations = weighted_kernel_sums(make_points(A), make_points(B),
                                             make_kernel_spec("rbf", 0.3), weights, A.shape[1])
    np.testing.assert_allclose(sums, rbf_kernel(A, B, gamma=0.3) @ weights.T, rtol=1e-10)
    assert evaluations == 3000 * 40


def test_counts_without_cache_are_the_requested_entries():
    X = random_data(5)
    provider = make_provider(X, "rbf", gamma=0.3, cache_mb=0)
    for i in [1, 2, 1, 1, 7, 2]:
        kernel_row(provider, i, 60)
    kernel_entry(provider, 3, 4)
    assert counts(provider) == (6 * 60 + 1, 6 * 60 + 1)


def test_cache_larger_than_the_matrix_computes_each_entry_once():
    X = random_data(6)
    provider = make_provider(X, "rbf", gamma=0.3, cache_mb=10)
    rows = np.random.default_rng(0).integers(0, 60, size=500)
    for i in rows:
        kernel_row(provider, int(i), 60)
    requested, computed = counts(provider)
    assert requested == 500 * 60
    assert computed == 60 * len(np.unique(rows)) <= 60 * 60


def test_lru_evicts_the_least_recently_used_row():
    n = 100
    X = random_data(7, n=n)
    cache_mb = 3 * n * 4 / 2**20  # exactly three rows of float32
    assert cache_entries(n, cache_mb) == 3 * n
    provider = make_provider(X, "rbf", gamma=0.3, cache_mb=cache_mb)
    for i in (0, 1, 2, 0, 3):  # 1 is least recently used when 3 arrives
        kernel_row(provider, i, n)
    before = counts(provider)[1]
    kernel_row(provider, 0, n)
    kernel_row(provider, 2, n)
    assert counts(provider)[1] == before
    kernel_row(provider, 1, n)
    assert counts(provider)[1] == before + n


def test_partial_rows_compute_only_the_missing_tail():
    X = random_data(8)
    provider = make_provider(X, "rbf", gamma=0.3, cache_mb=1)
    kernel_row(provider, 5, 20)
    kernel_row(provider, 5, 60)
    kernel_row(provider, 5, 30)
    assert counts(provider) == (110, 60)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["row", "swap", "swap_keep_prefix"]),
                          st.integers(0, 29), st.integers(0, 29), st.integers(1, 30)),
                min_size=1, max_size=40),
       st.integers(0, 8))
def test_rows_stay_correct_under_any_sequence_of_swaps(operations, cache_rows):
    """LIBSVM's swap_index semantics: whatever is cached, a row always holds true kernel values."""
    n = 30
    X = random_data(9, n=n, sparse=True)
    expected = rbf_kernel(X, X, gamma=0.3)
    provider = make_provider(X, "rbf", gamma=0.3, cache_mb=cache_rows * n * 4 / 2**20)
    for kind, a, b, length in operations:
        if kind.startswith("swap"):
            swap_positions(provider, a, b, kind == "swap_keep_prefix")
        else:
            row = kernel_row(provider, a, length)
            truth = expected[provider.perm[a], provider.perm[:length]]
            np.testing.assert_allclose(row[:length], truth, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(provider.diag, 1.0)
    assert sorted(provider.perm) == list(range(n))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["row", "entry", "swap", "swap", "swap_keep_prefix",
                                           "swap_run", "compare"]),
                          st.integers(0, 29), st.integers(0, 29), st.integers(1, 30)),
                min_size=1, max_size=60),
       st.integers(2, 10))
# a row one longer than a batch's highest position misses the batch, then is read
@example([("row", 0, 0, 5), ("swap", 1, 4, 1), ("row", 2, 0, 3), ("compare", 0, 0, 1)], 4)
# a row that missed a batch is moved, by a swap, where a row that took it was
@example([("row", 0, 0, 30), ("swap", 1, 4, 1), ("row", 2, 0, 3), ("swap", 0, 2, 1),
          ("compare", 0, 0, 1)], 4)
def test_deferred_swaps_leave_the_cache_as_immediate_ones(operations, cache_rows):
    """A run of deferred swaps (a shrinking pass; "swap_run": up to 3n of them, more than the
    deferred swaps' array holds) then a request: the same rows, cuts, LRU order and counts as the
    same swaps made one at a time. The rows' entries are compared now and then ("compare"), as
    reading a row brings it up to date: between, rows miss batches of swaps."""
    n = 30
    X = np.random.default_rng(14).normal(size=(n, 5))  # distinct values: a misplaced one shows
    immediate, deferred = (make_provider(X, "rbf", gamma=0.3, cache_mb=cache_rows * n * 4 / 2**20)
                           for _ in range(2))
    for kind, a, b, length in operations:
        if kind == "swap_keep_prefix":
            swap_positions(immediate, a, b, True)
            swap_positions(deferred, a, b, True)
            continue
        if kind.startswith("swap"):
            for m in range(3 * length if kind == "swap_run" else 1):
                swap_positions(immediate, (a + m) % n, (b + 7 * m) % n)
                defer_swap_positions(deferred, (a + m) % n, (b + 7 * m) % n)
            continue
        if kind == "row":
            np.testing.assert_array_equal(kernel_row(immediate, a, length)[:length],
                                          kernel_row(deferred, a, length)[:length])
        elif kind == "entry":
            assert kernel_entry(immediate, a, b) == kernel_entry(deferred, a, b)
        else:
            apply_pending_swaps(deferred.cache)  # as any request does
            for position in lru_order(immediate.cache):
                np.testing.assert_array_equal(cached_row(immediate.cache, position),
                                              cached_row(deferred.cache, position))
        assert counts(immediate) == counts(deferred)
        np.testing.assert_array_equal(immediate.cache.length, deferred.cache.length)
        assert lru_order(immediate.cache) == lru_order(deferred.cache)
    np.testing.assert_array_equal(immediate.perm, deferred.perm)
    apply_pending_swaps(deferred.cache)
    for position in lru_order(immediate.cache):
        np.testing.assert_array_equal(cached_row(immediate.cache, position),
                                      cached_row(deferred.cache, position))


def lru_order(cache):
    """The cached positions from the least to the most recently used."""
    head, order = cache.lru_next.shape[0] - 1, []
    p = cache.lru_next[head]
    while p != head:
        order.append(int(p))
        p = cache.lru_next[p]
    return order


def length_rings(cache):
    """{length: positions} read from the cache's rings of positions by row length."""
    n, rings = cache.offset.shape[0], {}
    for length in range(n + 1):
        head, p = n + length, cache.length_next[n + length]
        while p != head:
            rings.setdefault(length, set()).add(int(p))
            p = cache.length_next[p]
    return rings


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 69), st.integers(0, 69),
                          st.integers(1, 70)), min_size=1, max_size=80),
       st.integers(140, 3000))
def test_swaps_visit_only_longer_rows_and_leave_libsvms_rows(operations, entries):
    """swap_index against LIBSVM's rule applied to every cached row (written here in Python):
    a row holding both positions swaps their entries, one ending between them is dropped (cut
    back to the lower one with keep_prefix), both swapped rows become the most recently used;
    lengths, budget, LRU order, every row's entries and the rings by length agree after any
    sequence of requests and swaps of either kind over 70 positions (more than a word of
    lengths)."""
    n = 70
    cache = make_row_cache(n, entries)
    sample = np.arange(n)
    for kind, a, b, length in operations:
        if kind == 0:
            row, cached = get_data(cache, a, length)
            truth = (sample[a] + sample / 1000.0)[:row.shape[0]].astype(np.float32)
            row[cached:length] = truth[cached:length]
            continue
        keep_prefix = kind == 2
        lengths, order = cache.length.copy(), lru_order(cache)
        if a != b:
            lengths[[a, b]] = lengths[[b, a]]
            order = [p for p in order if p not in (a, b)] + [p for p in (a, b) if lengths[p]]
            low, high = min(a, b), max(a, b)
            for p in range(n):
                if low < lengths[p] <= high:
                    lengths[p] = low if keep_prefix else 0
            order = [p for p in order if lengths[p] > 0]
        swap_index(cache, a, b, keep_prefix)
        sample[[a, b]] = sample[[b, a]]
        np.testing.assert_array_equal(cache.length, lengths)
        assert lru_order(cache) == order
        assert cache.state[0] == entries - lengths.sum()
        for p in np.flatnonzero(lengths):
            row = cache.pool[cache.offset[p]:cache.offset[p] + lengths[p]]
            truth = (sample[p] + sample / 1000.0)[:lengths[p]].astype(np.float32)
            np.testing.assert_array_equal(row, truth)
        rings = length_rings(cache)
        assert rings == {int(length): {int(p) for p in np.flatnonzero(lengths == length)}
                         for length in np.unique(lengths)}


def test_swap_keeping_the_prefix_recomputes_only_from_the_lower_position():
    X = random_data(11)
    provider = make_provider(X, "rbf", gamma=0.3, cache_mb=1)
    kernel_row(provider, 2, 10)
    swap_positions(provider, 6, 40, keep_prefix=True)  # LIBSVM would drop the row
    row = kernel_row(provider, 2, 10)
    assert counts(provider) == (20, 14)
    np.testing.assert_allclose(row[:10], rbf_kernel(X, X, gamma=0.3)[2, provider.perm[:10]],
                               rtol=1e-6)


@pytest.mark.parametrize("n", [3000, 9000])  # 9000: the columns split among threads
@pytest.mark.parametrize("sparse", [False, True])
def test_short_and_full_rows_hold_identical_values(sparse, n):
    """A short row walks the points, a full one the columns: same products, same order."""
    X = random_data(12, n=n, d=40, sparse=sparse)
    provider = make_provider(X, "rbf", gamma=0.3, cache_mb=0)
    short, full = np.empty(n), np.empty(n)  # double precision: no rounding to the cache's
    for i in (0, 17, n - 1):
        kernel_row_once(provider, i, 5, short)
        kernel_row_once(provider, i, n, full)
        np.testing.assert_array_equal(short[:5], full[:5])
    for k in range(5):  # the last points to the front, so that a short row reaches them
        swap_positions(provider, k, n - 1 - k)
    kernel_row_once(provider, 17, 5, short)
    kernel_row_once(provider, 17, n, full)
    np.testing.assert_array_equal(short[:5], full[:5])


def binary_data(seed, n, d, density, sparse):
    X = (np.random.default_rng(seed).random((n, d)) < density).astype(np.float64)
    return sp.csr_matrix(X) if sparse else X


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 1500), st.integers(1, 200), st.floats(0.2, 0.9),
       st.booleans(), st.sampled_from(sorted(KERNELS)), st.booleans())
def test_rows_of_binary_points_counted_by_bits_equal_the_sums(seed, n, d, density, sparse, kernel,
                                                               parallel):
    """Binary points kept as bits: every row, whole or its tail after a cached prefix, in one
    thread or in parallel chunks, before and after positions are swapped, equals, exactly, the
    row of the same provider without the bits, and scikit-learn's kernel to rounding."""
    X = binary_data(seed, n, d, density, sparse)
    with_bits = make_provider(X, kernel, cache_mb=0, **PARAMS[kernel])
    with_bits.settings[PARALLEL_MIN] = 0 if parallel else np.iinfo(np.int64).max
    words = (d + 63) // 64
    expected_shape = (words, n) if words * n <= np.count_nonzero(X.toarray() if sparse else X) \
        else (0, 0)
    assert with_bits.position_bits.shape == expected_shape
    without_bits = with_kind(with_bits._replace(position_bits=np.zeros((0, 0), np.uint64),
                                                dots=np.zeros(n), work=np.zeros(n)))
    assert not isinstance(without_bits, BinaryProvider)  # the class picks the row filler
    expected = KERNELS[kernel](X, X)
    got, reference = np.empty(n), np.empty(n)
    rng = np.random.default_rng(seed)
    for _ in range(2):
        for i in sorted({0, n // 2, n - 1}):
            for length in sorted({1, 3, n // 3, n}):
                kernel_row_once(with_bits, i, length, got)
                kernel_row_once(without_bits, i, length, reference)
                np.testing.assert_array_equal(got[:length], reference[:length])
                truth = expected[with_bits.perm[i], with_bits.perm[:length]]
                np.testing.assert_allclose(got[:length], truth, rtol=1e-12, atol=1e-12)
        for a, b in rng.integers(0, n, size=(n, 2)):
            swap_positions(with_bits, a, b)  # moves the arrays both providers share
    cached = with_kind(with_bits._replace(cache=make_row_cache(n, n * n),
                                          settings=with_bits.settings.copy()))
    cached.settings[CACHING] = 1
    for i in sorted({0, n // 2, n - 1}):
        kernel_row(cached, i, n // 3)  # then the row's tail [n // 3, n) only is computed
        kernel_row_once(without_bits, i, n, reference)
        np.testing.assert_array_equal(kernel_row(cached, i, n), reference.astype(np.float32))


@pytest.mark.parametrize("sparse", [False, True])
def test_points_are_kept_as_bits_only_when_binary_and_no_larger(sparse):
    """Bits when every value is 0 or 1 and a point's words are no more than its mean number of
    nonzeros (so a row is never slower to count than to walk); none otherwise."""
    dense = binary_data(3, 50, 130, 0.5, sparse=False)  # 3 words, ~65 nonzeros a point
    kept = binary_bits(sp.csr_matrix(dense) if sparse else dense)
    assert kept.shape == (3, 50)
    assert [sum(int(w).bit_count() for w in point) for point in kept.T] == \
        list(np.count_nonzero(dense, axis=1))
    scaled = dense * 2.0
    assert binary_bits(sp.csr_matrix(scaled) if sparse else scaled).shape == (0, 0)
    rare = binary_data(3, 50, 1000, 0.01, sparse=False)  # 16 words, ~10 nonzeros a point
    assert binary_bits(sp.csr_matrix(rare) if sparse else rare).shape == (0, 0)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("length", [7, 5000])  # by points; by columns and in parallel
def test_double_precision_rows_match_sklearn_to_rounding(sparse, length):
    X = random_data(13, n=5000, d=22, sparse=sparse)
    provider = make_provider(X, "rbf", gamma=0.3, cache_mb=0)
    provider.settings[PARALLEL_MIN] = PARALLEL_MIN_ENTRIES  # sparse rows too
    out = np.empty(5000)
    for i in (0, 1234, 4999):
        kernel_row_once(provider, i, length, out)
        np.testing.assert_allclose(out[:length], rbf_kernel(X[i:i + 1], X, gamma=0.3)[0, :length],
                                   rtol=1e-13, atol=1e-300)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.floats(min_value=-800.0, max_value=0.0),
                 st.floats(min_value=-746.0, max_value=-700.0)))
def test_exp_nonpositive_agrees_with_libm(x):
    """The RBF kernel's vectorizable exp: within 1e-15 of math.exp; where libm's is subnormal,
    within one subnormal step of it, and 0 only where libm's is 0."""
    expected = math.exp(x)
    if expected < np.finfo(np.float64).tiny:
        assert abs(exp_nonpositive(x) - expected) <= 5e-324 + 1e-15 * expected
        assert (exp_nonpositive(x) == 0.0) == (expected == 0.0)
    else:
        assert exp_nonpositive(x) == pytest.approx(expected, rel=1e-15, abs=0.0)


def test_exp_nonpositive_is_exact_at_zero_and_at_powers_of_two():
    assert exp_nonpositive(0.0) == 1.0 and exp_nonpositive(-0.0) == 1.0
    for n in range(1, 1000, 37):
        assert exp_nonpositive(-n * np.log(2.0)) == pytest.approx(2.0 ** -n, rel=1e-15)


def test_bad_kernel_parameters_are_named():
    X = random_data(10)
    with pytest.raises(ValueError, match="unknown kernel 'sigmoid'"):
        make_provider(X, "sigmoid")
    with pytest.raises(ValueError, match="gamma > 0"):
        make_provider(X, "rbf", gamma=0.0)
    with pytest.raises(ValueError, match="cache_mb must be >= 0"):
        make_provider(X, "rbf", cache_mb=-1)
