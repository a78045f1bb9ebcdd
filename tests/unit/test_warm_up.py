"""The runner compiles outside every timing: after its warm-ups, a grid search on real-looking
data (3 classes, other sizes) needs no numba signature they did not create, so a nested-CV
record's tuning time holds no compiling; and a fit on binary (0/1) points, whose row filler is
compiled apart, none after the warm-up on their kind (svmbench.warm_up.points_kind), which is the
kind the provider itself takes. Once the cache holds them, a second process compiles nothing at
all, numba's own list helpers included."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from svmbench.kernels.provider import (
    BinaryProvider,
    DenseProvider,
    SparseProvider,
    make_provider,
    with_kind,
)
from svmbench.solvers import smo
from svmbench.solvers.smo import wss2_parallel_from
from svmbench.warm_up import (
    GRID_SEARCH,
    KINDS,
    TOY_SAMPLES,
    compile_tasks,
    points_kind,
    toy_points,
    toy_samples,
)

PROGRAM = """
import json, sys
import numpy as np
from numba.core import event
from numba.core.dispatcher import Dispatcher
from svmbench import warm_up
from svmbench.algorithms import build_estimator
from svmbench.tuning import grid_search

compiled_anywhere = []  # every function numba compiles in this process, its own helpers too
class Count(event.Listener):
    def on_start(self, ev):
        compiled_anywhere.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev):
        pass
event.register("numba:compile", Count())

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
            {"grid": {f"{name}_log2": [-1, 3] for name in axes}}, X, y, folds, scale=True)
print(json.dumps({"new": {name: count for name, count in compiled().items()
                           if count != before.get(name, 0)},
                  "compiled anywhere": compiled_anywhere}))
"""


def warm_up_and_grid_search(algorithm, warm):
    """The program's new signatures of svmbench's functions after the warm-ups ("new") and every
    function numba compiled in the process ("compiled anywhere"); numba's cache is the user's."""
    done = subprocess.run([sys.executable, "-c", PROGRAM, algorithm, warm], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("algorithm", ["smo_wss2", "gs_svm", "hm_svm"])
def test_after_the_warm_ups_a_grid_search_compiles_nothing(algorithm):
    assert warm_up_and_grid_search(algorithm, "warm")["new"] == {}


def test_without_the_tuning_warm_up_the_grid_search_would_compile():
    assert warm_up_and_grid_search("smo_wss2", "cold")["new"]


def test_once_cached_a_process_compiles_nothing_at_all():
    """smo_wss2's grid search over three classes hands its pairs' Q-matrices to compiled code in
    typed Lists. Built from Python, such a list runs numba's list helpers, which numba compiles
    in every process and caches nowhere (a fresh process compiled 14 of them, 3.7-4.7 s of CPU);
    svmbench.kernels.typed_lists builds them by cached code. The tests above filled the cache;
    the first run here fills what they did not, the second loads everything."""
    for _ in range(2):
        done = warm_up_and_grid_search("smo_wss2", "warm")
    assert done["compiled anywhere"] == []


# a fit program's start: its imports and the count of signatures of svmbench's functions
SIGNATURES = """
import json, sys
import numpy as np
import scipy.sparse as sp
from numba.core.dispatcher import Dispatcher
from svmbench import warm_up
from svmbench.algorithms import build_estimator

def compiled():
    return {f"{module}.{name}": len(value.signatures)
            for module, loaded in list(sys.modules.items()) if module.startswith("svmbench")
            for name, value in vars(loaded).items() if isinstance(value, Dispatcher)}
