"""The referee's fast paths (svmbench.kernels.fixed_order.gathered_sums, visiting a kernel matrix
by row; svmbench.referee.best_biases, each pair's kinks sorted in a row of its own) are bit for bit
the slow ones they replace, written out here as the documented order: every class pair's sums
pair after pair, four accumulators over the pair's columns; each pair's kinks by numpy's lexsort.
On fresh random problems: overlapping pairs of several classes, members in any order, any subset
of columns, pairs of any size (fewer columns than four included)."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from svmbench.kernels.fixed_order import gathered_sums
from svmbench.referee import Stack, best_biases


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
