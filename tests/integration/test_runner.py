"""The runner: reproducible records, resumption without loss or duplicates, failures recorded."""

import re
import subprocess
import sys

import numba
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from svmbench import runner
from svmbench.algorithms import build_estimator
from svmbench.conf import CONF_DIR
from svmbench.data import checksums
from svmbench.runner import run_cell
from svmbench.store import ResultStore

VOLATILE = runner.CLOCKS


def config(store, *overrides):
    runner.register_configs()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        return compose("config", ["dataset=iris", "algorithm=gs_svm", "protocol.k=3",
                                  f"store.dir={store}", *overrides])


def stable(records):
    return sorted(({k: v for k, v in r.items() if k not in VOLATILE} for r in records),
                  key=lambda r: r["fold"])


def test_same_config_and_seed_give_the_same_records(tmp_path):
    first = run_cell(config(tmp_path / "a"))
    second = run_cell(config(tmp_path / "b"))
    assert len(first) == 3 and stable(first) == stable(second)
    assert stable(run_cell(config(tmp_path / "c", "seed=1"))) != stable(first)



def test_a_record_says_whether_its_features_were_scaled(tmp_path):
    scaled = run_cell(config(tmp_path / "a", "folds=[0]"))
    raw = run_cell(config(tmp_path / "b", "folds=[0]", "dataset.scale=false"))
    assert [r["dataset_scale"] for r in scaled + raw] == [True, False]
    assert scaled[0]["dataset_paper_name"] == "Iris"

def test_nested_cv_records_are_reproducible_and_carry_the_choice(tmp_path):
    nested = ["protocol=nested_cv", "protocol.inner_k=2", "protocol.grid.gamma_log2=[-1,1]",
              "algorithm=libsvm", "protocol.grid.C_log2=[0,1]", "folds=[0]"]
    first = run_cell(config(tmp_path / "a", *nested))
    assert stable(first) == stable(run_cell(config(tmp_path / "b", *nested)))
    (record,) = first
    assert record["status"] == "converged"
    assert (record["gamma"], record["C"]) == (record["selected_gamma"], record["selected_C"])
    assert record["inner_trainings"] == 3 * 2 * 2


def test_a_stopped_cell_resumes_without_losing_or_duplicating_records(tmp_path, monkeypatch):
    real_measure = runner.measure

    def second_fold_breaks(algorithm, split):
        if split.fold == 1:
            raise RuntimeError("interrupted")
        return real_measure(algorithm, split)

    monkeypatch.setattr(runner, "measure", second_fold_breaks)
    first = run_cell(config(tmp_path))
    assert [r["status"] for r in first] == ["converged", "failed:RuntimeError: interrupted",
                                            "converged"]
    monkeypatch.setattr(runner, "measure", real_measure)
    resumed = run_cell(config(tmp_path))
    assert [(r["fold"], r["status"]) for r in resumed] == [(1, "converged")]
    stored = list(ResultStore(tmp_path).records())
    assert sorted(r["fold"] for r in stored) == [0, 1, 2]
    assert all(r["status"] == "converged" for r in stored)
    assert stable(stored) == stable(run_cell(config(tmp_path / "fresh")))
    assert run_cell(config(tmp_path)) == []  # nothing left to do


def write_diabetes(folder, lines):
    """A generated stand-in for the LIBSVM file diabetes/diabetes in a data directory."""
    (folder / "diabetes").mkdir(parents=True)
    (folder / "diabetes" / "diabetes").write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("lines, reason", [
    (["1 1:0.5 2:nan", "-1 1:0.1 2:0.2", "1 1:0.3", "-1 2:0.1"], "NaN at row 0, column 1"),
    (["1 1:0.5 2:0.3", "1 1:0.1 2:0.2", "1 1:0.3"], "only one class"),
])
def test_bad_data_fails_the_cell_with_the_reason_and_the_sweep_goes_on(tmp_path, monkeypatch,
                                                                        lines, reason):
    write_diabetes(tmp_path / "data", lines)
    monkeypatch.delitem(checksums.PINNED_SHA256, "diabetes/diabetes")  # a stand-in, not the real
    monkeypatch.setenv("SVMBENCH_DATA_PATH", str(tmp_path / "data"))
    monkeypatch.setenv("SVMBENCH_DATA", str(tmp_path / "cache"))
    (record,) = run_cell(config(tmp_path / "store", "dataset=diabetes"))
    assert record["fold"] == -1
    assert record["status"].startswith("failed:DataError") and reason in record["status"]
    assert run_cell(config(tmp_path / "store"))[0]["status"] == "converged"


