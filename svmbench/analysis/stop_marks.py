"""Which rule stopped each table cell: a compact mark per cell and the legend line under the table.

A cell (one algorithm with its settings on one data set, over its folds) is marked by the letter of
the stop its finished records name (read through :func:`svmbench.status.record_status`; a count
after each letter when the folds stopped differently), then ``*`` when KKT does not hold at the
returned point of some fold, followed by the largest gap measured there. Every table of the
project marks its cells with :func:`stop_mark` and explains them with :func:`stop_legend`.
"""

import re
from collections import Counter

from svmbench.status import record_status

LETTERS = {"own_rule": "R", "max_iter": "M", "infeasible": "I", "no_progress": "P",
           "closed_form": "F", None: "?"}
MEANINGS = {"R": "its own stopping rule", "M": "max_iter", "I": "infeasibility proved",
            "P": "no progress", "F": "closed form (no iterations)",
            "?": "not recorded (a record older than the `stop` field)"}
KKT_FAILS = "*"


def stop_mark(records):
    """The mark of one cell from its finished records (a DataFrame or an iterable of dicts):
    e.g. ``R``, ``M* 3.1e-02``, ``R9 M1* 2.0e-03``; '' for no record."""
    rows = records.to_dict("records") if hasattr(records, "to_dict") else list(records)
    read = [record_status(row) for row in rows]
    if not read:
        return ""
    counts = Counter(LETTERS.get(status["stop"], status["stop"]) for status in read)
    mark = (next(iter(counts)) if len(counts) == 1
            else " ".join(f"{letter}{count}" for letter, count in sorted(counts.items())))
    off = [status for status in read if not kkt_holds(status)]
    if off:
        gaps = [status["kkt_violation"] for status in off if status["kkt_violation"] is not None]
        mark += KKT_FAILS + (f" {max(gaps):.1e}" if gaps else "")
    return mark


def kkt_holds(status):
    """Whether KKT holds at the returned point, for a :func:`record_status` reading (an old record
    without ``kkt_holds``: its status says it, "converged" iff KKT holds)."""
    if status["kkt_holds"] is not None:
        return status["kkt_holds"]
    return status["status"] == "converged"


def with_mark(text, mark):
    """A cell's text with its mark in brackets after it (``0.12 [R]``); text alone without one."""
    return f"{text} [{mark}]" if text and mark else text


def stop_legend(marks):
    """The line under a table explaining the marks it shows (``marks``: its cells' marks, '' for
    none), or '' when it shows none."""
    shown = [str(mark) for mark in marks if isinstance(mark, str) and mark]
    if not shown:
        return ""
    letters = {letter for mark in shown
               for letter in re.findall(r"[A-Z?]", mark.split(KKT_FAILS)[0])}
    meanings = ", ".join(f"{letter} = {MEANINGS[letter]}" for letter in MEANINGS if letter in letters)
    line = f"Stop, in brackets after a cell's number (the rule that ended its trainings): {meanings}"
    if any(re.search(r"[A-Z?]\d", mark.split(KKT_FAILS)[0]) for mark in shown):
        line += "; a count after a letter when the folds stopped differently"
    if any(KKT_FAILS in mark for mark in shown):
        line += (f"; {KKT_FAILS} = KKT does not hold at the returned point of some fold (the "
                 "largest gap measured there follows)")
    return line + "."
