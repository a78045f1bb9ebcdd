"""The tuning budget (issue 43): a tuned protocol's inner grid search runs on a seeded stratified
sample of exactly min(n, protocol.tune_subsample) training samples, every record says so, a
budget that is no whole number >= 1 is refused before any data is loaded, and the leaderboard
states its budget in every cell and in its caption."""

import re
import time
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from svmbench import protocols, runner, tuning
from svmbench.analysis.tuning_budget import tuning_summary
from svmbench.conf import CONF_DIR
from svmbench.data import DataError
from svmbench.protocols import splits, tuning_sample
from svmbench.runner import run_cell
from svmbench.store import ResultStore
from svmbench.sweep import experiment_config, sweep_jobs

GS_SVM = {"name": "gs_svm", "kernel": "rbf", "gamma": 0.5}
NESTED = {"name": "nested_cv", "k": 3, "inner_k": 3, "grid": {"gamma_log2": [-1, 0]}}


@st.composite
def labels_and_budget(draw):
    """Labels of 2-6 classes (some rare), a budget from the inner folds' minimum to n - 1."""
    counts = draw(st.lists(st.integers(1, 60), min_size=2, max_size=6))
    y = np.repeat(np.arange(len(counts)), counts)
    y = y[np.random.default_rng(draw(st.integers(0, 99))).permutation(y.shape[0])]
    smallest = draw(st.integers(2, 5))
    least = int(np.minimum(counts, smallest).sum())
    assume(least < y.shape[0])  # a budget below n that the inner folds can use
    return y, draw(st.integers(least, y.shape[0] - 1)), smallest


@given(labels_and_budget(), st.integers(0, 2**32 - 1))
@settings(max_examples=200, deadline=None)
def test_the_sample_is_exactly_the_budget_stratified_and_seeded(case, seed):
    y, budget, smallest = case
    sample = tuning_sample(y, budget, smallest, seed)
    assert sample.shape[0] == budget == np.unique(sample).shape[0]
    assert np.all(np.diff(sample) > 0) and 0 <= sample[0] and sample[-1] < y.shape[0]
    labels, counts = np.unique(y, return_counts=True)
    kept = np.array([np.sum(y[sample] == label) for label in labels])
    assert np.all(kept >= np.minimum(counts, smallest))  # the inner stratified k-fold's need
    share = counts * budget / y.shape[0]
    if np.all(share >= smallest + 1):  # no class raised to the minimum: proportional to 1 sample
        assert np.all(np.abs(kept - share) < 1.0)
    assert np.array_equal(sample, tuning_sample(y, budget, smallest, seed))


def test_a_budget_below_what_the_inner_folds_need_is_named_with_the_fix():
    y = np.repeat([0, 1, 2], 20)
    with pytest.raises(DataError, match=re.escape(
            "protocol.tune_subsample=8 is below the 9 samples the inner stratified 3-fold needs")):
        tuning_sample(y, 8, 3, seed=0)


@pytest.fixture
def data(monkeypatch):
    """90 samples in 3 classes whose first feature is the sample's index."""
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], [50, 25, 15])
    X = np.column_stack([np.arange(90.0), y + 0.3 * rng.normal(size=90)])
    monkeypatch.setattr(protocols, "load_dataset", lambda name, **kwargs: SimpleNamespace(
        X_train=X, y_train=y, X_test=None, y_test=None))


@pytest.mark.parametrize("budget, expected", [(None, 60), (1000, 60), (60, 60), (59, 59),
                                              (25, 25), (10, 10)])
def test_the_grid_search_runs_on_min_n_budget_samples_of_the_training_part(data, budget,
                                                                          expected):
    protocol = {**NESTED, "tune_subsample": budget}
    for split in splits("indexed", protocol, seed=4, scale=True, algorithm=GS_SVM):
        assert split.train_index.shape[0] == 60
        assert split.tuning["tuned_on"] == expected
        searched = np.concatenate(split.inner_folds[0])  # an inner fold's train + validation
        assert searched.shape[0] == expected and set(searched) <= set(split.train_index)
        assert all(np.array_equal(np.sort(np.concatenate(fold)), np.sort(searched))
                   for fold in split.inner_folds)


def test_the_sample_is_reproducible_from_the_seed_and_differs_between_seeds(data):
    def searched(seed):
        protocol = {**NESTED, "tune_subsample": 25}
        return [np.sort(np.concatenate(split.inner_folds[0]))
                for split in splits("indexed", protocol, seed, True, algorithm=GS_SVM)]

    assert all(np.array_equal(a, b) for a, b in zip(searched(7), searched(7)))
    assert not all(np.array_equal(a, b) for a, b in zip(searched(7), searched(8)))


def config(store, *overrides):
    runner.register_configs()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        return compose("config", ["dataset=iris", "algorithm=gs_svm", "protocol=nested_cv",
                                  "protocol.k=3", "protocol.inner_k=3",
                                  "protocol.grid.gamma_log2=[-1,1]", f"store.dir={store}",
                                  *overrides])


