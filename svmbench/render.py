"""Render published artefacts from their stored records, without training.

    python -m svmbench.render gs2008_table2 --scale paper     # one artefact
    python -m svmbench.render --all --scale paper             # every artefact (make tables)

An artefact is an experiment config ``experiment/<name>.yaml`` of an artefact package (a paper's
folder ``svmbench/papers/<paper>/`` or ``svmbench/boards/``; its cells: the sweep; where its
records and its output go: ``store.dir``, ``artefact.output``) plus its renderer, the module
``<renderer>.py`` beside that ``experiment/`` folder, whose ``render(records, artefact)`` turns the records of exactly the artefact's cells into
Markdown. ``SCALE=paper`` output is the committed ``results/``; quick output goes to the ignored
``results/quick/``.

Every table names what its records came from (svmbench.analysis.sources): commits (a dirty tree
marked), runs, solver-code fingerprints (records older than fingerprints marked as such), host and
dates.
"""

import argparse
import importlib
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from omegaconf import OmegaConf

from svmbench.conf import experiment_files
from svmbench.store import ResultStore
from svmbench.sweep import SCALES, artefact_settings, cells

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Artefact:
    """What a renderer knows besides the records: scale, cells (for re-run commands), output."""

    name: str
    scale: str
    cells: tuple
    output: Path

    def commands(self):
        return "\n".join(f"    {cell.command(self.name, self.scale)}" for cell in self.cells)


def artefacts():
    """Names of the experiment configs that are published artefacts (have an ``artefact`` node)."""
    return [name for name, (package, path) in experiment_files().items()
            if package is not None and "artefact" in OmegaConf.load(path)]


def load_renderer(artefact, renderer):
    """The module ``renderer`` of the artefact package that holds artefact's config."""
    package = experiment_files()[artefact][0]
    return importlib.import_module(f"{package}.{renderer}")


def stored_records(store_dir, hashes):
    """The records of the cells ``hashes`` in ``store_dir`` (an empty frame when none)."""
    store = ResultStore(store_dir)
    found = [r for r in store.records() if r["config_hash"] in hashes] \
        if store.directory.is_dir() else []
    return pd.DataFrame.from_records(found, columns=None if found else ["config_hash", "dataset",
                                                                        "algorithm", "status",
                                                                        "fold"])


def render(name, scale, overrides=(), out_root=ROOT):
    """Write one artefact's table from its stored records; return the output path.
    ``overrides`` (e.g. ``store.dir=...``) apply to the experiment config; ``out_root`` is where
    its output path (relative, e.g. ``results/gs2008/table2.md``) is taken from: the checkout, or
    a scratch folder to compare with the committed page (tests/integration/test_pages.py)."""
    if name not in artefacts():
        raise SystemExit(f"no artefact {name!r}; choose one of {artefacts()}")
    settings, store_dir = artefact_settings(name, scale, overrides)
    artefact_cells = tuple(cells(name, scale, overrides))
    artefact = Artefact(name, scale, artefact_cells, Path(out_root) / settings["output"])
    records = stored_records(ROOT / store_dir, {cell.config_hash for cell in artefact_cells})
    renderer = load_renderer(name, settings["renderer"])
    artefact.output.parent.mkdir(parents=True, exist_ok=True)
    artefact.output.write_text(renderer.render(records, artefact) + "\n")
    return artefact.output


def main(argv=None):
    parser = argparse.ArgumentParser(description="Render published tables from stored records.")
    parser.add_argument("names", nargs="*", help="artefacts (experiment/<name>.yaml of a paper's folder or the boards)")
    parser.add_argument("--all", action="store_true", help="every artefact")
    parser.add_argument("--scale", choices=SCALES, default="quick")
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                        help="config overrides the sweep had, e.g. hydra.searchpath=[file:///my/"
                             "conf] leaderboard_solvers.yours=[mine]")
    args = parser.parse_args(argv)
    names = artefacts() if args.all else args.names
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")  # matplotlib dates PDFs by it: same bytes
    if not names:
        parser.error(f"name an artefact or give --all; artefacts: {artefacts()}")
    for name in names:
        print(f"wrote {render(name, args.scale, args.set).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
