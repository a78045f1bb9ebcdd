"""WSS 2's passes in parallel blocks (svmbench.solvers.wss2_parallel) against the serial passes
of svmbench.solvers.smo: the same pair and the same gradient, bit for bit (also when the step's
update of G and the next selection's first pass share one region), and a whole fit on 2 threads
equal to the fit on 1 and to the counts of the code before that fusion."""

import hashlib
import os

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svmbench.algorithms import build_estimator
from svmbench.data import DataError, load_dataset
from svmbench.kernels import provider as kernel_provider
from svmbench.kernels import threads as fit_threads
from svmbench.kernels.math import add_scaled
from svmbench.kernels.provider import PARALLEL_CHUNK
from svmbench.solvers import smo, wss2_parallel
from svmbench.solvers.checkpoints import new_curve
from svmbench.solvers.smo import ACTIVE, LIBSVM283, WSS2, new_state, wss2_first, wss2_second
from svmbench.solvers.smo_step import lane_max, update_gradient
from svmbench.solvers.wss2_parallel import (
    add_scaled_parallel,
    gains_parallel,
    last_position_of_max,
    step_and_violators_parallel,
    violators_parallel,
)

TWO_THREADS = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2,
                                 reason="needs 2 numba threads")


def random_state(seed, n, C, levels):
    """A wss2 state over n samples with alpha on and between the bounds and G drawn from
    ``levels`` values (many ties)."""
    rng = np.random.default_rng(seed)
    labels = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    alpha = rng.choice([0.0, C, 0.5 * C, 0.25 * C], size=n)
    s = new_state(labels, alpha, WSS2, 1, LIBSVM283, C, 1e-3, 1e-12, new_curve(0))
    s.gradient[:] = rng.integers(-levels, levels + 1, size=n) / levels
    return s, rng


@TWO_THREADS
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 5 * PARALLEL_CHUNK), st.integers(1, 50),
       st.sampled_from([1, 2]))
def test_parallel_selection_is_the_serial_one(seed, n, levels, threads):
    """i, j and the gap from the blocks, on 1 and 2 threads, equal wss2_first / wss2_second's,
    also with ties (G on a few levels: the last position of equal values wins) and with an empty
    I_up."""
    C = 2.0
    s, rng = random_state(seed, n, C, levels)
    if seed % 7 == 0:  # nobody in I_up
        s.alpha[:] = np.where(s.y > 0, C, 0.0)
    diag = rng.choice([0.5, 1.0, 2.0], size=n)
    row_i = np.float32(rng.integers(-3, 4, size=n) / 4.0).astype(np.float64)
    i, gmax = wss2_first(s)
    j, gap = wss2_second(s, diag, row_i, i, gmax) if i >= 0 else (-1, -np.inf)
    numba.set_num_threads(threads)
    try:
        up, low = np.empty(n), np.empty(n)
        block_max, block_low = np.empty(n // PARALLEL_CHUNK + 1), np.empty(n // PARALLEL_CHUNK + 1)
        violators_parallel(s.y, s.alpha, s.gradient, C, up, low, block_max, block_low)
        got_i, got_gmax = last_position_of_max(up, block_max)
        assert (got_i, got_gmax) == (i, gmax)
        if i >= 0:
            gains_parallel(s.y, diag, row_i, i, gmax, low, up, block_max)
            got_j, _ = last_position_of_max(up, block_max)
            assert (got_j, gmax + last_position_of_max(low, block_low)[1]) == (j, gap)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


@TWO_THREADS
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 5 * PARALLEL_CHUNK), st.integers(1, 50),
       st.sampled_from([1, 2]))
