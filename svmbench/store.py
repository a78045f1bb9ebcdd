"""The result store: one JSON file per run record, append-only and safe with many writers.

Layout: ``<dir>/<config_hash>/fold-<k>.json``. A record is written to a temporary name in the same
folder and renamed into place, so a reader never sees half a record and a killed run leaves at
most a stray temporary file (``.tmp-*.json``), which readers ignore: only ``fold-*.json`` are
records.

- Reuse: a finished record (``converged`` or ``max_iter``) is reused only when its
  ``code_fingerprint`` matches the running code's; ``reuse="any"`` (``store.reuse=any``) reuses it
  whatever code produced it; ``reuse="none"`` (``store.reuse=none``) reuses nothing: every cell
  runs again, e.g. a clean re-run of an artefact on code of the same fingerprint (a stopped
  re-run resumes with the default policy); ``reuse="commit"`` (``store.reuse=commit``) reuses only
  records of the running commit measured from a clean tree, and refuses a dirty one: a re-run
  of record from one clean commit that resumes where it stopped (``make record``). A finished record a re-run replaces is moved to
  ``superseded/``, never deleted (the committed stores keep no ``superseded/``: git ignores it,
  git history keeps the records; svmbench.stores). A ``failed:<reason>`` record is replaced when
  the cell is re-run.
- Corrupt records (not JSON, not a record) are named in the log and moved to ``quarantine/``;
  they never block a cell, which simply runs again.
- Tuned points: ``tuned/<key>.json``, a grid search's outcome shared by the cells that would run
  the same search (svmbench.tuned_points); not records.
- Claims: a sweep trains a cell only while it holds the cell's claim file
  (``<config_hash>/.claim``, created with O_EXCL, holding pid, host and time), so two sweeps on one
  store never train the same cell twice. A claim is stale when its process is gone (same host) or
  it is older than the lease (``store.lease_hours``); a stale claim is taken over.
"""

import json
import logging
import os
import socket
import tempfile
import time
from pathlib import Path

import pandas as pd

from svmbench.provenance import git_state
from svmbench.status import FINISHED

REUSE_POLICIES = ("fingerprint", "commit", "any", "none")
RECORD_KEYS = ("config_hash", "fold", "status")
QUARANTINE = "quarantine"
SUPERSEDED = "superseded"
TUNED = "tuned"  # tuned points shared by cells (svmbench.tuned_points): no cell's folder
UNREADABLE_CLAIM_SECONDS = 60.0
log = logging.getLogger("svmbench.store")


class StoreError(RuntimeError):
    """The store cannot be used (not writable, unknown reuse policy)."""


