"""Kernel function math on dense or CSR points, compiled with numba.

A *points* bundle is a tuple of arrays that compiled code can take as one argument:
``(dense, indptr, indices, values, sqnorm, col_indptr, col_indices, col_values)``. Dense data
fills ``dense`` (n x d) and leaves the CSR arrays empty; sparse data fills the CSR arrays and
leaves ``dense`` as a 0 x 0 array. ``sqnorm`` holds ||x||^2 for every point (used by the RBF
kernel); its length is the number of points. Both keep a copy by columns (the ``col_*`` arrays),
so that the inner products of one point with all points are accumulated column by column:
- sparse, a CSC copy: only the points that share a feature with it are touched — n * sum_f p_f^2
  multiply-adds for feature frequencies p_f, never more than the n * sum_f p_f of walking the
  rows, and with sequential reads (about 17x faster per kernel row on Web data);
- dense, the transposed matrix (column f is ``col_values[col_indptr[f]:col_indptr[f + 1]]``,
  ``col_indices`` empty): one contiguous multiply-add loop per feature, which vectorizes (about 3x
  faster than a dot product per point at 22 features), summed in the same feature order as the
  dot product per point, so the values are identical either way.

A *kernel spec* is ``(kind, gamma, coef0, degree)`` with kind one of LINEAR, POLY, RBF.
"""

import numpy as np
import scipy.sparse as sp
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from svmbench.kernels.compile_cache import jit_callee

LINEAR, POLY, RBF = 0, 1, 2
KERNEL_KINDS = {"linear": LINEAR, "poly": POLY, "rbf": RBF}


# A sparse matrix is bundled as dense points when its column walk (dots_by_columns, the sparse
# path of a kernel row) would touch at least this share of the n points per nonzero of the row's
# point (column_density): the engine follows the data's density, not its container. Measured, one
# thread, kernel rows of 50,000 random points (cache off, best of 3, load average ~2.5, commit
# 81d5f70), sparse / dense time per entry at column density 0.3, 0.4, 0.45, 0.5: 22 features
# 0.79, 1.60, 1.76, 2.03; 100 features 0.72, 0.97, 1.00, 1.08; 300 features 0.65, 0.87, 0.99,
# 1.07. ijcnn1 as CSR (13 of 22 features, column density 0.93): 17.1 ns vs 4.8 ns an entry.
DENSE_MIN_COLUMN_DENSITY = 0.5
# ... and when its dense copy stays small: at least this share of its entries nonzero (a few
# frequent features among very many rare ones make the column density high but the dense copy
# huge)
DENSE_MIN_DENSITY = 0.25


def make_points(X):
    """Bundle a dense array or a scipy sparse matrix into the points tuple used by compiled code:
    a sparse matrix whose column_density reaches DENSE_MIN_COLUMN_DENSITY (and whose density
    DENSE_MIN_DENSITY) is bundled densely,
    keeping the squared norms summed over its nonzeros, so that its kernel values are those of
    the sparse bundle bit for bit (both sum the same products in feature order; a dense array's
    norms come from einsum and may differ from those in the last bit)."""
    if not sp.issparse(X):
        dense = np.ascontiguousarray(X, dtype=np.float64)
        return _dense_points(dense, np.einsum("ij,ij->i", dense, dense))
    csr = sp.csr_matrix(X, dtype=np.float64)
    csr.sum_duplicates()
    sqnorm = np.asarray(csr.multiply(csr).sum(axis=1), dtype=np.float64).ravel()
    if (column_density(csr) >= DENSE_MIN_COLUMN_DENSITY
            and csr.nnz >= DENSE_MIN_DENSITY * csr.shape[0] * csr.shape[1]):
        return _dense_points(csr.toarray(), sqnorm)
    return (np.zeros((0, 0)), *_sparse_arrays(csr), sqnorm, *_sparse_arrays(csr.tocsc()))


def column_density(X):
    """The share of the points a column walk touches per nonzero walked: sum_f p_f^2 / sum_f p_f
    over the features' nonzero counts p_f, divided by the number of points (1 for dense data;
    0 for a matrix without nonzeros)."""
    counts = np.bincount(X.indices, minlength=X.shape[1]).astype(np.float64)
    total = counts.sum()
    return float(counts @ counts / (total * X.shape[0])) if total > 0 else 0.0


def _dense_points(dense, sqnorm):
    n, d = dense.shape
    columns = (np.arange(d + 1, dtype=np.int64) * n, np.zeros(0, dtype=np.int32),
               np.ascontiguousarray(dense.T).ravel())
    return (dense, *_sparse_arrays(None), sqnorm, *columns)


