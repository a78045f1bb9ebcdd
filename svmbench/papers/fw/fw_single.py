"""Renderer of frank-wolfe-svm Figs. 5 and 6 (§5.5, the single datasets; cells:
svmbench/papers/fw/experiment/fw_fig5.yaml, fw_fig6.yaml, the cells of Table 2): test accuracy of CVM, FW and MFW
and the speed-up of FW and MFW over CVM, ours beside the paper's (its Tables 2-3), as a table and a
figure (figN.png / figN.pdf beside figN.md)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from svmbench.analysis.artefact_tables import sources_and_cells
from svmbench.analysis.plots import save_figure
from svmbench.analysis.reference import load_reference
from svmbench.analysis.stop_marks import stop_legend, with_mark
from svmbench.papers.fw.fw_table2_3 import (
    ALGORITHMS,
    dataset_key,
    describe,
    not_run_reason,
    stop_marks,
    summary,
    unconverged,
)

# artefact -> (figure number, the paper's names of its sets). The paper does not say which single
# sets each figure shows; we split Table 2's single-set rows in its order.
FIGURES = {"fw_fig5": (5, ("Letter", "Pendigits", "USPS", "Reuters", "MNIST", "Protein")),
           "fw_fig6": (6, ("Shuttle", "IJCNN", "USPS-Ext", "KDD10pc", "KDD-full"))}
SPEEDUPS = ("fw", "mfw")


def rows(records, names):
    """Per paper set: our and the paper's accuracy per algorithm and speed-up (CVM time / time)
    of FW and MFW, ours None where not measured, and the set's note."""
    ours, notes, marks = summary(records), unconverged(records), stop_marks(records)
    accuracy = load_reference("fw_table2").set_index("dataset")
    time = load_reference("fw_table3").set_index("dataset")
    result = []
    for name in names:
        key = dataset_key(accuracy.loc[name])

        def mine(algorithm, field, key=key):
            return ours.loc[(key, algorithm), field] if (key, algorithm) in ours.index else None

        row = {"dataset": name, "key": key}
        for algorithm in ALGORITHMS:
            row[f"{algorithm}_acc_ours"] = mine(algorithm, "accuracy_mean")
            row[f"{algorithm}_acc_paper"] = accuracy.loc[name, f"{algorithm}_acc"]
            row[f"{algorithm}_stop"] = marks.get((key, algorithm), "")
        cvm_time = mine("cvm", "train_time_s_mean")
        for algorithm in SPEEDUPS:
            own = mine(algorithm, "train_time_s_mean")
            row[f"{algorithm}_speedup_ours"] = cvm_time / own if cvm_time and own else None
            row[f"{algorithm}_speedup_paper"] = (time.loc[name, "cvm_time"]
                                                 / time.loc[name, f"{algorithm}_time"])
        row["note"] = not_run_reason(key) or "; ".join(
            f"{algorithm.upper()} not converged: {notes[(key, algorithm)]}"
            for algorithm in ALGORITHMS if (key, algorithm) in notes) or (
            "" if (key, "cvm") in ours.index else "not run yet")
        result.append(row)
    return result


def table(rows_):
    def fmt(value, pattern):
        return "—" if value is None else pattern.format(value)

    header = ([f"{a.upper()} acc ours | {a.upper()} acc paper" for a in ALGORITHMS]
              + [f"{a.upper()}/CVM ours | {a.upper()}/CVM paper" for a in SPEEDUPS])
    lines = ["| Dataset | " + " | ".join(header) + " | note |", "|---" * 12 + "|"]
    for row in rows_:
        cells = [f"{with_mark(fmt(row[f'{a}_acc_ours'], '{:.2f}'), row[f'{a}_stop'])} | "
                 f"{row[f'{a}_acc_paper']:.2f}"
                 for a in ALGORITHMS]
        cells += [f"{fmt(row[f'{a}_speedup_ours'], '{:.2f}x')} | {row[f'{a}_speedup_paper']:.2f}x"
                  for a in SPEEDUPS]
        lines.append(f"| {row['dataset']} | " + " | ".join(cells) + f" | {row['note']} |")
    return "\n".join(lines)


def figure(rows_):
    """Accuracy (left) and speed-up over CVM (right, log scale) per set: ours solid, the paper's
    hatched; sets without our records are labelled 'not run'."""
    x = np.arange(len(rows_))
    labels = [row["dataset"] + ("" if row["fw_acc_ours"] or row["cvm_acc_ours"] else "\n(not run)")
              for row in rows_]
    figure_, axes = plt.subplots(1, 2, figsize=(13, 3.8))
    panels = ((axes[0], ALGORITHMS, "acc", "test accuracy (%)"),
              (axes[1], SPEEDUPS, "speedup", "speed-up over CVM (CVM time / time)"))
    for axis, algorithms, field, title in panels:
        width = 0.8 / (2 * len(algorithms))
        for index, (algorithm, side) in enumerate(
                (a, s) for a in algorithms for s in ("ours", "paper")):
            values = [row[f"{algorithm}_{field}_{side}"] for row in rows_]
            axis.bar(x + (index - len(algorithms) + 0.5) * width,
                     [np.nan if v is None else v for v in values], width,
                     label=f"{algorithm.upper()} {side}", hatch="//" if side == "paper" else "",
                     color=f"C{ALGORITHMS.index(algorithm)}", alpha=0.5 if side == "paper" else 1)
        axis.set_xticks(x, labels, fontsize=8)
        axis.set_title(title)
        axis.legend(fontsize=7, ncol=2)
    accuracies = [row[f"{a}_acc_{side}"] for row in rows_ for a in ALGORITHMS
                  for side in ("ours", "paper") if row[f"{a}_acc_{side}"] is not None]
    axes[0].set_ylim(min(accuracies) - 2, 100)
    axes[1].set_yscale("log")
    axes[1].axhline(1.0, color="black", linewidth=0.8)
    figure_.tight_layout()
    return figure_


def render(records, artefact):
    number, names = FIGURES[artefact.name]
    found = rows(records, names)
    save_figure(figure(found), artefact.output.with_suffix(""))
    return "\n\n".join([
        f"# frank-wolfe-svm Fig. {number} — single datasets: accuracy and speed-up over CVM",
        (f"SCALE={artefact.scale}. Paper columns: its Table 2 (accuracy) and Table 3 (speed-up = "
        "CVM time / time, computed from its printed times). Ours: mean over the seeds that "
        "ended soundly (KKT holds, or the algorithm's own rule stopped it) of each algorithm; "
        "speed-up = our mean CVM time / our mean time. The paper does not "
        "say which single sets each of Figs. 5 and 6 shows; we split Table 2's single sets in "
        "its order (Fig. 5: Letter .. Protein, Fig. 6: Shuttle .. KDD-full)."),
        table(found), stop_legend(row[f"{a}_stop"] for row in found for a in ALGORITHMS),
        describe(records), *sources_and_cells(records, artefact)])
