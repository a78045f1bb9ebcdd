"""What the leaderboard's tuning budget changes (issue 43): the models board's tuned cells with the
inner grid search on min(n, 300) training samples, as the board tuned before, against
min(n, 5,000), its budget now (svmbench/boards/experiment/leaderboard.yaml ``tuning_budget``).

``run`` trains the leaderboard's own paper-scale cells (their protocol, grid and inner folds, with
``tuning_budget`` set to each budget: a cell at the board's budget is the board's cell, same
config hash) for the solvers and data sets given, on the first ``--folds`` outer folds, one
thread, through the runner, into a store of its own. ``render`` writes from that store's records,
per data set and model (svmbench.analysis.model_board), the tuned points, test accuracy and tuning
time under each budget, and the models' average ranks under each.

    nice .venv/bin/python studies/leaderboard_tuning_budget.py run \\
        --datasets a1a w1a --algorithms smo_wss2 gs_svm
    .venv/bin/python studies/leaderboard_tuning_budget.py render
"""

import argparse
import sys
import time

import pandas as pd
from hydra import compose, initialize_config_dir
from hydra.core.hydra_config import HydraConfig

from svmbench import load_results, runner
from svmbench.analysis.model_board import model_of, model_scores, pooled_models, solver_counts
from svmbench.analysis.sources import sources
from svmbench.analysis.tables import Table, to_markdown
from svmbench.analysis.tuning_budget import budget_text, tuning_summary
from svmbench.boards._ranks import complete_block, rank_statistics
from svmbench.conf import CONF_DIR
from svmbench.protocols import fold_count
from svmbench.status import FINISHED, SOUND, statuses
from svmbench.sweep import experiment_config, sweep_jobs

BUDGETS = (300, 5000)
STORE = "results/leaderboard/tuning_budget/runs"
OUTPUT = "results/leaderboard/tuning_budget.md"
TITLE = "# The leaderboard's tuning budget: 300 samples against 5,000"


def leaderboard_jobs(budgets, datasets, algorithms):
    """(budget, overrides) of the leaderboard's paper-scale jobs at each budget for those data
    sets and solvers: by data set, then budget, then solver, as given."""
    chosen = []
    for budget in budgets:
        jobs = sweep_jobs(experiment_config("leaderboard", "paper", [f"tuning_budget={budget}"]))
        chosen += [(budget, job) for job in jobs if job_value(job, "dataset") in datasets
                   and job_value(job, "algorithm") in algorithms]
    return sorted(chosen, key=lambda chosen: (
        datasets.index(job_value(chosen[1], "dataset")), budgets.index(chosen[0]),
        algorithms.index(job_value(chosen[1], "algorithm"))))


def job_value(job, key):
    return next((o.split("=", 1)[1] for o in job if o.split("=", 1)[0] == key), None)


def one_run():
    """Make this process one run: every record it writes names the same run
    (svmbench.runner.run_id reads Hydra's run folder)."""
    stamp = time.strftime("%Y-%m-%d/%H-%M-%S", time.gmtime())
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        config = compose("config", [f"hydra.run.dir=tuning_budget/{stamp}"],
                         return_hydra_config=True)
    HydraConfig.instance().set_config(config)


def run(args):
    runner.register_configs()
    one_run()
    for budget, job in leaderboard_jobs(args.budgets, args.datasets, args.algorithms):
        with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
            config = compose("config", [*job, f"store.dir={args.store}", "curves=false",
                                        "threads=1"])
        config.folds = list(range(min(args.folds, fold_count(config.protocol))))
        started = time.process_time()
        records, outcome = runner.train_cell(config)
        print(f"budget {budget} {job_value(job, 'dataset')} {job_value(job, 'algorithm')}: "
              f"{outcome}, {len(records)} record(s), {time.process_time() - started:.1f} s CPU",
              flush=True)


def finished_records(store):
    records = load_results(store)
    return records[statuses(records).isin(FINISHED)] if len(records) else records


def points_text(runs):
    """'gamma 2^-3, C 2^1' per fold, joined by ' / ' (the tuned points)."""
    def point(row):
        return ", ".join(f"{name} {row[f'selected_{name}']:g}" for name in ("gamma", "C")
                         if f"selected_{name}" in row and pd.notna(row[f"selected_{name}"]))
    return " / ".join(point(row) for _, row in runs.sort_values("fold").iterrows())


