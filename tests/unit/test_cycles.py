"""svmbench.kernels.cycles: the cycle counter read in compiled code, converted to seconds, agrees
with time.perf_counter over an interval; Rosen's fit reports the time its Q d spent adding rows,
and every fit the time its provider spent computing entries, timed that way, within the fit's
own."""

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics.pairwise import rbf_kernel

from svmbench.kernels.cycles import cycle_count, cycles_per_second
from svmbench.kernels.provider import (
    computing_cycles,
    counts,
    kernel_entry,
    kernel_row,
    kernel_row_once,
    make_precomputed_provider,
    make_provider,
)
from svmbench.kernels.qmatrix import make_qmatrix
from svmbench.solvers import get_solver


def test_the_counter_counts_perf_counters_seconds():
    """Over 0.2 s of sleep the counter's seconds are perf_counter's within 10 % (it ticks at a
    constant rate, asleep or not)."""
    rate = cycles_per_second()
    assert rate > 1e8
    cycle_count()  # compiled or loaded before the interval
    start, ticks = time.perf_counter(), cycle_count()
    time.sleep(0.2)
    ticks, seconds = cycle_count() - ticks, time.perf_counter() - start
    assert abs(ticks / rate - seconds) <= 0.1 * seconds


def test_rosens_row_adding_time_is_within_its_fit():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 4))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=400) > 0, 1.0, -1.0)
    q = make_qmatrix(X, y, "csvc", kernel="rbf", gamma=1.0, cache_mb=1.0)
    start = time.perf_counter()
    result = get_solver("rosen")(q, y, {"C": 5.0, "tol": 1e-3, "max_iter": 10**6})
    wall = time.perf_counter() - start
    adding = result.trace["row_adding_cycles"] / cycles_per_second()
    assert result.iterations > 100
    assert 0.0 < adding <= wall


REQUESTS = st.lists(st.tuples(st.sampled_from(["row", "row_once", "entry"]),
                              st.integers(0, 29), st.integers(1, 30)), min_size=1, max_size=25)


@settings(max_examples=40, deadline=None)
@given(requests=REQUESTS, cache_rows=st.integers(0, 4))
def test_the_provider_times_exactly_the_requests_that_compute_entries(requests, cache_rows):
    """computing_cycles grows on a request that computes entries (K1 grows) and on no other:
    rows, rows bypassing the cache and single entries, the cache off or holding a few rows."""
    X = np.random.default_rng(len(requests)).normal(size=(30, 3))
    provider = make_provider(X, "rbf", gamma=0.5, cache_mb=cache_rows * 30 * 4 / 2**20)
    out = np.empty(30)
    for kind, position, other in requests:
        before, cycles = counts(provider)[1], computing_cycles(provider)
        if kind == "row":
            kernel_row(provider, position, other)
        elif kind == "row_once":
            kernel_row_once(provider, position, other, out)
        else:
            kernel_entry(provider, position, other - 1)
        computed = counts(provider)[1] > before
        assert (computing_cycles(provider) > cycles) == computed


def test_a_precomputed_matrix_costs_no_computing_time():
    block = rbf_kernel(np.random.default_rng(0).normal(size=(20, 3)))
    provider = make_precomputed_provider(block)
    kernel_row(provider, 3, 20)
    assert counts(provider) == (20, 0) and computing_cycles(provider) == 0


@pytest.mark.parametrize("solver", ["smo_wss2", "smo_mod2", "smo_mod1", "smo_platt", "rosen",
                                    "gs_svm"])
def test_a_fits_row_computing_time_is_within_its_fit(solver):
    """The result's row_computing_cycles (the provider's computing_cycles), in seconds, is
    positive and within the fit's wall time, for the solvers whose bookkeeping the bench reads."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 4))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=300) > 0, 1.0, -1.0)
    q = make_qmatrix(X, y, "csvc", kernel="rbf", gamma=1.0, cache_mb=0.1)
    get_solver(solver)(q, y, {"C": 5.0, "tol": 1e-3, "max_iter": 10**6})  # compiled, untimed
    q = make_qmatrix(X, y, "csvc", kernel="rbf", gamma=1.0, cache_mb=0.1)
    start = time.perf_counter()
    result = get_solver(solver)(q, y, {"C": 5.0, "tol": 1e-3, "max_iter": 10**6})
    wall = time.perf_counter() - start
    assert result.kernel_computed > 0
    assert 0.0 < result.trace["row_computing_cycles"] / cycles_per_second() <= wall