def test_the_step_and_the_next_first_pass_in_one_region_are_the_serial_ones(seed, n, levels,
                                                                             threads):
    """G updated over the active prefix, then the next first index, its maximum and the maximum
    of y G over I_low from the fused region, on 1 and 2 threads: update_gradient's G and
    wss2_first's answer, bit for bit; G, the rows and the steps on coarse levels, so that the
    sums are exact and the updated G has many ties (the last position of equal values wins)."""
    C = 2.0
    s, rng = random_state(seed, n, C, levels)
    serial, _ = random_state(seed, n, C, levels)
    row_i, row_j = rng.integers(-3, 4, size=n) / 4.0, rng.integers(-3, 4, size=n) / 4.0
    step_i, step_j = rng.choice([-0.5, 0.25, 1.0], size=2)
    active = int(rng.integers(1, n + 1))
    serial.ints[ACTIVE] = active
    update_gradient(serial.gradient, row_i, row_j, step_i, step_j, active)
    i, gmax = wss2_first(serial)
    low_max = lane_max(serial.work[active:2 * active])
    numba.set_num_threads(threads)
    try:
        up, low = np.empty(active), np.empty(active)
        block_max, block_low = np.empty(n // PARALLEL_CHUNK + 1), np.empty(n // PARALLEL_CHUNK + 1)
        step_and_violators_parallel(s.gradient, row_i, row_j, step_i, step_j, s.y, s.alpha, C, up,
                                    low, block_max, block_low)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    np.testing.assert_array_equal(s.gradient, serial.gradient)
    assert last_position_of_max(up, block_max) == (i, gmax)
    assert last_position_of_max(low, block_low)[1] == low_max


@TWO_THREADS
@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 4 * PARALLEL_CHUNK))
def test_parallel_gradient_bar_updates_are_the_serial_ones(seed, n):
    """G_bar's update over every sample, on 2 threads: the serial sums."""
    rng = np.random.default_rng(seed)
    row_i, row_j = rng.normal(size=n), rng.normal(size=n)
    step_i = rng.normal()
    expected_bar, gradient_bar = row_j.copy(), row_j.copy()
    add_scaled(expected_bar, row_i, step_i)
    numba.set_num_threads(2)
    try:
        add_scaled_parallel(gradient_bar, row_i, step_i)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    np.testing.assert_array_equal(gradient_bar, expected_bar)


def wss2_fit(X, y, threads, binary_points, C=4.0, cache_mb=1.0, model=False):
    """The fit's (iterations, K2, K1, objective, alpha), or the fitted estimator (``model``)."""
    numba.set_num_threads(threads)
    try:
        fitted = build_estimator({"name": "smo_wss2", "C": C, "gamma": 0.1 if binary_points
                                  else 0.5, "tol": 1e-3, "cache_mb": cache_mb}).fit(X, y)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    if model:
        return fitted
    result = fitted.fit_results_[0]
    return (result.iterations, result.kernel_requested, result.kernel_computed,
            result.objective, result.alpha)


def parallel_from_1024(patch):
    """Every pass and row of 1024 positions or more in parallel regions."""
    patch.setattr(wss2_parallel, "WSS2_PARALLEL_MIN", 1024)
    patch.setattr(kernel_provider, "PARALLEL_MIN_ENTRIES", 1024)
    patch.setattr(kernel_provider, "BINARY_PARALLEL_MIN_ENTRIES", 1024)


