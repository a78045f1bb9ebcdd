"""Data layer: dataset registry, loaders (data path -> cache -> verified download), checks, scaling.

from svmbench.data import load_dataset
ds = load_dataset("Adult-1")          # key or paper name, case-insensitive
ds.X_train, ds.y_train, ds.X_test, ds.y_test, ds.classes, ds.source
"""

from svmbench.data.errors import DataError
from svmbench.data.loader import Dataset, available_realizations, load_dataset
from svmbench.data.preprocessing import scale_features
from svmbench.data.registry import list_datasets, resolve_name
from svmbench.data.validation import check_test_features, check_training_data, encode_labels

__all__ = [
    "DataError",
    "Dataset",
    "available_realizations",
    "check_test_features",
    "check_training_data",
    "encode_labels",
    "list_datasets",
    "load_dataset",
    "resolve_name",
    "scale_features",
]
