"""Render a Markdown summary of a result store: one row per (dataset, algorithm with its settings).

    python -m svmbench.report results/store [--experiment quickstart] [--compare gs_svm libsvm]

Columns: accuracy % (mean ± std over folds; bold = best and not significantly different by a
paired two-tailed t-test at 0.05; in brackets the rule that stopped the cell, explained under the
table: svmbench.analysis.stop_marks), support vectors, kernel evaluations computed (K1; missing for
LIBSVM, which does not expose them), training time. Cells of one algorithm with different
settings (gamma, C, protocol, ...) are separate columns, never pooled, labelled by the settings
that differ (``smo_wss2 C=4``); cells of different algorithms on one dataset that differ in
kernel, gamma, C or tol are listed under the table by key and value
(svmbench.analysis.settings). ``--compare A B`` (column labels) adds paired t-test and Wilcoxon
signed-rank lines on the per-fold test errors of A and B, each naming the settings they differ in.

Records that did not converge are flagged (``max_iter`` is in the table, marked; ``infeasible``,
``stalled``, ``own_rule``, ``closed_form`` and ``failed:*`` are listed per cell). Statuses are read
through svmbench.status.record_status, so old records read as new ones. Exits non-zero when a cell failed, and with a
clear message when the store is missing, empty or holds failures only.
"""

import argparse
import math
import sys

import pandas as pd

from svmbench.analysis.settings import differences_note, differing_settings, pair_difference
from svmbench.analysis.sources import sources
from svmbench.analysis.stats import paired_t_test, wilcoxon_signed_rank
from svmbench.analysis.tables import mean_std_table, to_markdown
from svmbench.capabilities import UNSUITABLE
from svmbench.configs import configured_keys
from svmbench.status import FINISHED, statuses
from svmbench.store import ResultStore

METRICS = ["accuracy", "n_sv", "kernel_computed", "train_time_s"]
LOWER_IS_BETTER = {"accuracy": False, "n_sv": True, "kernel_computed": True, "train_time_s": True}


def setting_columns(records):
    """Columns that are a cell's settings: algorithm keys (svmbench.configs.configured_keys),
    protocol keys, experiment and seed."""
    keys = set(configured_keys())
    return [c for c in records.columns
            if c in keys or c.startswith("protocol") or c in ("experiment", "seed")]


class ReportError(SystemExit):
    """Nothing to report; the message says why and what to do."""


def settings_labels(records):
    """Column label per record: the algorithm, plus the settings that tell its cells apart when
    one algorithm has several cells on one dataset (e.g. ``smo_wss2 C=4``)."""
    labels = records["algorithm"].astype(str).copy()
    constant = [c for c in setting_columns(records)  # nested CV: gamma, C vary per fold
                if (records.groupby("config_hash")[c].nunique(dropna=False) <= 1).all()]
    for _, group in records.groupby(["dataset", "algorithm"]):
        if group["config_hash"].nunique() < 2:
            continue
        per_cell = group.groupby("config_hash")[constant].first()
        varying = [c for c in constant if per_cell[c].astype(str).nunique() > 1]
        for chash, row in per_cell.iterrows():
            mine = group.index[group["config_hash"] == chash]
            labels[mine] = f"{group['algorithm'].iloc[0]} " + ", ".join(
                f"{c}={row[c]}" for c in varying)
    return labels


def finished(records, experiment=None):
    if experiment is not None:
        records = records[records["experiment"] == experiment]
    ok = records[records["status"].isin(FINISHED)].copy()
    if not ok.empty:
        ok["accuracy"] = 100.0 * (1.0 - ok["test_error"])
    return ok


def summary_table(records):
    return mean_std_table(records, METRICS, lower_is_better=LOWER_IS_BETTER,
                          number_format="{:.4g}")


