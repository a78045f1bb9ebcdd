"""What tuned records say about their grid search: the tuning budget, the grid, how many samples
it ran on and what it cost (issue 43: the leaderboard's caption prints them).

A tuned record (svmbench.protocols.tune) carries its protocol's ``protocol_tune_subsample`` (the
budget: the inner grid search runs on a seeded stratified sample of min(n, budget) of the
training part's n samples; null: all of them), ``protocol_grid`` and ``protocol_inner_k``,
``tuned_on`` (the samples it ran on), ``inner_trainings`` and ``inner_tuning_time_s`` (wall time
of the search, apart from ``train_time_s``, the final fit's), ``tuned_with`` (the solver whose
validation error chose the point) and, where cells share searches (svmbench.tuned_points),
``tuning_reused`` (true: the search another cell ran, its fields copied; its time is counted
once, in the record of the cell that ran it).
"""

import pandas as pd


def budget_text(budget):
    """'min(n, 5,000)' for a budget, 'all n' for none (null)."""
    return "all n" if budget is None or pd.isna(budget) else f"min(n, {int(budget):,})"


def grid_text(grid):
    """'log2 gamma -5..1, log2 C -1..5' for a ``protocol.grid`` dict."""
    return ", ".join(f"log2 {key.removesuffix('_log2')} {low}..{high}"
                     for key, (low, high) in sorted(grid.items(), reverse=True))


def sampled_sets(tuned):
    """dataset -> (samples the search ran on, training samples) for each data set whose search
    ran on fewer samples than its training part."""
    fewer = tuned[tuned["tuned_on"] < tuned["n_train"]]
    sizes = fewer.groupby("dataset").agg(used=("tuned_on", "max"), n=("n_train", "max"))
    return {name: (int(row.used), int(row.n)) for name, row in sizes.iterrows()}


def searched(runs):
    """The records of ``runs`` whose cell ran its search (not one read from another cell's)."""
    if "tuning_reused" not in runs:
        return runs
    return runs[runs["tuning_reused"].map(lambda reused: reused is not True)]


def cost_text(runs):
    """'Tuning took 5.0 s wall over 2 folds (294 trainings)', with how many folds read a search
    another cell ran."""
    ran = searched(runs)
    text = (f"Tuning took {ran['inner_tuning_time_s'].sum():,.1f} s wall over {len(ran):,} "
            f"folds ({int(ran['inner_trainings'].sum()):,} trainings)")
    if len(ran) < len(runs):
        text += (f"; {len(runs) - len(ran):,} more folds took the point of a search another "
                 "solver's cell ran (the same search: counted once)")
    return text


def tuners_text(records):
    """Who tuned for whom: 'Who tunes for whom: gs_svm for rsvm; smo_wss2 for libsvm, smo_platt;
    every other solver tuned itself.' ('' when every solver tuned itself)."""
    if "tuned_with" not in records:
        return ""
    tuned = records[records["tuned_with"].notna()]
    others = tuned[tuned["tuned_with"] != tuned["algorithm"]]
    if others.empty:
        return ""
    served = others.groupby("tuned_with")["algorithm"].agg(lambda names: ", ".join(
        sorted(set(names))))
    return ("Who tunes for whom: " + "; ".join(f"{tuner} for {names}" for tuner, names in
                                               served.items())
            + "; every other solver tuned itself.")


def tuning_summary(records):
    """One sentence per tuning budget of ``records`` (finished tuned folds): the budget, the
    grid and inner folds, on how many sets every search had all samples, where it sampled, and
    the tuning time (each search once) beside the final fits' time; then who tuned for whom;
    '' when no record is tuned."""
    if "tuned_on" not in records:
        return ""
    tuned = records[records["tuned_on"].notna()]
    budgets = tuned["protocol_tune_subsample"].map(lambda b: -1 if pd.isna(b) else int(b))
    sentences = []
    for budget, runs in tuned.groupby(budgets):
        budget = None if budget < 0 else budget
        grids = sorted({(grid_text(grid), int(k)) for grid, k in
                        zip(runs["protocol_grid"], runs["protocol_inner_k"])})
        search = "; ".join(f"{text}, the axes a solver has; inner {k}-fold" for text, k in grids)
        sampled = sampled_sets(runs)
        where = ", ".join(f"{name} ({used:,} of {n:,})" for name, (used, n) in sampled.items())
        sets = runs["dataset"].nunique()
        sentences.append(
            f"Tuning budget {budget_text(budget)}: each grid search ({search}) ran on "
            f"{budget_text(budget)} of the n training samples of its part"
            + (" (a seeded stratified sample when fewer than n): all n on "
               f"{sets - len(sampled)} of {sets} data sets" if budget is not None else "")
            + (f", a sample on {where}" if where else "")
            + f". {cost_text(runs)}, the final fits {runs['train_time_s'].sum():,.1f} s; "
            "tuning is not in the fits' times.")
    return " ".join([*sentences, tuners_text(tuned)]).strip()
