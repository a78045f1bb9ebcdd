"""The paths of Platt's and Keerthi et al.'s SMO pinned bit for bit (issue 42, item 1: their
bookkeeping made cheaper, the path unchanged): on fixed problems and on generated ones, each
variant's iterations, K1, K2 and a hash of the fitted model's bits (support, dual coefficients,
intercepts) must equal what main's code gave (smo_paths.json, written by running this file as a
script on that code: ``python tests/unit/test_smo_paths.py --write``). A count change is a bug
fix, and says so where the pins are rewritten.

The generated problems are drawn by hypothesis among GENERATED seeds (all pinned): 16-120
samples, 2-6 features, some points repeated (equal gradients: ties in every selection), C over
2^-2..2^8, gamma over 2^-3..2^1, a cache of two rows (evicting and cutting all along) or of all
of them. The bits are those of this machine's CPU (numba compiles for it): on another CPU model
the pins are not compared (the test skips, naming both).
"""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import llvmlite.binding
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.preprocessing import MinMaxScaler

from svmbench.algorithms import build_estimator

PINS = Path(__file__).with_name("smo_paths.json")
SOLVERS = ["smo_platt", "smo_mod1", "smo_mod2"]
GENERATED = 64
# name -> (data set, classes kept (0: all), C, gamma, cache MB): the bench's points (a1a and a4a
# at C 2, gamma 0.05; letter at C 2, gamma 0.5, its first 3 classes) and a large C, a1a with a
# cache of 1 MB (160 full rows: evicting and cutting rows all along)
FIXED = {
    "a1a_c2_cache1": ("a1a", 0, 2.0, 0.05, 1.0),
    "a1a_c2": ("a1a", 0, 2.0, 0.05, 1024.0),
    "a4a_c2": ("a4a", 0, 2.0, 0.05, 1024.0),
    "letter_abc_c2": ("letter", 3, 2.0, 0.5, 1024.0),
    "letter_abc_c32": ("letter", 3, 32.0, 0.5, 1024.0),
}


def model_hash(model):
    """sha256 of the fitted model's support, dual coefficients and intercepts."""
    digest = hashlib.sha256()
    for values in (model.support_, model.dual_coef_, model.intercept_):
        digest.update(np.ascontiguousarray(values).tobytes())
    return digest.hexdigest()


def path_of(solver, X, y, C, gamma, cache_mb):
    """[iterations, K1, K2, model hash] of a fit."""
    model = build_estimator({"name": solver, "C": C, "gamma": gamma, "tol": 1e-3,
                             "cache_mb": cache_mb})
    model.fit(X, y)
    return [int(np.sum(model.n_iter_)), int(model.kernel_computed_),
            int(model.kernel_requested_), model_hash(model)]


def generated_problem(seed):
    """(X, y, C, gamma, cache MB) of generated problem ``seed``."""
    rng = np.random.default_rng(seed)
    n, features = int(rng.integers(16, 121)), int(rng.integers(2, 7))
    X = rng.normal(size=(n, features))
    repeated = rng.integers(0, n, size=int(rng.integers(0, n // 4 + 1)))
    X[rng.integers(0, n, size=repeated.shape[0])] = X[repeated]
    score = np.sin(2.0 * X[:, 0]) + X[:, 1] ** 2 - 1.0 + rng.normal(scale=0.5, size=n)
    y = np.where(score > np.median(score), 1.0, -1.0)
    C, gamma = 2.0 ** rng.uniform(-2, 8), 2.0 ** rng.uniform(-3, 1)
    cache_mb = 2 * n * 4 / 2**20 if rng.random() < 0.5 else 100.0
    return X, y, C, gamma, cache_mb


def fixed_problem(name):
    """(X, y, C, gamma, cache MB) of FIXED[name], or a skip when its data is not staged."""
    from svmbench.data import DataError, load_dataset

    dataset, classes, C, gamma, cache_mb = FIXED[name]
    try:
        data = load_dataset(dataset)
    except DataError as missing:
        pytest.skip(f"{dataset} not staged: {missing}")
    X, y = data.X_train, data.y_train
    if dataset == "letter":  # scaled to [-1, 1] as the bench does
        X = MinMaxScaler((-1, 1)).fit_transform(X)
    if classes:
        keep = np.isin(y, np.unique(y)[:classes])
        X, y = X[keep], y[keep]
    return X, y, C, gamma, cache_mb


@pytest.fixture(scope="module")
def pins():
    pinned = json.loads(PINS.read_text())
    here = llvmlite.binding.get_host_cpu_name()
    if pinned["cpu"] != here:
        pytest.skip(f"pinned on CPU {pinned['cpu']}, this one is {here}: other bits")
    return pinned


@pytest.mark.data
@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("name", sorted(FIXED))
def test_fixed_problems_keep_their_pinned_paths(pins, name, solver):
    assert path_of(solver, *fixed_problem(name)) == pins["fixed"][name][solver]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, GENERATED - 1), solver=st.sampled_from(SOLVERS))
def test_generated_problems_keep_their_pinned_paths(pins, seed, solver):
    assert path_of(solver, *generated_problem(seed)) == pins["generated"][str(seed)][solver]


def write():
    """Pin the paths of the code this runs on (main's, before a change of the bookkeeping)."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=True, cwd=Path(__file__).parent).stdout.strip()
    pinned = {"commit": commit, "cpu": llvmlite.binding.get_host_cpu_name(),
              "generated": {str(seed): {solver: path_of(solver, *generated_problem(seed))
                                        for solver in SOLVERS} for seed in range(GENERATED)},
              "fixed": {name: {solver: path_of(solver, *fixed_problem(name))
                               for solver in SOLVERS} for name in FIXED}}
    PINS.write_text(json.dumps(pinned, indent=1) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    write()
