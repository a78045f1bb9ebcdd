"""Where a record came from: code version, solver-code fingerprint, library versions, machine, time.

A record carries ``git_commit`` (the checkout's commit), ``git_dirty`` (whether tracked files had
uncommitted changes; the sweep outputs under ``results/`` do not count) and ``code_fingerprint``:
a hash of the source files that decide what a measurement is (kernels, solvers, estimators,
protocols, tuning, preprocessing). The store reuses a record only when its fingerprint matches the
running code's (svmbench.store).
"""

import functools
import hashlib
import json
import os
import platform
import socket
import subprocess
from datetime import datetime, timezone
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
# the sources a measured number depends on, relative to the package
FINGERPRINTED = ("kernels", "solvers", "specs.py", "models.py", "algorithms.py", "protocols.py",
                 "tuning.py", "referee.py", "optimum.py", "statuses.py", "data/preprocessing.py",
                 "data/validation.py")
# the checkout's folder of sweep outputs, left out of the dirty flag
OUTPUTS = "results"


@functools.cache
def static_provenance():
    import llvmlite.binding
    import numba
    import numpy
    import sklearn

    import svmbench

    commit, dirty = git_state()
    return {
        "svmbench_version": svmbench.__version__,
        "git_commit": commit,
        "git_dirty": dirty,
        "python_version": platform.python_version(),
        "numpy_version": numpy.__version__,
        "numba_version": numba.__version__,
        "sklearn_version": sklearn.__version__,
        "host": socket.gethostname(),
        "cpu": cpu_model(),
        # the CPU numba compiles for (its code, and numpy's loops, differ from one target to another)
        "cpu_target": llvmlite.binding.get_host_cpu_name(),
        "n_cpus": os.cpu_count(),
    }


def provenance():
    return {**static_provenance(), **slurm_job(),
            "timestamp_utc": datetime.now(timezone.utc).isoformat()}


def slurm_job():
    """Inside a SLURM job: ``slurm_job_id`` (the array's id for an array task, so
    ``<slurm_job_id>_<slurm_array_task_id>`` is what squeue and scancel take) and
    ``slurm_array_task_id`` (None outside an array); nothing outside SLURM."""
    if "SLURM_JOB_ID" not in os.environ:
        return {}
    task = os.environ.get("SLURM_ARRAY_TASK_ID")
    return {"slurm_job_id": os.environ.get("SLURM_ARRAY_JOB_ID", os.environ["SLURM_JOB_ID"]),
            "slurm_array_task_id": None if task is None else int(task)}


def git_state(checkout=PACKAGE):
    """(commit, dirty): the checkout's commit and whether tracked files outside ``results/`` have
    changes; ('unknown', None) outside git. ``results/`` holds what sweeps write (committed
    stores, tables): a re-run moves its old records to ``superseded/``, which must not mark the
    records it writes next as measured from a dirty tree."""
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=checkout, capture_output=True,
                                text=True, check=True).stdout.strip()
        changes = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--",
                                  ":(top)", f":(top,exclude){OUTPUTS}"],
                                 cwd=checkout, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown", None
    return commit, bool(changes.strip())


def git_commit():
    """The checkout's commit, with ``+dirty`` when the working tree has changes."""
    commit, dirty = git_state()
    return commit + ("+dirty" if dirty else "")


@functools.cache
def code_fingerprint():
    """Short sha256 over the path and bytes of every fingerprinted source file."""
    digest = hashlib.sha256()
    for entry in FINGERPRINTED:
        root = PACKAGE / entry
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
        for path in files:
            digest.update(str(path.relative_to(PACKAGE)).encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def config_hash(config):
    """Stable short hash of a resolved configuration (a plain dict)."""
    text = json.dumps(config, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
