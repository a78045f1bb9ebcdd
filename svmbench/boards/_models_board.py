"""The leaderboard's models board (issue 43; svmbench.analysis.model_board says how a model's
accuracy is pooled from its solvers): accuracy per data set and model with the solvers' spread,
Friedman / Iman-Davenport with the CD diagram, pairwise Wilcoxon signed-rank with Holm, and the
Bayesian signed-rank test with a ROPE of one accuracy point, with its figure."""

import numpy as np
import pandas as pd

from svmbench.analysis.model_board import (
    PROBLEM_MODELS,
    model_scores,
    pooled_models,
    solver_counts,
    solver_spread,
)
from svmbench.analysis.plots import bayesian_pairs_figure, critical_difference_diagram, save_figure
from svmbench.analysis.stats import pairwise_bayesian_signed_rank, pairwise_wilcoxon_holm
from svmbench.analysis.tables import Table, to_markdown
from svmbench.boards._ranks import ALPHA, complete_block, rank_statistics, statistics_text

ROPE = 1.0   # accuracy points: the region of practical equivalence
SEED = 0     # the Bayesian test's posterior draws (numpy's default Generator)
NSAMPLES = 50000
# accuracies are fractions of test sets of different sizes: the Wilcoxon test rounds their
# differences to this many decimals so that equal fractions tie (stats.wilcoxon_signed_rank)
TIE_DECIMALS = 10
LABEL = "Model test accuracy (%)"


def models_and_solvers(counts):
    """'C-SVM (libsvm, onedal, ...), GS-SVM (gs_svm), ...': each model with the solvers pooled
    into it."""
    members = counts.groupby("model")["algorithm"].agg(lambda names: ", ".join(sorted(set(names))))
    return ", ".join(f"{model} ({names})" for model, names in members.items())


def models_table(scores, result):
    """Data sets x models (ordered by average rank), with an average-rank row."""
    order = list(result[0].average_ranks.sort_values().index) if result else []
    columns = order + sorted(set(scores.columns) - set(order))
    cells = scores[columns].map(lambda v: "" if pd.isna(v) else f"{v:.2f}")
    cells.index.name = "Data set"
    if result:
        ranks = result[0].average_ranks
        cells.loc["Average rank"] = [f"{ranks[m]:.2f}" if m in ranks else "" for m in columns]
    return to_markdown(Table(cells, caption=f"### {LABEL}"))


def spread_table(pooled):
    """Per data set, for each model pooled from several solvers: the spread of its solvers'
    accuracies (points), how many, and which were lowest and highest."""
    spread = solver_spread(pooled)
    several = pooled[pooled["model"].isin(spread.columns)].set_index(["dataset", "model"])
    cells = pd.DataFrame("", index=pd.Index(spread.index, name="Data set"),
                         columns=spread.columns, dtype=object)
    for (dataset, model), row in several.iterrows():
        text = f"{row['spread']:.2f} of {row['solvers']}"
        if row["spread"] > 0:
            text += f" ({row['lowest']} low, {row['highest']} high)"
        cells.loc[dataset, model] = text
    cells.loc["Largest"] = [f"{spread[m].max():.2f}" for m in spread.columns]
    return to_markdown(Table(cells, caption=(
        "### Do the solvers of one model agree? Spread of their accuracies (points: highest "
        "minus lowest) of the solvers pooled")))


def wilcoxon_table(block):
    pairs = pairwise_wilcoxon_holm(block, alpha=ALPHA, decimals=TIE_DECIMALS)
    rows = pd.DataFrame({
        "W+ / W-": [f"{p:g} / {m:g}" for p, m in zip(pairs["statistic"], pairs["r_minus"])],
        "Ties": pairs["n_zero"].astype(str), "Median difference": pairs["median_difference"].map(
            "{:+.2f}".format),
        "p": pairs["pvalue"].map("{:.3g}".format), "Holm p": pairs["holm_pvalue"].map(
            "{:.3g}".format), f"Reject at {ALPHA}": np.where(pairs["reject"], "yes", "no")})
    rows.index = pd.Index(pairs["first"] + " vs " + pairs["second"], name="Pair (A vs B)")
    return pairs, to_markdown(Table(rows, caption=(
        f"### Pairwise Wilcoxon signed-rank tests, Holm-adjusted over all {len(pairs)} pairs "
        "(two-sided; W+ = sum of the ranks of the sets where A is more accurate; ties = sets "
        "where A and B are equal, ranked and dropped (Pratt); exact p)")))


def bayesian_table(block):
    pairs = pairwise_bayesian_signed_rank(block, rope=ROPE, nsamples=NSAMPLES, seed=SEED)
    rows = pd.DataFrame({
        "Mean difference": pairs["mean_difference"].map("{:+.2f}".format),
        "P(A better)": pairs["p_first_better"].map("{:.3f}".format),
        "P(equivalent)": pairs["p_equivalent"].map("{:.3f}".format),
        "P(B better)": pairs["p_second_better"].map("{:.3f}".format)})
    rows.index = pd.Index(pairs["first"] + " vs " + pairs["second"], name="Pair (A vs B)")
    return pairs, to_markdown(Table(rows, caption=(
        f"### Bayesian signed-rank tests (Benavoli et al. 2017), ROPE {ROPE:g} accuracy point: "
        "the posterior probability that A is more accurate by more than the ROPE, that the "
        "two are equivalent within it, that B is more accurate by more than it")))


def models_section(records, finished, out):
    """The models board's Markdown parts; its figures are written into ``out``."""
    counts = solver_counts(records, finished)
    pooled = pooled_models(counts)
    if pooled.empty:
        return []
    scores = model_scores(pooled)
    block, dropped_models, dropped_sets = complete_block(scores)
    result = rank_statistics(block, lower=False)
    parts = ["## Models board",
             "One entry per model, not per solver: " + models_and_solvers(counts)
             + ". A solver of another package enters by the problem it declares ("
             + ", ".join(f"{p} -> {m}" for p, m in PROBLEM_MODELS.items())
             + "); one that declares none is its own model. A solver's accuracy on a set is "
             "pooled over its folds (test points right over test points, so equal accuracies "
             "tie at the set's resolution, one test point); a model's is the lower median of "
             "its solvers' whose every fold finished (a value one of them reached; no single "
             "implementation decides it), their spread shown below as the check that they "
             "agree.",
             models_table(scores, result), spread_table(pooled),
             statistics_text(LABEL, block, dropped_models, dropped_sets, result, entry="model")]
    if result is None:
        return parts
    save_figure(critical_difference_diagram(result[1], title=f"{LABEL}, {block.shape[0]} data "
                                                             "sets"), out / "cd_models")
    wilcoxon = wilcoxon_table(block)[1]
    bayes_pairs, bayes = bayesian_table(block)
    save_figure(bayesian_pairs_figure(bayes_pairs, ROPE, title=(
        f"Models, {block.shape[0]} data sets: Bayesian signed-rank, ROPE {ROPE:g} point")),
        out / "bayes_models")
    return parts + ["![CD diagram: models](cd_models.png)", wilcoxon, bayes,
                    (f"Posterior draws: {NSAMPLES:,} per pair, seed {SEED} (numpy's default "
                     "generator), prior weight 0.5 on a pseudo-observation at 0 (Benavoli et "
                     "al. 2017; as baycomp); the Monte Carlo standard error of each probability "
                     f"is at most 0.5 / sqrt({NSAMPLES:,}) = {0.5 / NSAMPLES ** 0.5:.4f}."),
                    "![Bayesian signed-rank: models](bayes_models.png)"]
