"""The runner compiles outside every timing: after its warm-ups, a grid search on real-looking
data (3 classes, other sizes) needs no numba signature they did not create, so a nested-CV
record's tuning time holds no compiling."""

import json
import subprocess
import sys

import pytest

PROGRAM = """
import json, sys
import numpy as np
from numba.core.dispatcher import Dispatcher
from svmbench import warm_up
from svmbench.algorithms import build_estimator
from svmbench.tuning import grid_search

def compiled():
    return {f"{module}.{name}": len(value.signatures)
            for module, loaded in list(sys.modules.items()) if module.startswith("svmbench")
            for name, value in vars(loaded).items() if isinstance(value, Dispatcher)}

algorithm, warm = sys.argv[1], sys.argv[2] == "warm"
warm_up.warm_up(algorithm, "rbf")
if warm:
    warm_up.warm_up_tuning(algorithm, "rbf")
before = compiled()
rng = np.random.default_rng(1)
X = rng.normal(size=(90, 4))
y = np.repeat([0.0, 1.0, 2.0], 30)
X[:, 0] += y
folds = [(np.setdiff1d(np.arange(90), part), part) for part in np.array_split(rng.permutation(90), 3)]
taken = build_estimator({"name": algorithm}).get_params()
axes = [name for name in ("C", "gamma") if name in taken]
grid_search({"name": algorithm, "kernel": "rbf", **{name: 1.0 for name in axes}},
            {"grid": {f"{name}_log2": [-1, 1] for name in axes}}, X, y, folds, scale=True)
print(json.dumps({name: count for name, count in compiled().items() if count != before.get(name, 0)}))
"""


def new_signatures(algorithm, warm):
    done = subprocess.run([sys.executable, "-c", PROGRAM, algorithm, warm], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("algorithm", ["smo_wss2", "gs_svm", "hm_svm"])
def test_after_the_warm_ups_a_grid_search_compiles_nothing(algorithm):
    assert new_signatures(algorithm, "warm") == {}


def test_without_the_tuning_warm_up_the_grid_search_would_compile():
    assert new_signatures("smo_wss2", "cold")
