"""The kernel provider: serves kernel (or Q-matrix) rows to compiled solvers, caches them, and
counts them.

Every solver gets its kernel values from here and nowhere else, so the papers' counts mean
the same thing for every algorithm:

- ``kernel_requested`` (the papers' K2): entries the algorithm asked for, i.e. the count with no cache;
- ``kernel_computed`` (the papers' K1): entries actually computed with the configured cache;

and it times the computing of those entries (``computing_cycles``: the cycle counter's ticks, a
few dozen cycles a computed row or entry), so that a fit's kernel-row time is measured where it
is spent, not estimated apart.

Rows are addressed by *position*; a row request names a prefix length (the active set under
shrinking); the rows are kept in LIBSVM's ``Cache`` (svmbench.kernels.cache: variable-length rows
under one budget, LRU eviction) and ``swap_positions`` exchanges two positions the way LIBSVM's
``swap_index`` does. Cached values are single precision, as LIBSVM's ``Qfloat``, so a budget of
M megabytes holds as many entries as it does in LIBSVM.

The rows served are those of a *Q-matrix* ``Q_ij = s_i s_j (k(x_i, x_j) + shift) + ridge delta_ij``
(see svmbench.kernels.qmatrix for the kinds: plain K, C-SVC, L2-SVM); the provider folds labels,
shift and ridge in while it fills a row, so the cache holds Q values, and with the defaults
(s = 1, shift = ridge = 0) it serves the kernel itself.

The state is a named tuple of arrays so that compiled solvers can take it as one argument.
Diagonal entries Q_ii are computed once when the provider is built and are not counted.
"""

from collections import namedtuple

import numba
import numpy as np
from numba import njit, prange
from numba.extending import overload

from svmbench.kernels.cache import (
    BATCHES,
    PENDING,
    apply_pending_swaps,
    cache_entries,
    cached_row,
    defer_swap,
    get_data,
    holds,
    lookup,
    make_full_cache,
    make_row_cache,
    reset_full_cache,
    swap_index,
    touch_held,
)
from svmbench.kernels.compile_cache import jit_callee
from svmbench.kernels.cycles import cycle_count
from svmbench.kernels.math import (
    DENSE_DOT_CHUNK,
    RBF,
    add_scaled,
    apply_kernel,
    binary_bits,
    dot_with_buffer,
    dots_by_columns,
    exp_nonpositive,
    is_sparse,
    load_point,
    make_kernel_spec,
    make_points,
    popcount,
    release_point,
)

# counters[...] indices: the counts, and the cycle counter's ticks (svmbench.kernels.cycles)
# spent computing the counted entries
REQUESTED, COMPUTED, COMPUTING_CYCLES = 0, 1, 2
# fold[...] indices
SHIFT, RIDGE = 0, 1
# settings[...] indices
CACHING, PARALLEL_MIN = 0, 1
# rows shorter than this are filled by one thread: the fork/join costs more than it saves (2 cores,
# sleeping workers; smo_wss2 with 2 numba threads, rows split from 4096 entries vs never, wall,
# median of 3, commit 4229ea9). Dense rows: ijcnn1 1.94 s vs 3.01 s. Sparse rows never gained
# (Adult and Web, ~12-14 nonzeros a sample): a4a 0.254 s vs 0.113, w7a 0.672 vs 0.474, a8a 2.71
# vs 2.47, so they are filled by one thread unless the provider's settings (which carry the
# threshold, changeable without compiling) say otherwise. Binary points (Adult, Web) are filled
# from their bits by position (~1.6 ns an entry): split from 16384 entries. From 4096, the bench
# of be9233d (OMP_WAIT_POLICY=PASSIVE) lost on a4a's 4781-entry rows at 2 threads (smo_wss2
# 0.58 -> 1.13 s, GS-SVM 0.22 -> 1.06 s over 9 points); in one process (spinning workers, median
# of 3, load ~1.2) 16384 kept GS-SVM's gains: w7a 0.099 -> 0.071 s, a8a 0.367 -> 0.227, w8a
# 0.303 -> 0.213 (never: 0.104, 0.354, 0.322 at 2 threads).
PARALLEL_MIN_ENTRIES = 4096
BINARY_PARALLEL_MIN_ENTRIES = 16384
SPARSE_PARALLEL_MIN_ENTRIES = np.iinfo(np.int64).max
# entries a thread takes at a time in the parallel loops
PARALLEL_CHUNK = 1024
# binary points' sums are kept this many at a time, in the first-level cache, while every word
# adds to them (rather than n float sums streamed once a word): a full row of w8a (5 words)
# 2.4-2.8 -> 2.1 ns an entry, a8a (2 words) 1.5-1.6 -> 1.1-1.3, the same values (changelog)
BINARY_CHUNK = 256
# cost of a nonzero walked point by point relative to one walked column by column: about even
# on Adult and Web rows (a8a, w7a) once the point-by-point sum is written out in _fill_range
POINT_WALK_COST = 1.0

