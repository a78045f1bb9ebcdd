"""Renderer of gs-svm-pakdd2005 Table 2 (cells: svmbench/papers/gs2005/experiment/gs2005_table2.yaml): accuracy (%) of GS-SVM, HM-SVM and the soft-margin SVM on 15 UCI
sets, ten-fold nested CV (protocol and shared records: svmbench/papers/_uci.py, the same runs as
gs-svm-tnn2008 Table VII). Bold: best mean and every method not significantly different from it
(two-tailed paired t-test over the ten outer folds at 0.05).
"""

from svmbench.analysis.reference import load_reference
from svmbench.papers._uci import (
    ALGORITHMS,
    LARGE,
    QUICK_NOTE,
    SMALL,
    footer,
    group_markdown,
    tuning_note,
)

EXTRA = ("Page", "Splice")  # the two sets beyond the 13 small ones, nested CV as well
# the 2005 paper's row labels, in its order -> our labels of the shared protocol
ROWS = {"Australian": "Australian Credit", "German": "German", "Glass": "Glass", "Heart": "Heart",
        "Ionosphere": "Ionosphere", "Iris": "Iris", "Liver": "Liver disorders", "Page": "Page",
        "Diabetes": "Pima Indians Diabetes", "Segment": "Segment", "Splice": "Splice",
        "Vowel": "Vowel", "WDBC": "Wdbc", "Wine": "Wine", "Zoo": "Zoo"}
MEAN = "Mean"


def datasets():
    known = {**SMALL, **{label: LARGE[label][0] for label in EXTRA}}
    return {row: known[label] for row, label in ROWS.items()}


def paper_values():
    reference = load_reference("gs2005_table2").set_index("problem")
    return reference.rename(columns={"gs_svm_acc": "GS-SVMs", "hm_svm_acc": "HM-SVMs",
                                     "svm_acc": "SVMs"})[list(ALGORITHMS.values())]


def render(records, artefact):
    scale = artefact.scale
    parts = [
        "# gs-svm-pakdd2005 Table 2 — accuracy of GS-SVMs, HM-SVMs and SVMs",
        (f"SCALE={scale}. Accuracy (%) = 100 (1 - test error), mean over the outer folds of "
         "ten-fold nested CV; ours | paper | diff. SVMs = smo_wss2 (our LIBSVM 2.83 solver, tol "
         "1e-3); grid log2 theta in -8..8 (and log2 C in -1..10 for SVMs), inner 10-fold CV. "
         "Bold: best mean and those not significantly different (two-tailed paired t-test over "
         "the outer folds, 0.05)."),
    ]
    if scale != "paper":
        parts.append(QUICK_NOTE)
    accuracy = records.assign(accuracy=100 * (1 - records["test_error"])) \
        if "test_error" in records else records
    parts.append(group_markdown(accuracy, datasets(), tuple(ALGORITHMS), paper_values(), MEAN,
                                metric="accuracy", lower_is_better=False, number_format="{:.2f}"))
    parts.append(tuning_note(EXTRA))
    parts += footer(records, artefact)
    return "\n\n".join(p for p in parts if p)
