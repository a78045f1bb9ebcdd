"""Renderer of the cross-solver leaderboard (cells: svmbench/boards/experiment/leaderboard.yaml): every
solver on every data set it can take, under one protocol; per data set accuracy, training time,
kernel evaluations (K2 requested, K1 computed), support vectors and status; average ranks with
Friedman / Iman-Davenport, Nemenyi and Holm post-hoc tests (Demšar 2006); critical difference
diagrams for accuracy, time and kernel evaluations and an accuracy-vs-time Pareto plot, written
beside the table (PNG + PDF).

Bold means significantly best: in a data set's row, the best mean when a paired t-test over the
folds (realizations) finds it better than every other solver at ALPHA after Holm's adjustment
over those comparisons; in the average-rank row, the best-ranked solver when Holm's post-hoc
test (z test on average ranks against it) rejects equality with every other. Sets with one
split (a given test set) cannot bold a cell.
"""

import numpy as np
import pandas as pd

from svmbench.analysis.artefact_tables import sources_and_cells
from svmbench.analysis.plots import critical_difference_diagram, pareto_figure, save_figure
from svmbench.analysis.settings import differences_note, differing_settings
from svmbench.analysis.stats import holm, paired_t_test
from svmbench.analysis.tables import Table, to_markdown
from svmbench.analysis.tuning_budget import tuning_summary
from svmbench.boards._claims import claims_ledger, claims_markdown
from svmbench.boards._models_board import models_section
from svmbench.boards._ranks import ALPHA, complete_block, rank_statistics, statistics_text
from svmbench.capabilities import UNSUITABLE
from svmbench.statuses import FAULTS
from svmbench.store import FINISHED

# label -> (record field, its value in table units, lower is better, number format)
METRICS = {
    "Test accuracy (%)": ("test_error", lambda error: 100.0 * (1.0 - error), False, "{:.2f}"),
    "Training time of the final fit (s)": ("train_time_s", lambda s: s, True, "{:.3g}"),
    "Kernel evaluations requested, K2 (millions)": ("kernel_requested", lambda k: k / 1e6, True,
                                                    "{:.3g}"),
    "Kernel evaluations computed, K1 (millions)": ("kernel_computed", lambda k: k / 1e6, True,
                                                   "{:.3g}"),
    "Support vectors": ("n_sv", lambda n: n, True, "{:.0f}"),
}
ACCURACY, TIME = "Test accuracy (%)", "Training time of the final fit (s)"
# the metrics ranked, tested and drawn as CD diagrams: label -> file stem
RANKED = {ACCURACY: "cd_accuracy", TIME: "cd_time",
          "Kernel evaluations requested, K2 (millions)": "cd_kernel_evaluations"}
# each solver's stopping rule as run (the leaderboard's stated reason why tolerances differ)
TOLERANCES = (
    "Stopping rules, each solver's own at its published tolerance (they measure different "
    "things, so one number cannot serve all): SMO (Platt, Keerthi 1 and 2, WSS2), Rosen, "
    "scikit-learn's and oneDAL's SVC: maximal KKT violation (b_low - b_up) <= 2 x 1e-3 or "
    "1e-3 as each defines it; HM-SVM: absolute KKT 1e-6; GS-SVM: its own rule (no negative "
    "gradient on the unused set, gs-svm-tnn2008 Alg. 1); CVM, FW, MFW: (1 + eps) MEB rule, eps "
    "1e-4 (frank-wolfe-svm uses 1e-6: FW took 10-34 s per heart fit there, 0.1-0.2 s at 1e-4; "
    "svmbench/boards/experiment/leaderboard.yaml); rho-SVM, its ensemble: eps 0.005, eps_1 0.1 "
    "(multiplicative-rho-svm Alg. 1); Parzen: no iterations; RSVM: bisection on C to 1e-3 relative, inner WSS2 at 1e-3.")


def outcome(status):
    """'finished', 'unsuitable' or 'failed' for a record's status (the one place that reads it)."""
    if status in FINISHED:
        return "finished"
    return UNSUITABLE if status == UNSUITABLE else "failed"


