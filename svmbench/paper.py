"""Regenerate one published artefact: run its cells into the paper's store, then render it.

    python -m svmbench.paper gs2008_table2 --scale quick

An artefact is specified by ``experiments/<name>.py``, which defines
- ``EXPERIMENT``: the experiment name its records carry;
- ``OUTPUT``: where its table goes, relative to ``results/`` (e.g. ``"gs2008/table2.md"``);
- ``cells(scale)``: the list of cells, each a list of Hydra overrides (``"dataset=a1a"``, ...),
  so that every number can be re-run from the shell with ``svmbench <overrides>``;
- ``render(records, scale)``: the Markdown text of the table from the stored records;
- optionally ``RUNS``: the store folder under ``results/`` when artefacts share their runs
  (gs2005 Table 2, gs2008 Table VII and Figs. 2-3 are one nested-CV protocol on the same sets).

Records go to ``results/<paper>/runs`` (the paper is OUTPUT's folder) and stay there: a re-run
skips what is stored, so ``SCALE=paper`` after ``SCALE=quick`` only runs the missing cells.
``--jobs N`` runs N cells at a time in worker processes (one numba thread each); the store takes
concurrent writers.
"""

import argparse
import importlib.util
import sys
from pathlib import Path

import pandas as pd
from hydra import compose, initialize_config_dir
from joblib import Parallel, delayed

from svmbench.analysis.tables import Table
from svmbench.provenance import config_hash
from svmbench.runner import CONF_DIR, cell_config, run_cell
from svmbench.store import FINISHED, load_results

ROOT = Path(__file__).resolve().parent.parent
SCALES = ("quick", "paper")


def load_spec(name):
    path = ROOT / "experiments" / f"{name}.py"
    if not path.exists() or name.startswith("_"):
        choices = sorted(p.stem for p in (ROOT / "experiments").glob("[!_]*.py"))
        raise SystemExit(f"no artefact spec {path}; choose one of {choices}")
    if str(path.parent) not in sys.path:  # specs share protocol modules (experiments/_*.py)
        sys.path.insert(0, str(path.parent))
    module_spec = importlib.util.spec_from_file_location(f"experiments.{name}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def store_dir(spec):
    return ROOT / "results" / getattr(spec, "RUNS", Path(spec.OUTPUT).parent / "runs")


def run_one(overrides, store):
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        run_cell(compose("config", [*overrides, f"store.dir={store}"]))


def run_cells(cells, store, jobs=1):
    if jobs == 1:
        for overrides in cells:
            run_one(overrides, store)
        return
    Parallel(n_jobs=jobs)(delayed(run_one)([*overrides, "threads=1"], store)
                          for overrides in cells)


def cell_hashes(cells):
    """The config hashes of ``cells``: which stored records belong to this scale's table."""
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        return {config_hash(cell_config(compose("config", overrides))) for overrides in cells}


def shell_command(overrides):
    return "svmbench " + " ".join(o for o in overrides if not o.startswith("store.dir="))


def cell_outcome(records, dataset, algorithm):
    """('ok', finished records) or ('failed', reason) or ('missing', None) for one cell."""
    runs = records[(records["dataset"] == dataset) & (records["algorithm"] == algorithm)]
    done = runs[runs["status"].isin(FINISHED)]
    if len(done):
        return "ok", done
    if len(runs):
        return "failed", runs["status"].iloc[-1]
    return "missing", None


def measured(records, rows, algorithm, metrics, match=None):
    """Mean measured values: rows x metric labels, plus a note per row whose cell failed.

    ``rows`` maps row labels to datasets; ``metrics`` maps column labels to (record field,
    unit factor); ``match`` optionally narrows the records (e.g. ``{"C": 4}``).
    """
    if match:
        for field, value in match.items():
            records = records[records[field] == value]
    values = pd.DataFrame(index=pd.Index(list(rows), name="Problem"), columns=list(metrics),
                          dtype=float)
    notes = {}
    for label, dataset in rows.items():
        outcome, found = cell_outcome(records, dataset, algorithm)
        if outcome == "ok":
            for column, (field, unit) in metrics.items():
                values.loc[label, column] = found[field].astype(float).mean() * unit
        elif outcome == "failed":
            notes[label] = not_run_note(found)
    return values, notes


def not_run_note(reason):
    """The note a table row gets when its cell failed."""
    if "DataError" in reason:
        return "not run here: data not available"
    return f"failed: {reason.removeprefix('failed:')[:80]}"


def with_text_column(table, name, texts):
    """Append a text column (e.g. notes) to a Table, keeping values, spread and bold aligned."""
    values = table.values.copy()
    key = name if values.columns.nlevels == 1 else (name,) + ("",) * (values.columns.nlevels - 1)
    values[key] = pd.Series(texts).reindex(values.index).fillna("")
    spread = None if table.spread is None else table.spread.reindex(columns=values.columns)
    bold = None if table.bold is None else \
        table.bold.reindex(columns=values.columns).fillna(False).astype(bool)
    return Table(values, spread, bold, table.caption, table.footer, table.formats,
                 table.default_format)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Regenerate a published table.")
    parser.add_argument("name", help="artefact spec in experiments/, e.g. gs2008_table2")
    parser.add_argument("--scale", choices=SCALES, default="quick")
    parser.add_argument("--render-only", action="store_true", help="do not run missing cells")
    parser.add_argument("--jobs", type=int, default=1, help="cells run at a time (processes)")
    parser.add_argument("--only", nargs="+", metavar="OVERRIDE",
                        help="run only the cells with one of these overrides, e.g. algorithm=gs_svm")
    args = parser.parse_args(argv)
    spec = load_spec(args.name)
    store = store_dir(spec)
    if not args.render_only:
        cells = [c for c in spec.cells(args.scale) if not args.only or set(args.only) & set(c)]
        run_cells(cells, store, args.jobs)
    records = load_results(store)
    records = records[records["config_hash"].isin(cell_hashes(spec.cells(args.scale)))]
    output = ROOT / "results" / spec.OUTPUT
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(spec.render(records, args.scale) + "\n")
    print(output.read_text())


if __name__ == "__main__":
    main()
