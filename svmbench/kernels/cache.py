"""LIBSVM's ``Cache`` (svm.cpp): rows of variable length under one budget of entries, LRU order.

Row p caches the prefix [0, len_p) of the matrix row at position p; a request for a longer prefix
grows it (the new tail is the caller's to fill), evicting least recently used rows until the
budget has room, so a problem shrunk to an active prefix holds as many more rows as its rows are
shorter. ``swap_index`` exchanges two positions as LIBSVM's does: rows that hold both positions
swap the two entries, rows that end between them are dropped (or, with ``keep_prefix``, cut
back to the lower position). Both exchanged rows become the most recently used, as in LIBSVM.

The budget counts entries, LIBSVM's ``size`` (cache bytes / sizeof(Qfloat)), at least two full
rows; unlike LIBSVM it does not subtract the row headers (8 entries per row on 64 bits, 0.04 %
of a 1 GB cache on Web-7).

Storage: one pool array; a growing row gets a fresh stretch at the pool's top (LIBSVM reallocs),
dropped rows leave garbage that a compaction reclaims by sliding the live rows down. The row
returned by the previous request stays where it is (a solver may hold it while it asks for a
second row); the pool has two spare rows so that a new row always fits above it or below it.
The pool is a quarter larger than the budget (POOL_SLACK), so that a compaction, which moves up
to a budget of entries, comes only after a quarter of a budget was allocated: amortized, at most
four entries moved per entry cached. Without it a full cache compacted every second or third
request (smo_wss2 on a8a with a 200 MB cache: 64 s of CPU instead of 4 s).
"""

# the pool's room beyond the budget, as a fraction of it (see the module note)
POOL_SLACK = 0.25

from collections import namedtuple

import numpy as np
from numba import njit

RowCache = namedtuple(
    "RowCache",
    [
        "pool",  # the rows' entries; row p is pool[offset[p]:offset[p] + length[p]]
        "offset",
        "length",  # 0: position p has no cached row
        "lru_prev",  # doubly linked LRU list over cached positions; index n is the sentinel,
        "lru_next",  # lru_next[n] the least and lru_prev[n] the most recently used
        "state",  # [free entries of the budget, pool top, last requested position, hole start,
        #           hole end]: the hole is free pool space below the last requested row
    ],
)
FREE, TOP, LAST, HOLE_START, HOLE_END = 0, 1, 2, 3, 4


def cache_entries(n, cache_mb, itemsize=4):
    """Entries a ``cache_mb`` budget holds: at least two full rows of n (LIBSVM's minimum)."""
    return max(int(cache_mb * 2**20) // itemsize, 2 * n)


def make_row_cache(n, entries, dtype=np.float32):
    """An empty cache of ``entries`` entries over n positions (pool memory: at most
    1.25 n^2 + 2n)."""
    held = min(entries, n * n)
    return RowCache(
        pool=np.empty(held + int(POOL_SLACK * held) + 2 * n, dtype=dtype),
        offset=np.zeros(n, dtype=np.int64),
        length=np.zeros(n, dtype=np.int64),
        lru_prev=np.full(n + 1, n, dtype=np.int64),
        lru_next=np.full(n + 1, n, dtype=np.int64),
        state=np.array([entries, 0, -1, 0, 0], dtype=np.int64),
    )


def make_full_cache(matrix):
    """A cache holding every row of the square ``matrix`` in full, LRU order 0..n-1."""
    n = matrix.shape[0]
    order = np.arange(n + 1, dtype=np.int64)
    return RowCache(
        pool=np.ascontiguousarray(matrix).reshape(-1),
        offset=order[:n] * n,
        length=np.full(n, n, dtype=np.int64),
        lru_prev=np.roll(order, 1),
        lru_next=np.roll(order, -1),
        state=np.array([0, n * n, -1, 0, 0], dtype=np.int64),
    )


@njit(cache=True)
def cached_row(cache, p):
    """The cached prefix of position p's row (empty when none)."""
    start = cache.offset[p]
    return cache.pool[start:start + cache.length[p]]


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
def _cut(cache, p, length):
    """Shorten the row of p to ``length`` entries (0 drops it); its budget comes back."""
    if cache.length[p] > 0 and length == 0:
        _unlink(cache, p)
    cache.state[FREE] += cache.length[p] - length
    cache.length[p] = length


@njit(cache=True)
def _compact(cache):
    """Slide the rows down over the garbage, all but the last requested one, which stays put;
    the free space below it becomes the hole."""
    live = np.flatnonzero(cache.length > 0)
    pinned = cache.state[LAST]
    top = 0
    cache.state[HOLE_START], cache.state[HOLE_END] = 0, 0
    for p in live[np.argsort(cache.offset[live])]:
        start, size = cache.offset[p], cache.length[p]
        if p == pinned:
            cache.state[HOLE_START], cache.state[HOLE_END] = top, start
            top = start + size
            continue
        if start != top:
            cache.pool[top:top + size] = cache.pool[start:start + size]
            cache.offset[p] = top
        top += size
    cache.state[TOP] = top


@njit(cache=True)
def _allocate(cache, size):
    """Offset of ``size`` free contiguous pool entries: at the top, else in the hole after a
    compaction (the two spare rows guarantee one of them fits)."""
    for compacted in (False, True):
        if compacted:
            _compact(cache)
        if cache.state[TOP] + size <= cache.pool.shape[0]:
            cache.state[TOP] += size
            return cache.state[TOP] - size
        if cache.state[HOLE_END] - cache.state[HOLE_START] >= size:
            cache.state[HOLE_START] += size
            return cache.state[HOLE_START] - size
    raise MemoryError("kernel cache pool exhausted")


@njit(cache=True)
def get_data(cache, p, length):
    """LIBSVM Cache::get_data: (row of p holding at least ``length`` entries, entries already
    cached); p becomes the most recently used. Entries from the second value on are the caller's
    to fill."""
    cached = cache.length[p]
    if cached > 0:
        _unlink(cache, p)
    if length > cached:
        head = cache.lru_next.shape[0] - 1
        while cache.state[FREE] < length - cached and cache.lru_next[head] != head:
            _cut(cache, cache.lru_next[head], 0)
        start = _allocate(cache, length)
        old = cache.offset[p]  # read after the allocation: a compaction may have moved it
        cache.pool[start:start + cached] = cache.pool[old:old + cached]
        cache.offset[p] = start
        cache.length[p] = length
        cache.state[FREE] -= length - cached
    _link_last(cache, p)
    cache.state[LAST] = p
    return cached_row(cache, p), cached


@njit(cache=True)
def swap_index(cache, a, b, keep_prefix):
    """LIBSVM Cache::swap_index (see the module note for ``keep_prefix``)."""
    if a == b:
        return
    for p in (a, b):
        if cache.length[p] > 0:
            _unlink(cache, p)
    cache.offset[a], cache.offset[b] = cache.offset[b], cache.offset[a]
    cache.length[a], cache.length[b] = cache.length[b], cache.length[a]
    for p in (a, b):
        if cache.length[p] > 0:
            _link_last(cache, p)
    if cache.state[LAST] == a or cache.state[LAST] == b:
        cache.state[LAST] = a + b - cache.state[LAST]
    low, high = min(a, b), max(a, b)
    pool = cache.pool
    for p in range(cache.length.shape[0]):  # in position order: sequential reads
        length = cache.length[p]
        if length > high:
            start = cache.offset[p]
            pool[start + low], pool[start + high] = pool[start + high], pool[start + low]
        elif length > low:
            _cut(cache, p, low if keep_prefix else 0)
