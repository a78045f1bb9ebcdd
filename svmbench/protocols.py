"""Evaluation protocols: which (train, test) splits a cell is measured on.

- ``holdout``: the dataset's given test set (one fold, index 0);
- ``kfold``: stratified k-fold cross-validation of the training set, seeded;
- ``realizations``: fixed train/test realizations (Raetsch/IDA), one fold per realization.

Scaling to [-1, 1] (gs-svm-tnn2008 §V-C) is fitted on each training part only.
"""

from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import StratifiedKFold

from svmbench.data import DataError, load_dataset, scale_features


@dataclass
class Split:
    fold: int
    X_train: object
    y_train: np.ndarray
    X_test: object
    y_test: np.ndarray
    train_index: np.ndarray | None = None  # indices into the dataset's training set (k-fold)
    test_index: np.ndarray | None = None


def kfold_indices(y, k, seed):
    """Stratified, seeded k-fold: a list of (train_index, test_index)."""
    counts = np.unique(y, return_counts=True)[1]
    if counts.min() < k:
        raise DataError(
            f"k-fold with k={k} needs at least {k} samples of every class; the smallest class has "
            f"{counts.min()}. Lower protocol.k."
        )
    folds = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    return list(folds.split(np.zeros(len(y)), y))


def _scaled(split, scale):
    if scale:
        split.X_train, split.X_test = scale_features(split.X_train, split.X_test)
    return split


def splits(dataset_name, protocol, seed, scale, folds=None):
    """Yield the Splits of a protocol config (``name`` plus its settings).

    ``folds`` optionally restricts which fold indices are produced (e.g. ``SCALE=quick``).
    """
    wanted = (lambda fold: True) if folds is None else (lambda fold: fold in folds)
    name = protocol["name"]
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
    elif name == "kfold":
        for fold, (train, test) in enumerate(kfold_indices(data.y_train, int(protocol["k"]), seed)):
            if wanted(fold):
                yield _scaled(Split(fold, data.X_train[train], data.y_train[train],
                                    data.X_train[test], data.y_train[test], train, test), scale)
    else:
        raise ValueError(
            f"unknown protocol {name!r}; choose one of ['holdout', 'kfold', 'realizations']"
        )
