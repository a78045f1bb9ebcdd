"""A record is the same for the same config and seed on any machine: a solver's compiled code
gives the same bits whatever CPU numba compiles it for, and no result goes through a BLAS product,
whose kernels (chosen by the CPU) round differently. HM-SVM's Cholesky solves once summed with
fastmath, which the compiler split by the CPU's vector width: its fits on Page blocks differed
between an Intel and an AMD record (support sets and test errors with them); the rho-SVM's
objective, the MEB solvers' bias and every prediction's weighted sums went through OpenBLAS."""

import json
import os
import subprocess
import sys

from svmbench.kernels.compile_cache import PACKAGE

# fits on data without a hard-margin separator (overlapping classes: HM-SVM's alphas grow large
# and the rounding of its factor steers the path) by a solver each that had a product of its
# own, and their predictions; prints the bits of what the models keep and predict
FITS = """
import hashlib, json, warnings
import numpy as np
from svmbench.algorithms import build_estimator
warnings.simplefilter("ignore")
rng = np.random.default_rng(11)
X = rng.normal(size=(500, 5))
y = np.where(X[:, 0] + 0.7 * rng.normal(size=500) > 0, 1.0, -1.0)
bits = {}
for name in ("hm_svm", "rho_svm", "fw"):
    model = build_estimator({"name": name, "kernel": "rbf"}).fit(X, y)
    kept = [model.dual_coef_, model.intercept_, model.support_, model.decision_function(X)]
    joined = b"".join(np.ascontiguousarray(array).tobytes() for array in kept)
    bits[name] = hashlib.sha256(joined).hexdigest()
print(json.dumps(bits))
"""


def fits_compiled_for(cpu_name=None, cache=None):
    """FITS in a fresh process, compiled for numba's ``cpu_name`` (None: this CPU) into the
    cache directory ``cache`` (None: the usual one); for "generic" with OpenBLAS's kernels for
    an old CPU too (OPENBLAS_CORETYPE, as a machine without AVX would take them)."""
    env = {name: value for name, value in os.environ.items()
           if name not in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "OPENBLAS_CORETYPE")}
    if cpu_name:
        env["NUMBA_CPU_NAME"] = cpu_name
        env["OPENBLAS_CORETYPE"] = "Prescott"
    if cache:
        env["NUMBA_CACHE_DIR"] = str(cache)
    done = subprocess.run([sys.executable, "-c", FITS], capture_output=True, text=True, env=env,
                          check=True, cwd=PACKAGE.parent)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_fits_and_predictions_are_the_same_bits_compiled_for_this_cpu_and_a_generic_one(
        tmp_path):
    assert fits_compiled_for() == fits_compiled_for("generic", tmp_path)
