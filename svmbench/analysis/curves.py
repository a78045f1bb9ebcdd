"""Convergence curves from run records (their ``curve``, svmbench.solvers.checkpoints), drawn as
benchopt draws them: per data set, the solvers of one problem overlaid, suboptimality against
iterations, kernel entries requested (K2), computed (K1) and time, where each stopped marked by
why, and the time, K1 and K2 each solver took to reach a relative suboptimality
(:func:`time_to_suboptimality`).

Solvers minimise different problems, so a figure has one row per problem (ROWS): within a row the
objective is the same function and the suboptimality ``(f - f*) / |f*|`` is taken against the
problem's *certified optimum* (svmbench.optimum: a reference solve in float64 whose duality gap,
measured by the referee, bounds its own error), never against whichever solver stopped lowest.
The reference's gap is drawn as a shaded floor: suboptimality below it is not resolved, and no
line goes under it. A row without a stored optimum is measured against the best objective reached
and says so in its title. A solver without a curve (scikit-learn's SVC, RSVM) is listed in the
table, not drawn. Multi-class records are drawn by their first class pair.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter

from svmbench.analysis.plots import LINESTYLES, PRINT_STYLE
from svmbench.status import record_status
from svmbench.statuses import CONVERGED, INFEASIBLE

# the problem's name (svmbench.referee.PROBLEMS; the optimum records') -> (row title, the
# solvers minimising it: their record's objective)
ROWS = {
    "csvc": ("C-SVM dual 1/2 a'Qa - 1'a (box, y'a = 0)",
             ("smo_wss2", "smo_platt", "smo_mod1", "smo_mod2", "rosen", "libsvm")),
    "hard_margin": ("hard margin, no bias: 1/2 a'Qa - 1'a (a >= 0)", ("gs_svm", "hm_svm")),
    "meb": ("L2-SVM as MEB: a'Qa on the simplex", ("cvm", "fw", "mfw")),
    "rho_simplex": ("rho-SVM: a'Qa on the simplex",
                    ("rho_svm", "rho_ensemble", "parzen", "eg_fixed")),
}
PROBLEMS = dict(ROWS.values())
OPTIMUM = "optimum"  # the algorithm of the certified optima (svmbench.optimum.OptimumSVC)
AXES = (("iteration", "iterations + 1", 1), ("kernel_requested", "kernel entries requested (K2)", 0),
        ("kernel_computed", "kernel entries computed (K1)", 0), ("time_s", "time (s)", 0))
FLOOR = 1e-16
LEVELS = (1e-2, 1e-4, 1e-6)  # relative suboptimality reached: the table's columns
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
    runs = records[(records["dataset"] == dataset) & (records["algorithm"] != OPTIMUM)
                   & records["curve"].map(lambda curve: isinstance(curve, list) and len(curve) > 0)]
    for _, run in runs.sort_values(["algorithm", "fold"]).drop_duplicates("algorithm").iterrows():
        points = first_pair(run["curve"])
        points.attrs["stop"], points.attrs["status"] = stop_of(run), record_status(run)["status"]
        found.setdefault(problem_of(run["algorithm"]), {})[run["algorithm"]] = points
    return found


def certifies(run) -> bool:
    """Whether an optimum record certifies its problem's f*: the referee measured a finite
    duality gap at the reference point of its first class pair, and the solve did not end
    infeasible. Weak duality bounds f(a_ref) - f* <= gap however the solve stopped, so a
    reference that ended ``stalled`` at the resolution of float64 (a hard margin of huge dual
    objective, whose KKT test at an absolute tol sits below the gradient's rounding) still
    certifies f* to gap / |f*|; an infeasible problem has no finite optimum."""
    gaps = run.get("optimum_gaps")
    return (record_status(run)["status"] != INFEASIBLE and isinstance(gaps, list)
            and len(gaps) > 0 and math.isfinite(float(gaps[0])))


def certifying_optimum(records: pd.DataFrame, dataset: str, problem: str):
    """The first fold's record certifying ``problem``'s (a key of ROWS) optimum on ``dataset``
    (:func:`certifies`), or None."""
    if "optimum_objectives" not in records or "problem" not in records:
        return None
    runs = records[(records["dataset"] == dataset) & (records["algorithm"] == OPTIMUM)
                   & (records["problem"] == problem)].sort_values("fold")
    return next((run for _, run in runs.iterrows() if certifies(run)), None)


def optima_of(records: pd.DataFrame, dataset: str) -> dict[str, tuple[float, float]]:
    """problem (row title) -> (f*, its gap): the certified optimum of the first class pair on
    ``dataset`` (:func:`certifying_optimum`), from the records of svmbench.optimum."""
    found = {}
    for problem, (title, _) in ROWS.items():
        run = certifying_optimum(records, dataset, problem)
        if run is not None:
            found[title] = (float(run["optimum_objectives"][0]), float(run["optimum_gaps"][0]))
    return found


def reference_note(run) -> str | None:
    """For a certifying optimum record (:func:`certifying_optimum`) whose reference solve did not
    end converged: how it ended, its KKT violation against its tolerance and the referee's
    rounding allowance, and the gap that certifies f* nonetheless; None otherwise."""
    status = None if run is None else record_status(run)["status"]
    if status is None or status == CONVERGED:
        return None
    best, gap = float(run["optimum_objectives"][0]), float(run["optimum_gaps"][0])
    violation, tol, allowance = (run.get(key, math.nan) for key in (
        "kkt_violation", "kkt_tolerance", "kkt_allowance"))
    return (f"the reference solve ({run.get('reference_solver', OPTIMUM)}) ended "
            f"{status} at KKT violation {violation:.2g} (its tol {tol:.2g}; "
            f"the referee's float64 rounding allowance there {allowance:.2g}) with f* = "
            f"{best:.7g}; its duality gap {gap:.2g} ({gap / (abs(best) or 1.0):.1e} relative) "
            "bounds its error all the same (weak duality): f* is certified to that bound")


def suboptimality(objective, best, gap=0.0):
    """(f - f*) / |f*| (f - f* when f* = 0), drawn no lower than the reference's own relative
    error bound ``gap`` / |f*| (FLOOR when it is 0)."""
    scale = abs(best) if best != 0 else 1.0
    return np.maximum((np.asarray(objective, dtype=float) - best) / scale,
                      max(gap / scale, FLOOR))


def reference(solvers, optimum):
    """(f*, gap, certified) of a row: its certified optimum, else the best objective reached."""
    if optimum is not None:
        return (*optimum, True)
    return min(points["objective"].min() for points in solvers.values()), 0.0, False


def convergence_figure(curves: dict[str, dict[str, pd.DataFrame]], title: str,
                       optima: dict[str, tuple[float, float]] | None = None) -> plt.Figure:
    """One row per problem, one column per x axis (AXES); each solver's line ends in a marker
    for why it stopped (STOP_MARKERS), its status in the legend; the row's certified optimum's
    error bound shaded as the floor."""
    optima = optima or {}
    with plt.rc_context(PRINT_STYLE):
        figure, axes = plt.subplots(len(curves), len(AXES), figsize=(10, 2.4 * len(curves)),
                                    squeeze=False)
        for row, (problem, solvers) in zip(axes, sorted(curves.items())):
            best, gap, certified = reference(solvers, optima.get(problem))
            floor = max(gap / (abs(best) or 1.0), FLOOR)
            for k, (algorithm, points) in enumerate(sorted(solvers.items())):
                y = suboptimality(points["objective"], best, gap)
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
            for axis in row:
                axis.axhspan(FLOOR, floor, color="0.85", zorder=0)
            row[0].set_ylabel("(f - f*) / |f*|")
            row[0].set_title(f"{problem}: " + (
                f"f* certified (reference gap {floor:.1e}, shaded)" if certified
                else "f* = best reached, not certified"), loc="left")
            row[-1].legend(loc="upper right", frameon=False)
        figure.suptitle(f"{title}; end marker: o own rule (optimal), X max_iter, s no progress "
                        "(stalled), D infeasible, * closed form")
        figure.tight_layout()
    return figure


def time_to_suboptimality(curves, optima, levels=LEVELS):
    """One row per (problem, algorithm): for each relative suboptimality level, the time, K1 and
    K2 at the first checkpoint where (f - f*) / |f*| <= level, against the certified optimum
    (benchopt's view, with the optimum certified); "-" where not reached, "unresolved" where the
    level is below the reference's own error bound. Checkpoints are log-spaced, so a value is the
    first checkpoint past the level, an upper bound on the exact crossing."""
    rows = []
    for problem, solvers in sorted(curves.items()):
        if problem not in optima:
            continue
        best, gap = optima[problem]
        floor = gap / (abs(best) or 1.0)
        for algorithm, points in sorted(solvers.items()):
            relative = (points["objective"].astype(float) - best) / (abs(best) or 1.0)
            row = {"problem": problem, "algorithm": algorithm}
            for level in levels:
                reached = points[relative.to_numpy() <= level]
                for name, column in (("time s", "time_s"), ("K1", "kernel_computed"),
                                     ("K2", "kernel_requested")):
                    if level < floor:
                        value = "unresolved"
                    elif reached.empty:
                        value = "-"
                    else:
                        value = reached.iloc[0][column]
                        value = f"{value:.3g}" if column == "time_s" else str(int(value))
                    row[f"{name} @{level:g}"] = value
            rows.append(row)
    return pd.DataFrame(rows)


COUNTS = {"iterations": "iterations", "K2": "kernel_requested", "K1": "kernel_computed"}


def _count(value):
    """An integer count as text, blank when the record has none (e.g. SVC's kernel counts)."""
    return "" if value is None or pd.isna(value) else str(int(value))


def _gap(value):
    """The referee's duality gap (or relative gap) at the returned point, blank when not
    measured (records older than the referee)."""
    return "" if value is None or pd.isna(value) else f"{value:.2g}"


def problem_title(run) -> str:
    """The row title of the problem a record solved: its solver's, or for a reference solve
    (svmbench.optimum) the problem it names."""
    if run["algorithm"] == OPTIMUM:
        return ROWS.get(run.get("problem"), (str(run.get("problem")),))[0]
    return problem_of(run["algorithm"])


def summary(records: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, algorithm, problem), first fold: iterations, K2, K1, time, the
    referee's gap at its point, points of its curve (0: the solver records none), why it stopped
    and its status."""
    rows = []
    titled = records.assign(problem=[problem_title(run) for _, run in records.iterrows()])
    for _, run in titled.sort_values(["dataset", "algorithm", "problem", "fold"]).drop_duplicates(
            ["dataset", "algorithm", "problem"]).iterrows():
        curve = run.get("curve")
        drawn = isinstance(curve, list) and len(curve) > 0
        rows.append({"dataset": run["dataset"], "algorithm": run["algorithm"],
                     "problem": run["problem"],
                     **{column: _count(run.get(field)) for column, field in COUNTS.items()},
                     "train s": f"{run.get('train_time_s', float('nan')):.3g}",
                     "referee gap": _gap(run.get("referee_gap")),
                     "points": len(curve) if drawn else 0,
                     "stop": stop_of(run) if drawn else "",
                     "status": record_status(run)["status"]})
    return pd.DataFrame(rows)
