"""Weighted sums of kernel entries in a fixed order, serial (the referee's decision values,
svmbench.referee): the same bits on every run, whatever the BLAS, its thread count or the arrays'
memory alignment. A BLAS product's summation order depends on them (OpenBLAS 0.3.31 Haswell's
gemv and gemm, 1 against 2 threads, differ in the last bits), and a record must be the same for
the same config and seed."""

import numpy as np
from numba import njit


@njit(cache=True)
def weighted_row_sums(block, weights, sums, magnitudes):
    """sums[r] = sum_j block[r, j] weights[j] and magnitudes[r] = sum_j |block[r, j] weights[j]|,
    j ascending, one accumulator each."""
    for r in range(block.shape[0]):
        total, magnitude = 0.0, 0.0
        for j in range(block.shape[1]):
            term = block[r, j] * weights[j]
            total += term
            magnitude += abs(term)
        sums[r], magnitudes[r] = total, magnitude


@njit(cache=True)
def gathered_sums(gram, members, starts, columns, weights, column_starts, sums):
    """Every class pair's sums over one kernel matrix: sums[e] = sum_j gram[members[e],
    columns[j]] weights[j] for each entry e of pair p (starts[p] <= e < starts[p + 1]) over the
    pair's columns (column_starts[p] <= j < column_starts[p + 1]); entries read where they lie, no
    copy of a pair's rows. Four accumulators, the k-th taking the pair's columns k, k + 4, ...
    in order (a pair's last n_columns % 4 columns to the first), added as (t0 + t1) + (t2 + t3):
    a fixed order that does not wait on one chain of additions.
    The entries are visited by matrix row (each sum's order is its own, so the visiting order
    changes no bit): a sample's row is read from memory once for all the pairs it is in, and
    stays in the core's cache while they sum over it (one-vs-one over 7 classes: each row serves
    6 pairs; visited pair after pair, each pair's scattered reads over the rows cost a grid
    search of gs2008 Table VII more than its fits)."""
    pair_of = np.empty(members.shape[0], dtype=np.intp)
    for pair in range(starts.shape[0] - 1):
        pair_of[starts[pair]:starts[pair + 1]] = pair
    for entry in np.argsort(members, kind="mergesort"):
        pair = pair_of[entry]
        first, end = column_starts[pair], column_starts[pair + 1]
        last = first + (end - first) // 4 * 4
        row = gram[members[entry]]
        t0, t1, t2, t3 = 0.0, 0.0, 0.0, 0.0
        for j in range(first, last, 4):
            t0 += row[columns[j]] * weights[j]
            t1 += row[columns[j + 1]] * weights[j + 1]
            t2 += row[columns[j + 2]] * weights[j + 2]
            t3 += row[columns[j + 3]] * weights[j + 3]
        for j in range(last, end):
            t0 += row[columns[j]] * weights[j]
        sums[entry] = (t0 + t1) + (t2 + t3)