KernelProvider = namedtuple(
    "KernelProvider",
    [
        "points",  # the training points (see kernels.math)
        "spec",  # (kind, gamma, coef0, degree)
        "signs",  # signs[i] = s_i of training sample i (labels y_i for C-SVC / L2-SVM, else 1)
        "fold",  # [shift, ridge]: Q_ij = s_i s_j (k_ij + shift) + ridge delta_ij
        "perm",  # perm[p] = training sample at position p
        "diag",  # diag[p] = Q at (p, p)
        "buffer",  # dense work vector of n_features entries, all zero between calls
        "dots",  # work vector of n inner products by sample (points walked by columns)
        "work",  # work vector of n double-precision kernel values by position (a row being filled)
        "cache",  # the rows (svmbench.kernels.cache.RowCache; float64 for a precomputed matrix)
        "settings",  # [caching enabled (0/1), shortest row filled in parallel]
        "counters",  # [kernel_requested, kernel_computed, cycles spent computing entries]
        # by position, moved with the positions, so that rows are filled by contiguous passes
        # (_fill_binary_range, _fill_range):
        "position_bits",  # the bits of binary points (math.binary_bits; 0 x 0 for others)
        "position_columns",  # dense points' features, feature f of position p at [f, p] (0 x 0
        #                      for sparse points): _fill_dense_range
        "position_sqnorm",  # ||x||^2 (binary points: the number of nonzeros)
        "position_signs",  # s
        "kernel_by_distance",  # binary points, RBF: k at squared distance 0, 1, ..., 2 max ||x||^2
    ],
)


# A provider's class names how its rows are filled (_fill_row), a type that compiled code sees:
# a solver compiled for one kind of points compiles that kind's row filler only (the other two,
# with their parallel regions, cost ~14 s CPU of a cold smo_wss2 fit's compile and more again in
# every compiled caller that links them). with_kind gives a provider its class.
class BinaryProvider(KernelProvider):
    """Points kept as bits (math.binary_bits): rows filled from the bits (_fill_from_bits)."""

    __slots__ = ()


class DenseProvider(KernelProvider):
    """Dense points (and precomputed matrices): rows from the columns by position
    (_fill_from_columns)."""

    __slots__ = ()


class SparseProvider(KernelProvider):
    """Sparse points: rows by points or by columns (_fill_from_points)."""

    __slots__ = ()


def with_kind(provider):
    """``provider`` as the class of its points (BinaryProvider when it keeps bits, else
    DenseProvider or SparseProvider): the class decides which row filler compiled code runs."""
    if provider.position_bits.shape[0] > 0:
        kind = BinaryProvider
    else:
        kind = SparseProvider if is_sparse(provider.points) else DenseProvider
    return kind(*provider)


def _fold_arrays(n, signs, shift, ridge):
    signs = np.ones(n) if signs is None else np.ascontiguousarray(signs, dtype=np.float64)
    if signs.shape != (n,):
        raise ValueError(f"need one sign (label) per training sample: {signs.shape[0]} for {n}")
    return signs, np.array([shift, ridge], dtype=np.float64)


def parallel_min_entries(points, binary):
    """The row length from which a row is split among threads (the thresholds above)."""
    if binary:
        return BINARY_PARALLEL_MIN_ENTRIES
    return SPARSE_PARALLEL_MIN_ENTRIES if is_sparse(points) else PARALLEL_MIN_ENTRIES


def make_provider(X, kernel="rbf", gamma=1.0, coef0=0.0, degree=3, cache_mb=100.0, signs=None,
                  shift=0.0, ridge=0.0, points=None):
    """Build a provider over training data X (dense array or sparse matrix).

    ``signs``, ``shift`` and ``ridge`` fold the kernel into a Q-matrix (build them with
    svmbench.kernels.qmatrix rather than by hand); the defaults serve the kernel itself.
    ``cache_mb=0`` turns caching off: every requested entry is computed (K1 == K2); two full rows
    are still kept so that a solver can hold two rows at once. ``points``: make_points(X) when
    the caller has bundled them already.
    """
    if cache_mb < 0:
        raise ValueError(f"cache_mb must be >= 0 (got {cache_mb}); use 0 to turn the cache off")
    # Cached compiled code that reaches the parallel row filler finds no scheduler unless numba's
    # threading layer was started first, and crashes ("Symbol not found: allocate_sched")
    numba.get_num_threads()
    points = make_points(X) if points is None else points
    spec = make_kernel_spec(kernel, gamma, coef0, degree)
    n = points[4].shape[0]
    signs, fold = _fold_arrays(n, signs, shift, ridge)
    bits = binary_bits(X)
    binary = bits.shape[0] > 0
    provider = with_kind(KernelProvider(
        points=points,
        spec=spec,
        signs=signs,
        fold=fold,
        perm=np.arange(n, dtype=np.int64),
        diag=np.empty(n, dtype=np.float64),
        buffer=np.zeros(max(X.shape[1], 1), dtype=np.float64),
        dots=np.zeros(n, dtype=np.float64),
        work=np.zeros(n, dtype=np.float64),
        cache=make_row_cache(n, cache_entries(n, cache_mb)),
        settings=np.array([1 if cache_mb > 0 else 0, parallel_min_entries(points, binary)],
                          dtype=np.int64),
        counters=np.zeros(3, dtype=np.int64),
        position_bits=bits,
        # a copy: at one feature the transpose is contiguous, and swaps would move the points
        position_columns=np.array(points[0].T, order="C"),
        position_sqnorm=points[4].copy(),
        position_signs=signs.copy(),
        kernel_by_distance=_rbf_by_distance(spec[1], 2 * int(points[4].max(initial=0.0)) + 1)
        if binary and spec[0] == RBF else np.zeros(0),
    ))
    fill_diagonal(provider)
    return provider


