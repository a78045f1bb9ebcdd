"""The papers' published table values, as printed, for side-by-side tables: each paper's folder
holds its own (``svmbench/papers/<paper>/reference/<paper>_<table>.csv``).

Each CSV starts with ``#`` lines naming paper, table and units; :func:`load_reference` puts
them in ``DataFrame.attrs["meta"]`` (key -> text) and returns the numbers.
"""

from __future__ import annotations

import io
from importlib import resources

import pandas as pd

PAPERS = ("fw", "gs2005", "gs2008", "rosen", "tsang")
_FOLDER = "reference"


def _folder(paper):
    return resources.files(f"svmbench.papers.{paper}").joinpath(_FOLDER)


def list_references() -> list[str]:
    """Names accepted by :func:`load_reference`, e.g. ``"fw_table2"``, sorted."""
    return sorted(entry.name[:-4] for paper in PAPERS for entry in _folder(paper).iterdir()
                  if entry.name.endswith(".csv"))


def reference_text(name: str) -> str:
    """The CSV text of reference table ``name``."""
    names = list_references()
    if name not in names:
        raise ValueError(f"unknown reference table {name!r}; choose one of {names}")
    return _folder(name.partition("_")[0]).joinpath(f"{name}.csv").read_text()


def load_reference(name: str, as_printed: bool = False) -> pd.DataFrame:
    """The published values of table ``name``; metadata in ``.attrs["meta"]``.

    ``as_printed=True`` keeps every cell as the printed text (e.g. ``"3.085e-06"``), which
    tells how many digits the paper gave; empty cells are NaN either way.
    """
    text = reference_text(name)
    lines = text.splitlines()
    header = [line for line in lines if line.startswith("#")]
    body = "\n".join(line for line in lines if not line.startswith("#"))
    frame = pd.read_csv(io.StringIO(body), keep_default_na=False, na_values=[""],
                        dtype=str if as_printed else None)
    meta = {}
    for line in header:
        key, _, value = line.lstrip("# ").partition(":")
        meta[key.strip()] = value.strip()
    frame.attrs["meta"] = meta
    frame.attrs["name"] = name
    return frame
