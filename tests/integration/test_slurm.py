"""Sweeps as real SLURM array jobs on a one-node cluster started for this module
(tests/integration/slurm/cluster.py): the records equal the basic launcher's and name their job; a sweep with
cancelled jobs returns, names the cells and exits 1, and its re-submission trains only what is
missing; a job killed by its time limit leaves a claim the next sweep takes over; two sweeps at
once on one store train each cell once. "Trained" is counted from the runner's log line of each
finished training (``fold <k>: <status> ... (cell <hash>)``), in every job's log of every sweep.

Needs root and Debian's slurm-wlm and munge: skipped (saying why) elsewhere, required under CI.
"""

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from slurm.cluster import SlurmCluster, unavailable

from svmbench import runner
from svmbench.store import FINISHED, ResultStore

REPO = Path(__file__).resolve().parents[2]
ARTEFACT = ["+experiment=gs2008_table2", "scale=quick"]   # 6 cells, a1a and w1a, one fold each
CELLS = 6
ONE_CELL = ["dataset=w1a", "algorithm=smo_wss2", "protocol=holdout"]
SLURM = ["hydra/launcher=svmbench_slurm"]
# what differs between two runs of one sweep: times, when and where it ran, the SLURM job
VOLATILE = {*runner.CLOCKS, "host", "slurm_job_id", "slurm_array_task_id"}
TRAINED = re.compile(r"\] - .* fold (\d+): .* \(cell (\w+)\)$", re.MULTILINE)
SUBMITTED = re.compile(r"submitted SLURM array job (\d+) \((\d+) tasks\)")
TALLY = Counter()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, request):
    reason = unavailable()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the SLURM tests, but SLURM cannot start: {reason}")
        pytest.skip(f"no SLURM cluster on this machine: {reason}")
    cluster = SlurmCluster(tmp_path_factory.mktemp("slurm"))
    try:
        yield cluster.up()
        states = Counter(cluster.jobs().values())
        capture = request.config.pluginmanager.get_plugin("capturemanager")
        with capture.global_and_fixture_disabled():  # shown when the tests pass, too
            print(
                f"\nSLURM tests: {TALLY['sweeps']} sweeps submitted {TALLY['submitted']} array tasks "
                f"(controller's final states: {dict(states)}); cancelled by scancel "
                f"{TALLY['cancelled']}, stopped by the time limit {TALLY['timed_out']}; re-submitted "
                f"sweeps {TALLY['resubmitted']} trained {TALLY['resumed']} missing cell(s); "
                f"cells trained twice: {TALLY['twice']}")
    finally:
        cluster.down()


def command(folder, *overrides, sweep="multirun"):
    return [sys.executable, "-m", "svmbench.runner", "-m", *overrides,
            f"store.dir={folder / 'store'}", f"hydra.sweep.dir={folder / sweep}"]


