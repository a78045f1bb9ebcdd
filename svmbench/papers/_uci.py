"""The UCI protocol shared by gs-svm-pakdd2005 Table 2, gs-svm-tnn2008 Table VII and Figs. 2-3.

All three are one protocol (gs-svm-tnn2008 §V-C): features scaled to [-1, 1] on each training
part; GS-SVM and HM-SVM tune log2 theta in -8..8, the soft-margin SVM (our LIBSVM 2.83 solver
``smo_wss2``) also log2 C in -1..10, by inner 10-fold CV; ten-fold nested CV where no test set is
given, the given split otherwise; one-vs-one. The artefacts share their cells and records
(one store, one experiment_name), so each number is computed once; their cells are in
conf/experiment/{gs2005_table2,gs2008_table7,gs2008_fig2_3}.yaml.

Where the full protocol does not fit this 2-core machine, the tuning (never the final training
or the test) runs on a seeded stratified sample of the training part (``tune_subsample``);
every table says where.
"""

import pandas as pd

from svmbench.analysis.artefact_tables import (
    cell_outcome,
    convergence_note,
    not_run_note,
    sources_and_cells,
    with_text_column,
)
from svmbench.analysis.tables import Table, mean_std_table, side_by_side, to_markdown

ALGORITHMS = {"gs_svm": "GS-SVMs", "hm_svm": "HM-SVMs", "smo_wss2": "SVMs"}
# paper label -> dataset
SMALL = {
    "Australian Credit": "australian", "German": "german", "Glass": "glass", "Heart": "heart",
    "Ionosphere": "ionosphere", "Iris": "iris", "Liver disorders": "liver_disorders",
    "Pima Indians Diabetes": "diabetes", "Segment": "segment", "Vowel": "vowel", "Wdbc": "wdbc",
    "Wine": "wine", "Zoo": "zoo",
}
LARGE = {  # label -> (dataset, tuning sample size at SCALE=paper, as the experiment configs)
    "Page": ("page_blocks", 1000), "Splice": ("splice", 1000), "Dna": ("dna", None),
    "Letter": ("letter", 2000), "Satimage": ("satimage", 2000), "Shuttle": ("shuttle", 2000),
}
# SCALE=quick: two outer folds, inner 3-fold, a coarse corner of the grid
QUICK_NOTE = ("SCALE=quick: heart, iris, wine only; outer folds 0-1, inner 3-fold, log2 theta in "
              "-3..1, log2 C in -1..3. Not comparable to the paper.")


def tuning_note(labels):
    """What the table must say about sets tuned on a sample."""
    sampled = [f"{label} ({LARGE[label][1]})" for label in labels if LARGE[label][1]]
    return ("Tuned on a stratified sample of the training part (its size in brackets), then "
            "trained on the whole training part and tested as the paper: " + ", ".join(sampled)
            + ".") if sampled else ""


def expected_folds(found):
    """Outer folds a cell has when complete: protocol.k for nested CV, 1 for a given split."""
    k = found["protocol_k"].iloc[0] if "protocol_k" in found else None
    return 1 if k is None or pd.isna(k) else int(k)


def group_markdown(records, datasets, algorithms, paper, mean_label, metric="test_error",
                   lower_is_better=True, number_format="{:.4f}"):
    """One group of rows: our mean ``metric`` per dataset and algorithm (bold: best and not
    significantly different by a two-tailed paired t-test over folds at 0.05) beside ``paper``
    (row labels x ``ALGORITHMS`` labels), a mean row, and a note where a cell failed or is
    missing. Both means are taken over the rows measured for every algorithm, so they compare."""
    columns = [ALGORITHMS[a] for a in algorithms]
    rename = {dataset: label for label, dataset in datasets.items()}
    notes = {}
    for label, dataset in datasets.items():
        for algorithm in algorithms:
            outcome, found = cell_outcome(records, dataset, algorithm)
            if outcome == "ok":
                shortfall = (f"{len(found)} of {expected_folds(found)} folds"
                             if len(found) < expected_folds(found) else "")
                flags = ", ".join(filter(None, [shortfall, convergence_note(found)]))
            else:
                flags = not_run_note(found)
            if flags:
                notes[label] = "; ".join(filter(None, [notes.get(label),
                                                       f"{ALGORITHMS[algorithm]}: {flags}"]))
    wanted = records[records["dataset"].isin(datasets.values())
                     & records["algorithm"].isin(algorithms)]
    ours = mean_std_table(wanted.assign(dataset=wanted["dataset"].map(rename),
                                        algorithm=wanted["algorithm"].map(ALGORITHMS)),
                          metric, lower_is_better=lower_is_better, number_format=number_format)
    values = ours.values.reindex(index=list(datasets), columns=columns)
    paper = paper.reindex(index=[*datasets, mean_label], columns=columns)
    complete = values.dropna(how="any").index
    values.loc[mean_label] = values.loc[complete].mean()
    if len(complete) < len(datasets):
        paper.loc[mean_label] = paper.loc[complete].mean()
        notes[mean_label] = (f"both means over the {len(complete)} rows measured here "
                             "(the paper's printed mean is over all rows)")
    bold = ours.bold.reindex(index=values.index, columns=columns).fillna(False).astype(bool)
    marks = None if ours.marks is None else \
        ours.marks.reindex(index=values.index, columns=columns).fillna("")
    table = Table(values, None, bold, default_format=number_format, bold_meaning=ours.bold_meaning,
                  marks=marks)
    return to_markdown(with_text_column(side_by_side(table, paper), "Note", notes))


def footer(records, artefact):
    """Tuning cost, provenance and the shell command of every cell."""
    parts = []
    if "inner_trainings" in records:
        totals = records.groupby("algorithm")[["inner_trainings", "inner_tuning_time_s",
                                               "train_time_s"]].sum()
        parts.append("Trainings run by the tuning and its wall time, per algorithm: " + "; ".join(
            f"{ALGORITHMS.get(a, a)} {int(r['inner_trainings'])} trainings, "
            f"{r['inner_tuning_time_s']:.0f} s tuning + {r['train_time_s']:.0f} s final fits"
            for a, r in totals.iterrows()))
    return [*parts, *sources_and_cells(records, artefact)]
