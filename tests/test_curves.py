"""Convergence curves in run records (``curves=true``) and their figure
(svmbench.analysis.curves)."""

import numpy as np
import pandas as pd
from hydra import compose, initialize_config_dir

from svmbench.analysis.curves import AXES, convergence_figure, curves_of, suboptimality, summary
from svmbench.runner import CONF_DIR, run_cell
from svmbench.solvers.base import OWN_RULE
from svmbench.solvers.checkpoints import COLUMNS, MAX_POINTS

VOLATILE = ("train_time_s", "cpu_time_s", "predict_time_s", "timestamp_utc", "run_id")


def cell(store, algorithm, *overrides):
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        cfg = compose("config", ["dataset=iris", f"algorithm={algorithm}", "protocol.k=3",
                                 "folds=[0]", f"store.dir={store}", *overrides])
    (record,) = run_cell(cfg)
    return record


def test_curves_true_adds_the_checkpoints_and_changes_nothing_else(tmp_path):
    plain = cell(tmp_path / "a", "smo_wss2")
    with_curve = cell(tmp_path / "b", "smo_wss2", "curves=true")
    curve = with_curve.pop("curve")
    assert "curve" not in plain
    assert {k: v for k, v in plain.items() if k not in VOLATILE} == \
        {k: v for k, v in with_curve.items() if k not in VOLATILE}  # the config hash too
    # iris: three class pairs, one curve each, ending at the pair's stop
    assert sorted({point["pair"] for point in curve}) == [0, 1, 2]
    for pair in range(3):
        points = [point for point in curve if point["pair"] == pair]
        assert set(COLUMNS) <= set(points[0]) and len(points) <= MAX_POINTS
        assert points[-1]["stop"] == OWN_RULE and points[0]["iteration"] == 0
    assert sum(p["iteration"] for p in curve if "stop" in p) == with_curve["iterations"]
    assert sum(p["kernel_computed"] for p in curve if "stop" in p) == \
        with_curve["kernel_computed"]


def test_a_solver_without_checkpoints_gets_no_curve(tmp_path):
    assert "curve" not in cell(tmp_path, "libsvm", "curves=true")


def test_the_figure_draws_each_problems_solvers_against_the_best_objective(tmp_path):
    records = pd.DataFrame([cell(tmp_path, name, "curves=true", "algorithm.gamma=0.5")
                            for name in ("smo_wss2", "smo_mod2", "gs_svm", "libsvm")])
    curves = curves_of(records, "iris")
    assert {problem: sorted(solvers) for problem, solvers in curves.items()} == {
        "C-SVM dual 1/2 a'Qa - 1'a (box, y'a = 0)": ["smo_mod2", "smo_wss2"],
        "hard margin, no bias: 1/2 a'Qa - 1'a (a >= 0)": ["gs_svm"]}
    figure = convergence_figure(curves, "iris")
    assert len(figure.axes) == 2 * len(AXES)
    lines = figure.axes[0].get_lines()  # per solver: its curve, then its end marker
    best = min(solver["objective"].min() for solver in curves[figure.axes[0].get_title(
        loc="left")].values())
    wss2 = curves["C-SVM dual 1/2 a'Qa - 1'a (box, y'a = 0)"]["smo_wss2"]
    np.testing.assert_allclose(lines[2].get_ydata(), suboptimality(wss2["objective"], best))
    assert suboptimality([best], best)[0] > 0  # the best point is drawn, at the floor
    table = summary(records).set_index("algorithm")
    assert table.loc["libsvm", "points"] == 0 and table.loc["smo_wss2", "points"] > 1
    assert table.loc["gs_svm", "stop"] == OWN_RULE