def cell_table(finished, budgets):
    """Per data set and solver (its model): tuned points, test accuracy and tuning time under
    each budget, the samples tuned on, and the accuracy change."""
    rows = []
    for (dataset, algorithm), runs in finished.groupby(["dataset", "algorithm"]):
        row = {"Data set / model (solver)": f"{dataset} / {model_of(algorithm)} ({algorithm})",
               "n": f"{int(runs['n_train'].max()):,}"}
        by_budget = dict(tuple(runs.groupby("protocol_tune_subsample")))
        if set(budgets) - set(by_budget):
            continue  # compared only where both budgets finished every fold run
        folds = [set(by_budget[budget]["fold"]) for budget in budgets]
        if folds[0] != folds[1]:
            continue
        accuracy, seconds = {}, {}
        for budget in budgets:
            mine = by_budget[budget]
            accuracy[budget] = 100.0 * (1.0 - mine["test_error"].mean())
            row[f"tuned on ({budget:,})"] = f"{int(mine['tuned_on'].max()):,}"
            row[f"points ({budget:,})"] = points_text(mine)
            unsound = sorted(set(statuses(mine)) - set(SOUND))
            row[f"accuracy % ({budget:,})"] = f"{accuracy[budget]:.2f}" + (
                f" ({', '.join(unsound)})" if unsound else "")
            seconds[budget] = mine["inner_tuning_time_s"].sum()
            row[f"tuning s ({budget:,})"] = f"{seconds[budget]:.1f}"
        row["change (points)"] = f"{accuracy[budgets[1]] - accuracy[budgets[0]]:+.2f}"
        row["tuning time ratio"] = f"{seconds[budgets[1]] / seconds[budgets[0]]:.0f}x"
        row["folds"] = str(len(folds[0]))
        rows.append(row)
    return pd.DataFrame(rows)


def ranks_table(finished, budgets):
    """Models' average accuracy ranks under each budget over the sets both complete."""
    ranks, blocks = {}, {}
    for budget in budgets:
        mine = finished[finished["protocol_tune_subsample"] == budget]
        block = complete_block(model_scores(pooled_models(solver_counts(mine, mine))))[0]
        blocks[budget] = block
    sets = sorted(set(blocks[budgets[0]].index) & set(blocks[budgets[1]].index))
    models = sorted(set(blocks[budgets[0]].columns) & set(blocks[budgets[1]].columns))
    for budget in budgets:
        result = rank_statistics(blocks[budget].loc[sets, models], lower=False)
        if result is None:
            return None, sets
        ranks[f"average rank ({budget:,})"] = result[0].average_ranks
        ranks[f"mean accuracy % ({budget:,})"] = blocks[budget].loc[sets, models].mean()
    table = pd.DataFrame(ranks)
    table.index.name = "Model"
    return table.sort_values(f"average rank ({budgets[1]:,})"), sets


def render(args):
    finished = finished_records(args.store)
    budgets = tuple(args.budgets)
    parts = [TITLE, (
        "The leaderboard's tuned cells (svmbench/boards/experiment/leaderboard.yaml, paper scale: protocol, "
        "grid and inner folds as the board's) with the inner grid search on a seeded stratified "
        f"sample of {budget_text(budgets[0])} and of {budget_text(budgets[1])} training samples, "
        "one solver per model, on data sets whose training parts have more than 300 samples, "
        "the first outer folds only (given splits: their one fold), one thread. Written by "
        "studies/leaderboard_tuning_budget.py from the records of " + args.store + ".")]
    if finished.empty:
        return "\n\n".join([*parts, "No records yet."])
    cells = cell_table(finished, budgets)
    changed = cells[[a != b for a, b in zip(cells[f"points ({budgets[0]:,})"],
                                            cells[f"points ({budgets[1]:,})"])]]
    parts += [tuning_summary(finished),
              to_markdown(Table(cells.set_index("Data set / model (solver)"), caption=(
                  "### Per data set and model: samples tuned on, tuned points per fold, test "
                  "accuracy (mean over the folds; a status other than converged or the "
                  "solver's own rule named), tuning wall time (sum over the folds), accuracy "
                  "change from the smaller to the larger budget. Times are wall clock on the "
                  "machine the records name, one thread, while other jobs ran: compare them "
                  "within a row, not with other tables"))),
              (f"The tuned point changed in {len(changed)} of {len(cells)} cells; accuracy "
               f"changed by {cells['change (points)'].astype(float).mean():+.2f} points on "
               f"average (from {cells['change (points)'].astype(float).min():+.2f} to "
               f"{cells['change (points)'].astype(float).max():+.2f}).")]
    ranks, sets = ranks_table(finished, budgets)
    if ranks is not None:
        parts.append(to_markdown(Table(ranks.map(lambda v: f"{v:.2f}"), caption=(
            f"### Models' average accuracy ranks over the {len(sets)} data sets both budgets "
            f"complete ({', '.join(sets)}; 1 = most accurate, ties averaged)"))))
    parts.append(sources(finished))
    return "\n\n".join(parts)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("run", "render"))
    parser.add_argument("--budgets", type=int, nargs=2, default=list(BUDGETS))
    parser.add_argument("--datasets", nargs="+", default=[])
    parser.add_argument("--algorithms", nargs="+", default=[])
    parser.add_argument("--folds", type=int, default=2, help="outer folds (the first ones)")
    parser.add_argument("--store", default=STORE)
    parser.add_argument("--out", default=OUTPUT)
    args = parser.parse_args(argv)
    if args.command == "run":
        run(args)
        return
    text = render(args) + "\n"
    with open(args.out, "w") as handle:
        handle.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
