"""Renderer of the convergence curves (cells: svmbench/boards/experiment/curves.yaml): per data set one
figure, curves-<dataset>.png / .pdf beside the Markdown, the solvers of each problem overlaid
against the problem's certified optimum (svmbench.analysis.curves, svmbench.optimum), the time,
K1 and K2 each took to reach 1e-2, 1e-4 and 1e-6 of it, and a table of where and why each
stopped."""

import pandas as pd

from svmbench.analysis.artefact_tables import markdown, sources_and_cells
from svmbench.analysis.curves import (
    OPTIMUM,
    ROWS,
    certifying_optimum,
    convergence_figure,
    curves_of,
    optima_of,
    reference_note,
    summary,
    time_to_suboptimality,
)
from svmbench.analysis.plots import save_figure
from svmbench.status import FINISHED, statuses


def render(records, artefact):
    parts = [
        "# Convergence curves",
        (f"SCALE={artefact.scale}. Suboptimality (f - f*) / |f*| against iterations, kernel "
         "entries requested (K2) and computed (K1), and wall time since the solver started "
         "(time-stamp counter mapped to CLOCK_MONOTONIC, svmbench.solvers.checkpoints); f* is "
         "the problem's certified optimum on that data set (algorithm=optimum: a reference "
         "solve on the float64 kernel matrix whose duality gap, measured by the referee, bounds "
         "its error; shaded: suboptimality below that bound is not resolved). First fold, first "
         "class pair; a marker ends each line: why the solver stopped."),
    ]
    finished = records[statuses(records).isin(FINISHED)] if not records.empty else records
    if finished.empty:
        return "\n\n".join([*parts, "No records yet.", *sources_and_cells(records, artefact)])
    reached = []
    for dataset in sorted(set(finished["dataset"])):
        curves, optima = curves_of(finished, dataset), optima_of(finished, dataset)
        if curves:
            stem = artefact.output.with_name(f"curves-{dataset}")
            save_figure(convergence_figure(curves, dataset, optima), stem)
            parts.append(f"## {dataset}\n\n![{dataset}]({stem.name}.png)")
            uncertified = sorted(set(curves) - set(optima))
            if uncertified:
                parts.append("No certified optimum stored for: " + "; ".join(
                    f"{title} ({why_uncertified(finished, dataset, title)})"
                    for title in uncertified) + ". Drawn against the best objective reached.")
            for problem, (title, _) in ROWS.items():
                note = reference_note(certifying_optimum(finished, dataset, problem))
                if note:
                    parts.append(f"{title}: {note}.")
            table = time_to_suboptimality(curves, optima)
            if not table.empty:
                reached.append(table.assign(dataset=dataset))
    if reached:
        parts.append(
            "Time (s), K1 and K2 to reach a relative suboptimality of 1e-2, 1e-4 and 1e-6 of the "
            "certified optimum, at the first checkpoint past it (checkpoints are log-spaced: an "
            "upper bound on the crossing); - not reached; unresolved: below the reference's own "
            "error bound.\n\n" + markdown(pd.concat(reached).set_index(["dataset", "problem"])))
    table = summary(records).set_index("dataset")
    parts.append("Where each solver stopped (points: checkpoints in its curve; 0: it records "
                 "none, e.g. scikit-learn's SVC):\n\n" + markdown(table))
    return "\n\n".join([*parts, *sources_and_cells(records, artefact)])


# why a problem's reference solve can end without a certified optimum, by problem and status
UNCERTIFIED = {
    ("hard_margin", "infeasible"): (
        "the reference solve (hm_svm) ended infeasible: no hard margin separates these training "
        "points, so the dual has no finite optimum"),
    ("rho_simplex", "infeasible"): (
        "its reference is the hard-margin solution rescaled, which does not exist here: 0 then "
        "lies in the convex hull of the y_i phi(x_i) (Gordan), the simplex minimum is 0 and a "
        "relative suboptimality is undefined"),
}


def why_uncertified(records, dataset, title):
    """Why the problem titled ``title`` has no certified optimum on ``dataset``: what its
    reference solve's record says, or that none is stored."""
    problem = next(key for key, (row_title, _) in ROWS.items() if row_title == title)
    runs = records[(records["dataset"] == dataset) & (records["algorithm"] == OPTIMUM)]
    runs = runs[runs["problem"] == problem] if "problem" in runs else runs.iloc[:0]
    if runs.empty:
        return "no reference solve stored"
    status = statuses(runs.sort_values("fold")).iloc[0]
    return UNCERTIFIED.get((problem, status), f"the reference solve ended {status}")
