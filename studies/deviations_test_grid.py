"""Test error over the tuning grid on a given split (docs/deviations.md, 3b).

gs-svm-tnn2008 Table VII tunes (theta, C) by inner ten-fold CV on the training part (log2 theta in
-8..8, log2 C in -1..10). On a set with a given split (Dna) one choice decides the cell, so this
trains smo_wss2 on the whole (scaled) training part at every grid point and prints the test
error: how far the tuned choice is from the grid's best, and which grid points reach the paper's
value. The best test error is an oracle (it looks at the test set), not a protocol.

    PYTHONPATH=. python studies/deviations_test_grid.py --dataset dna
"""

import argparse
import time

import numpy as np
from _deviations import write_table

from svmbench.data import load_dataset, scale_features
from svmbench.data.registry import get_spec
from svmbench.models import SMOSVC


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="dna")
    parser.add_argument("--gamma-log2", type=int, nargs=2, default=[-8, 8])
    parser.add_argument("--C-log2", type=int, nargs=2, default=[-1, 10])
    parser.add_argument("--no-scale", action="store_true", help="train on the features as given")
    parser.add_argument("--out")
    args = parser.parse_args()
    data = load_dataset(args.dataset)
    X_train, X_test = data.X_train, data.X_test
    scaled = get_spec(args.dataset).scale and not args.no_scale
    if scaled:
        X_train, X_test = scale_features(X_train, X_test)
    gammas = range(args.gamma_log2[0], args.gamma_log2[1] + 1)
    Cs = range(args.C_log2[0], args.C_log2[1] + 1)
    started = time.time()
    lines = ["| log2 theta \\ log2 C | " + " | ".join(str(c) for c in Cs) + " |",
             "| --- " * (len(Cs) + 1) + "|"]
    errors = {}
    for g in gammas:
        row = []
        for c in Cs:
            model = SMOSVC(variant="wss2", C=2.0 ** c, gamma=2.0 ** g).fit(X_train, data.y_train)
            errors[g, c] = np.mean(model.predict(X_test) != data.y_test)
            row.append(f"{errors[g, c]:.4f}")
        lines.append(f"| {g} | " + " | ".join(row) + " |")
        print(lines[-1], flush=True)
    (g_best, c_best), best = min(errors.items(), key=lambda item: item[1])
    lines.append(f"\nLowest test error {best:.4f} at log2 theta {g_best}, log2 C {c_best}.")
    write_table(lines, f"{args.dataset}: smo_wss2 (tol 1e-3) trained on the whole training part "
                f"({'scaled to [-1, 1] on it' if scaled else 'features as given'}), test error on "
                "the given test part.", started, args.out)


if __name__ == "__main__":
    main()