def test_a_record_stores_the_budget_the_samples_the_grid_and_the_tuning_time_apart(
        tmp_path, monkeypatch):
    real_errors = tuning.shared_errors

    def slow_errors(*args, **kwargs):  # a grid search that takes a second longer
        time.sleep(1.0)
        return real_errors(*args, **kwargs)

    monkeypatch.setattr(tuning, "shared_errors", slow_errors)
    (record,) = run_cell(config(tmp_path, "protocol.tune_subsample=30", "folds=[1]"))
    assert record["status"] == "converged" and record["n_train"] == 100
    assert record["protocol_tune_subsample"] == 30 and record["tuned_on"] == 30
    assert record["protocol_grid"] == {"gamma_log2": [-1, 1], "C_log2": [-1, 10]}
    assert record["inner_trainings"] == 3 * 3
    assert record["inner_tuning_time_s"] >= 1.0 > record["train_time_s"]  # not the fit's time


@pytest.mark.parametrize("value", ["0", "-5", "2.5", "many", "true"])
def test_a_budget_that_is_no_whole_number_of_at_least_one_fails_before_any_data_is_loaded(
        tmp_path, monkeypatch, value):
    monkeypatch.setattr(runner, "load_dataset", lambda name: pytest.fail("data loaded"))
    monkeypatch.setattr(runner, "splits", lambda *a: pytest.fail("data loaded"))
    with pytest.raises(runner.ConfigError, match=re.escape(
            "protocol.tune_subsample=") + r".* is not a tuning budget: give a whole number >= 1"):
        run_cell(config(tmp_path, f"protocol.tune_subsample={value}"))
    assert not list(ResultStore(tmp_path).records())


def test_every_leaderboard_cell_states_the_budget_of_at_least_5000():
    budget = experiment_config("leaderboard", "paper").tuning_budget
    assert budget >= 5000
    for scale in ("quick", "paper"):
        jobs = sweep_jobs(experiment_config("leaderboard", scale))
        assert all(f"protocol.tune_subsample={budget}" in job for job in jobs)
    smaller = sweep_jobs(experiment_config("leaderboard", "quick", ["tuning_budget=300"]))
    assert all("protocol.tune_subsample=300" in job for job in smaller)


def test_the_caption_states_budget_grid_samples_and_tuning_time():
    def record(dataset, n, tuned_on, budget):
        return {"dataset": dataset, "n_train": n, "tuned_on": tuned_on,
                "protocol_tune_subsample": budget, "protocol_inner_k": 3,
                "protocol_grid": {"gamma_log2": [-5, 1], "C_log2": [-1, 5]},
                "inner_trainings": 147, "inner_tuning_time_s": 2.5, "train_time_s": 0.5}

    records = pd.DataFrame([record("heart", 216, 216, 5000), record("ijcnn1", 49990, 5000, 5000),
                            record("heart", 216, 216, None)])
    assert tuning_summary(records) == (
        "Tuning budget all n: each grid search (log2 gamma -5..1, log2 C -1..5, the axes a "
        "solver has; inner 3-fold) ran on all n of the n training samples of its part. Tuning "
        "took 2.5 s wall over 1 folds (147 trainings), the final fits 0.5 s; tuning is not in "
        "the fits' times. Tuning budget min(n, 5,000): each grid search (log2 gamma -5..1, log2 "
        "C -1..5, the axes a solver has; inner 3-fold) ran on min(n, 5,000) of the n training "
        "samples of its part (a seeded stratified sample when fewer than n): all n on 1 of 2 "
        "data sets, a sample on ijcnn1 (5,000 of 49,990). Tuning took 5.0 s wall over 2 folds "
        "(294 trainings), the final fits 1.0 s; tuning is not in the fits' times.")


def test_the_caption_counts_a_shared_search_once_and_says_who_tuned_for_whom():
    def record(algorithm, tuned_with, reused):
        return {"dataset": "heart", "algorithm": algorithm, "n_train": 216, "tuned_on": 216,
                "protocol_tune_subsample": 5000, "protocol_inner_k": 3,
                "protocol_grid": {"gamma_log2": [-5, 1], "C_log2": [-1, 5]},
                "inner_trainings": 147, "inner_tuning_time_s": 2.5, "train_time_s": 0.5,
                "tuned_with": tuned_with, "tuning_reused": reused}

    records = pd.DataFrame([record("smo_wss2", "smo_wss2", False),
                            record("smo_platt", "smo_wss2", True),
                            record("rosen", "smo_wss2", True), record("rsvm", "gs_svm", None),
                            record("gs_svm", "gs_svm", False)])
    summary = tuning_summary(records)
    assert ("Tuning took 7.5 s wall over 3 folds (441 trainings); 2 more folds took the point of "
            "a search another solver's cell ran (the same search: counted once), the final fits "
            "2.5 s") in summary
    assert summary.endswith("Who tunes for whom: gs_svm for rsvm; smo_wss2 for rosen, "
                            "smo_platt; every other solver tuned itself.")
