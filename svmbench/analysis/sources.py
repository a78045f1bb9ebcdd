"""The footer of provenance every table ends with: what its numbers came from.

:func:`sources` names, for a table's records, their commits (a dirty tree marked), runs,
solver-code fingerprints (records older than fingerprints marked as such), host, cpu and dates, and
whether they were measured in one run of one clean commit; for a table timed as it is written (the
benches), the machine and checkout generating it now. Renderers, the store report
(svmbench.report) and the report site (svmbench.webreport) all call it.
"""

import socket
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from svmbench.provenance import cpu_model, git_commit


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


def sources(records=None):
    """The paragraph naming what a table's records came from; without records, the machine and
    checkout generating the table now."""
    if records is None:
        now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        return (f"Generated on host {socket.gethostname()} (cpu: {cpu_model()}), git commit "
                f"{git_commit()}, {now}.")
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
