"""Renderer of frank-wolfe-svm Figs. 3 (Web series) and 4 (Adult series) (cells:
conf/experiment/fw_fig3.yaml, fw_fig4.yaml): accuracy, speed-up of FW and MFW over CVM, training
time and support-set size against the training-set size, ours (mean over seeds) beside the paper's
Table 3 ratios, plus the speed-up table the figure plots.

    python experiments/fw_series.py results/fw/runs fig3|fig4 --out results/fw
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from fw_table2_3 import ALGORITHMS, describe, summary

from svmbench.analysis.reference import load_reference
from svmbench.analysis.tables import provenance
from svmbench.store import load_results

FIGURES = {"fig3": ("Web", ("w1a", "w2a", "w3a", "w4a", "w5a", "w6a", "w7a", "w8a")),
           "fig4": ("Adult", ("a1a", "a2a", "a3a", "a4a", "a5a", "a6a", "a7a"))}


def speedups(records, series):
    """Per set of ``series``: training-set size, our and the paper's CVM time / FW and MFW time."""
    ours = summary(records)
    paper = load_reference("fw_table3").set_index("dataset_key")
    sizes = records.groupby("dataset")["n_train"].first()
    rows = []
    for key in series:
        if (key, "cvm") not in ours.index:
            continue
        row = {"dataset": key, "n_train": int(sizes[key])}
        for algorithm in ("fw", "mfw"):
            if (key, algorithm) in ours.index:
                row[f"{algorithm}_ours"] = (ours.loc[(key, "cvm"), "train_time_s_mean"]
                                            / ours.loc[(key, algorithm), "train_time_s_mean"])
            row[f"{algorithm}_paper"] = paper.loc[key, "cvm_time"] / paper.loc[key,
                                                                                f"{algorithm}_time"]
        rows.append(row)
    return rows


def render_table(records, figure):
    name, series = FIGURES[figure]
    lines = [f"# frank-wolfe-svm Fig. {figure[-1]} — {name} series: speed-up over CVM (CVM time / time)", "",
             "| Dataset | m | FW ours | FW paper | MFW ours | MFW paper |",
             "|---|---|---|---|---|---|"]
    for row in speedups(records, series):
        def fmt(key, row=row):
            return f"{row[key]:.2f}x" if key in row else "—"
        lines.append(f"| {row['dataset']} | {row['n_train']} | {fmt('fw_ours')} | "
                     f"{fmt('fw_paper')} | {fmt('mfw_ours')} | {fmt('mfw_paper')} |")
    settings = records.drop_duplicates(["dataset", "algorithm"])
    return "\n".join(lines + ["", describe(settings, records), "", provenance(records)]) + "\n"


def render_figure(records, figure, path):
    series = FIGURES[figure][1]
    ours = summary(records).reset_index()
    ours = ours[ours["dataset"].isin(series)]
    sizes = records.groupby("dataset")["n_train"].first()
    ours["m"] = ours["dataset"].map(sizes)
    figure, axes = plt.subplots(1, 4, figsize=(16, 3.6))
    for algorithm in ALGORITHMS:
        mine = ours[ours["algorithm"] == algorithm].sort_values("m")
        axes[0].plot(mine["m"], mine["accuracy_mean"], "o-", label=algorithm.upper())
        axes[2].plot(mine["m"], mine["train_time_s_mean"], "o-", label=algorithm.upper())
        axes[3].plot(mine["m"], mine["n_sv"], "o-", label=algorithm.upper())
    rows = speedups(records, series)
    for algorithm in ("fw", "mfw"):
        axes[1].plot([r["n_train"] for r in rows], [r.get(f"{algorithm}_ours") for r in rows],
                     "o-", label=f"{algorithm.upper()} ours")
        axes[1].plot([r["n_train"] for r in rows], [r[f"{algorithm}_paper"] for r in rows],
                     "x--", label=f"{algorithm.upper()} paper")
    titles = ("test accuracy (%)", "speed-up over CVM", "training time (s)", "support vectors")
    for axis, title in zip(axes, titles):
        axis.set_title(title)
        axis.set_xlabel("training points m")
        axis.legend(fontsize=7)
    axes[1].set_yscale("log")
    axes[2].set_yscale("log")
    figure.tight_layout()
    figure.savefig(path.with_suffix(".png"), dpi=120)
    figure.savefig(path.with_suffix(".pdf"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("figure", choices=sorted(FIGURES))
    parser.add_argument("--out", type=Path, default=Path("results/fw"))
    args = parser.parse_args()
    records = load_results(args.store)
    records = records[(records["experiment"] == "fw_table2_3")
                      & records["dataset"].isin(FIGURES[args.figure][1])]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.figure}.md").write_text(render_table(records, args.figure))
    render_figure(records, args.figure, args.out / args.figure)


if __name__ == "__main__":
    main()
