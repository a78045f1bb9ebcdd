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
