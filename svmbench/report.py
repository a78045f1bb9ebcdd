"""Render a Markdown summary of a result store: one row per (dataset, algorithm).

    python -m svmbench.report results/store [--experiment quickstart] [--compare gs_svm libsvm]

Columns: accuracy % (mean ± std over folds; bold = best and not significantly different by a
paired two-tailed t-test at 0.05), support vectors, kernel evaluations computed (K1; missing for
LIBSVM, which does not expose them), training time. ``--compare A B`` adds paired t-test and
Wilcoxon signed-rank lines on the per-fold test errors of A and B.
"""

import argparse
import sys

import pandas as pd

from svmbench.analysis.stats import paired_t_test, wilcoxon_signed_rank
from svmbench.analysis.tables import mean_std_table, provenance, to_markdown
from svmbench.store import load_results

METRICS = ["accuracy", "n_sv", "kernel_computed", "train_time_s"]
LOWER_IS_BETTER = {"accuracy": False, "n_sv": True, "kernel_computed": True, "train_time_s": True}


def finished(records, experiment=None):
    if experiment is not None:
        records = records[records["experiment"] == experiment]
    ok = records[records["status"].isin(["converged", "max_iter"])].copy()
    ok["accuracy"] = 100.0 * (1.0 - ok["test_error"])
    return ok


def summary_table(records):
    return mean_std_table(records, METRICS, lower_is_better=LOWER_IS_BETTER,
                          number_format="{:.4g}")


def comparison_lines(records, first, second):
    """Paired tests on per-fold test errors of two algorithms, one block per dataset."""
    lines = []
    for dataset, runs in records.groupby("dataset"):
        errors = runs.pivot_table(index="fold", columns="algorithm", values="test_error")
        if first not in errors or second not in errors:
            continue
        paired = errors[[first, second]].dropna()
        if len(paired) < 2:
            continue
        t_test = paired_t_test(paired[first], paired[second])
        signed_rank = wilcoxon_signed_rank(paired[first], paired[second])
        lines.append(
            f"- {dataset}, test error of {first} vs {second} over {len(paired)} paired folds: "
            f"paired t = {t_test.statistic:.3f}, p = {t_test.pvalue:.3g}; "
            f"Wilcoxon signed-rank W = {signed_rank.statistic:.1f}, p = {signed_rank.pvalue:.3g} "
            f"({signed_rank.method})"
        )
    return lines


def failures(records, experiment=None):
    if experiment is not None:
        records = records[records["experiment"] == experiment]
    failed = records[~records["status"].isin(["converged", "max_iter"])]
    return [f"- {r.dataset} / {r.algorithm} fold {r.fold}: {r.status}" for r in failed.itertuples()]


def render(store_dir, experiment=None, compare=None):
    records = load_results(store_dir)
    ok = finished(records, experiment)
    if ok.empty:
        raise SystemExit(f"no finished records in {store_dir}"
                         + (f" for experiment {experiment!r}" if experiment else ""))
    parts = [to_markdown(summary_table(ok))]
    if compare:
        parts.append("\n".join(comparison_lines(ok, *compare)) or "(no paired folds to compare)")
    failed = failures(records, experiment)
    if failed:
        parts.append("Failed runs:\n" + "\n".join(failed))
    parts.append(provenance(ok))
    return "\n\n".join(parts)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", help="result store directory")
    parser.add_argument("--experiment", help="only records of this experiment")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"),
                        help="paired tests of two algorithms' per-fold test errors")
    args = parser.parse_args(argv)
    pd.set_option("display.width", 200)
    sys.stdout.write(render(args.store, args.experiment, args.compare) + "\n")


if __name__ == "__main__":
    main()
