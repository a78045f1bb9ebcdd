"""The referee's fast paths (svmbench.kernels.fixed_order.gathered_sums, visiting a kernel matrix
by row; dense_weighted_sums and weighted_provider_sums, computing the kernel entries as they sum
them; svmbench.referee.best_biases, each pair's kinks sorted in a row of its own) are bit for bit
the slow ones they replace, written out here as the documented order: every class pair's sums
pair after pair, four accumulators over the pair's columns; a computed kernel's sums over the
provider's own rows, one accumulator, columns ascending; each pair's kinks by numpy's lexsort.
On fresh random problems: overlapping pairs of several classes, members in any order, any subset
of columns, pairs of any size (fewer columns than four included), at one and two threads."""

import math

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from svmbench.kernels.fixed_order import (
    dense_weighted_sums,
    gathered_sums,
    mirrored_gather,
    nonzero_weights,
    ordered_dot,
    shared_member_sums,
    transposed_gather,
    weighted_pair_sums,
    weighted_provider_sums,
)
from svmbench.kernels.math import is_sparse, make_kernel_spec, make_points
from svmbench.kernels.provider import kernel_row_once, make_provider
from svmbench.referee import Stack, best_biases, kernel_sums, spot_check


def documented_sums(gram, members, starts, columns, weights, column_starts):
    """gathered_sums' order, pair after pair and entry after entry, in Python floats: the k-th of
    four accumulators takes the pair's columns k, k + 4, ..., a pair's last n % 4 the first, then
    (t0 + t1) + (t2 + t3)."""
    sums = np.zeros(members.shape[0])
    for pair in range(starts.shape[0] - 1):
        first, end = int(column_starts[pair]), int(column_starts[pair + 1])
        whole = (end - first) // 4 * 4
        for entry in range(starts[pair], starts[pair + 1]):
            totals = [0.0, 0.0, 0.0, 0.0]
            for k, j in enumerate(range(first, first + whole)):
                totals[k % 4] += float(gram[members[entry], columns[j]]) * float(weights[j])
            for j in range(first + whole, end):
                totals[0] += float(gram[members[entry], columns[j]]) * float(weights[j])
            sums[entry] = (totals[0] + totals[1]) + (totals[2] + totals[3])
    return sums


def random_pairs(rng, n, n_classes):
    """(members, starts, columns, weights, column_starts) of every class pair of random labels:
    each pair's members in a random order, its columns a random subset of them."""
    classes = rng.integers(0, n_classes, n)
    members, columns, weights = [], [], []
    for low in range(n_classes):
        for high in range(low + 1, n_classes):
            pair = rng.permutation(np.flatnonzero((classes == low) | (classes == high)))
            if pair.shape[0] == 0:
                continue
            used = pair[rng.random(pair.shape[0]) < rng.random()]
            members.append(pair)
            columns.append(used)
            weights.append(rng.normal(size=used.shape[0]) * 10.0 ** rng.integers(-3, 4))
    starts = np.cumsum([0] + [part.shape[0] for part in members]).astype(np.intp)
    column_starts = np.cumsum([0] + [part.shape[0] for part in columns]).astype(np.intp)
    return (np.concatenate(members).astype(np.intp), starts,
            np.concatenate(columns).astype(np.intp), np.concatenate(weights), column_starts)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 120), n_classes=st.integers(2, 7))
def test_gathered_sums_by_row_are_the_documented_order_bit_for_bit(seed, n, n_classes):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    gram = np.exp(-0.5 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    members, starts, columns, weights, column_starts = random_pairs(rng, n, n_classes)
    sums = np.full(members.shape[0], math.nan)
    gathered_sums(gram, members, starts, columns, weights, column_starts, sums)
    expected = documented_sums(gram, members, starts, columns, weights, column_starts)
    assert sums.tobytes() == expected.tobytes()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 120), n_points=st.integers(1, 12),
       symmetric=st.booleans())
