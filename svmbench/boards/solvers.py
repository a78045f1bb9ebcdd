"""Renderer of the solvers board (cells: svmbench/boards/experiment/solvers.yaml): per problem, the time
each solver takes to reach a common certified suboptimality at 1 and 2 threads, its K1 and K2
there, and rank tests across data sets on the 1-thread times (svmbench.analysis.solvers_board)."""

import numpy as np

from svmbench.analysis.artefact_tables import markdown, sources_and_cells
from svmbench.analysis.curves import ROWS, certifying_optimum, reference_note
from svmbench.analysis.solvers_board import LEVEL, board, scores, times_table
from svmbench.analysis.stats import friedman
from svmbench.status import FINISHED, statuses


def render(records, artefact):
    parts = [
        "# Solvers board",
        (f"SCALE={artefact.scale}. The solvers of each dual problem compared on what they take "
         f"to reach a relative suboptimality of {LEVEL:g} of the problem's certified optimum "
         "(algorithm=optimum: a reference solve on the float64 kernel matrix whose duality gap, "
         "measured by the referee, bounds its error), not on accuracy: they solve the same "
         "convex problem. Seconds at the first checkpoint of the solver's curve past the level "
         "(wall time since the solver started; K1 and K2 there in the second table); * read at "
         "the end of the fit (a solver without a curve that ended within the level: an upper "
         "bound); - not reached before its own stopping rule; ? the level is below the "
         "optimum's error bound. Fold 0 of 5, first class pair (binary sets), each solver at its "
         "own default tolerance, one fit at a time (basic launcher)."),
    ]
    if records.empty:
        return "\n\n".join([*parts, "No records yet.", *sources_and_cells(records, artefact)])
    entries = board(records)
    left_out = records[~statuses(records).isin(FINISHED)]
    if not left_out.empty:
        reasons = {f"{row['dataset']} / {row['algorithm']}: "
                   f"{row.get('unsuitable_reason') or row['status']}"
                   for _, row in left_out.iterrows()}
        parts.append("Not on the board (no finished fit): " + "; ".join(sorted(reasons)))
    for problem, (title, _) in ROWS.items():
        times = times_table(entries, problem)
        if times.empty:
            continue
        parts.append(f"## {title}\n\nSeconds to {LEVEL:g}:\n\n{markdown(times)}")
        parts.extend(f"{dataset}, f*: {note}." for dataset in sorted(set(records["dataset"]))
                     if (note := reference_note(certifying_optimum(records, dataset, problem))))
        counts = entries[(entries["problem"] == problem) & (entries["threads"] == 1)]
        counts = counts.assign(text=[_counts_text(row) for _, row in counts.iterrows()])
        parts.append("K1 / K2 to the level (1 thread; the same at 2, the paths are "
                     "bit-identical):\n\n" + markdown(counts.pivot(
                         index="dataset", columns="algorithm", values="text").fillna("")))
        parts.append(rank_line(scores(entries, problem, 1)))
    return "\n\n".join([*parts, *sources_and_cells(records, artefact)])


def _counts_text(row):
    if row["K1"] is None or row["K1"] != row["K1"]:
        return "-" if row["read"] == "not reached" else ""
    return f"{int(row['K1']):,} / {int(row['K2']):,}"


def rank_line(table):
    """Average ranks of the 1-thread times (ties: mid-ranks; not reached: last, tied with the
    others that did not reach it) and Friedman / Iman-Davenport over the data sets, when there are
    at least two solvers and three sets."""
    if table.shape[1] < 2 or table.shape[0] < 3:
        return (f"Rank tests need at least 3 data sets and 2 solvers; here {table.shape[0]} "
                f"set(s), {table.shape[1]} solver(s).")
    reached = np.isfinite(table.to_numpy())
    if not reached.any():
        return f"No solver reached the level on any of the {table.shape[0]} sets: no ranks."
    # the rank tests take finite scores: "not reached" becomes one value above every time
    result = friedman(table.where(reached, table.to_numpy()[reached].max() + 1),
                      lower_is_better=True)
    ranks = ", ".join(f"{name} {rank:.2f}" for name, rank in
                      sorted(result.average_ranks.items(), key=lambda item: item[1]))
    return (f"Average ranks of the 1-thread time over {table.shape[0]} sets (lower is faster): "
            f"{ranks}; Friedman chi2 {result.statistic:.2f}, p {result.pvalue:.3g}; "
            f"Iman-Davenport F {result.f_statistic:.2f}, p {result.f_pvalue:.3g}.")
