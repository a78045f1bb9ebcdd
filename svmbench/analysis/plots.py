"""The papers' figure kinds from run records (matplotlib, Agg backend; PNG + PDF).

- :func:`scaling_figure` — accuracy, speed-up over a baseline, time and sizes vs training-set
  size (frank-wolfe-svm Figs. 3-4);
- :func:`metric_vs_c` — test accuracy and training time vs C (frank-wolfe-svm Figs. 7-8);
- :func:`objective_vs_iterations` — objective vs iterations on log axes (Tsang & Kwok Fig. 1);
- :func:`error_bars` — training and test error per dataset and algorithm (gs-svm-tnn2008
  Figs. 2-3);
- :func:`critical_difference_diagram` — Demšar (2006) CD diagram of average ranks;
- :func:`pareto_figure` — accuracy vs time per algorithm, its Pareto front marked;
- :func:`bayesian_pairs_figure` — per pair of algorithms, the Bayesian signed-rank test's
  P(first better), P(equivalent), P(second better) as one stacked bar (Benavoli et al. 2017).

Every function returns a Figure; :func:`save_figure` writes ``<stem>.png`` and ``<stem>.pdf``
(none while :data:`writing_figures` is off).
Styles differ by marker and line style as well as colour so figures survive grey print.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping, Sequence
from itertools import count, cycle
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from svmbench.analysis.stats import NemenyiResult
from svmbench.analysis.tables import usable_records

PRINT_STYLE = {"font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "legend.fontsize": 7,
               "xtick.labelsize": 7, "ytick.labelsize": 7, "lines.linewidth": 1.2,
               "lines.markersize": 4, "savefig.dpi": 300, "pdf.fonttype": 42}
MARKERS = ("o", "s", "^", "D", "v", "x", "+", "*")
LINESTYLES = ("-", "--", "-.", ":")
HATCHES = ("", "//", "..", "xx", "\\\\", "--")
# whether save_figure writes its files: a check that compares pages' Markdown only turns it off
# (tests/integration/test_pages.py; a figure's data are the table beside it, its bytes change with
# matplotlib's and FreeType's versions)
writing_figures = contextvars.ContextVar("writing_figures", default=True)


def save_figure(figure: plt.Figure, stem: str | Path) -> list[Path]:
    """Write ``stem.png`` and ``stem.pdf`` (folders created; nothing written while
    writing_figures is off); close the figure."""
    stem = Path(stem)
    paths = [stem.with_suffix(".png"), stem.with_suffix(".pdf")]
    if writing_figures.get():
        stem.parent.mkdir(parents=True, exist_ok=True)
        for path in paths:
            figure.savefig(path, bbox_inches="tight")
    plt.close(figure)
    return paths


def scaling_figure(records: pd.DataFrame, baseline: str, size: str = "n_train",
                   time: str = "train_time_s", algorithm: str = "algorithm") -> plt.Figure:
    """Rows: accuracy (%), speed-up = baseline time / time, time (s), training-set and
    support-vector sizes, all against training-set size (frank-wolfe-svm Figs. 3-4)."""
    means = _cell_means(records, [algorithm, size], ["test_error", time, "n_sv"])
    if baseline not in set(means[algorithm]):
        raise ValueError(f"baseline {baseline!r} not among algorithms "
                         f"{sorted(set(means[algorithm]))}")
    base_time = means[means[algorithm] == baseline].set_index(size)[time]
    with plt.rc_context(PRINT_STYLE):
        figure, axes = plt.subplots(4, 1, figsize=(3.4, 7.5), sharex=True)
        sizes_plotted = False
        for (name, group), style in zip(means.groupby(algorithm, sort=False), _styles()):
            group = group.sort_values(size)
            x = group[size].to_numpy()
            axes[0].plot(x, 100 * (1 - group["test_error"]), label=name, **style)
            if name != baseline:
                speedup = base_time.reindex(x).to_numpy() / group[time].to_numpy()
                axes[1].plot(x, speedup, label=name, **style)
            axes[2].plot(x, group[time], label=name, **style)
            axes[3].plot(x, group["n_sv"], label=f"{name} SVs", **style)
            if not sizes_plotted:
                axes[3].plot(x, x, color="black", linestyle=":", label="training set")
                sizes_plotted = True
        labels = ("test accuracy (%)", f"speed-up over {baseline}", "training time (s)",
                  "number of points")
        for ax, label in zip(axes, labels):
            ax.set_ylabel(label)
            ax.set_xscale("log")
            ax.grid(True, alpha=0.3)
            ax.legend(frameon=False)
        for ax in axes[1:]:
            ax.set_yscale("log")
        axes[-1].set_xlabel("training-set size")
        figure.tight_layout()
    return figure


def metric_vs_c(records: pd.DataFrame, datasets: Sequence[str] | None = None,
                time: str = "train_time_s", algorithm: str = "algorithm") -> plt.Figure:
    """Test accuracy (top row) and training time (bottom row) vs C, one column per dataset
    (frank-wolfe-svm Figs. 7-8)."""
    means = _cell_means(records, ["dataset", algorithm, "C"], ["test_error", time])
    datasets = list(datasets or means["dataset"].unique())
    with plt.rc_context(PRINT_STYLE):
        figure, axes = plt.subplots(2, len(datasets), figsize=(3.0 * len(datasets), 4.4),
                                    squeeze=False)
        for column, dataset in enumerate(datasets):
            subset = means[means["dataset"] == dataset]
            if subset.empty:
                raise ValueError(f"no records for dataset {dataset!r}")
            for (name, group), style in zip(subset.groupby(algorithm, sort=False), _styles()):
                group = group.sort_values("C")
                axes[0, column].plot(group["C"], 100 * (1 - group["test_error"]), label=name,
                                     **style)
                axes[1, column].plot(group["C"], group[time], label=name, **style)
            axes[0, column].set_title(dataset)
            axes[0, column].set_ylabel("test accuracy (%)")
            axes[1, column].set_ylabel("training time (s)")
            axes[1, column].set_yscale("log")
            for ax in axes[:, column]:
                ax.set_xscale("log", base=2)
                ax.set_xlabel("C")
                ax.grid(True, alpha=0.3)
            axes[0, column].legend(frameon=False)
        figure.tight_layout()
    return figure


def objective_vs_iterations(traces: Mapping[str, tuple[Sequence[float], Sequence[float]]],
                            title: str = "", overshoot: Mapping[str, float] | None = None
                            ) -> plt.Figure:
    """Objective vs iteration on log-log axes, one line per label (Tsang & Kwok Fig. 1).

    ``traces`` maps a label to (iterations, objective values); ``overshoot`` optionally maps
    a label to the iteration where the run diverged, drawn as a vertical line.
    """
    if not traces:
        raise ValueError("traces is empty; pass {label: (iterations, objective)}")
    with plt.rc_context(PRINT_STYLE):
        figure, ax = plt.subplots(figsize=(3.4, 2.6))
        for (label, (iterations, objective)), style in zip(traces.items(), _styles()):
            iterations, objective = np.asarray(iterations, float), np.asarray(objective, float)
            if iterations.shape != objective.shape:
                raise ValueError(f"trace {label!r}: {iterations.size} iterations but "
                                 f"{objective.size} objective values")
            keep = (iterations > 0) & (objective > 0)
            style = {**style, "markevery": max(1, keep.sum() // 8)}
            line, = ax.plot(iterations[keep], objective[keep], label=label, **style)
            if overshoot and label in overshoot:
                ax.axvline(overshoot[label], color=line.get_color(), linestyle=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("#iterations")
        ax.set_ylabel("objective")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
        ax.legend(frameon=False)
        figure.tight_layout()
    return figure


def error_bars(records: pd.DataFrame, metrics: Sequence[str] = ("train_error", "test_error"),
               algorithm: str = "algorithm") -> plt.Figure:
    """Grouped bars of mean error per dataset and algorithm, one panel per metric, with the
    standard deviation over folds as error bars (gs-svm-tnn2008 Figs. 2-3)."""
    with plt.rc_context(PRINT_STYLE):
        figure, axes = plt.subplots(len(metrics), 1, figsize=(6.8, 2.4 * len(metrics)),
                                    squeeze=False)
        for ax, metric in zip(axes[:, 0], metrics):
            grouped = usable_records(records, ["dataset", algorithm, metric]).groupby(
                ["dataset", algorithm], sort=False)[metric]
            means, stds = grouped.mean().unstack(algorithm), grouped.std().unstack(algorithm)
            width = 0.8 / means.shape[1]
            x = np.arange(means.shape[0])
            for j, (name, hatch) in enumerate(zip(means.columns, cycle(HATCHES))):
                ax.bar(x + (j - (means.shape[1] - 1) / 2) * width, means[name], width,
                       yerr=stds[name].fillna(0), label=name, hatch=hatch, edgecolor="black",
                       linewidth=0.5, capsize=1.5)
            ax.set_xticks(x, means.index, rotation=30, ha="right")
            ax.set_ylabel(metric.replace("_", " "))
            ax.grid(True, axis="y", alpha=0.3)
            ax.legend(frameon=False, ncol=means.shape[1])
        figure.tight_layout()
    return figure


def critical_difference_diagram(result: NemenyiResult, title: str = "") -> plt.Figure:
    """Demšar (2006) Fig. 1 style: average ranks on an axis (1 = best, left), the CD as a bar,
    and thick lines joining algorithms whose ranks differ by less than the CD."""
    ranks = result.average_ranks.sort_values()
    k = ranks.size
    with plt.rc_context(PRINT_STYLE):
        label_rows = (k + 1) // 2
        height = 0.45 + 0.25 * label_rows + 0.2   # axis and CD bar, one label row each 0.25 in, margin
        figure, ax = plt.subplots(figsize=(3.4, height))
        ax.set_xlim(0.5, k + 0.5)
        ax.set_ylim(0, height)
        ax.axis("off")
        axis_y = height - 0.45
        ax.hlines(axis_y, 1, k, color="black", linewidth=0.8)
        for tick in range(1, k + 1):
            ax.vlines(tick, axis_y, axis_y + 0.06, color="black", linewidth=0.8)
            ax.text(tick, axis_y + 0.1, str(tick), ha="center", va="bottom")
        cd = result.critical_difference
        ax.hlines(height - 0.12, 1, 1 + cd, color="black", linewidth=1.2)
        ax.text(1 + cd / 2, height - 0.08, f"CD = {cd:.2f}", ha="center", va="bottom")
        left = list(ranks.index[:label_rows])
        for i, (name, rank) in enumerate(ranks.items()):
            on_left = name in left
            row = (left.index(name) if on_left else k - 1 - i) + 1
            y = axis_y - 0.25 * row
            x_text = 0.6 if on_left else k + 0.4
            ax.plot([rank, rank, x_text], [axis_y, y, y], color="black", linewidth=0.7)
            ax.text(x_text, y, f"{name} ({rank:.2f})", ha="right" if on_left else "left",
                    va="center")
        for j, (start, stop) in enumerate(_cliques(ranks.to_numpy(), cd)):
            y = axis_y - 0.1 - 0.08 * j
            ax.hlines(y, ranks.iloc[start] - 0.03, ranks.iloc[stop] + 0.03, color="black",
                      linewidth=2.5)
        if title:
            ax.set_title(title)
    return figure


def pareto_front(points: pd.DataFrame) -> pd.Index:
    """Rows of ``points`` (columns ``accuracy``, ``seconds``) that no other row beats on both:
    at least as accurate and as fast, and better on one."""
    accuracy, seconds = points["accuracy"].to_numpy(), points["seconds"].to_numpy()
    dominated = [bool(np.any((accuracy >= a) & (seconds <= s) & ((accuracy > a) | (seconds < s))))
                 for a, s in zip(accuracy, seconds)]
    return points.index[~np.array(dominated, dtype=bool)]


def pareto_figure(points: pd.DataFrame, title: str = "") -> plt.Figure:
    """Accuracy (%) vs training time (s, log axis), one labelled point per algorithm (index of
    ``points``); the Pareto front filled and joined."""
    front = pareto_front(points)
    with plt.rc_context(PRINT_STYLE):
        figure, ax = plt.subplots(figsize=(4.6, 3.4))
        for name, row in points.iterrows():
            on_front = name in front
            ax.plot(row["seconds"], row["accuracy"], "o", color="black",
                    markerfacecolor="black" if on_front else "white")
            ax.annotate(name, (row["seconds"], row["accuracy"]), textcoords="offset points",
                        xytext=(4, 3), fontsize=6)
        line = points.loc[front].sort_values("seconds")
        ax.step(line["seconds"], line["accuracy"], where="post", color="black", linewidth=0.7)
        ax.set_xscale("log")
        ax.set_xlabel("training time of the final fit (s, geometric mean)")
        ax.set_ylabel("test accuracy (%, mean)")
        ax.grid(True, alpha=0.3)
        if title:
            ax.set_title(title)
        figure.tight_layout()
    return figure


def bayesian_pairs_figure(pairs: pd.DataFrame, rope: float, title: str = "") -> plt.Figure:
    """One horizontal bar per pair (rows of ``pairs`` as
    :func:`svmbench.analysis.stats.pairwise_bayesian_signed_rank` gives them), split into
    P(first better) | P(equivalent within the ROPE) | P(second better); pairs sorted by
    P(equivalent), the first of each pair named on the left, the second on the right."""
    pairs = pairs.sort_values(["p_equivalent", "first", "second"], ascending=[False, True, True])
    parts = (("p_first_better", "first better", "white", "//"),
             ("p_equivalent", f"equivalent (ROPE {rope:g})", "lightgrey", ""),
             ("p_second_better", "second better", "dimgrey", ".."))
    with plt.rc_context(PRINT_STYLE):
        figure, ax = plt.subplots(figsize=(5.2, 0.8 + 0.18 * len(pairs)))
        y = np.arange(len(pairs))[::-1]
        left = np.zeros(len(pairs))
        for column, label, colour, hatch in parts:
            widths = pairs[column].to_numpy()
            ax.barh(y, widths, left=left, height=0.75, color=colour, hatch=hatch,
                    edgecolor="black", linewidth=0.4, label=label)
            left += widths
        ax.set_yticks(y, pairs["first"])
        right = ax.twinx()
        right.set_ylim(ax.get_ylim())
        right.set_yticks(y, pairs["second"])
        ax.set_xlim(0, 1)
        ax.set_xlabel("posterior probability (Bayesian signed-rank test)")
        ax.legend(frameon=False, ncol=3, loc="lower center", bbox_to_anchor=(0.5, 1.0))
        if title:
            ax.set_title(title, pad=18)
        figure.tight_layout()
    return figure


def _cliques(sorted_ranks: np.ndarray, cd: float) -> list[tuple[int, int]]:
    """Maximal runs of sorted ranks spanning less than the CD (not significantly different)."""
    runs = []
    for start in range(sorted_ranks.size):
        stop = start
        while stop + 1 < sorted_ranks.size and sorted_ranks[stop + 1] - sorted_ranks[start] < cd:
            stop += 1
        if stop > start and not any(a <= start and stop <= b for a, b in runs):
            runs.append((start, stop))
    return runs


def _cell_means(records: pd.DataFrame, keys: list[str], values: list[str]) -> pd.DataFrame:
    usable = usable_records(records, keys + values)
    return usable.groupby(keys, sort=False)[values].mean().reset_index()


def _styles():
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i in count():
        yield {"marker": MARKERS[i % len(MARKERS)], "linestyle": LINESTYLES[i % len(LINESTYLES)],
               "color": colours[i % len(colours)]}
