"""Feature scaling with training statistics only (gs-svm-tnn2008 §V-C)."""

from __future__ import annotations

import numpy as np

from svmbench.data.errors import DataError
from svmbench.data.validation import check_test_features


def scale_features(X_train, X_test=None, lo: float = -1.0, hi: float = 1.0):
    """Scale features into [lo, hi] using the training set's statistics; return (train, test).

    Dense input: per-column min-max of the *training* rows (gs-svm-tnn2008 §V-C: "scale all
    the training samples into [-1, 1], then adjust the test samples using the same linear
    transformation"), so test values may fall outside [lo, hi]. Columns constant on the training
    set carry no information and become 0 in both sets.

    Sparse (CSR) input: min-max would turn every zero into ``lo`` and destroy sparsity, so columns
    are divided by their training max-abs value instead (zeros stay zeros, non-negative data lands
    in [0, hi], signed data in [-hi, hi]). That is only a scaling into [lo, hi] when lo == -hi, so
    other ranges raise DataError; densify first (``X.toarray()``) for a true min-max.
    """
    if lo >= hi:
        raise DataError(f"scale range lo={lo} must be below hi={hi}; swap them")
    sparse = hasattr(X_train, "tocsr")
    if X_test is not None and hasattr(X_test, "tocsr") != sparse:
        raise DataError(
            "X_train and X_test must both be dense or both sparse; convert one with .toarray() "
            "or scipy.sparse.csr_matrix(...)"
        )
    if X_test is not None:
        check_test_features(X_test, X_train.shape[1])
    if sparse:
        return _scale_max_abs(X_train, X_test, lo, hi)
    X_train = np.asarray(X_train, dtype=np.float64)
    low = X_train.min(axis=0)
    span = X_train.max(axis=0) - low
    constant = span == 0
    factor = np.where(constant, 0.0, (hi - lo) / np.where(constant, 1.0, span))
    offset = np.where(constant, 0.0, lo)

    def transform(X):
        return offset + (np.asarray(X, dtype=np.float64) - low) * factor

    return transform(X_train), None if X_test is None else transform(X_test)


def _scale_max_abs(X_train, X_test, lo: float, hi: float):
    if lo != -hi:
        raise DataError(
            f"sparse features can only be scaled into a symmetric range [-h, h] (max-abs scaling "
            f"keeps zeros); got [{lo}, {hi}]: use lo=-hi, or densify with .toarray() first"
        )
    X_train = X_train.tocsr().astype(np.float64)
    max_abs = np.asarray(abs(X_train).max(axis=0).todense()).ravel()
    factor = np.divide(hi, max_abs, out=np.zeros_like(max_abs), where=max_abs > 0)

    def transform(X):
        return X.tocsr().astype(np.float64).multiply(factor).tocsr()

    return transform(X_train), None if X_test is None else transform(X_test)
