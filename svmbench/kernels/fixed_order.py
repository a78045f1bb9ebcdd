"""Weighted sums of kernel entries, each in a fixed order (the referee's decision values,
svmbench.referee; predictions, svmbench.kernels.cross; the solvers' dot products): the same bits
on every run and every CPU, whatever the BLAS, the thread count (threads split the sums, never
one sum) or the arrays' memory alignment. A BLAS product's summation
order depends on them (OpenBLAS 0.3.31 Haswell's gemv and gemm, 1 against 2 threads, differ in
the last bits), and a record must be the same for the same config and seed."""

import numpy as np
from numba import njit, prange

from svmbench.kernels.math import RBF, add_scaled, apply_kernel, exp_nonpositive
from svmbench.kernels.provider import kernel_row_once

# rows of a block, summed by one thread (dense_weighted_sums: their columns' slices stay in the
# core's caches while every column of the sums adds over them), and the columns whose inner
# products share a pass over a block
BLOCK_ROWS = 512
COLUMN_TILE = 4


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


@njit(cache=True, parallel=True)
def weighted_provider_sums(provider, columns, weights, row, sums, magnitudes):
    """:func:`weighted_row_sums` of the kernel entries k(x_r, x_columns[j]) of ``provider``'s
    points r, every entry computed afresh: the row of each column in turn (kernel_row_once, which
    fills a row by the provider's arithmetic, its bits the same at any thread count, split among
    the threads when long, never read from a cache), added into every sum, BLOCK_ROWS sums to a
    thread at a time; so each sum still takes j ascending into one accumulator, the bits of
    weighted_row_sums over the same entries. ``row``: a work vector of the provider's length."""
    n = sums.shape[0]
    sums[:] = 0.0
    magnitudes[:] = 0.0
    for j in range(columns.shape[0]):
        kernel_row_once(provider, columns[j], n, row)
        weight = weights[j]
        for block in prange((n + BLOCK_ROWS - 1) // BLOCK_ROWS):
            lo, hi = block * BLOCK_ROWS, min(n, (block + 1) * BLOCK_ROWS)
            entries, total, magnitude = row[lo:hi], sums[lo:hi], magnitudes[lo:hi]
            for p in range(entries.shape[0]):  # from 0: a loop that vectorizes
                term = entries[p] * weight
                total[p] += term
                magnitude[p] += abs(term)


@njit(cache=True, parallel=True)
def dense_weighted_sums(dense, by_feature, sqnorm, used, weights, kind, gamma, coef0, degree,
                        sums, magnitudes):
    """:func:`weighted_provider_sums` for dense points, the same bits: sums[r] = sum_j
    k(x_used[j], x_r) weights[j] and magnitudes[r] = sum_j |...|, j ascending, one accumulator
    each, every entry computed afresh by the provider's arithmetic (the inner product summed
    feature by feature over the points' columns ``by_feature``, the flattened transpose of
    ``dense`` as math.make_points lays it; the RBF's exponent and exponential as
    provider._fill_kernel takes them). Rows in blocks of BLOCK_ROWS, in parallel (a block's
    sums are its own: the thread count changes no bit), COLUMN_TILE columns' inner products at a
    time over a block, so that each slice of a feature's column is read from memory once for
    them (a kernel row at a time reads every feature's column for every entry: ~6.7 ns an entry
    at 16-22 features, bound by those reads)."""
    n, d = dense.shape
    spec = (kind, gamma, coef0, degree)
    for block in prange((n + BLOCK_ROWS - 1) // BLOCK_ROWS):
        lo = block * BLOCK_ROWS
        hi = min(n, lo + BLOCK_ROWS)
        kernels = np.empty((COLUMN_TILE, hi - lo))
        block_sqnorm = sqnorm[lo:hi]  # by the block's own positions, as _fill_kernel reads them
        total, magnitude = np.zeros(hi - lo), np.zeros(hi - lo)
        for first in range(0, used.shape[0], COLUMN_TILE):
            tile = min(COLUMN_TILE, used.shape[0] - first)
            kernels[:tile] = 0.0
            for feature in range(d):
                column = by_feature[feature * n + lo:feature * n + hi]
                for t in range(tile):
                    value = dense[used[first + t], feature]
                    if value != 0.0:  # adding 0 * x_rf changes no sum (math.dots_by_columns)
                        add_scaled(kernels[t], column, value)
            for t in range(tile):
                j = used[first + t]
                row = kernels[t]
                if kind == RBF:
                    for p in range(row.shape[0]):
                        row[p] = -gamma * max(sqnorm[j] + block_sqnorm[p] - 2.0 * row[p], 0.0)
                    for p in range(row.shape[0]):
                        row[p] = exp_nonpositive(row[p])
                else:
                    for p in range(row.shape[0]):
                        row[p] = apply_kernel(spec, row[p], sqnorm[j], block_sqnorm[p])
                weight = weights[first + t]
                for p in range(row.shape[0]):
                    term = row[p] * weight
                    total[p] += term
                    magnitude[p] += abs(term)
        sums[lo:hi] = total
        magnitudes[lo:hi] = magnitude


TILE = 4  # entries of one pair summed together, sharing each column's index and weight


@njit(cache=True)
def gathered_sums(gram, members, starts, columns, weights, column_starts, sums):
    """Every class pair's sums over one kernel matrix: sums[e] = sum_j gram[members[e],
    columns[j]] weights[j] for each entry e of pair p (starts[p] <= e < starts[p + 1]) over the
    pair's columns (column_starts[p] <= j < column_starts[p + 1]); entries read where they lie, no
    copy of a pair's rows. Four accumulators, the k-th taking the pair's columns k, k + 4, ...
    in order (a pair's last n_columns % 4 columns to the first), added as (t0 + t1) + (t2 + t3):
    a fixed order that does not wait on one chain of additions.
    Each sum's order is its own, so the order the entries are visited in changes no bit; they are
    visited in tiles (:func:`row_tiles`): four entries of one pair at once, whose sums share each
    column's index and weight (a load of each for four sums), the tiles by matrix row, so that a
    sample's row, read from memory once, stays in the core's cache while the tiles of every pair
    it is in sum over it (one-vs-one over 7 classes: each row serves 6 pairs, and 6 x 12 pairs
    when a grid search certifies its 12 C values together; visited pair after pair, each pair's
    scattered reads over the rows cost a grid search of gs2008 Table VII more than its fits)."""
    order, tile_starts, tile_pairs, visits = row_tiles(members, starts)
    for tile in visits:
        first_entry, end_entry = tile_starts[tile], tile_starts[tile + 1]
        first, end = column_starts[tile_pairs[tile]], column_starts[tile_pairs[tile] + 1]
        if end_entry - first_entry == TILE:
            sum_four(gram, members, order[first_entry:end_entry], columns, weights, first, end,
                     sums)
        else:
            for entry in order[first_entry:end_entry]:
                sums[entry] = sum_one(gram[members[entry]], columns, weights, first, end)


@njit(cache=True)
def transposed_gather(block, rows, columns):
    """T[u, r] = block[rows[r], columns[u]]: the entries a weighted sum over ``columns`` reads,
    one column's values for every row laid contiguously (a row of ``block`` read once, its
    columns gathered from the core's cache)."""
    transposed = np.empty((columns.shape[0], rows.shape[0]))
    for r in range(rows.shape[0]):
        row = block[rows[r]]
        for u in range(columns.shape[0]):
            transposed[u, r] = row[columns[u]]
    return transposed


@njit(cache=True)
def mirrored_gather(block, rows, columns):
    """:func:`transposed_gather` of a ``block`` that is exactly symmetric, read by its rows:
    T[u, r] = block[columns[u], rows[r]], a row of ``block`` gathered into a row of T (each
    written once, in order; transposed_gather writes T a column at a time: 1.5 to 4 times as
    long for 534 members' 534 to 50 columns of a 1,871 x 1,871 matrix)."""
    transposed = np.empty((columns.shape[0], rows.shape[0]))
    for u in range(columns.shape[0]):
        row, out = block[columns[u]], transposed[u]
        for r in range(rows.shape[0]):
            out[r] = row[rows[r]]
    return transposed


@njit(cache=True)
def sums_by_columns(transposed, slots, weights, first, end, accumulators, out):
    """out[r] = sum_j transposed[slots[j], r] weights[j] over first <= j < end in
    :func:`sum_one`'s order (four accumulators, the k-th taking j = first + k, first + k + 4, ...,
    the last (end - first) % 4 the first; (t0 + t1) + (t2 + t3)), every r at once: each column's
    values are read contiguously, so the additions vectorize across r while each sum keeps its
    own order. ``accumulators``: work space of shape (4, len(out))."""
    accumulators[:] = 0.0
    last = first + (end - first) // 4 * 4
    for j in range(first, end):
        total = accumulators[(j - first) % 4 if j < last else 0]
        values, weight = transposed[slots[j]], weights[j]
        for r in range(out.shape[0]):
            total[r] += values[r] * weight
    for r in range(out.shape[0]):
        out[r] = (accumulators[0, r] + accumulators[1, r]) + (accumulators[2, r] + accumulators[3, r])


@njit(cache=True)
def shared_member_sums(gram, members, columns, weights, column_starts, sums, symmetric=False):
    """:func:`gathered_sums` of several points over one set of ``members`` (one class pair's
    fits at several C values), the same bits: point p's sums sums[p * m:(p + 1) * m] over its
    columns members[columns[j]], column_starts[p] <= j < column_starts[p + 1] (``columns``:
    positions in ``members``). The entries every point reads are gathered once, a column's
    values for all members contiguous (:func:`transposed_gather`), and each point's sums added
    over them (:func:`sums_by_columns`); where the points' columns are many (a grid search's
    twelve C values share most support vectors) this costs a fraction of reading each entry
    where it lies. ``symmetric``: ``gram`` is exactly symmetric, and the copy reads its rows
    (:func:`mirrored_gather`, the same entries)."""
    m = members.shape[0]
    read = np.zeros(m, dtype=np.intp)
    read[columns] = 1
    slots = np.cumsum(read) - 1  # a read position's row in the copy, in the order of ``members``
    if symmetric:
        transposed = mirrored_gather(gram, members, members[read == 1])
    else:
        transposed = transposed_gather(gram, members, members[read == 1])
    column_slots = slots[columns]
    accumulators = np.empty((4, m))
    for point in range(column_starts.shape[0] - 1):
        sums_by_columns(transposed, column_slots, weights, column_starts[point],
                        column_starts[point + 1], accumulators, sums[point * m:(point + 1) * m])


@njit(cache=True)
def row_tiles(members, starts):
    """(order, tile_starts, tile_pairs, visits): ``order`` lists each pair's entries by member
    (stable), ``order[tile_starts[t]:tile_starts[t + 1]]`` is tile t, up to TILE consecutive
    entries of pair ``tile_pairs[t]``, and ``visits`` the tiles by their first member (stable)."""
    n_pairs = starts.shape[0] - 1
    order = np.empty(members.shape[0], dtype=np.intp)
    n_tiles = 0
    for pair in range(n_pairs):
        first, end = starts[pair], starts[pair + 1]
        order[first:end] = np.argsort(members[first:end], kind="mergesort") + first
        n_tiles += (end - first + TILE - 1) // TILE
    tile_starts = np.empty(n_tiles + 1, dtype=np.intp)
    tile_pairs, keys = np.empty(n_tiles, dtype=np.intp), np.empty(n_tiles, dtype=np.intp)
    tile = 0
    for pair in range(n_pairs):
        for first in range(starts[pair], starts[pair + 1], TILE):
            tile_starts[tile], tile_pairs[tile] = first, pair
            keys[tile] = members[order[first]]
            tile += 1
    tile_starts[n_tiles] = members.shape[0]
    return order, tile_starts, tile_pairs, np.argsort(keys, kind="mergesort")


@njit(cache=True)
def sum_one(row, columns, weights, first, end):
    """sum_j row[columns[j]] weights[j] over first <= j < end in gathered_sums' order."""
    last = first + (end - first) // 4 * 4
    t0, t1, t2, t3 = 0.0, 0.0, 0.0, 0.0
    for j in range(first, last, 4):
        t0 += row[columns[j]] * weights[j]
        t1 += row[columns[j + 1]] * weights[j + 1]
        t2 += row[columns[j + 2]] * weights[j + 2]
        t3 += row[columns[j + 3]] * weights[j + 3]
    for j in range(last, end):
        t0 += row[columns[j]] * weights[j]
    return (t0 + t1) + (t2 + t3)


@njit(cache=True)
def sum_four(gram, members, entries, columns, weights, first, end, sums):
    """:func:`sum_one` of the rows of four ``entries`` of one pair, each column's index and weight
    loaded once for the four (sixteen accumulators, each sum's four in sum_one's order)."""
    r0, r1 = gram[members[entries[0]]], gram[members[entries[1]]]
    r2, r3 = gram[members[entries[2]]], gram[members[entries[3]]]
    last = first + (end - first) // 4 * 4
    a0, a1, a2, a3 = 0.0, 0.0, 0.0, 0.0
    b0, b1, b2, b3 = 0.0, 0.0, 0.0, 0.0
    c0, c1, c2, c3 = 0.0, 0.0, 0.0, 0.0
    d0, d1, d2, d3 = 0.0, 0.0, 0.0, 0.0
    for j in range(first, last, 4):
        k0, k1, k2, k3 = columns[j], columns[j + 1], columns[j + 2], columns[j + 3]
        w0, w1, w2, w3 = weights[j], weights[j + 1], weights[j + 2], weights[j + 3]
        a0 += r0[k0] * w0
        a1 += r0[k1] * w1
        a2 += r0[k2] * w2
        a3 += r0[k3] * w3
        b0 += r1[k0] * w0
        b1 += r1[k1] * w1
        b2 += r1[k2] * w2
        b3 += r1[k3] * w3
        c0 += r2[k0] * w0
        c1 += r2[k1] * w1
        c2 += r2[k2] * w2
        c3 += r2[k3] * w3
        d0 += r3[k0] * w0
        d1 += r3[k1] * w1
        d2 += r3[k2] * w2
        d3 += r3[k3] * w3
    for j in range(last, end):
        k0, w0 = columns[j], weights[j]
        a0 += r0[k0] * w0
        b0 += r1[k0] * w0
        c0 += r2[k0] * w0
        d0 += r3[k0] * w0
    sums[entries[0]] = (a0 + a1) + (a2 + a3)
    sums[entries[1]] = (b0 + b1) + (b2 + b3)
    sums[entries[2]] = (c0 + c1) + (c2 + c3)
    sums[entries[3]] = (d0 + d1) + (d2 + d3)


@njit(cache=True)
def ordered_dot(a, b, m):
    """sum_k a[k] b[k] over k < m in :func:`sum_one`'s order: four accumulators, the j-th taking
    k = j, j + 4, ... (the last m % 4 terms to the first), added as (t0 + t1) + (t2 + t3). The
    dot products of the solvers' loops and of their Python wrappers take it in place of BLAS's
    or a sum the compiler may reorder (fastmath), whose orders follow the CPU (docs/DESIGN.md,
    "The same bits on any CPU")."""
    last = m // 4 * 4
    t0, t1, t2, t3 = 0.0, 0.0, 0.0, 0.0
    for k in range(0, last, 4):
        t0 += a[k] * b[k]
        t1 += a[k + 1] * b[k + 1]
        t2 += a[k + 2] * b[k + 2]
        t3 += a[k + 3] * b[k + 3]
    for k in range(last, m):
        t0 += a[k] * b[k]
    return (t0 + t1) + (t2 + t3)


def nonzero_weights(weights_by_column):
    """(columns, weights, column_starts) of the nonzero entries of each row c of
    ``weights_by_column`` (a model's dual coefficients, a row per class pair), as
    :func:`gathered_sums` and :func:`weighted_pair_sums` take them: row c's are
    columns[column_starts[c]:column_starts[c + 1]], ascending."""
    return rows_nonzero(np.ascontiguousarray(weights_by_column, dtype=np.float64))


@njit(cache=True)
def rows_nonzero(matrix):
    """:func:`nonzero_weights` of a C-contiguous matrix, in one pass to count and one to copy
    (numpy's nonzero of a 325 x 1,800 matrix, one-vs-one over letter's 26 classes: 2.5 times as
    long)."""
    column_starts = np.zeros(matrix.shape[0] + 1, dtype=np.intp)
    for row in range(matrix.shape[0]):
        count = 0
        for column in range(matrix.shape[1]):
            count += matrix[row, column] != 0.0
        column_starts[row + 1] = column_starts[row] + count
    columns = np.empty(column_starts[-1], dtype=np.intp)
    weights = np.empty(column_starts[-1])
    at = 0
    for row in range(matrix.shape[0]):
        for column in range(matrix.shape[1]):
            if matrix[row, column] != 0.0:
                columns[at], weights[at] = column, matrix[row, column]
                at += 1
    return columns, weights, column_starts


@njit(cache=True, parallel=True)
def weighted_pair_sums(block, columns, weights, column_starts, sums_by_pair):
    """sums_by_pair[c, r] = sum_j block[r, columns[j]] weights[j] over column_starts[c] <= j <
    column_starts[c + 1], in :func:`sum_one`'s order: ``(block @ W.T).T`` for the W whose nonzero
    entries :func:`nonzero_weights` lists (a prediction's weighted kernel values, each class pair
    over its own support vectors only). Rows TILE at a time (:func:`sum_four`: a load of each
    column's index and weight for four sums), tiles in parallel (a row's sums are its own: the
    thread count changes no bit)."""
    n_rows = block.shape[0]
    rows = np.arange(n_rows)
    for tile in prange((n_rows + TILE - 1) // TILE):
        lo, hi = tile * TILE, min(n_rows, (tile + 1) * TILE)
        for pair in range(column_starts.shape[0] - 1):
            first, end = column_starts[pair], column_starts[pair + 1]
            if hi - lo == TILE:
                sum_four(block, rows, rows[lo:hi], columns, weights, first, end,
                         sums_by_pair[pair])
            else:
                for r in range(lo, hi):
                    sums_by_pair[pair, r] = sum_one(block[r], columns, weights, first, end)
