"""The models board: which model a solver belongs to, how a model's accuracy on a set is pooled
from its solvers (lower median of pooled-over-folds accuracies, ties at the test set's
resolution), and the board's section with its statistics and figures."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmbench.analysis import model_board
from svmbench.analysis.model_board import (
    C_SVM,
    model_of,
    model_scores,
    pooled_models,
    solver_counts,
    solver_spread,
)
from svmbench.boards import leaderboard


def records_of(cells, n_test=30, status="converged"):
    """Records from {(dataset, algorithm): [errors per fold, as counts of n_test]}."""
    return pd.DataFrame([{"dataset": d, "algorithm": a, "fold": fold, "n_test": n_test,
                          "test_error": wrong / n_test, "status": status}
                         for (d, a), folds in cells.items() for fold, wrong in enumerate(folds)])


def test_models_of_builtin_solvers_and_declared_problems(monkeypatch):
    assert {model_of(a) for a in ("smo_platt", "smo_mod1", "smo_mod2", "smo_wss2", "rosen",
                                  "libsvm", "onedal")} == {C_SVM}
    assert {model_of(a) for a in ("cvm", "fw", "mfw")} == {model_board.L2_SVM}
    assert model_of("rsvm") == "RSVM" and model_of("rho_ensemble") == "rho-SVM ensemble"
    assert model_of("my_smo", "csvc") == C_SVM          # a record's declared problem
    assert model_of("my_fw", "meb") == model_board.L2_SVM
    monkeypatch.setattr(model_board, "declared_problem", lambda name: None)
    assert model_of("toy_cd") == "toy_cd"               # declares nothing: its own model
    monkeypatch.setattr(model_board, "declared_problem",
                        lambda name: {"toy_cd": "csvc"}.get(name))
    assert model_of("toy_cd") == C_SVM                  # the installed plug-in's declaration


def test_declared_problem_reads_the_plugin_declaration(monkeypatch):
    from svmbench.solvers import plugins
    monkeypatch.setattr(plugins, "plugins", lambda: {"mine": SimpleNamespace(problem="stagewise"),
                                                     "old": SimpleNamespace()})
    assert model_board.declared_problem("mine") == "stagewise"
    assert model_board.declared_problem("old") is None and model_of("mine") == "GS-SVM"


def test_model_accuracy_is_the_lower_median_of_its_complete_solvers():
    records = records_of({("d", "smo_wss2"): [3, 4], ("d", "libsvm"): [2, 4],
                          ("d", "rosen"): [5, 5], ("d", "gs_svm"): [6, 6],
                          ("e", "smo_wss2"): [1, 1], ("e", "libsvm"): [2, 2],
                          ("e", "rosen"): [0, 0], ("e", "smo_mod1"): [9, 9]})
    records.loc[(records.dataset == "e") & (records.algorithm == "smo_mod1")
                & (records.fold == 1), "status"] = "failed:boom"
    finished = records[records.status == "converged"]
    counts = solver_counts(records, finished)
    pooled = pooled_models(counts).set_index(["dataset", "model"])
    # d: 53, 54 and 50 right of 60: median 53; e: 58, 56, 60 (smo_mod1 incomplete): 58
    assert pooled.loc[("d", C_SVM), "accuracy"] == pytest.approx(100 * 53 / 60)
    assert pooled.loc[("d", C_SVM), "spread"] == pytest.approx(100 * 4 / 60)
    assert (pooled.loc[("d", C_SVM), "lowest"], pooled.loc[("d", C_SVM), "highest"]) == (
        "rosen", "libsvm")
    assert pooled.loc[("e", C_SVM), "accuracy"] == pytest.approx(100 * 58 / 60)
    assert pooled.loc[("e", C_SVM), "solvers"] == 3
    two = pooled_models(counts[counts.algorithm != "rosen"]).set_index(["dataset", "model"])
    assert two.loc[("d", C_SVM), "accuracy"] == pytest.approx(100 * 53 / 60)  # lower of 53, 54
    assert list(solver_spread(pooled.reset_index()).columns) == [C_SVM]


def test_equal_counts_tie_exactly_whatever_the_fold_errors():
    records = pd.DataFrame([
        {"dataset": "d", "algorithm": a, "fold": f, "n_test": 10, "test_error": e,
         "status": "converged"}  # 6 + 0 and 3 + 3 right, (1 - e) * 10 summed: 6.0 and 6.000..01
        for a, errors in {"gs_svm": [0.4, 1.0], "hm_svm": [0.7, 0.7]}.items()
        for f, e in enumerate(errors)])
    scores = model_scores(pooled_models(solver_counts(records, records)))
    assert scores.loc["d", "GS-SVM"] == scores.loc["d", "HM-SVM"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 20), min_size=3, max_size=3), min_size=1, max_size=7))
def test_pooled_accuracy_is_a_value_one_solver_reached(wrong):
    solvers = ["smo_platt", "smo_mod1", "smo_mod2", "smo_wss2", "rosen", "libsvm", "onedal"]
    records = records_of({("d", s): folds for s, folds in zip(solvers, wrong)}, n_test=20)
    counts = solver_counts(records, records)
    pooled = pooled_models(counts).iloc[0]
    accuracies = sorted(100 * (60 - np.array([sum(w) for w in wrong])) / 60)
    assert pooled["accuracy"] in accuracies
    assert accuracies[0] <= pooled["accuracy"] <= accuracies[-1]
    assert pooled["spread"] == pytest.approx(accuracies[-1] - accuracies[0])
    below = sum(a < pooled["accuracy"] for a in accuracies)
    assert below <= (len(accuracies) - 1) // 2 < below + accuracies.count(pooled["accuracy"])


def test_models_section_ranks_models_and_draws_its_figures(tmp_path):
    from svmbench.boards._models_board import models_section

    rng = np.random.default_rng(0)
    cells = {}
    for d in range(8):
        base = int(rng.integers(2, 8))
        for solver in ("smo_wss2", "libsvm", "rosen"):
            cells[(f"set{d}", solver)] = [base, base + int(rng.integers(0, 2))]
        cells[(f"set{d}", "gs_svm")] = [base + 1, base + 1]
        cells[(f"set{d}", "hm_svm")] = [base + 6, base + 7]
    records = records_of(cells)
    parts = models_section(records, records, tmp_path)
    text = "\n\n".join(parts)
    assert "## Models board" in text and "| Average rank | 1.00 | 2.00 | 3.00 |" in text
    assert "| C-SVM vs HM-SVM |" in text and "P(equivalent)" in text
    assert (tmp_path / "cd_models.png").stat().st_size > 0
    assert (tmp_path / "bayes_models.png").stat().st_size > 0
    assert leaderboard.outcome("converged") == "finished"
