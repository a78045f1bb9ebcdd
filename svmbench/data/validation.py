"""Input checks shared by the loaders, the estimators and the runner (numpy only, cheap to import).

Every check raises :class:`DataError` with a message that names the problem and the fix.
"""

from __future__ import annotations

import numpy as np

from svmbench.data.errors import DataError


def _is_sparse(X) -> bool:
    return hasattr(X, "tocsr") and hasattr(X, "nnz")


def _check_finite(X, what: str) -> None:
    if _is_sparse(X):
        csr = X.tocsr()
        bad = np.flatnonzero(~np.isfinite(csr.data))
        if bad.size:
            row = int(np.searchsorted(csr.indptr, bad[0], side="right") - 1)
            col = int(csr.indices[bad[0]])
            value = csr.data[bad[0]]
        else:
            return
    else:
        finite = np.isfinite(X)
        if finite.all():
            return
        row, col = (int(i[0]) for i in np.nonzero(~finite))
        value = X[row, col]
    kind = "NaN" if np.isnan(value) else "inf"
    raise DataError(
        f"{what} contains {kind} at row {row}, column {col}; impute or drop the rows/columns "
        "with missing or infinite values before training"
    )


def _as_2d_features(X, what: str):
    if not _is_sparse(X):
        X = np.asarray(X)
        if X.dtype.kind not in "biuf":
            raise DataError(
                f"{what} has dtype {X.dtype}, not numbers; encode categorical columns numerically first"
            )
    if len(X.shape) != 2:
        raise DataError(
            f"{what} must be 2-D (n_samples, n_features), got shape {X.shape}; "
            "reshape a single sample with X.reshape(1, -1)"
        )
    return X


def check_training_data(X, y):
    """Validate a training set; return ``(X, y)`` with ``y`` as a 1-D numpy array.

    Fails on non-numeric or non-2-D features, NaN/inf features, a label vector of the wrong
    length, labels that cannot be mapped to classes (NaN, non-integer numbers) and a single class.
    """
    X = _as_2d_features(X, "feature matrix")
    y = np.asarray(y)
    if y.ndim != 1:
        raise DataError(f"labels must be a 1-D vector, got shape {y.shape}; pass y.ravel()")
    if y.shape[0] != X.shape[0]:
        raise DataError(
            f"feature matrix has {X.shape[0]} rows but there are {y.shape[0]} labels; "
            "pass one label per training sample"
        )
    _check_finite(X, "feature matrix")
    if y.dtype.kind == "f":
        missing = np.flatnonzero(~np.isfinite(y))
        if missing.size:
            raise DataError(
                f"labels contain {y[missing[0]]} at row {missing[0]}; drop unlabelled samples"
            )
        fractional = np.flatnonzero(y != np.round(y))
        if fractional.size:
            raise DataError(
                f"label {y[fractional[0]]} at row {fractional[0]} cannot be mapped to a class "
                "(non-integer number); classifiers need class labels, e.g. -1/+1 or 0..k-1"
            )
    _training_classes(y)
    return X, y


def check_test_features(X_test, n_features: int):
    """Validate test features against the training width; return them as an array or sparse matrix."""
    X_test = _as_2d_features(X_test, "test feature matrix")
    width = X_test.shape[1]
    if width > n_features:
        raise DataError(
            f"test features have {width} columns but training had {n_features}; drop the extra "
            "columns, or load train and test with the same n_features (LIBSVM files: pass n_features)"
        )
    if width < n_features:
        raise DataError(
            f"test features have {width} columns but training had {n_features}; the test set lacks "
            "the last columns (LIBSVM files: load with n_features so the top index is kept)"
        )
    _check_finite(X_test, "test feature matrix")
    return X_test


def encode_labels(y_train, y_test=None):
    """Map original labels to the form solvers use: ``(y_train, y_test, classes)``.

    ``classes`` holds the sorted training label values. Two classes -> float64 in {-1, +1}
    (``classes[0]`` -> -1); more -> int64 class indices 0..k-1. Test labels never seen in
    training cannot be mapped and raise :class:`DataError`.
    """
    y_train = np.asarray(y_train)
    classes = _training_classes(y_train)
    encoded = [_encode(y_train, classes)]
    if y_test is not None:
        y_test = np.asarray(y_test)
        unseen = np.setdiff1d(np.unique(y_test), classes)
        if unseen.size:
            raise DataError(
                f"test labels {unseen.tolist()} never occur in the training labels "
                f"{classes.tolist()}, so they cannot be mapped; check that train and test files "
                "belong to the same data set"
            )
        encoded.append(_encode(y_test, classes))
    else:
        encoded.append(None)
    return encoded[0], encoded[1], classes


def _training_classes(y: np.ndarray) -> np.ndarray:
    classes = np.unique(y)
    if classes.size == 0:
        raise DataError("there are no training samples; check the file or the subset selection")
    if classes.size == 1:
        raise DataError(
            f"training labels contain only one class ({classes[0]} x {y.size}); a classifier needs "
            "at least two classes: check the label column or use a stratified split"
        )
    return classes


def _encode(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    if classes.size == 2:
        return np.where(y == classes[1], 1.0, -1.0)
    return np.searchsorted(classes, y).astype(np.int64)
