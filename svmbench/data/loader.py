"""``load_dataset``: registry entry -> files (data path / cache / download) -> a checked ``Dataset``."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from svmbench.data.errors import DataError
from svmbench.data.fetch import FetchedFile, fetch, find_local
from svmbench.data.readers import read_libsvm, read_table, split_table, tidy_labels, to_float
from svmbench.data.registry import DatasetSpec, get_spec
from svmbench.data.validation import check_test_features, check_training_data, encode_labels


@dataclass(frozen=True)
class Dataset:
    name: str
    X_train: object  # np.ndarray, or scipy.sparse.csr_matrix for sparse sets
    y_train: np.ndarray  # binary: float64 in {-1, +1}; multiclass: int64 indices into classes
    X_test: object | None
    y_test: np.ndarray | None
    classes: np.ndarray  # original label values; binary: [negative, positive]
    paper_names: tuple[str, ...]
    source: dict = field(repr=False)
    n_features: int
    realization: int | None = None  # IDA sets: which realization this is
    n_realizations: int | None = None  # IDA sets: how many the benchmark defines

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def is_sparse(self) -> bool:
        return hasattr(self.X_train, "tocsr")


def load_dataset(
    name: str, *, realization: int | None = None, download: bool | None = None
) -> Dataset:
    """Load a registered data set by key or paper name (case-insensitive).

    ``realization`` picks one of the IDA/Raetsch splits (1-based, default 1); other sets have
    none. ``download`` overrides ``SVMBENCH_DOWNLOAD`` (``None``: downloads allowed unless it is 0).
    """
    spec = get_spec(name)
    realization = _check_realization(spec, realization)
    if spec.reader == "sklearn":
        X_train, labels_train = _read_bundled(spec.name)
        X_test = labels_test = None
        source = {
            "files": [],
            "found_in": f"scikit-learn bundled (sklearn.datasets.load_{spec.name})",
        }
    else:
        wanted = spec.data_files(realization)
        files = {role: fetch(file, spec, download=download) for role, file in wanted.items()}
        X_train, labels_train, X_test, labels_test = _READERS[spec.reader](spec, files)
        source = {"files": [fetched.record(role, wanted[role]) for role, fetched in files.items()]}
    X_train, labels_train = check_training_data(_storage(spec, X_train), labels_train)
    if X_test is not None:
        X_test = check_test_features(_storage(spec, X_test), spec.n_features)
    y_train, y_test, classes = encode_labels(labels_train, labels_test)
    return Dataset(
        name=spec.name,
        X_train=X_train,
        y_train=y_train,
        X_test=X_test,
        y_test=y_test,
        classes=classes,
        paper_names=spec.paper_names,
        source={**source, "realization": realization, "homepage": spec.homepage, "note": spec.note},
        n_features=spec.n_features,
        realization=realization,
        n_realizations=spec.n_realizations,
    )


def available_realizations(name: str) -> list[int]:
    """The IDA realizations whose four files are present locally (data path or cache)."""
    spec = get_spec(name)
    if spec.n_realizations is None:
        raise DataError(f"dataset {spec.name!r} has no realizations; only the ida_* sets have them")
    return [
        k
        for k in range(1, spec.n_realizations + 1)
        if all(find_local(file) for file in spec.data_files(k).values())
    ]


def _check_realization(spec: DatasetSpec, realization: int | None) -> int | None:
    if spec.n_realizations is None:
        if realization is not None:
            raise DataError(
                f"dataset {spec.name!r} has no realizations (a fixed train/test split or none); "
                "drop realization=, or use an ida_* set"
            )
        return None
    realization = 1 if realization is None else realization
    if not 1 <= realization <= spec.n_realizations:
        raise DataError(
            f"realization {realization} of {spec.name!r} does not exist; choose 1..{spec.n_realizations}"
        )
    return realization


def _storage(spec: DatasetSpec, X):
    """CSR (float64, 32-bit indices as LIBSVM wants) for sparse sets, dense float64 otherwise."""
    if spec.sparse:
        csr = sp.csr_matrix(X, dtype=np.float64)
        csr.indices = csr.indices.astype(np.int32)
        csr.indptr = csr.indptr.astype(np.int32)
        return csr
    return X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=np.float64)


def _read_bundled(name: str):
    from sklearn import datasets

    bunch = getattr(datasets, f"load_{name}")()
    return bunch.data.astype(np.float64), np.asarray(bunch.target_names)[bunch.target]


def _read_libsvm_files(spec: DatasetSpec, files: dict[str, FetchedFile]):
    X_train, y_train = read_libsvm(
        files["train"].content, spec.n_features, str(files["train"].path)
    )
    if "test" not in files:
        return X_train, y_train, None, None
    X_test, y_test = read_libsvm(files["test"].content, spec.n_features, str(files["test"].path))
    return X_train, y_train, X_test, y_test


def _read_table_files(spec: DatasetSpec, files: dict[str, FetchedFile]):
    parts = []
    for fetched in files.values():
        where = str(fetched.path)
        X, y, train = split_table(read_table(fetched.content, where), spec.layout, where)
        _check_width(spec, X, where)
        parts.append((X, y, train))
    if "test" in files:
        (X_train, y_train, _), (X_test, y_test, _) = parts
        return X_train, y_train, X_test, y_test
    X, y, train = parts[0]
    if train.all():
        return X, y, None, None
    return X[train], y[train], X[~train], y[~train]


def _read_ida_files(spec: DatasetSpec, files: dict[str, FetchedFile]):
    arrays = {}
    for part, fetched in files.items():
        where = str(fetched.path)
        arrays[part] = to_float(read_table(fetched.content, where), where)
        if part.endswith("data"):
            _check_width(spec, arrays[part], where)
    return (
        arrays["train_data"],
        tidy_labels(arrays["train_labels"].ravel()),
        arrays["test_data"],
        tidy_labels(arrays["test_labels"].ravel()),
    )


def _check_width(spec: DatasetSpec, X: np.ndarray, where: str) -> None:
    if X.shape[1] != spec.n_features:
        raise DataError(
            f"{where} has {X.shape[1]} feature columns but {spec.name!r} is registered with "
            f"{spec.n_features}; the file belongs to another data set or version: replace it"
        )


_READERS = {"libsvm": _read_libsvm_files, "table": _read_table_files, "ida": _read_ida_files}
