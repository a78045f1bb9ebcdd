"""Rank statistics the leaderboard's boards share (solvers, models): the block of data sets a
rank test can use, Friedman / Iman-Davenport, Nemenyi and Holm against the best-ranked entry
(Demšar 2006), and their paragraph."""

import numpy as np
import pandas as pd

from svmbench.analysis.stats import friedman, nemenyi, ranks_vs_control
from svmbench.analysis.tables import Table, to_markdown

ALPHA = 0.05


def complete_block(means):
    """The largest simple block a rank test can use: solvers measured on at least half of the
    data sets, then the data sets where all of them were; (block, dropped solvers, dropped
    sets)."""
    kept = means.columns[means.notna().mean() >= 0.5]
    block = means[kept].dropna(how="any")
    return block, sorted(set(means.columns) - set(kept)), sorted(set(means.index) - set(block.index))


def rank_statistics(block, lower):
    """(Friedman result, Nemenyi result, Holm table against the best-ranked solver) or None when
    the block is too small to test (fewer than 2 data sets or solvers)."""
    if block.shape[0] < 2 or block.shape[1] < 2:
        return None
    # means equal but for rounding (0 and 1/15 vs 1/30 twice) are ties: compare 12 digits
    scores = (block if lower else -block).map(lambda value: float(f"{value:.12g}"))
    test = friedman(scores, lower_is_better=True)
    critical = nemenyi(scores, lower_is_better=True, alpha=ALPHA)
    control = test.average_ranks.idxmin()
    return test, critical, ranks_vs_control(test.average_ranks, test.n_datasets, control)


def statistics_text(label, block, dropped_solvers, dropped_sets, result, entry="solver"):
    """The paragraph and Holm table of one ranked metric; ``entry`` names what is ranked
    (solver, model)."""
    if result is None:
        return (f"**{label}**: too few complete data sets or {entry}s to rank "
                f"({block.shape[0]} x {block.shape[1]}).")
    test, critical, versus = result
    control = test.average_ranks.idxmin()
    ranks = ", ".join(f"{name} {rank:.2f}" for name, rank in test.average_ranks.sort_values().items())
    dropped = "; ".join(filter(None, [
        f"{entry}s left out (measured on under half the sets): {', '.join(dropped_solvers)}"
        if dropped_solvers else "",
        f"sets left out (a kept {entry} has no value there): {', '.join(dropped_sets)}"
        if dropped_sets else ""]))
    text = (f"**{label}** over {test.n_datasets} data sets x {block.shape[1]} {entry}s"
            + (f" ({dropped})" if dropped else "") + f". Average ranks (1 = best): {ranks}. "
            f"Friedman chi2 = {test.statistic:.2f} (df {test.df}, p = {test.pvalue:.3g}); "
            f"Iman-Davenport F = {test.f_statistic:.2f} (df {test.f_df[0]}, {test.f_df[1]}, "
            f"p = {test.f_pvalue:.3g}). Nemenyi critical difference at {ALPHA}: "
            f"{critical.critical_difference:.2f}. Holm's post-hoc test against the best-ranked "
            f"{entry}, {control}:")
    versus = versus.sort_values("rank")
    rows = pd.DataFrame({"Average rank": versus["rank"].map("{:.2f}".format),
                         "z": versus["z"].map("{:.2f}".format),
                         "p": versus["pvalue"].map("{:.3g}".format),
                         "Holm p": versus["holm_pvalue"].map("{:.3g}".format),
                         "Differs": np.where(versus["holm_pvalue"] < ALPHA, "yes", "no")},
                        index=pd.Index(versus.index, name=entry.capitalize()))
    return text + "\n\n" + to_markdown(Table(rows))
