"""Renderer of gs-svm-tnn2008 Table III: K1, K2 and time of LIBSVM 2.83 over C = 2^-6 .. 2^10 vs
GS-SVM (cells: svmbench/papers/gs2008/experiment/gs2008_table3.yaml).

Our LIBSVM-style solver is smo_wss2 (second-order working set, shrinking, 1 GB LRU cache,
tol 1e-3), measured by the same kernel provider as GS-SVM. The paper's values sit beside ours only
on the paper's own rows (Adult-7, Web-7); quick stand-ins get none.
"""

import math

import pandas as pd

from svmbench.analysis.artefact_tables import marked, measured, sources_and_cells, with_text_column
from svmbench.analysis.reference import load_reference
from svmbench.analysis.tables import side_by_side, to_markdown

C_LOG2 = list(range(-6, 11, 2))
# column prefix in the reference, our dataset, label
SETS = {"adult7": ("a7a", "Adult-7"), "web7": ("w7a", "Web-7")}
QUICK_SETS = {"adult7": ("a1a", "Adult-1 (quick stand-in)"), "web7": ("w1a", "Web-1 (quick stand-in)")}
CACHE_MB = 1024  # as the experiment config
# a budget below two rows: the provider keeps its minimum of two rows, as LIBSVM always holds the
# rows of i and j, so K1 here is "no cache but the working pair's rows", another reading of K2
TWO_ROWS_MB = 0.0001  # as the experiment config
# GS-SVM's K2 is every row it requests; LIBSVM's (smo_wss2's) the rows of each working set i, j
GS_METRICS = {"K1 (1e6)": ("kernel_computed", 1e-6), "K2 (1e6)": ("kernel_requested", 1e-6),
              "Time s": ("train_time_s", 1)}
SMO_METRICS = {**GS_METRICS, "K2 (1e6)": ("kernel_requested_working_set", 1e-6)}
TWO_ROWS = {"K2 two rows (1e6)": ("kernel_computed", 1e-6)}


def sets(scale):
    return SETS if scale == "paper" else QUICK_SETS


def c_grid(scale):
    return C_LOG2 if scale == "paper" else C_LOG2[::4]


def render(records, artefact):
    scale = artefact.scale
    reference = load_reference("gs2008_table3")
    parts = [
        "# gs-svm-tnn2008 Table III — LIBSVM-style SMO over C vs GS-SVM",
        (f"SCALE={scale}. Ours: smo_wss2 (WSS 2, shrinking, {CACHE_MB} MB cache, tol 1e-3, "
        "samples in LIBSVM's order: sample_order=libsvm; in the given order Web-7's ties take "
        "another path, K2 11-15 % below the paper's at C >= 2^6), "
        "theta 0.05; GS-SVM theta 0.05 (Adult) / 0.10 (Web). K1 = kernel values computed with "
        "the cache, K2 = requested without a cache (GS-SVM: every row; smo_wss2: the rows of "
        "each iteration's working set i and j, what LIBSVM 2.83's count covers), in 10^6; time "
        "in seconds. Each metric: ours | paper | diff. \"K2 two rows\" is K1 of the same cell "
        "with a cache of only the two rows LIBSVM always holds (i and j), another reading of "
        "the paper's K2, set beside it."),
    ]
    for prefix, (dataset, label) in sets(scale).items():
        row_labels = {"GS-SVM": None, **{f"C = 2^{c}": 2.0 ** c for c in c_grid(scale)}}
        columns = [*GS_METRICS, *TWO_ROWS]
        ours = pd.DataFrame(index=pd.Index(list(row_labels), name="C"), columns=columns,
                            dtype=float)
        notes, marks = {}, {}
        for row, C in row_labels.items():
            if C is None:
                values, failed, mark = measured(records, {row: dataset}, "gs_svm", GS_METRICS)
            else:
                values, failed, mark = measured(records, {row: dataset}, "smo_wss2", SMO_METRICS,
                                                {"C": C, "cache_mb": CACHE_MB})
                two, _, _ = measured(records, {row: dataset}, "smo_wss2", TWO_ROWS,
                                  {"C": C, "cache_mb": TWO_ROWS_MB})
                values = values.join(two)
            ours.loc[row] = values.loc[row]
            notes.update(failed)
            marks.update(mark)
        paper = pd.DataFrame(index=ours.index, columns=ours.columns, dtype=float)
        for _, ref in reference.iterrows():
            row = "GS-SVM" if pd.isna(ref["C"]) else f"C = 2^{round(math.log2(ref['C']))}"
            if scale == "paper" and row in paper.index:  # quick stand-ins get no paper values
                paper.loc[row] = [ref[f"{prefix}_k1"], ref[f"{prefix}_k2"], ref[f"{prefix}_time_s"],
                                  ref[f"{prefix}_k2"] if row != "GS-SVM" else None]
        table = side_by_side(marked(ours, marks), paper)
        table.formats.update({"K1 (1e6)": "{:.1f}", "K2 (1e6)": "{:.1f}", "Time s": "{:.3g}",
                              "K2 two rows (1e6)": "{:.1f}"})
        parts += [f"## {label}", to_markdown(with_text_column(table, "Note", notes))]
    parts += sources_and_cells(records, artefact)
    return "\n\n".join(parts)
