"""An artefact's cells and what the store holds for each: run, failed (and why) or not run.

Records are read, never moved or rewritten (the store's own reader quarantines corrupt files;
a report must not change the stores it shows).
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from svmbench.capabilities import UNSUITABLE
from svmbench.status import record_status as status_fields
from svmbench.store import FINISHED

NOT_RUN = "not run"
FAILED = "failed"
RUN = "run"
# a solver that cannot take the data set leaves one record with status UNSUITABLE and
# `unsuitable_reason` (svmbench.capabilities); neither finished nor failed, the cell is not run


def record_status(record):
    """A record's status as svmbench.status reads it (old records' words mapped to today's): the
    one place that reads the field."""
    return str(status_fields(record)["status"] or "not recorded")


@dataclass
class CellView:
    """One cell of an artefact: its command and the records stored for it."""

    number: int
    config_hash: str
    command: str
    records: list = field(default_factory=list)
    unreadable: list = field(default_factory=list)  # record files that are not JSON

    @property
    def outcome(self):
        statuses = [record_status(r) for r in self.records]
        if not statuses or set(statuses) == {UNSUITABLE}:
            return FAILED if self.unreadable else NOT_RUN
        if any(s not in FINISHED for s in statuses) or self.unreadable:
            return FAILED
        return RUN

    @property
    def reason(self):
        """Why the cell did not run or failed; for a run cell, folds that did not converge."""
        if self.unreadable:
            return f"unreadable record(s): {', '.join(self.unreadable)}"
        statuses = [record_status(r) for r in self.records]
        failures = sorted({s for s in statuses if s not in FINISHED})
        if failures == [UNSUITABLE]:
            return "unsuitable: " + "; ".join(sorted({str(r.get("unsuitable_reason", ""))
                                                     for r in self.records}))
        if failures:
            return "; ".join(s.removeprefix("failed:")[:120] for s in failures)
        if not statuses:
            return "no record in the store"
        others = [s for s in statuses if s != "converged"]
        return f"{len(others)} of {len(statuses)} folds {', '.join(sorted(set(others)))}" \
            if others else ""

    def field(self, name):
        """The distinct values of a record field over the cell's folds, as text."""
        values = sorted({str(r[name]) for r in self.records if r.get(name) is not None})
        return ", ".join(values)


def cell_views(cells, store_dir, artefact, scale):
    """A :class:`CellView` per cell (``svmbench.sweep.Cell``), in sweep order."""
    views = []
    for number, cell in enumerate(cells, start=1):
        view = CellView(number, cell.config_hash, cell.command(artefact, scale))
        for path in sorted(Path(store_dir, cell.config_hash).glob("fold-*.json")):
            try:
                view.records.append(json.loads(path.read_text()))
            except (OSError, ValueError):
                view.unreadable.append(path.name)
        views.append(view)
    return views
