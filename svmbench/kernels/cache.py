"""LIBSVM's ``Cache`` (svm.cpp): rows of variable length under one budget of entries, LRU order.

Row p caches the prefix [0, len_p) of the matrix row at position p; a request for a longer prefix
grows it (the new tail is the caller's to fill), evicting least recently used rows until the
budget has room, so a problem shrunk to an active prefix holds as many more rows as its rows are
shorter. ``swap_index`` exchanges two positions as LIBSVM's does: rows that hold both positions
swap the two entries, rows that end between them are dropped (or, with ``keep_prefix``, cut
back to the lower position). Both exchanged rows become the most recently used, as in LIBSVM.

The budget counts entries, LIBSVM's ``size`` (cache bytes / sizeof(Qfloat)), at least two full
rows; unlike LIBSVM it does not subtract the row headers (8 entries per row on 64 bits, 0.04 %
of a 1 GB cache on Web-7). Rows are numba typed-list arrays: a row a solver still holds stays
valid memory after eviction (it is reference counted), it just no longer belongs to the cache.
"""

from collections import namedtuple

import numpy as np
from numba import njit
from numba.typed import List

RowCache = namedtuple(
    "RowCache",
    [
        "rows",  # rows[p] = cached prefix of the row at position p (length 0: not cached)
        "lru_prev",  # doubly linked LRU list over cached positions; index n is the sentinel,
        "lru_next",  # lru_next[n] the least and lru_prev[n] the most recently used
        "free",  # [entries of the budget not held by any row]
    ],
)


def cache_entries(n, cache_mb, itemsize=4):
    """Entries a ``cache_mb`` budget holds: at least two full rows of n (LIBSVM's minimum)."""
    return max(int(cache_mb * 2**20) // itemsize, 2 * n)


def make_row_cache(n, entries, dtype=np.float32):
    """An empty cache of ``entries`` entries over n positions."""
    return RowCache(
        rows=_empty_rows(n, np.empty(0, dtype=dtype)),
        lru_prev=np.full(n + 1, n, dtype=np.int64),
        lru_next=np.full(n + 1, n, dtype=np.int64),
        free=np.array([entries], dtype=np.int64),
    )


def make_full_cache(matrix):
    """A cache holding every row of ``matrix`` in full (its rows are views), LRU order 0..n-1."""
    n = matrix.shape[0]
    cache = make_row_cache(n, 0, matrix.dtype)
    _hold_rows(cache, matrix)
    return cache


@njit(cache=True)
def _empty_rows(n, empty):
    rows = List()
    for _ in range(n):
        rows.append(empty)
    return rows


@njit(cache=True)
def _hold_rows(cache, matrix):
    for p in range(matrix.shape[0]):
        cache.rows[p] = matrix[p]
        _link_last(cache, p)


@njit(cache=True)
def cached_length(cache, position):
    return cache.rows[position].shape[0]


@njit(cache=True)
def _unlink(cache, p):
    prev, nxt = cache.lru_prev[p], cache.lru_next[p]
    cache.lru_next[prev] = nxt
    cache.lru_prev[nxt] = prev


@njit(cache=True)
def _link_last(cache, p):
    """Make p the most recently used."""
    head = cache.lru_next.shape[0] - 1
    last = cache.lru_prev[head]
    cache.lru_prev[p] = last
    cache.lru_next[p] = head
    cache.lru_next[last] = p
    cache.lru_prev[head] = p


@njit(cache=True)
def _resize(cache, p, length):
    """Give position p a row of ``length`` entries keeping its prefix (realloc); 0 drops it."""
    row = cache.rows[p]
    keep = min(row.shape[0], length)
    resized = np.empty(length, dtype=row.dtype)
    resized[:keep] = row[:keep]
    cache.free[0] += row.shape[0] - length
    cache.rows[p] = resized


@njit(cache=True)
def drop(cache, p):
    """Forget the row of position p."""
    if cached_length(cache, p) > 0:
        _unlink(cache, p)
        _resize(cache, p, 0)


@njit(cache=True)
def get_data(cache, p, length):
    """LIBSVM Cache::get_data: (row of p holding at least ``length`` entries, entries already
    cached); p becomes the most recently used. Entries from the second value on are the caller's
    to fill."""
    cached = cached_length(cache, p)
    if cached > 0:
        _unlink(cache, p)
    if length > cached:
        head = cache.lru_next.shape[0] - 1
        while cache.free[0] < length - cached and cache.lru_next[head] != head:
            drop(cache, cache.lru_next[head])
        _resize(cache, p, length)
    _link_last(cache, p)
    return cache.rows[p], cached


@njit(cache=True)
def swap_index(cache, a, b, keep_prefix):
    """LIBSVM Cache::swap_index (see the module note for ``keep_prefix``)."""
    if a == b:
        return
    for p in (a, b):
        if cached_length(cache, p) > 0:
            _unlink(cache, p)
    cache.rows[a], cache.rows[b] = cache.rows[b], cache.rows[a]
    for p in (a, b):
        if cached_length(cache, p) > 0:
            _link_last(cache, p)
    low, high = min(a, b), max(a, b)
    head = cache.lru_next.shape[0] - 1
    p = cache.lru_next[head]
    while p != head:
        nxt = cache.lru_next[p]
        row = cache.rows[p]
        if row.shape[0] > high:
            row[low], row[high] = row[high], row[low]
        elif row.shape[0] > low:
            if keep_prefix and low > 0:
                _resize(cache, p, low)
            else:
                drop(cache, p)
        p = nxt
