"""Render published artefacts from their stored records, without training.

    python -m svmbench.render gs2008_table2 --scale paper     # one artefact
    python -m svmbench.render --all --scale paper             # every artefact (make tables)

An artefact is ``conf/experiment/<name>.yaml`` (its cells: the sweep; where its records and its
output go: ``store.dir``, ``artefact.output``) plus its renderer ``experiments/<renderer>.py``,
whose ``render(records, artefact)`` turns the records of exactly the artefact's cells into
Markdown. ``SCALE=paper`` output is the committed ``results/``; quick output goes to the ignored
``results/quick/``.

Every table names what its records came from (:func:`sources`): commits (a dirty tree marked),
runs, solver-code fingerprints (records older than fingerprints marked as such), host and dates.
"""

import argparse
import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from omegaconf import OmegaConf

from svmbench.store import ResultStore
from svmbench.sweep import SCALES, artefact_settings, cells

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "conf" / "experiment"


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
    return sorted(path.stem for path in EXPERIMENTS.glob("*.yaml")
                  if "artefact" in OmegaConf.load(path))


def load_renderer(name):
    path = ROOT / "experiments" / f"{name}.py"
    if str(path.parent) not in sys.path:  # renderers share helpers (experiments/_*.py)
        sys.path.insert(0, str(path.parent))
    module_spec = importlib.util.spec_from_file_location(f"experiments.{name}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def stored_records(store_dir, hashes):
    """The records of the cells ``hashes`` in ``store_dir`` (an empty frame when none)."""
    store = ResultStore(store_dir)
    found = [r for r in store.records() if r["config_hash"] in hashes] \
        if store.directory.is_dir() else []
    return pd.DataFrame.from_records(found, columns=None if found else ["config_hash", "dataset",
                                                                        "algorithm", "status",
                                                                        "fold"])


def render(name, scale, overrides=()):
    """Write one artefact's table from its stored records; return the output path.
    ``overrides`` (e.g. ``store.dir=...``) apply to the experiment config."""
    if name not in artefacts():
        raise SystemExit(f"no artefact {name!r}; choose one of {artefacts()}")
    settings, store_dir = artefact_settings(name, scale, overrides)
    artefact_cells = tuple(cells(name, scale, overrides))
    artefact = Artefact(name, scale, artefact_cells, ROOT / settings["output"])
    records = stored_records(ROOT / store_dir, {cell.config_hash for cell in artefact_cells})
    renderer = load_renderer(settings["renderer"])
    artefact.output.parent.mkdir(parents=True, exist_ok=True)
    artefact.output.write_text(renderer.render(records, artefact) + "\n")
    return artefact.output


def commit_of(records):
    """(commit, dirty) per record; records from before ``git_dirty`` carry ``<sha>+dirty``."""
    commits = records.get("git_commit", pd.Series("not recorded", index=records.index))
    commits = commits.fillna("not recorded").astype(str)
    legacy_dirty = commits.str.endswith("+dirty")
    dirty = records["git_dirty"].fillna(legacy_dirty).astype(bool) if "git_dirty" in records \
        else legacy_dirty
    return commits.str.removesuffix("+dirty"), dirty


def clean_runs(records):
    """The run ids of ``records`` (sorted) when they all come from one clean commit and one
    solver-code fingerprint, else None: a sweep stopped and resumed on that commit stays clean,
    in a few named runs."""
    if records.empty or "run_id" not in records or records["run_id"].isna().any():
        return None
    commits, dirty = commit_of(records)
    fingerprints = records.get("code_fingerprint", pd.Series(None, index=records.index))
    if commits.nunique() != 1 or dirty.any() or fingerprints.isna().any() \
            or fingerprints.nunique() != 1:
        return None
    return sorted(records["run_id"].unique())


def same_run(records):
    """Whether ``records`` share one run, one commit and a clean tree: only then may a table say
    its numbers were measured in the same run."""
    runs = clean_runs(records)
    return runs is not None and len(runs) == 1


def sources(records):
    """The paragraph naming what a table's records came from."""
    if records.empty:
        return "No records stored for these cells yet."
    commits, dirty = commit_of(records)
    lines = []
    for commit in sorted(set(commits)):
        mine = commits == commit
        dirty_count = int(dirty[mine].sum())
        lines.append(f"{commit[:12]} ({int(mine.sum())} records"
                     + (f", {dirty_count} from a dirty tree" if dirty_count else "") + ")")
    fingerprints = records.get("code_fingerprint", pd.Series(None, index=records.index))
    code = [f"{fingerprint} ({count} records)"
            for fingerprint, count in sorted(fingerprints.value_counts().items())]
    unfingerprinted = int(fingerprints.isna().sum())
    if unfingerprinted:
        code.append(f"{unfingerprinted} legacy records without a code fingerprint (stored before "
                    "fingerprints; only their commit says which code measured them)")
    if fingerprints.nunique() > 1:
        code.append("more than one solver-code version: records were reused across versions "
                    "(store.reuse=any) or the cells ran at different times")
    stamps = pd.to_datetime(records.get("timestamp_utc"), utc=True, errors="coerce")
    dates = (f"{stamps.min():%Y-%m-%d} to {stamps.max():%Y-%m-%d}" if stamps.notna().any()
             else "dates not recorded")
    hosts = ", ".join(sorted(set(records.get("host", pd.Series(dtype=str)).dropna()))) or \
        "not recorded"
    cpus = ", ".join(sorted(set(_machine(records)))) or "not recorded"
    runs = records["run_id"].nunique() if "run_id" in records else 0
    return (f"Records: {len(records)} (host {hosts}; cpu {cpus}; {dates}). "
            f"Commits: {'; '.join(lines)}. Solver code (fingerprint): {'; '.join(code)}. "
            + _how_measured(records, runs, commits, dirty))


def _how_measured(records, runs, commits, dirty):
    clean = clean_runs(records)
    if clean is not None and len(clean) == 1:
        return "Measured in one run of one clean commit."
    if clean is not None:
        named = ", ".join("/".join(Path(run).parts[-2:]) for run in clean)
        return (f"Measured from one clean commit in {len(clean)} runs (a sweep stopped and "
                f"resumed, or split): {named}.")
    return ("Not measured in one run of one clean commit: "
            f"{f'{runs} run id(s)' if runs else 'run ids not recorded'}, "
            f"{commits.nunique()} commit(s), {int(dirty.sum())} record(s) from a dirty tree.")


def _machine(records):
    """Each record's cpu, with the CPU numba compiled for and the BLAS kernel where recorded
    (records before those fields name the cpu alone)."""
    for _, record in records.iterrows():
        if pd.isna(record.get("cpu")):
            continue
        details = [str(record[key]) for key in ("cpu_target", "blas_core")
                   if key in record and isinstance(record[key], str) and record[key]]
        yield record["cpu"] + (f" ({'; '.join(details)})" if details else "")


def main(argv=None):
    parser = argparse.ArgumentParser(description="Render published tables from stored records.")
    parser.add_argument("names", nargs="*", help="artefacts (conf/experiment/<name>.yaml)")
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