def comparison_lines(records, first, second):
    """Paired tests on per-fold test errors of two algorithms, one block per dataset, each saying
    which settings (kernel, gamma, C, tol) the two differ in there."""
    differences = differing_settings(records)
    lines = []
    for dataset, runs in records.groupby("dataset"):
        errors = runs.pivot_table(index="fold", columns="algorithm", values="test_error")
        if first not in errors or second not in errors:
            continue
        paired = errors[[first, second]].dropna()
        if len(paired) < 2:
            continue
        head = (f"- {dataset}, test error of {first} vs {second} over {len(paired)} paired folds"
                f"{pair_difference(differences, dataset, first, second)}: ")
        if (paired[first] == paired[second]).all():
            lines.append(head + "identical on every fold, no test")
            continue
        t_test = paired_t_test(paired[first], paired[second])
        signed_rank = wilcoxon_signed_rank(paired[first], paired[second])
        lines.append(head + f"paired t = {_number(t_test.statistic, '.3f')}, p = "
                     f"{_number(t_test.pvalue, '.3g')}; Wilcoxon signed-rank W = "
                     f"{_number(signed_rank.statistic, '.1f')}, p = "
                     f"{_number(signed_rank.pvalue, '.3g')} ({signed_rank.method})")
    return lines


def _number(value, spec):
    return "undefined" if value is None or math.isnan(value) else format(value, spec)


def not_converged(records):
    """One line per cell with records other than ``converged``: its status and folds."""
    flagged = records[records["status"] != "converged"]
    lines = []
    for (dataset, algorithm, chash, status), group in flagged.groupby(
            ["dataset", "algorithm", "config_hash", "status"], sort=True):
        folds = sorted(int(f) for f in group["fold"])
        where = "could not start" if folds == [-1] else f"folds {folds}"
        lines.append(f"- {dataset} / {algorithm} (cell {chash}), {where}: {status}")
    return lines


def render(store_dir, experiment=None, compare=None):
    """The Markdown report and whether a cell failed."""
    store = ResultStore(store_dir)
    if not store.directory.is_dir():
        raise ReportError(f"no result store at {store_dir}; run a sweep first "
                          "(svmbench -m ... store.dir=PATH)")
    records = pd.DataFrame.from_records(list(store.records()))
    scope = f" for experiment {experiment!r}" if experiment else ""
    if not records.empty and experiment is not None:
        records = records[records["experiment"] == experiment]
    if records.empty:
        raise ReportError(f"no records in {store_dir}{scope}; run a sweep into it first")
    records["status"] = statuses(records)
    ok = finished(records)
    if not ok.empty:
        ok["algorithm"] = settings_labels(ok)
    flagged = not_converged(records)
    failed = bool((~records["status"].isin((*FINISHED, UNSUITABLE))).any())  # unsuitable: no fault
    parts = []
    if ok.empty:
        parts.append(f"No finished records in {store_dir}{scope}: every cell failed.")
    else:
        parts.append(to_markdown(summary_table(ok)))
        differences = differences_note(differing_settings(ok))
        if differences:
            parts.append("Cells side by side that differ in their settings (compare like with "
                         "like only where these agree):\n" + "\n".join(differences))
        if (ok["status"] == "max_iter").any():
            parts.append("Cells with `max_iter` records stopped at the iteration limit: their "
                         "numbers are in the table, but the solver did not converge.")
        if compare:
            parts.append("\n".join(comparison_lines(ok, *compare))
                         or "(no paired folds to compare)")
    if flagged:
        parts.append("Records that did not converge or failed:\n" + "\n".join(flagged))
    parts.append(sources(records))
    return "\n\n".join(parts), failed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", help="result store directory")
    parser.add_argument("--experiment", help="only records of this experiment")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"),
                        help="paired tests of two algorithms' per-fold test errors")
    args = parser.parse_args(argv)
    pd.set_option("display.width", 200)
    text, failed = render(args.store, args.experiment, args.compare)
    sys.stdout.write(text + "\n")
    if failed:
        raise SystemExit("a cell failed (listed above); re-run it with its svmbench command")


if __name__ == "__main__":
    main()