def make_precomputed_provider(block, signs=None, shift=0.0, ridge=0.0):
    """A provider over a given square kernel matrix ``block`` (``kernel="precomputed"``; e.g. one
    class pair's block of a Gram matrix, see :func:`gram_block`), folded into a Q-matrix by
    ``signs``, ``shift`` and ``ridge`` as in :func:`make_provider`.

    Every row is in the cache from the start, kept in double precision (unlike computed rows,
    cached as float32 like LIBSVM's): hm_svm's exact solution needs a Q that single precision
    would make indefinite at small gamma. ``kernel_requested`` counts as usual and
    ``kernel_computed`` stays 0: computing the matrix is the caller's cost.
    """
    n = block.shape[0]
    numba.get_num_threads()  # the solvers' cached code links the parallel row filler: see above
    matrix = np.empty((n, n), dtype=np.float64)
    diag = np.empty(n, dtype=np.float64)
    signs, fold = _fold_arrays(n, signs, shift, ridge)
    fold_block(np.ascontiguousarray(block, dtype=np.float64), signs, fold, matrix, diag)
    return with_kind(KernelProvider(
        points=make_points(np.zeros((n, 1))),  # never read: no row is ever computed
        spec=make_kernel_spec("linear", 1.0, 0.0, 1),
        signs=signs,
        fold=fold,
        perm=np.arange(n, dtype=np.int64),
        diag=diag,
        buffer=np.zeros(1, dtype=np.float64),
        dots=np.zeros(n, dtype=np.float64),
        work=np.zeros(n, dtype=np.float64),
        cache=make_full_cache(matrix),
        settings=np.array([1, PARALLEL_MIN_ENTRIES], dtype=np.int64),
        counters=np.zeros(3, dtype=np.int64),
        position_bits=np.zeros((0, 0), dtype=np.uint64),
        position_columns=np.zeros((0, 0)),
        position_sqnorm=np.zeros(n),
        position_signs=signs.copy(),
        kernel_by_distance=np.zeros(0),
    ))


@jit_callee
def restore_precomputed_provider(provider, block, refold):
    """A provider of make_precomputed_provider over ``block``, after a solve, as it was made: its
    Q-matrix folded anew when ``refold`` (``block`` holds new values) or when the solve left a
    position moved (swaps that end where they began leave every row as it was: each swap
    exchanges two rows and the same two entries of every row), its cache's bookkeeping and
    counts reset."""
    n = block.shape[0]
    cache = provider.cache
    moved = refold or cache.state[PENDING] > 0 or cache.state[BATCHES] > 0
    for p in range(n):
        moved |= (provider.perm[p] != p) | (cache.length[p] != n) | (cache.offset[p] != p * n)
    if moved:
        for p in range(n):
            provider.perm[p], provider.position_signs[p] = p, provider.signs[p]
        fold_block(block, provider.signs, provider.fold, cache.pool.reshape((n, n)),
                   provider.diag)
    reset_full_cache(cache)
    provider.counters[:] = 0


@njit(cache=True)
def restore_precomputed_providers(providers, blocks, refold):
    """restore_precomputed_provider for each provider of a typed list and its block, in one
    call (svmbench.kernels.typed_lists)."""
    for k in range(len(providers)):
        restore_precomputed_provider(providers[k], blocks[k], refold)


def gram_block(gram, members):
    """gram[members][:, members], a new C-contiguous array."""
    return gram_blocks(gram, [members])[1][0]