def test_unknown_dataset_in_a_cell_lists_the_choices(tmp_path):
    (record,) = run_cell(config(tmp_path, "dataset.name=nope"))
    assert "unknown dataset 'nope'" in record["status"] and "breast_cancer" in record["status"]


def test_unknown_algorithm_lists_the_choices():
    with pytest.raises(ValueError, match=r"unknown algorithm 'nope'; choose one of .*gs_svm"):
        build_estimator({"name": "nope"})


@pytest.mark.parametrize("group, a_choice", [("algorithm", "gs_svm"), ("dataset", "breast_cancer")])
def test_unknown_config_name_on_the_command_line_lists_the_choices(tmp_path, group, a_choice):
    result = subprocess.run([sys.executable, "-m", "svmbench.runner", f"{group}=nope",
                             f"store.dir={tmp_path}"], check=False, capture_output=True, text=True)
    assert result.returncode != 0
    assert f"Available options in '{group}'" in result.stderr and a_choice in result.stderr


def test_a_record_that_cannot_be_stored_leaves_no_temporary_file(tmp_path):
    store = ResultStore(tmp_path)
    with pytest.raises(TypeError, match="cannot store a value of type object"):
        store.write({"config_hash": "abc", "fold": 0, "status": "converged", "bad": object()})
    assert list(tmp_path.rglob("*.json")) == [] and list(store.records()) == []


def test_a_cell_that_could_not_start_leaves_no_failure_once_it_runs(tmp_path, monkeypatch):
    real_splits = runner.splits

    def missing_data(*args, **kwargs):
        raise FileNotFoundError("data not staged yet")

    monkeypatch.setattr(runner, "splits", missing_data)
    (failed,) = run_cell(config(tmp_path))
    assert failed["fold"] == -1 and failed["status"].startswith("failed:")
    monkeypatch.setattr(runner, "splits", real_splits)
    run_cell(config(tmp_path))
    assert sorted(r["fold"] for r in ResultStore(tmp_path).records()) == [0, 1, 2]


def test_a_failed_cell_makes_a_single_run_exit_non_zero_with_the_fix(tmp_path):
    result = subprocess.run([sys.executable, "-m", "svmbench.runner", "dataset=iris",
                             "algorithm=smo_wss2", "algorithm.C=big", "protocol.k=2",
                             f"store.dir={tmp_path}", f"hydra.run.dir={tmp_path / 'run'}"],
                            check=False, capture_output=True, text=True)
    assert result.returncode == 1
    assert "algorithm.C='big' is not a number" in result.stderr
    assert "re-run: svmbench dataset=iris algorithm=smo_wss2 algorithm.C=big" in result.stderr


def test_a_sweep_runs_every_cell_then_exits_non_zero_listing_the_failed_ones(tmp_path):
    result = subprocess.run([sys.executable, "-m", "svmbench.runner", "-m", "dataset=iris",
                             "algorithm=gs_svm", "algorithm.gamma=oops,0.5,bad", "protocol.k=2",
                             f"store.dir={tmp_path / 'store'}",
                             f"hydra.sweep.dir={tmp_path / 'multirun'}"],
                            check=False, capture_output=True, text=True)
    output = result.stdout + result.stderr
    assert result.returncode == 1
    assert "2 cell(s) failed" in output and output.count("re-run: svmbench") == 2
    assert "algorithm.gamma='oops'" in output and "algorithm.gamma='bad'" in output
    assert "sweep of 3 cell(s): 1 trained, 2 failed" in output
    # a setting that cannot run is no cell: nothing of it is stored
    assert [r["status"] for r in ResultStore(tmp_path / "store").records()] == ["converged"] * 2


def test_a_sweep_ends_counting_cells_trained_and_reused(tmp_path):
    command = [sys.executable, "-m", "svmbench.runner", "-m", "dataset=iris", "algorithm=gs_svm",
               "protocol.k=2", f"store.dir={tmp_path / 'store'}"]
    first = subprocess.run([*command, "algorithm.gamma=0.5,1.0",
                            f"hydra.sweep.dir={tmp_path / 'a'}"], check=True, capture_output=True,
                           text=True)
    assert "sweep of 2 cell(s): 2 trained" in first.stdout + first.stderr
    log = tmp_path / "wall_times.csv"  # the second sweep timed as make times an artefact
    timer = ("import sys; from pathlib import Path; from svmbench import walltime; "
             f"walltime.timed('a', 'paper', sys.argv[1:], Path({str(log)!r}))")
    again = subprocess.run([sys.executable, "-c", timer, *command, "algorithm.gamma=0.5,2.0",
                            f"hydra.sweep.dir={tmp_path / 'b'}"], check=True, capture_output=True,
                           text=True)
    assert "sweep of 2 cell(s): 1 trained, 1 reused" in again.stdout + again.stderr
    row = pd.read_csv(log).iloc[0]
    assert (row["cells_trained"], row["cells_reused"]) == (1, 1)