def start(cluster, folder, *overrides, sweep="multirun"):
    """Start a sweep in the background; its output goes to ``<folder>/<sweep>.out``."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{sweep}.out", "wb") as out:
        return subprocess.Popen(command(folder, *overrides, sweep=sweep), cwd=REPO,
                                stdout=out, stderr=subprocess.STDOUT, env=cluster.env)


def finish(process, folder, sweep="multirun", timeout=300):
    """Wait for a sweep started by :func:`start`; (exit code, its output); tallies its jobs."""
    process.wait(timeout=timeout)
    output = (folder / f"{sweep}.out").read_text()
    for _, tasks in SUBMITTED.findall(output):
        TALLY["sweeps"] += 1
        TALLY["submitted"] += int(tasks)
    return process.returncode, output


def run(cluster, folder, *overrides, sweep="multirun"):
    return finish(start(cluster, folder, *overrides, sweep=sweep), folder, sweep)


def trainings(folder):
    """Counter of (config hash, fold) over every finished training logged by any job of any sweep
    in ``folder``; tallies the ones trained more than once."""
    counts = Counter((cell, int(fold)) for log in folder.glob("*/*/runner.log")
                     for fold, cell in TRAINED.findall(log.read_text()))
    TALLY["twice"] += sum(1 for n in counts.values() if n > 1)
    return counts


def comparable(store):
    return {(r["config_hash"], r["fold"]): {k: v for k, v in r.items() if k not in VOLATILE}
            for r in ResultStore(store).records()}


def array_states(cluster, output):
    """{array task id: state} of the sweep whose output is ``output``."""
    array = SUBMITTED.search(output).group(1)
    return {job: state for job, state in cluster.jobs().items() if job.startswith(f"{array}_")}


def wait_until(condition, what, timeout=240):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def basic(tmp_path_factory, cluster):
    folder = tmp_path_factory.mktemp("basic")
    subprocess.run(command(folder, *ARTEFACT), cwd=REPO, check=True, capture_output=True)
    records = comparable(folder / "store")
    assert len(records) == CELLS
    return records


@pytest.mark.filterwarnings("error")  # its own name: no schema matched to another's by name
def test_svmbench_slurm_is_svmbench_launcher_over_submitit_settings():
    from hydra.utils import get_class

    from svmbench.sweep import experiment_config

    launcher = experiment_config("gs2008_table2", "quick", SLURM).hydra.launcher
    assert launcher._target_ == "hydra_plugins.svmbench_launchers.slurm_launcher.SlurmLauncher"
    assert "wait_for_end" in vars(sys.modules[get_class(launcher._target_).__module__])
    assert launcher.array_parallelism == 256 and launcher.timeout_min == 60  # the plugin's


def test_array_jobs_store_the_basic_launchers_records_each_naming_its_job(
        cluster, basic, tmp_path):
    status, output = run(cluster, tmp_path, *ARTEFACT, *SLURM)
    assert status == 0, output[-3000:]
    assert comparable(tmp_path / "store") == basic
    array = SUBMITTED.search(output).group(1)
    jobs = sorted((r["slurm_job_id"], r["slurm_array_task_id"])
                  for r in ResultStore(tmp_path / "store").records())
    assert jobs == [(array, task) for task in range(CELLS)]
    # a task's result is read as soon as it is written; the controller marks the task COMPLETED
    # a moment later, once its batch script has exited
    wait_until(lambda: not {"RUNNING", "COMPLETING"} & set(array_states(cluster, output).values()),
               "the controller to mark every task ended")
    assert set(array_states(cluster, output).values()) == {"COMPLETED"}
    assert set(trainings(tmp_path).values()) == {1}


def test_cancelled_jobs_are_named_and_their_resubmission_trains_only_the_missing(
        cluster, basic, tmp_path):
    sweep = [*ARTEFACT, *SLURM, "hydra.launcher.array_parallelism=1"]
    process = start(cluster, tmp_path, *sweep, sweep="first")
    output = tmp_path / "first.out"

    def running_after_the_first():  # task 0 has ended: a record exists, the sweep is midway
        states = array_states(cluster, output.read_text()) \
            if SUBMITTED.search(output.read_text()) else {}
        return any(state == "RUNNING" and not job.endswith("_0") for job, state in states.items())

    wait_until(running_after_the_first, "the second task to run")
    states = array_states(cluster, output.read_text())
    running = [job for job, state in states.items() if state == "RUNNING"]
    pending = sorted((job for job, state in states.items() if state == "PENDING"),
                     key=lambda job: int(job.split("_")[1]))
    cancel = running + pending[-1:]
    assert len(cancel) == 2, states
    subprocess.run(["scancel", *cancel], env=cluster.env, check=True)
    TALLY["cancelled"] += len(cancel)
    status, first = finish(process, tmp_path, "first")
    assert status == 1, first[-3000:]
    assert f"SLURM job {cancel[0]} ended CANCELLED" in first  # it was running
    assert f"SLURM job {cancel[1]} is no longer listed by squeue (cancelled while pending" in first
    assert first.count("re-run: svmbench +experiment=gs2008_table2 scale=quick") == len(cancel)
    stored = comparable(tmp_path / "store")
    assert all(record["status"] in FINISHED for record in stored.values())
    assert not (tmp_path / "store" / "quarantine").exists()

    status, second = run(cluster, tmp_path, *sweep, sweep="second")
    assert status == 0, second[-3000:]
    TALLY["resubmitted"] += 1
    counts = trainings(tmp_path)
    resumed = {key for key in counts if key not in stored}
    TALLY["resumed"] += len(resumed)
    assert 1 <= len(resumed) <= len(cancel)
    assert set(counts.values()) == {1}  # none trained twice
    assert comparable(tmp_path / "store") == basic  # none lost, none corrupt


def keep_stopped(pid, done):
    """SIGSTOP ``pid`` and again whenever it runs (slurmstepd sends a stopped task SIGCONT) until
    ``done`` is set or it is gone."""
    while not done.is_set():
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            if state not in "TZX":
                os.kill(pid, signal.SIGSTOP)
        except (OSError, IndexError):
            return
        time.sleep(0.02)


def test_a_job_killed_by_its_time_limit_leaves_a_claim_the_next_sweep_takes_over(
        cluster, tmp_path):
    """The job's training is kept stopped (SIGSTOP) from when it holds the cell's claim: it hangs,
    without using a core, until SLURM kills it at its 1-minute limit (60-90 s: the controller
    checks limits every 30 s)."""
    # submitit asks SLURM for USR2 signal_delay_s before the limit (default 120 s: at once here)
    sweep = [*ONE_CELL, *SLURM, "hydra.launcher.timeout_min=1", "hydra.launcher.signal_delay_s=10"]
    process = start(cluster, tmp_path, *sweep, sweep="first")

    def claims():
        return [path for path in (tmp_path / "store").glob("*/.claim") if path.read_text()]

    wait_until(lambda: claims() or process.poll() is not None, "the cell's claim")
    assert claims(), (tmp_path / "first.out").read_text()[-3000:]
    claim = claims()[0]
    holder = json.loads(claim.read_text())
    done = threading.Event()
    stopper = threading.Thread(target=keep_stopped, args=(holder["pid"], done))
    stopper.start()
    try:
        status, first = finish(process, tmp_path, "first")
    finally:
        done.set()
        stopper.join()
    assert status == 1, first[-3000:]
    TALLY["timed_out"] += 1
    assert re.search(r"SLURM job \d+(_0)? ended TIMEOUT", first), first[-3000:]
    assert "re-run: svmbench dataset=w1a algorithm=smo_wss2 protocol=holdout" in first
    assert json.loads(claim.read_text()) == holder  # the killed job's claim is left behind
    assert not list((tmp_path / "store").glob("*/fold-*.json"))

    status, second = run(cluster, tmp_path, *sweep, sweep="second")
    assert status == 0, second[-3000:]
    TALLY["resubmitted"] += 1
    log = "\n".join(p.read_text() for p in (tmp_path / "second").glob("*/runner.log"))
    assert f"taking over the stale claim {claim}" in log
    TALLY["resumed"] += 1
    assert [r["status"] for r in ResultStore(tmp_path / "store").records()] == ["converged"]
    assert list(trainings(tmp_path).values()) == [1]


def test_two_sweeps_at_once_on_one_store_train_each_cell_once(cluster, basic, tmp_path):
    processes = [start(cluster, tmp_path, *ARTEFACT, *SLURM, sweep=name)
                 for name in ("one", "two")]
    for process, name in zip(processes, ("one", "two")):
        status, output = finish(process, tmp_path, name)
        assert status == 0, output[-3000:]
    counts = trainings(tmp_path)
    assert len(counts) == CELLS and set(counts.values()) == {1}
    assert comparable(tmp_path / "store") == basic


def test_waiting_ends_for_results_and_for_jobs_squeue_says_ended_or_no_longer_lists(
        monkeypatch, tmp_path):
    """No SLURM needed: squeue's answers are given; each job's result file may exist."""
    from types import SimpleNamespace

    from hydra_plugins.svmbench_launchers import slurm_launcher

    answers = iter([{"5_0": "RUNNING", "5_1": "CANCELLED", "5_2": "TIMEOUT", "5_3": "RUNNING",
                     "5_4": "COMPLETED"}, None, {"5_0": "RUNNING", "5_4": "COMPLETED"}])
    monkeypatch.setattr(slurm_launcher, "squeue_states", lambda job_ids: next(answers, {}))
    monkeypatch.setattr(slurm_launcher, "SCHEDULER_SECONDS", 0.0)
    monkeypatch.setattr(slurm_launcher, "RESULT_SECONDS", 0.01)
    monkeypatch.setattr(slurm_launcher, "RESULT_GRACE_SECONDS", 0.2)
    jobs = [SimpleNamespace(job_id=f"5_{task}",
                            paths=SimpleNamespace(result_pickle=tmp_path / f"{task}.pkl"))
            for task in range(5)]
    jobs[0].paths.result_pickle.touch()  # finished with its result while squeue says RUNNING
    started = time.monotonic()
    ended = slurm_launcher.wait_for_end(jobs)
    # 5_3 vanished from squeue (cancelled while pending); 5_4 COMPLETED but its result never came
    assert ended == {"5_1": "CANCELLED", "5_2": "TIMEOUT", "5_3": slurm_launcher.GONE,
                     "5_4": "COMPLETED"}
    assert time.monotonic() - started >= 0.2  # the COMPLETED one had its grace
