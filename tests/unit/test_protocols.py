"""Protocols: nested CV never lets an outer test sample into tuning or scaling; splits are seeded."""

from types import SimpleNamespace

import numpy as np
import pytest
from omegaconf import OmegaConf

from svmbench import protocols, tuning
from svmbench.conf import CONF_DIR
from svmbench.protocols import splits
from svmbench.tuning import parameter_grid

GS_SVM = {"name": "gs_svm", "kernel": "rbf", "gamma": 0.5}
LIBSVM = {"name": "libsvm", "kernel": "rbf", "gamma": 0.5, "C": 1.0}
NESTED = {"name": "nested_cv", "k": 3, "inner_k": 2, "grid": {"gamma_log2": [-2, 0], "C_log2": [0, 1]}}


@pytest.fixture
def indexed_data(monkeypatch):
    """60 samples whose first feature is the sample's index, so every matrix names its rows."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 30)
    X = np.column_stack([np.arange(60.0), y + 0.3 * rng.normal(size=60)])
    data = SimpleNamespace(X_train=X, y_train=y, X_test=None, y_test=None)
    monkeypatch.setattr(protocols, "load_dataset", lambda name, **kwargs: data)
    fitted_on = []  # the sample indices every scaling was fitted on
    real_scale = protocols.scale_features

    def spying_scale(X_train, X_test=None):
        fitted_on.append(set(X_train[:, 0].astype(int)))
        return real_scale(X_train, X_test)

    monkeypatch.setattr(protocols, "scale_features", spying_scale)
    monkeypatch.setattr(tuning, "scale_features", spying_scale)
    return fitted_on


@pytest.mark.parametrize("algorithm", [GS_SVM, LIBSVM])
def test_nested_cv_never_uses_a_test_sample_for_tuning_or_scaling(indexed_data, algorithm):
    fitted_on = indexed_data
    seen_tests = []
    for split in splits("indexed", NESTED, seed=3, scale=True, algorithm=algorithm):
        test = set(split.test_index)
        assert not test & set(split.train_index)
        assert set(split.train_index) | test == set(range(60))
        assert len(split.inner_folds) == NESTED["inner_k"]
        for inner_train, validation in split.inner_folds:
            assert set(inner_train) | set(validation) == set(split.train_index)
            assert not set(inner_train) & set(validation)
        assert fitted_on and all(not rows & test for rows in fitted_on)
        assert fitted_on[-1] == set(split.train_index)  # the outer refit's scaling
        fitted_on.clear()
        seen_tests.append(test)
    assert set().union(*seen_tests) == set(range(60))


def test_nested_cv_records_the_choice_and_its_cost(indexed_data):
    split = next(splits("indexed", NESTED, seed=0, scale=True, algorithm=LIBSVM))
    assert split.params["gamma"] in (0.25, 0.5, 1.0) and split.params["C"] in (1.0, 2.0)
    assert split.tuning["selected_gamma"] == split.params["gamma"]
    assert split.tuning["selected_C"] == split.params["C"]
    assert split.tuning["inner_trainings"] == 3 * 2 * NESTED["inner_k"]
    assert split.tuning["inner_train_time_s"] > 0
    assert 0 <= split.tuning["inner_cv_error"] <= 1


def test_nested_cv_tunes_only_gamma_for_an_algorithm_without_C(indexed_data):
    split = next(splits("indexed", NESTED, seed=0, scale=True, algorithm=GS_SVM))
    assert set(split.params) == {"gamma"}
    assert split.tuning["inner_trainings"] == 3 * NESTED["inner_k"]


@pytest.mark.parametrize("shared", [True, False])
def test_nested_cv_tunes_only_the_wanted_folds(indexed_data, shared):
    protocol = {**NESTED, "shared_kernel": shared}
    folds = [s.fold for s in splits("indexed", protocol, 0, True, lambda f: f == 2, GS_SVM)]
    assert folds == [2]
    assert len(indexed_data) == NESTED["inner_k"] + 1  # one scaling per inner fold, then refit


def test_same_seed_same_splits_and_choices(indexed_data):
    def run(seed):
        return [(s.test_index.tolist(), [v.tolist() for _, v in s.inner_folds], s.params)
                for s in splits("indexed", NESTED, seed, True, algorithm=LIBSVM)]

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_parameter_grid_is_the_papers_grid_for_soft_margin_and_gamma_only_otherwise():
    paper = {"gamma_log2": [-8, 8], "C_log2": [-1, 10]}  # gs-svm-tnn2008 §V-C
    assert len(parameter_grid(paper, LIBSVM)) == 17 * 12
    assert len(parameter_grid(paper, GS_SVM)) == 17
    assert parameter_grid(paper, GS_SVM)[0] == {"gamma": 2.0 ** -8}


def test_bad_grid_and_unknown_protocol_say_what_to_do(indexed_data):
    with pytest.raises(ValueError, match="_log2"):
        parameter_grid({"gamma": [0, 1]}, GS_SVM)
    with pytest.raises(ValueError, match="no axis .* add e.g. gamma_log2"):
        parameter_grid({"C_log2": [0, 1]}, GS_SVM)
    with pytest.raises(ValueError, match="choose one of .*nested_cv"):
        next(splits("indexed", {"name": "bootstrap"}, 0, True))


def test_kfold_spreads_a_class_smaller_than_k_and_refuses_fewer_samples_than_k():
    y = np.array([0] * 30 + [1] * 4)  # Zoo has a class of 4 samples under ten-fold CV
    folds = protocols.kfold_indices(y, 10, seed=0)
    tested = np.concatenate([test for _, test in folds])
    assert sorted(tested) == list(range(34))
    assert sum(bool(np.any(y[test] == 1)) for _, test in folds) == 4
    with pytest.raises(protocols.DataError, match="at least 10 samples"):
        protocols.kfold_indices(y[:9], 10, seed=0)


def test_tuned_realizations_tune_each_realization_on_its_own_training_set(monkeypatch):
    """Each realization's parameters are chosen by inner CV over its training set alone: the
    test samples (first feature >= 1000) never reach a scaling fit, and each realization's
    choice is that of a nested tuning of its training set by itself."""
    rng = np.random.default_rng(1)
    realizations = {}
    for k in (1, 2, 3):
        y_train, y_test = np.repeat([0, 1], 20), np.repeat([0, 1], 10)
        X_train = np.column_stack([np.arange(40.0), y_train + k * 0.3 * rng.normal(size=40)])
        X_test = np.column_stack([1000 + np.arange(20.0), y_test + rng.normal(size=20)])
        realizations[k] = SimpleNamespace(X_train=X_train, y_train=y_train, X_test=X_test,
                                          y_test=y_test)
    monkeypatch.setattr(protocols, "load_dataset",
                        lambda name, realization=None, **kwargs: realizations[realization])
    fitted_on = []
    real_scale = protocols.scale_features

    def spying_scale(X_train, X_test=None):
        fitted_on.append(X_train[:, 0].max())
        return real_scale(X_train, X_test)

    monkeypatch.setattr(protocols, "scale_features", spying_scale)
    monkeypatch.setattr(tuning, "scale_features", spying_scale)
    protocol = {**NESTED, "name": "tuned_realizations", "count": 3}
    found = list(splits("ida", protocol, seed=0, scale=True, algorithm=LIBSVM))
    assert [split.fold for split in found] == [0, 1, 2]
    assert fitted_on and max(fitted_on) < 1000
    for split, k in zip(found, (1, 2, 3)):
        alone = tuning.grid_search(LIBSVM, protocol, realizations[k].X_train,
                                   realizations[k].y_train, split.inner_folds, True)[0]
        assert split.params == alone and split.tuning["tuned_on"] == 40


@pytest.mark.parametrize("config", sorted((CONF_DIR / "protocol").glob("*.yaml")), ids=lambda p: p.stem)
def test_every_protocol_config_counts_its_folds(config):
    protocol = OmegaConf.load(config)
    expected = {"holdout": 1, "tuned_holdout": 1}.get(protocol.name)
    expected = expected or protocol.get("count") or protocol.get("k")
    assert protocols.fold_count(protocol) == expected