def test_a_pairs_points_summed_over_one_copy_are_the_documented_order_bit_for_bit(
        seed, n, n_points, symmetric):
    """shared_member_sums (a class pair's fits at several C values over one transposed copy of
    the entries they read) is gathered_sums' order for each point: members in any order, each
    point's columns any subset of them in any order (none included); a matrix it is told is
    symmetric copied from its rows (mirrored_gather), the same bits."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    gram = np.exp(-0.5 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    noise = rng.normal(size=(n, n)) * 1e-3  # not symmetric: the copy must transpose, not mirror
    gram += (noise + noise.T) if symmetric else noise
    members = rng.permutation(n)[:rng.integers(1, n + 1)].astype(np.intp)
    m = members.shape[0]
    local = [rng.permutation(m)[:rng.integers(0, m + 1)] for _ in range(n_points)]
    columns = np.concatenate(local).astype(np.intp)
    weights = rng.normal(size=columns.shape[0]) * 10.0 ** rng.integers(-3, 4)
    column_starts = np.cumsum([0] + [part.shape[0] for part in local]).astype(np.intp)
    sums = np.full(n_points * m, math.nan)
    shared_member_sums(gram, members, columns, weights, column_starts, sums, symmetric)
    expected = documented_sums(gram, np.tile(members, n_points),
                               np.arange(n_points + 1, dtype=np.intp) * m, members[columns],
                               weights, column_starts)
    assert sums.tobytes() == expected.tobytes()


def test_the_mirrored_copy_reads_the_rows_of_the_columns():
    """mirrored_gather is transposed_gather of the transpose: told symmetric, shared_member_sums
    sums a non-symmetric matrix's columns as its rows (so the flag is what chooses the copy)."""
    block = np.arange(30.0).reshape(5, 6)
    rows, columns = np.array([4, 0, 2]), np.array([3, 1])
    assert np.array_equal(mirrored_gather(block.T.copy(), rows, columns),
                          transposed_gather(block, rows, columns))
    gram = np.arange(16.0).reshape(4, 4)
    members, positions = np.arange(4), np.array([1, 3])
    weights, starts = np.array([1.0, -2.0]), np.array([0, 2])
    plain, mirrored = np.empty(4), np.empty(4)
    shared_member_sums(gram, members, positions, weights, starts, plain)
    shared_member_sums(gram, members, positions, weights, starts, mirrored, True)
    assert np.array_equal(plain, gram[:, [1, 3]] @ weights)
    assert np.array_equal(mirrored, gram.T[:, [1, 3]] @ weights)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(1, 40), n_columns=st.integers(1, 60),
       n_pairs=st.integers(1, 6), threads=st.sampled_from([1, 2]))
def test_prediction_sums_are_each_pairs_nonzero_weights_in_the_documented_order_bit_for_bit(
        seed, rows, n_columns, n_pairs, threads):
    """weighted_pair_sums (a prediction's block of kernel values times the dual coefficients) is
    gathered_sums' order over each pair's nonzero coefficients, columns ascending, at any thread
    count; ordered_dot is that order over a whole vector."""
    rng = np.random.default_rng(seed)
    block = rng.normal(size=(rows, n_columns))
    coefficients = rng.normal(size=(n_pairs, n_columns)) * (
        rng.random((n_pairs, n_columns)) < rng.random())
    columns, weights, column_starts = nonzero_weights(coefficients)
    sums = np.full((n_pairs, rows), math.nan)
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        weighted_pair_sums(block, columns, weights, column_starts, sums)
    finally:
        numba.set_num_threads(previous)
    everyone = np.arange(rows, dtype=np.intp)
    for pair in range(n_pairs):
        used = np.flatnonzero(coefficients[pair])
        expected = documented_sums(block, everyone, np.array([0, rows]), used,
                                   coefficients[pair, used], np.array([0, used.shape[0]]))
        assert sums[pair].tobytes() == expected.tobytes()
    dot = documented_sums(block[:1], np.zeros(1, dtype=np.intp), np.array([0, 1]),
                          np.arange(n_columns), block[-1], np.array([0, n_columns]))
    assert ordered_dot(block[0], block[-1], n_columns) == dot[0]
    np.testing.assert_allclose(sums, coefficients @ block.T, rtol=1e-9, atol=1e-9)


def lexsorted_biases(stack, y, sums):
    """best_biases as it was: every pair's kinks ordered at once by numpy's lexsort."""
    kinks = np.where(y > 0, 1.0 - sums, -1.0 - sums)
    in_order = kinks[np.lexsort((kinks, stack.pair))]
    positives = stack.total((y > 0).astype(np.intp))
    return in_order[stack.starts + np.maximum(positives - 1, 0)]


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sizes=st.lists(st.integers(1, 40), min_size=1, max_size=8),
       nans=st.booleans(), ties=st.booleans())
def test_best_biases_by_rows_are_the_lexsorted_ones_bit_for_bit(seed, sizes, nans, ties):
    """Ties (kinks rounded to a coarse grid) and NaN sums (a point that is not finite) included."""
    rng = np.random.default_rng(seed)
    stack = Stack.of(sizes)
    total = int(np.sum(sizes))
    y = np.where(rng.random(total) < rng.random(), 1.0, -1.0)
    sums = rng.normal(size=total) * 3.0
    if ties:
        sums = np.round(sums)
    if nans:
        sums[rng.random(total) < 0.2] = math.nan
    assert best_biases(stack, y, sums).tobytes() == lexsorted_biases(stack, y, sums).tobytes()


