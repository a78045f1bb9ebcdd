"""Parse the uncompressed bytes of a data file into features and original labels.

Two text formats cover every registered file:

- LIBSVM/svmlight (``label index:value ...``; CRLF is fine). The file does not store the
  dimension and several never use their top index, so ``n_features`` is always passed.
- delimited tables (UCI, CSV, IDA ``.asc``): commas and/or whitespace separate the fields; a
  header row that an uploader added is recognised and skipped; a :class:`TableLayout` says which
  column is the label and which columns are not features.
"""

from __future__ import annotations

import io
import re

import numpy as np

from svmbench.data.errors import DataError
from svmbench.data.registry import TableLayout

_FIELD_SEPARATOR = re.compile(r"[,\s]+")


def read_libsvm(content: bytes, n_features: int, where: str):
    """CSR float64 features and original labels (int64 when all labels are integers)."""
    from sklearn.datasets import load_svmlight_file

    try:
        X, y = load_svmlight_file(
            io.BytesIO(content), n_features=n_features, dtype=np.float64, zero_based=False
        )
    except ValueError as err:
        raise DataError(
            f"cannot read {where} as LIBSVM/svmlight with n_features={n_features} ({err}); check "
            "that the file belongs to this data set and is not truncated"
        ) from err
    return X.tocsr(), tidy_labels(y)


def read_table(content: bytes, where: str) -> np.ndarray:
    """All fields of a delimited text table as a 2-D array of strings (header row dropped)."""
    rows = [
        _FIELD_SEPARATOR.split(line.strip())
        for line in content.decode("utf-8", errors="replace").splitlines()
        if line.strip()
    ]
    if not rows:
        raise DataError(f"{where} is empty; delete it and fetch it again")
    if len(rows) > 1 and _is_header(rows[0], rows[1]):
        rows = rows[1:]
    widths = {len(row) for row in rows}
    if len(widths) > 1:
        expected = len(rows[0])
        bad = next(i for i, row in enumerate(rows) if len(row) != expected)
        raise DataError(
            f"{where}: data row {bad} has {len(rows[bad])} fields but row 0 has {expected}; the file "
            "is truncated or mixes formats: fetch it again"
        )
    return np.array(rows, dtype=str)


def split_table(table: np.ndarray, layout: TableLayout, where: str):
    """Features (float64) and original labels of a table, and the train/test row masks."""
    if layout.sequence_column is not None:
        return split_sequences(table, layout, where)
    n_columns = table.shape[1]
    label_column = layout.label_column % n_columns
    non_features = {label_column, *(c % n_columns for c in layout.drop_columns)}
    if layout.split_column is not None:
        non_features.add(layout.split_column)
    feature_columns = [c for c in range(n_columns) if c not in non_features]
    X = to_float(table[:, feature_columns], where)
    y = tidy_labels(table[:, label_column])
    train = np.ones(table.shape[0], dtype=bool)
    if layout.split_column is not None:
        train = to_float(table[:, layout.split_column], where) == 0
    elif layout.train_rows is not None:
        train[layout.train_rows :] = False
    return X, y, train


def split_sequences(table: np.ndarray, layout: TableLayout, where: str):
    """One-hot features of a symbol-sequence column (position-major: one block of
    ``len(alphabet)`` indicators per position) and the labels, for the rows whose sequence uses
    only the alphabet; every row trains."""
    sequences = table[:, layout.sequence_column]
    lengths = {len(sequence) for sequence in sequences}
    if len(lengths) > 1:
        raise DataError(f"{where}: sequences have lengths {sorted(lengths)}; expected one length "
                        "for every row: the file is truncated or edited, fetch it again")
    alphabet = np.array(list(layout.alphabet))
    symbols = np.array([list(sequence) for sequence in sequences])
    codes = (symbols[:, :, None] == alphabet).reshape(len(sequences), -1).astype(np.float64)
    known = np.isin(symbols, alphabet).all(axis=1)
    labels = tidy_labels(table[known, layout.label_column])
    return codes[known], labels, np.ones(int(known.sum()), dtype=bool)


def to_float(fields: np.ndarray, where: str) -> np.ndarray:
    try:
        return fields.astype(np.float64)
    except ValueError:
        row, column = next(
            (r, c) for r, c in np.ndindex(fields.shape) if not _is_number(fields[r, c])
        )
        raise DataError(
            f"{where}: field {str(fields[row, column])!r} at data row {row}, column {column} is not a "
            "number; missing values must be imputed or the rows dropped before use"
        ) from None


def tidy_labels(labels: np.ndarray) -> np.ndarray:
    """Numeric labels as int64 (if integral) or float64; anything else stays as strings."""
    try:
        numeric = np.asarray(labels).astype(np.float64)
    except ValueError:
        return np.asarray(labels)
    if np.all(numeric == np.round(numeric)):
        return numeric.astype(np.int64)
    return numeric


def _is_number(field: str) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def _is_header(first: list[str], second: list[str]) -> bool:
    """An uploader-added header: column names, or column numbers 0.. / 1.. (UCI files have none)."""
    if not any(map(_is_number, first)) and any(map(_is_number, second)):
        return True
    numbers = [field for field in first if _is_number(field)]
    if len(numbers) < 3 or len(numbers) < len(first) - 1 or not all(f.isdigit() for f in numbers):
        return False
    start = int(numbers[0])
    return start in (0, 1) and [int(f) for f in numbers] == list(range(start, start + len(numbers)))
