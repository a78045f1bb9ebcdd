"""The result store: one JSON file per run record, append-only and safe with many writers.

Layout: ``<dir>/<config_hash>/fold-<k>.json``. A record is written to a temporary name in the same
folder and renamed into place, so a reader never sees half a record and a killed run leaves at
most a stray temporary file (``.tmp-*.json``), which readers ignore: only ``fold-*.json`` are
records. Records that finished (``converged`` or ``max_iter``) are never
rewritten: a re-run skips them. A ``failed:<reason>`` record is replaced when the cell is re-run.
"""

import json
import os
import tempfile
from pathlib import Path

import pandas as pd

FINISHED = ("converged", "max_iter")


class ResultStore:
    def __init__(self, directory):
        self.directory = Path(directory)

    def path(self, config_hash, fold):
        return self.directory / config_hash / f"fold-{fold}.json"

    def read(self, config_hash, fold):
        path = self.path(config_hash, fold)
        if not path.exists():
            return None
        return json.loads(path.read_text())

    def has_finished(self, config_hash, fold):
        record = self.read(config_hash, fold)
        return record is not None and record.get("status") in FINISHED

    def write(self, record):
        """Store one record under its ``config_hash`` and ``fold``; never overwrite a finished one."""
        config_hash, fold = record["config_hash"], record["fold"]
        if self.has_finished(config_hash, fold):
            return False
        target = self.path(config_hash, fold)
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(handle, "w") as stream:
                json.dump(record, stream, indent=1, sort_keys=True, default=_jsonable)
                stream.flush()
                os.fsync(stream.fileno())  # on disk before the rename: a crash leaves no empty record
            os.replace(temporary, target)
        except BaseException:  # a record that cannot be stored leaves no temporary file behind
            Path(temporary).unlink(missing_ok=True)
            raise
        return True

    def remove_failed(self, config_hash, fold):
        """Drop a ``failed:`` record (e.g. a cell that could not start and now can); a finished
        record is never removed."""
        record = self.read(config_hash, fold)
        if record is not None and record.get("status") not in FINISHED:
            self.path(config_hash, fold).unlink(missing_ok=True)

    def records(self):
        for path in sorted(self.directory.glob("*/fold-*.json")):
            yield json.loads(path.read_text())


def _jsonable(value):
    if hasattr(value, "item"):
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"cannot store a value of type {type(value).__name__} in a run record")


def load_results(store_dir):
    """Every record of the store as a DataFrame, one row per (cell, fold)."""
    store = ResultStore(store_dir)
    if not store.directory.exists():
        raise FileNotFoundError(
            f"no result store at {store.directory}; run a sweep first (svmbench store.dir=...)"
        )
    return pd.DataFrame.from_records(list(store.records()))


def export_parquet(store_dir, path):
    """Write the whole store to one parquet file (for bulk analysis)."""
    load_results(store_dir).to_parquet(path, index=False)
