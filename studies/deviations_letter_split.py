"""Does LIBSVM's Letter split explain the FW paper's Letter gap? (docs/deviations.md, 4a)

Our registry's Letter is the UCI file split by rows (the first 15,000 train, the last 5,000 test);
LIBSVM's letter.scale / letter.scale.t (both staged) hold a different partition of the same 20,000
rows. This trains CVM / FW / MFW as frank-wolfe-svm Table 2 does (C = 2^10 as our table, gamma =
paper_default, eps 1e-6, 59-point sampling, one seed) on both splits, each scaled to [-1, 1] on
its training part, and prints the test accuracy. It also counts how many rows of one split's
training part are in the other's (as (features, label) multisets).

    PYTHONPATH=. python studies/deviations_letter_split.py --algorithms fw
"""

import argparse
import bz2
import os
import time
from collections import Counter

import numpy as np
from _deviations import write_table
from sklearn.datasets import load_svmlight_file

from svmbench.data import load_dataset, scale_features
from svmbench.models import MEBSVC


def libsvm_split(folder):
    """LIBSVM's letter.scale / letter.scale.t back on the UCI integer grid 0..15, labels 0..25."""
    with bz2.open(os.path.join(folder, "letter.scale.bz2")) as handle:
        X_train, y_train = load_svmlight_file(handle, n_features=16)
    X_test, y_test = load_svmlight_file(os.path.join(folder, "letter.scale.t"), n_features=16)
    back = lambda X: np.rint((X.toarray() + 1.0) * 7.5)  # scaled from 0..15
    return back(X_train), y_train.astype(int) - 1, back(X_test), y_test.astype(int) - 1


def rows(X, y):
    return Counter(tuple(row) + (label,) for row, label in zip(X.astype(int).tolist(), y.tolist()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--algorithms", nargs="+", default=["fw"], choices=["cvm", "fw", "mfw"])
    parser.add_argument("--C", type=float, default=1024.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", default=os.path.join(os.environ.get("SVMBENCH_DATA_PATH", "."),
                                                       "letter"))
    parser.add_argument("--out")
    args = parser.parse_args()
    uci = load_dataset("letter")
    splits = {"UCI rows (ours)": (uci.X_train, np.asarray(uci.y_train), uci.X_test,
                                  np.asarray(uci.y_test)),
              "LIBSVM letter.scale(.t)": libsvm_split(args.data)}
    ours, theirs = rows(*splits["UCI rows (ours)"][:2]), rows(*splits["LIBSVM letter.scale(.t)"][:2])
    started = time.time()
    lines = ["| split | algorithm | test accuracy (%) | training s (process CPU) |",
             "| --- | --- | --- | --- |"]
    for name, (X_train, y_train, X_test, y_test) in splits.items():
        X_train, X_test = scale_features(X_train, X_test)
        for algorithm in args.algorithms:
            model = MEBSVC(variant=algorithm, C=args.C, seed=args.seed)
            before = time.process_time()
            model.fit(X_train, y_train)
            cpu = time.process_time() - before
            accuracy = 100.0 * np.mean(model.predict(X_test) == y_test)
            lines.append(f"| {name} | {algorithm} | {accuracy:.2f} | {cpu:.1f} |")
            print(lines[-1], flush=True)
    write_table(lines, f"Letter, C {args.C:g}, gamma paper_default, eps 1e-6, 59-point sampling, "
                f"seed {args.seed}. Training rows shared by the two splits: "
                f"{sum((ours & theirs).values())} of 15000.", started, args.out)


if __name__ == "__main__":
    main()
