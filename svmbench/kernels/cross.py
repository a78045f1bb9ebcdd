"""Kernel values between two point sets (prediction, and the kernel matrices of a grid search),
computed in parallel, in row blocks, by the provider's own arithmetic: the values are those of the
provider's rows, bit for bit, and the same on every machine (no BLAS, whose kernels round
differently from one CPU to the next; a prediction's weighted sums of them neither)."""

import numpy as np
from numba import njit, prange

from svmbench.kernels.compile_cache import jit_callee
from svmbench.kernels.fixed_order import nonzero_weights, weighted_pair_sums
from svmbench.kernels.math import (
    LINEAR,
    apply_kernel,
    dot_with_buffer,
    dots_by_columns,
    exp_nonpositive,
    is_sparse,
    load_point,
    release_point,
)

# test rows per block: bounds the dense block of kernel values held at once
BLOCK_ROWS = 2048


@jit_callee
def _kernel_rows(points_a, points_b, spec, row, out, buffer):
    """out[j] = k(a_row, b_j) for every point b_j (walking b's columns when a and b are both
    sparse or both dense); returns the number of kernel values computed."""
    sqnorm_a, sqnorm_b = points_a[4], points_b[4]
    computed = 0
    if is_sparse(points_b) == is_sparse(points_a):
        dots_by_columns(points_b, row, points_a, out)
        for j in range(out.shape[0]):
            out[j] = apply_kernel(spec, out[j], sqnorm_a[row], sqnorm_b[j])
            computed += 1
        return computed
    x = load_point(points_a, row, buffer)
    for j in range(out.shape[0]):
        out[j] = apply_kernel(spec, dot_with_buffer(points_b, j, x), sqnorm_a[row], sqnorm_b[j])
        computed += 1
    release_point(points_a, row, buffer)
    return computed


@njit(cache=True, parallel=True)
def _cross_block(a_dense, a_indptr, a_indices, a_values, a_sqnorm, a_col_indptr, a_col_indices,
                 a_col_values, b_dense, b_indptr, b_indices, b_values, b_sqnorm, b_col_indptr,
                 b_col_indices, b_col_values, kind, gamma, coef0, degree, first, out, computed,
                 n_features):
    # numba's parallel regions take arrays and scalars only, so the tuples travel unpacked
    for r in prange(out.shape[0]):
        buffer = np.zeros(n_features)
        computed[r] = _kernel_rows((a_dense, a_indptr, a_indices, a_values, a_sqnorm, a_col_indptr,
                      a_col_indices, a_col_values),
                     (b_dense, b_indptr, b_indices, b_values, b_sqnorm, b_col_indptr,
                      b_col_indices, b_col_values),
                     (kind, gamma, coef0, degree), first + r, out[r], buffer)


def kernel_blocks(points_a, points_b, spec, n_features):
    """Yield ``(first_row, block, computed)`` with block[r, j] = k(a_{first_row + r}, b_j) and
    ``computed`` the kernel values evaluated for it."""
    n_a, n_b = points_a[4].shape[0], points_b[4].shape[0]
    for first in range(0, n_a, BLOCK_ROWS):
        rows = min(BLOCK_ROWS, n_a - first)
        block, computed = np.empty((rows, n_b)), np.zeros(rows, dtype=np.int64)
        _cross_block(*points_a, *points_b, *spec, first, block, computed, max(n_features, 1))
        yield first, block, int(computed.sum())


def weighted_kernel_sums(points_a, points_b, spec, weights_by_column, n_features):
    """``K(a, b) @ weights_by_column.T`` without holding K, each sum over its row's nonzero
    weights in a fixed order (fixed_order.weighted_pair_sums); returns (sums, kernel evaluations
    made)."""
    n_a = points_a[4].shape[0]
    sums = np.empty((n_a, weights_by_column.shape[0]))
    nonzero = nonzero_weights(weights_by_column)
    evaluations = 0
    for first, block, computed in kernel_blocks(points_a, points_b, spec, n_features):
        by_pair = np.empty((weights_by_column.shape[0], block.shape[0]))
        weighted_pair_sums(block, *nonzero, by_pair)
        sums[first:first + block.shape[0]] = by_pair.T
        evaluations += computed
    return sums, evaluations


def kernel_matrix(points_a, points_b, spec, n_features):
    """K(a, b) whole, its rows as kernel_blocks' (one parallel pass into one array, no blocks to
    stack)."""
    out = np.empty((points_a[4].shape[0], points_b[4].shape[0]))
    _cross_block(*points_a, *points_b, *spec, 0, out, np.zeros(out.shape[0], dtype=np.int64),
                 max(n_features, 1))
    return out


def squared_distances(points_a, points_b, n_features):
    """max(||a_i||^2 + ||b_j||^2 - 2 <a_i, b_j>, 0): the squared distances the RBF kernel of
    svmbench.kernels.math.apply_kernel takes, before -gamma times them goes into exp."""
    dots = kernel_matrix(points_a, points_b, (LINEAR, 1.0, 0.0, 1.0), n_features)
    return distances_of_dots(dots, points_a[4], points_b[4])


@njit(cache=True, parallel=True)
def distances_of_dots(dots, sqnorm_a, sqnorm_b):
    """dots[i, j] = max((sqnorm_a[i] + sqnorm_b[j]) - 2 dots[i, j], 0), in place: numpy's
    broadcast of the same three operations, in one pass and no temporary matrices (cProfile,
    Segment's smo_wss2 grid search, one outer fold: 1.62 of the run's 23.6 s in
    squared_distances, 0.38 of them in the inner products)."""
    for i in prange(dots.shape[0]):
        row, norm = dots[i], sqnorm_a[i]
        for j in range(row.shape[0]):
            row[j] = max((norm + sqnorm_b[j]) - 2.0 * row[j], 0.0)
    return dots


@njit(cache=True, parallel=True)
def rbf_of_distances(distances, gamma, out):
    """out = exp(-gamma d) for every squared distance d of ``squared_distances`` (apply_kernel's
    RBF); ``out`` of the same shape, so that a grid search writes every gamma's matrix into the
    same memory rather than a new array per gamma and inner fold. A row's two halves go side by
    side, two streams read and written at once (1,871 x 1,871, one thread: 3.0 -> 1.9 ns an
    entry; the same within the caches, at 300 x 300: 1.7)."""
    for r in prange(distances.shape[0]):
        row, values = distances[r], out[r]
        half = row.shape[0] // 2
        for j in range(half):
            values[j] = exp_nonpositive(-gamma * row[j])
            values[half + j] = exp_nonpositive(-gamma * row[half + j])
        for j in range(2 * half, row.shape[0]):
            values[j] = exp_nonpositive(-gamma * row[j])
    return out
