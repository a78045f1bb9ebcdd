"""Renderer of the stopping-rule study (cells: svmbench/papers/fw/experiment/fw_stopping.yaml): training time,
test accuracy and support vectors of CVM, FW and MFW over eps, with the sampled (59 points, the
paper's and libCVM's) and the full stopping test, and FW's and MFW's speed-up over CVM beside the
paper's (Table 3 ratios)."""

from svmbench.analysis.artefact_tables import WALL_TIMES, sources_and_cells
from svmbench.analysis.reference import load_reference
from svmbench.analysis.stop_marks import stop_legend, with_mark
from svmbench.papers.fw.fw_table2_3 import sound, stop_marks

TITLE = "# Stopping rule and eps: CVM, FW and MFW (frank-wolfe-svm Table 3 timings)"


def render(records, artefact):
    runs = sound(records)
    if runs.empty:
        return "\n\n".join([TITLE, f"SCALE={artefact.scale}.",
                            *sources_and_cells(records, artefact)])
    means = runs.groupby(["dataset", "sample_size", "eps", "algorithm"]).agg(
        time=("train_time_s", "mean"), accuracy=("accuracy", "mean"), n_sv=("n_sv", "mean"),
        iterations=("iterations", "mean"), seeds=("seed", "nunique"))
    paper = load_reference("fw_table3").set_index("dataset_key")
    marks = stop_marks(records, ("dataset", "sample_size", "eps", "algorithm"))
    lines = [("| Dataset | search | eps | CVM s | FW s | MFW s | FW/CVM speed-up (paper) | "
             "MFW/CVM speed-up (paper) | accuracy CVM/FW/MFW (%) | SVs CVM/FW/MFW | "
             "FW iterations |"), "|---|---|---|---|---|---|---|---|---|---|---|"]
    for (dataset, sample_size, eps), cell in means.groupby(level=[0, 1, 2]):
        cell = cell.droplevel([0, 1, 2])
        if not {"cvm", "fw", "mfw"} <= set(cell.index):
            continue
        ratio = {a: cell.loc["cvm", "time"] / cell.loc[a, "time"] for a in ("fw", "mfw")}
        quoted = {a: paper.loc[dataset, "cvm_time"] / paper.loc[dataset, f"{a}_time"]
                  for a in ("fw", "mfw")}
        search = "sampled 59" if sample_size else "all points"
        lines.append(
            f"| {dataset} | {search} | {eps:g} | "
            + " | ".join(with_mark(f"{cell.loc[a, 'time']:.3g}",
                                   marks.get((dataset, sample_size, eps, a), ""))
                         for a in ("cvm", "fw", "mfw")) + " | "
            f"{ratio['fw']:.2f}x ({quoted['fw']:.1f}x) | {ratio['mfw']:.2f}x "
            f"({quoted['mfw']:.1f}x) | "
            + "/".join(f"{cell.loc[a, 'accuracy']:.2f}" for a in ("cvm", "fw", "mfw")) + " | "
            + "/".join(f"{cell.loc[a, 'n_sv']:.0f}" for a in ("cvm", "fw", "mfw"))
            + f" | {cell.loc['fw', 'iterations']:.0f} |")
    seeds = sorted(runs["seed"].unique().tolist())
    return "\n\n".join([
        TITLE, f"SCALE={artefact.scale}.", "\n".join(lines), stop_legend(marks.values()),
        (f"Means over seeds {seeds}; gamma = paper_default, C = 1 (a1a) / 10 (w1a), "
         f"cache 200 MB. Times: {WALL_TIMES}."),
        *sources_and_cells(records, artefact)])

