"""Which records the committed artefacts draw on, and pruning the rest from their stores.

    python -m svmbench.stores           # per store: cells drawn on, and what no artefact uses
    python -m svmbench.stores --prune   # delete what no artefact uses (git history keeps it)

An artefact's table is rendered from the records of exactly its sweep's cells
(:func:`svmbench.render.render`), so in a store (``store.dir`` of the artefacts at paper scale,
``results/<paper>/runs``) only the folders of those cells are drawn on. Not drawn on:
``superseded/`` (records of older solver code, moved there when a cell is re-run,
svmbench.store), ``quarantine/`` (corrupt files) and the folders of cells no artefact's sweep has
any more (another config hash: a sweep's settings changed since). ``tuned/`` (tuned points shared
by cells, svmbench.tuned_points) is kept. ``--prune`` deletes them from
the working tree; commit the deletion (``git add -A results``) and git history keeps them. An
old store comes back with ``git checkout <commit> -- results/<paper>/runs`` (e.g. the commit
before the prune: ``git log -1 --format=%h --diff-filter=D -- results/<paper>/runs`` names the
commit that deleted records, and ``<that>~1`` holds them).
"""

import argparse
import shutil
import sys
from collections import Counter, defaultdict

from svmbench.render import ROOT, artefacts
from svmbench.store import QUARANTINE, SUPERSEDED, TUNED
from svmbench.sweep import artefact_settings, cells

SCALE = "paper"  # the committed stores


def live_cells(names=None, scale=SCALE):
    """{store folder: config hashes of the cells its artefacts draw on} over ``names`` (default:
    every artefact)."""
    live = defaultdict(set)
    for name in names or artefacts():
        _, store_dir = artefact_settings(name, scale)
        live[(ROOT / store_dir).resolve()] |= {cell.config_hash for cell in cells(name, scale)}
    return dict(live)


def unused(store, hashes):
    """The folders of ``store`` no artefact draws on: superseded/, quarantine/ and cells whose
    config hash is not in ``hashes``."""
    if not store.is_dir():
        return []
    return sorted(path for path in store.iterdir() if path.is_dir() and path.name != TUNED
                  and (path.name in (SUPERSEDED, QUARANTINE) or path.name not in hashes))


def record_count(folder):
    return sum(1 for path in folder.rglob("*.json") if not path.name.startswith("."))


def kind(folder):
    """Why a folder is not drawn on: superseded, quarantine, or another config hash."""
    return folder.name if folder.name in (SUPERSEDED, QUARANTINE) else "other config hashes"


def main(argv=None):
    parser = argparse.ArgumentParser(description="List (or prune) the records of the committed "
                                                 "stores that no artefact draws on.")
    parser.add_argument("--prune", action="store_true", help="delete them from the working tree")
    args = parser.parse_args(argv)
    total = 0
    for store, hashes in sorted(live_cells().items()):
        folders = unused(store, hashes)
        drawn = sum(record_count(store / h) for h in hashes if (store / h).is_dir())
        counts = Counter()
        for folder in folders:
            counts[kind(folder)] += record_count(folder)
        total += sum(counts.values())
        shown = ", ".join(f"{key} {count}" for key, count in sorted(counts.items())) or "nothing"
        print(f"{store.relative_to(ROOT)}: {drawn} records drawn on; not drawn on: {shown}")
        if args.prune:
            for folder in folders:
                shutil.rmtree(folder)
    verb = "deleted" if args.prune else "not drawn on (--prune deletes them)"
    print(f"{total} record files {verb}", file=sys.stderr)


if __name__ == "__main__":
    main()
