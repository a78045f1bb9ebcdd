"""Renderer of frank-wolfe-svm Figs. 3 (Web series) and 4 (Adult series) (cells:
svmbench/papers/fw/experiment/fw_fig3.yaml, fw_fig4.yaml): accuracy, speed-up of FW and MFW over CVM, training
time and support-set size against the training-set size, ours (mean over seeds) beside the paper's
Table 3 ratios, plus the speed-up table the figure plots (figN.png / figN.pdf beside figN.md).
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from svmbench.analysis.artefact_tables import sources_and_cells
from svmbench.analysis.plots import save_figure
from svmbench.analysis.reference import load_reference
from svmbench.papers.fw.fw_table2_3 import ALGORITHMS, describe, summary

# artefact -> (figure number, series name, its datasets)
FIGURES = {"fw_fig3": (3, "Web", ("w1a", "w2a", "w3a", "w4a", "w5a", "w6a", "w7a", "w8a")),
           "fw_fig4": (4, "Adult", ("a1a", "a2a", "a3a", "a4a", "a5a", "a6a", "a7a"))}


def speedups(records, series):
    """Per set of ``series``: training-set size, our and the paper's CVM time / FW and MFW time."""
    ours = summary(records)
    paper = load_reference("fw_table3").set_index("dataset_key")
    rows = []
    for key in series:
        if (key, "cvm") not in ours.index:
            continue
        row = {"dataset": key,
               "n_train": int(records.loc[records["dataset"] == key, "n_train"].iloc[0]),
               "accuracy": " / ".join(
                   f"{ours.loc[(key, algorithm), 'accuracy_mean']:.2f}"
                   if (key, algorithm) in ours.index else "—" for algorithm in ALGORITHMS)}
        for algorithm in ("fw", "mfw"):
            if (key, algorithm) in ours.index:
                row[f"{algorithm}_ours"] = (ours.loc[(key, "cvm"), "train_time_s_mean"]
                                            / ours.loc[(key, algorithm), "train_time_s_mean"])
            row[f"{algorithm}_paper"] = paper.loc[key, "cvm_time"] / paper.loc[key,
                                                                                f"{algorithm}_time"]
        rows.append(row)
    return rows


def speedup_table(records, series):
    """Speed-ups beside our accuracies: a speed-up bought by stopping early (the sampled stopping
    test on an imbalanced set) shows as an accuracy far below CVM's."""
    lines = [("| Dataset | m | FW ours | FW paper | MFW ours | MFW paper | "
              f"accuracy % ours ({' / '.join(a.upper() for a in ALGORITHMS)}) |"),
             "|---|---|---|---|---|---|---|"]
    for row in speedups(records, series):
        def fmt(key, row=row):
            return f"{row[key]:.2f}x" if key in row else "—"
        lines.append(f"| {row['dataset']} | {row['n_train']} | {fmt('fw_ours')} | "
                     f"{fmt('fw_paper')} | {fmt('mfw_ours')} | {fmt('mfw_paper')} | "
                     f"{row['accuracy']} |")
    return "\n".join(lines)


def series_figure(records, series):
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
    return figure


def render(records, artefact):
    number, name, series = FIGURES[artefact.name]
    title = f"# frank-wolfe-svm Fig. {number} — {name} series: speed-up over CVM (CVM time / time)"
    parts = [title, f"SCALE={artefact.scale}."]
    if speedups(records, series):
        save_figure(series_figure(records, series), artefact.output.with_suffix(""))
        parts.append(speedup_table(records, series))
    return "\n\n".join([*parts, describe(records), *sources_and_cells(records, artefact)])
