"""Tuning on the whole training part of a given split instead of a sample (docs/deviations.md, 3e).

gs-svm-tnn2008 Table VII tunes (theta, C) by ten-fold CV "on the training set"; the table's large
given splits (Letter, Shuttle, ...) tune on a stratified sample of it (``protocol.tune_subsample``,
a compute budget: ten-fold CV over the whole grid on all of Letter's training part is hours). This
tunes on all of the training part by one stratified hold-out split of it instead (fit on the rest,
error on the held-out part: the protocol the paper itself uses for Forest, §V), over a window of
the paper's grid, then trains on the whole training part at the point picked and reports its test
error, to set beside the table's (whose point a sample of the training part picked). With
``--oracle`` it also reports the test error at every point (it looks at the test set: no
protocol, the grid's best reachable error).

    PYTHONPATH=. python studies/deviations_large_tuning.py --dataset letter
"""

import argparse
import time

import numpy as np
from _deviations import write_table
from sklearn.model_selection import train_test_split

from svmbench.data import load_dataset, scale_features
from svmbench.data.registry import get_spec
from svmbench.models import GSSVC, SMOSVC

LABELS = {"smo_wss2": "SVM", "gs_svm": "GS-SVM"}


def make(algorithm, theta, C):
    if algorithm == "gs_svm":
        return GSSVC(gamma=theta)
    return SMOSVC(variant="wss2", C=C, gamma=theta, tol=1e-3)


def error(model, X, y):
    return float(np.mean(model.predict(X) != y))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="letter")
    parser.add_argument("--algorithms", nargs="+", default=["smo_wss2", "gs_svm"],
                        choices=sorted(LABELS))
    parser.add_argument("--gamma-log2", type=int, nargs=2, default=[-1, 4])
    parser.add_argument("--C-log2", type=int, nargs=2, default=[3, 8])
    parser.add_argument("--held-out", type=float, default=1 / 3,
                        help="share of the training part held out for the validation error")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--oracle", action="store_true",
                        help="also train on the whole training part at every point")
    parser.add_argument("--out")
    args = parser.parse_args()
    data = load_dataset(args.dataset)
    X_train, X_test = data.X_train, data.X_test
    if get_spec(args.dataset).scale:  # scaled on the whole training part, as the paper (§V)
        X_train, X_test = scale_features(X_train, X_test)
    X_fit, X_val, y_fit, y_val = train_test_split(
        X_train, data.y_train, test_size=args.held_out, stratify=data.y_train,
        random_state=args.seed)
    thetas = range(args.gamma_log2[0], args.gamma_log2[1] + 1)
    started = time.time()
    lines, picks = [], [("| algorithm | chosen by | log2 theta | log2 C | validation error | "
                         "test error |"), "| --- " * 6 + "|"]
    for algorithm in args.algorithms:
        label = LABELS[algorithm]
        Cs = [None] if algorithm == "gs_svm" else range(args.C_log2[0], args.C_log2[1] + 1)
        lines += ["", f"| log2 theta | log2 C | {label} validation error | {label} test error |",
                  "| --- | --- | --- | --- |"]

        def test_error(g, c, algorithm=algorithm):
            model = make(algorithm, 2.0 ** g, None if c is None else 2.0 ** c)
            return error(model.fit(X_train, data.y_train), X_test, data.y_test)

        found = {}
        for g in thetas:
            for c in Cs:
                model = make(algorithm, 2.0 ** g, None if c is None else 2.0 ** c)
                validation = error(model.fit(X_fit, y_fit), X_val, y_val)
                found[g, c] = validation, test_error(g, c) if args.oracle else None
                test = "" if found[g, c][1] is None else f"{found[g, c][1]:.4f}"
                lines.append(f"| {g} | {'' if c is None else c} | {validation:.4f} | {test} |")
                print(algorithm, lines[-1], flush=True)
        # ties: the first in the grid's order (smallest theta, then smallest C), as svmbench.tuning
        (g, c), (validation, test) = min(found.items(), key=lambda item: item[1][0])
        test = test_error(g, c) if test is None else test
        picks.append(f"| {algorithm} | validation | {g} | {'' if c is None else c} | "
                     f"{validation:.4f} | {test:.4f} |")
        if args.oracle:
            (g, c), (validation, test) = min(found.items(), key=lambda item: item[1][1])
            picks.append(f"| {algorithm} | test (oracle) | {g} | {'' if c is None else c} | "
                         f"{validation:.4f} | {test:.4f} |")
    write_table(picks + lines, f"{args.dataset}: trained on {len(y_fit)} of the "
                f"{len(data.y_train)} training points (stratified, seed {args.seed}) for the "
                f"validation error on the other {len(y_val)}, and on all of them for the test "
                f"error on the given test part ({len(data.y_test)}) at the point chosen"
                f"{' and, as an oracle, at every point' if args.oracle else ''}; features "
                "scaled to [-1, 1] on the training part; SVM = smo_wss2 (tol 1e-3), GS-SVM = gs_svm; RBF "
                "exp(-theta ||x - z||^2).", started, args.out)


if __name__ == "__main__":
    main()
