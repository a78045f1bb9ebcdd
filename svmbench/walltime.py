"""Time an artefact's sweep and log its wall time, so `make paper` can say what each artefact cost.

    python -m svmbench.walltime gs2008_table7 --scale paper -- python -m svmbench.runner -m ...
    python -m svmbench.walltime --summary --scale paper     # the log as a Markdown table
    python -m svmbench.walltime --summary --scale paper --output results/wall_times.md

Each timed command appends one row to ``<output_root>/wall_times.csv`` (results/ at paper scale):
artefact, scale, commit and dirty flag, start (UTC), wall seconds, exit status, the 1-minute load
average before and after, the machine's cores, the command line and how many of its cells the
sweeps trained and how many they reused (records an earlier sweep had stored: ``make record``
runs artefacts that share cells, and the later one's wall time then leaves those out, so it is
not what the artefact costs alone). A sweep stopped and resumed adds a row per run; the summary
sums a commit's rows per artefact and each commit's rows in all, and quotes ``record.log`` (what
`make record` writes beside the log: when each of its parts started, with the load average) when
there is one. The command's exit status is passed on unchanged.
"""

import argparse
import csv
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from svmbench.outcomes import OUTCOME_LOG_ENV, REUSED, TRAINED
from svmbench.provenance import git_state
from svmbench.render import ROOT
from svmbench.sweep import SCALES

FIELDS = ["artefact", "scale", "commit", "dirty", "start_utc", "wall_s", "exit_status",
          "load_before", "load_after", "cores", "command", "cells_trained", "cells_reused"]


def log_path(scale):
    return ROOT / ("results" if scale == "paper" else "results/quick") / "wall_times.csv"


def timed(artefact, scale, command, path=None):
    """Run ``command``, append its row to the wall-time log, return its exit status."""
    path = path or log_path(scale)
    commit, dirty = git_state()
    start, load_before = datetime.now(timezone.utc), os.getloadavg()[0]
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        outcomes = Path(folder) / "outcomes.jsonl"
        status = subprocess.run(command, check=False,
                                env={**os.environ, OUTCOME_LOG_ENV: str(outcomes)}).returncode
        counts = outcome_counts(outcomes)
    row = {"artefact": artefact, "scale": scale, "commit": commit, "dirty": dirty,
           "start_utc": start.isoformat(timespec="seconds"),
           "wall_s": round(time.perf_counter() - began, 1), "exit_status": status,
           "load_before": load_before, "load_after": os.getloadavg()[0],
           "cores": os.cpu_count(), "command": shlex.join(command),
           "cells_trained": counts.get(TRAINED, 0) if counts else "",
           "cells_reused": counts.get(REUSED, 0) if counts else ""}
    path.parent.mkdir(parents=True, exist_ok=True)
    new = not path.is_file()
    if not new and pd.read_csv(path, nrows=0).columns.tolist() != FIELDS:
        pd.read_csv(path).reindex(columns=FIELDS).to_csv(path, index=False)  # an older log
    with path.open("a", newline="") as stream:
        writer = csv.DictWriter(stream, FIELDS)
        if new:
            writer.writeheader()
        writer.writerow(row)
    return status


def outcome_counts(path):
    """{outcome: cells} summed over the sweeps that logged their counts to ``path`` (none: {})."""
    counts = Counter()
    for line in path.read_text().splitlines() if path.is_file() else []:
        counts.update(json.loads(line))
    return dict(counts)


def summary(path):
    """Markdown: per artefact and commit, the runs, their summed wall time, loads and exits; per
    commit, the artefacts and their wall time in all; the record's log of parts, if any."""
    if not path.is_file():
        return f"No wall times logged yet ({path.name} is written by `make <artefact>`)."
    log = pd.read_csv(path)
    return "\n\n".join([per_artefact(log), per_commit(log)] + record_log(path.parent))


def page(path):
    """The summary as the page ``make wall-times`` commits (results/wall_times.md)."""
    return f"# Wall times of the sweeps\n\n{summary(path)}\n"


