"""Weighted sums of kernel entries in a fixed order, serial (the referee's decision values,
svmbench.referee): the same bits on every run, whatever the BLAS, its thread count or the arrays'
memory alignment. A BLAS product's summation order depends on them (OpenBLAS 0.3.31 Haswell's
gemv and gemm, 1 against 2 threads, differ in the last bits), and a record must be the same for
the same config and seed."""

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
    pair's columns (column_starts[p] <= j < column_starts[p + 1]), j ascending, one
    accumulator; entries read where they lie, no copy of a pair's rows."""
    for pair in range(starts.shape[0] - 1):
        for entry in range(starts[pair], starts[pair + 1]):
            row, total = members[entry], 0.0
            for j in range(column_starts[pair], column_starts[pair + 1]):
                total += gram[row, columns[j]] * weights[j]
            sums[entry] = total