def gram_blocks(gram, members_list, flat=None):
    """(flat, blocks): the blocks gram[m][:, m] of every m in ``members_list``, gathered in one
    pass over the rows of gram (:func:`gather_blocks`) into one flat array, ``flat`` when given
    (a refill: the array returned for the same list), and the blocks as C-contiguous views of it
    (one array to refill, no list of blocks to hand to compiled code)."""
    members = np.concatenate([np.asarray(m, dtype=np.int64) for m in members_list])
    sizes = np.array([m.shape[0] for m in members_list], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(sizes)))
    offsets = np.concatenate(([0], np.cumsum(sizes * sizes)))
    if flat is None:
        flat = np.empty(offsets[-1], dtype=np.float64)
    gather_blocks(np.asarray(gram, dtype=np.float64), members, starts, offsets,
                  np.argsort(members, kind="stable"), np.repeat(np.arange(sizes.shape[0]), sizes),
                  flat)
    return flat, [flat[offsets[k]:offsets[k + 1]].reshape(size, size)
                  for k, size in enumerate(sizes)]


@njit(cache=True)
def gather_blocks(gram, members, starts, offsets, by_row, block_of, flat):
    """Block k = gram[m][:, m] for m = members[starts[k]:starts[k + 1]], row-major at
    flat[offsets[k]:], a block's row at a time in ``by_row``'s order, the rows of gram ascending:
    a row of gram is read from memory once for all the blocks that hold it (each sample is in
    k - 1 of the k (k - 1) / 2 class pairs of one-vs-one: with the blocks gathered one after the
    other, Segment's grid search read its Gram matrix six times over at every gamma)."""
    for q in by_row:
        k = block_of[q]
        columns = members[starts[k]:starts[k + 1]]
        first = offsets[k] + (q - starts[k]) * columns.shape[0]
        row, out = gram[members[q]], flat[first:first + columns.shape[0]]
        for b in range(columns.shape[0]):
            out[b] = row[columns[b]]


@njit(cache=True)
def fold_block(block, signs, fold, out, diag):
    """out = the Q-matrix s_a s_b (block_ab + shift) + ridge delta_ab, and diag its diagonal."""
    shift = fold[SHIFT]  # a local, so that the loop vectorizes (out might alias fold)
    for a in range(block.shape[0]):
        sign_a, row, target = signs[a], block[a], out[a]
        for b in range(block.shape[0]):
            target[b] = sign_a * signs[b] * (row[b] + shift)
        target[a] += fold[RIDGE]
        diag[a] = target[a]


def counts(provider):
    """``(kernel_requested, kernel_computed)`` so far."""
    return int(provider.counters[REQUESTED]), int(provider.counters[COMPUTED])


def computing_cycles(provider):
    """The cycle counter's ticks (svmbench.kernels.cycles: wall time) spent so far computing the
    entries counted as computed: the kernel rows' time of a fit, measured where they are filled
    (kernel_row, kernel_row_once, kernel_entry), so that a fit's time less it is its solver's
    own (issue 42 item 1)."""
    return int(provider.counters[COMPUTING_CYCLES])


@njit(cache=True)
def fill_diagonal(provider):
    """Q_ii = k(x_i, x_i) + shift + ridge for every point (s_i^2 = 1); k(x, x) is exactly 1 for RBF
    (no rounding from ||x||^2 - 2<x,x> + ||x||^2)."""
    points, spec, sqnorm = provider.points, provider.spec, provider.points[4]
    extra = provider.fold[SHIFT] + provider.fold[RIDGE]
    for p in range(provider.perm.shape[0]):
        i = provider.perm[p]
        if spec[0] == RBF:
            provider.diag[p] = 1.0 + extra
            continue
        x = load_point(points, i, provider.buffer)
        kernel = apply_kernel(spec, dot_with_buffer(points, i, x), sqnorm[i], sqnorm[i])
        provider.diag[p] = kernel + extra
        release_point(points, i, provider.buffer)


@njit(cache=True)
def _rbf_by_distance(gamma, count):
    """The RBF kernel at squared distances 0, 1, ..., count - 1, as _fill_range computes it."""
    values = np.empty(count)
    for distance in range(count):
        values[distance] = exp_nonpositive(-gamma * np.float64(distance))
    return values


@jit_callee(inline="always")
def _add_shared_bits(bits, own, first, sums, weight):
    """sums[p] += weight * <x_own, x_(first + p)> for binary points: the bits they share,
    counted word by word, one vectorized pass over the sums a word."""
    for word in range(bits.shape[0]):
        mine, column = bits[word, own], bits[word, first:first + sums.shape[0]]
        for p in range(sums.shape[0]):
            sums[p] += weight * np.int64(popcount(column[p] & mine))


@jit_callee
def _fill_binary_range(bits, table, spec, position_signs, position_sqnorm, shift, work, own, out,
                       start, stop):
    """_fill_range for binary points, from their bits by position (no gather, so the counting
    vectorizes), BINARY_CHUNK entries at a time: their integer sums stay in the first-level
    cache (in ``work``'s first entries of the range, so parallel chunks never share them)."""
    buffer = work[start:start + min(BINARY_CHUNK, stop - start)].view(np.int64)
    if spec[0] == RBF:  # a branch per kind of kernel, outside the loops (inside: 6-13 % slower)
        _fill_binary_rbf(bits, table, position_signs, position_sqnorm, shift, buffer, own, out,
                         start, stop)
    else:
        _fill_binary_kernel(bits, spec, position_signs, position_sqnorm, shift, buffer, own,
                            out, start, stop)


