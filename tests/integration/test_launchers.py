"""Sweeps under Hydra's launchers write the same records as the basic launcher; a cold numba
cache is compiled once in the parent, before the workers start; progress counts every cell; a
multirun killed hard (SIGKILL) resumes where it stopped."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from svmbench import runner
from svmbench.store import ResultStore, load_results

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


# A killed multirun: 4 datasets x 2 algorithms x `seeds` seeds, 3 folds each (48 records for 2
# seeds, ~5 s of training after ~9 s of start-up on a 2-core machine).
RESUME_SWEEP = ["dataset=iris,wine,breast_cancer,digits", "algorithm=gs_svm,libsvm", "protocol.k=3"]
RESUME_CELLS, RESUME_K = 4 * 2, 3
JOBLIB = ["hydra/launcher=joblib", "hydra.launcher.n_jobs=2"]
# what legitimately differs between two runs of the same sweep: times and when/where it ran
VOLATILE = {*runner.CLOCKS, "host"}
COMPUTED_FOLD = re.compile(r"\] - \S+ \S+ fold \d+: ")  # the runner logs each fold it trains


def resume_command(folder, seeds, launcher):
    return [sys.executable, "-m", "svmbench.runner", "-m", *RESUME_SWEEP,
            "seed=" + ",".join(str(seed) for seed in range(seeds)), *launcher,
            f"store.dir={folder / 'store'}", f"hydra.sweep.dir={folder / 'multirun'}"]


def resume_env():
    return {**os.environ, "SVMBENCH_DOWNLOAD": "0"}


def cell_counts(store):
    """{cell folder: number of records in it}; temporary files are not records."""
    if not store.is_dir():
        return {}
    return {cell.name: sum(1 for _ in cell.glob("fold-*.json")) for cell in store.iterdir()
            if cell.is_dir()}


def store_files(store):
    """Every file of the store (temporaries too, not the cells' claims, which a killed sweep
    leaves and the re-run takes over) -> (inode, mtime, content): any rewrite shows."""
    return {path.relative_to(store): (path.stat().st_ino, path.stat().st_mtime_ns,
                                      path.read_bytes())
            for path in store.rglob("*") if path.is_file() and path.name != ".claim"}


def comparable(store, ignore=()):
    """{(config_hash, fold): record without its volatile fields}."""
    return {(r["config_hash"], r["fold"]): {k: v for k, v in r.items()
                                            if k not in VOLATILE and k not in ignore}
            for r in ResultStore(store).records()}


def group_alive(pgid):
    """Whether a live (not zombie) process of process group ``pgid`` is left (Linux /proc)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, _, group = stat.read_text().rsplit(")", 1)[1].split()[:3]
        except (OSError, IndexError):
            continue
        if int(group) == pgid and state != "Z":
            return True
    return False


