"""Renderer of frank-wolfe-svm Table 8 (cells: svmbench/papers/fw/experiment/fw_table8.yaml): accuracy and
training time of FW and MFW with the homogeneous polynomial kernel, ours beside the paper's."""

from svmbench.analysis.artefact_tables import sources_and_cells
from svmbench.analysis.reference import load_reference
from svmbench.analysis.stop_marks import stop_legend, with_mark
from svmbench.papers.fw.fw_table2_3 import describe, not_run_reason, stop_marks, summary


def render(records, artefact):
    ours, marks = summary(records), stop_marks(records)
    lines = [("| Dataset | algorithm | accuracy ours (%) | accuracy paper (%) | time ours (s) | "
             "time paper (s) |"), "|---|---|---|---|---|---|"]
    for _, row in load_reference("fw_table8").iterrows():
        key, algorithm = row["dataset_key"], row["algorithm"].lower()
        paper = (f"{row['accuracy']:.2f} ± {row['accuracy_std']:.2f}",
                 f"{row['time_s']:.3g} ± {row['time_std']:.3g}")
        if (key, algorithm) in ours.index:
            mine = ours.loc[(key, algorithm)]
            acc = with_mark(f"{mine['accuracy_mean']:.2f} ± {mine['accuracy_std']:.2f}",
                            marks.get((key, algorithm), ""))
            time = f"{mine['train_time_s_mean']:.3g} ± {mine['train_time_s_std']:.3g}"
            name = row["dataset"]
        else:
            acc = time = "—"
            name = f"{row['dataset']} ({not_run_reason(key) or 'not run yet'})"
        lines.append(f"| {name} | {row['algorithm']} | {acc} | {paper[0]} | {time} | {paper[1]} |")
    return "\n\n".join([
        "# frank-wolfe-svm Table 8 — polynomial kernel (gamma x'z)^2: FW and MFW",
        f"SCALE={artefact.scale}.", "\n".join(lines), stop_legend(marks.values()),
        "CVM refuses this kernel (k(x, x) is not constant; frank-wolfe-svm eq. 17). "
        + describe(records),
        *sources_and_cells(records, artefact)])
