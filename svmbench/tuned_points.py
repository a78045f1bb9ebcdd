"""Tuned points shared through a result store: a grid search run once for all the cells that would
run the same one (issue 43: the solvers of one dual take its reference solver's tuned point,
``protocol.tune_with: reference``, svmbench.tuning).

A search is named by what it depends on: the data set's config, the seed, the scaling, the outer
fold, the protocol (its split, sample and grid; not who it tunes for), the tuner's settings
(svmbench.tuning.search_settings) and the solver code's fingerprint. The first cell that runs it
writes its outcome, the chosen parameters and the fields describing the search, to
``<store>/tuned/<key>.json`` (a temporary name renamed into place, as records are); a later cell
with the same key reads it instead of searching again, under any launcher that shares the store
(joblib's workers, SLURM's tasks). Every record carries its tuned point and the search's fields
itself, with ``tuning_key`` (the search) and ``tuning_reused`` (false: this cell ran it; true: it
read another cell's), so the tuning time of a run counts each search once. Two cells that miss
at once both search (the same search of the same data) and both say they ran it.

A stored search obeys the store's reuse policy as records do (svmbench.store): under
``store.reuse=commit`` only a search of the running clean commit is read, under
``store.reuse=none`` only one written since this process started (this run's, not an earlier
run's); the file says which commit wrote it.
"""

import json
import os
import tempfile
import time
from pathlib import Path

from svmbench.provenance import config_hash, git_state
from svmbench.store import TUNED
from svmbench.tuning import search_settings, tuning_algorithm

WHO_TUNES = ("tune_with", "references")  # protocol keys naming the tuner, not the search
PROCESS_STARTED = time.time()  # under store.reuse=none a search stored before is not this run's


class TunedPoints:
    """The searches stored under ``directory`` (a result store's), for the cells of one context:
    ``{"dataset": config, "seed": ..., "scale": ..., "code": fingerprint}``."""

    def __init__(self, directory, context, reuse="fingerprint", commit=None):
        self.directory = Path(directory) / TUNED
        self.context = context
        self.reuse, self.commit = reuse, commit  # the store's policy; commit: for "commit"

    def reusable(self, stored, path):
        """Whether a stored search may stand for this run's under the store's reuse policy (the
        code's fingerprint is in its key)."""
        if self.reuse == "commit":
            return stored.get("git_commit") == self.commit and stored.get("git_dirty") is False
        if self.reuse == "none":
            return path.stat().st_mtime >= PROCESS_STARTED
        return True

    def key(self, algorithm, protocol, fold):
        """The name of the search that tunes ``algorithm``'s outer fold ``fold``."""
        return config_hash({
            **self.context, "fold": int(fold),
            "protocol": {k: v for k, v in protocol.items() if k not in WHO_TUNES},
            "search": search_settings(tuning_algorithm(algorithm, protocol), protocol)})

    def search(self, algorithm, protocol, fold, run):
        """(parameters, tuning fields) of the search, read when stored, else ``run()`` and
        stored."""
        key = self.key(algorithm, protocol, fold)
        path = self.directory / f"{key}.json"
        stored = read(path)
        if stored is not None and self.reusable(stored, path):
            return stored["params"], {**stored["tuning"], "tuning_key": key,
                                      "tuning_reused": True}
        params, tuning = run()
        commit, dirty = git_state()
        write(path, {"params": params, "tuning": tuning, "git_commit": commit, "git_dirty": dirty})
        return params, {**tuning, "tuning_key": key, "tuning_reused": False}


def read(path):
    """The stored search, or None (none yet, or unreadable: searched again and rewritten)."""
    try:
        stored = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return stored if isinstance(stored, dict) and {"params", "tuning"} <= stored.keys() else None


def write(path, stored):
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    with os.fdopen(handle, "w") as file:
        json.dump(stored, file, sort_keys=True)
    os.replace(temporary, path)
