"""svmbench.kernels.cycles: the cycle counter read in compiled code, converted to seconds, agrees
with time.perf_counter over an interval, and Rosen's fit reports the time its Q d spent adding
rows, timed that way, within the fit's own."""

import time

import numpy as np

from svmbench.kernels.cycles import cycle_count, cycles_per_second
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
