"""Evaluation protocols: which (train, test) splits a cell is measured on.

- ``holdout``: the dataset's given test set (one fold, index 0);
- ``tuned_holdout``: the given split, its training set tuned by an inner k-fold grid search
  (gs-svm-tnn2008 §V-C for DNA, Letter, Satimage, Shuttle);
- ``kfold``: stratified k-fold cross-validation of the training set, seeded;
- ``nested_cv``: k-fold whose every outer training part is tuned by an inner k-fold grid search
  (gs-svm-tnn2008 §V-C); the split carries the chosen parameters and what the search cost
  (svmbench.tuning);
- ``realizations``: fixed train/test realizations (Raetsch/IDA), one fold per realization;
- ``tuned_realizations``: the same, each realization's training set tuned as ``tuned_holdout``.

Scaling to [-1, 1] (gs-svm-tnn2008 §V-C) is fitted on each training part only, inner ones included.
"""

import numbers
from dataclasses import dataclass, field

import numpy as np
from sklearn.model_selection import StratifiedKFold

from svmbench.data import DataError, load_dataset, scale_features
from svmbench.tuning import grid_search, inner_seed

PROTOCOLS = ("holdout", "tuned_holdout", "kfold", "nested_cv", "realizations", "tuned_realizations")
TUNED = ("tuned_holdout", "nested_cv", "tuned_realizations")
HOLDOUTS = ("holdout", "tuned_holdout")  # the given split: one fold
REALIZATIONS = ("realizations", "tuned_realizations")  # fixed splits: protocol.count folds


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
    """Stratified, seeded k-fold: a list of (train_index, test_index).

    A class with fewer than k samples is spread over as many folds as it has samples (as
    scikit-learn does, and as the papers' ten-fold CV on Glass and Zoo must have done)."""
    if len(y) < k:
        raise DataError(f"k-fold with k={k} needs at least {k} samples, got {len(y)}; lower "
                        f"protocol.k (or protocol.inner_k)")
    folds = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    return list(folds.split(np.zeros(len(y)), y))


def _scaled(split, scale):
    if scale:
        split.X_train, split.X_test = scale_features(split.X_train, split.X_test)
    return split


def tuning_budget(protocol):
    """``protocol.tune_subsample``, the tuning budget: the inner grid search runs on a seeded
    stratified sample of min(n, budget) of a training part's n samples (all of them when null).
    ValueError unless it is null or a whole number >= 1."""
    budget = protocol.get("tune_subsample")
    if budget is None:
        return None
    if isinstance(budget, bool) or not isinstance(budget, numbers.Integral) or budget < 1:
        raise ValueError(
            f"protocol.tune_subsample={budget!r} is not a tuning budget: give a whole number >= 1 "
            "(the most training samples the inner grid search runs on), or null for all of them")
    return int(budget)


def class_allocation(counts, size, smallest):
    """Samples kept per class (``counts``: each class's samples) in a stratified sample of exactly
    ``size`` < counts.sum(): each class's share of ``size`` rounded, at least ``smallest`` (or all
    it has), then one more (or fewer) to the class furthest below (above) its share until the
    total is ``size``."""
    share = counts * size / counts.sum()
    least = np.minimum(counts, smallest)
    if least.sum() > size:
        raise DataError(
            f"protocol.tune_subsample={size} is below the {least.sum()} samples the inner "
            f"stratified {smallest}-fold needs ({smallest} of each of the {counts.shape[0]} "
            f"classes, or all a class has): raise protocol.tune_subsample or lower "
            f"protocol.inner_k")
    keep = np.minimum(counts, np.maximum(least, np.round(share))).astype(int)
    while keep.sum() < size:
        keep[np.argmax(np.where(keep < counts, share - keep, -np.inf))] += 1
    while keep.sum() > size:
        keep[np.argmin(np.where(keep > least, share - keep, np.inf))] -= 1
    return keep


