"""Sweeps under Hydra's launchers write the same records as the basic launcher; a cold numba
cache is compiled once in the parent, before the workers start; progress counts every cell."""

import os
import subprocess
import sys

import pytest
from omegaconf import OmegaConf

from svmbench.callbacks import sweep_jobs, swept_algorithms
from svmbench.store import ResultStore

SWEEP = ["dataset=iris,breast_cancer", "algorithm=gs_svm,libsvm", "protocol.k=2", "folds=[0,1]"]


def sweep(folder, *launcher, numba_cache=None):
    """Run the tiny sweep with ``launcher`` overrides; {(config_hash, fold): (status, test_error)}."""
    env = {**os.environ, "SVMBENCH_DOWNLOAD": "0"}
    if numba_cache:
        env["NUMBA_CACHE_DIR"] = str(numba_cache)
    subprocess.run([sys.executable, "-m", "svmbench.runner", "-m", *SWEEP, *launcher,
                    f"store.dir={folder / 'store'}", f"hydra.sweep.dir={folder / 'multirun'}"],
                   check=True, capture_output=True, env=env)
    return {(r["config_hash"], r["fold"]): (r["status"], r["test_error"])
            for r in ResultStore(folder / "store").records()}


@pytest.fixture(scope="module")
def basic(tmp_path_factory):
    folder = tmp_path_factory.mktemp("basic")
    return folder, sweep(folder)


def test_basic_launcher_writes_every_record_and_a_progress_marker_per_cell(basic):
    folder, records = basic
    assert len(records) == 8 and {status for status, _ in records.values()} == {"converged"}
    assert sorted(p.name for p in (folder / "multirun" / ".progress").iterdir()) == \
        ["0", "1", "2", "3"]


def test_joblib_on_a_cold_numba_cache_matches_basic_and_compiles_only_in_the_parent(
        basic, tmp_path):
    cache = tmp_path / "numba-cache"
    records = sweep(tmp_path, "hydra/launcher=joblib", "hydra.launcher.n_jobs=2",
                    numba_cache=cache)
    assert records == basic[1]
    compiled = [p.stat().st_mtime for p in cache.rglob("*") if p.suffix in (".nbi", ".nbc")]
    jobs_started = [p.stat().st_mtime for p in (tmp_path / "multirun").glob("*/.hydra/config.yaml")]
    assert compiled and len(jobs_started) == 4
    assert max(compiled) <= min(jobs_started)  # workers only loaded what the parent compiled


def test_submitit_local_matches_basic(basic, tmp_path):
    assert sweep(tmp_path, "hydra/launcher=submitit_local") == basic[1]


def sweep_config(task, params=None):
    return OmegaConf.create({"algorithm": {"name": "gs_svm"},
                             "hydra": {"overrides": {"task": task}, "sweeper": {"params": params}}})


def test_sweep_size_and_algorithms_come_from_the_command_line_and_sweeper_params():
    config = sweep_config(["algorithm=libsvm,gs_svm", "dataset=iris"],
                          {"seed": "0,1,2", "dataset": "wine,digits"})  # the command line wins
    assert len(sweep_jobs(config)) == 6
    assert swept_algorithms(config) == ["gs_svm", "libsvm"]
    assert swept_algorithms(sweep_config(["dataset=iris,wine"])) == ["gs_svm"]
