"""The Rosen tables' renderer path (svmbench.render) from a small store: ratios, notes, the paper's
values beside ours; and the committed records are still the cells of the configs."""

from pathlib import Path

from svmbench.render import render
from svmbench.store import ResultStore
from svmbench.sweep import cells

COMMITTED_STORE = Path(__file__).resolve().parents[2] / "results" / "rosen" / "runs"


def cell_hashes(artefact, scale):
    """(dataset, algorithm) -> config hash of every cell of ``artefact`` at ``scale``."""
    found = {}
    for cell in cells(artefact, scale):
        settings = dict(override.split("=", 1) for override in cell.overrides)
        found[settings["dataset"], settings["algorithm"]] = cell.config_hash
    return found


def records(hashes):
    """Heart: 3 realizations, banana: 2; titanic's rosen cell failed on missing data; the other
    cells have no record yet; one record of a cell outside the sweep."""
    rows = []
    for dataset, folds in (("ida_heart", 3), ("ida_banana", 2)):
        for algorithm, iterations, requested in (("smo_mod2", 300, 1000), ("rosen", 100, 4000)):
            for fold in range(folds):
                rows.append({
                    "config_hash": hashes[dataset, algorithm], "experiment": "rosen_table1",
                    "dataset": dataset, "algorithm": algorithm, "fold": fold,
                    "status": "converged", "n_sv": 80 + fold, "iterations": iterations,
                    "kernel_requested": requested, "kernel_computed": requested // 4,
                    "train_time_s": 0.01, "test_error": 0.2 + 0.01 * fold, "tol": 1e-3,
                    "cache_mb": 100.0, "C": 4.0, "gamma": 0.5, "host": "h",
                    "git_commit": "abc", "timestamp_utc": "2026-11-23T00:00:00+00:00",
                })
    rows.append({"config_hash": hashes["ida_titanic", "rosen"], "experiment": "rosen_table1",
                 "dataset": "ida_titanic", "algorithm": "rosen", "fold": -1,
                 "status": "failed:DataError: ida_titanic not found", "tol": 1e-3,
                 "cache_mb": 100.0})
    rows.append({**rows[0], "config_hash": "not-a-cell", "n_sv": 10_000})
    return rows


def test_render_puts_ratios_and_the_papers_values_side_by_side(tmp_path):
    store = ResultStore(tmp_path / "runs")
    for record in records(cell_hashes("rosen_table1", "paper")):
        store.write(record)
    output = render("rosen_table1", "paper", [f"store.dir={tmp_path / 'runs'}",
                                              f"artefact.output={tmp_path / 'table1.md'}"])
    text = output.read_text()
    lines = {}  # row label -> its line in the first (the paper's) table
    for line in text.splitlines():
        if line.startswith("| "):
            lines.setdefault(line.split(" | ")[0].strip("| "), line)
    assert "| 3.00 | 82.5 ± 5.4 | 83.4 ± 5.1 | 149.8 ± 31.5 | 65.6 ± 6.3 | 2.28 | 3 of 10" in \
        lines["Heart"]
    assert lines["Thyroid"].endswith("| not run here: data not available |")
    assert lines["Titanic"].endswith("| failed when run: data missing then; re-run the cell |")
    assert lines["Cancer"].endswith("| not run yet |")
    assert "beyond the paper; 2 of 10 realizations run" in lines["Banana"]
    assert "| 1e+03 | 4e+03 | 4.0 |" in text  # K2 and its ratio Rosen/SMO
    assert "on the paper's sets run here: 3.00-3.00 (the paper on the same sets: 2.28-2.28" in text
    assert "tol = 0.001" in text and "heart (C 4, gamma 0.5)" in text
    assert "Records: 11 " in text and "11 legacy records without a code fingerprint" in text
    assert "svmbench +experiment=rosen_table1 scale=paper dataset=ida_heart algorithm=rosen" in text


def test_the_committed_records_are_the_paper_scale_cells():
    stored = ResultStore(COMMITTED_STORE).cells()
    for artefact in ("rosen_table1", "rosen_table2"):
        hashes = set(cell_hashes(artefact, "paper").values())
        assert len(hashes) == 18 and hashes <= stored
        assert sum(len(list((COMMITTED_STORE / h).glob("fold-*.json"))) for h in hashes) == 162
