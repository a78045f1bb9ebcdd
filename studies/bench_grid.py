"""Benchmark (not a test): the cheap grid search against the naive one, same run, same folds.

One outer training part (fold 0 of ten) of each dataset, the paper's grid (log2 theta in -8..8,
log2 C in -1..10) and inner 10-fold CV; the naive loop trains every grid point from scratch and
computes its own kernel values, the shared one computes one kernel matrix per (inner fold,
theta) for every C and class pair, warm-starts C and leaves out the points that can no longer be
chosen (svmbench.tuning). Reports wall times, the saving factor, the chosen point of each and the
largest difference of mean validation errors over the points both fitted.

    python studies/bench_grid.py [--datasets heart wine] [--algorithms smo_wss2 gs_svm]
"""

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from svmbench.analysis.sources import sources
from svmbench.analysis.tables import Table, to_markdown
from svmbench.data import load_dataset
from svmbench.protocols import kfold_indices
from svmbench.tuning import inner_seed, mean_errors, naive_errors, parameter_grid, shared_errors
from svmbench.warm_up import warm_up

OUTPUT = Path(__file__).resolve().parent.parent / "results" / "bench" / "grid_search.md"
GRID = {"gamma_log2": [-8, 8], "C_log2": [-1, 10]}


def bench(name, algorithm_name):
    data = load_dataset(name)
    train, _ = kfold_indices(data.y_train, 10, 0)[0]
    X, y = data.X_train[train], data.y_train[train]
    inner = kfold_indices(y, 10, inner_seed(0, 0))
    algorithm = {"name": algorithm_name, "gamma": 1.0}
    if algorithm_name != "gs_svm":
        algorithm["C"] = 1.0
    points = parameter_grid(GRID, algorithm)
    row = {"dataset": name, "algorithm": algorithm_name, "trainings": len(points) * len(inner)}
    errors = {}
    for label, fill in (("shared", shared_errors), ("naive", naive_errors)):
        start = time.perf_counter()
        errors[label] = mean_errors(fill(algorithm, points, X, y, inner, True)[0])
        row[f"{label} s"] = time.perf_counter() - start
        row[f"{label} choice"] = str(points[int(np.nanargmin(errors[label]))])
    row["saving x"] = row["naive s"] / row["shared s"]
    difference = np.abs(errors["shared"] - errors["naive"])  # NaN: a point pruned
    row["max abs diff of mean error"] = float(np.nanmax(difference))
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["heart", "wine"])
    parser.add_argument("--algorithms", nargs="+", default=["smo_wss2", "gs_svm"])
    args = parser.parse_args()
    for name in args.algorithms:
        warm_up(name, "rbf")
    rows = [bench(d, a) for d in args.datasets for a in args.algorithms]
    table = Table(pd.DataFrame(rows).set_index(["dataset", "algorithm"]),
                  formats={"trainings": "{:.0f}", "shared s": "{:.1f}", "naive s": "{:.1f}", "saving x": "{:.1f}",
                           "max abs diff of mean error": "{:.4f}"})
    text = "\n\n".join([
        "# Cheap grid search vs the naive loop (same run)",
        __doc__.split("\n\n")[1].replace("\n", " "),
        to_markdown(table), sources()])
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
