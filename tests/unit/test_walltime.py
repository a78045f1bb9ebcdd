"""svmbench.walltime: every timed sweep leaves a row; the summary sums a commit's runs."""

import sys

import pandas as pd
import pytest

from svmbench import walltime
from svmbench.outcomes import OUTCOME_LOG_ENV


def test_each_timed_command_appends_a_row_and_passes_its_exit_status_on(tmp_path):
    log = tmp_path / "wall_times.csv"
    sleep = [sys.executable, "-c", "import time; time.sleep(0.3)"]
    assert walltime.timed("gs2008_table7", "paper", sleep, log) == 0
    assert walltime.timed("gs2008_table7", "paper", [sys.executable, "-c", "exit(3)"], log) == 3
    rows = pd.read_csv(log)
    assert list(rows.columns) == walltime.FIELDS
    assert list(rows["exit_status"]) == [0, 3]
    assert rows["wall_s"].iloc[0] >= 0.3
    assert rows["command"].iloc[1].endswith("-c 'exit(3)'")


def test_the_summary_sums_the_runs_of_one_commit_per_artefact(tmp_path):
    log = tmp_path / "wall_times.csv"
    base = {"scale": "paper", "dirty": False, "start_utc": "2026-11-26T03:00:00+00:00",
            "exit_status": 0, "load_before": 0.5, "load_after": 1.5, "cores": 2, "command": "x"}
    pd.DataFrame([{**base, "artefact": "fw_table2", "commit": "a" * 40, "wall_s": 600},
                  {**base, "artefact": "fw_table2", "commit": "a" * 40, "wall_s": 300,
                   "exit_status": 1},
                  {**base, "artefact": "fw_table2", "commit": "b" * 40, "wall_s": 60},
                  {**base, "artefact": "gs2005_table1", "commit": "a" * 40, "wall_s": 120,
                   "dirty": True}], columns=walltime.FIELDS).to_csv(log, index=False)
    lines = walltime.summary(log).splitlines()
    assert "| fw_table2 | aaaaaaaaaaaa | 2 | 15.0 | - | 0.5 / 1.5, 0.5 / 1.5 | 0, 1 |" in lines
    assert "| fw_table2 | bbbbbbbbbbbb | 1 | 1.0 | - | 0.5 / 1.5 | 0 |" in lines
    assert "| gs2005_table1 | aaaaaaaaaaaa (dirty tree) | 1 | 2.0 | - | 0.5 / 1.5 | 0 |" in lines


def sweep_end(counts):
    """A command that ends like a sweep: its outcome counts appended where the timer says."""
    code = (f"import json, os; open(os.environ['{OUTCOME_LOG_ENV}'], 'a')"
            f".write(json.dumps({counts!r}) + '\\n')")
    return [sys.executable, "-c", code]


def test_a_timed_artefact_counts_the_cells_its_sweeps_trained_and_reused(tmp_path):
    log = tmp_path / "wall_times.csv"
    both = sweep_end({"trained": 8, "reused": 43})[:-1] + [
        sweep_end({"trained": 8, "reused": 43})[-1] + "; " + sweep_end({"trained": 2})[-1]]
    walltime.timed("gs2008_table7", "paper", both, log)
    walltime.timed("gs2008_table2", "paper", sweep_end({"trained": 45}), log)
    walltime.timed("plain", "paper", [sys.executable, "-c", "pass"], log)
    rows = pd.read_csv(log)
    assert rows["cells_trained"].tolist()[:2] == [10, 45]
    assert rows["cells_reused"].tolist()[:2] == [43, 0]
    assert rows.iloc[2][["cells_trained", "cells_reused"]].isna().all()  # no sweep: not logged
    lines = walltime.summary(log).splitlines()
    assert any(line.startswith("| gs2008_table7 |") and "| 10 / 43 * |" in line for line in lines)
    assert any(line.startswith("| gs2008_table2 |") and "| 45 / 0 |" in line for line in lines)
    assert any(line.startswith("| plain |") and "| - |" in line for line in lines)


def test_a_log_written_before_the_cell_counts_takes_them_from_then_on(tmp_path):
    log = tmp_path / "wall_times.csv"
    old = [field for field in walltime.FIELDS if not field.startswith("cells_")]
    pd.DataFrame([{field: 1 for field in old} | {"artefact": "fw_table2", "commit": "a" * 40,
                                                   "dirty": False}],
                 columns=old).to_csv(log, index=False)
    walltime.timed("fw_table2", "paper", sweep_end({"reused": 5}), log)
    rows = pd.read_csv(log)
    assert list(rows.columns) == walltime.FIELDS
    assert rows["cells_reused"].isna().tolist() == [True, False]
    assert rows["cells_trained"].tolist()[1] == 0


def test_the_summary_totals_each_commit_and_quotes_the_record_log(tmp_path):
    log = tmp_path / "wall_times.csv"
    base = {"scale": "paper", "exit_status": 0, "load_before": 0.5, "load_after": 1.5,
            "cores": 2, "command": "x", "dirty": False}
    pd.DataFrame([{**base, "artefact": "fw_table2", "commit": "b" * 40, "wall_s": 60,
                   "start_utc": "2026-11-26T03:00:00+00:00"},
                  {**base, "artefact": "fw_table2", "commit": "a" * 40, "wall_s": 600,
                   "start_utc": "2026-11-27T03:00:00+00:00"},
                  {**base, "artefact": "gs2005_table1", "commit": "a" * 40, "wall_s": 300,
                   "start_utc": "2026-11-27T04:00:00+00:00"}],
                 columns=walltime.FIELDS).to_csv(log, index=False)
    (tmp_path / "record.log").write_text(
        "2026-11-27T02:59:00Z aaaaaaaaaaaa paper start, load 0.1\n")
    text = walltime.page(log)
    lines = text.splitlines()
    totals = [line for line in lines if line.startswith(("| aaaa", "| bbbb"))]
    assert totals == [
        "| bbbbbbbbbbbb | 2026-11-26T03:00:00+00:00 | 2026-11-26T03:00:00+00:00 | 1 | 1 | 1.0 |",
        "| aaaaaaaaaaaa | 2026-11-27T03:00:00+00:00 | 2026-11-27T04:00:00+00:00 | 2 | 2 | 15.0 |"]
    assert lines[0] == "# Wall times of the sweeps"
    assert "2026-11-27T02:59:00Z aaaaaaaaaaaa paper start, load 0.1" in lines


def test_the_summary_of_no_log_says_so(tmp_path):
    assert "No wall times logged yet" in walltime.summary(tmp_path / "wall_times.csv")


def test_the_command_line_make_uses_times_the_command_with_its_own_options(tmp_path, monkeypatch):
    log = tmp_path / "wall_times.csv"
    monkeypatch.setattr(walltime, "log_path", lambda scale: log)
    # mk/papers.mk: walltime <artefact> --scale <scale> -- <runner command with its own options>
    status = walltime.main(["gs2008_table7", "--scale", "paper", "--", sys.executable, "-c",
                            "import sys; sys.exit(len(sys.argv))", "-m", "--scale", "quick"])
    assert status == 4
    row = pd.read_csv(log).iloc[0]
    assert (row["artefact"], row["scale"]) == ("gs2008_table7", "paper")
    assert row["command"].endswith("-m --scale quick")


def test_a_timing_without_a_command_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(walltime, "log_path", lambda scale: tmp_path / "wall_times.csv")
    with pytest.raises(SystemExit):
        walltime.main(["gs2008_table7", "--scale", "paper"])
    assert "after --, the command to time" in capsys.readouterr().err
    assert not (tmp_path / "wall_times.csv").exists()
