"""The Rosen tables' renderer on made-up records: ratios, notes, the paper's values beside ours."""

import pandas as pd

from experiments.rosen_tables import render


def records():
    rows = []
    for dataset, folds in (("ida_heart", 3), ("ida_banana", 2)):
        for algorithm, iterations, requested in (("smo_mod2", 300, 1000), ("rosen", 100, 4000)):
            for fold in range(folds):
                rows.append({
                    "experiment": "rosen_table1", "dataset": dataset, "algorithm": algorithm,
                    "fold": fold, "status": "converged", "n_sv": 80 + fold,
                    "iterations": iterations, "kernel_requested": requested,
                    "kernel_computed": requested // 4, "train_time_s": 0.01,
                    "test_error": 0.2 + 0.01 * fold, "tol": 1e-3, "cache_mb": 100.0, "C": 4.0,
                    "gamma": 0.5, "host": "h", "git_commit": "abc", "timestamp_utc":
                    "2026-11-23T00:00:00+00:00",
                })
    rows.append({"experiment": "rosen_table1", "dataset": "ida_thyroid", "algorithm": "rosen",
                 "fold": -1, "status": "failed:DataError: ida_thyroid not found", "tol": 1e-3,
                 "cache_mb": 100.0})
    return pd.DataFrame(rows)


def test_render_puts_ratios_and_the_papers_values_side_by_side():
    text = render(records())
    lines = {}  # row label -> its line in the first (the paper's) table
    for line in text.splitlines():
        if line.startswith("| "):
            lines.setdefault(line.split(" | ")[0].strip("| "), line)
    assert "| 3.00 | 82.5 ± 5.4 | 83.4 ± 5.1 | 149.8 ± 31.5 | 65.6 ± 6.3 | 2.28 | 3 of 10" in \
        lines["Heart"]
    assert lines["Thyroid"].endswith("| not run here: data not available |")
    assert lines["Titanic"].endswith("| not run here: data not available |")
    assert "beyond the paper; 2 of 10 realizations run" in lines["Banana"]
    assert "| 1e+03 | 4e+03 | 4.0 |" in text  # K2 and its ratio Rosen/SMO
    assert "on the paper's sets run here: 3.00-3.00 (the paper on the same sets: 2.28-2.28" in text
    assert "tol = 0.001" in text and "heart (C 4, gamma 0.5)" in text
