"""Every cell's config hash: each experiment config at both scales, as svmbench.sweep.cells
enumerates and hashes them (what the stores and the tables select records by).

    python studies/cell_hashes.py write hashes.json   # the hashes of this checkout
    python studies/cell_hashes.py check hashes.json   # exit 1 when one differs, naming it

A change to how configs are declared (a spec in place of a YAML file, a default moved) must
leave every hash as it was: write the file on the old code, check it on the new (a written file
grows after each experiment, quick scale first, and a rerun resumes it). The committed
tests/integration/cell_hashes.json holds the quick-scale cells of b4143de, the commit before the
algorithm configs were made from the specs alone (the leaderboard's rewritten when its protocol
changed on purpose: the solvers of one dual tuned by its reference, protocol.tune_with); tests/integration/test_sweep.py checks three
experiments against it, this script every experiment at both scales (about 3,200 cells: over
half an hour of Hydra composing on a loaded 2-core machine).
"""

import argparse
import json
import sys
from pathlib import Path

from svmbench.conf import experiment_files
from svmbench.sweep import SCALES, cells


def cell_hashes(names=None, found=None, progress=None):
    """{"<experiment>@<scale>": [[overrides, hash], ...]} of ``names`` (None: every experiment),
    quick scale first; ``found``: those known already (skipped); ``progress(found)`` after each."""
    found = dict(found or {})
    for scale in SCALES:
        for name in names or experiment_files():
            key = f"{name}@{scale}"
            if key not in found:
                found[key] = [[" ".join(cell.overrides), cell.config_hash]
                              for cell in cells(name, scale)]
                if progress:
                    progress(found)
    return found


def differences(expected, found):
    """Lines naming every experiment whose cells or hashes differ."""
    lines = []
    for key in sorted(set(expected) | set(found)):
        before, after = expected.get(key), found.get(key)
        if before != after:
            changed = [pair for pair in (after or []) if pair not in (before or [])]
            lines.append(f"{key}: {len(before or [])} cells before, {len(after or [])} now; "
                         f"first changed: {changed[:1]}")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("write", "check"))
    parser.add_argument("path", type=Path)
    args = parser.parse_args(argv)
    if args.action == "write":  # written after each experiment; a rerun resumes
        known = json.loads(args.path.read_text()) if args.path.exists() else {}
        found = cell_hashes(found=known, progress=lambda found: args.path.write_text(
            json.dumps(found, indent=0, sort_keys=True) + "\n"))
        total = sum(len(pairs) for pairs in found.values())
        print(f"{total} cells of {len(found)} experiment x scale written to {args.path}")
        return 0
    expected = json.loads(args.path.read_text())
    found = cell_hashes(progress=lambda found: print(
        *differences({key: expected.get(key) for key in found}, found)[-1:] or
        [f"{list(found)[-1]}: as before"], flush=True))
    total = sum(len(pairs) for pairs in found.values())
    lines = differences(expected, found)
    print("\n".join(lines) or f"{total} cells of {len(found)} experiment x scale: every hash "
          "as before")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
