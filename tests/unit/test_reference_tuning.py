"""Tuning by the model (issue 43): with ``protocol.tune_with: reference`` the solvers of one dual
are tuned by that dual's reference solver (the C-SVC's smo_wss2, the MEB's cvm on the leaderboard),
a plug-in by the problem it declares, every other solver by itself; a C-SVM solver's cell gets
exactly the point the reference's own search finds, and the search runs once per data set and
fold for all of them (svmbench.tuned_points), whatever order the cells run in."""

import json
import time
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from svmbench import runner, tuned_points, tuning
from svmbench.conf import CONF_DIR
from svmbench.configs import cell_config
from svmbench.protocols import splits
from svmbench.runner import run_cell
from svmbench.store import ResultStore
from svmbench.sweep import experiment_config, sweep_jobs
from svmbench.tuned_points import TunedPoints
from svmbench.tuning import search_settings, tuning_algorithm

TOY = Path(__file__).resolve().parents[2] / "docs" / "examples" / "toy_solver"
C_SVC = ["smo_platt", "smo_mod1", "smo_mod2", "smo_wss2", "libsvm", "onedal", "rosen"]
MEB = ["cvm", "fw", "mfw"]
OWN = ["gs_svm", "hm_svm", "rho_svm", "rho_ensemble", "parzen"]
REFERENCES = {"csvc": {"name": "smo_wss2"}, "meb": {"name": "cvm", "eps": 1e-4, "seed": 0}}
PROTOCOL = {"name": "nested_cv", "k": 3, "inner_k": 2, "tune_with": "reference",
            "references": REFERENCES, "grid": {"gamma_log2": [-2, 0], "C_log2": [0, 1]}}


def board_cells(scale, dataset):
    """The leaderboard's cells on ``dataset``: algorithm name -> cell config."""
    runner.register_configs()
    found = {}
    for job in sweep_jobs(experiment_config("leaderboard", scale)):
        if f"dataset={dataset}" in job:
            with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
                cell = cell_config(compose("config", job))
            found[cell["algorithm"]["name"]] = cell
    return found


@pytest.mark.parametrize("scale, dataset", [("quick", "heart"), ("paper", "ijcnn1")])
def test_on_the_leaderboard_each_dual_is_tuned_by_its_reference_with_its_own_cells_search(
        scale, dataset):
    cells = board_cells(scale, dataset)
    assert set(C_SVC + MEB + OWN + ["rsvm"]) <= set(cells)

    def tuner(name):
        cell = cells[name]
        return tuning_algorithm(cell["algorithm"], cell["protocol"])

    def search(name):
        return search_settings(tuner(name), cells[name]["protocol"])

    assert {name: tuner(name)["name"] for name in cells} == {
        **dict.fromkeys(C_SVC, "smo_wss2"), **dict.fromkeys(MEB, "cvm"),
        **{name: name for name in OWN}, "rsvm": "gs_svm"}
    # one search per dual: the reference's own cell's, at the board's settings (MEB: eps 1e-4)
    assert all(search(name) == search("smo_wss2") for name in C_SVC)
    assert all(search(name) == search("cvm") for name in MEB)
    assert search("fw")["params"]["eps"] == 1e-4
    assert search("smo_platt") != search("cvm")


@pytest.mark.parametrize("declared, tuner", [("csvc", "smo_wss2"), ("meb", "cvm"),
                                             (None, "mine")])
def test_a_plug_in_is_tuned_by_the_reference_of_the_problem_it_declares(monkeypatch, declared,
                                                                        tuner):
    monkeypatch.syspath_prepend(str(TOY))
    algorithm = {"name": "mine", "_target_": "toy_svmbench_solver.PLUGIN", "kernel": "rbf",
                 "gamma": 0.5, **({"problem": declared} if declared else {})}
    # (None: the toy's own declaration, csvc_nobias, which has no reference: it tunes itself)
    assert tuning_algorithm(algorithm, PROTOCOL)["name"] == tuner


def test_without_tune_with_reference_every_solver_tunes_itself():
    platt = {"name": "smo_platt", "kernel": "rbf", "gamma": 0.05, "C": 1.0}
    assert tuning_algorithm(platt, {**PROTOCOL, "tune_with": None}) is platt
    assert tuning_algorithm(platt, {**PROTOCOL, "references": {}}) is platt
    assert tuning_algorithm(platt, PROTOCOL)["name"] == "smo_wss2"


def heart_cell(tmp_path, algorithm):
    """The quick leaderboard's cell of ``algorithm`` on heart, outer fold 0, into ``tmp_path``."""
    job = next(job for job in sweep_jobs(experiment_config("leaderboard", "quick"))
               if "dataset=heart" in job and f"algorithm={algorithm}" in job)
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        config = compose("config", [*job, f"store.dir={tmp_path}", "folds=[0]", "curves=false"])
    return config


