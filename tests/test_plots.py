"""Every figure kind of svmbench.analysis.plots writes non-empty PNG and PDF files."""

import numpy as np
import pandas as pd
import pytest

from svmbench.analysis import plots, stats


@pytest.fixture
def records():
    rng = np.random.default_rng(0)
    rows = []
    for dataset, n_train in (("w1a", 2477), ("w2a", 3470), ("w3a", 4912)):
        for algorithm, speed in (("cvm", 1.0), ("fw", 0.1), ("mfw", 0.3)):
            for C in (1.0, 4.0, 16.0):
                for fold in range(3):
                    rows.append({"dataset": dataset, "algorithm": algorithm, "C": C, "fold": fold,
                                     "n_train": n_train, "n_sv": n_train // 5,
                                     "train_time_s": speed * n_train / 1000 / C ** 0.3,
                                     "train_error": rng.uniform(0, 0.05),
                                     "test_error": rng.uniform(0.01, 0.05), "status": "converged"})
    return pd.DataFrame(rows)


def assert_written(paths):
    assert [p.suffix for p in paths] == [".png", ".pdf"]
    assert all(p.stat().st_size > 1000 for p in paths)


def test_scaling_figure(records, tmp_path):
    assert_written(plots.save_figure(plots.scaling_figure(records[records.C == 4.0], "cvm"),
                                     tmp_path / "scaling"))


def test_metric_vs_c(records, tmp_path):
    assert_written(plots.save_figure(plots.metric_vs_c(records, ["w1a", "w3a"]),
                                     tmp_path / "vs_c"))


def test_objective_vs_iterations(tmp_path):
    iterations = np.arange(1, 500)
    traces = {"adaptive": (iterations, 1 / iterations),
              "eta=0.02": (iterations, 1 / np.sqrt(iterations))}
    figure = plots.objective_vs_iterations(traces, "cancer", overshoot={"eta=0.02": 300})
    assert_written(plots.save_figure(figure, tmp_path / "objective"))


def test_error_bars(records, tmp_path):
    assert_written(plots.save_figure(plots.error_bars(records), tmp_path / "errors"))


def test_critical_difference_diagram(tmp_path):
    scores = pd.DataFrame(np.random.default_rng(1).normal(size=(20, 5)) + np.arange(5),
                          columns=list("ABCDE"))
    figure = plots.critical_difference_diagram(stats.nemenyi(scores), "CD")
    assert_written(plots.save_figure(figure, tmp_path / "cd"))


def test_bad_input_is_named(records):
    with pytest.raises(ValueError, match="baseline"):
        plots.scaling_figure(records, "libsvm")
    with pytest.raises(ValueError, match="lack column"):
        plots.error_bars(records.drop(columns="train_error"))
