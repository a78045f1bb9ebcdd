"""Does the sample or label order explain gs2005 Table 1's SMO counts? (docs/deviations.md)

smo_mod1 / smo_mod2 (Keerthi et al. 2001 Modifications 1 and 2) on one Adult/Web training file at
gs2005 Table 1's setting (RBF theta 0.05, tol 1e-3, C = 2^-6, 2^-4, ..., 2^10, the table's mean
over C), in several orders of the same samples:
- given: the file's order, +1 labelled +1 (what results/gs2005/table1.md ran);
- negated: the file's order, the labels negated (the -1 class labelled +1);
- libsvm: LIBSVM 2.83's / scikit-learn's order (sample_order=libsvm: grouped by class, the class
  read first labelled +1);
- plus-first: LIBSVM 3.17+'s order (the +1 class first, labelled +1);
- shuffled seed k: a random permutation (the spread a mere reordering causes).
Prints per order and variant the mean K2 (kernel_requested, no cache), K1 (kernel_computed,
cache_mb), iterations, and K2 per C; writes a Markdown table with provenance.

    PYTHONPATH=. python studies/deviations_keerthi_order.py --dataset a1a --out results/deviations/keerthi_order_a1a.md
"""

import argparse
import time

import numpy as np
from _deviations import write_table

from svmbench import SMOSVC
from svmbench.data import load_dataset

GAMMA, TOL = 0.05, 1e-3
C_GRID = [2.0 ** k for k in range(-6, 11, 2)]  # svmbench/papers/gs2005/experiment/gs2005_table1.yaml
PAPER_K2 = {"a1a": {"mod1": 29.518, "mod2": 17.375}, "a4a": {"mod1": 344.977, "mod2": 231.349},
            "w1a": {"mod1": 11.543, "mod2": 11.187}}  # gs2005 Table 1, 10^6


def orders(y, shuffles):
    """(name, permutation, label sign) of every order tried."""
    n = y.shape[0]
    first = y[0]
    yield "given", np.arange(n), 1.0
    yield "negated", np.arange(n), -1.0
    yield "libsvm (2.83 / scikit-learn)", np.concatenate(
        [np.flatnonzero(y == first), np.flatnonzero(y != first)]), 1.0 if first == 1 else -1.0
    yield "plus-first (3.17+)", np.concatenate(
        [np.flatnonzero(y == 1), np.flatnonzero(y != 1)]), 1.0
    for seed in range(shuffles):
        yield f"shuffled seed {seed}", np.random.default_rng(seed).permutation(n), 1.0


def fit_counts(X, y, variant, C, cache_mb):
    svm = SMOSVC(variant=variant, C=C, gamma=GAMMA, tol=TOL, cache_mb=cache_mb).fit(X, y)
    return svm.kernel_requested_, svm.kernel_computed_, int(svm.n_iter_[0]), svm.status_[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="a1a")
    parser.add_argument("--shuffles", type=int, default=2)
    parser.add_argument("--only", nargs="+", metavar="ORDER",
                        help="run only the orders whose name starts with one of these (e.g. given)")
    parser.add_argument("--cache-mb", type=float, default=100.0)  # smo_mod1's config
    parser.add_argument("--out")
    args = parser.parse_args()
    data = load_dataset(args.dataset)
    X, y = data.X_train, np.asarray(data.y_train, dtype=float)
    started = time.time()
    lines = [("| order | variant | mean K2 (10^6) | paper K2 | mean K1 (10^6) | mean iterations | "
             "K2 per C (10^6) | statuses |"), "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, permutation, sign in orders(y, args.shuffles):
        if args.only and not name.startswith(tuple(args.only)):
            continue
        for variant in ("mod1", "mod2"):
            runs = [fit_counts(X[permutation], sign * y[permutation], variant, C, args.cache_mb)
                    for C in C_GRID]
            k2, k1, iterations, statuses = zip(*runs)
            paper = PAPER_K2.get(args.dataset, {}).get(variant)
            line = (f"| {name} | {variant} | {np.mean(k2) / 1e6:.3f} | "
                    f"{'' if paper is None else paper} | {np.mean(k1) / 1e6:.3f} | "
                    f"{np.mean(iterations):.0f} | {' '.join(f'{v / 1e6:.1f}' for v in k2)} | "
                    f"{','.join(sorted(set(statuses)))} |")
            print(line, flush=True)
            lines.append(line)
    write_table(lines, f"{args.dataset}, RBF gamma {GAMMA}, tol {TOL}, cache {args.cache_mb:g} "
                f"MB, C = {', '.join(f'{C:g}' for C in C_GRID)}.", started, args.out)

if __name__ == "__main__":
    main()
