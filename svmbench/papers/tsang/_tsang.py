"""What the multiplicative-rho-svm renderers share: the paper's rows, an experiment's finished
records, the C-grid baselines per split, the stop marks of the cells."""

import pandas as pd

from svmbench.analysis.stop_marks import stop_mark
from svmbench.status import FINISHED, statuses

# (paper's name, our dataset or None when not staged, how it is split and what its note says)
ROWS = [
    ("cancer", "ida_breast_cancer", "realizations"),
    ("diabetis", None, "realizations"),
    ("german", "ida_german", "realizations"),
    ("titanic", "ida_titanic", "realizations"),
    ("waveform", "ida_waveform", "realizations"),
    ("astro", "svmguide1", "given split; features unscaled, as the paper (docs/deviations.md 4c)"),
    ("adult1", "a1a", "given split"),
    ("adult2", "a2a", "given split"),
    ("adult3", "a3a", "given split"),
    ("adult", "a9a", "given split"),
    ("web1", "w1a", "given split"),
    ("web2", None, "given split"),
]
NOT_STAGED = "not run here: data not available"
GRID_ALGORITHM = "csvm_xialpha"


def finished(records, experiment):
    """The finished records of ``experiment`` among an artefact's records."""
    if records.empty:
        return records
    return records[(records["experiment"] == experiment) & statuses(records).isin(FINISHED)]


def grid_baselines(records):
    """Per (dataset, fold): SVM(BEST) = the lowest test error on the C grid (an oracle: it looks
    at the test set), SVM(LOO) = the test error of the C with the lowest xi-alpha bound (ties to
    the smaller C), the records chosen (``svm_best_record``, ``svm_loo_record``: labels of
    ``records``), the grid's size and summed training time."""
    grid = records[records["algorithm"] == GRID_ALGORITHM].sort_values("C")
    rows = []
    for (dataset, fold), runs in grid.groupby(["dataset", "fold"]):
        loo_record = runs["loo_xi_alpha"].idxmin()
        loo = runs.loc[loo_record]
        rows.append({"dataset": dataset, "fold": fold, "svm_best": runs["test_error"].min(),
                     "svm_loo": loo["test_error"], "loo_C": loo["C"], "grid_size": len(runs),
                     "grid_time_s": runs["train_time_s"].sum(),
                     "svm_best_record": runs["test_error"].idxmin(), "svm_loo_record": loo_record})
    return pd.DataFrame(rows, columns=["dataset", "fold", "svm_best", "svm_loo", "loo_C",
                                       "grid_size", "grid_time_s", "svm_best_record",
                                       "svm_loo_record"])


def stop_marks(records, methods):
    """{(dataset, method): stop mark} of ``methods`` per data set over its splits: algorithms,
    ``GRID_ALGORITHM`` (the whole C grid), or ``svm_best`` / ``svm_loo`` (the C-SVMs SVM(BEST)
    and SVM(LOO) chose)."""
    marks = {(dataset, algorithm): stop_mark(runs) for (dataset, algorithm), runs
             in records[records["algorithm"].isin(methods)].groupby(["dataset", "algorithm"])}
    chosen = [method for method in ("svm_best", "svm_loo") if method in methods]
    for dataset, picks in grid_baselines(records).groupby("dataset") if chosen else ():
        for method in chosen:
            marks[(dataset, method)] = stop_mark(records.loc[picks[f"{method}_record"]])
    return marks
