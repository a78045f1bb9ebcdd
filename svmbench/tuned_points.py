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
"""

import json
import os
import tempfile
from pathlib import Path

from svmbench.provenance import config_hash
from svmbench.store import TUNED
from svmbench.tuning import search_settings, tuning_algorithm

WHO_TUNES = ("tune_with", "references")  # protocol keys naming the tuner, not the search


class TunedPoints:
    """The searches stored under ``directory`` (a result store's), for the cells of one context:
    ``{"dataset": config, "seed": ..., "scale": ..., "code": fingerprint}``."""

    def __init__(self, directory, context):
        self.directory = Path(directory) / TUNED
        self.context = context

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
        if stored is not None:
            return stored["params"], {**stored["tuning"], "tuning_key": key,
                                      "tuning_reused": True}
        params, tuning = run()
        write(path, {"params": params, "tuning": tuning})
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
