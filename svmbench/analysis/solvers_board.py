"""The solvers board: the solvers of one dual problem compared on what it costs them to reach a
common certified suboptimality, not on test accuracy (they solve the same convex problem, so
their accuracies differ only by where they stopped).

For each data set and problem, f* is the problem's certified optimum (svmbench.optimum, its
records' ``optimum_objectives``); a solver reaches a relative suboptimality ``level`` at the first
checkpoint of its curve (svmbench.solvers.checkpoints) where (f - f*) / |f*| <= level, and the
board takes that checkpoint's time, K1 and K2. A solver without a curve (scikit-learn's SVC,
oneDAL's, RSVM) reaches it "at the end of its fit" when the referee's objective at its returned
point is within the level: its whole fit's time and counts, an upper bound. A level below the
optimum's own error bound (its gap / |f*|) is not resolved. Binary data sets only (records hold
the first class pair's curve but the sum of every pair's objective).
"""

import math

import numpy as np
import pandas as pd

from svmbench.analysis.curves import OPTIMUM, ROWS, certifying_optimum, first_pair, problem_of
from svmbench.status import FINISHED, record_status, statuses

LEVEL = 1e-4  # the board's common relative suboptimality
NOT_REACHED = math.inf


def optimum_of(records, dataset, problem):
    """(f*, gap) of ``problem`` (a key of svmbench.analysis.curves.ROWS) on ``dataset``, or None:
    the record certifying it (svmbench.analysis.curves.certifying_optimum), first class pair."""
    run = certifying_optimum(records, dataset, problem)
    if run is None:
        return None
    return float(run["optimum_objectives"][0]), float(run["optimum_gaps"][0])


def to_level(run, best, level):
    """(time s, K1, K2, where) at which ``run`` (a record) first reached relative suboptimality
    ``level`` of ``best``: its curve's first checkpoint past the level ("checkpoint"), or its
    whole fit when it has no curve and ends within it ("end of fit"); None when not reached."""
    scale = abs(best) or 1.0
    curve = run.get("curve")
    if isinstance(curve, list) and curve:
        points = first_pair(curve)
        reached = points[(points["objective"].astype(float) - best) / scale <= level]
        if reached.empty:
            return None
        first = reached.iloc[0]
        return (float(first["time_s"]), first["kernel_computed"], first["kernel_requested"],
                "checkpoint")
    objective = run.get("referee_objective")
    if objective is None or pd.isna(objective) or (objective - best) / scale > level:
        return None
    return (float(run["train_time_s"]), run.get("kernel_computed"), run.get("kernel_requested"),
            "end of fit")


def board(records, level=LEVEL):
    """One row per (problem, data set, solver, threads): time, K1 and K2 to ``level``
    (``time_s`` inf where not reached, NaN where the level is below the optimum's own error
    bound or no optimum is stored), and where it was read."""
    rows = []
    finished = records[(records["algorithm"] != OPTIMUM) & statuses(records).isin(FINISHED)]
    for (dataset, algorithm, threads), runs in finished.groupby(
            ["dataset", "algorithm", "threads"], sort=True):
        problem = next((name for name, (title, _) in ROWS.items()
                        if title == problem_of(algorithm)), None)
        if problem is None:
            continue
        optimum = optimum_of(records, dataset, problem)
        run = runs.sort_values("fold").iloc[0]
        row = {"problem": problem, "dataset": dataset, "algorithm": algorithm,
               "threads": int(threads), "status": record_status(run)["status"]}
        if optimum is None or level < optimum[1] / (abs(optimum[0]) or 1.0):
            rows.append({**row, "time_s": np.nan, "K1": None, "K2": None, "read": "unresolved"})
            continue
        reached = to_level(run, optimum[0], level)
        time_s, k1, k2, read = reached if reached else (NOT_REACHED, None, None, "not reached")
        rows.append({**row, "time_s": time_s, "K1": k1, "K2": k2, "read": read})
    return pd.DataFrame(rows, columns=["problem", "dataset", "algorithm", "threads", "status",
                                       "time_s", "K1", "K2", "read"])


def times_table(entries, problem):
    """data sets x "<solver> <threads>t": seconds to the level ("-" not reached, "*" read at the
    end of the fit, "?" unresolved)."""
    rows = entries[entries["problem"] == problem]
    if rows.empty:
        return pd.DataFrame()
    cells = rows.assign(solver=rows["algorithm"] + " " + rows["threads"].astype(str) + "t",
                        text=[_time_text(row) for _, row in rows.iterrows()])
    return cells.pivot(index="dataset", columns="solver", values="text").fillna("")


def _time_text(row):
    if row["read"] == "unresolved":
        return "?"
    if math.isinf(row["time_s"]):
        return "-"
    return f"{row['time_s']:.3g}" + ("*" if row["read"] == "end of fit" else "")


def scores(entries, problem, threads, field="time_s"):
    """data sets x solvers: ``field`` to the level at ``threads`` (inf where not reached), data
    sets where a solver is unresolved left out (lower is better); the rank line
    (svmbench.boards.solvers.rank_line) ranks inf last."""
    rows = entries[(entries["problem"] == problem) & (entries["threads"] == threads)]
    if rows.empty:
        return pd.DataFrame()
    values = rows.pivot(index="dataset", columns="algorithm", values=field).astype(float)
    return values.dropna()
