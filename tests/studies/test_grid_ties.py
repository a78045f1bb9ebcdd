"""studies/deviations_grid_ties.py: its numpy stand-in makes grid_search take the LAST of equal
minima, with the search's pruning on (ties with the best are never pruned)."""

import numpy as np
from study_modules import load_study

from svmbench import tuning
from svmbench.protocols import kfold_indices


def test_the_study_makes_the_grid_search_take_the_last_of_tied_minima(monkeypatch):
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 30)
    X = rng.normal(size=(60, 2)) + 6.0 * y[:, None]  # separable: many points tie at error 0
    inner = kfold_indices(y, 3, 0)
    protocol = {"grid": {"gamma_log2": [-3, 1], "C_log2": [-1, 3]}}
    algorithm = {"name": "smo_wss2", "gamma": 1.0, "C": 1.0}
    first, record = tuning.grid_search(algorithm, protocol, X, y, inner, scale=True)
    monkeypatch.setattr(tuning, "np", load_study("deviations_grid_ties").LastMinimum())
    last, last_record = tuning.grid_search(algorithm, protocol, X, y, inner, scale=True)
    assert record["inner_cv_error"] == last_record["inner_cv_error"] == 0.0
    assert (first["gamma"], first["C"]) == (2.0 ** -3, 0.5)
    assert (last["gamma"], last["C"]) == (2.0, 8.0)
