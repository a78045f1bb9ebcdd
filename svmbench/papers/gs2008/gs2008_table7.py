"""Renderer of gs-svm-tnn2008 Table VII (cells: svmbench/papers/gs2008/experiment/gs2008_table7.yaml): test errors of GS-SVM, HM-SVM and the soft-margin SVM on 13 small
UCI sets (ten-fold nested CV) and on Page, Splice, Dna, Letter, Satimage, Shuttle (protocol in
svmbench/papers/_uci.py). Bold: the best mean and every method not significantly different from it
(two-tailed paired t-test over the outer folds at 0.05, as the paper; no test on a given split).
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
from svmbench.status import FINISHED, statuses

LARGE_ALGORITHMS = ("gs_svm", "smo_wss2")  # the paper has no HM-SVM there ("/")
MEANS = ("Mean (13 small)", "Mean (6 large)")


def paper_values():
    """The paper's errors by row label; its two "Mean" rows under our mean labels."""
    reference = load_reference("gs2008_table7")
    means = reference.index[reference["problem"] == "Mean"]
    reference.loc[means, "problem"] = [MEANS[0], MEANS[1]]
    return reference.set_index("problem").rename(columns={f"{a}_error": label for a, label in
                                     (("gs_svm", "GS-SVMs"), ("hm_svm", "HM-SVMs"),
                                      ("svm", "SVMs"))})[list(ALGORITHMS.values())]


def render(records, artefact):
    scale = artefact.scale
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
        parts.append(QUICK_NOTE)
    paper = paper_values()
    for heading, datasets, algorithms, mean_label in groups:
        parts.append(f"## {heading}")
        finished = records[records["dataset"].isin(datasets.values())
                           & statuses(records).isin(FINISHED)] if len(records) else records
        if finished.empty:
            parts.append("Not run at this scale (SCALE=paper runs it).")
            continue
        parts.append(group_markdown(records, datasets, algorithms, paper, mean_label))
    parts.append(tuning_note(LARGE))
    parts += footer(records, artefact)
    return "\n\n".join(p for p in parts if p)