def metric_values(finished, label):
    """Per record: metric ``label`` in table units (NaN where a solver reports none)."""
    field, unit = METRICS[label][:2]
    values = pd.to_numeric(finished[field], errors="coerce") if field in finished else \
        pd.Series(np.nan, index=finished.index)
    return unit(values)


def cell_means(finished, label):
    """dataset x algorithm means of metric ``label`` over folds."""
    frame = finished.assign(value=metric_values(finished, label))
    return frame.groupby(["dataset", "algorithm"])["value"].mean().unstack("algorithm")


def significantly_best(finished, label):
    """dataset -> the solver significantly best on metric ``label`` (module docstring), where
    one is."""
    lower = METRICS[label][2]
    frame = finished.assign(value=metric_values(finished, label))
    best = {}
    for dataset, runs in frame.groupby("dataset"):
        folds = runs.pivot_table(index="fold", columns="algorithm", values="value")
        folds = folds.dropna(axis=1, how="any")
        if folds.shape[0] < 2 or folds.shape[1] < 2:
            continue
        means = folds.mean()
        leader = means.idxmin() if lower else means.idxmax()
        pvalues = [paired_t_test(folds[leader], folds[other]).pvalue
                   for other in folds.columns if other != leader]
        pvalues = np.nan_to_num(pvalues, nan=1.0)  # identical folds: no difference shown
        if np.all(holm(pvalues) < ALPHA):
            best[dataset] = leader
    return best


def rank_row(result, columns):
    """Average ranks by solver (blank for those not ranked) and the significantly best one."""
    if result is None:
        return pd.Series("", index=columns), None
    test, _, versus = result
    ranks = test.average_ranks.reindex(columns).map(lambda r: "" if pd.isna(r) else f"{r:.2f}")
    leader = test.average_ranks.idxmin() if (versus["holm_pvalue"] < ALPHA).all() else None
    return ranks, leader


def metric_table(label, records, finished, result):
    """One metric: data sets x solvers, text cells for the unmeasured, an average-rank row."""
    number = METRICS[label][3]
    means = cell_means(finished, label)
    solvers = sorted(records["algorithm"].unique())
    datasets = sorted(records["dataset"].unique())
    cells = pd.DataFrame("", index=pd.Index(datasets, name="Data set"), columns=solvers,
                         dtype=object)
    bold = pd.DataFrame(False, index=cells.index, columns=solvers)
    winners = significantly_best(finished, label)
    for (dataset, solver), runs in records.groupby(["dataset", "algorithm"]):
        kinds = set(runs["status"].map(outcome))
        value = means.get(solver, pd.Series(dtype=float)).get(dataset, np.nan)
        if "finished" in kinds:
            cells.loc[dataset, solver] = "n/a" if pd.isna(value) else number.format(value)
            if "failed" in kinds:
                cells.loc[dataset, solver] += " (some folds failed)"
            unsound = int(runs["status"].isin(FAULTS).sum())
            if unsound:  # ended by max_iter, stalled or infeasible: the status table says which
                cells.loc[dataset, solver] += f" ({unsound} of {len(runs)} not converged)"
        else:
            cells.loc[dataset, solver] = "unsuitable" if UNSUITABLE in kinds else "failed"
        bold.loc[dataset, solver] = winners.get(dataset) == solver
    if label in RANKED:
        ranks, leader = rank_row(result, solvers)
        cells.loc["Average rank"] = ranks
        bold.loc["Average rank"] = [solver == leader for solver in solvers]
    meaning = (f"significantly best (a data set: paired t-test over its folds against every "
               f"other solver, Holm-adjusted, alpha {ALPHA}; average rank: Holm's post-hoc test)")
    return to_markdown(Table(cells, None, bold, caption=f"### {label}", bold_meaning=meaning))


