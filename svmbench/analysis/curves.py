"""Convergence curves from run records (their ``curve``, svmbench.solvers.checkpoints), drawn as
benchopt draws them: per data set, the solvers of one problem overlaid, suboptimality against
iterations, kernel entries requested (K2), computed (K1) and time, where each stopped marked by
why.

Solvers minimise different problems, so a figure has one row per problem (PROBLEMS): within a row
the objective is the same function and the suboptimality ``(f - f*) / |f*|`` is taken against the
best ``f*`` any of the row's solvers reached on that data set (benchopt's reference; 0 is drawn at
FLOOR). A solver without a curve (scikit-learn's SVC, RSVM) is listed in the table, not drawn.
Multi-class records are drawn by their first class pair.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter

from svmbench.analysis.plots import LINESTYLES, PRINT_STYLE
from svmbench.status import record_status

# problem -> the solvers minimising it (their record's objective)
PROBLEMS = {
    "C-SVM dual 1/2 a'Qa - 1'a (box, y'a = 0)": ("smo_wss2", "smo_platt", "smo_mod1",
                                                 "smo_mod2", "rosen", "libsvm"),
    "hard margin, no bias: 1/2 a'Qa - 1'a (a >= 0)": ("gs_svm", "hm_svm"),
    "L2-SVM as MEB: a'Qa on the simplex": ("cvm", "fw", "mfw"),
    "rho-SVM: a'Qa on the simplex": ("rho_svm", "rho_ensemble", "parzen", "eg_fixed"),
}
AXES = (("iteration", "iterations + 1", 1), ("kernel_requested", "kernel entries requested (K2)", 0),
        ("kernel_computed", "kernel entries computed (K1)", 0), ("time_s", "time (s)", 0))
FLOOR = 1e-16
# why a solver stopped (the curve's last point, the record's ``stop`` word) -> marker
STOP_MARKERS = {"own_rule": "o", "max_iter": "X", "no_progress": "s", "infeasible": "D",
                "closed_form": "*"}


def problem_of(algorithm):
    return next((problem for problem, members in PROBLEMS.items() if algorithm in members),
                "other")


def stop_of(record):
    """Why the solver stopped: the record's ``stop`` (DESIGN.md) when it has one, else the
    curve's last point's."""
    stop = record.get("stop")
    if isinstance(stop, str):
        return stop
    curve = record.get("curve")
    return curve[-1].get("stop", "unknown") if isinstance(curve, list) and curve else "unknown"


def first_pair(curve):
    """The points of the first class pair of a record's curve, as a DataFrame."""
    points = pd.DataFrame(curve)
    return points[points.get("pair", 0) == 0] if "pair" in points else points


def curves_of(records: pd.DataFrame, dataset: str) -> dict[str, dict[str, pd.DataFrame]]:
    """problem -> algorithm -> its curve (first fold, first class pair) on ``dataset``."""
    found: dict[str, dict[str, pd.DataFrame]] = {}
    if "curve" not in records:
        return found
    runs = records[(records["dataset"] == dataset) & records["curve"].map(
        lambda curve: isinstance(curve, list) and len(curve) > 0)]
    for _, run in runs.sort_values(["algorithm", "fold"]).drop_duplicates("algorithm").iterrows():
        points = first_pair(run["curve"])
        points.attrs["stop"], points.attrs["status"] = stop_of(run), record_status(run)["status"]
        found.setdefault(problem_of(run["algorithm"]), {})[run["algorithm"]] = points
    return found


def suboptimality(objective, best):
    """(f - f*) / |f*| (f - f* when f* = 0), 0 drawn at FLOOR."""
    scale = abs(best) if best != 0 else 1.0
    return np.maximum((np.asarray(objective, dtype=float) - best) / scale, FLOOR)


def convergence_figure(curves: dict[str, dict[str, pd.DataFrame]], title: str) -> plt.Figure:
    """One row per problem, one column per x axis (AXES); each solver's line ends in a marker
    for why it stopped (STOP_MARKERS), its status in the legend."""
    with plt.rc_context(PRINT_STYLE):
        figure, axes = plt.subplots(len(curves), len(AXES), figsize=(10, 2.4 * len(curves)),
                                    squeeze=False)
        for row, (problem, solvers) in zip(axes, sorted(curves.items())):
            best = min(points["objective"].min() for points in solvers.values())
            for k, (algorithm, points) in enumerate(sorted(solvers.items())):
                y = suboptimality(points["objective"], best)
                label = f"{algorithm} ({points.attrs['stop']}, {points.attrs['status']})"
                for axis, (column, name, shift) in zip(row, AXES):
                    x = points[column].astype(float) + shift
                    line, = axis.plot(x, y, LINESTYLES[k % len(LINESTYLES)], label=label)
                    axis.plot(x.iloc[-1:], y[-1:], STOP_MARKERS.get(points.attrs["stop"], "*"),
                              color=line.get_color(), markersize=6)
                    axis.set_xscale("log", nonpositive="mask")
                    axis.xaxis.set_minor_formatter(NullFormatter())  # narrow ranges: no clutter
                    axis.set_yscale("log")
                    axis.set_xlabel(name)
            row[0].set_ylabel("(f - f*) / |f*|")
            row[0].set_title(problem, loc="left")
            row[-1].legend(loc="upper right", frameon=False)
        figure.suptitle(f"{title}; end marker: o own rule (optimal), X max_iter, s no progress "
                        "(stalled), D infeasible, * closed form")
        figure.tight_layout()
    return figure


COUNTS = {"iterations": "iterations", "K2": "kernel_requested", "K1": "kernel_computed"}


def _count(value):
    """An integer count as text, blank when the record has none (e.g. SVC's kernel counts)."""
    return "" if value is None or pd.isna(value) else str(int(value))


def summary(records: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, algorithm), first fold: problem, iterations, K2, K1, time, points
    of its curve (0: the solver records none), why it stopped and its status."""
    rows = []
    for _, run in records.sort_values(["dataset", "algorithm", "fold"]).drop_duplicates(
            ["dataset", "algorithm"]).iterrows():
        curve = run.get("curve")
        drawn = isinstance(curve, list) and len(curve) > 0
        rows.append({"dataset": run["dataset"], "algorithm": run["algorithm"],
                     "problem": problem_of(run["algorithm"]),
                     **{column: _count(run.get(field)) for column, field in COUNTS.items()},
                     "train s": f"{run.get('train_time_s', float('nan')):.3g}",
                     "points": len(curve) if drawn else 0,
                     "stop": stop_of(run) if drawn else "",
                     "status": record_status(run)["status"]})
    return pd.DataFrame(rows)
