"""Helpers the renderers share: a cell's outcome, measured means and stop marks per row, notes,
text columns, the closing sources and cells, a frame as Markdown. Statuses are read through
svmbench.status.record_status (old records included)."""

from dataclasses import replace

import pandas as pd

from svmbench.analysis.sources import sources
from svmbench.analysis.stop_marks import stop_mark
from svmbench.analysis.tables import Table
from svmbench.status import FINISHED, statuses

# where a rendered table's wall-clock times come from (the load a sweep ran under is logged per
# run by svmbench.walltime, not in the records)
WALL_TIMES = ("wall-clock times of the machine the records name; the load each sweep ran under "
              "is in results/wall_times.csv")


def cell_outcome(records, dataset, algorithm):
    """('ok', finished records) or ('failed', reason) or ('missing', None) for one cell."""
    if records.empty:
        return "missing", None
    runs = records[(records["dataset"] == dataset) & (records["algorithm"] == algorithm)]
    status = statuses(runs)
    done = runs[status.isin(FINISHED)]
    if len(done):
        return "ok", done
    if len(runs):
        return "failed", status.iloc[-1]
    return "missing", None


def convergence_note(found):
    """'k of n folds <status>' for finished records that did not converge (stalled, infeasible,
    max_iter, own_rule, closed_form: their numbers are means over points where KKT does not hold),
    '' when all converged."""
    status = statuses(found)
    counts = status[status != "converged"].value_counts()
    return ", ".join(f"{count} of {len(found)} folds {status}"
                     for status, count in sorted(counts.items()))


def measured(records, rows, algorithm, metrics, match=None):
    """Mean measured values: rows x metric labels, a note per row whose cell failed or has no
    record yet, and the stop mark of each row's cell (svmbench.analysis.stop_marks).

    ``rows`` maps row labels to datasets; ``metrics`` maps column labels to (record field,
    unit factor); ``match`` optionally narrows the records (e.g. ``{"C": 4}``).
    """
    if match and not records.empty:
        for field, value in match.items():
            records = records[records[field] == value] if field in records else records.iloc[:0]
    values = pd.DataFrame(index=pd.Index(list(rows), name="Problem"), columns=list(metrics),
                          dtype=float)
    notes, marks = {}, {}
    for label, dataset in rows.items():
        outcome, found = cell_outcome(records, dataset, algorithm)
        if outcome == "ok":
            marks[label] = stop_mark(found)
            if convergence_note(found):
                notes[label] = "not converged: " + convergence_note(found)
            for column, (field, unit) in metrics.items():  # a field older records lack: blank
                if field in found:
                    values.loc[label, column] = found[field].astype(float).mean() * unit
        else:
            notes[label] = not_run_note(found)
    return values, notes, marks


def marked(values, marks):
    """A Table of ``values`` (rows: cells of one algorithm) whose first column carries each row's
    stop mark (``marks``: row label -> mark, as :func:`measured` gives)."""
    frame = pd.DataFrame("", index=values.index, columns=values.columns, dtype=object)
    frame.iloc[:, 0] = pd.Series(marks, dtype=object).reindex(values.index).fillna("")
    return Table(values, marks=frame)


def not_run_note(reason):
    """The note a table row gets when its cell failed (``reason``: its status) or has no record."""
    if reason is None:
        return "not run yet"
    if "DataError" in reason:
        return "failed when run: data missing then; re-run the cell"
    return f"failed: {reason.removeprefix('failed:')[:80]}"


def with_text_column(table, name, texts):
    """Append a text column (e.g. notes) to a Table, keeping values, spread, bold and marks
    aligned."""
    values = table.values.copy()
    key = name if values.columns.nlevels == 1 else (name,) + ("",) * (values.columns.nlevels - 1)
    values[key] = pd.Series(texts, dtype=object).reindex(values.index).fillna("")
    spread = None if table.spread is None else table.spread.reindex(columns=values.columns)
    bold = None if table.bold is None else \
        table.bold.reindex(columns=values.columns).fillna(False).astype(bool)
    marks = None if table.marks is None else \
        table.marks.reindex(columns=values.columns).fillna("")
    return replace(table, values=values, spread=spread, bold=bold, marks=marks)


def sources_and_cells(records, artefact):
    """A table's closing paragraphs: what its records came from and the command of every cell."""
    return [sources(records), "Cells (each re-runs from the shell):\n\n" + artefact.commands()]


def markdown(frame):
    """A DataFrame as a Markdown table (index included), NaN as an empty cell."""
    header = [frame.index.name or ""] + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for label, row in frame.iterrows():
        cells = ["" if pd.isna(v) else str(v) for v in row]
        lines.append("| " + " | ".join([str(label)] + cells) + " |")
    return "\n".join(lines)
