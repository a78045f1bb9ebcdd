"""Can any C grid make gs2005 Table 1's SMO counts the paper's? (docs/deviations.md, section 2)

The paper prints one SMO K2 per set, "averaged over the capacity parameters" it does not list;
ours averages over C = 2^-6, 2^-4, ..., 2^10. This reads the table's own records (no training)
and prints (1) K2 per C, (2) for Adult-7 / Adult-4 the growth of K2 per C beside the paper's
growth: a mean over any C grid shared by the two sets grows by a factor between the smallest and
the largest per-C factor, so a paper factor outside that range rules out every grid; (3) the
contiguous sub-grids of ours that come closest to the paper's twelve numbers.

    PYTHONPATH=. python studies/deviations_keerthi_c_grid.py [--store results/gs2005/runs]
"""

import argparse
import math
import time

from _deviations import write_table

from svmbench.store import load_results

# gs-svm-pakdd2005 Table 1: SMO-1 / SMO-2 kernel evaluations (10^6), Keerthi et al.'s
PAPER = {"a1a": (29.518, 17.375), "a4a": (344.977, 231.349), "a7a": (856.212, 698.864),
         "w1a": (11.543, 11.187), "w4a": (79.415, 79.008), "w7a": (691.419, 703.495)}
ALGORITHMS = ("smo_mod1", "smo_mod2")


def k2_per_c(store):
    """{(dataset, algorithm): {C: K2 in 10^6}} from the store's converged SMO records."""
    records = load_results(store)
    smo = records[records.algorithm.isin(ALGORITHMS) & (records.status == "converged")]
    table = {}
    for (dataset, algorithm), group in smo.groupby(["dataset", "algorithm"]):
        table[dataset, algorithm] = dict(zip(group.C, group.kernel_requested / 1e6))
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", default="results/gs2005/runs")
    parser.add_argument("--best", type=int, default=5, help="how many sub-grids to print")
    parser.add_argument("--out")
    args = parser.parse_args()
    started = time.time()
    k2 = k2_per_c(args.store)
    grid = sorted(k2["a1a", "smo_mod1"])
    lines = ["| set | algorithm | " + " | ".join(f"C 2^{math.log2(c):g}" for c in grid) + " |",
             "| --- | --- |" + " --- |" * len(grid)]
    for (dataset, algorithm), per_c in sorted(k2.items()):
        counts = " | ".join(f"{per_c[c]:.1f}" for c in grid)
        lines.append(f"| {dataset} | {algorithm} | {counts} |")
    lines += ["", "| algorithm | Adult-7 / Adult-4 per C (ours) | smallest | largest | paper |",
              "| --- | --- | --- | --- | --- |"]
    for column, algorithm in enumerate(ALGORITHMS):
        growth = [k2["a7a", algorithm][c] / k2["a4a", algorithm][c] for c in grid]
        paper = PAPER["a7a"][column] / PAPER["a4a"][column]
        per_c = ", ".join(f"{g:.1f}" for g in growth)
        lines.append(f"| {algorithm} | {per_c} | {min(growth):.1f} | {max(growth):.1f} | "
                     f"{paper:.2f} |")
    cells = [(dataset, algorithm, PAPER[dataset][column])
             for dataset in PAPER for column, algorithm in enumerate(ALGORITHMS)]
    fits = []
    for first in range(len(grid)):
        for last in range(first, len(grid)):
            sub = grid[first:last + 1]
            ratios = [sum(k2[d, a][c] for c in sub) / len(sub) / paper for d, a, paper in cells]
            fits.append((sum(abs(math.log(r)) for r in ratios) / len(ratios), sub, ratios))
    lines += ["", "| sub-grid (log2 C) | mean abs log ratio | ours / paper: "
              + ", ".join(f"{d} {a[-4:]}" for d, a, _ in cells) + " |", "| --- | --- | --- |"]
    for score, sub, ratios in sorted(fits, key=lambda fit: fit[0])[:args.best]:
        lines.append(f"| {math.log2(sub[0]):g}..{math.log2(sub[-1]):g} | {score:.3f} | "
                     + ", ".join(f"{r:.2f}" for r in ratios) + " |")
    write_table(lines, f"K2 = Q entries requested (10^6), records of {args.store}.", started,
                args.out)


if __name__ == "__main__":
    main()
