"""WSS 2's passes in parallel blocks (svmbench.solvers.wss2_parallel) against the serial passes
of svmbench.solvers.smo: the same pair and the same gradient, bit for bit, and a whole fit on 2
threads equal to the fit on 1."""

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from svmbench.algorithms import build_estimator
from svmbench.kernels import provider as kernel_provider
from svmbench.kernels.math import add_scaled
from svmbench.kernels.provider import PARALLEL_CHUNK
from svmbench.solvers import wss2_parallel
from svmbench.solvers.checkpoints import new_curve
from svmbench.solvers.smo import LIBSVM283, WSS2, new_state, wss2_first, wss2_second
from svmbench.solvers.smo_step import update_gradient
from svmbench.solvers.wss2_parallel import (
    add_scaled_parallel,
    gains_parallel,
    last_position_of_max,
    update_gradient_parallel,
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
@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 4 * PARALLEL_CHUNK))
def test_parallel_gradient_updates_are_the_serial_ones(seed, n):
    """G's update over a prefix and G_bar's over every sample, on 2 threads: the serial sums."""
    rng = np.random.default_rng(seed)
    gradient, row_i, row_j = rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)
    step_i, step_j = rng.normal(size=2)
    length = int(rng.integers(0, n + 1))
    expected, expected_bar, gradient_bar = gradient.copy(), row_j.copy(), row_j.copy()
    update_gradient(expected, row_i, row_j, step_i, step_j, length)
    add_scaled(expected_bar, row_i, step_i)
    numba.set_num_threads(2)
    try:
        update_gradient_parallel(gradient, row_i, row_j, step_i, step_j, length)
        add_scaled_parallel(gradient_bar, row_i, step_i)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    np.testing.assert_array_equal(gradient, expected)
    np.testing.assert_array_equal(gradient_bar, expected_bar)


def wss2_fit(X, y, threads, binary_points):
    numba.set_num_threads(threads)
    try:
        model = build_estimator({"name": "smo_wss2", "C": 4.0, "gamma": 0.1 if binary_points
                                 else 0.5, "tol": 1e-3, "cache_mb": 1.0}).fit(X, y)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    result = model.fit_results_[0]
    return (result.iterations, result.kernel_requested, result.kernel_computed,
            result.objective, result.alpha)


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
        patch.setattr(wss2_parallel, "WSS2_PARALLEL_MIN", 1024)
        patch.setattr(kernel_provider, "PARALLEL_MIN_ENTRIES", 1024)
        patch.setattr(kernel_provider, "BINARY_PARALLEL_MIN_ENTRIES", 1024)
        one, two = wss2_fit(X, y, 1, binary_points), wss2_fit(X, y, 2, binary_points)
    assert one[:4] == two[:4]
    np.testing.assert_array_equal(one[4], two[4])


def test_rows_split_among_threads_from_the_threshold_of_their_points():
    rng = np.random.default_rng(0)
    binary = (rng.random((50, 12)) < 0.3).astype(float)
    dense = rng.normal(size=(50, 4))
    for X, expected in ((binary, kernel_provider.BINARY_PARALLEL_MIN_ENTRIES),
                        (sp.csr_matrix(binary), kernel_provider.BINARY_PARALLEL_MIN_ENTRIES),
                        (dense, kernel_provider.PARALLEL_MIN_ENTRIES)):
        provider = kernel_provider.make_provider(X, gamma=0.5)
        assert provider.settings[kernel_provider.PARALLEL_MIN] == expected