def kill_midway(folder, seeds, launcher, timeout=300):
    """Start the sweep in its own process group and SIGKILL the whole group once half the records
    exist and a cell is part-done. False when the sweep finished before that could happen."""
    total = RESUME_CELLS * seeds * RESUME_K
    folder.mkdir(parents=True)
    with open(folder / "killed.log", "wb") as log:
        process = subprocess.Popen(resume_command(folder, seeds, launcher), stdout=log,
                                   stderr=subprocess.STDOUT, env=resume_env(),
                                   start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while process.poll() is None:
            counts = cell_counts(folder / "store")
            if (sum(counts.values()) >= total // 2
                    and any(0 < n < RESUME_K for n in counts.values())):
                break
            assert time.monotonic() < deadline, (folder / "killed.log").read_text()[-3000:]
            time.sleep(0.02)
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # the runner and every launcher worker at once
        except ProcessLookupError:
            pass
        process.wait()
    deadline = time.monotonic() + 30
    while group_alive(process.pid):  # no worker of the killed sweep may write on
        assert time.monotonic() < deadline, "processes of the killed sweep survived SIGKILL"
        time.sleep(0.05)
    counts = cell_counts(folder / "store")
    return (process.returncode == -signal.SIGKILL and sum(counts.values()) < total
            and any(0 < n < RESUME_K for n in counts.values()))


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """The records of an uninterrupted run (basic launcher) of the resume sweep, by seed count."""
    runs = {}

    def records(seeds):
        if seeds not in runs:
            folder = tmp_path_factory.mktemp(f"uninterrupted-{seeds}")
            subprocess.run(resume_command(folder, seeds, []), check=True, capture_output=True,
                           env=resume_env())
            runs[seeds] = comparable(folder / "store")
        return runs[seeds]

    return records


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("launcher", [[], JOBLIB], ids=["basic", "joblib"])
def test_a_multirun_killed_hard_resumes_where_it_stopped(launcher, uninterrupted, tmp_path):
    for seeds in (2, 4, 8):  # a machine fast enough to finish first gets a bigger sweep
        folder = tmp_path / f"seeds-{seeds}"
        if kill_midway(folder, seeds, launcher):
            break
    else:
        pytest.fail("the sweep always finished before it could be killed mid-way")
    store, total = folder / "store", RESUME_CELLS * seeds * RESUME_K

    # nothing corrupt: every record file parses and is finished; temporaries are not records
    stored = list(ResultStore(store).records())
    assert 0 < len(stored) == sum(cell_counts(store).values()) < total
    assert {r["status"] for r in stored} == {"converged"}
    # a writer killed inside json.dump leaves a half-written temporary (too short a window to hit
    # by chance, so plant one in a part-done cell): the re-run and readers must ignore it
    part_done = next(cell for cell, n in cell_counts(store).items() if 0 < n < RESUME_K)
    (store / part_done / ".tmp-killedwriter.json").write_text('{"config_hash": "')
    before = store_files(store)

    rerun = subprocess.run(resume_command(folder, seeds, launcher), check=False, text=True,
                           capture_output=True, env=resume_env())
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    trained = len(COMPUTED_FOLD.findall(rerun.stdout + rerun.stderr))
    assert trained == total - len(stored), "the re-run trained folds that were already stored"
    after = store_files(store)
    assert {path: after.get(path) for path in before} == before  # nothing rewritten or removed
    assert sorted(cell_counts(store).values()) == [RESUME_K] * RESUME_CELLS * seeds
    assert len(load_results(store)) == total

    # the same records as an uninterrupted run, bit for bit; under joblib, loky caps each
    # worker's numba and BLAS threads, so `threads` and `blas_threads` differ from the basic
    # launcher's (but are the same for every record), and no other field with them (the
    # referee's sums are computed in a fixed order at any thread count: docs/DESIGN.md)
    ignore = ("threads", "blas_threads") if launcher else ()
    resumed = comparable(store, ignore)
    assert resumed == {key: {k: v for k, v in record.items() if k not in ignore}
                       for key, record in uninterrupted(seeds).items()}
    if launcher:
        assert len({r["threads"] for r in ResultStore(store).records()}) == 1


# what may differ between two runs of the same cells: clocks, the sweep, the process
RUN_SPECIFIC = {*runner.CLOCKS, "pid", "host"}


def artefact_records(folder, *launcher):
    """Records of gs2008 Table II at quick scale (a1a, w1a: the given splits) run with
    ``launcher`` overrides, keyed by (config_hash, fold), run-specific fields left out."""
    env = {**os.environ, "SVMBENCH_DOWNLOAD": "0"}
    subprocess.run([sys.executable, "-m", "svmbench.runner", "-m", "+experiment=gs2008_table2",
                    "scale=quick", *launcher, f"store.dir={folder / 'store'}",
                    f"hydra.sweep.dir={folder / 'multirun'}"],
                   check=True, capture_output=True, env=env)
    return {(r["config_hash"], r["fold"]): {k: v for k, v in r.items() if k not in RUN_SPECIFIC}
            for r in ResultStore(folder / "store").records()}


@pytest.mark.data
def test_an_artefact_under_submitit_local_stores_the_records_of_the_make_target(tmp_path):
    from svmbench.data.fetch import find_local
    from svmbench.data.registry import REGISTRY

    if not all(find_local(REGISTRY[key].train) for key in ("a1a", "w1a")):
        pytest.skip("a1a / w1a not in SVMBENCH_DATA_PATH (point it at shared/data)")
    basic = artefact_records(tmp_path / "basic")  # what `make gs2008-table2 SCALE=quick` runs
    submitit = artefact_records(tmp_path / "submitit", "hydra/launcher=submitit_local")
    assert len(basic) == 6 and {r["status"] for r in basic.values()} == {"converged"}
    assert submitit == basic
