"""The UCI protocol shared by gs-svm-pakdd2005 Table 2, gs-svm-tnn2008 Table VII and Figs. 2-3.

All three are one protocol (gs-svm-tnn2008 §V-C): features scaled to [-1, 1] on each training
part; GS-SVM and HM-SVM tune log2 theta in -8..8, the soft-margin SVM (our LIBSVM 2.83 solver
``smo_wss2``) also log2 C in -1..10, by inner 10-fold CV; ten-fold nested CV where no test set is
given, the given split otherwise; one-vs-one. The artefacts share their cells and records
(``RUNS``), so each number is computed once.

Where the full protocol does not fit this 2-core machine, the tuning (never the final training
or the test) runs on a seeded stratified sample of the training part (``tune_subsample``);
every table says where.
"""

import pandas as pd

from svmbench.analysis.tables import Table, mean_std_table, provenance, side_by_side, to_markdown
from svmbench.paper import cell_outcome, not_run_note, shell_command, with_text_column

EXPERIMENT = "uci_nested_cv"
RUNS = "uci/runs"
ALGORITHMS = {"gs_svm": "GS-SVMs", "hm_svm": "HM-SVMs", "smo_wss2": "SVMs"}
# paper label -> (dataset, protocol overrides at SCALE=paper)
SMALL = {
    "Australian Credit": "australian", "German": "german", "Glass": "glass", "Heart": "heart",
    "Ionosphere": "ionosphere", "Iris": "iris", "Liver disorders": "liver_disorders",
    "Pima Indians Diabetes": "diabetes", "Segment": "segment", "Vowel": "vowel", "Wdbc": "wdbc",
    "Wine": "wine", "Zoo": "zoo",
}
LARGE = {  # nested CV where no test set is given, the given split otherwise
    "Page": ("page_blocks", ["protocol=nested_cv", "protocol.tune_subsample=1000"]),
    "Splice": ("splice", ["protocol=nested_cv", "protocol.tune_subsample=1000"]),
    "Dna": ("dna", ["protocol=tuned_holdout"]),
    "Letter": ("letter", ["protocol=tuned_holdout", "protocol.tune_subsample=2000"]),
    "Satimage": ("satimage", ["protocol=tuned_holdout", "protocol.tune_subsample=2000"]),
    "Shuttle": ("shuttle", ["protocol=tuned_holdout", "protocol.tune_subsample=2000",
                            "protocol.inner_k=5"]),
}
QUICK_SETS = ("heart", "iris", "wine")
# SCALE=quick: two outer folds, inner 3-fold, a coarse corner of the grid
QUICK_NOTE = ("SCALE=quick: heart, iris, wine only; outer folds 0-1, inner 3-fold, log2 theta in "
              "-3..1, log2 C in -1..3. Not comparable to the paper.")
QUICK = ["protocol=nested_cv", "protocol.inner_k=3", "protocol.grid.gamma_log2=[-3,1]",
         "protocol.grid.C_log2=[-1,3]", "folds=[0,1]"]


def cell(dataset, algorithm, protocol):
    return [f"experiment_name={EXPERIMENT}", f"dataset={dataset}", f"algorithm={algorithm}",
            *protocol]


def small_protocol(scale):
    return ["protocol=nested_cv"] if scale == "paper" else QUICK


def small_cells(scale, algorithms, sets=None):
    """Cells of the 13 small sets (``sets``: a subset of their labels), or of the quick sets."""
    chosen = [SMALL[label] for label in (sets or SMALL)]
    datasets = chosen if scale == "paper" else [d for d in chosen if d in QUICK_SETS]
    return [cell(d, a, small_protocol(scale)) for d in datasets for a in algorithms]


def large_cells(scale, labels, algorithms):
    if scale != "paper":
        return []
    return [cell(LARGE[label][0], a, LARGE[label][1]) for label in labels for a in algorithms]


def tuning_note(labels):
    """What the table must say about sets tuned on a sample."""
    sampled = [f"{label} ({next(o for o in LARGE[label][1] if 'subsample' in o).split('=')[1]})"
               for label in labels if any("subsample" in o for o in LARGE[label][1])]
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
            if outcome == "failed":
                notes[label] = not_run_note(found)
            elif outcome == "missing":
                notes.setdefault(label, "not run at this scale")
            elif len(found) < expected_folds(found):
                notes[label] = "; ".join(filter(None, [notes.get(label), (
                    f"{ALGORITHMS[algorithm]}: {len(found)} of {expected_folds(found)} folds")]))
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
    table = Table(values, None, bold, default_format=number_format)
    return to_markdown(with_text_column(side_by_side(table, paper), "Note", notes))


def footer(records, scale, cells):
    """Tuning cost, provenance and the shell command of every cell."""
    parts = []
    if "inner_trainings" in records:
        totals = records.groupby("algorithm")[["inner_trainings", "inner_tuning_time_s",
                                               "train_time_s"]].sum()
        parts.append("Trainings run by the tuning and its wall time, per algorithm: " + "; ".join(
            f"{ALGORITHMS.get(a, a)} {int(r['inner_trainings'])} trainings, "
            f"{r['inner_tuning_time_s']:.0f} s tuning + {r['train_time_s']:.0f} s final fits"
            for a, r in totals.iterrows()))
    commands = "\n".join(f"    {shell_command(c)}" for c in cells(scale))
    return [*parts, provenance(records), "Cells (each re-runs from the shell):\n\n" + commands]
