"""Renderer of frank-wolfe-svm Tables 2 (test accuracy) and 3 (training time) of CVM, FW and MFW
(cells: svmbench/papers/fw/experiment/fw_table2.yaml, fw_table3.yaml): mean ± std over the repetitions, ours
beside the paper's."""

import pandas as pd

from svmbench.analysis.artefact_tables import WALL_TIMES, convergence_note, sources_and_cells
from svmbench.analysis.reference import load_reference
from svmbench.analysis.stop_marks import stop_legend, stop_mark, with_mark
from svmbench.status import FINISHED, SOUND, statuses

ALGORITHMS = ("cvm", "fw", "mfw")
# artefact -> (title, our column, reference table, its column suffix, number format)
TABLES = {
    "fw_table2": ("Table 2 — test accuracy (%)", "accuracy", "fw_table2", "acc", "{:.2f}"),
    "fw_table3": ("Table 3 — training time (s)", "train_time_s", "fw_table3", "time", "{:.3g}"),
}
# staged (docs/data-manifest.md); the paper's other sets are not (USPS: its test file only)
STAGED = {"a1a", "a2a", "a3a", "a4a", "a7a", "w1a", "w4a", "w6a", "w7a", "w8a", "ijcnn1", "letter",
          "pendigits", "shuttle"}
def not_run_reason(key):
    """'not run here: data not available' for a set of the paper's that is not staged, else ''."""
    return "" if key in STAGED else "not run here: data not available"


def sound(records):
    """The records of folds that ended soundly (svmbench.status.SOUND: KKT holds, or the
    algorithm's own published rule stopped it, as the sampled MEB test does), with their test
    accuracy (%); a fault (max_iter, stalled, infeasible) is left out."""
    runs = records[statuses(records).isin(SOUND)] if len(records) else records
    return runs.assign(accuracy=100.0 * (1.0 - runs["test_error"])) if len(runs) else runs


CELL = ("dataset", "algorithm")


def unconverged(records, keys=CELL):
    """'k of n folds <status>' per ``keys`` (a cell) with finished folds that did not converge
    (KKT does not hold at their point; a fault's numbers are left out of the means)."""
    return {key: note for key, cell in finished(records).groupby(list(keys))
            if (note := convergence_note(cell))}


def finished(records):
    return records[statuses(records).isin(FINISHED)] if len(records) else records


def stop_marks(records, keys=CELL):
    """The stop mark per ``keys`` (a cell) over its finished folds, converged or not."""
    return {key: stop_mark(cell) for key, cell in finished(records).groupby(list(keys))}


def summary(records, keys=CELL):
    """Mean and std per ``keys`` (a cell) of accuracy and training time, and what ran (an empty
    frame before any fold ended soundly)."""
    runs = sound(records)
    if runs.empty:
        return pd.DataFrame(index=pd.MultiIndex.from_tuples([], names=list(keys)))
    return runs.groupby(list(keys)).agg(
        accuracy_mean=("accuracy", "mean"), accuracy_std=("accuracy", "std"),
        train_time_s_mean=("train_time_s", "mean"), train_time_s_std=("train_time_s", "std"),
        n_sv=("n_sv", "mean"), runs=("seed", "nunique"))


def render(records, artefact):
    """Markdown of Table 2 or 3 (by the artefact's name) from the records of its cells."""
    title, column, reference, suffix, number = TABLES[artefact.name]
    ours, notes, marks = summary(records), unconverged(records), stop_marks(records)
    paper = load_reference(reference)
    cell = (lambda mean, std: number.format(mean) if pd.isna(std)  # one fold: no spread
            else f"{number.format(mean)} ± {number.format(std)}")
    header = ["Dataset"] + [f"{a.upper()} {side}" for a in ALGORITHMS for side in ("ours", "paper")]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for _, row in paper.iterrows():
        key = dataset_key(row)
        cells = []
        for algorithm in ALGORITHMS:
            paper_value = cell(row[f"{algorithm}_{suffix}"], row[f"{algorithm}_std"])
            mine = (cell(ours.loc[(key, algorithm), f"{column}_mean"],
                         ours.loc[(key, algorithm), f"{column}_std"])
                    if (key, algorithm) in ours.index else "—")
            mine = with_mark(mine, marks.get((key, algorithm), ""))
            if (key, algorithm) in notes:
                mine += f" (not converged: {notes[(key, algorithm)]})"
            cells.append(f"{mine} | {paper_value}")
        note = f" ({reason})" if (reason := not_run_reason(key)) else ""
        lines.append(f"| {row['dataset']}{note} | " + " | ".join(cells) + " |")
    return "\n\n".join([f"# frank-wolfe-svm {title}", f"SCALE={artefact.scale}.",
                        "\n".join(lines), stop_legend(marks.values()), describe(records),
                        *sources_and_cells(records, artefact)])


def dataset_key(row):
    """Our name of a set of the paper's reference tables ('' where we have none)."""
    return row["dataset_key"] if isinstance(row["dataset_key"], str) else ""


def describe(records):
    """What ran: kernel width rule, C, eps, sampling, repetitions, timing conditions."""
    if records.empty:
        return "No records stored for these cells yet."
    settings = records.drop_duplicates(["dataset", "algorithm", "C"])
    seeds = sorted(records["seed"].unique().tolist())
    per_set = ", ".join(f"{d} C={'/'.join(f'{c:g}' for c in sorted(cs))}"
                        + other_seeds(records, d, seeds)
                        for d, cs in settings.groupby("dataset")["C"].unique().items())
    return (f"Ours: mean ± std over seeds {seeds} (each seed "
            f"draws the initial MEB of 20 points and the 59-point samples); kernel width gamma = "
            f"{', '.join(sorted(settings['gamma'].astype(str).unique()))} (paper_default: "
            "exp(-||x-z||^2 / 2 sigma^2), sigma^2 = mean squared distance, §5.2.1); eps = "
            f"{', '.join(f'{e:g}' for e in sorted(settings['eps'].unique()))}; sampling "
            f"{', '.join(str(s) for s in sorted(settings['sample_size'].unique()))} points; "
            f"{per_set}; cache_mb {', '.join(str(c) for c in sorted(settings['cache_mb'].unique()))}"
            f"; numba threads: {threads_per_set(settings)}. Times: {WALL_TIMES}; numba "
            "compilation excluded. Means and std are over the folds that ended soundly (KKT holds, "
            "or the algorithm's own rule stopped it: R, with * and the largest KKT gap where KKT "
            "does not hold at the returned point); folds that did not converge are named beside "
            "the cell, and a fold that ended in a fault (max_iter, stalled, infeasible) is left "
            "out of the means.")


def other_seeds(records, dataset, seeds):
    """' (cvm seeds [0], fw seeds [0, 1])' where a set's algorithms ran other seeds than
    ``seeds``, else ''."""
    own = records[records["dataset"] == dataset].groupby("algorithm")["seed"].unique()
    differ = [f"{a} seeds {sorted(s.tolist())}" for a, s in own.items()
              if sorted(s.tolist()) != seeds]
    return f" ({', '.join(differ)})" if differ else ""


def threads_per_set(settings):
    """'2 (a1a, w1a); 1 (shuttle)': the numba thread count each set's records ran with."""
    sets = settings.groupby("threads")["dataset"].unique()
    return "; ".join(f"{int(threads)} ({', '.join(sorted(names))})"
                     for threads, names in sets.items())
