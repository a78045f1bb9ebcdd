"""The store: corrupt records set aside and re-run, reuse only from the same solver code, cell
claims so two sweeps never train a cell twice, an unwritable store refused before training, one
ERROR per failed cell."""

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from svmbench import provenance, runner
from svmbench import store as store_module
from svmbench.conf import CONF_DIR
from svmbench.configs import cell_config
from svmbench.runner import run_cell
from svmbench.store import QUARANTINE, SUPERSEDED, ResultStore, StoreError


def config(store, *overrides):
    runner.register_configs()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        return compose("config", ["dataset=iris", "algorithm=gs_svm", "protocol.k=3",
                                  f"store.dir={store}", *overrides])


def test_a_corrupt_record_is_quarantined_and_its_fold_runs_again(tmp_path, caplog):
    first = run_cell(config(tmp_path))
    chash = first[0]["config_hash"]
    broken = ResultStore(tmp_path).path(chash, 1)
    broken.write_text('{"config_hash": "')  # e.g. a disk filled up mid-write by another tool
    with caplog.at_level(logging.WARNING):
        again = run_cell(config(tmp_path))
    assert [r["fold"] for r in again] == [1] and again[0]["status"] == "converged"
    assert (tmp_path / QUARANTINE / chash / "fold-1.json").read_text() == '{"config_hash": "'
    assert str(broken) in caplog.text and "corrupt record" in caplog.text
    assert len(list(ResultStore(tmp_path).records())) == 3


def test_a_record_of_other_solver_code_is_not_reused_unless_asked(tmp_path, monkeypatch):
    assert len(run_cell(config(tmp_path))) == 3
    assert run_cell(config(tmp_path)) == []  # same code: every record reused
    monkeypatch.setattr(runner, "code_fingerprint", lambda: "changed-solver")
    assert run_cell(config(tmp_path, "store.reuse=any")) == []  # explicit override: reused
    retrained = run_cell(config(tmp_path))
    assert len(retrained) == 3 and {r["code_fingerprint"] for r in retrained} == {"changed-solver"}
    assert len(list((tmp_path / SUPERSEDED).rglob("fold-*.json"))) == 3  # old ones set aside
    assert {r["code_fingerprint"] for r in ResultStore(tmp_path).records()} == {"changed-solver"}


def test_reuse_none_re_runs_every_cell_and_sets_the_old_records_aside(tmp_path):
    first = run_cell(config(tmp_path))
    assert run_cell(config(tmp_path)) == []  # the default policy reuses them
    again = run_cell(config(tmp_path, "store.reuse=none"))  # same code, trained again
    assert sorted(r["fold"] for r in again) == [0, 1, 2]
    assert len(list((tmp_path / SUPERSEDED).rglob("fold-*.json"))) == 3  # nothing deleted
    stored = {r["fold"]: r["timestamp_utc"] for r in ResultStore(tmp_path).records()}
    assert stored == {r["fold"]: r["timestamp_utc"] for r in again}
    assert stored != {r["fold"]: r["timestamp_utc"] for r in first}


def test_reuse_commit_keeps_only_records_of_the_running_clean_commit(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "git_state", lambda: ("c0ffee", False))
    store = ResultStore(tmp_path, reuse="commit")
    finished = {"status": "converged", "code_fingerprint": "f", "git_commit": "c0ffee",
                "git_dirty": False}
    assert store.reusable(finished, "f")
    assert not store.reusable({**finished, "git_commit": "beef"}, "f")  # another commit
    assert not store.reusable({**finished, "git_dirty": True}, "f")  # a dirty tree's
    assert not store.reusable({**finished, "git_dirty": None}, "f")  # no git checkout
    assert not store.reusable({**finished, "code_fingerprint": "g"}, "f")
    assert not store.reusable({**finished, "status": "failed: stalled"}, "f")
    monkeypatch.setattr(store_module, "git_state", lambda: ("c0ffee", True))
    with pytest.raises(StoreError, match="uncommitted changes"):
        ResultStore(tmp_path, reuse="commit")


def test_a_record_run_resumes_with_the_commit_policy_and_re_runs_another_commits_cells(
        tmp_path, monkeypatch):
    def at_commit(commit):
        for module in (store_module, provenance):
            monkeypatch.setattr(module, "git_state", lambda: (commit, False))
        provenance.static_provenance.cache_clear()  # it holds the commit for the process

    at_commit("c0ffee")
    first = run_cell(config(tmp_path, "store.reuse=commit"))
    assert len(first) == 3 and {r["git_commit"] for r in first} == {"c0ffee"}
    assert run_cell(config(tmp_path, "store.reuse=commit")) == []  # resumed: nothing to train
    at_commit("d00d")  # same solver code, another commit: its records are not this run's
    again = run_cell(config(tmp_path, "store.reuse=commit"))
    assert len(again) == 3 and {r["git_commit"] for r in again} == {"d00d"}
    provenance.static_provenance.cache_clear()