def per_artefact(log):
    """Markdown: per artefact and commit, the runs, their summed wall time and cells, loads and
    exits."""
    rows = [("| artefact | commit | runs | wall (min) | cells trained / reused | "
             "load before / after (1 min) | exit |"), "|---|---|---|---|---|---|---|"]
    for (artefact, commit), runs in log.groupby(["artefact", "commit"], sort=True):
        loads = ", ".join(f"{b:.1f} / {a:.1f}" for b, a in zip(runs["load_before"],
                                                                runs["load_after"]))
        exits = ", ".join(str(s) for s in runs["exit_status"])
        rows.append(f"| {artefact} | {commit[:12]}{dirty_mark(runs)} | {len(runs)} | "
                    f"{runs['wall_s'].sum() / 60:.1f} | {cells(runs)} | {loads} | {exits} |")
    cores = ", ".join(str(c) for c in sorted(log["cores"].unique()))
    return "\n".join(rows) + (f"\n\nWall clock of each artefact's sweep (training and storing "
                              f"its records; rendering not included) on {cores} cores; a "
                              "resumed sweep adds a run. Reused cells were stored by an earlier "
                              "sweep (the store's reuse), so an artefact's "
                              "wall time with reused cells is not what it costs alone "
                              "(marked *); - : not logged (runs before the count was).")


def cells(runs):
    """'trained / reused' summed over ``runs``, * when some were reused; '-' when not logged."""
    if "cells_trained" not in runs or runs["cells_trained"].isna().all():
        return "-"
    trained = int(runs["cells_trained"].fillna(0).sum())
    reused = int(runs["cells_reused"].fillna(0).sum())
    return f"{trained} / {reused}" + (" *" if reused else "")


def per_commit(log):
    """Markdown: per commit, its first and last start, artefacts, runs and summed wall time."""
    rows = ["| commit | first start (UTC) | last start (UTC) | artefacts | runs | wall (min) |",
            "|---|---|---|---|---|---|"]
    for commit, runs in log.groupby("commit", sort=False):
        rows.append(f"| {commit[:12]}{dirty_mark(runs)} | {runs['start_utc'].min()} | "
                    f"{runs['start_utc'].max()} | {runs['artefact'].nunique()} | {len(runs)} | "
                    f"{runs['wall_s'].sum() / 60:.1f} |")
    return "\n".join(rows) + ("\n\nSummed per commit, in the order of their first run (the "
                              "bench is timed by itself and not in this log).")


def dirty_mark(runs):
    """' (dirty tree)' when any of ``runs`` ran from a tree with uncommitted changes."""
    return " (dirty tree)" if runs["dirty"].astype(str).eq("True").any() else ""


def record_log(folder):
    """The lines of ``record.log`` in ``folder`` as a Markdown block, or nothing when absent."""
    path = folder / "record.log"
    if not path.is_file():
        return []
    return ["`make record`'s parts (record.log: start of each part, commit, load average):",
            "```\n" + path.read_text().strip() + "\n```"]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    # the command to time is everything after the first "--", so its own options stay its own
    split = argv.index("--") if "--" in argv else len(argv)
    own, command = argv[:split], argv[split + 1:]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     usage="%(prog)s ARTEFACT --scale SCALE -- COMMAND ... | "
                                           "%(prog)s --summary --scale SCALE")
    parser.add_argument("artefact", nargs="?")
    parser.add_argument("--scale", choices=SCALES, required=True)
    parser.add_argument("--summary", action="store_true", help="print the log as a table")
    parser.add_argument("--output", type=Path, help="with --summary: also write it as a page")
    args = parser.parse_args(own)
    if args.summary:
        text = page(log_path(args.scale))
        print(text, end="")
        if args.output:
            args.output.write_text(text)
        return 0
    if not args.artefact or not command:
        parser.error("give the artefact and, after --, the command to time")
    return timed(args.artefact, args.scale, command)


if __name__ == "__main__":
    sys.exit(main())
