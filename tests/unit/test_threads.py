"""numba's thread policy (a brief spin, then sleep, unless the user chose), what a record carries,
and the governor that holds a fit's parallel passes to one thread beside busy processes."""

import math
import os
import subprocess
import sys
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from svmbench.kernels import threads
from svmbench.kernels.threads import (
    NOW,
    FitThreads,
    cpu_seconds_used,
    machine_busy,
    others_busy,
    threading_info,
    threads_for,
)

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


@given(st.floats(0.0, 64.0), st.integers(1, 64), st.integers(2, 64))
def test_a_fit_keeps_all_its_threads_only_when_each_finds_a_free_core(busy_elsewhere, cores,
                                                                       most):
    """All threads when the cores left by others, rounded to the nearest, are at least as many
    as the threads; else one."""
    free = math.floor(cores - busy_elsewhere + 0.5)
    assert threads_for(busy_elsewhere, cores, most) == (most if free >= most else 1)


@given(st.floats(0.0, 1e6), st.floats(0.0, 1e6), st.floats(1e-3, 1e3))
def test_the_cores_others_kept_busy_are_the_machines_less_this_process(machine, own, elapsed):
    assert others_busy(machine, own, elapsed) == pytest.approx(max(0.0, machine - own) / elapsed)


@given(st.lists(st.integers(0, 10**9), min_size=10, max_size=10), st.integers(0, 500))
def test_the_machine_busy_seconds_are_every_column_but_idle_and_iowait(columns, running):
    """proc(5)'s cpu line: user nice system idle iowait irq softirq steal guest guest_nice (guest
    time is in user already)."""
    user, nice, system, _, _, irq, softirq, steal, _, _ = columns
    stat = (f"cpu  {' '.join(map(str, columns))}\ncpu0 {' '.join(map(str, columns))}\n"
            f"intr 1 2\nctxt 3\nprocs_running {running}\nprocs_blocked 0\n")
    busy = (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    assert machine_busy(stat) == (pytest.approx(busy), running)


@pytest.mark.skipif(cpu_seconds_used() is None, reason="needs /proc/stat")
def test_the_machine_busy_seconds_count_this_process():
    """/proc/stat's busy seconds grow at least by this process's CPU seconds (up to two ticks
    of each core) while it spins."""
    machine, running = cpu_seconds_used()
    own = time.process_time()
    while time.process_time() - own < 0.3:
        pass
    assert running >= 1
    tick = 2 * os.cpu_count() / os.sysconf("SC_CLK_TCK")
    assert cpu_seconds_used()[0] - machine >= time.process_time() - own - tick


def wait_for(fit_threads, count, seconds=5.0):
    start = time.perf_counter()
    while fit_threads.array[NOW] != count and time.perf_counter() - start < seconds:
        time.sleep(0.001)
    return fit_threads.array[NOW]


@pytest.mark.parametrize("loads, most, expected", [
    ([0.0], 2, 2), ([1.0], 2, 1), ([0.4], 2, 2), ([0.7], 2, 1), ([1.4], 4, 1), ([0.3], 4, 4)])
def test_the_governor_follows_the_cores_others_keep_busy(monkeypatch, fake_machine, loads, most,
                                                         expected):
    """A sampler over a machine whose other processes keep ``loads`` cores busy sets the fit's
    threads to threads_for's answer on this machine's cores (the test stands for 2 or 4)."""
    monkeypatch.setattr(threads, "cpu_seconds_used", fake_machine(loads))
    monkeypatch.setattr(threads, "GOVERNOR_PERIOD_S", 0.01)
    monkeypatch.setattr(os, "cpu_count", lambda: most)
    fit_threads = FitThreads(most)
    fit_threads.array[NOW] = 0
    try:
        assert wait_for(fit_threads, expected) == expected
    finally:
        fit_threads.close()


def test_the_governor_gives_the_threads_back_when_the_neighbour_stops(monkeypatch, fake_machine):
    machine = fake_machine([1.0])
    monkeypatch.setattr(threads, "cpu_seconds_used", machine)
    monkeypatch.setattr(threads, "GOVERNOR_PERIOD_S", 0.01)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    fit_threads = FitThreads(2)
    try:
        assert wait_for(fit_threads, 1) == 1
        machine.loads = [0.0]
        assert wait_for(fit_threads, 2) == 2
    finally:
        fit_threads.close()


def test_one_thread_or_the_governor_off_runs_no_sampler(monkeypatch):
    assert FitThreads(1)._sampler is None
    monkeypatch.setattr(threads, "ADAPT_THREADS", False)
    fit_threads = FitThreads(2)
    assert fit_threads._sampler is None and fit_threads.array[NOW] == 2
    assert fit_threads.counts([3, 4]) == {"1": 3, "2": 4}
    assert FitThreads(1).counts([5, 0]) == {"1": 5}