@pytest.mark.parametrize("override, message", [
    ("algorithm.C=-1", "algorithm.C=-1 is out of range: C must be > 0.0"),
    ("algorithm.tol=0", "algorithm.tol=0 is out of range: tol must be > 0.0"),
    ("algorithm.max_iter=2.5",
     "algorithm.max_iter=2.5 is out of range: max_iter must be a whole number >= -1"),
    ("algorithm.cache_mb=-5", "algorithm.cache_mb=-5 is out of range: cache_mb must be >= 0.0")])
def test_a_setting_out_of_range_fails_before_any_data_is_loaded_naming_it_once(
        tmp_path, monkeypatch, override, message):
    monkeypatch.setattr(runner, "load_dataset", lambda name: pytest.fail("data loaded"))
    monkeypatch.setattr(runner, "splits", lambda *a: pytest.fail("data loaded"))
    with pytest.raises(runner.ConfigError, match=re.escape(message)):
        run_cell(config(tmp_path, "algorithm=libsvm", override))
    assert not list(ResultStore(tmp_path).records())


def test_a_single_run_prints_a_named_error_without_a_traceback(tmp_path):
    afile = tmp_path / "a_file"
    afile.write_text("")
    result = subprocess.run([sys.executable, "-m", "svmbench.runner", "dataset=iris",
                             f"store.dir={afile}", f"hydra.run.dir={tmp_path / 'run'}"],
                            check=False, capture_output=True, text=True)
    assert result.returncode == 1
    assert f"store.dir={afile} is not writable" in result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("is not writable") == 1


def test_ctrl_c_ends_with_one_line_saying_what_was_stored(tmp_path):
    command = [sys.executable, "-c", (
        "import sys, svmbench.runner as r\n"
        "def stop(*a, **k): raise KeyboardInterrupt\n"
        "r.measure = stop\n"
        "sys.argv = ['svmbench', 'dataset=iris', 'protocol.k=2', "
        f"'store.dir={tmp_path / 'store'}', 'hydra.run.dir={tmp_path / 'run'}']\n"
        "r.main()")]
    result = subprocess.run(command, check=False, capture_output=True, text=True)
    assert result.returncode == 1
    assert "interrupted: this process stored 0 record(s) in " in result.stderr
    assert "run the same command again to resume where it stopped" in result.stderr
    assert "Traceback" not in result.stderr


def test_more_threads_than_numba_may_start_fail_the_cell_naming_the_limit(tmp_path):
    most = numba.config.NUMBA_NUM_THREADS
    with pytest.raises(runner.ConfigError,
                       match=rf"threads={most + 1}: this process may run 1..{most} numba threads"):
        run_cell(config(tmp_path, f"threads={most + 1}"))


def test_a_record_takes_the_worst_status_of_its_class_pairs():
    assert runner.worst_status(["converged", "converged"]) == "converged"
    assert runner.worst_status(["converged", "max_iter", "stalled"]) == "stalled"
    assert runner.worst_status(["infeasible", "failed:NaN in gradient"]) == "failed:NaN in gradient"


@pytest.mark.parametrize("overrides, message", [
    (["folds=[12]"], r"fold\(s\) \[12\] do not exist; protocol=kfold protocol.k=3 has folds 0..2"),
    (["folds=[0,-1,3]"], r"fold\(s\) \[-1, 3\] do not exist.* has folds 0..2"),
])
def test_a_fold_the_protocol_does_not_have_fails_the_cell_with_the_valid_range(
        tmp_path, overrides, message):
    with pytest.raises(runner.ConfigError, match=message):
        run_cell(config(tmp_path, *overrides))
    assert not list(ResultStore(tmp_path).records())


def test_a_cost_cap_declines_a_cell_only_while_size_limits_hold(monkeypatch):
    from svmbench import runner
    from svmbench.capabilities import Capabilities

    capped = Capabilities(max_train=100, size_reason="cost cap for this test")
    monkeypatch.setattr(runner, "capabilities", lambda name, target=None: capped)
    cell = {"algorithm": {"name": "gs_svm", "kernel": "rbf"}, "dataset": {"name": "breast_cancer"}}
    assert "above its limit of 100: cost cap for this test" in runner.unsuitable(cell)
    assert runner.unsuitable(cell, size_limits=False) is None
