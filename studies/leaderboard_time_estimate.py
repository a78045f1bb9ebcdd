"""An estimate of `make leaderboard SCALE=paper`'s time at the tuning budget, before running it
(issue 43 item 5), from measured searches and the last measured paper run.

Method. The board's searches: one per data set and outer fold for each tuner (svmbench/boards/
experiment/leaderboard.yaml: smo_wss2 for the C-SVC's solvers, cvm for the MEB's, each other
solver its own, RSVM GS-SVM's again), on min(n, budget) samples of the fold's training part, where
the tuner's solvers can take the set. The folds, their training sizes and which cells are
`unsuitable` come from the committed records of the last paper run (results/leaderboard/runs,
300-sample budget, every solver tuning itself). A search's CPU seconds are measured where
studies/leaderboard_tuning_cpu.py measured that tuner on that set (its JSON lines, first outer
fold, one thread), else a c * n^p law fitted per tuner to its measurements (least squares in
log-log). The rest of the run (final fits, referee, data, compiling checks, Hydra) is taken as the
last paper run's wall time minus its tuning (job-seconds over its 2 jobs), although the new tuned
points change the final fits' C and gamma. Job-seconds over 2 jobs is the wall time if the jobs
pack perfectly; the longest single cell bounds it from below.

    .venv/bin/python studies/leaderboard_time_estimate.py cpu.jsonl [--budget 5000]
"""

import argparse
import json

import numpy as np
import pandas as pd

from svmbench import load_results

STORE = "results/leaderboard/runs"
LAST_RUN_WALL_S = 23 * 60 + 5  # docs/changelog.md: b5995d4, 2 jobs x 1 thread, quiet
JOBS = 2
# tuner -> the solvers whose cells run (or read) its search
TUNES_FOR = {
    "smo_wss2": ["smo_wss2", "smo_platt", "smo_mod1", "smo_mod2", "libsvm", "onedal", "rosen"],
    "cvm": ["cvm", "fw", "mfw"], "gs_svm": ["gs_svm"], "gs_svm (for rsvm)": ["rsvm"],
    "hm_svm": ["hm_svm"], "rho_svm": ["rho_svm"], "rho_ensemble": ["rho_ensemble"],
    "parzen": ["parzen"]}


def power_law(measured):
    """(c, p) of cpu = c * n^p, least squares in log-log over ``measured`` (tuned_on, cpu_s)."""
    p, log_c = np.polyfit(np.log(measured["tuned_on"]), np.log(measured["cpu_s"]), 1)
    return float(np.exp(log_c)), float(p)


def searches(records, budget):
    """Per tuner, data set and fold: the samples its search runs on (the cells it serves can take
    the set)."""
    finished = records[records["status"] != "unsuitable"]
    rows = []
    for tuner, served in TUNES_FOR.items():
        cells = finished[finished["algorithm"].isin(served)]
        for (dataset, fold), group in cells.groupby(["dataset", "fold"]):
            rows.append({"tuner": tuner, "dataset": dataset, "fold": fold,
                         "tuned_on": min(int(group["n_train"].max()), budget)})
    return pd.DataFrame(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("measured")
    parser.add_argument("--budget", type=int, default=5000)
    args = parser.parse_args()
    with open(args.measured) as file:
        lines = [json.loads(line) for line in file if line.strip()]
    measured = pd.DataFrame([m for m in lines if "cpu_s" in m])
    records = load_results(STORE)
    planned = searches(records, args.budget)
    laws = {tuner: power_law(group) for tuner, group in measured.groupby("algorithm")
            if group["tuned_on"].nunique() >= 2}
    by_set = measured.groupby(["algorithm", "dataset"])["cpu_s"].median()

    def cost(row):
        tuner = row["tuner"].split(" ")[0]
        if (tuner, row["dataset"]) in by_set.index:
            return by_set[(tuner, row["dataset"])], "measured"
        c, p = laws[tuner]
        return c * row["tuned_on"] ** p, "law"

    planned[["cpu_s", "source"]] = planned.apply(lambda row: pd.Series(cost(row)), axis=1)
    print("fitted laws (c, p):", {t: (f"{c:.3g}", f"{p:.2f}") for t, (c, p) in laws.items()})
    print(planned.groupby("tuner").agg(searches=("fold", "size"), cpu_s=("cpu_s", "sum"),
                                       measured=("source", lambda s: int((s == "measured")
                                                                         .sum()))).round(1))
    print(planned.groupby("dataset")["cpu_s"].sum().sort_values(ascending=False).head(8).round(1))
    tuning = planned["cpu_s"].sum()
    old_tuning = records["inner_tuning_time_s"].sum()
    rest = LAST_RUN_WALL_S * JOBS - old_tuning
    total = tuning + rest
    print(f"searches: {len(planned)}, tuning {tuning:,.0f} CPU s; the rest of the run "
          f"{rest:,.0f} job-s (last run {LAST_RUN_WALL_S} s x {JOBS} jobs - its tuning "
          f"{old_tuning:,.0f} s); total {total:,.0f} job-s = {total / JOBS / 60:.1f} min on "
          f"{JOBS} jobs if they pack; longest search {planned['cpu_s'].max():,.0f} s "
          f"({planned.loc[planned['cpu_s'].idxmax(), ['tuner', 'dataset']].tolist()})")


if __name__ == "__main__":
    main()