@jit_callee(inline="always")
def _fill_binary_rbf(bits, table, position_signs, position_sqnorm, shift, buffer, own, out, start,
                     stop):
    """The RBF kernel's row: the sums are squared distances ||x_i||^2 + ||x_j||^2 - 2 <x_i, x_j>,
    integers >= 0 (|x_i xor x_j|), and the kernel is read from ``table`` (kernel_by_distance)
    there, so the values are those _fill_range computes."""
    own_sqnorm, own_sign = position_sqnorm[own], position_signs[own]
    for first in range(start, stop, BINARY_CHUNK):
        last = min(first + BINARY_CHUNK, stop)
        distances, sqnorm = buffer[:last - first], position_sqnorm[first:last]
        for p in range(distances.shape[0]):
            distances[p] = np.int64(own_sqnorm + sqnorm[p])
        _add_shared_bits(bits, own, first, distances, -2)
        signs, row = position_signs[first:last], out[first:last]
        for p in range(row.shape[0]):
            row[p] = own_sign * signs[p] * (table[distances[p]] + shift)


@jit_callee(inline="always")
def _fill_binary_kernel(bits, spec, position_signs, position_sqnorm, shift, buffer, own, out,
                        start, stop):
    """Any other kernel's row, from the inner products (the shared bits) and squared norms."""
    own_sqnorm, own_sign = position_sqnorm[own], position_signs[own]
    for first in range(start, stop, BINARY_CHUNK):
        last = min(first + BINARY_CHUNK, stop)
        shared = buffer[:last - first]
        shared[:] = 0
        _add_shared_bits(bits, own, first, shared, 1)
        sqnorm, signs, row = position_sqnorm[first:last], position_signs[first:last], out[first:last]
        for p in range(row.shape[0]):
            kernel = apply_kernel(spec, np.float64(shared[p]), own_sqnorm, sqnorm[p])
            row[p] = own_sign * signs[p] * (kernel + shift)


@jit_callee
def _fill_range(points, spec, position_signs, position_sqnorm, shift, perm, x, dots, work, own,
                out, start, stop, by_columns):
    """out[p] = s_i s_j (k(x_i, x_j) + shift), i = perm[own], j = perm[p], for p in [start, stop),
    sparse points: inner products from ``dots`` (indexed by sample) when they were accumulated by
    columns, else from the dense vector ``x``, into ``work`` (by position), then _fill_kernel;
    every loop runs over slices from 0 (from a variable start, numba's index wraparound check
    keeps a loop scalar)."""
    indptr, indices, values = points[1], points[2], points[3]
    samples, products = perm[start:stop], work[start:stop]
    if by_columns:
        for p in range(samples.shape[0]):
            products[p] = dots[samples[p]]
    else:  # dot_with_buffer written out: a call per entry costs ~5x the sum
        for p in range(samples.shape[0]):
            j, dot = samples[p], 0.0
            for k in range(indptr[j], indptr[j + 1]):
                dot += values[k] * x[indices[k]]
            products[p] = dot
    _fill_kernel(spec, position_signs, position_sqnorm, shift, work, own, out, start, stop)


@jit_callee
def _fill_kernel(spec, position_signs, position_sqnorm, shift, work, own, out, start, stop):
    """out[p] = s_i s_j (k(x_i, x_j) + shift) for p in [start, stop) from the inner products
    <x_i, x_j> in work[p] (i at position ``own``): the RBF kernel's exponentials run in a loop of
    their own that vectorizes; ||x_j||^2 and s_j are read by position (no gather)."""
    kind, gamma = spec[0], spec[1]
    kernel, row = work[start:stop], out[start:stop]
    sqnorm, own_sqnorm = position_sqnorm[start:stop], position_sqnorm[own]
    signs, own_sign = position_signs[start:stop], position_signs[own]
    if kind == RBF:  # the exponent -gamma ||x_i - x_j||^2, then its exponential
        for p in range(kernel.shape[0]):
            kernel[p] = -gamma * max(own_sqnorm + sqnorm[p] - 2.0 * kernel[p], 0.0)
        for p in range(kernel.shape[0]):
            kernel[p] = exp_nonpositive(kernel[p])
    else:
        for p in range(kernel.shape[0]):
            kernel[p] = apply_kernel(spec, kernel[p], own_sqnorm, sqnorm[p])
    for p in range(row.shape[0]):
        row[p] = own_sign * signs[p] * (kernel[p] + shift)


