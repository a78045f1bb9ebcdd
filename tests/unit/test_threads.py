"""numba's thread policy (a brief spin, then sleep, unless the user chose) and what a record carries."""

import os
import subprocess
import sys

import pytest

from svmbench.kernels.threads import threading_info

POLICY = ("OMP_WAIT_POLICY", "KMP_BLOCKTIME", "GOMP_SPINCOUNT")


@pytest.mark.parametrize("user_setting, expected", [
    ({}, ["PASSIVE", "0", "3000"]),
    ({"OMP_WAIT_POLICY": "ACTIVE"}, ["ACTIVE", "0", "3000"]),
    ({"GOMP_SPINCOUNT": "0"}, ["PASSIVE", "0", "0"]),
])
def test_importing_the_kernels_sets_a_brief_spin_wait_policy_unless_the_user_chose(user_setting,
                                                                                  expected):
    code = f"import os, svmbench.kernels; print(*(os.environ[name] for name in {POLICY!r}))"
    env = {k: v for k, v in os.environ.items() if k not in POLICY}
    env.update(user_setting)
    output = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                            check=True).stdout.split()
    assert output == expected


def test_threading_info_names_the_layer_and_the_thread_count():
    info = threading_info()
    assert info["numba_threads"] >= 1
    assert info["threading_layer"] in ("tbb", "omp", "workqueue")
    assert set(info) == {"numba_threads", "threading_layer", "omp_wait_policy", "kmp_blocktime",
                         "gomp_spincount", "blas_threads", "blas_core"}


def test_limit_threads_bounds_numba_and_the_blas():
    code = ("import numpy, numba; from svmbench.kernels.threads import limit_threads, "
            "threading_info; limit_threads(1); info = threading_info(); "
            "print(info['numba_threads'], info['blas_threads'])")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.split()
    assert output == ["1", "1"]
