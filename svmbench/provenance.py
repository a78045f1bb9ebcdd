"""Where a record came from: code version, library versions, machine and time."""

import functools
import hashlib
import json
import os
import platform
import socket
import subprocess
from datetime import datetime, timezone
from pathlib import Path


@functools.cache
def static_provenance():
    import numba
    import numpy
    import sklearn

    import svmbench

    return {
        "svmbench_version": svmbench.__version__,
        "git_commit": git_commit(),
        "python_version": platform.python_version(),
        "numpy_version": numpy.__version__,
        "numba_version": numba.__version__,
        "sklearn_version": sklearn.__version__,
        "host": socket.gethostname(),
        "cpu": cpu_model(),
        "n_cpus": os.cpu_count(),
    }


def provenance():
    return {**static_provenance(), "timestamp_utc": datetime.now(timezone.utc).isoformat()}


def git_commit():
    """The checkout's commit, with ``+dirty`` when the working tree has changes; 'unknown' outside git."""
    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


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
