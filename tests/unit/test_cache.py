"""LIBSVM's Cache: variable-length rows under one budget, LRU eviction, compaction that never
moves the row a solver holds."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmbench.kernels.cache import get_data, make_row_cache, swap_index
from svmbench.kernels.provider import counts, kernel_row, make_provider


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 11), st.integers(0, 11),
                          st.integers(1, 12)), min_size=1, max_size=60),
       st.integers(24, 80))
def test_rows_budget_and_held_rows_survive_any_sequence(operations, entries):
    """Each row holds what was written for its sample, the budget is never exceeded, and after a
    request the previously requested row still holds its values (a solver holds both)."""
    n = 12
    cache = make_row_cache(n, entries)
    sample = np.arange(n)  # sample[p] = sample whose row position p holds
    previous = None
    for is_swap, a, b, length in operations:
        if is_swap:
            swap_index(cache, a, b, False)
            sample[[a, b]] = sample[[b, a]]
            previous = None
            continue
        row, cached = get_data(cache, a, length)
        truth = (sample[a] + sample / 1000.0)[:row.shape[0]].astype(np.float32)
        np.testing.assert_array_equal(row[:cached], truth[:cached])
        row[cached:length] = truth[cached:length]
        if previous is not None:
            held, held_truth = previous
            np.testing.assert_array_equal(held, held_truth)
        previous = (row, truth)
        assert cache.length.sum() <= entries


def test_shortened_rows_let_the_same_budget_hold_more_rows():
    """Two full rows of budget hold four half rows: a shrunk problem computes each only once."""
    n = 200
    X = np.random.default_rng(0).normal(size=(n, 3))
    provider = make_provider(X, "rbf", gamma=0.3, cache_mb=2 * n * 4 / 2**20)
    for _ in range(3):
        for i in range(4):
            kernel_row(provider, i, n // 2)
    assert counts(provider) == (12 * n // 2, 4 * n // 2)


def test_the_held_row_survives_compactions_under_pressure():
    """Thousands of requests of random lengths in a budget of two full rows: each request may
    evict and compact, and the row requested just before must still hold its values."""
    n = 30
    rng = np.random.default_rng(1)
    cache = make_row_cache(n, 2 * n)
    held = None
    for _ in range(3000):
        p, length = int(rng.integers(0, n)), int(rng.integers(1, n + 1))
        row, cached = get_data(cache, p, length)
        truth = (p + np.arange(row.shape[0]) / 1000.0).astype(np.float32)
        np.testing.assert_array_equal(row[:cached], truth[:cached])
        row[cached:length] = truth[cached:length]
        if held is not None:
            np.testing.assert_array_equal(*held)
        held = (row, truth)



def test_rows_of_one_length_take_the_stretches_dropped_rows_left_and_none_moves():
    """A full cache cycling rows of one length (LRU drops one row per request): each new row
    takes a stretch a dropped row left (the listed gaps), so no live row ever moves, where a
    compaction would slide them all down; the budget still holds ten rows."""
    n = 50
    cache = make_row_cache(n, 10 * n)
    before = {}
    for p in list(range(n)) * 3:
        row, _ = get_data(cache, p, n)
        row[:] = p
        live = np.flatnonzero(cache.length > 0)
        assert all(cache.offset[q] == before[q] for q in live if q in before)
        assert all(np.all(cache.pool[cache.offset[q]:cache.offset[q] + n] == q) for q in live)
        before = {q: cache.offset[q] for q in live}
    assert len(before) == 10

@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 19), st.integers(1, 20)), min_size=1, max_size=80),
       st.sampled_from([0.0, 1e-9, 10.0]))
def test_counts_k1_at_most_k2_and_distinct_prefixes_with_a_big_cache(requests, cache_mb):
    """K1 <= K2 always; no cache: K1 = K2; a cache big enough for every row: K1 = the longest
    prefix requested of each distinct row, summed."""
    X = np.random.default_rng(2).normal(size=(20, 3))
    provider = make_provider(X, "rbf", gamma=0.3, cache_mb=cache_mb)
    longest = {}
    for p, length in requests:
        kernel_row(provider, p, length)
        longest[p] = max(longest.get(p, 0), length)
    requested, computed = counts(provider)
    assert requested == sum(length for _, length in requests)
    assert computed <= requested
    if cache_mb == 0.0:
        assert computed == requested
    if cache_mb == 10.0:
        assert computed == sum(longest.values())


def test_a_dropped_cache_lends_its_pool_to_the_next_and_live_caches_never_share():
    import gc

    from svmbench.kernels import cache as cache_module

    gc.collect()  # caches earlier tests left in reference cycles would be dropped below
    cache_module._SPARE_POOL.clear()
    first = make_row_cache(100, 5000)
    address = first.pool.__array_interface__["data"][0]
    second = make_row_cache(100, 5000)  # the first is alive: fresh memory
    assert not np.shares_memory(first.pool, second.pool)
    del first
    gc.collect()
    third = make_row_cache(100, 4000)  # smaller: fits in the dropped one
    assert third.pool.__array_interface__["data"][0] == address
    fourth = make_row_cache(100, 4000)  # the spare is lent: fresh memory again
    for one, other in ((second, third), (third, fourth), (second, fourth)):
        assert not np.shares_memory(one.pool, other.pool)


def test_a_row_held_after_its_provider_is_dropped_keeps_its_values():
    import gc

    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 4))
    row = kernel_row(make_provider(X, "rbf", gamma=0.5, cache_mb=1), 7, 50)
    expected = row.copy()
    gc.collect()
    other = make_provider(rng.normal(size=(50, 4)), "rbf", gamma=0.5, cache_mb=1)
    for p in range(50):
        kernel_row(other, p, 50)  # fills whatever pool the new provider got
    np.testing.assert_array_equal(row, expected)


def thp_enabled():
    path = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    return path.exists() and "[never]" not in path.read_text()


def huge_kb_of(array):
    """AnonHugePages (kB) of the mappings of this process that overlap ``array``'s memory (an
    madvise splits a mapping in two)."""
    first = array.__array_interface__["data"][0]
    last = first + array.nbytes
    inside, total = False, 0
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()[0]
        if "-" in head and ":" not in head:
            start, end = (int(bound, 16) for bound in head.split("-"))
            inside = start < last and first < end
        elif inside and head == "AnonHugePages:":
            total += int(line.split()[1])
    return total


@pytest.mark.skipif(not thp_enabled(), reason="transparent huge pages are off here")
def test_a_new_pool_is_mapped_in_small_pages():
    """A fresh pool, touched all over, holds no transparent huge page (faulting them in cost 3-5x
    the system time of 4 KB pages on the benchmark machine)."""
    from svmbench.kernels import cache as cache_module

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cache_module, "_SPARE_POOL", [])
        cache = make_row_cache(4000, 16 * 2**20)  # a 64 MB budget: 80 MB of pool
        cache.pool[:] = 1.0
        assert huge_kb_of(cache.pool) == 0
