"""numba's thread policy: passive waiting unless the user chose, and what a record should carry."""

import os
import subprocess
import sys

import pytest

from svmbench.kernels.threads import threading_info


@pytest.mark.parametrize("user_policy, expected", [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_importing_the_kernels_sets_a_passive_wait_policy_unless_the_user_chose(user_policy,
                                                                                expected):
    code = ("import os, svmbench.kernels; "
            "print(os.environ['OMP_WAIT_POLICY'], os.environ['KMP_BLOCKTIME'])")
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "KMP_BLOCKTIME")}
    if user_policy:
        env["OMP_WAIT_POLICY"] = user_policy
    output = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                            check=True).stdout.split()
    assert output == [expected, "0"]


def test_threading_info_names_the_layer_and_the_thread_count():
    info = threading_info()
    assert info["numba_threads"] >= 1
    assert info["threading_layer"] in ("tbb", "omp", "workqueue")
    assert set(info) == {"numba_threads", "threading_layer", "omp_wait_policy", "kmp_blocktime",
                         "blas_threads"}


def test_limit_threads_bounds_numba_and_the_blas():
    code = ("import numpy, numba; from svmbench.kernels.threads import limit_threads, "
            "threading_info; limit_threads(1); info = threading_info(); "
            "print(info['numba_threads'], info['blas_threads'])")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.split()
    assert output == ["1", "1"]