def status_table(records):
    """Per data set and solver: converged folds / all, else what happened; the reasons below."""
    solvers = sorted(records["algorithm"].unique())
    cells = pd.DataFrame("", index=pd.Index(sorted(records["dataset"].unique()), name="Data set"),
                         columns=solvers, dtype=object)
    reasons = []
    for (dataset, solver), runs in records.groupby(["dataset", "algorithm"]):
        kinds = runs["status"].map(outcome)
        if (kinds == UNSUITABLE).all():
            cells.loc[dataset, solver] = "unsuitable"
            reasons.append(f"- {solver} on {dataset}: {runs['unsuitable_reason'].iloc[0]}")
            continue
        counts = runs["status"].value_counts()
        converged = int(counts.get("converged", 0))
        others = ", ".join(f"{count} {status.split(':')[0]}" for status, count in counts.items()
                           if status != "converged")
        cells.loc[dataset, solver] = f"{converged}/{len(runs)}" + (f" ({others})" if others else "")
        reasons += [f"- {solver} on {dataset}, fold {r['fold']}: {r['status']}"
                    for _, r in runs[kinds == "failed"].iterrows()]
    text = to_markdown(Table(cells, caption="### Status: folds converged (KKT holds at the "
                                            "returned point) / folds run"))
    return text + ("\n\nNot trained or failed, with the reason:\n\n" + "\n".join(reasons)
                   if reasons else "")


def pareto_points(finished, block_sets):
    """Per solver over ``block_sets``: mean accuracy (%) and geometric-mean training time (s)."""
    common = finished[finished["dataset"].isin(block_sets)]
    accuracy = cell_means(common, ACCURACY).mean()
    seconds = np.exp(np.log(cell_means(common, TIME).clip(lower=1e-6)).mean())
    return pd.DataFrame({"accuracy": accuracy, "seconds": seconds}).dropna()


def sweep_wall_time(records):
    """'first to last record: ... min' from the records' UTC stamps (the sweep's wall time when
    it ran in one go), or ''."""
    stamps = pd.to_datetime(records.get("timestamp_utc"), utc=True, errors="coerce").dropna()
    if stamps.empty:
        return ""
    return (f"Records written from {stamps.min():%Y-%m-%d %H:%M} to {stamps.max():%H:%M} UTC "
            f"({(stamps.max() - stamps.min()).total_seconds() / 60:.1f} min; the sweep's wall "
            "time when it ran in one go, without its start-up and compile time).")


def cost_table(finished):
    """Per solver: final fits and their total time, tuning trainings and their total time."""
    sums = finished.groupby("algorithm").agg(
        fits=("train_time_s", "size"), fit_s=("train_time_s", "sum"),
        tuning=("inner_trainings", "sum"), tuning_s=("inner_tuning_time_s", "sum"))
    rows = pd.DataFrame({"Final fits": sums["fits"], "Their time (s)": sums["fit_s"].map(
        "{:.2f}".format), "Tuning trainings": sums["tuning"].astype(int),
        "Tuning wall time (s)": sums["tuning_s"].map("{:.1f}".format)},
        index=pd.Index(sums.index, name="Solver"))
    return to_markdown(Table(rows, caption="### Cost of the run (what the sweep spent, per "
                                           "solver; one process, see the threads field)"))


def ledger_section(records, artefact):
    """The claims ledger (paper scale: its claims are about the committed stores), also written
    as claims.md beside the table for the report's page."""
    if artefact.scale != "paper":
        return ("## Claims ledger\n\nRendered at paper scale only: the seed papers' claims are "
                "tested on the committed stores (results/leaderboard/claims.md).")
    ledger = claims_ledger(records)
    (artefact.output.parent / "claims.md").write_text(claims_markdown(ledger, heading="#") + "\n")
    return claims_markdown(ledger)