@TWO_THREADS
@settings(max_examples=4, deadline=None)
@given(st.integers(0, 10**6), st.integers(1500, 3000), st.booleans())
def test_wss2_fits_equal_on_one_and_two_threads(seed, n, binary_points):
    """smo_wss2 with its passes (and the rows) split among threads from 1024 positions: the
    same iterations, kernel counts, objective and alpha, bit for bit, as on one thread; dense
    points, and binary ones (whose rows are filled from their bits)."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 12)) < 0.3).astype(float) if binary_points else rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0.3, 1, -1)
    y[:2] = (1, -1)
    with pytest.MonkeyPatch.context() as patch:
        parallel_from_1024(patch)
        one, two = wss2_fit(X, y, 1, binary_points), wss2_fit(X, y, 2, binary_points)
    assert one[:4] == two[:4]
    np.testing.assert_array_equal(one[4], two[4])


@TWO_THREADS
@settings(max_examples=4, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # a class, no state
@given(st.integers(0, 10**6), st.integers(2000, 4000), st.booleans(), st.sampled_from([2, 3]))
def test_wss2_fits_equal_the_one_thread_fit_when_the_governor_switches_threads(
        fake_machine, seed, n, binary_points, classes):
    """A 2-thread fit whose governor (kernels.threads.FitThreads) switches between one thread
    and two every millisecond (others' load 0 and 2 cores in turn), with every pass and row from
    1024 positions in parallel: the iterations, counts, objective and alpha of the 1-thread fit,
    bit for bit; its record's iterations by thread count add up to the iterations and name both
    counts. 3 classes: three class pairs, their iterations summed in the record."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 12)) < 0.3).astype(float) if binary_points else rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0.3, 1, -1)
    if classes == 3:
        y = np.where(X[:, 2] > 0.8, 2, y)
    y[:classes] = (1, -1, 2)[:classes]
    with pytest.MonkeyPatch.context() as patch:
        parallel_from_1024(patch)
        patch.setattr(fit_threads, "cpu_seconds_used", fake_machine([0.0, 2.0]))
        patch.setattr(fit_threads, "GOVERNOR_PERIOD_S", 0.001)
        patch.setattr(os, "cpu_count", lambda: 2)
        one = wss2_fit(X, y, 1, binary_points, model=True)
        two = wss2_fit(X, y, 2, binary_points, model=True)
    assert np.array_equal(one.n_iter_, two.n_iter_)
    assert (one.kernel_computed_, one.kernel_requested_) == (two.kernel_computed_,
                                                             two.kernel_requested_)
    for pair_one, pair_two in zip(one.fit_results_, two.fit_results_):
        assert pair_one.objective == pair_two.objective
        np.testing.assert_array_equal(pair_one.alpha, pair_two.alpha)
    assert one.iterations_by_threads_ == {"1": one.n_iter_.sum()}
    assert sum(two.iterations_by_threads_.values()) == two.n_iter_.sum()
    assert min(two.iterations_by_threads_.values()) > 0, two.iterations_by_threads_


# (set, C, gamma, cache MB) -> (iterations, K1, K2, SVs, objective, sha256 of alpha's bytes: 16
# hex digits) of smo_wss2 at tol 1e-3, by main f7b012e (before the step's update and the next
# selection's first pass shared one parallel region), on 1 and on 2 threads alike with every
# pass and row from 1024 positions in parallel. a1a: 1,605 samples, 1,119 iterations (a
# shrinking pass every 1000); a4a: 4,781 samples, 3,303 iterations; a 1 MB cache evicts rows
PINNED_WSS2 = {
    ("a1a", 2.0, 0.05, 1.0): (1119, 1394745, 4865192, 679, "-0x1.0235687b84a1ap+10",
                              "33fd37a33baaa18c"),
    ("a4a", 2.0, 0.05, 1.0): (3303, 15936500, 26639484, 1870, "-0x1.823d201bc393ap+11",
                              "b8d3c67cdb41eb4c"),
    ("a4a", 2.0, 0.05, 100.0): (3303, 9652839, 26639484, 1870, "-0x1.823d201bc393ap+11",
                                "b8d3c67cdb41eb4c"),
}


@TWO_THREADS
@pytest.mark.data
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dataset,C,gamma,cache_mb", sorted(PINNED_WSS2))
def test_parallel_passes_keep_the_pinned_wss2_path(dataset, C, gamma, cache_mb, threads):
    try:
        data = load_dataset(dataset)
    except DataError as missing:
        pytest.skip(f"{dataset} not staged: {missing}")
    with pytest.MonkeyPatch.context() as patch:
        parallel_from_1024(patch)
        numba.set_num_threads(threads)
        try:
            model = build_estimator({"name": "smo_wss2", "C": C, "gamma": gamma, "tol": 1e-3,
                                     "cache_mb": cache_mb}).fit(data.X_train, data.y_train)
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    result = model.fit_results_[0]
    alpha_digest = hashlib.sha256(np.ascontiguousarray(result.alpha).tobytes()).hexdigest()[:16]
    assert (result.iterations, result.kernel_computed, result.kernel_requested,
            len(model.support_), float(result.objective).hex(), alpha_digest) == PINNED_WSS2[
                (dataset, C, gamma, cache_mb)]


def test_rows_split_among_threads_from_the_threshold_of_their_points():
    rng = np.random.default_rng(0)
    binary = (rng.random((50, 12)) < 0.3).astype(float)
    dense = rng.normal(size=(50, 4))
    for X, expected in ((binary, kernel_provider.BINARY_PARALLEL_MIN_ENTRIES),
                        (sp.csr_matrix(binary), kernel_provider.BINARY_PARALLEL_MIN_ENTRIES),
                        (dense, kernel_provider.PARALLEL_MIN_ENTRIES)):
        provider = kernel_provider.make_provider(X, gamma=0.5)
        assert provider.settings[kernel_provider.PARALLEL_MIN] == expected


def test_a_fit_runs_the_loop_with_parallel_passes_only_where_they_can_run():
    """The parallel passes are compiled into wss2's second loop, which a fit runs only when its
    n reaches the length from which they run (wss2_parallel_from: never on one thread); every
    other rule has one loop."""
    assert smo.solver_loop_for(smo.WSS2, 8191, 8192) is smo.SOLVER_LOOPS[smo.WSS2, False]
    assert smo.solver_loop_for(smo.WSS2, 8192, 8192) is smo.SOLVER_LOOPS[smo.WSS2, True]
    assert smo.SOLVER_LOOPS[smo.WSS2, True] is not smo.SOLVER_LOOPS[smo.WSS2, False]
    for rule in (smo.PLATT, smo.MOD1, smo.MOD2):
        assert smo.solver_loop_for(rule, 10**6, 1) is smo.SOLVER_LOOPS[rule, False]