KERNELS = {"rbf": (0.7, 0.0, 3), "linear": (1.0, 0.0, 3), "poly": (0.3, 1.0, 2)}


def random_points(rng, n, d, kind):
    """n points of d features: dense with some zeros, sparse (CSR, few nonzeros), or binary."""
    if kind == "binary":
        return sp.csr_matrix((rng.random((n, d)) < 0.1).astype(float))
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < (0.6 if kind == "dense" else 0.05))
    return X if kind == "dense" else sp.csr_matrix(X)


def documented_kernel_sums(X, used, weights, kernel):
    """One accumulator per sample, the used columns ascending, over the kernel rows a provider
    with no cache computes (kernel_row_once), in Python floats."""
    provider = make_provider(X, kernel, *KERNELS[kernel], cache_mb=0)
    n = X.shape[0]
    rows, row = np.zeros((used.shape[0], n)), np.empty(n)
    for k, column in enumerate(used):
        kernel_row_once(provider, column, n, row)
        rows[k] = row
    sums, magnitudes = np.zeros(n), np.zeros(n)
    for r in range(n):
        for k in range(used.shape[0]):
            term = float(rows[k, r]) * float(weights[k])
            sums[r] += term
            magnitudes[r] += abs(term)
    return sums, magnitudes


@pytest.mark.parametrize("kernel", sorted(KERNELS))
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 1300), d=st.integers(1, 9),
       kind=st.sampled_from(["dense", "sparse", "binary"]), threads=st.sampled_from([1, 2]))
def test_computed_kernel_sums_are_the_provider_rows_in_order_bit_for_bit(kernel, seed, n, d, kind,
                                                                         threads):
    """The referee's sums over computed kernels, dense points in tiles and blocks of rows in
    parallel, sparse and binary ones by a provider's rows, are the documented sums of the
    provider's rows, at one and two threads (up to 1,300 samples: three blocks of rows)."""
    rng = np.random.default_rng(seed)
    X = random_points(rng, n, d, kind)
    used = np.flatnonzero(rng.random(n) < rng.random()).astype(np.int64)
    weights = rng.normal(size=used.shape[0]) * 10.0 ** rng.integers(-3, 4)
    expected = documented_kernel_sums(X, used, weights, kernel)
    sums, magnitudes = np.zeros(n), np.zeros(n)
    points = make_points(X)
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        if is_sparse(points):
            weighted_provider_sums(make_provider(X, kernel, *KERNELS[kernel], cache_mb=0), used,
                                   weights, np.empty(n), sums, magnitudes)
        else:
            dense_weighted_sums(points[0], points[7], points[4], used, weights,
                                *make_kernel_spec(kernel, *KERNELS[kernel]), sums, magnitudes)
        referee_sums = kernel_sums(X, np.arange(n), used, weights, kernel, *KERNELS[kernel])
    finally:
        numba.set_num_threads(previous)
    assert sums.tobytes() == expected[0].tobytes()
    assert magnitudes.tobytes() == expected[1].tobytes()
    assert referee_sums[0].tobytes() == expected[0].tobytes()
    assert referee_sums[2] == n * used.shape[0]


@pytest.mark.parametrize("kind", ["dense", "sparse", "binary"])
def test_the_spot_check_refutes_the_harness_not_the_solver_when_the_sums_are_wrong(kind):
    """scikit-learn's pairwise kernels agree with the computed sums; sums off by one part in
    10^6 of their magnitude at one checked sample raise, naming the harness's kernel code."""
    rng = np.random.default_rng(3)
    X = random_points(rng, 200, 6, kind)
    rows, used = np.arange(200), np.arange(0, 200, 3)
    weights = rng.normal(size=used.shape[0])
    sums, magnitudes, _ = kernel_sums(X, rows, used, weights, "rbf", 0.7, 0.0, 3)
    assert spot_check(X, rows, used, weights, sums, "rbf", 0.7, 0.0, 3) == 16 * used.shape[0]
    wrong = sums.copy()
    wrong[199] += 1e-6 * magnitudes[199]
    with pytest.raises(RuntimeError, match="harness's kernel code, not of the solver"):
        spot_check(X, rows, used, weights, wrong, "rbf", 0.7, 0.0, 3)