def binary_bits(X):
    """Binary points (every value of X, dense or sparse, 0 or 1) as bits, word by word: a
    (words x n) array, bit f of word w of point j at [w, j] being feature 64 w + f, so that a pass
    over one word of all points is contiguous. A 0 x 0 array when X is not binary, or when its
    bits would take more words than it has nonzeros (then walking them is cheaper)."""
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        X.sum_duplicates()  # as make_points: duplicates are one value, their sum
    else:
        X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    values = X.data if sp.issparse(X) else X
    words = (d + 63) // 64
    if not np.all((values == 0.0) | (values == 1.0)) or words * n > np.count_nonzero(values):
        return np.zeros((0, 0), dtype=np.uint64)
    points, features = X.nonzero()
    bits = np.zeros((words, n), dtype=np.uint64)
    features = features.astype(np.uint64)
    np.bitwise_or.at(bits, (features // 64, points), np.left_shift(np.uint64(1), features % 64))
    return bits


def _sparse_arrays(matrix):
    """(indptr, indices, values) of a CSR/CSC matrix with fixed dtypes; empty ones for None."""
    if matrix is None:
        return (np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32), np.zeros(0))
    return (matrix.indptr.astype(np.int64), matrix.indices.astype(np.int32),
            np.ascontiguousarray(matrix.data, dtype=np.float64))


def make_kernel_spec(kernel="rbf", gamma=1.0, coef0=0.0, degree=3):
    """Validate kernel parameters and return the spec tuple ``(kind, gamma, coef0, degree)``."""
    if kernel not in KERNEL_KINDS:
        raise ValueError(f"unknown kernel {kernel!r}; choose one of {sorted(KERNEL_KINDS)}")
    if kernel == "rbf" and not gamma > 0:
        raise ValueError(f"RBF kernel needs gamma > 0 (got {gamma}); gamma is the papers' theta")
    return (KERNEL_KINDS[kernel], float(gamma), float(coef0), float(degree))


@njit(cache=True)
def is_sparse(points):
    return points[1].shape[0] > 1


@intrinsic
def popcount(typingctx, word):
    """The number of set bits of a uint64 (LLVM's ctpop: one instruction on x86-64-v2 and up)."""
    if word != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@intrinsic
def float_bits(typingctx, value):
    """The bits of a float64 as an int64 (a bit cast: no conversion)."""
    if value != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen


@intrinsic
def bits_float(typingctx, bits):
    """The float64 of these int64 bits (float_bits' inverse)."""
    if bits != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


# dense points' sums are accumulated this many at a time, every column adding to them while they
# stay in the first-level cache, rather than each column streaming all n sums again (ijcnn1, a
# row of 49,990 sums: 485 -> 434 us; the 8.8 MB of columns a row reads still come from memory)
DENSE_DOT_CHUNK = 1024


@jit_callee
def dots_by_columns(points, query, query_points, dots, first=0, stop=-1):
    """dots[j] = <q, x_j> for the points j in [first, stop) (stop -1: all), q being point
    ``query`` of ``query_points`` (sparse when ``points`` are sparse, dense when they are dense).

    Sparse: walks the columns of q's nonzero features, so only points sharing a feature are
    touched (a column's rows are sorted: its part in the range is found by bisection). Dense:
    adds q_f times column f for every nonzero q_f in turn, DENSE_DOT_CHUNK sums at a time (ijcnn1,
    one-hot in 10 of its 22 features: 13 columns a row instead of 22). The sums run in the same
    feature order for every range, so splitting the points among threads changes no value.
    """
    col_indptr, col_indices, col_values = points[5], points[6], points[7]
    stop = points[4].shape[0] if stop < 0 else stop
    part = dots[first:stop]
    part[:] = 0.0
    if not is_sparse(points):
        q = query_points[0][query]
        features = np.flatnonzero(q)  # adding 0 * x_jf changes no sum: skip q's zero features
        for lo in range(first, stop, DENSE_DOT_CHUNK):
            hi = min(stop, lo + DENSE_DOT_CHUNK)
            for feature in features:
                column = col_values[col_indptr[feature] + lo:col_indptr[feature] + hi]
                add_scaled(dots[lo:hi], column, q[feature])
        return
    q_indptr, q_indices, q_values = query_points[1], query_points[2], query_points[3]
    for k in range(q_indptr[query], q_indptr[query + 1]):
        feature, value = q_indices[k], q_values[k]
        if feature + 1 >= col_indptr.shape[0]:
            continue
        rows = col_indices[col_indptr[feature]:col_indptr[feature + 1]]
        start = col_indptr[feature] + (np.searchsorted(rows, first) if first > 0 else 0)
        for q in range(start, col_indptr[feature + 1]):
            if col_indices[q] >= stop:
                break
            dots[col_indices[q]] += value * col_values[q]


# exp(x) for x <= 0 without a call into libm, so that the loops filling kernel rows vectorize
# (numba's LLVM has no vector exp): Cody-Waite reduction x = n ln 2 + r, |r| <= ln 2 / 2, with
# ln 2 split in a high part exact in n * LN2_HI and a low part; exp(r) by its Taylor polynomial of
# degree 12 (truncation error < 2e-16 relative); 2^n written into the exponent bits, and where
# exp is subnormal (x < log(tiny) = -708.4) the result is scaled down in a second step, so that it
# is not 0 where libm's is not: a decision value made of such kernel values keeps its sign (one
# Ionosphere test point at gamma = 256 flipped when they were flushed to 0). Relative error below
# 5e-16 against libm's exp (measured) for normal results; exactly 1 at x = 0.
LOG2_E = 1.4426950408889634
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
EXP_UNDERFLOW = float(np.log(np.finfo(np.float64).tiny))  # -708.396...: exp is subnormal below
EXP_ZERO = -745.2  # libm's exp is 0 below about -745.13
SUBNORMAL_SHIFT = 600  # 2^n = 2^(n + 600) 2^-600 for the subnormal results
EXP_TAYLOR = tuple(1.0 / np.prod(np.arange(1.0, k + 1.0)) for k in range(13))
# n (a whole number, |n| < 2^51) as an integer without a float-to-integer conversion, which
# numba's loops leave scalar (AVX2 has no packed float64-to-int64 form; rbf_of_distances took
# 3.53 ns an entry with it, 3.0 without, docs/changelog.md): n + 1.5 * 2^52 holds n in its low
# mantissa bits, exactly
ROUNDING_SHIFTER = 1.5 * 2.0 ** 52
ROUNDING_SHIFTER_BITS = int(np.float64(ROUNDING_SHIFTER).view(np.int64))


@njit(cache=True, inline="always")
def exp_nonpositive(x):
    """exp(x) for x <= 0 (see EXP_TAYLOR above); 0 below EXP_ZERO and for -inf and NaN: never a
    value outside [0, 1] (a grid search relies on it: svmbench.tuning.finite_by_construction)."""
    v = max(x, EXP_ZERO)
    n = np.floor(v * LOG2_E + 0.5)
    r = (v - n * LN2_HI) - n * LN2_LO
    c = EXP_TAYLOR
    poly = c[0] + r * (c[1] + r * (c[2] + r * (c[3] + r * (c[4] + r * (c[5] + r * (c[6] + r * (
        c[7] + r * (c[8] + r * (c[9] + r * (c[10] + r * (c[11] + r * c[12])))))))))))
    shift = SUBNORMAL_SHIFT if v < EXP_UNDERFLOW else 0
    whole = np.float64(n + ROUNDING_SHIFTER).view(np.int64) - ROUNDING_SHIFTER_BITS
    power = np.int64((whole + shift + 1023) << 52).view(np.float64)
    scale = np.int64((1023 - shift) << 52).view(np.float64)
    return poly * power * scale if x >= EXP_ZERO else 0.0


@njit(cache=True)
def add_scaled(total, column, value):
    """total += value * column (a loop from 0, so that it vectorizes)."""
    for j in range(total.shape[0]):
        total[j] += column[j] * value


@jit_callee
def apply_kernel(spec, dot, sqnorm_a, sqnorm_b):
    """k(a, b) from <a, b> and the squared norms."""
    kind, gamma, coef0, degree = spec
    if kind == RBF:
        dist = sqnorm_a + sqnorm_b - 2.0 * dot
        return exp_nonpositive(-gamma * max(dist, 0.0))
    if kind == POLY:
        return (gamma * dot + coef0) ** degree
    return dot


@jit_callee
def scatter(points, i, buffer):
    """Write sparse point i into the dense work buffer (which must be all zeros)."""
    indptr, indices, values = points[1], points[2], points[3]
    for k in range(indptr[i], indptr[i + 1]):
        buffer[indices[k]] = values[k]


@jit_callee
def unscatter(points, i, buffer):
    indptr, indices = points[1], points[2]
    for k in range(indptr[i], indptr[i + 1]):
        buffer[indices[k]] = 0.0


@jit_callee
def dot_with_buffer(points, j, buffer):
    """<x_j, b> where b is a dense vector (a scattered sparse point, or a dense point)."""
    if is_sparse(points):
        indptr, indices, values = points[1], points[2], points[3]
        total = 0.0
        for k in range(indptr[j], indptr[j + 1]):
            total += values[k] * buffer[indices[k]]
        return total
    row = points[0][j]
    total = 0.0
    for k in range(row.shape[0]):
        total += row[k] * buffer[k]
    return total


@jit_callee
def load_point(points, i, buffer):
    """Make ``buffer`` hold point i densely: scatter it if sparse, return the row view if dense."""
    if is_sparse(points):
        scatter(points, i, buffer)
        return buffer
    return points[0][i]


@jit_callee
def release_point(points, i, buffer):
    if is_sparse(points):
        unscatter(points, i, buffer)

