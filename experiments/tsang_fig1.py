"""Renderer of multiplicative-rho-svm Fig. 1 (cells: conf/experiment/tsang_fig1.yaml): the dual
objective alpha' Q alpha against iterations, log axes, of the adaptive rho-SVM and of the
fixed-eta multiplicative update (Cristianini et al. 1999) on cancer and waveform; a dotted
vertical line marks a fixed rate's first overshoot (its step lowered the hard-margin dual)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from _tsang import finished_records, main

EXPERIMENT = "tsang_fig1"
PANELS = [("ida_breast_cancer", "(a) cancer"), ("ida_waveform", "(b) waveform")]


def render(out_dir, output):
    records = finished_records(out_dir, EXPERIMENT)
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
    figure.savefig(output.with_suffix(".png"), dpi=120)
    figure.savefig(output.with_suffix(".pdf"))


if __name__ == "__main__":
    main(render, "fig1.png")
