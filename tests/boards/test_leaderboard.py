"""The cross-solver leaderboard: declared capabilities (a cell its solver cannot take is listed
with the reason), solvers from other packages (entry points), the rank tests and the Pareto
front, and a quick leaderboard with a toy solver installed from a temporary directory."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.stats import norm
from sklearn.metrics.pairwise import rbf_kernel

from svmbench import algorithms, configs, runner
from svmbench.analysis.plots import pareto_front
from svmbench.analysis.stats import ranks_vs_control
from svmbench.boards import leaderboard
from svmbench.capabilities import UNSUITABLE, Capabilities, Task, unsuitable_reason
from svmbench.conf import CONF_DIR
from svmbench.solvers import plugins
from svmbench.solvers.base import SOLVERS
from svmbench.store import ResultStore

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "docs" / "examples" / "toy_solver"


def install_toy(folder, binary_twin=False):
    """The toy solver as pip installs a distribution: its module and a dist-info folder whose
    entry_points.txt names it in the group svmbench.solvers (as docs/examples/toy_solver's
    pyproject.toml declares); ``binary_twin``: also ``toy_binary``, the same solver declared
    binary only."""
    shutil.copy(TOY / "toy_svmbench_solver.py", folder)
    points = "toy_cd = toy_svmbench_solver:PLUGIN\n"
    if binary_twin:
        (folder / "toy_binary.py").write_text(
            "from dataclasses import replace\n"
            "from toy_svmbench_solver import PLUGIN\n"
            "from svmbench.capabilities import Capabilities\n"
            "BINARY = replace(PLUGIN, capabilities=Capabilities(multiclass=False))\n")
        points += "toy_binary = toy_binary:BINARY\n"
    info = folder / "toy_svmbench_solver-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-svmbench-solver\n"
                                   "Version: 0.1.0\n")
    (info / "entry_points.txt").write_text("[svmbench.solvers]\n" + points)
    return folder


def forget_plugins():
    plugins.plugins.cache_clear()
    algorithms.plugin_estimators.cache_clear()
    SOLVERS.pop("toy_cd", None)


@pytest.fixture
def toy(tmp_path, monkeypatch):
    folder = tmp_path / "site"
    folder.mkdir()
    install_toy(folder)
    monkeypatch.syspath_prepend(str(folder))
    forget_plugins()
    yield folder
    forget_plugins()


def no_bias_dual_optimum(X, y, C, gamma):
    """min 1/2 a'Qa - 1'a over 0 <= a <= C, Q = y y' K: scipy's L-BFGS-B, independently."""
    Q = np.outer(y, y) * rbf_kernel(X, gamma=gamma)
    result = minimize(lambda a: (0.5 * a @ Q @ a - a.sum(), Q @ a - 1.0), np.zeros(len(y)),
                      jac=True, bounds=[(0.0, C)] * len(y), method="L-BFGS-B",
                      options={"ftol": 1e-14, "gtol": 1e-10, "maxiter": 10000})
    return result.fun


def test_a_solver_of_another_package_trains_on_the_counted_q_matrix(toy):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 4))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=60) > 0, 1, 0)
    estimator = algorithms.build_estimator({"name": "toy_cd", "gamma": 0.5, "C": 2.0,
                                            "tol": 1e-8})
    estimator.fit(X, y)
    assert estimator.status_ == ["converged"]
    labels = np.where(y == 1, 1.0, -1.0)
    assert estimator.objective_[0] == pytest.approx(no_bias_dual_optimum(X, labels, 2.0, 0.5),
                                                    rel=1e-6)
    # one whole Q row per step, every request counted by the provider underneath
    assert estimator.kernel_requested_ == estimator.n_iter_[0] * 60
    assert 0 < estimator.kernel_computed_ <= 60 * 60


def test_a_solver_of_another_package_is_an_algorithm_config(toy, tmp_path):
    runner.register_configs()
    configs.store_plugin_configs()  # the toy's, installed after the first registration
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        cfg = compose("config", ["dataset=iris", "algorithm=toy_cd", "algorithm.C=4",
                                 "protocol.k=3", "folds=[0]", f"store.dir={tmp_path / 'store'}"])
    records = runner.run_cell(cfg)
    assert [r["status"] for r in records] == ["converged"]
    assert records[0]["algorithm"] == "toy_cd" and records[0]["C"] == 4
    assert records[0]["kernel_requested"] > 0 and records[0]["test_error"] < 0.2


def test_a_solver_of_another_package_joins_the_solvers_board_and_the_curves_by_its_settings(
        toy):
    runner.register_configs()
    configs.store_plugin_configs()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        for experiment, key in (("solvers", "solvers_board"), ("curves", "curve_solvers")):
            lists = compose("config", [f"+experiment={experiment}"])[key]
            assert "toy_cd" in lists.with_c and "toy_cd" not in lists.without_c  # it has a C


def run_target(tmp_path, *overrides):
    """The records of one heart fold of ``algorithm=target`` with ``overrides``."""
    runner.register_configs()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        cfg = compose("config", ["dataset=heart", "algorithm=target", *overrides, "protocol.k=3",
                                 "folds=[0]", f"store.dir={tmp_path / 'store'}"])
    return runner.run_cell(cfg)


@pytest.mark.parametrize("target, settings, expected", [
    # a bare solve function: its settings are the config's keys, its problem declared there
    ("toy_svmbench_solver.solve", ["algorithm.C=4", "algorithm.tol=1e-3", "algorithm.max_iter=-1",
                                   "algorithm.problem=csvc_nobias"],
     {"algorithm": "toy_svmbench_solver.solve", "C": 4, "tol": 1e-3, "problem": "csvc_nobias"}),
    # a SolverPlugin (entry-point style path): its defaults fill the config, the name is given
    ("toy_svmbench_solver:PLUGIN", ["algorithm.name=toy_target"],
     {"algorithm": "toy_target", "C": 1.0, "tol": 1e-3, "max_iter": -1, "gamma": "scale"})])
def test_a_solver_named_by_a_hydra_target_trains_on_the_counted_q_matrix(toy, tmp_path, target,
                                                                         settings, expected):
    records = run_target(tmp_path, f"algorithm._target_={target}", *settings)
    assert [r["status"] for r in records] == ["converged"]
    assert {key: records[0][key] for key in expected} == expected
    assert records[0]["_target_"] == target
    assert 0 < records[0]["kernel_computed"] <= records[0]["kernel_requested"]
    # one whole Q row a step, every request counted by the provider underneath
    assert records[0]["kernel_requested"] == records[0]["iterations"] * records[0]["n_train"]
    assert records[0]["test_error"] < 0.3


@pytest.mark.parametrize("target, settings, problem", [
    ("no_such_module_xyz.solve", [], "does not load: ModuleNotFoundError"),
    ("toy_svmbench_solver.MAX_ITER", [], "is a str, not a svmbench.solvers.plugins.SolverPlugin"),
    ("toy_svmbench_solver.PLUGIN", ["algorithm.name=smo_wss2"], "'smo_wss2' exists already")])
def test_a_hydra_target_that_is_not_a_usable_solver_is_a_failed_cell_naming_it(
        toy, tmp_path, target, settings, problem):
    records = run_target(tmp_path, f"algorithm._target_={target}", *settings)
    assert [r["fold"] for r in records] == [-1]
    assert f"algorithm._target_={target}" in records[0]["status"]
    assert problem in records[0]["status"]


@pytest.mark.parametrize("target, problem", [("toy_svmbench_solver:solve", "is a function"),
                                             ("no_such_module_xyz:PLUGIN", "does not load")])
def test_an_entry_point_that_is_not_a_usable_solver_plugin_is_named(tmp_path, monkeypatch,
                                                                    target, problem):
    folder = install_toy(tmp_path)
    (folder / "toy_svmbench_solver-0.1.0.dist-info" / "entry_points.txt").write_text(
        f"[svmbench.solvers]\ntoy_cd = {target}\n")
    monkeypatch.syspath_prepend(str(folder))
    forget_plugins()
    try:
        with pytest.raises(plugins.PluginError, match=f"toy_cd = {target} .*{problem}"):
            plugins.plugins()
    finally:
        forget_plugins()


@pytest.mark.parametrize("capabilities, kernel, task, reason", [
    (Capabilities(), "poly", Task(10**6, 10, "poly"), None),
    (Capabilities(multiclass=False), "rbf", Task(100, 2, "rbf"), None),
    (Capabilities(multiclass=False), "rbf", Task(100, 3, "rbf"), ("binary problems only; this "
                                                                  "data set has 3 classes")),
    (Capabilities(kernels=("rbf",), kernel_reason="MEB"), "poly", None,
     "kernel 'poly' not accepted (only rbf): MEB"),
    (Capabilities(max_train=100, size_reason="slow"), "rbf", Task(100, 2, "rbf"), None),
    (Capabilities(max_train=100, size_reason="slow"), "rbf", Task(101, 2, "rbf"),
     "training set of 101 samples above its limit of 100: slow"),
    (Capabilities(module="no_such_module_xyz", install="pip install xyz"), "rbf", None,
     "needs the package no_such_module_xyz, not installed (pip install xyz)"),
])
def test_a_declared_limit_gives_its_reason(capabilities, kernel, task, reason):
    assert unsuitable_reason(capabilities, kernel, task) == reason


@pytest.mark.parametrize("overrides, reason", [
    (["dataset=iris", "algorithm=csvm_xialpha"], "binary problems only; this data set has 3"),
    (["dataset=heart", "algorithm=cvm", "algorithm.kernel=poly"], "kernel 'poly' not accepted"),
])
def test_a_cell_its_solver_cannot_take_is_recorded_with_the_reason_not_failed(tmp_path,
                                                                            overrides, reason):
    result = subprocess.run([sys.executable, "-m", "svmbench.runner", *overrides, "protocol.k=2",
                             f"store.dir={tmp_path / 'store'}", f"hydra.run.dir={tmp_path}"],
                            check=False, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    [record] = ResultStore(tmp_path / "store").records()
    assert record["status"] == UNSUITABLE and record["fold"] == -1
    assert record["unsuitable_reason"].startswith(reason)
    assert "not trained: " + reason in result.stdout + result.stderr


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(1.0, 9.0), min_size=3, max_size=9), st.integers(2, 40), st.data())
def test_ranks_against_a_control_are_demsars_z_test_with_holms_steps(ranks, n_datasets, data):
    ranks = pd.Series(ranks, index=[f"s{i}" for i in range(len(ranks))])
    control = data.draw(st.sampled_from(list(ranks.index)))
    table = ranks_vs_control(ranks, n_datasets, control)
    k = len(ranks)
    z = (ranks.drop(control) - ranks[control]) / np.sqrt(k * (k + 1) / (6 * n_datasets))
    p = 2 * norm.sf(np.abs(z))
    order = np.argsort(p, kind="stable")  # Holm: the i-th smallest times (m - i), running max
    adjusted = np.empty_like(p)
    running = 0.0
    for step, index in enumerate(order):
        running = max(running, min(1.0, (len(p) - step) * p[index]))
        adjusted[index] = running
    np.testing.assert_allclose(table["z"], z)
    np.testing.assert_allclose(table["pvalue"], p, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(table["holm_pvalue"], adjusted, rtol=1e-9, atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(50, 100), st.integers(1, 30)), min_size=1, max_size=12))
def test_the_pareto_front_is_exactly_the_undominated_points(pairs):
    points = pd.DataFrame(pairs, columns=["accuracy", "seconds"], dtype=float)
    front = set(pareto_front(points))

    def dominates(a, b):
        return (a.accuracy >= b.accuracy and a.seconds <= b.seconds
                and (a.accuracy > b.accuracy or a.seconds < b.seconds))

    for i, point in points.iterrows():
        beaten = any(dominates(other, point) for j, other in points.iterrows() if j != i)
        assert (i in front) == (not beaten)


def folds_frame(errors):
    """Records of one data set: {solver: [test error per fold]}."""
    return pd.DataFrame([{"dataset": "d", "algorithm": solver, "fold": fold, "test_error": e}
                         for solver, values in errors.items() for fold, e in enumerate(values)])


def test_bold_needs_a_significant_win_over_every_other_solver():
    accuracy = leaderboard.ACCURACY
    clear = {"a": [0.10, 0.11, 0.09, 0.10, 0.12], "b": [0.30, 0.32, 0.29, 0.31, 0.30],
             "c": [0.40, 0.41, 0.43, 0.39, 0.40]}
    assert leaderboard.significantly_best(folds_frame(clear), accuracy) \
        == {"d": "a"}
    close = {**clear, "b": [0.10, 0.12, 0.10, 0.11, 0.12]}  # b is as good as a
    assert leaderboard.significantly_best(folds_frame(close), accuracy) == {}
    one_split = {solver: values[:1] for solver, values in clear.items()}
    assert leaderboard.significantly_best(folds_frame(one_split), accuracy) == {}


def test_a_quick_leaderboard_lists_a_solver_installed_from_a_temporary_directory(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    install_toy(site, binary_twin=True)
    # the same solver by a Hydra _target_, from a config dir of one's own (no entry point)
    own_conf = tmp_path / "conf" / "algorithm"
    own_conf.mkdir(parents=True)
    (own_conf / "toy_target.yaml").write_text("_target_: toy_svmbench_solver.PLUGIN\n"
                                              "name: toy_target\ncache_mb: 50\n")
    store = tmp_path / "store"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    subset = ["leaderboard_solvers.ours=[]", "leaderboard_solvers.meb_references=[]",
              "leaderboard_solvers.meb=[]",
              "leaderboard_solvers.tuned_by_gs_svm=[]", "leaderboard_solvers.yours=[toy_target]",
              f"hydra.searchpath=[file://{own_conf.parent}]",
              "algorithm.tol=0.05"]  # every solver here has tol; fewer steps for the toys
    result = subprocess.run([sys.executable, "-m", "svmbench.runner", "-m",
                             "+experiment=leaderboard", "scale=quick", *subset,
                             f"store.dir={store}", f"hydra.sweep.dir={tmp_path / 'multirun'}"],
                            check=False, capture_output=True, text=True, env=env, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    rendered = subprocess.run(
        [sys.executable, "-c", ("import sys; from svmbench.render import render; "
         "render('leaderboard', 'quick', sys.argv[1:])"), *subset, f"store.dir={store}",
         f"artefact.output={tmp_path / 'board' / 'leaderboard.md'}"],
        check=False, capture_output=True, text=True, env=env, cwd=ROOT)
    assert rendered.returncode == 0, rendered.stderr[-3000:]
    board = (tmp_path / "board" / "leaderboard.md").read_text()
    models, table = board.split("## Solvers board", 1)
    models_header = next(line for line in models.splitlines() if line.startswith("| Data set"))
    # smo_wss2 pools into C-SVM; the toys declare no problem: each its own model
    assert "C-SVM" in models_header and "toy_cd" in models_header
    assert "smo_wss2" not in models_header
    header = next(line for line in table.splitlines() if line.startswith("| Data set"))
    assert "toy_cd" in header and "toy_target" in header and "smo_wss2" in header
    targets = [r for r in ResultStore(store).records() if r["algorithm"] == "toy_target"]
    assert len(targets) == 6 and all(r["status"] == "converged" for r in targets)
    assert {r["cache_mb"] for r in targets} == {50}  # its own config's setting
    assert all(r["kernel_requested"] >= r["kernel_computed"] > 0 for r in targets)
    assert "toy_binary on iris: binary problems only; this data set has 3 classes" in table
    accuracy_row = next(line for line in table.splitlines() if line.startswith("| heart"))
    assert "unsuitable" not in accuracy_row and "failed" not in accuracy_row
    for figure in ("cd_accuracy", "cd_time", "pareto", "cd_models", "bayes_models"):
        assert (tmp_path / "board" / f"{figure}.png").stat().st_size > 0


def test_a_significantly_best_cell_is_bold_and_the_table_says_why():
    clear = folds_frame({"a": [0.10, 0.11, 0.09, 0.10, 0.12], "b": [0.30, 0.32, 0.29, 0.31, 0.30],
                         "c": [0.40, 0.41, 0.43, 0.39, 0.40]}).assign(status="converged")
    table = leaderboard.metric_table(leaderboard.ACCURACY, clear, clear, None)
    assert "| d | **89.60** | 69.60 | 59.40 |" in table  # mean accuracies, a bold
    assert "Bold: significantly best (a data set: paired t-test" in table


def test_equal_means_rank_as_ties_whatever_their_rounding():
    errors = {"a": [0.0, 1 / 15], "b": [1 / 30, 1 / 30], "c": [0.2, 0.2]}
    sets = pd.concat([folds_frame(errors).assign(dataset=name) for name in ("d1", "d2")])
    block = leaderboard.cell_means(sets, leaderboard.ACCURACY)
    assert block.loc["d1", "a"] != block.loc["d1", "b"]  # the float means differ in the last bits
    test = leaderboard.rank_statistics(block, lower=False)[0]
    assert test.average_ranks.to_dict() == {"a": 1.5, "b": 1.5, "c": 3.0}


def test_a_cell_with_folds_that_did_not_converge_says_how_many():
    folds = folds_frame({"a": [0.1, 0.1, 0.1], "b": [0.2, 0.2, 0.2]}).assign(status="converged")
    folds.loc[(folds.algorithm == "b") & (folds.fold > 0), "status"] = "infeasible"
    table = leaderboard.metric_table(leaderboard.ACCURACY, folds, folds, None)
    assert "| 80.00 (2 of 3 not converged) |" in table