def tuning_sample(y, size, smallest, seed):
    """Sorted indices of a seeded stratified sample of exactly ``size`` (< len(y)) of the
    samples, every class keeping at least ``smallest`` (or all it has): class_allocation."""
    rng = np.random.default_rng(seed)
    labels, counts = np.unique(y, return_counts=True)
    chosen = [rng.choice(np.flatnonzero(y == label), keep, replace=False)
              for label, keep in zip(labels, class_allocation(counts, size, smallest))]
    return np.sort(np.concatenate(chosen))


def tune(algorithm, protocol, seed, scale, split, searches=None):
    """Choose ``split``'s parameters by inner k-fold CV on its training part, or on a seeded
    stratified sample of ``protocol.tune_subsample`` (the tuning budget) of its samples when it
    has more (``tuned_on``: how many the search ran on). ``searches``: a shared store of searches
    (svmbench.tuned_points.TunedPoints.search) to read the search from, or run it into."""
    inner_k, n = int(protocol["inner_k"]), split.y_train.shape[0]
    budget = tuning_budget(protocol)
    part = np.arange(n)
    if budget is not None and budget < n:
        part = tuning_sample(split.y_train, budget, inner_k, inner_seed(seed, split.fold))
    inner = kfold_indices(split.y_train[part], inner_k, inner_seed(seed, split.fold))

    def search():
        return grid_search(algorithm, protocol, split.X_train[part], split.y_train[part], inner,
                           scale)

    split.params, split.tuning = search() if searches is None else searches(
        algorithm, protocol, split.fold, search)
    split.tuning["tuned_on"] = int(part.shape[0])
    split.inner_folds = [(split.train_index[part[t]], split.train_index[part[v]])
                         for t, v in inner]
    return split


def fold_count(protocol):
    """How many folds (outer splits) a protocol config has: indices 0 .. fold_count - 1."""
    name = protocol["name"]
    if name in HOLDOUTS:
        return 1
    if name in REALIZATIONS:
        return int(protocol.get("count", 10))
    return int(protocol["k"])


def splits(dataset_name, protocol, seed, scale, wanted=None, algorithm=None, searches=None):
    """Yield the Splits of a protocol config (``name`` plus its settings).

    ``wanted(fold)`` optionally restricts which folds are produced (quick runs, folds already
    stored); nested CV tunes only those. ``algorithm`` (its config) is what nested CV tunes;
    ``searches``: as :func:`tune`'s.
    """
    wanted = wanted or (lambda fold: True)
    name = protocol["name"]
    if name not in PROTOCOLS:
        raise ValueError(f"unknown protocol {name!r}; choose one of {list(PROTOCOLS)}")
    if name in REALIZATIONS:
        for fold in range(int(protocol.get("count", 10))):
            if wanted(fold):
                data = load_dataset(dataset_name, realization=fold + 1)
                split = Split(fold, data.X_train, data.y_train, data.X_test, data.y_test,
                              np.arange(data.y_train.shape[0]))
                if name in TUNED:
                    split = tune(algorithm, protocol, seed, scale, split, searches)
                yield _scaled(split, scale)
        return
    data = load_dataset(dataset_name)
    if name in HOLDOUTS:
        if data.X_test is None:
            raise DataError(
                f"dataset {dataset_name!r} has no given test set, so protocol={name} cannot run; "
                f"use protocol={'nested_cv' if name in TUNED else 'kfold'}"
            )
        given = Split(0, data.X_train, data.y_train, data.X_test, data.y_test,
                      np.arange(data.y_train.shape[0]))
        outer = [given] if wanted(0) else []
    else:
        outer = (Split(fold, data.X_train[train], data.y_train[train], data.X_train[test],
                       data.y_train[test], train, test)
                 for fold, (train, test) in
                 enumerate(kfold_indices(data.y_train, int(protocol["k"]), seed)) if wanted(fold))
    for split in outer:
        if name in TUNED:  # tuned on the raw outer training part, scaled inside
            split = tune(algorithm, protocol, seed, scale, split, searches)
        yield _scaled(split, scale)
