"""Does GS-SVM's support-vector count depend on the sample order? (docs/deviations.md)

gs-svm-tnn2008 Table II: GS-SVM on Web-7 (w7a, theta 0.10) has 1716 SVs here, 1724 in the paper.
GS-SVM (Algorithm 1) picks the unused sample with the most negative g at each stage; the Web sets
hold many duplicate points, so equal g values tie and the first in order wins. This trains
GSSVC on the training file in its given order, reversed, and in seeded random permutations, and
prints the SV count and test error of each: a spread that covers 1724 makes the order (ties) a
sufficient cause; no spread rules it out.

    PYTHONPATH=. python studies/deviations_gs_order.py --dataset w7a --gamma 0.1
"""

import argparse
import time

import numpy as np
from _deviations import write_table

from svmbench import GSSVC
from svmbench.data import load_dataset


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="w7a")
    parser.add_argument("--gamma", type=float, default=0.1)
    parser.add_argument("--shuffles", type=int, default=5)
    parser.add_argument("--out")
    args = parser.parse_args()
    data = load_dataset(args.dataset)
    X, y = data.X_train, np.asarray(data.y_train)
    n = y.shape[0]
    orders = [("given", np.arange(n)), ("reversed", np.arange(n)[::-1])]
    orders += [(f"shuffled seed {seed}", np.random.default_rng(seed).permutation(n))
               for seed in range(args.shuffles)]
    started = time.time()
    lines = ["| order | SVs | test error % |", "| --- | --- | --- |"]
    for name, order in orders:
        model = GSSVC(gamma=args.gamma).fit(X[order], y[order])
        error = 100.0 * (1.0 - model.score(data.X_test, data.y_test))
        line = f"| {name} | {model.support_.shape[0]} | {error:.2f} |"
        print(line, flush=True)
        lines.append(line)
    write_table(lines, f"{args.dataset}, GS-SVM, RBF gamma {args.gamma}.", started, args.out)

if __name__ == "__main__":
    main()
