"""gs-svm-tnn2008 Table VII: test errors of GS-SVM, HM-SVM and the soft-margin SVM on 13 small
UCI sets (ten-fold nested CV) and on Page, Splice, Dna, Letter, Satimage, Shuttle (protocol in
experiments/_uci.py). Bold: the best mean and every method not significantly different from it
(two-tailed paired t-test over the outer folds at 0.05, as the paper; no test on a given split).
"""

import pandas as pd
from _uci import ALGORITHMS, EXPERIMENT, LARGE, RUNS, SMALL, large_cells, small_cells, tuning_note

from svmbench.analysis.reference import load_reference
from svmbench.analysis.tables import mean_std_table, provenance, side_by_side, to_markdown
from svmbench.paper import cell_outcome, not_run_note, shell_command, with_text_column
from svmbench.store import FINISHED

__all__ = ["EXPERIMENT", "OUTPUT", "RUNS", "cells", "render"]
OUTPUT = "gs2008/table7.md"
LARGE_ALGORITHMS = ("gs_svm", "smo_wss2")  # the paper has no HM-SVM there ("/")
MEANS = ("Mean (13 small)", "Mean (6 large)")


def cells(scale):
    return small_cells(scale, ALGORITHMS) + large_cells(scale, LARGE, LARGE_ALGORITHMS)


def paper_values():
    """The paper's errors by row label; its two "Mean" rows under our mean labels."""
    reference = load_reference("gs2008_table7")
    means = reference.index[reference["problem"] == "Mean"]
    reference.loc[means, "problem"] = [MEANS[0], MEANS[1]]
    return reference.set_index("problem").rename(columns={f"{a}_error": label for a, label in
                                     (("gs_svm", "GS-SVMs"), ("hm_svm", "HM-SVMs"),
                                      ("svm", "SVMs"))})[list(ALGORITHMS.values())]


def group_table(records, datasets, algorithms):
    """Our mean errors (bold by paired t-test) for one group of rows, notes for missing cells."""
    wanted = records[records["dataset"].isin(datasets.values())
                     & records["algorithm"].isin(algorithms)]
    rename = {dataset: label for label, dataset in datasets.items()}
    notes = {}
    for label, dataset in datasets.items():
        for algorithm in algorithms:
            outcome, found = cell_outcome(records, dataset, algorithm)
            if outcome == "failed":
                notes[label] = not_run_note(found)
            elif outcome == "missing":
                notes.setdefault(label, "not run at this scale")
    table = mean_std_table(wanted.assign(dataset=wanted["dataset"].map(rename),
                                         algorithm=wanted["algorithm"].map(ALGORITHMS)),
                           "test_error", number_format="{:.4f}")
    values = table.values.reindex(index=list(datasets), columns=[ALGORITHMS[a] for a in algorithms])
    return table.__class__(values, None, table.bold.reindex_like(values).fillna(False)
                           .astype(bool), default_format="{:.4f}"), notes


def with_mean(table, notes, label):
    """Append the mean row over the group, when every row of it was measured."""
    values = table.values.copy()
    complete = values.dropna(how="any")
    if len(complete) == len(values):
        values.loc[label] = complete.mean()
    else:
        notes[label] = f"mean over the {len(complete)} complete rows only"
        values.loc[label] = complete.mean()
    bold = table.bold.reindex(values.index).fillna(False).astype(bool)
    return table.__class__(values, None, bold, default_format="{:.4f}")


def render(records, scale):
    groups = [("13 small sets, ten-fold nested CV", SMALL, tuple(ALGORITHMS), MEANS[0]),
              ("Page, Splice (ten-fold nested CV) and the given splits", {
                  label: dataset for label, (dataset, _) in LARGE.items()}, LARGE_ALGORITHMS,
               MEANS[1])]
    parts = [
        "# gs-svm-tnn2008 Table VII — errors of GS-SVMs, HM-SVMs and SVMs",
        (f"SCALE={scale}. Test error (fraction), mean over the outer folds; ours | paper | diff. "
         "SVMs = smo_wss2 (our LIBSVM 2.83 solver, tol 1e-3). Bold: best mean and those not "
         "significantly different (two-tailed paired t-test over outer folds, 0.05); on a given "
         "split only the best is bold. Grid log2 theta in -8..8, log2 C in -1..10, inner 10-fold "
         "CV on each training part, kernel matrices shared across C and class pairs, C "
         "warm-started (svmbench.tuning)."),
    ]
    if scale != "paper":
        parts.append("SCALE=quick: heart, iris, wine only; outer folds 0-1, inner 3-fold, "
                     "log2 theta in -3..1, log2 C in -1..3. Not comparable to the paper.")
    paper = paper_values()
    for heading, datasets, algorithms, mean_label in groups:
        parts.append(f"## {heading}")
        finished = records[records["dataset"].isin(datasets.values())
                           & records["status"].isin(FINISHED)]
        if finished.empty:
            parts.append("Not run at this scale (SCALE=paper runs it).")
            continue
        table, notes = group_table(records, datasets, algorithms)
        table = with_mean(table, notes, mean_label)
        combined = side_by_side(table, paper.reindex(index=[*datasets, mean_label],
                                                     columns=[ALGORITHMS[a] for a in algorithms]))
        parts.append(to_markdown(with_text_column(combined, "Note", notes)))
    parts.append(tuning_note(LARGE))
    totals = records.groupby("algorithm")[["inner_trainings", "inner_tuning_time_s", "train_time_s"]]\
        .sum() if "inner_trainings" in records else pd.DataFrame()
    if len(totals):
        parts.append("Trainings run by the tuning, and its time (s), per algorithm: " + "; ".join(
            f"{ALGORITHMS.get(a, a)} {int(r['inner_trainings'])} trainings, "
            f"{r['inner_tuning_time_s']:.0f} s tuning + {r['train_time_s']:.0f} s final fits"
            for a, r in totals.iterrows()))
    commands = "\n".join(f"    {shell_command(c)}" for c in cells(scale))
    parts += [provenance(records), "Cells (each re-runs from the shell):\n\n" + commands]
    return "\n\n".join(p for p in parts if p)
