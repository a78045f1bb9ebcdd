"""Convergence checkpoints (svmbench.solvers.checkpoints): a bounded log-spaced schedule, curves
that end at the solver's result, objectives that follow the solver's own path, and a fit that is
the same with or without recording."""

import time

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from svmbench.kernels.qmatrix import make_qmatrix
from svmbench.solvers import checkpoints
from svmbench.solvers.base import STOP_RECORDED
from svmbench.solvers.checkpoints import close, new_curve, note
from svmbench.solvers.plugins import get_solver

# solver -> (Q-matrix kind, params): every solver that records a curve
SOLVERS = {
    "smo_wss2": ("csvc", {"C": 4.0}),
    "smo_platt": ("csvc", {"C": 4.0}),
    "smo_mod1": ("csvc", {"C": 4.0}),
    "smo_mod2": ("csvc", {"C": 4.0}),
    "rosen": ("csvc", {"C": 4.0}),
    "gs_svm": ("csvc", {}),
    "hm_svm": ("csvc", {}),
    "cvm": ("l2svm", {"C": 4.0}),
    "fw": ("l2svm", {"C": 4.0}),
    "mfw": ("l2svm", {"C": 4.0}),
    "rho_svm": ("csvc", {}),
}
# solvers whose every step lowers the objective they record (SMO: the pair's exact minimiser;
# Rosen and FW: exact line search; GS-SVM: eq. 20's h <= 0; rho-SVM: step 7 accepts no increase)
DESCENDING = ("smo_wss2", "smo_platt", "smo_mod1", "smo_mod2", "rosen", "gs_svm", "fw", "mfw",
              "rho_svm")


def problem(seed, n=60):
    """Two overlapping Gaussian classes in 3-D, with labels in {-1, +1}."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    X = rng.normal(size=(n, 3)) + 0.8 * y[:, None]
    return X, y


def fit(name, X, y, **extra):
    kind, params = SOLVERS[name]
    C = params.get("C", 1.0)
    q = make_qmatrix(X, y, kind, C=C, kernel="rbf", gamma=0.5, cache_mb=1.0)
    return get_solver(name)(q, y, {**params, **extra})


def schedule(last, capacity):
    """The iterations a curve of ``capacity`` keeps for a loop of ``last`` iterations, noting at
    every due iteration only (a loop notes at every iteration; note does nothing at the others)."""
    curve = new_curve(capacity)
    while curve[0, checkpoints.NEXT] < last:
        note(curve, int(curve[0, checkpoints.NEXT]), np.zeros(2, dtype=np.int64), 0.0, 0.0)
    close(curve, last, np.zeros(2, dtype=np.int64), 0.0, 0.0)
    count = int(curve[0, checkpoints.COUNT])
    return curve[1:1 + count, checkpoints.ITERATION]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**53), st.integers(2, 400))  # iterations are kept as float64
def test_a_curve_keeps_at_most_its_capacity_whatever_the_iteration_count(last, capacity):
    iterations = schedule(last, capacity)
    assert 1 <= iterations.shape[0] <= capacity
    assert iterations[-1] == last and (iterations.shape[0] == 1 or iterations[0] == 0)
    assert np.all(np.diff(iterations) > 0)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 3000))
def test_noting_at_every_iteration_keeps_the_log_spaced_schedule(last):
    curve = new_curve(checkpoints.MAX_POINTS)
    counters = np.zeros(2, dtype=np.int64)
    for iteration in range(last):
        note(curve, iteration, counters, 0.0, 0.0)
    close(curve, last, counters, 0.0, 0.0)
    kept = curve[1:1 + int(curve[0, checkpoints.COUNT]), checkpoints.ITERATION]
    np.testing.assert_array_equal(kept, schedule(last, checkpoints.MAX_POINTS))
    # every iteration up to 10, then about 24 a decade
    assert set(range(min(last, 11))) <= set(kept)
    assert kept.shape[0] <= 12 + 24 * np.log10(max(last, 1))


def test_time_is_wall_seconds_since_the_start():
    counters = np.array([3, 2])
    note(new_curve(2), 0, counters, -1.0, 0.5)  # compiled before the clock starts
    started = checkpoints.Checkpoints()
    time.sleep(0.05)
    note(started.array, 0, counters, -1.0, 0.5)
    time.sleep(0.05)
    (point,) = started.points("optimal")
    assert 0.05 <= point["time_s"] < 0.08
    assert point == {**point, "iteration": 0, "kernel_requested": 3, "kernel_computed": 2,
                     "objective": -1.0, "gap": 0.5, "stop": "optimal"}


@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_the_last_point_is_the_solvers_result_and_the_first_its_start(name):
    X, y = problem(0)
    before = time.monotonic()
    result = fit(name, X, y)
    wall = time.monotonic() - before
    curve = result.trace["curve"]
    last = curve[-1]
    assert last["objective"] == result.objective
    assert last["iteration"] == result.iterations
    assert (last["kernel_requested"], last["kernel_computed"]) == (result.kernel_requested,
                                                                   result.kernel_computed)
    assert last["stop"] == result.stop and last["stop"] in STOP_RECORDED.values()
    assert curve[0]["iteration"] == 0 and 1 <= len(curve) <= checkpoints.MAX_POINTS
    times = [point["time_s"] for point in curve]
    assert 0.0 <= times[0] and np.all(np.diff(times) >= 0.0) and times[-1] <= wall
    for column in ("iteration", "kernel_requested", "kernel_computed"):
        assert np.all(np.diff([point[column] for point in curve]) >= 0), column


@pytest.mark.parametrize("name", sorted(SOLVERS))
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 10**6))
@example(seed=362879)  # Keerthi's G took Q_ij unrounded (test_smo: ..._of_its_own_alpha_...)
def test_a_checkpoint_holds_the_objective_of_the_fit_stopped_there(name, seed):
    """The objective a loop records at iteration k (SMO: summed step by step) is that of the
    solver stopped by max_iter = k, computed afresh from its gradient."""
    X, y = problem(seed)
    curve = fit(name, X, y).trace["curve"]
    if len(curve) < 3:
        return
    point = curve[len(curve) // 2]
    stopped = fit(name, X, y, max_iter=point["iteration"])
    assert point["objective"] == pytest.approx(stopped.objective, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("name", DESCENDING)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_the_objective_never_rises_where_every_step_lowers_it(name, seed):
    X, y = problem(seed)
    objective = np.array([point["objective"] for point in fit(name, X, y).trace["curve"]])
    assert np.all(np.diff(objective) <= 1e-12 * np.abs(objective[:-1]).max())


@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_recording_changes_nothing_in_the_fit(name, monkeypatch):
    X, y = problem(1)
    recorded = fit(name, X, y)
    monkeypatch.setattr(checkpoints, "MAX_POINTS", 0)
    silent = fit(name, X, y)
    assert len(recorded.trace["curve"]) > 1 and silent.trace["curve"] == []
    np.testing.assert_array_equal(recorded.alpha, silent.alpha)
    assert recorded.bias == silent.bias and recorded.objective == silent.objective
    assert (recorded.iterations, recorded.kernel_requested, recorded.kernel_computed) == (
        silent.iterations, silent.kernel_requested, silent.kernel_computed)
