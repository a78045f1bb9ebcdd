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
request (smo_wss2 on a8a with a 200 MB cache: 64 s of CPU instead of 3.4 s). Before it compacts,
though, the cache lists the free stretches between the live rows (``gaps``, lowest first: the
rows the LRU order dropped, mostly whole rows of the same length as the new ones) and fills them
in turn, moving nothing; it compacts only when the gaps that hold the requested row add up to
less than GAP_MIN_SHARE of the pool (on ijcnn1 a compaction moved a gigabyte to reclaim a
quarter of one).

A run of swaps can be *deferred* (``defer_swap`` for ``swap_index``, as LIBSVM's shrinking pass
makes them, thousands in a row): positions and row headers are exchanged at once, the rows'
entries later. The next request (``apply_pending_swaps``) makes the run one *batch*: a row that
ends between the run's lowest and highest position replays the swaps then (it is cut where one
would cut it); a row longer than every swapped position takes the run's composed permutation,
logged, when it is next read (``_catch_up``: every batch it missed, in order, one gather each).
Same rows, same cuts, same counts as swapping at once, without touching every cached row for
every swap (on ijcnn1, 48,574 swaps over about 3,000 cached rows were a quarter of smo_wss2's
time), nor every cached row for every batch (most rows an SMO run caches are never read again).
"""

import mmap
import weakref
from collections import namedtuple

import numpy as np
from numba import njit

from svmbench.kernels.compile_cache import jit_callee
from svmbench.kernels.math import popcount

# the pool's room beyond the budget, as a fraction of it (see the module note)
POOL_SLACK = 0.25
# the pool of the last cache dropped, kept for the next one: its memory is mapped already. A new
# gigabyte costs its page faults, which were half of smo_wss2's time on a8a and ijcnn1 when every
# fit took fresh memory (2.2 s of system time in a 5 s fit); LIBSVM's rows, malloc'ed one by one,
# come back from the heap the same way. New memory comes in 4 KB pages (_fresh_memory).
_SPARE_POOL = []

# the least share of the pool that listed gaps must offer, else the pool is compacted (a listing
# costs a sort of the live rows: at most 1 / GAP_MIN_SHARE listings per pool allocated)
GAP_MIN_SHARE = 0.05

RowCache = namedtuple(
    "RowCache",
    [
        "pool",  # the rows' entries; row p is pool[offset[p]:offset[p] + length[p]]
        "offset",
        "length",  # 0: position p has no cached row
        "lru_prev",  # doubly linked LRU list over cached positions; index n is the sentinel,
        "lru_next",  # lru_next[n] the least and lru_prev[n] the most recently used
        "state",  # [free entries of the budget, pool top, last requested position, hole start,
        #           hole end, deferred swaps, batches, log entries, gaps listed, next gap]: the
        #           hole is free pool space rows are allocated in (below the last requested row
        #           after a compaction, else the listed gap in use)
        "pending",  # the deferred swaps (lower, higher position), in order
        "row_batches",  # the number of logged batches row p has taken (moves with the row)
        "batches",  # batch b: [its first log entry, its end, its highest swapped position]
        "log",  # (target, source): row[target] takes the old row[source]
        "moved",  # work space of n entries for a batch's gather
        "gaps",  # gap g: [start, end) of free pool space between live rows, g < state[GAPS]
        # the positions by the length of their rows (swap_index visits the rows that hold the
        # lower swapped position only): a doubly linked ring per length L with its head at
        # n + L (length 0: the positions without a row), and a bit per length that has rows
        "length_next",
        "length_prev",
        "lengths_held",
    ],
)
FREE, TOP, LAST, HOLE_START, HOLE_END, PENDING, BATCHES, LOGGED, GAPS, NEXT_GAP = range(10)
# batches logged before every cached row is brought up to date and the log starts again
MAX_BATCHES = 64


def cache_entries(n, cache_mb, itemsize=4):
    """Entries a ``cache_mb`` budget holds: at least two full rows of n (LIBSVM's minimum)."""
    return max(int(cache_mb * 2**20) // itemsize, 2 * n)


def make_row_cache(n, entries, dtype=np.float32):
    """An empty cache of ``entries`` entries over n positions (pool memory: at most
    1.25 n^2 + 2n)."""
    held = min(entries, n * n)
    return RowCache(
        pool=_pool(held + int(POOL_SLACK * held) + 2 * n, dtype),
        offset=np.zeros(n, dtype=np.int64),
        length=np.zeros(n, dtype=np.int64),
        lru_prev=np.full(n + 1, n, dtype=np.int64),
        lru_next=np.full(n + 1, n, dtype=np.int64),
        state=np.array([entries, 0, -1, 0, 0, 0, 0, 0, 0, 0], dtype=np.int64),
        **_swap_log(n, dtype),
        **_length_lists(n),
    )


def _swap_log(n, dtype):
    """The arrays for deferred swaps (the log holds 4 n entries, a batch at most n), and the gap
    list."""
    return {"gaps": np.zeros((n + 1, 2), dtype=np.int64),
            "pending": np.zeros((2 * n, 2), dtype=np.int64),
            "row_batches": np.zeros(n, dtype=np.int64),
            "batches": np.zeros((MAX_BATCHES, 3), dtype=np.int64),
            "log": np.zeros((4 * n, 2), dtype=np.int64), "moved": np.zeros(n, dtype=dtype)}


def _length_lists(n):
    """The rings of positions by row length with every position in the ring of length 0 (no
    row), in order, and no length held."""
    ring = np.arange(2 * n + 1, dtype=np.int64)  # the heads n, n + 1, ..., 2 n: empty rings
    following, preceding = ring.copy(), ring.copy()
    if n > 0:  # the ring n, 0, 1, ..., n - 1
        following[:n], following[n - 1], following[n] = ring[1:n + 1], n, 0
        preceding[1:n], preceding[0], preceding[n] = ring[:n - 1], n, n - 1
    held = np.zeros((n + 64) // 64, dtype=np.uint64)
    held[0] = 1 if n > 0 else 0
    return {"length_next": following, "length_prev": preceding, "lengths_held": held}


def _pool(size, dtype):
    """``size`` entries of the spare pool when it is large enough, else new memory; the memory
    becomes the spare pool when the returned array is dropped (the larger of the two is kept)."""
    spare = _SPARE_POOL.pop() if _SPARE_POOL else None
    if spare is not None and spare.dtype == dtype and spare.shape[0] >= size:
        base = spare
    else:
        base = _fresh_memory(size, dtype)
        if spare is not None:
            _SPARE_POOL.append(spare)
    pool = base[:size]
    weakref.finalize(pool, _keep_spare, base)
    return pool


def _fresh_memory(size, dtype):
    """An array of ``size`` entries of new anonymous memory in 4 KB pages, not transparent huge
    pages (numpy advises huge pages for large arrays): on this 2-core VM touching 1.3 GB took 1.8-3.1
    s of system time in 2 MB pages, 0.6 s in 4 KB pages (one process, in turn, load average 15);
    smo_wss2's first fit on ijcnn1 spent 3.1 s of its 7.6 s of CPU there."""
    memory = mmap.mmap(-1, max(size * np.dtype(dtype).itemsize, 1))
    if hasattr(mmap, "MADV_NOHUGEPAGE"):  # Linux; THP "always" would map huge pages unasked
        memory.madvise(mmap.MADV_NOHUGEPAGE)
    return np.frombuffer(memory, dtype=dtype, count=size)


def _keep_spare(base):
    if _SPARE_POOL and _SPARE_POOL[0].nbytes >= base.nbytes:
        return
    _SPARE_POOL[:] = [base]


def make_full_cache(matrix):
    """A cache holding every row of the square ``matrix`` in full, LRU order 0..n-1."""
    n = matrix.shape[0]
    cache = RowCache(
        pool=np.ascontiguousarray(matrix).reshape(-1),
        offset=np.empty(n, dtype=np.int64),
        length=np.zeros(n, dtype=np.int64),  # no row yet: every position in the ring of 0
        lru_prev=np.empty(n + 1, dtype=np.int64),
        lru_next=np.empty(n + 1, dtype=np.int64),
        state=np.empty(10, dtype=np.int64),
        **_swap_log(n, matrix.dtype),
        **_length_lists(n),
    )
    reset_full_cache(cache)
    return cache


@njit(cache=True)
def reset_full_cache(cache):
    """A full cache's bookkeeping as make_full_cache sets it (row p at offset p n, whole, LRU order
    0..n-1, nothing swapped), its pool untouched."""
    n = cache.offset.shape[0]
    for p in range(n + 1):  # the ring n, 0, 1, ..., n - 1
        cache.lru_prev[p], cache.lru_next[p] = p - 1, p + 1
    cache.lru_prev[0], cache.lru_next[n] = n, 0
    for p in range(n):
        _delist(cache, p)
        cache.offset[p], cache.length[p], cache.row_batches[p] = p * n, n, 0
        _enlist(cache, p)
    cache.state[:] = 0
    cache.state[TOP], cache.state[LAST] = n * n, -1


@njit(cache=True, inline="always")
def _bring_up_to_date(cache, p):
    """Let the row of p take the logged batches it missed (inlined: no call when it has them)."""
    if cache.row_batches[p] != cache.state[BATCHES]:
        _catch_up(cache, p, cache.state[BATCHES])


@njit(cache=True, inline="always")
def cached_row(cache, p):
    """The cached prefix of position p's row (empty when none), up to date."""
    _bring_up_to_date(cache, p)
    start = cache.offset[p]
    return cache.pool[start:start + cache.length[p]]


@njit(cache=True, inline="always")
def _unlink(cache, p):
    prev, nxt = cache.lru_prev[p], cache.lru_next[p]
    cache.lru_next[prev] = nxt
    cache.lru_prev[nxt] = prev


@njit(cache=True, inline="always")
def _link_last(cache, p):
    """Make p the most recently used."""
    head = cache.lru_next.shape[0] - 1
    last = cache.lru_prev[head]
    cache.lru_prev[p] = last
    cache.lru_next[p] = head
    cache.lru_next[last] = p
    cache.lru_prev[head] = p


@njit(cache=True, inline="always")
def _delist(cache, p):
    """Take p out of the ring of its row's length (no branch: see lookup)."""
    following, preceding = cache.length_next[p], cache.length_prev[p]
    cache.length_next[preceding] = following
    cache.length_prev[following] = preceding
    head = cache.offset.shape[0] + cache.length[p]
    emptied = np.uint64(cache.length_next[head] == head)
    cache.lengths_held[cache.length[p] >> 6] &= ~(emptied << np.uint64(cache.length[p] & 63))


@njit(cache=True, inline="always")
def _enlist(cache, p):
    """Put p first in the ring of its row's length (no branch: see lookup)."""
    head = cache.offset.shape[0] + cache.length[p]
    first = cache.length_next[head]
    cache.length_next[p], cache.length_prev[p] = first, head
    cache.length_prev[first] = p
    cache.length_next[head] = p
    cache.lengths_held[cache.length[p] >> 6] |= np.uint64(1) << np.uint64(cache.length[p] & 63)


@jit_callee
def _cut(cache, p, length):
    """Shorten the row of p to ``length`` entries (0 drops it); its budget comes back."""
    if cache.length[p] > 0 and length == 0:
        _unlink(cache, p)
    cache.state[FREE] += cache.length[p] - length
    _delist(cache, p)
    cache.length[p] = length
    _enlist(cache, p)


@njit(cache=True, inline="always")
def _move(pool, source, target, size):
    """pool[target:target + size] = pool[source:source + size] for target <= source or
    disjoint stretches, written as a loop: numba's slice assignment compiles a shape check whose
    error message (string formatting) cost ~5 s CPU of a cold fit's compile."""
    for k in range(size):
        pool[target + k] = pool[source + k]


@jit_callee
def _compact(cache):
    """Slide the rows down over the garbage, all but the last requested one, which stays put;
    the free space below it becomes the hole."""
    live = np.flatnonzero(cache.length > 0)
    pinned = cache.state[LAST]
    top = 0
    cache.state[HOLE_START], cache.state[HOLE_END] = 0, 0
    cache.state[GAPS], cache.state[NEXT_GAP] = 0, 0
    for p in live[np.argsort(cache.offset[live])]:
        start, size = cache.offset[p], cache.length[p]
        if p == pinned:
            cache.state[HOLE_START], cache.state[HOLE_END] = top, start
            top = start + size
            continue
        if start != top:
            _move(cache.pool, start, top, size)
            cache.offset[p] = top
        top += size
    cache.state[TOP] = top


@jit_callee
def _list_gaps(cache, size):
    """List the free stretches of at least ``size`` entries between the live rows, lowest first,
    as the gaps to allocate in (the hole's rest among them), and bring the top down to the end of
    the highest live row; the free entries they offer, the top's room included."""
    live = np.flatnonzero(cache.length > 0)
    end, count, offered = 0, 0, 0
    for p in live[np.argsort(cache.offset[live])]:
        start = cache.offset[p]
        if start - end >= size:
            cache.gaps[count, 0], cache.gaps[count, 1] = end, start
            count += 1
            offered += start - end
        end = start + cache.length[p]
    cache.state[TOP] = end
    cache.state[HOLE_START], cache.state[HOLE_END] = 0, 0
    cache.state[GAPS], cache.state[NEXT_GAP] = count, 0
    return offered + cache.pool.shape[0] - end


@jit_callee
def _take(cache, size):
    """Offset of ``size`` free entries at the top, else in the hole, else in the next listed gap
    that holds them (it becomes the hole); -1 when none does."""
    if cache.state[TOP] + size <= cache.pool.shape[0]:
        cache.state[TOP] += size
        return cache.state[TOP] - size
    while cache.state[HOLE_END] - cache.state[HOLE_START] < size:
        if cache.state[NEXT_GAP] == cache.state[GAPS]:
            return -1
        gap = cache.state[NEXT_GAP]
        cache.state[HOLE_START], cache.state[HOLE_END] = cache.gaps[gap, 0], cache.gaps[gap, 1]
        cache.state[NEXT_GAP] = gap + 1
    cache.state[HOLE_START] += size
    return cache.state[HOLE_START] - size


@jit_callee
def _allocate(cache, size):
    """Offset of ``size`` free contiguous pool entries: at the top, in the hole or the listed
    gaps; else in gaps listed anew when they offer GAP_MIN_SHARE of the pool; else after a
    compaction (the two spare rows guarantee that one of the top and the hole fits)."""
    start = _take(cache, size)
    if start < 0 and _list_gaps(cache, size) >= GAP_MIN_SHARE * cache.pool.shape[0]:
        start = _take(cache, size)
    if start < 0:
        _compact(cache)
        start = _take(cache, size)
    if start < 0:
        raise MemoryError("kernel cache pool exhausted")
    return start


@njit(cache=True, inline="always")
def holds(cache, p, length):
    """Whether get_data(cache, p, length) would be a hit that needs no work: no swap is pending,
    the row of p is up to date and holds ``length`` entries (at least one)."""
    return ((cache.state[PENDING] == 0) & (cache.row_batches[p] == cache.state[BATCHES])
            & (cache.length[p] >= max(length, 1)))


@njit(cache=True, inline="always")
def lookup(cache, p, hit):
    """get_data's answer when ``hit`` (holds(cache, p, length)): the row of p, then the most
    recently used; else an empty row. Inlined into a solver's loop it costs no reference counts
    because it makes no call and takes no branch that holds array references (see the note in
    svmbench.solvers.smo): on a miss it moves the most recently used row to the end of the LRU
    list, where it is already, which changes nothing. On an empty answer the loop asks get_data."""
    head = cache.lru_prev.shape[0] - 1
    tail, last, cached = cache.lru_prev[head], cache.state[LAST], cache.length[p]
    moved = p if hit else tail
    _unlink(cache, moved)
    _link_last(cache, moved)
    cache.state[LAST] = p if hit else last
    start = cache.offset[p]
    return cache.pool[start:start + (cached if hit else 0)]


@jit_callee
def touch_held(cache, positions, start, stop, length, offsets, at):
    """lookup of the rows of positions[start], positions[start + 1], ... in turn while the cache
    holds each whole (holds(cache, p, length)): each becomes the most recently used, as lookup
    makes it, and its offset in the pool goes to offsets[at], offsets[at + 1], ...; returns the
    first index not held (``stop`` when all are). The same LRU list and LAST as those lookups,
    with the list's last entry and the cache's state kept in locals between rows (each lookup
    reads and writes them: a chain of dependent loads and stores through memory)."""
    head = cache.lru_prev.shape[0] - 1
    last, batches = cache.lru_prev[head], cache.state[BATCHES]
    lru_prev = cache.lru_prev  # each bound by its own statement (docs/DESIGN.md)
    lru_next = cache.lru_next
    row_batches = cache.row_batches
    cached = cache.length
    wanted = max(length, 1)
    t = start
    if cache.state[PENDING] == 0:
        while t < stop:
            p = positions[t]
            if (row_batches[p] != batches) | (cached[p] < wanted):
                break
            before, after = lru_prev[p], lru_next[p]
            lru_next[before] = after
            lru_prev[after] = before
            last = before if p == last else last
            lru_prev[p] = last
            lru_next[p] = head
            lru_next[last] = p
            last = p
            offsets[at + t - start] = cache.offset[p]
            t += 1
    lru_prev[head] = last
    if t > start:
        cache.state[LAST] = last
    return t


@njit(cache=True, inline="always")
def get_data(cache, p, length):
    """LIBSVM Cache::get_data: (row of p holding at least ``length`` entries, entries already
    cached); p becomes the most recently used. Entries from the second value on are the caller's
    to fill."""
    apply_pending_swaps(cache)
    _bring_up_to_date(cache, p)
    cached = cache.length[p]
    if cached > 0:
        _unlink(cache, p)
    if length > cached:
        head = cache.lru_next.shape[0] - 1
        while cache.state[FREE] < length - cached and cache.lru_next[head] != head:
            _cut(cache, cache.lru_next[head], 0)
        start = _allocate(cache, length)
        old = cache.offset[p]  # read after the allocation: a compaction may have moved it
        _move(cache.pool, old, start, cached)
        cache.offset[p] = start
        _delist(cache, p)
        cache.length[p] = length
        _enlist(cache, p)
        cache.state[FREE] -= length - cached
    _link_last(cache, p)
    cache.state[LAST] = p
    return cached_row(cache, p), cached


@njit(cache=True, inline="always")
def _exchange_headers(cache, a, b):
    """Exchange the rows of positions a != b (their headers; the entries are the caller's); both
    cached rows become the most recently used, as in LIBSVM."""
    for p in (a, b):
        if cache.length[p] > 0:
            _unlink(cache, p)
        _delist(cache, p)
    for header in (cache.offset, cache.length, cache.row_batches):
        header[a], header[b] = header[b], header[a]
    for p in (a, b):
        if cache.length[p] > 0:
            _link_last(cache, p)
        _enlist(cache, p)
    if cache.state[LAST] == a or cache.state[LAST] == b:
        cache.state[LAST] = a + b - cache.state[LAST]


@njit(cache=True)
def swap_index(cache, a, b, keep_prefix):
    """LIBSVM Cache::swap_index (see the module note for ``keep_prefix``). LIBSVM walks every
    cached row; a row that ends at or before the lower position holds neither entry and keeps
    its length, so only the rows longer are visited, by the rings of their lengths (on a4a,
    Keerthi's Modification 2 moved 15,701 samples between its blocks with 2,300 rows cached on
    average, 90 of them longer). The order the rows are visited in changes nothing: each row's
    swap or cut is its own, the budget a sum and the LRU list loses its dropped rows in any
    order."""
    if a == b:
        return
    apply_pending_swaps(cache)
    if cache.state[BATCHES] > 0:
        _catch_up_all(cache)
    _exchange_headers(cache, a, b)
    low, high = min(a, b), max(a, b)
    n, held = cache.offset.shape[0], cache.lengths_held
    for word in range((low + 1) >> 6, held.shape[0]):
        lengths = held[word]
        if word == (low + 1) >> 6:  # the lengths up to low hold neither position
            lengths &= ~((np.uint64(1) << np.uint64((low + 1) & 63)) - np.uint64(1))
        while lengths != 0:
            lowest = lengths & (~lengths + np.uint64(1))
            head = n + 64 * word + np.int64(popcount(lowest - np.uint64(1)))
            lengths ^= lowest
            p = cache.length_next[head]
            while p != head:
                following = cache.length_next[p]  # read first: a cut row leaves the ring
                _replay(cache, p, cache.pending[:0], low, high, keep_prefix)
                p = following


@njit(cache=True, inline="always")
def defer_swap(cache, a, b):
    """swap_index(cache, a, b, False) with the rows' entries left to the next request (see the
    module note). Inlined into a shrinking pass, it makes a call only when the deferred swaps
    fill their array (2n, more than one pass makes), for the reference counts (see the note in
    svmbench.solvers.smo)."""
    if a == b:
        return
    if cache.state[PENDING] == cache.pending.shape[0]:
        _apply_pending(cache)
    _exchange_headers(cache, a, b)
    count = cache.state[PENDING]
    cache.pending[count, 0], cache.pending[count, 1] = min(a, b), max(a, b)
    cache.state[PENDING] = count + 1


@jit_callee
def _replay(cache, p, swaps, low, high, keep_prefix):
    """Swaps ``swaps`` then (low, high) on the row of p, in order: a swap exchanges two entries
    of a row that holds both and cuts a row that ends between them (to the lower position with
    ``keep_prefix``, else away)."""
    pool, start = cache.pool, cache.offset[p]
    for k in range(swaps.shape[0] + 1):
        lower, higher = (swaps[k, 0], swaps[k, 1]) if k < swaps.shape[0] else (low, high)
        length = cache.length[p]
        if length > higher:
            pool[start + lower], pool[start + higher] = pool[start + higher], pool[start + lower]
        elif length > lower:
            _cut(cache, p, lower if keep_prefix else 0)
            if cache.length[p] == 0:
                return


@njit(cache=True, inline="always")
def apply_pending_swaps(cache):
    """The deferred swaps' work on the rows' entries (see the module note). Inlined, so that the
    common case (nothing pending) makes no call (see the note on reference counts in
    svmbench.solvers.smo)."""
    if cache.state[PENDING] > 0:
        _apply_pending(cache)


@jit_callee
def _apply_pending(cache):
    """The pending swaps as a batch (see the module note)."""
    count = cache.state[PENDING]
    swaps = cache.pending[:count]
    first, last = swaps[0, 0], swaps[0, 1]  # loops, here and below: numpy's reductions and
    for k in range(1, count):  # slice assignment cost ~6 s CPU of a cold fit's compile
        first, last = min(first, swaps[k, 0]), max(last, swaps[k, 1])
    source = np.arange(first, last + 1)  # row[q] takes old row[source[q - first]]
    for k in range(count):
        lower, higher = swaps[k, 0] - first, swaps[k, 1] - first
        source[lower], source[higher] = source[higher], source[lower]
    targets = np.flatnonzero(source != np.arange(first, last + 1))  # the positions that change
    if (cache.state[BATCHES] == cache.batches.shape[0]
            or cache.state[LOGGED] + targets.shape[0] > cache.log.shape[0]):
        _catch_up_all(cache)
    batch, start = cache.state[BATCHES], cache.state[LOGGED]
    stop = start + targets.shape[0]
    for k in range(targets.shape[0]):
        cache.log[start + k, 0], cache.log[start + k, 1] = targets[k] + first, source[targets[k]]
    cache.batches[batch, 0], cache.batches[batch, 1], cache.batches[batch, 2] = start, stop, last
    cache.state[BATCHES], cache.state[LOGGED] = batch + 1, stop
    head = cache.lru_next.shape[0] - 1
    p = cache.lru_next[head]
    while p != head:
        following = cache.lru_next[p]  # read first: a cut row leaves the list
        if first < cache.length[p] <= last:  # ends between the swapped positions: replayed now
            _catch_up(cache, p, batch)
            _replay(cache, p, swaps[:-1], swaps[-1, 0], swaps[-1, 1], False)
            cache.row_batches[p] = batch + 1
        p = following
    cache.state[PENDING] = 0


@jit_callee
def _catch_up(cache, p, batches):
    """Bring the row of p up to ``batches`` logged batches: each it missed permutes it when it
    is longer than the batch's highest position; a shorter one ends before the batch's lowest
    (rows ending between them were replayed when the batch was made), so the batch leaves it."""
    length, log, moved = cache.length[p], cache.log, cache.moved
    row = cache.pool[cache.offset[p]:cache.offset[p] + length]
    for batch in range(cache.row_batches[p], batches):
        start, stop, last = cache.batches[batch, 0], cache.batches[batch, 1], cache.batches[batch, 2]
        if length > last:
            for k in range(start, stop):
                moved[k - start] = row[log[k, 1]]
            for k in range(start, stop):
                row[log[k, 0]] = moved[k - start]
    cache.row_batches[p] = batches


@jit_callee
def _catch_up_all(cache):
    """Every cached row up to date; the log starts again."""
    head = cache.lru_next.shape[0] - 1
    p = cache.lru_next[head]
    while p != head:
        _catch_up(cache, p, cache.state[BATCHES])
        p = cache.lru_next[p]
    cache.row_batches[:] = 0
    cache.state[BATCHES], cache.state[LOGGED] = 0, 0
