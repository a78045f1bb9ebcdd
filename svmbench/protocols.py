"""Evaluation protocols: which (train, test) splits a cell is measured on.

- ``holdout``: the dataset's given test set (one fold, index 0);
- ``kfold``: stratified k-fold cross-validation of the training set, seeded;
- ``nested_cv``: k-fold whose every outer training part is tuned by an inner k-fold grid search
  (gs-svm-tnn2008 §V-C); the split carries the chosen parameters and what the search cost;
- ``realizations``: fixed train/test realizations (Raetsch/IDA), one fold per realization.

Scaling to [-1, 1] (gs-svm-tnn2008 §V-C) is fitted on each training part only, inner ones included.
"""

import time
from dataclasses import dataclass, field
from itertools import product

import numpy as np
from sklearn.model_selection import StratifiedKFold

from svmbench.algorithms import build_estimator
from svmbench.data import DataError, load_dataset, scale_features

PROTOCOLS = ("holdout", "kfold", "nested_cv", "realizations")


@dataclass
class Split:
    fold: int
    X_train: object
    y_train: np.ndarray
    X_test: object
    y_test: np.ndarray
    train_index: np.ndarray | None = None  # indices into the dataset's training set (k-fold)
    test_index: np.ndarray | None = None
    params: dict = field(default_factory=dict)  # algorithm parameters chosen for this split
    tuning: dict = field(default_factory=dict)  # record fields describing how they were chosen
    inner_folds: list = field(default_factory=list)  # nested CV: (train, validation) indices


def kfold_indices(y, k, seed):
    """Stratified, seeded k-fold: a list of (train_index, test_index)."""
    counts = np.unique(y, return_counts=True)[1]
    if counts.min() < k:
        raise DataError(
            f"k-fold with k={k} needs at least {k} samples of every class; the smallest class has "
            f"{counts.min()}. Lower protocol.k (or protocol.inner_k for nested_cv)."
        )
    folds = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    return list(folds.split(np.zeros(len(y)), y))


def _scaled(split, scale):
    if scale:
        split.X_train, split.X_test = scale_features(split.X_train, split.X_test)
    return split


def parameter_grid(grid, algorithm):
    """Every combination of 2^k values of the grid axes the algorithm has, in a fixed order.

    ``grid`` maps ``<param>_log2`` to an inclusive ``[low, high]`` range of integer exponents
    (gs-svm-tnn2008 §V-C: log2 gamma in -8..8, log2 C in -1..10). Axes whose parameter the
    algorithm does not take (C for GS-SVM) are left out.
    """
    axes = {}
    for key, (low, high) in grid.items():
        name = key.removesuffix("_log2")
        if not key.endswith("_log2"):
            raise ValueError(f"protocol.grid key {key!r} must be <parameter>_log2, e.g. gamma_log2")
        if name in algorithm:
            axes[name] = [2.0 ** exponent for exponent in range(int(low), int(high) + 1)]
    if not axes:
        raise ValueError(
            f"protocol.grid {dict(grid)} has no axis for algorithm {algorithm['name']!r}, whose "
            f"parameters are {sorted(k for k in algorithm if k != 'name')}; add e.g. gamma_log2"
        )
    return [dict(zip(axes, values)) for values in product(*axes.values())]


def validation_error(algorithm, params, X, y, inner_folds, scale):
    """Mean validation error of ``params`` over the inner folds, trainings and their train time."""
    errors, train_time = [], 0.0
    for train, validation in inner_folds:
        X_fit, X_check = X[train], X[validation]
        if scale:
            X_fit, X_check = scale_features(X_fit, X_check)
        estimator = build_estimator({**algorithm, **params})
        start = time.perf_counter()
        estimator.fit(X_fit, y[train])
        train_time += time.perf_counter() - start
        errors.append(np.mean(estimator.predict(X_check) != y[validation]))
    return float(np.mean(errors)), len(inner_folds), train_time


def inner_seed(seed, fold):
    """Seed of the inner split of an outer fold: reproducible and distinct per (seed, fold)."""
    return int(np.random.SeedSequence([seed, fold]).generate_state(1)[0])


def grid_search(algorithm, protocol, seed, scale, split):
    """Tune ``split`` by inner k-fold CV on its training part only (gs-svm-tnn2008 §V-C).

    Ties go to the first grid point (smallest gamma, then smallest C).
    """
    X, y = split.X_train, split.y_train
    inner = kfold_indices(y, int(protocol["inner_k"]), inner_seed(seed, split.fold))
    best_error, best_params = np.inf, None
    trainings, train_time = 0, 0.0
    for params in parameter_grid(protocol["grid"], algorithm):
        error, count, seconds = validation_error(algorithm, params, X, y, inner, scale)
        trainings, train_time = trainings + count, train_time + seconds
        if error < best_error:
            best_error, best_params = error, params
    split.params = best_params
    split.inner_folds = [(split.train_index[t], split.train_index[v]) for t, v in inner]
    split.tuning = {
        **{f"selected_{name}": value for name, value in best_params.items()},
        "inner_cv_error": best_error,
        "inner_trainings": trainings,
        "inner_train_time_s": train_time,
    }
    return split


def splits(dataset_name, protocol, seed, scale, wanted=None, algorithm=None):
    """Yield the Splits of a protocol config (``name`` plus its settings).

    ``wanted(fold)`` optionally restricts which folds are produced (quick runs, folds already
    stored); nested CV tunes only those. ``algorithm`` (its config) is what nested CV tunes.
    """
    wanted = wanted or (lambda fold: True)
    name = protocol["name"]
    if name not in PROTOCOLS:
        raise ValueError(f"unknown protocol {name!r}; choose one of {list(PROTOCOLS)}")
    if name == "realizations":
        for fold in range(int(protocol.get("count", 10))):
            if wanted(fold):
                data = load_dataset(dataset_name, realization=fold + 1)
                yield _scaled(Split(fold, data.X_train, data.y_train, data.X_test, data.y_test),
                              scale)
        return
    data = load_dataset(dataset_name)
    if name == "holdout":
        if data.X_test is None:
            raise DataError(
                f"dataset {dataset_name!r} has no given test set, so protocol=holdout cannot run; "
                f"use protocol=kfold"
            )
        yield _scaled(Split(0, data.X_train, data.y_train, data.X_test, data.y_test), scale)
        return
    for fold, (train, test) in enumerate(kfold_indices(data.y_train, int(protocol["k"]), seed)):
        if wanted(fold):
            split = Split(fold, data.X_train[train], data.y_train[train],
                          data.X_train[test], data.y_train[test], train, test)
            if name == "nested_cv":  # tuned on the raw outer training part, scaled inside
                split = grid_search(algorithm, protocol, seed, scale, split)
            yield _scaled(split, scale)
