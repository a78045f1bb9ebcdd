"""CPU seconds of one inner grid search per tuner on the leaderboard's paper-scale cells (issue 43
item 5): what `make leaderboard SCALE=paper` spends tuning at its budget.

For each data set and algorithm given, the board's own cell (svmbench/boards/experiment/
leaderboard.yaml at paper scale, ``tuning_budget`` as given) has its first outer fold's training
part tuned by the algorithm itself (a candidate reference: ``protocol.tune_with`` set aside) as the
runner does (svmbench.protocols.splits: sample, inner folds, grid search), one
numba thread, the tuner's code compiled beforehand (svmbench.warm_up.warm_up_tuning). Printed per
search, one JSON line: the process's CPU seconds of the search (time.process_time, data loading
included), its wall seconds (a cell the solver cannot take, svmbench.runner.unsuitable: the
reason), the samples it ran on, the tuned point.

    nice .venv/bin/python studies/leaderboard_tuning_cpu.py \\
        --datasets heart a1a --algorithms smo_wss2 cvm fw mfw > cpu.jsonl
"""

import argparse
import json
import time

from hydra import compose, initialize_config_dir
from leaderboard_tuning_budget import job_value

from svmbench import runner
from svmbench.conf import CONF_DIR
from svmbench.configs import cell_config
from svmbench.kernels.threads import limit_threads
from svmbench.protocols import splits
from svmbench.sweep import experiment_config, sweep_jobs
from svmbench.tuning import tuning_algorithm
from svmbench.warm_up import warm_up_tuning


def board_cell(dataset, algorithm, budget):
    """The leaderboard's paper-scale cell of ``algorithm`` on ``dataset`` at ``budget``."""
    jobs = sweep_jobs(experiment_config("leaderboard", "paper", [f"tuning_budget={budget}"]))
    job = next(job for job in jobs if job_value(job, "dataset") == dataset
               and job_value(job, "algorithm") == algorithm)
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        config = compose("config", [*job, "threads=1"])
    return config, cell_config(config)


def timed_search(dataset, algorithm, budget):
    config, cell = board_cell(dataset, algorithm, budget)
    reason = runner.unsuitable(cell)
    if reason:
        return {"dataset": dataset, "algorithm": algorithm, "unsuitable": reason}
    protocol = {**cell["protocol"], "tune_with": None}  # the algorithm tunes itself
    tuner = tuning_algorithm(cell["algorithm"], protocol)
    warm_up_tuning(tuner["name"], tuner.get("kernel", "rbf"))
    cpu, wall = time.process_time(), time.perf_counter()
    split = next(iter(splits(dataset, protocol, cell["seed"],
                             bool(config.dataset.get("scale", False)), lambda fold: fold == 0,
                             cell["algorithm"])))
    return {"dataset": dataset, "algorithm": algorithm, "tuned_with": split.tuning["tuned_with"],
            "budget": budget, "tuned_on": split.tuning["tuned_on"],
            "n_train": int(split.y_train.shape[0]),
            "trainings": split.tuning["inner_trainings"],
            "cpu_s": round(time.process_time() - cpu, 3),
            "wall_s": round(time.perf_counter() - wall, 3), "point": split.params}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", required=True)
    parser.add_argument("--algorithms", nargs="+", required=True)
    parser.add_argument("--budget", type=int, default=5000)
    args = parser.parse_args()
    runner.register_configs()
    limit_threads(1)
    for dataset in args.datasets:
        for algorithm in args.algorithms:
            print(json.dumps(timed_search(dataset, algorithm, args.budget)), flush=True)


if __name__ == "__main__":
    main()
