"""One solver's first fit in a fresh process, compilation included: what a user waits for the
first time. Run as ``python _cold_start.py SOLVER`` with ``NUMBA_CACHE_DIR`` naming the compile
cache to use (an empty directory: a cold start; one a previous run filled: a cached start).
Prints one JSON line: the wall and CPU seconds of importing svmbench, of the first fit of a small
dense problem (300 samples, 5 features, 2 classes) and of its first prediction, and how many of
svmbench's functions numba compiled (0 when it loaded every one from the cache).

``python _cold_start.py SOLVER large``: the same first fit on a problem large enough to take the
code a solver compiles only for large fits (svmbench.warm_up.largest_toy_samples, and 500 samples
more: smo_wss2's loop with parallel passes at more than one numba thread), or, for a solver
without such code, ``"samples": null`` and no fit.
"""

import json
import sys
import time

import numpy as np
from numba.core import event

SAMPLES, FEATURES = 300, 5


def timed(action):
    """(wall s, CPU s) of action()."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


def problem(samples=SAMPLES):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(samples, FEATURES))
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=samples) > 0, 1, 0)


def main(solver, size="small"):
    imported = {}
    import_wall, import_cpu = timed(lambda: imported.update(
        build=__import__("svmbench.algorithms", fromlist=["build_estimator"]).build_estimator))
    # after the timed import (numba compiles nothing on import: every function on first call)
    from svmbench.warm_up import TOY_SAMPLES, CompileCount, largest_toy_samples

    samples = SAMPLES
    if size == "large":
        samples = largest_toy_samples(solver)
        if samples <= TOY_SAMPLES:
            print(json.dumps({"solver": solver, "samples": None}))
            return
        samples += 500
    compiled = CompileCount()
    event.register("numba:compile", compiled)
    X, y = problem(samples)
    estimator = imported["build"]({"name": solver})
    fit_wall, fit_cpu = timed(lambda: estimator.fit(X, y))
    predict_wall, predict_cpu = timed(lambda: estimator.predict(X))
    print(json.dumps({"solver": solver, "samples": samples, "import_wall": import_wall,
                      "import_cpu": import_cpu, "fit_wall": fit_wall, "fit_cpu": fit_cpu,
                      "predict_wall": predict_wall, "predict_cpu": predict_cpu,
                      "compiled": compiled.count}))


if __name__ == "__main__":
    main(*sys.argv[1:])
