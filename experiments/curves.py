"""Renderer of the convergence curves (cells: conf/experiment/curves.yaml): per data set one
figure, curves-<dataset>.png / .pdf beside the Markdown, the solvers of each problem overlaid
(svmbench.analysis.curves), and a table of where and why each stopped."""

from _common import sources_and_cells
from _tsang import markdown

from svmbench.analysis.curves import convergence_figure, curves_of, summary
from svmbench.analysis.plots import save_figure
from svmbench.status import FINISHED, statuses


def render(records, artefact):
    parts = [
        "# Convergence curves",
        (f"SCALE={artefact.scale}. Suboptimality (f - f*) / |f*| against iterations, kernel "
         "entries requested (K2) and computed (K1), and wall time since the solver started "
         "(time-stamp counter mapped to CLOCK_MONOTONIC, svmbench.solvers.checkpoints); f* is "
         "the best objective any solver of the same problem reached on that data set. First "
         "fold, first class pair; a marker ends each line: why the solver stopped."),
    ]
    finished = records[statuses(records).isin(FINISHED)] if not records.empty else records
    if finished.empty:
        return "\n\n".join([*parts, "No records yet.", *sources_and_cells(records, artefact)])
    for dataset in sorted(set(finished["dataset"])):
        curves = curves_of(finished, dataset)
        if curves:
            stem = artefact.output.with_name(f"curves-{dataset}")
            save_figure(convergence_figure(curves, dataset), stem)
            parts.append(f"## {dataset}\n\n![{dataset}]({stem.name}.png)")
    table = summary(records).set_index("dataset")
    parts.append("Where each solver stopped (points: checkpoints in its curve; 0: it records "
                 "none, e.g. scikit-learn's SVC):\n\n" + markdown(table))
    return "\n\n".join([*parts, *sources_and_cells(records, artefact)])
