"""Compiling outside every timing: a fit on a toy problem per solver (and its grid search's path)
before the first timed one, once per process (numba compiles on first call, or loads its disk
cache). The runner warms each cell's solver up; a sweep warms every swept solver in the parent
process before its launcher fans out (svmbench.callbacks.WarmNumbaCache), and the benches before
they time.
"""

import functools

import numpy as np

from svmbench.algorithms import build_estimator
from svmbench.kernels.compile_cache import naming
from svmbench.referee import RefutedError
from svmbench.tuning import grid_search


def toy_problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


@functools.cache
def warm_up(algorithm_name, kernel, *settings):
    """Compile (or load from numba's disk cache) once per process, outside every timing;
    ``settings``: (key, value) pairs of an algorithm config with a ``_target_``."""
    X, y = toy_problem()
    estimator = build_estimator({**dict(settings), "name": algorithm_name, "kernel": kernel})
    with naming(algorithm_name):
        try:
            estimator.fit(X, y).predict(X)
        except RefutedError:  # compiled all the same; the referee judges each fold's own fit
            pass


@functools.cache
def warm_up_tuning(algorithm_name, kernel, *settings):
    """Compile the grid search's own path once per process, outside every timing: shared kernel
    matrices and precomputed-kernel fits with warm starts over class-pair blocks. A nested-CV
    record times its tuning; without this its first outer fold per process included compiling
    (smo_wss2 on segment, fresh checkout: 110 s of tuning, 23 s once compiled)."""
    X, y = toy_problem()
    algorithm = {**dict(settings), "name": algorithm_name, "kernel": kernel}
    taken = build_estimator(algorithm).get_params()
    axes = [name for name in ("C", "gamma") if name in taken]
    grid = {f"{name}_log2": [0, 1] for name in axes}
    halves = [(np.arange(20, 40), np.arange(20)), (np.arange(20), np.arange(20, 40))]
    with naming(f"{algorithm_name}'s grid search"):
        grid_search({**algorithm, **{name: 1.0 for name in axes}}, {"grid": grid}, X, y, halves,
                    scale=True)