class ResultStore:
    records_written = 0  # by this process, every store (what an interrupted run says it kept)

    def __init__(self, directory, reuse="fingerprint", lease_hours=48.0):
        if reuse not in REUSE_POLICIES:
            raise StoreError(f"store.reuse={reuse!r} is not a reuse policy; choose one of "
                             f"{list(REUSE_POLICIES)}")
        self.directory = Path(directory)
        self.reuse = reuse
        self.lease_seconds = lease_hours * 3600.0
        self.commit = self._clean_commit() if reuse == "commit" else None

    @staticmethod
    def _clean_commit():
        """The running commit, for ``reuse="commit"``, which records of a dirty tree cannot
        serve."""
        commit, dirty = git_state()
        if dirty is not False:
            raise StoreError("store.reuse=commit keeps only records of one clean commit, and the "
                             "checkout has uncommitted changes (or is no git checkout); commit or "
                             "stash them, or choose another store.reuse")
        return commit

    def path(self, config_hash, fold):
        return self.directory / config_hash / f"fold-{fold}.json"

    def read(self, config_hash, fold):
        return self._load(self.path(config_hash, fold))

    def _load(self, path):
        """The record at ``path``; None when absent or corrupt (a corrupt one is quarantined)."""
        try:
            text = path.read_text()
        except FileNotFoundError:
            return None
        try:
            record = json.loads(text)
            missing = [key for key in RECORD_KEYS if key not in record]
        except (json.JSONDecodeError, TypeError) as error:
            self.quarantine(path, f"not a JSON record ({error})")
            return None
        if missing:
            self.quarantine(path, f"not a run record (no {', '.join(missing)})")
            return None
        return record

    def quarantine(self, path, reason):
        target = self.directory / QUARANTINE / path.relative_to(self.directory)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.replace(path, target)
        except FileNotFoundError:  # another reader moved it first
            return
        log.warning("corrupt record %s: %s; moved to %s, its cell runs again", path, reason, target)

    def reusable(self, record, fingerprint):
        """Whether ``record`` stands for the running code (``fingerprint``) under this policy."""
        if record is None or record.get("status") not in FINISHED or self.reuse == "none":
            return False
        if self.reuse == "any":
            return True
        same_code = record.get("code_fingerprint") == fingerprint
        if self.reuse == "commit":
            return (same_code and record.get("git_commit") == self.commit
                    and record.get("git_dirty") is False)
        return same_code

    def has_finished(self, config_hash, fold, fingerprint):
        return self.reusable(self.read(config_hash, fold), fingerprint)

    def write(self, record):
        """Store one record under its ``config_hash`` and ``fold``; never overwrite a reusable
        one; a finished record it replaces is moved to ``superseded/`` first."""
        config_hash, fold = record["config_hash"], record["fold"]
        existing = self.read(config_hash, fold)
        if self.reusable(existing, record.get("code_fingerprint")):
            return False
        target = self.path(config_hash, fold)
        if existing is not None and existing.get("status") in FINISHED:
            self._supersede(target, existing)
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(handle, "w") as stream:
                json.dump(record, stream, indent=1, sort_keys=True, default=_jsonable)
                stream.flush()
                os.fsync(stream.fileno())  # on disk before the rename: a crash leaves no empty record
            os.replace(temporary, target)
        except BaseException:  # a record that cannot be stored leaves no temporary file behind
            Path(temporary).unlink(missing_ok=True)
            raise
        ResultStore.records_written += 1
        return True

    def _supersede(self, path, record):
        fingerprint = record.get("code_fingerprint") or "unfingerprinted"
        target = (self.directory / SUPERSEDED / path.parent.name
                  / f"{path.stem}-{fingerprint}-{int(time.time())}.json")
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, target)

    def remove_failed(self, config_hash, fold):
        """Drop a ``failed:`` record (e.g. a cell that could not start and now can); a finished
        record is never removed."""
        record = self.read(config_hash, fold)
        if record is not None and record.get("status") not in FINISHED:
            self.path(config_hash, fold).unlink(missing_ok=True)

    def cells(self):
        """The config hashes of the cells with a folder here (not superseded/ or quarantine/)."""
        return {path.name for path in self.directory.iterdir()
                if path.is_dir() and path.name not in (SUPERSEDED, QUARANTINE, TUNED)}

    def records(self):
        for path in sorted(self.directory.glob("*/fold-*.json")):
            record = self._load(path)
            if record is not None:
                yield record

    def check_writable(self):
        """Fail before any training when records could not be stored."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            handle, probe = tempfile.mkstemp(dir=self.directory, prefix=".tmp-probe-")
            os.close(handle)
            os.unlink(probe)
        except OSError as error:
            raise StoreError(f"store.dir={self.directory} is not writable ({error}); choose a "
                             "writable folder with store.dir=PATH") from None

    def claim(self, config_hash):
        """A :class:`CellClaim` for the cell, or None while another live process holds it."""
        path = self.directory / config_hash / ".claim"
        path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(2):
            try:
                handle = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                if not self._stale(path):
                    return None
                log.warning("taking over the stale claim %s (%s)", path, _read_claim(path))
                path.unlink(missing_ok=True)
                continue
            claimant = {"pid": os.getpid(), "host": socket.gethostname(), "time": time.time()}
            with os.fdopen(handle, "w") as stream:
                json.dump(claimant, stream)
            return CellClaim(path, claimant)
        return None

    def _stale(self, path):
        holder = _read_claim(path)
        if holder is None:  # being written right now, or left half-written by a killed process
            try:
                return time.time() - path.stat().st_mtime > UNREADABLE_CLAIM_SECONDS
            except FileNotFoundError:
                return True
        expired = time.time() - holder.get("time", 0) > self.lease_seconds  # e.g. a reused pid
        if holder.get("host") == socket.gethostname():
            return expired or not _alive(holder.get("pid"))
        return expired


class CellClaim:
    """Held while a process trains a cell; released (its file removed) on exit."""

    def __init__(self, path, claimant):
        self.path = path
        self.claimant = claimant

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def release(self):
        if _read_claim(self.path) == self.claimant:  # never remove a claim taken over since
            self.path.unlink(missing_ok=True)


def _read_claim(path):
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None


def _alive(pid):
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, TypeError, ValueError):
        return True
    return True


def _jsonable(value):
    if hasattr(value, "item"):
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"cannot store a value of type {type(value).__name__} in a run record")


def load_results(store_dir):
    """Every record of the store as a DataFrame, one row per (cell, fold)."""
    store = ResultStore(store_dir)
    if not store.directory.exists():
        raise FileNotFoundError(
            f"no result store at {store.directory}; run a sweep first (svmbench store.dir=...)"
        )
    return pd.DataFrame.from_records(list(store.records()))


def export_parquet(store_dir, path):
    """Write the whole store to one parquet file (for bulk analysis)."""
    load_results(store_dir).to_parquet(path, index=False)
