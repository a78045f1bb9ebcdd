"""Renderer of frank-wolfe-svm Table 8 (cells: conf/experiment/fw_table8.yaml): accuracy and
training time of FW and MFW with the homogeneous polynomial kernel, ours beside the paper's.

    python experiments/fw_table8.py results/fw/runs --out results/fw
"""

import argparse
from pathlib import Path

from fw_table2_3 import describe, summary

from svmbench.analysis.reference import load_reference
from svmbench.analysis.tables import provenance
from svmbench.store import load_results


def render(records):
    ours = summary(records)
    lines = ["# frank-wolfe-svm Table 8 — polynomial kernel (gamma x'z)^2: FW and MFW", "",
             ("| Dataset | algorithm | accuracy ours (%) | accuracy paper (%) | time ours (s) | "
             "time paper (s) |"), "|---|---|---|---|---|---|"]
    for _, row in load_reference("fw_table8").iterrows():
        key, algorithm = row["dataset_key"], row["algorithm"].lower()
        paper = (f"{row['accuracy']:.2f} ± {row['accuracy_std']:.2f}",
                 f"{row['time_s']:.3g} ± {row['time_std']:.3g}")
        if (key, algorithm) in ours.index:
            mine = ours.loc[(key, algorithm)]
            acc = f"{mine['accuracy_mean']:.2f} ± {mine['accuracy_std']:.2f}"
            time = f"{mine['train_time_s_mean']:.3g} ± {mine['train_time_s_std']:.3g}"
        else:
            acc = time = "—"
        lines.append(f"| {row['dataset']} | {row['algorithm']} | {acc} | {paper[0]} | {time} | "
                     f"{paper[1]} |")
    settings = records.drop_duplicates(["dataset", "algorithm"])
    lines += ["", "CVM refuses this kernel (k(x, x) is not constant; frank-wolfe-svm eq. 17). "
              + describe(settings, records), "", provenance(records)]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--out", type=Path, default=Path("results/fw"))
    args = parser.parse_args()
    records = load_results(args.store)
    records = records[records["experiment"] == "fw_table8"]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "table8.md").write_text(render(records))


if __name__ == "__main__":
    main()
