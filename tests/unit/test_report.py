"""svmbench.report on empty, failed-only, corrupt and mixed stores: a clear message, settings
never pooled, non-converged records flagged, no ``nan`` statistics, non-zero exit on failures."""

import pytest

from svmbench import report
from svmbench.store import QUARANTINE, ResultStore

PROVENANCE = {"git_commit": "a" * 40, "git_dirty": False, "code_fingerprint": "f" * 16,
              "run_id": "run-1", "timestamp_utc": "2026-11-22T10:00:00+00:00", "host": "box",
              "cpu": "cpu"}


def record(chash, fold, status="converged", dataset="iris", algorithm="gs_svm", gamma=0.5,
           test_error=0.1):
    measured = {} if status.startswith("failed") else {
        "test_error": test_error, "n_sv": 10, "kernel_computed": 1000, "train_time_s": 0.5}
    return {"config_hash": chash, "fold": fold, "status": status, "dataset": dataset,
            "algorithm": algorithm, "gamma": gamma, "experiment": "adhoc", **measured,
            **PROVENANCE}


def store_of(tmp_path, records):
    store = ResultStore(tmp_path)
    for item in records:
        store.write(item)
    return tmp_path


def test_a_missing_or_empty_store_says_so(tmp_path):
    with pytest.raises(SystemExit, match="no result store at"):
        report.main([str(tmp_path / "nowhere")])
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit, match="no records in .*run a sweep into it first"):
        report.main([str(tmp_path / "empty")])


def test_a_store_of_failures_only_lists_them_and_exits_non_zero(tmp_path, capsys):
    folder = store_of(tmp_path, [record("c1", -1, "failed:DataError: no file")])
    with pytest.raises(SystemExit, match="a cell failed"):
        report.main([str(folder)])
    out = capsys.readouterr().out
    assert "No finished records" in out
    assert "- iris / gs_svm (cell c1), could not start: failed:DataError: no file" in out


def test_a_corrupt_record_is_named_set_aside_and_the_rest_reported(tmp_path, capsys, caplog):
    folder = store_of(tmp_path, [record("c1", 0), record("c1", 1, test_error=0.3)])
    (folder / "c1" / "fold-2.json").write_text("{ not json")
    report.main([str(folder)])
    assert (folder / QUARANTINE / "c1" / "fold-2.json").exists()
    assert "fold-2.json" in caplog.text
    assert "| iris | **80 ± 14.14** [?] |" in capsys.readouterr().out  # [?]: old records


def test_a_mixed_store_keeps_settings_apart_flags_and_never_prints_nan(tmp_path, capsys):
    folder = store_of(tmp_path, [
        record("c1", 0, gamma=0.5, test_error=0.1), record("c1", 1, gamma=0.5, test_error=0.1),
        record("c2", 0, gamma=2.0, test_error=0.5), record("c2", 1, "max_iter", gamma=2.0,
                                                           test_error=0.5),
        record("c3", 0, algorithm="libsvm", test_error=0.1),
        record("c3", 1, algorithm="libsvm", test_error=0.1),
        record("c4", 0, "stalled", dataset="wine"),
        record("c5", 1, "failed:ValueError: bad", dataset="wine")])
    with pytest.raises(SystemExit, match="a cell failed"):
        report.main([str(folder), "--compare", "gs_svm gamma=0.5", "libsvm"])
    out = capsys.readouterr().out
    assert "gs_svm gamma=0.5 accuracy" in out and "gs_svm gamma=2.0 accuracy" in out
    assert "- iris / gs_svm (cell c2), folds [1]: max_iter" in out
    assert "| 50 ± 0 [?1 M1*] |" in out and "M = max_iter" in out  # the rule per cell
    assert "- wine / gs_svm (cell c4), folds [0]: stalled" in out
    assert "- wine / gs_svm (cell c5), folds [1]: failed:ValueError: bad" in out
    assert "test error of gs_svm gamma=0.5 vs libsvm over 2 paired folds: identical" in out
    assert "nan" not in out.lower()