@jit_callee
def _fill_dense_range(columns, point, features, spec, position_signs, position_sqnorm, shift,
                      work, own, out, start, stop):
    """_fill_kernel over [start, stop) for dense points, the inner products of ``point`` (the
    point at position ``own``) with the points there from their columns by position
    (``columns``, position_columns): point_f times column f added for each nonzero feature f in
    turn (``features``), DENSE_DOT_CHUNK sums at a time, while they stay in the first-level cache.
    The sums run in the order of math.dots_by_columns and of a dot product per point (the zero
    features add nothing), so the values are theirs bit for bit; no gather by sample, and a row
    prefix costs its own entries only."""
    for lo in range(start, stop, DENSE_DOT_CHUNK):
        hi = min(stop, lo + DENSE_DOT_CHUNK)
        products = work[lo:hi]
        products[:] = 0.0
        for feature in features:
            add_scaled(products, columns[feature, lo:hi], point[feature])
        _fill_kernel(spec, position_signs, position_sqnorm, shift, work, own, out, lo, hi)


@jit_callee(parallel=True)
def fill_dense_chunks_parallel(columns, point, features, kind, gamma, coef0, degree,
                               position_signs, position_sqnorm, shift, work, own, out, start,
                               stop):
    """_fill_dense_range over [start, stop), PARALLEL_CHUNK entries to a thread at a time: a
    row's inner products and kernel values in one parallel region (the spec travels unpacked:
    numba's parallel regions take arrays and scalars only)."""
    for c in prange((stop - start + PARALLEL_CHUNK - 1) // PARALLEL_CHUNK):
        lo = start + c * PARALLEL_CHUNK
        _fill_dense_range(columns, point, features, (kind, gamma, coef0, degree), position_signs,
                          position_sqnorm, shift, work, own, out, lo,
                          min(stop, lo + PARALLEL_CHUNK))


@jit_callee(parallel=True)
def fill_binary_chunks_parallel(bits, table, kind, gamma, coef0, degree, position_signs,
                                position_sqnorm, shift, work, own, out, start, stop):
    """_fill_binary_range over [start, stop), PARALLEL_CHUNK entries to a thread at a time."""
    for c in prange((stop - start + PARALLEL_CHUNK - 1) // PARALLEL_CHUNK):
        lo = start + c * PARALLEL_CHUNK
        _fill_binary_range(bits, table, (kind, gamma, coef0, degree), position_signs,
                           position_sqnorm, shift, work, own, out, lo,
                           min(stop, lo + PARALLEL_CHUNK))


@jit_callee(parallel=True)
def fill_chunks_parallel(dense, indptr, indices, values, sqnorm, col_indptr, col_indices,
                         col_values, kind, gamma, coef0, degree, position_signs, position_sqnorm,
                         shift, perm, x, dots, work, own, out, start, stop, by_columns):
    """_fill_range over [start, stop), PARALLEL_CHUNK entries to a thread at a time (the tuples
    travel unpacked: numba's parallel regions take arrays and scalars only)."""
    points = (dense, indptr, indices, values, sqnorm, col_indptr, col_indices, col_values)
    for c in prange((stop - start + PARALLEL_CHUNK - 1) // PARALLEL_CHUNK):
        lo = start + c * PARALLEL_CHUNK
        _fill_range(points, (kind, gamma, coef0, degree), position_signs, position_sqnorm, shift,
                    perm, x, dots, work, own, out, lo, min(stop, lo + PARALLEL_CHUNK), by_columns)


@jit_callee(parallel=True)
def dots_chunks_parallel(dense, indptr, indices, values, sqnorm, col_indptr, col_indices,
                         col_values, i, dots):
    """dots_by_columns of point i with every point, PARALLEL_CHUNK points to a thread at a time
    (a chunk's sums also stay in the first-level cache while every column adds to them)."""
    points = (dense, indptr, indices, values, sqnorm, col_indptr, col_indices, col_values)
    n = sqnorm.shape[0]
    for c in prange((n + PARALLEL_CHUNK - 1) // PARALLEL_CHUNK):
        dots_by_columns(points, i, points, dots, c * PARALLEL_CHUNK,
                        min(n, (c + 1) * PARALLEL_CHUNK))


@jit_callee
def _walk_columns(points, i, count):
    """Whether the inner products of sparse point i with ``count`` points are cheaper column by
    column (touching every point that shares a feature with i, and clearing all n sums) than
    point by point (touching the nonzeros of the ``count`` points). Both sum the same products in
    the same feature order, so the kernel values are identical either way."""
    indptr, indices, col_indptr = points[1], points[2], points[5]
    n = points[4].shape[0]
    by_columns = n  # clearing the n sums
    for k in range(indptr[i], indptr[i + 1]):
        feature = indices[k]
        if feature + 1 < col_indptr.shape[0]:
            by_columns += col_indptr[feature + 1] - col_indptr[feature]
    by_points = count * (indptr[n] / n) * POINT_WALK_COST
    return by_columns <= by_points


@jit_callee
def _fill_row(provider, position, out, start, stop):
    """Compute Q at (position, p) for p in [start, stop) into out: binary points from their bits
    (one thread), dense ones from their columns by position, sparse ones from the points: the
    provider's class (with_kind) picks which, when this is compiled (fill_of_kind)."""
    fill_of_kind(provider, position, out, start, stop)
    if start <= position < stop:
        out[position] += provider.fold[RIDGE]


def fill_of_kind(provider, position, out, start, stop):
    """The row filler of the provider's class (_fill_of_kind), in compiled code only."""
    raise TypeError("fill_of_kind runs in compiled code only")


@overload(fill_of_kind, inline="always")  # no compiled layer of its own: see DESIGN
def _fill_of_kind(provider, position, out, start, stop):
    """fill_of_kind for numba's typing: the filler of the provider's class (see with_kind)."""
    fill = {BinaryProvider: _fill_from_bits, DenseProvider: _fill_from_columns,
            SparseProvider: _fill_from_points}[provider.instance_class]

    def fill_kind(provider, position, out, start, stop):
        fill(provider, position, out, start, stop)

    return fill_kind


@jit_callee
def _fill_from_bits(provider, position, out, start, stop):
    """Q at (position, p) for p in [start, stop) without the ridge, for binary points
    (_fill_binary_range), in one parallel region for long rows."""
    args = (provider.position_bits, provider.kernel_by_distance)
    signs, sqnorm, shift = provider.position_signs, provider.position_sqnorm, provider.fold[SHIFT]
    if stop - start >= provider.settings[PARALLEL_MIN]:
        fill_binary_chunks_parallel(*args, *provider.spec, signs, sqnorm, shift, provider.work,
                                    position, out, start, stop)
    else:
        _fill_binary_range(*args, provider.spec, signs, sqnorm, shift, provider.work, position,
                           out, start, stop)


@jit_callee
def _fill_from_columns(provider, position, out, start, stop):
    """Q at (position, p) for p in [start, stop) without the ridge, for dense points
    (_fill_dense_range), in one parallel region for long rows."""
    point = provider.points[0][provider.perm[position]]
    features = np.flatnonzero(point)  # adding 0 * x_jf changes no sum
    columns, signs, sqnorm = (provider.position_columns, provider.position_signs,
                              provider.position_sqnorm)
    if stop - start >= provider.settings[PARALLEL_MIN]:
        fill_dense_chunks_parallel(columns, point, features, *provider.spec, signs, sqnorm,
                                   provider.fold[SHIFT], provider.work, position, out, start,
                                   stop)
    else:
        _fill_dense_range(columns, point, features, provider.spec, signs, sqnorm,
                          provider.fold[SHIFT], provider.work, position, out, start, stop)


@jit_callee
def _fill_from_points(provider, position, out, start, stop):
    """Q at (position, p) for p in [start, stop) without the ridge, from sparse points: their
    inner products by points or by columns, whichever is cheaper, in parallel for long rows."""
    points = provider.points
    i = provider.perm[position]
    by_columns = _walk_columns(points, i, stop - start)
    parallel = provider.settings[PARALLEL_MIN]
    if by_columns and points[4].shape[0] >= parallel:
        dots_chunks_parallel(*points, i, provider.dots)
    elif by_columns:
        dots_by_columns(points, i, points, provider.dots)
    x = load_point(points, i, provider.buffer)
    signs, sqnorm, shift = provider.position_signs, provider.position_sqnorm, provider.fold[SHIFT]
    if stop - start >= parallel:
        fill_chunks_parallel(*points, *provider.spec, signs, sqnorm, shift, provider.perm, x,
                             provider.dots, provider.work, position, out, start, stop, by_columns)
    else:
        _fill_range(points, provider.spec, signs, sqnorm, shift, provider.perm, x, provider.dots,
                    provider.work, position, out, start, stop, by_columns)
    release_point(points, i, provider.buffer)


@njit(cache=True, inline="always")
def kernel_row(provider, position, length):
    """Q row of ``position`` against positions [0, length), as the cache's row (entries past
    ``length`` may hold more of the row).

    The row stays valid until a later request evicts or moves it: the two most recently requested
    rows are always both valid (the budget holds two full rows and the last row is never moved).
    """
    row, cached = get_data(provider.cache, position, length)
    start = cached if provider.settings[CACHING] == 1 else 0
    provider.counters[REQUESTED] += length
    if start < length:
        began = cycle_count()
        _fill_row(provider, position, row, start, length)
        provider.counters[COMPUTING_CYCLES] += cycle_count() - began
        provider.counters[COMPUTED] += length - start
    return row


@njit(cache=True, inline="always")
def cached_kernel_row(cache, settings, counters, position, length):
    """kernel_row's answer when the provider's ``cache`` holds the row whole (counted the same in
    ``counters``), else an empty row, at no reference-count cost (svmbench.kernels.cache.lookup):
    a solver loop tries it first and calls kernel_row on an empty answer. It takes the provider's
    cache, settings and counters, not the provider: an inlined function binding a plain provider
    (not borrowed: svmbench.kernels.borrowed) takes a reference on each of its arrays, which
    numba's pruner kept here, the row slice's bound checks lying between taking and dropping them
    (see the note in svmbench.solvers.smo)."""
    hit = (settings[CACHING] == 1) & holds(cache, position, length)
    counters[REQUESTED] += length * hit  # before the row's slice, for the reference counts
    return lookup(cache, position, hit)


@njit(cache=True, inline="always")
def held_kernel_rows(cache, settings, counters, positions, start, stop, length, offsets, at):
    """cached_kernel_row of positions[start], positions[start + 1], ... in turn while each is a
    hit (counted the same, the cache's LRU list left the same: svmbench.kernels.cache.
    touch_held), their offsets in the cache's pool into offsets[at], ...; returns the first
    index that is not a hit (``stop`` when all are), whose row the caller asks kernel_row for."""
    if settings[CACHING] != 1:
        return start
    stopped = touch_held(cache, positions, start, stop, length, offsets, at)
    counters[REQUESTED] += (stopped - start) * length
    return stopped


@njit(cache=True)
def kernel_row_once(provider, position, length, out):
    """Q row into the solver's own buffer ``out``, bypassing the cache.

    For rows the solver never asks for again (GS-SVM uses each sample once): caching them would
    only cost memory and page faults. Counted as requested and computed, unless the row is already
    cached (a precomputed kernel matrix).
    """
    apply_pending_swaps(provider.cache)
    provider.counters[REQUESTED] += length
    if provider.settings[CACHING] == 1 and provider.cache.length[position] >= length:
        out[:length] = cached_row(provider.cache, position)[:length]
        return
    provider.counters[COMPUTED] += length
    began = cycle_count()
    _fill_row(provider, position, out, 0, length)
    provider.counters[COMPUTING_CYCLES] += cycle_count() - began


@njit(cache=True)
def kernel_entry(provider, position_a, position_b):
    """One entry Q at (a, b), served from a cached row when there is one."""
    apply_pending_swaps(provider.cache)
    provider.counters[REQUESTED] += 1
    if provider.settings[CACHING] == 1:
        for position, other in ((position_a, position_b), (position_b, position_a)):
            if provider.cache.length[position] > other:
                return np.float64(cached_row(provider.cache, position)[other])
    provider.counters[COMPUTED] += 1
    began = cycle_count()
    points, spec, sqnorm = provider.points, provider.spec, provider.points[4]
    i, j = provider.perm[position_a], provider.perm[position_b]
    x = load_point(points, i, provider.buffer)
    kernel = apply_kernel(spec, dot_with_buffer(points, j, x), sqnorm[i], sqnorm[j])
    release_point(points, i, provider.buffer)
    provider.counters[COMPUTING_CYCLES] += cycle_count() - began
    ridge = provider.fold[RIDGE] if position_a == position_b else 0.0
    return provider.signs[i] * provider.signs[j] * (kernel + provider.fold[SHIFT]) + ridge


@njit(cache=True, inline="always")
def _exchange_positions(provider, a, b):
    provider.perm[a], provider.perm[b] = provider.perm[b], provider.perm[a]
    for values in (provider.diag, provider.position_sqnorm, provider.position_signs):
        values[a], values[b] = values[b], values[a]
    bits, columns = provider.position_bits, provider.position_columns
    for word in range(bits.shape[0]):
        bits[word, a], bits[word, b] = bits[word, b], bits[word, a]
    for feature in range(columns.shape[0]):
        columns[feature, a], columns[feature, b] = columns[feature, b], columns[feature, a]


@njit(cache=True)
def swap_positions(provider, a, b, keep_prefix=False):
    """Exchange positions a and b (LIBSVM's swap_index): data, diagonal and cached rows.

    A cached row that holds min(a, b) but not max(a, b) is dropped, as LIBSVM does; with
    ``keep_prefix`` it keeps its entries before min(a, b) instead (for solvers that move
    samples across the end of a prefix they request, such as Keerthi's I0).
    """
    _exchange_positions(provider, a, b)
    swap_index(provider.cache, a, b, keep_prefix)


@njit(cache=True, inline="always")
def defer_swap_positions(provider, a, b):
    """swap_positions(provider, a, b) with the cached rows' entries left to the next request
    (svmbench.kernels.cache.defer_swap: for a run of swaps, such as a shrinking pass)."""
    _exchange_positions(provider, a, b)
    defer_swap(provider.cache, a, b)
