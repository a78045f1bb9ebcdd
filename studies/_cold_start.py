"""One solver's first fit in a fresh process, compilation included: what a user waits for the
first time. Run as ``python _cold_start.py SOLVER`` with ``NUMBA_CACHE_DIR`` naming the compile
cache to use (an empty directory: a cold start; one a previous run filled: a cached start).
Prints one JSON line: the wall and CPU seconds of importing svmbench, of the first fit of a small
dense problem (300 samples, 5 features, 2 classes) and of its first prediction, and how many of
svmbench's functions numba compiled (0 when it loaded every one from the cache).
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


def small_problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(SAMPLES, FEATURES))
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=SAMPLES) > 0, 1, 0)


def main(solver):
    imported = {}
    import_wall, import_cpu = timed(lambda: imported.update(
        build=__import__("svmbench.algorithms", fromlist=["build_estimator"]).build_estimator))
    # after the timed import (numba compiles nothing on import: every function on first call)
    from svmbench.warm_up import CompileCount

    compiled = CompileCount()
    event.register("numba:compile", compiled)
    X, y = small_problem()
    estimator = imported["build"]({"name": solver})
    fit_wall, fit_cpu = timed(lambda: estimator.fit(X, y))
    predict_wall, predict_cpu = timed(lambda: estimator.predict(X))
    print(json.dumps({"solver": solver, "import_wall": import_wall, "import_cpu": import_cpu,
                      "fit_wall": fit_wall, "fit_cpu": fit_cpu, "predict_wall": predict_wall,
                      "predict_cpu": predict_cpu, "compiled": compiled.count}))


if __name__ == "__main__":
    main(sys.argv[1])
