"""CPU seconds of one inner fold of a nested-CV cell's grid search (outer fold 0, paper grid,
one thread), and the parts its fits spent in the solvers and in the referee; the hash of the
validation errors, equal between two codes that tune alike (issue 42 item 4, gs2008 Table VII).

    python studies/tuning_fold_cpu.py segment smo_wss2
    PYTHONPATH=<other checkout> python studies/tuning_fold_cpu.py segment smo_wss2   # A/B
"""

import argparse
import collections
import hashlib
import time

from svmbench import models, referee, tuning
from svmbench.kernels.threads import limit_threads
from svmbench.protocols import kfold_indices, splits
from svmbench.tuning import inner_seed, parameter_grid
from svmbench.warm_up import warm_up, warm_up_tuning

GRID = {"gamma_log2": [-8, 8], "C_log2": [-1, 10]}  # svmbench/conf/protocol/nested_cv.yaml
ALGORITHMS = {
    "smo_wss2": {"name": "smo_wss2", "kernel": "rbf", "gamma": 0.05, "coef0": 0.0, "degree": 3,
                 "C": 1.0, "tol": 1e-3, "cache_mb": 100, "shrinking": True,
                 "shrinking_rules": "libsvm283", "max_iter": -1},
    "hm_svm": {"name": "hm_svm", "kernel": "rbf", "gamma": 0.05, "coef0": 0.0, "degree": 3,
               "tol": 1e-6, "cache_mb": 100, "max_iter": -1},
    "gs_svm": {"name": "gs_svm", "kernel": "rbf", "gamma": 0.05, "coef0": 0.0, "degree": 3,
               "cache_mb": 100, "max_iter": -1},
}

REFEREE_CALLS = ((models.KernelSVC, "_certify"), (models, "certify_fits"),
                 (referee, "certify_fits"))


def timed(owner, name, spent, part):
    """Wrap ``owner.name`` so that its CPU seconds add up in ``spent[part]``."""
    method = getattr(owner, name)

    def wrapper(*args, **kwargs):
        start = time.process_time()
        try:
            return method(*args, **kwargs)
        finally:
            spent[part] += time.process_time() - start

    setattr(owner, name, wrapper)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset")
    parser.add_argument("algorithm", choices=sorted(ALGORITHMS))
    parser.add_argument("--inner-folds", type=int, default=1)
    args = parser.parse_args()
    limit_threads(1)
    algorithm = ALGORITHMS[args.algorithm]
    warm_up(args.algorithm, "rbf")
    warm_up_tuning(args.algorithm, "rbf")
    split = next(splits(args.dataset, {"name": "kfold", "k": 10}, 0, False, lambda f: f == 0))
    inner = kfold_indices(split.y_train, 10, inner_seed(0, 0))[:args.inner_folds]
    spent = collections.Counter()
    # the referee: one fit at a time (before the batches: KernelSVC._certify) or batched
    for owner, name in REFEREE_CALLS:
        if hasattr(owner, name):
            timed(owner, name, spent, "referee")
    timed(models.KernelSVC, "_solve_pairs", spent, "solve")
    start = time.process_time()
    # prune=False: every fit of the folds given, as the search fits its inner fold 0 (with one
    # fold, pruning would drop gammas as soon as the first are complete)
    errors, _ = tuning.shared_errors(algorithm, parameter_grid(GRID, algorithm), split.X_train,
                                     split.y_train, inner, True, prune=False)
    print(f"{args.dataset} {args.algorithm} cpu {time.process_time() - start:.2f} referee "
          f"{spent['referee']:.2f} solve {spent['solve']:.2f} errors-sha "
          f"{hashlib.sha256(errors.tobytes()).hexdigest()[:12]}")


if __name__ == "__main__":
    main()