"""

FIT = SIGNATURES + """
rng = np.random.default_rng(2)
X = sp.csr_matrix((rng.random((60, 120)) < 0.1).astype(float))
y = np.where(np.asarray(X[:, :60].sum(axis=1)).ravel() > 6, 1.0, -1.0)
warm_up.warm_up("smo_wss2", "rbf", kind=warm_up.points_kind(X) if sys.argv[1] == "kind" else "dense")
before = compiled()
build_estimator({"name": "smo_wss2", "gamma": 0.05}).fit(X, y)
print(json.dumps({name: count for name, count in compiled().items() if count != before.get(name, 0)}))
"""


def fit_signatures(warm):
    done = subprocess.run([sys.executable, "-c", FIT, warm], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_after_the_warm_up_on_their_kind_a_fit_on_binary_points_compiles_nothing():
    assert fit_signatures("kind") == {}
    assert fit_signatures("dense")  # the warm-up on dense points alone would leave it to the fit


PROVIDERS = {"dense": DenseProvider, "binary": BinaryProvider, "sparse": SparseProvider}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 30), d=st.integers(1, 150),
       density=st.floats(0.01, 1.0), zero_one=st.booleans(), sparse=st.booleans())
def test_the_kind_is_the_providers(seed, n, d, density, zero_one, sparse):
    rng = np.random.default_rng(seed)
    mask = rng.random((n, d)) < density
    X = np.where(mask, 1.0 if zero_one else rng.normal(size=(n, d)), 0.0)
    X = sp.csr_matrix(X) if sparse else X
    assert isinstance(with_kind(make_provider(X)), PROVIDERS[points_kind(X)])


def test_each_toy_problem_is_of_its_kind():
    assert [points_kind(toy_points(kind)[0]) for kind in KINDS] == list(KINDS)


LARGE_FIT = SIGNATURES + """
from svmbench.solvers.smo import wss2_parallel_from

rng = np.random.default_rng(3)
X = rng.normal(size=(wss2_parallel_from() + 500, 2))
y = np.where(X[:, 0] + 0.3 * rng.normal(size=X.shape[0]) > 0, 1.0, -1.0)
samples = warm_up.toy_samples("smo_wss2", "rbf", n_train=X.shape[0])
warm_up.warm_up("smo_wss2", "rbf", samples=samples if sys.argv[1] == "sized" else warm_up.TOY_SAMPLES)
before = compiled()
build_estimator({"name": "smo_wss2", "gamma": 0.5}).fit(X, y)
print(json.dumps({name: count for name, count in compiled().items() if count != before.get(name, 0)}))
"""


def large_fit_signatures(warm):
    """New signatures of a 2-thread smo_wss2 fit on more samples than wss2_parallel_from() after
    the warm-up on toy_samples' problem ("sized") or on the smallest one ("toy")."""
    done = subprocess.run([sys.executable, "-c", LARGE_FIT, warm], capture_output=True, text=True,
                          check=True, env={**os.environ, "NUMBA_NUM_THREADS": "2"})
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_after_the_warm_up_on_a_sized_toy_problem_a_large_wss2_fit_compiles_nothing():
    """The fit takes the loop with parallel passes (smo.solver_loop_for), which only a toy problem
    as large as wss2_parallel_from() compiles."""
    assert large_fit_signatures("sized") == {}
    assert large_fit_signatures("toy")  # the 40-sample warm-up would leave it to the timed fit


@pytest.mark.parametrize("algorithm", ["smo_mod2", "gs_svm", "eg_fixed"])
def test_toy_samples_grow_only_for_wss2s_parallel_loop(algorithm):
    assert toy_samples(algorithm, "rbf", n_train=10**6) == TOY_SAMPLES


def test_toy_samples_stay_small_below_wss2s_parallel_loop():
    assert toy_samples("smo_wss2", "rbf", n_train=wss2_parallel_from() - 1) == TOY_SAMPLES


def test_svmbench_compile_fits_wss2_on_the_larger_toy_problem_of_each_kind(monkeypatch):
    """With more than one numba thread, svmbench-compile also fits the solvers whose compiled loop
    changes with size (smo_wss2 and the xi-alpha bound's solver) on toy_samples' larger problem
    of each kind, so that a user's first large fit after make venv compiles nothing (the sized
    warm-up test above); on one thread there is no such loop, and no such task."""
    monkeypatch.setattr(smo, "wss2_parallel_from", lambda: 8192)
    tasks = compile_tasks(["gs_svm", "smo_wss2", "csvm_xialpha"], ["dense", "binary"])
    larger = [(name, kind, samples) for name, kind, samples in tasks if samples > TOY_SAMPLES]
    assert sorted(larger) == [("csvm_xialpha", "binary", 8192), ("csvm_xialpha", "dense", 8192),
                              ("smo_wss2", "binary", 8192), ("smo_wss2", "dense", 8192)]
    assert len(tasks) == 3 * 3 + 4 and tasks.count(("gs_svm", GRID_SEARCH, TOY_SAMPLES)) == 1
    monkeypatch.setattr(smo, "wss2_parallel_from", lambda: np.iinfo(np.int64).max)
    assert all(samples == TOY_SAMPLES for *_, samples in compile_tasks(["smo_wss2"], ["dense"]))
