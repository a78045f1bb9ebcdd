"""Renderer of multiplicative-rho-svm Fig. 1 (cells: svmbench/papers/tsang/experiment/tsang_fig1.yaml): the dual
objective alpha' Q alpha against iterations, log axes, of the adaptive rho-SVM and of the
fixed-eta multiplicative update (Cristianini et al. 1999) on cancer and waveform; a dotted
vertical line marks a fixed rate's first overshoot (its step lowered the hard-margin dual). The
figure goes beside the Markdown (fig1.png, fig1.pdf)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from svmbench.analysis.artefact_tables import sources_and_cells
from svmbench.analysis.plots import save_figure
from svmbench.papers.tsang._tsang import finished

EXPERIMENT = "tsang_fig1"
PANELS = [("ida_breast_cancer", "(a) cancer"), ("ida_waveform", "(b) waveform")]


def objective_figure(records):
    """One panel per set of PANELS: the adaptive rho-SVM's objective trace and the fixed rates'."""
    figure, axes = plt.subplots(1, len(PANELS), figsize=(10, 4))
    for axis, (dataset, title) in zip(axes, PANELS):
        runs = records[records["dataset"] == dataset]
        adaptive = runs[runs["algorithm"] == "rho_svm"]
        for _, run in adaptive.iterrows():
            trace = np.asarray(run["objective_trace"])
            axis.loglog(np.arange(1, trace.shape[0] + 1), trace, "k-", lw=2,
                        label="rho-SVM (adaptive)")
        for _, run in runs[runs["algorithm"] == "eg_fixed"].sort_values("eta").iterrows():
            trace = np.asarray(run["objective_trace"], dtype=float)
            line, = axis.loglog(np.arange(1, trace.shape[0] + 1), trace,
                                label=f"fixed eta = {run['eta']:g}")
            if run["overshoot"] > 0:
                axis.axvline(run["overshoot"] + 1, color=line.get_color(), ls=":")
        axis.set_xlabel("# iterations")
        axis.set_ylabel("objective alpha' Q alpha")
        axis.set_title(title + " (Raetsch realization 1)")
        axis.legend(fontsize=8)
    figure.tight_layout()
    return figure


def render(records, artefact):
    traces = finished(records, EXPERIMENT)
    parts = [
        "# multiplicative-rho-svm Fig. 1 — dual objective per iteration, adaptive vs fixed eta",
        (f"SCALE={artefact.scale}. Figure: fig1.png / fig1.pdf beside this file; one panel per "
         "set (first Raetsch realization), a dotted line at a fixed rate's first overshoot."),
    ]
    if traces.empty:
        return "\n\n".join([*parts, "No records yet.", *sources_and_cells(records, artefact)])
    save_figure(objective_figure(traces), artefact.output.with_suffix(""))
    return "\n\n".join([*parts, *sources_and_cells(records, artefact)])