def test_a_cell_claimed_by_a_live_process_is_not_trained_and_a_stale_claim_is_taken_over(
        tmp_path):
    cfg = config(tmp_path)
    chash = runner.config_hash(cell_config(cfg))
    claim_file = tmp_path / chash / ".claim"
    claim_file.parent.mkdir(parents=True)
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        claim_file.write_text(json.dumps({"pid": holder.pid, "host": os.uname().nodename,
                                          "time": time.time()}))
        assert run_cell(cfg) == []
    finally:
        holder.kill()
        holder.wait()
    assert len(run_cell(cfg)) == 3  # its process is gone: the claim is stale
    assert not claim_file.exists()


def test_an_unwritable_store_fails_before_any_training(tmp_path, monkeypatch):
    (tmp_path / "store").write_text("a file, not a folder")
    monkeypatch.setattr(runner, "splits", lambda *a, **k: pytest.fail("trained anyway"))
    with pytest.raises(StoreError, match="store.dir=.*not writable"):
        run_cell(config(tmp_path / "store"))


def test_a_failing_cell_logs_one_error_naming_its_folds(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(runner, "measure", lambda *a: (_ for _ in ()).throw(RuntimeError("boom")))
    with caplog.at_level(logging.INFO, logger="svmbench"):
        records = run_cell(config(tmp_path))
    assert {r["status"] for r in records} == {"failed:RuntimeError: boom"}
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "fold(s) [0, 1, 2]" in errors[0].getMessage()


def test_a_parameter_of_the_wrong_type_names_key_value_and_fix(tmp_path):
    with pytest.raises(runner.ConfigError,
                       match=r"algorithm.C='big' is not a number; give a number, e.g. "
                             r"algorithm.C=1.0"):
        run_cell(config(tmp_path, "algorithm=smo_wss2", "algorithm.C=big"))
    assert not list(ResultStore(tmp_path).records())


# four cells of about a second each, so that the two sweeps overlap
TWO_SWEEPS = ["dataset=digits", "algorithm=gs_svm", "algorithm.gamma=0.001,0.0015,0.002,0.0025",
              "protocol.k=3"]


def test_two_concurrent_sweeps_on_one_store_train_each_fold_once(tmp_path):
    env = {**os.environ, "SVMBENCH_DOWNLOAD": "0"}
    sweeps = [subprocess.Popen([sys.executable, "-m", "svmbench.runner", "-m", *TWO_SWEEPS,
                                f"store.dir={tmp_path / 'store'}",
                                f"hydra.sweep.dir={tmp_path / f'multirun-{n}'}"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=env) for n in range(2)]
    logs = [sweep.communicate(timeout=600)[0] for sweep in sweeps]
    assert [sweep.returncode for sweep in sweeps] == [0, 0], logs
    trained = sum(log.count(" fold ") for log in logs)
    assert trained == 4 * 3 == len(list(ResultStore(tmp_path / "store").records()))


def test_the_cells_of_a_store_leave_out_superseded_and_quarantined_records(tmp_path):
    store = ResultStore(tmp_path)
    finished = {"config_hash": "abc", "fold": 0, "status": "converged", "code_fingerprint": "old"}
    store.write(finished)
    store.write({**finished, "code_fingerprint": "new"})  # moves the old one to superseded/
    (tmp_path / "def").mkdir()
    (tmp_path / "def" / "fold-0.json").write_text("not json")
    list(store.records())  # quarantines def's record
    assert (tmp_path / SUPERSEDED).is_dir() and (tmp_path / QUARANTINE).is_dir()
    assert store.cells() == {"abc", "def"}


def test_a_store_keeps_what_its_artefacts_draw_on_and_lists_the_rest(tmp_path):
    from svmbench.stores import unused
    for folder in ("live1", "live2", "other", SUPERSEDED + "/live1", QUARANTINE + "/x"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "fold-0.json").write_text("{}")
    assert [p.name for p in unused(tmp_path, {"live1", "live2"})] == sorted(
        ["other", SUPERSEDED, QUARANTINE])
    assert unused(tmp_path / "missing", {"live1"}) == []


def test_the_committed_stores_hold_no_superseded_or_quarantined_records():
    root = Path(__file__).resolve().parents[2]
    tracked = subprocess.run(["git", "ls-files", "results"], cwd=root, capture_output=True,
                             text=True, check=True).stdout.splitlines()
    assert tracked, "not a git checkout"
    assert [p for p in tracked if f"/{SUPERSEDED}/" in p or f"/{QUARANTINE}/" in p] == []
