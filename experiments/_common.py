"""Helpers the renderers share: a cell's outcome, measured means per row, notes, text columns,
the closing sources and cells."""

import pandas as pd

from svmbench.analysis.tables import Table
from svmbench.render import sources
from svmbench.store import FINISHED


def cell_outcome(records, dataset, algorithm):
    """('ok', finished records) or ('failed', reason) or ('missing', None) for one cell."""
    if records.empty:
        return "missing", None
    runs = records[(records["dataset"] == dataset) & (records["algorithm"] == algorithm)]
    done = runs[runs["status"].isin(FINISHED)]
    if len(done):
        return "ok", done
    if len(runs):
        return "failed", runs["status"].iloc[-1]
    return "missing", None


def convergence_note(found):
    """'k of n folds <status>' for finished records that did not converge (stalled, infeasible,
    max_iter: their numbers are means over points that are not optima), '' when all converged."""
    statuses = found["status"]
    counts = statuses[statuses != "converged"].value_counts()
    return ", ".join(f"{count} of {len(found)} folds {status}"
                     for status, count in sorted(counts.items()))


def measured(records, rows, algorithm, metrics, match=None):
    """Mean measured values: rows x metric labels, plus a note per row whose cell failed or has
    no record yet.

    ``rows`` maps row labels to datasets; ``metrics`` maps column labels to (record field,
    unit factor); ``match`` optionally narrows the records (e.g. ``{"C": 4}``).
    """
    if match and not records.empty:
        for field, value in match.items():
            records = records[records[field] == value] if field in records else records.iloc[:0]
    values = pd.DataFrame(index=pd.Index(list(rows), name="Problem"), columns=list(metrics),
                          dtype=float)
    notes = {}
    for label, dataset in rows.items():
        outcome, found = cell_outcome(records, dataset, algorithm)
        if outcome == "ok":
            if convergence_note(found):
                notes[label] = "not converged: " + convergence_note(found)
            for column, (field, unit) in metrics.items():  # a field older records lack: blank
                if field in found:
                    values.loc[label, column] = found[field].astype(float).mean() * unit
        else:
            notes[label] = not_run_note(found)
    return values, notes


def not_run_note(reason):
    """The note a table row gets when its cell failed (``reason``: its status) or has no record."""
    if reason is None:
        return "not run yet"
    if "DataError" in reason:
        return "failed when run: data missing then; re-run the cell"
    return f"failed: {reason.removeprefix('failed:')[:80]}"


def with_text_column(table, name, texts):
    """Append a text column (e.g. notes) to a Table, keeping values, spread and bold aligned."""
    values = table.values.copy()
    key = name if values.columns.nlevels == 1 else (name,) + ("",) * (values.columns.nlevels - 1)
    values[key] = pd.Series(texts, dtype=object).reindex(values.index).fillna("")
    spread = None if table.spread is None else table.spread.reindex(columns=values.columns)
    bold = None if table.bold is None else \
        table.bold.reindex(columns=values.columns).fillna(False).astype(bool)
    return Table(values, spread, bold, table.caption, table.footer, table.formats,
                 table.default_format, table.bold_meaning)


def sources_and_cells(records, artefact):
    """A table's closing paragraphs: what its records came from and the command of every cell."""
    return [sources(records), "Cells (each re-runs from the shell):\n\n" + artefact.commands()]