@pytest.mark.parametrize("order", [("smo_wss2", "smo_platt"), ("smo_platt", "smo_wss2")])
def test_a_c_svm_cell_gets_the_point_the_references_own_search_finds(tmp_path, order):
    runner.register_configs()
    first, second = (run_cell(heart_cell(tmp_path, name))[0] for name in order)
    records = {record["algorithm"]: record for record in (first, second)}
    # the reference's search run directly, without the store: the point both cells took
    cell = cell_config(heart_cell(tmp_path / "fresh", "smo_wss2"))
    direct = next(splits("heart", {**cell["protocol"], "tune_with": None}, cell["seed"], True,
                         lambda fold: fold == 0, cell["algorithm"]))
    for record in records.values():
        assert record["status"] == "converged" and record["tuned_with"] == "smo_wss2"
        assert (record["selected_gamma"], record["selected_C"]) == (
            direct.params["gamma"], direct.params["C"])
        assert record["inner_cv_error"] == direct.tuning["inner_cv_error"]
    assert first["tuning_key"] == second["tuning_key"]
    assert (first["tuning_reused"], second["tuning_reused"]) == (False, True)
    assert first["inner_tuning_time_s"] == second["inner_tuning_time_s"]  # the one search's
    (stored,) = (tmp_path / "tuned").glob("*.json")
    assert stored.stem == first["tuning_key"]
    assert ResultStore(tmp_path).cells() == {first["config_hash"], second["config_hash"]}


def test_a_stored_search_is_read_not_run_again_and_an_unreadable_one_is_run_again(tmp_path):
    context = {"dataset": {"name": "heart"}, "seed": 0, "scale": True, "code": "abc"}
    points = TunedPoints(tmp_path, context)
    platt = {"name": "smo_platt", "kernel": "rbf", "gamma": 0.05, "C": 1.0}
    runs = []

    def run():
        runs.append(1)
        return {"gamma": 0.5, "C": 2.0}, {"tuned_with": "smo_wss2", "inner_tuning_time_s": 3.0}

    assert points.search(platt, PROTOCOL, 0, run)[1]["tuning_reused"] is False
    params, fields = points.search({**platt, "name": "rosen"}, PROTOCOL, 0, run)
    assert len(runs) == 1 and params == {"gamma": 0.5, "C": 2.0} and fields["tuning_reused"]
    assert fields["inner_tuning_time_s"] == 3.0
    # another fold, data set, seed, grid or code is another search
    key = points.key(platt, PROTOCOL, 0)
    assert points.key(platt, PROTOCOL, 1) != key
    assert points.key(platt, {**PROTOCOL, "grid": {"gamma_log2": [-1, 0]}}, 0) != key
    for change in ({"seed": 1}, {"dataset": {"name": "wine"}}, {"code": "abd"}):
        assert TunedPoints(tmp_path, {**context, **change}).key(platt, PROTOCOL, 0) != key
    # a solver of another dual is another search
    assert points.key({"name": "gs_svm", "kernel": "rbf", "gamma": 0.05}, PROTOCOL, 0) != key
    (tmp_path / "tuned" / f"{key}.json").write_text("{not json")
    assert points.search(platt, PROTOCOL, 0, run)[1]["tuning_reused"] is False
    assert len(runs) == 2 and json.loads((tmp_path / "tuned" / f"{key}.json").read_text())


def test_the_rsvm_and_the_papers_experiments_keep_their_own_tuner(monkeypatch):
    rsvm = {"name": "rsvm", "kernel": "rbf", "gamma": 0.05}
    assert tuning_algorithm(rsvm, {**PROTOCOL, "tune_with": "gs_svm"}) == {
        "name": "gs_svm", "kernel": "rbf", "gamma": 0.05}
    monkeypatch.setattr(tuning, "solver_problem", lambda algorithm: pytest.fail("looked up"))
    assert tuning_algorithm(rsvm, {**PROTOCOL, "tune_with": None}) is rsvm


def test_a_stored_search_obeys_the_stores_reuse_policy(tmp_path, monkeypatch):
    """store.reuse=commit reads only a search of the running clean commit; store.reuse=none only
    one written since the process started; the default reads any of the same code (its key)."""
    context = {"dataset": {"name": "heart"}, "seed": 0, "scale": True, "code": "abc"}
    platt = {"name": "smo_platt", "kernel": "rbf", "gamma": 0.05, "C": 1.0}
    runs = []

    def run():
        runs.append(1)
        return {"gamma": 0.5, "C": 2.0}, {"tuned_with": "smo_wss2"}

    monkeypatch.setattr(tuned_points, "git_state", lambda: ("c0ffee", False))
    TunedPoints(tmp_path, context).search(platt, PROTOCOL, 0, run)
    assert TunedPoints(tmp_path, context).search(platt, PROTOCOL, 0, run)[1]["tuning_reused"]
    assert TunedPoints(tmp_path, context, "commit", "c0ffee").search(
        platt, PROTOCOL, 0, run)[1]["tuning_reused"]
    assert len(runs) == 1
    assert not TunedPoints(tmp_path, context, "commit", "d00d").search(
        platt, PROTOCOL, 0, run)[1]["tuning_reused"]  # another commit's: searched again
    assert len(runs) == 2
    monkeypatch.setattr(tuned_points, "PROCESS_STARTED", time.time() + 60)  # a later run
    assert not TunedPoints(tmp_path, context, "none").search(
        platt, PROTOCOL, 0, run)[1]["tuning_reused"]
    assert len(runs) == 3
    monkeypatch.setattr(tuned_points, "PROCESS_STARTED", time.time() - 60)  # this run's
    assert TunedPoints(tmp_path, context, "none").search(
        platt, PROTOCOL, 0, run)[1]["tuning_reused"]
    monkeypatch.setattr(tuned_points, "git_state", lambda: ("c0ffee", True))
    TunedPoints(tmp_path, context, "none").search({**platt, "C": 1.0}, {**PROTOCOL, "k": 4}, 0,
                                                  run)  # a dirty tree's search
    assert not TunedPoints(tmp_path, context, "commit", "c0ffee").search(
        platt, {**PROTOCOL, "k": 4}, 0, run)[1]["tuning_reused"]