def render(records, artefact):
    out = artefact.output.parent
    parts = ["# Leaderboard: every solver on common ground",
             "Features scaled to [-1, 1] on each training part; each solver's gamma and C (those "
             "it has) tuned by the same inner stratified k-fold grid search on each training part; "
             "nested CV where no test set is given, the given split otherwise, the IDA sets' "
             "realizations; one-vs-one for more than two classes. The solvers of one dual are "
             "measured at one tuned point, found once per fold by that dual's reference solver "
             "(svmbench/boards/experiment/leaderboard.yaml protocol.references; who tunes for "
             "whom: below), so that their accuracies differ only by where each stops. RSVM takes "
             "GS-SVM's tuned gamma (gs-svm-tnn2008 §VI) and bisects its C. " + TOLERANCES,
             f"SCALE={artefact.scale}."
             + (" Quick scale: heart, iris, wine; outer folds 0-1 of 10, inner 3-fold, log2 "
                "gamma in -3..1, log2 C in -1..3: a smoke test of the pipeline, not a ranking to "
                "cite." if artefact.scale != "paper" else ""),
             (f"**Bold** = significantly best: in a data set's row, the best mean when a paired "
             f"t-test over its folds finds it better than every other solver (two-sided, "
             f"alpha {ALPHA}, Holm-adjusted over those comparisons); in the average-rank row, "
             f"the best-ranked solver when Holm's post-hoc test (Demšar 2006) separates it from "
             f"every other at {ALPHA}. 'unsuitable': the solver declares it cannot take that "
             "data set (reason in the status section); 'n/a': the solver does not report it "
             "(LIBSVM/oneDAL do not count kernel evaluations).")]
    if records.empty:
        return "\n\n".join([*parts, "No records yet: run `make leaderboard`."])
    finished = records[records["status"].map(outcome) == "finished"]
    parts.append(tuning_summary(finished))
    statistics, figures = [], []
    results = {}
    for label, stem in RANKED.items():
        block, dropped_solvers, dropped_sets = complete_block(cell_means(finished, label))
        results[label] = rank_statistics(block, METRICS[label][2])
        statistics.append(statistics_text(label, block, dropped_solvers, dropped_sets,
                                          results[label]))
        if results[label] is not None:
            save_figure(critical_difference_diagram(
                results[label][1], title=f"{label}, {block.shape[0]} data sets"), out / stem)
            figures.append(f"![CD diagram: {label}]({stem}.png)")
    accuracy_block = complete_block(cell_means(finished, ACCURACY))[0]
    points = pareto_points(finished, accuracy_block.index)
    if len(points):
        save_figure(pareto_figure(points, f"{len(accuracy_block)} data sets"), out / "pareto")
        figures.append("![Accuracy vs training time](pareto.png)")
    differences = differences_note(differing_settings(finished))
    parts += [*models_section(records, finished, out),
              "## Solvers board",
              ("The solvers of one dual (the C-SVM's SMO variants, Rosen, LIBSVM and oneDAL; "
               "HM-SVM and GS-SVM; CVM, FW and MFW; rho-SVM and fixed-eta EG) solve the same "
               "convex problem, so they are compared on what it costs them to reach a common "
               "certified suboptimality, not on accuracy: [solvers.md](solvers.md) (`make "
               "solvers`, svmbench/boards/experiment/solvers.yaml). The tables below list every solver's "
               "cells for reference; between solvers of one problem their accuracies differ by "
               "where each stopped."),
              "## Every solver, per data set",
              *(metric_table(label, records, finished, results.get(label)) for label in METRICS),
              *(["Settings that differ between cells side by side (beyond the tuned gamma and "
                 "C):\n" + "\n".join(differences)] if differences else []),
              status_table(records), "## Ranks and tests (every solver)", *statistics,
              "## Figures", ("Critical difference diagrams (Nemenyi, alpha 0.05: solvers joined "
              "by a bar are not significantly different) and the accuracy-vs-time Pareto plot "
              "(mean accuracy and geometric-mean final-fit time over the ranked sets; filled: "
              "no other solver is both faster and more accurate)."), *figures,
              cost_table(finished), sweep_wall_time(records),
              ledger_section(records, artefact), *sources_and_cells(records, artefact)]
    return "\n\n".join(p for p in parts if p)
