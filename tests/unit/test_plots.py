"""Every figure kind of svmbench.analysis.plots: the plotted data are the records' (read back from
the figure's artists), and the PNG and PDF files hold a drawing."""

import matplotlib.image
import matplotlib.pyplot
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
    pixels = matplotlib.image.imread(paths[0])
    assert len(np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0)) > 2  # not blank
    assert paths[1].read_bytes().startswith(b"%PDF") and paths[1].stat().st_size > 1000


def lines_by_label(ax):
    return {line.get_label(): line for line in ax.get_lines()}


def test_scaling_figure(records, tmp_path):
    cells = records[records.C == 4.0]
    figure = plots.scaling_figure(cells, "cvm")
    means = cells.groupby(["algorithm", "n_train"])[["test_error", "train_time_s"]].mean()
    accuracy, speedup = lines_by_label(figure.axes[0]), lines_by_label(figure.axes[1])
    assert set(accuracy) == {"cvm", "fw", "mfw"} and set(speedup) == {"fw", "mfw"}
    np.testing.assert_allclose(accuracy["fw"].get_xdata(), [2477, 3470, 4912])
    np.testing.assert_allclose(accuracy["fw"].get_ydata(), 100 * (1 - means.loc["fw", "test_error"]))
    np.testing.assert_allclose(speedup["mfw"].get_ydata(), means.loc["cvm", "train_time_s"]
                               / means.loc["mfw", "train_time_s"])
    assert_written(plots.save_figure(figure, tmp_path / "scaling"))


def test_metric_vs_c(records, tmp_path):
    figure = plots.metric_vs_c(records, ["w1a", "w3a"])
    assert [ax.get_title() for ax in figure.axes[:2]] == ["w1a", "w3a"]
    w3a = records[(records.dataset == "w3a") & (records.algorithm == "mfw")]
    expected = 100 * (1 - w3a.groupby("C")["test_error"].mean())
    line = lines_by_label(figure.axes[1])["mfw"]
    np.testing.assert_allclose(line.get_xdata(), expected.index)
    np.testing.assert_allclose(line.get_ydata(), expected)
    assert_written(plots.save_figure(figure, tmp_path / "vs_c"))


def test_objective_vs_iterations(tmp_path):
    iterations = np.arange(1, 500)
    traces = {"adaptive": (iterations, 1 / iterations),
              "eta=0.02": (iterations, 1 / np.sqrt(iterations))}
    figure = plots.objective_vs_iterations(traces, "cancer", overshoot={"eta=0.02": 300})
    line = lines_by_label(figure.axes[0])["adaptive"]
    np.testing.assert_allclose(line.get_ydata(), 1 / line.get_xdata())
    assert figure.axes[0].get_title() == "cancer"
    assert_written(plots.save_figure(figure, tmp_path / "objective"))


def test_with_writing_figures_off_a_figure_is_closed_and_no_file_written(tmp_path):
    """What tests/integration/test_pages.py renders with: the paths a page names, no files."""
    iterations = np.arange(1, 50)
    figure = plots.objective_vs_iterations({"a": (iterations, 1 / iterations)}, "cancer")
    token = plots.writing_figures.set(False)
    try:
        paths = plots.save_figure(figure, tmp_path / "off" / "objective")
    finally:
        plots.writing_figures.reset(token)
    assert [p.name for p in paths] == ["objective.png", "objective.pdf"]
    assert not (tmp_path / "off").exists()
    assert not matplotlib.pyplot.fignum_exists(figure.number)
    assert_written(plots.save_figure(plots.objective_vs_iterations(
        {"a": (iterations, 1 / iterations)}, "cancer"), tmp_path / "on" / "objective"))


def test_error_bars(records, tmp_path):
    figure = plots.error_bars(records)
    means = records.groupby(["dataset", "algorithm"], sort=False)["test_error"].mean()
    bars = {(container.get_label(), i): patch.get_height()
            for container in figure.axes[1].containers if hasattr(container, "patches")
            for i, patch in enumerate(container.patches)}
    for i, dataset in enumerate(["w1a", "w2a", "w3a"]):
        for algorithm in ("cvm", "fw", "mfw"):
            assert bars[(algorithm, i)] == pytest.approx(means[(dataset, algorithm)])
    assert_written(plots.save_figure(figure, tmp_path / "errors"))


def test_critical_difference_diagram(tmp_path):
    scores = pd.DataFrame(np.random.default_rng(1).normal(size=(20, 5)) + np.arange(5),
                          columns=list("ABCDE"))
    result = stats.nemenyi(scores)
    figure = plots.critical_difference_diagram(result, "CD")
    texts = {text.get_text() for text in figure.axes[0].texts}
    for name, rank in result.average_ranks.items():
        assert f"{name} ({rank:.2f})" in texts
    assert f"CD = {result.critical_difference:.2f}" in texts
    assert_written(plots.save_figure(figure, tmp_path / "cd"))


@pytest.mark.parametrize("k", [2, 5, 15])
def test_critical_difference_diagram_fits_its_labels(k):
    scores = pd.DataFrame(np.random.default_rng(k).normal(size=(10, k)),
                          columns=[f"solver{i}" for i in range(k)])
    figure = plots.critical_difference_diagram(stats.nemenyi(scores))
    ax = figure.axes[0]
    bottom, top = ax.get_ylim()
    label_ys = [text.get_position()[1] for text in ax.texts if "(" in text.get_text()]
    assert len(label_ys) == k
    assert all(bottom < y < top for y in label_ys)
    assert min(label_ys) - bottom < 0.5   # no blank band under the lowest label


def test_bayesian_pairs_figure_stacks_the_three_probabilities(tmp_path):
    scores = pd.DataFrame({"a": np.linspace(70, 90, 10), "b": np.linspace(70, 90, 10) + 3,
                           "c": np.linspace(70, 90, 10) + 0.1})
    pairs = stats.pairwise_bayesian_signed_rank(scores, nsamples=2000)
    figure = plots.bayesian_pairs_figure(pairs, rope=1.0, title="t")
    ax = figure.axes[0]
    bars = ax.patches
    assert len(bars) == 3 * len(pairs)
    ordered = pairs.sort_values(["p_equivalent", "first", "second"],
                                ascending=[False, True, True])
    columns = ["p_first_better", "p_equivalent", "p_second_better"]
    widths = np.array([bar.get_width() for bar in bars]).reshape(3, len(pairs)).T
    np.testing.assert_allclose(widths, ordered[columns].to_numpy())
    assert [t.get_text() for t in ax.get_yticklabels()] == list(ordered["first"])
    assert [t.get_text() for t in figure.axes[1].get_yticklabels()] == list(ordered["second"])
    assert_written(plots.save_figure(figure, tmp_path / "bayes"))


def test_bad_input_is_named(records):
    with pytest.raises(ValueError, match="baseline"):
        plots.scaling_figure(records, "libsvm")
    with pytest.raises(ValueError, match="lack column"):
        plots.error_bars(records.drop(columns="train_error"))
