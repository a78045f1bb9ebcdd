"""Convergence curves in run records (``curves=true``) and their figure
(svmbench.analysis.curves)."""

import numpy as np
import pandas as pd
from hydra import compose, initialize_config_dir

from svmbench import runner
from svmbench.analysis.curves import (
    AXES,
    ROWS,
    convergence_figure,
    curves_of,
    optima_of,
    suboptimality,
    summary,
    time_to_suboptimality,
)
from svmbench.conf import CONF_DIR
from svmbench.runner import run_cell
from svmbench.solvers.base import OWN_RULE
from svmbench.solvers.checkpoints import COLUMNS, MAX_POINTS

VOLATILE = runner.CLOCKS


def cell(store, algorithm, *overrides):
    runner.register_configs()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
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


def test_without_an_optimum_the_figure_draws_against_the_best_objective_and_says_so(tmp_path):
    records = pd.DataFrame([cell(tmp_path, name, "curves=true", "algorithm.gamma=0.5")
                            for name in ("smo_wss2", "smo_mod2", "gs_svm", "libsvm")])
    curves = curves_of(records, "iris")
    assert {problem: sorted(solvers) for problem, solvers in curves.items()} == {
        "C-SVM dual 1/2 a'Qa - 1'a (box, y'a = 0)": ["smo_mod2", "smo_wss2"],
        "hard margin, no bias: 1/2 a'Qa - 1'a (a >= 0)": ["gs_svm"]}
    figure = convergence_figure(curves, "iris")
    assert len(figure.axes) == 2 * len(AXES)
    lines = figure.axes[0].get_lines()  # per solver: its curve, then its end marker
    title = figure.axes[0].get_title(loc="left")
    assert title.endswith(": f* = best reached, not certified")  # no optimum records here
    best = min(solver["objective"].min() for solver in curves[title.split(": f*")[0]].values())
    wss2 = curves["C-SVM dual 1/2 a'Qa - 1'a (box, y'a = 0)"]["smo_wss2"]
    np.testing.assert_allclose(lines[2].get_ydata(), suboptimality(wss2["objective"], best))
    assert suboptimality([best], best)[0] > 0  # the best point is drawn, at the floor
    table = summary(records).set_index("algorithm")
    assert table.loc["libsvm", "points"] == 0 and table.loc["smo_wss2", "points"] > 1
    assert table.loc["gs_svm", "stop"] == OWN_RULE


def test_suboptimality_is_measured_against_the_certified_optimum_never_below_its_gap(tmp_path):
    records = pd.DataFrame([cell(tmp_path, name, "curves=true", "algorithm.gamma=0.5",
                                 *extra) for name, extra in (
        ("smo_wss2", ()), ("smo_mod2", ()), ("optimum", ("algorithm.problem=csvc",)))])
    curves, optima = curves_of(records, "iris"), optima_of(records, "iris")
    title = ROWS["csvc"][0]
    assert set(curves) == {title} and sorted(curves[title]) == ["smo_mod2", "smo_wss2"]
    optimum = records.set_index("algorithm").loc["optimum"]
    assert optima == {title: (optimum["optimum_objectives"][0], optimum["optimum_gaps"][0])}
    best, gap = optima[title]
    assert 0 <= gap <= 1e-8 * abs(best)  # a certified reference, to far below any solver's stop
    wss2 = curves[title]["smo_wss2"]
    assert wss2["objective"].iloc[-1] > best  # no solver is the reference
    figure = convergence_figure(curves, "iris", optima)
    np.testing.assert_allclose(figure.axes[0].get_lines()[2].get_ydata(),
                               suboptimality(wss2["objective"], best, gap))
    assert "f* certified" in figure.axes[0].get_title(loc="left")
    table = time_to_suboptimality(curves, optima).set_index("algorithm")
    first = np.flatnonzero((wss2["objective"] - best) / abs(best) <= 1e-2)[0]
    assert table.loc["smo_wss2", "K1 @0.01"] == str(int(wss2["kernel_computed"].iloc[first]))
    # a level below the reference's own error bound is not resolved
    coarse = time_to_suboptimality(curves, {title: (best, 1e-3 * abs(best))})
    assert set(coarse["K2 @1e-06"]) == {"unresolved"}
