"""Renderer of frank-wolfe-svm Figs. 7 and 8 (§5.7; cells: svmbench/papers/fw/experiment/fw_fig7.yaml,
fw_fig8.yaml): test accuracy and training time of CVM, FW and MFW against C, one table per set
and the figure (figN.png / figN.pdf beside figN.md). The paper prints no values for these figures;
its Tables 2-3 values (at its tuned, unprinted C) stand beside ours."""

from svmbench.analysis.artefact_tables import sources_and_cells
from svmbench.analysis.plots import metric_vs_c, save_figure
from svmbench.analysis.reference import load_reference
from svmbench.analysis.stop_marks import stop_legend, with_mark
from svmbench.papers.fw.fw_table2_3 import (
    ALGORITHMS,
    dataset_key,
    describe,
    not_run_reason,
    sound,
    stop_marks,
    summary,
    unconverged,
)

# artefact -> (figure number, the paper's names of its two sets)
FIGURES = {"fw_fig7": (7, ("Shuttle", "KDD10pc")), "fw_fig8": (8, ("Pendigits", "Reuters"))}
KEYS = ("dataset", "C", "algorithm")


def set_table(records, key):
    """One row per C: accuracy, time and speed-up over CVM of each algorithm (means over the
    seeds that ended soundly; folds that did not converge named in the note)."""
    ours, notes, marks = summary(records, KEYS), unconverged(records, KEYS), \
        stop_marks(records, KEYS)
    lines = ["| C | " + " | ".join(f"{a.upper()} acc (%)" for a in ALGORITHMS) + " | "
             + " | ".join(f"{a.upper()} time (s)" for a in ALGORITHMS)
             + " | FW/CVM | MFW/CVM | note |", "|---" * 10 + "|"]
    grid = set(records.loc[records["dataset"] == key, "C"])
    for C in sorted(grid):
        def mine(algorithm, field, C=C):
            return ours.loc[(key, C, algorithm), field] \
                if (key, C, algorithm) in ours.index else None

        def speedup(algorithm):
            cvm, own = mine("cvm", "train_time_s_mean"), mine(algorithm, "train_time_s_mean")
            return f"{cvm / own:.2f}x" if cvm and own else "—"

        accuracy = [with_mark("—" if (v := mine(a, "accuracy_mean")) is None else f"{v:.2f}",
                              marks.get((key, C, a), "")) for a in ALGORITHMS]
        time = [mine(a, "train_time_s_mean") for a in ALGORITHMS]
        note = "; ".join(f"{a.upper()} not converged: {notes[(key, C, a)]}"
                         for a in ALGORITHMS if (key, C, a) in notes)
        lines.append(f"| {C:g} | " + " | ".join(accuracy)
                     + " | " + " | ".join("—" if v is None else f"{v:.3g}" for v in time)
                     + f" | {speedup('fw')} | {speedup('mfw')} | {note} |")
    shown = [mark for (dataset, _, _), mark in marks.items() if dataset == key]
    return "\n\n".join(filter(None, ["\n".join(lines), stop_legend(shown)]))


def paper_line(name):
    """The paper's Tables 2-3 values of one set (its tuned C, not printed)."""
    accuracy = load_reference("fw_table2").set_index("dataset").loc[name]
    time = load_reference("fw_table3").set_index("dataset").loc[name]
    return ("Paper, Tables 2-3 (at its tuned C, not printed; Figs. 7-8 print no values): "
            + ", ".join(f"{a.upper()} {accuracy[f'{a}_acc']:.2f} % in {time[f'{a}_time']:.3g} s"
                        for a in ALGORITHMS)
            + ". The paper's finding (§5.7): as C grows all the algorithms become faster.")


def render(records, artefact):
    number, names = FIGURES[artefact.name]
    keys = {name: dataset_key(load_reference("fw_table2").set_index("dataset").loc[name])
            for name in names}
    runs = sound(records)
    measured = [key for key in keys.values() if key and key in set(runs.get("dataset", ()))]
    parts = [f"# frank-wolfe-svm Fig. {number} — test accuracy and training time against C",
             f"SCALE={artefact.scale}."]
    if measured:
        save_figure(metric_vs_c(runs, measured), artefact.output.with_suffix(""))
    for name, key in keys.items():
        parts.append(f"## {name}")
        reason = not_run_reason(key)
        parts.append(reason if reason or key not in measured else set_table(records, key))
        parts.append(paper_line(name))
    return "\n\n".join([*parts, describe(records), *sources_and_cells(records, artefact)])
