"""The grid search's pruning (svmbench.tuning, ``shared_errors(prune=True)``): it leaves out only
folds of points that cannot be chosen, so the chosen point, its mean error and every error it
fits are those of the full table, bit for bit, with fewer fits."""

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmbench import tuning
from svmbench.models import GSSVC, SMOSVC
from svmbench.protocols import kfold_indices
from svmbench.tuning import live_length, mean_errors, parameter_grid, shared_errors

SMO = {"name": "smo_wss2", "gamma": 1.0, "C": 1.0}
GS = {"name": "gs_svm", "gamma": 1.0}
GRID = {"gamma_log2": [-3, 3], "C_log2": [-1, 4]}


def problem(seed, n=80, classes=2, spread=1.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, size=n)
    X = rng.normal(size=(n, 3)) * spread + y[:, None]
    return X, y


@given(seed=st.integers(0, 10_000), classes=st.sampled_from([2, 3]),
       algorithm=st.sampled_from([SMO, GS]), inner_k=st.integers(2, 5))
@settings(max_examples=10, deadline=None)
def test_the_pruned_grid_chooses_the_full_grids_point_from_the_same_errors(seed, classes,
                                                                           algorithm, inner_k):
    X, y = problem(seed, classes=classes)
    inner = kfold_indices(y, inner_k, seed)
    points = parameter_grid(GRID, algorithm)
    full, _ = shared_errors(algorithm, points, X, y, inner, scale=True, prune=False)
    pruned, _ = shared_errors(algorithm, points, X, y, inner, scale=True)
    assert not np.isnan(full).any()
    fitted = ~np.isnan(pruned)
    np.testing.assert_array_equal(pruned[fitted], full[fitted])
    means, pruned_means = mean_errors(full), mean_errors(pruned)
    best = int(np.argmin(means))
    assert int(np.nanargmin(pruned_means)) == best and pruned_means[best] == means[best]
    left_out = ~fitted.all(axis=1)
    assert np.all(means[left_out] > means[best])  # no point left out could tie the best


def test_pruning_fits_fewer_and_the_search_records_the_same_choice(monkeypatch):
    X, y = problem(5, n=120, classes=3, spread=1.5)
    inner = kfold_indices(y, 5, 0)
    protocol = {"grid": GRID}
    fits = []
    for model in (SMOSVC, GSSVC):
        fit = model.fit
        monkeypatch.setattr(model, "fit",
                            lambda self, *a, _fit=fit, **k: fits.append(1) or _fit(self, *a, **k))
    for algorithm in (SMO, GS):
        fits.clear()
        chosen, record = tuning.grid_search(algorithm, protocol, X, y, inner, scale=True)
        pruned_fits = len(fits)
        with monkeypatch.context() as patch:
            patch.setattr(tuning, "shared_errors",
                          functools.partial(tuning.shared_errors, prune=False))
            fits.clear()
            every_chosen, every_record = tuning.grid_search(algorithm, protocol, X, y, inner,
                                                            scale=True)
        assert chosen == every_chosen
        assert record["inner_cv_error"] == every_record["inner_cv_error"]
        assert record["inner_trainings"] == every_record["inner_trainings"] == len(
            parameter_grid(GRID, algorithm)) * 5
        assert pruned_fits < len(fits)


def test_a_chain_is_cut_after_its_last_point_that_could_still_be_chosen():
    nan = np.nan
    errors = np.array([[0.25, 0.5, 0.75],   # complete: mean 0.5, the best so far
                       [0.75, 0.75, 1.0],   # complete: mean 0.833
                       [1.0, nan, nan],     # so far 1/3 (folds left count 0): in play
                       [0.0, 0.0, nan],     # so far 0: in play
                       [0.75, 0.75, nan],   # so far exactly 0.5: in play (a tie may be first)
                       [1.0, 0.75, nan],    # so far 0.583 > 0.5: out
                       [1.0, 1.0, nan]])    # out
    assert live_length(errors, [2, 3, 4, 5, 6]) == 3  # 2 and 3 are fitted for the warm start
    assert live_length(errors, [5, 6]) == 0
    assert live_length(errors[2:], [0, 1, 2, 3, 4]) == 5  # no complete point yet: all in play


@pytest.mark.parametrize("algorithm", [SMO, GS])
def test_without_pruning_every_point_is_fitted_at_every_fold(algorithm):
    X, y = problem(1, n=60, classes=2)
    inner = kfold_indices(y, 3, 0)
    errors, _ = shared_errors(algorithm, parameter_grid({"gamma_log2": [-1, 1], "C_log2": [0, 1]},
                                                        algorithm), X, y, inner, scale=True,
                              prune=False)
    assert not np.isnan(errors).any()
