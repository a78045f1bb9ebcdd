"""How much does the one-vs-one vote's tie rule move a multiclass error? (docs/deviations.md, 3b)

gs-svm-tnn2008 Table VII's multiclass sets (Glass: 6 classes, 15 pairs; Dna: 3 classes, where a
1-1-1 vote is a tie) are predicted by one-vs-one voting; svmbench gives a tied vote to the lowest
class index (LIBSVM's rule), the paper does not say its rule. This refits each outer fold of one
committed Table VII cell at the parameters its record chose (the same fold split and scaling as
svmbench.protocols), checks that the refit reproduces the record's test error, and prints the
error with ties to the lowest class (ours), to the highest, to the largest summed decision value
(scikit-learn's decision_function), and its bounds: every tie right / every tie wrong.

    PYTHONPATH=. python studies/deviations_vote_ties.py --dataset glass --algorithm gs_svm
"""

import argparse
import glob
import json
import time

import numpy as np
from _deviations import write_table

from svmbench.data import load_dataset, scale_features
from svmbench.data.registry import get_spec
from svmbench.models import GSSVC, SMOSVC
from svmbench.protocols import kfold_indices


def records(store, dataset, algorithm, commit, seed):
    """The cell's fold records from ``commit``, by fold."""
    found = {}
    for path in glob.glob(f"{store}/*/fold-*.json"):
        with open(path) as handle:
            record = json.load(handle)
        if (record.get("dataset") == dataset and record.get("algorithm") == algorithm
                and record.get("git_commit", "").startswith(commit)
                and record.get("seed") == seed and record.get("fold", -1) >= 0):
            found[record["fold"]] = record
    if not found:
        raise SystemExit(f"no {algorithm} records of {dataset} at commit {commit} seed {seed} "
                         f"in {store}")
    return [found[fold] for fold in sorted(found)]


def outer_split(dataset, record):
    """(X_train, y_train, X_test, y_test) of the record's outer fold, scaled as the runner does."""
    data = load_dataset(dataset)
    if record["protocol"] == "tuned_holdout":
        X_train, y_train, X_test, y_test = data.X_train, data.y_train, data.X_test, data.y_test
    else:
        train, test = kfold_indices(data.y_train, 10, record["seed"])[record["fold"]]
        X_train, y_train = data.X_train[train], data.y_train[train]
        X_test, y_test = data.X_train[test], data.y_train[test]
    if get_spec(dataset).scale:
        X_train, X_test = scale_features(X_train, X_test)
    return X_train, y_train, X_test, y_test


def estimator(record):
    if record["algorithm"] == "gs_svm":
        return GSSVC(gamma=record["gamma"])
    return SMOSVC(variant="wss2", C=record["C"], gamma=record["gamma"], tol=record["tol"],
                  cache_mb=record["cache_mb"])


def tie_errors(model, X_test, y_test):
    """(wrong with ties to the lowest class, to the highest, by summed decision value, every
    tie right, every tie wrong, tied test points) for one fold."""
    scores = model.decision_function(X_test)
    votes = np.round(scores)
    top = votes == votes.max(axis=1, keepdims=True)
    tied = top.sum(axis=1) > 1
    truth = np.searchsorted(model.classes_, y_test)
    lowest = np.argmax(top, axis=1)
    highest = top.shape[1] - 1 - np.argmax(top[:, ::-1], axis=1)
    by_value = np.argmax(scores, axis=1)
    among_top = top[np.arange(truth.shape[0]), truth]
    return (np.sum(lowest != truth), np.sum(highest != truth), np.sum(by_value != truth),
            np.sum(~among_top), np.sum(~among_top | tied), np.sum(tied))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="glass")
    parser.add_argument("--algorithm", default="gs_svm", choices=["gs_svm", "smo_wss2"])
    parser.add_argument("--store", default="results/uci/runs")
    parser.add_argument("--commit", default="8d24ceeb", help="the committed Table VII's commit")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out")
    args = parser.parse_args()
    started = time.time()
    lines = [("| fold | parameters | record error | refit error | ties to lowest (ours) | to highest "
              "| by decision value | every tie right | every tie wrong | tied test points |"),
             "| --- " * 10 + "|"]
    totals = np.zeros(6)
    n_test = 0
    for record in records(args.store, args.dataset, args.algorithm, args.commit, args.seed):
        X_train, y_train, X_test, y_test = outer_split(args.dataset, record)
        model = estimator(record).fit(X_train, y_train)
        refit = np.mean(model.predict(X_test) != y_test)
        wrong = np.array(tie_errors(model, X_test, y_test), dtype=float)
        totals += wrong / y_test.shape[0]
        n_test += 1
        parameters = f"gamma {record['gamma']:g}" + (f", C {record['C']:g}" if record.get("C") else "")
        lines.append(f"| {record['fold']} | {parameters} | {record['test_error']:.4f} | {refit:.4f} | "
                     + " | ".join(f"{v / y_test.shape[0]:.4f}" for v in wrong[:5])
                     + f" | {int(wrong[5])} of {y_test.shape[0]} |")
    means = totals / n_test
    lines.append("| mean | | | | " + " | ".join(f"**{v:.4f}**" for v in means[:5])
                 + f" | {means[5]:.3f} of the test points |")
    write_table(lines, f"{args.dataset} {args.algorithm}, records of commit {args.commit} seed "
                f"{args.seed} in {args.store} (their parameters, refit; error = fraction wrong).",
                started, args.out)


if __name__ == "__main__":
    main()
