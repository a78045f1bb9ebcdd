"""Paper-style tables from run records: mean ± std per cell, bold best-and-equivalent cells,
the paper's value beside ours, and Markdown / LaTeX (booktabs) / CSV output.

Typical use::

    table = mean_std_table(records, "test_error", scale=100)          # rows=datasets
    table = side_by_side(table, load_reference("gs2008_table7")[...])  # ours | paper | diff
    Path("t.md").write_text(to_markdown(table) + "\\n\\n" + sources(records))  # analysis.sources

A :class:`Table` holds numbers only (``values``; optional ``spread`` shown as ± and a
``bold`` mask; optional ``marks``: which rule stopped each cell, svmbench.analysis.stop_marks);
rendering never changes them, so ``read_csv(to_csv(t))`` gives ``t`` back.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from svmbench.analysis.stats import TestResult, paired_t_test
from svmbench.analysis.stop_marks import stop_legend, stop_mark, with_mark

FAILED_PREFIX = "failed"
PARTS = ("value", "spread", "bold", "marks")


@dataclass(frozen=True, eq=False)
class Table:
    """Numbers of a table plus how to print them.

    ``values``: rows x columns (columns may be a MultiIndex, e.g. (algorithm, ours/paper/diff)).
    ``spread``: same shape, printed as ``value ± spread`` (NaN = not printed).
    ``bold``: same shape, True where the cell is set in bold; ``bold_meaning`` says why (printed
    below the table; a table with bold cells and no meaning is not rendered).
    ``marks``: same shape, text: which rule stopped each cell (svmbench.analysis.stop_marks;
    '' = none), printed in brackets after the number, explained in a legend line below the table.
    ``formats``: format spec per top-level column label (e.g. ``{"Time": "{:.3g}"}``);
    other columns use ``default_format``. Missing values print as an empty cell; text cells
    print as they are.
    """

    values: pd.DataFrame
    spread: pd.DataFrame | None = None
    bold: pd.DataFrame | None = None
    caption: str = ""
    footer: str = ""
    formats: Mapping[str, str] = field(default_factory=dict)
    default_format: str = "{:.2f}"
    bold_meaning: str = ""
    marks: pd.DataFrame | None = None

    def __post_init__(self):
        for name in ("spread", "bold", "marks"):
            part = getattr(self, name)
            if part is not None and part.shape != self.values.shape:
                raise ValueError(f"Table.{name} has shape {part.shape} but values have "
                                 f"{self.values.shape}; build both from the same pivot")


def mean_std_table(records: pd.DataFrame, metric: str | Sequence[str], rows: str = "dataset",
                   columns: str = "algorithm", scale: float = 1.0,
                   lower_is_better: bool | Mapping[str, bool] = True,
                   test: Callable[..., TestResult] | None = paired_t_test, alpha: float = 0.05,
                   pair_on: Sequence[str] = ("fold",), caption: str = "",
                   number_format: str = "{:.2f}") -> Table:
    """Mean ± std of ``metric`` over folds per (row, column) cell; failed runs are dropped.

    Bold (the papers' convention): in every row the best mean and every cell whose runs are
    not significantly different from the best cell's (two-sided ``test`` over runs paired on
    ``pair_on``, p >= ``alpha``; NaN p — identical runs — counts as not different). With
    fewer than 2 paired runs only cells equal to the best are bold. ``test=None``: no bold.
    Several metrics give columns (column value, metric); bold is decided per metric.
    Records with a ``status`` mark each cell with the rule that stopped it (on the first
    metric's column): :func:`svmbench.analysis.stop_marks.stop_mark`.
    """
    metrics = [metric] if isinstance(metric, str) else list(metric)
    usable = usable_records(records, [rows, columns, *metrics])
    grouped = usable.groupby([rows, columns], sort=False)[metrics]
    means, stds = (grouped.mean() * scale), (grouped.std(ddof=1) * scale)
    values = _pivot(means, rows, columns, metrics)
    spread = _pivot(stds, rows, columns, metrics).reindex_like(values)
    bold = None
    if test is not None:
        bold = pd.DataFrame(False, index=values.index, columns=values.columns)
        for name in metrics:
            lower = lower_is_better[name] if isinstance(lower_is_better, Mapping) \
                else lower_is_better
            marks = significance_bold(usable, name, rows, columns, lower, test, alpha, pair_on)
            for label in marks.columns:
                key = label if len(metrics) == 1 else (label, name)
                bold[key] = marks[label].reindex(values.index).fillna(False).astype(bool)
    meaning = ""
    if test is not None:
        meaning = (f"the best mean of its row and every cell not significantly different from it "
                   f"(two-sided {test.__name__.replace('_', ' ')} over runs paired on "
                   f"{', '.join(pair_on)}, p >= {alpha:g}; with fewer than 2 paired runs, cells "
                   f"equal to the best)")
    return Table(values, spread, bold, caption=caption, default_format=number_format,
                 bold_meaning=meaning, marks=cell_marks(usable, values, rows, columns, metrics))


def cell_marks(records: pd.DataFrame, values: pd.DataFrame, rows: str, columns: str,
               metrics: list[str]) -> pd.DataFrame | None:
    """The stop mark of every (row, column) cell of ``values`` on its first metric's column
    ('' elsewhere), or None when the records carry no ``status``."""
    if "status" not in records:
        return None
    marks = pd.DataFrame("", index=values.index, columns=values.columns, dtype=object)
    for (row, column), cell in records.groupby([rows, columns], sort=False):
        key = column if len(metrics) == 1 else (column, metrics[0])
        if key in marks.columns and row in marks.index:
            marks.loc[row, key] = stop_mark(cell)
    return marks


def significance_bold(records: pd.DataFrame, metric: str, rows: str = "dataset",
                      columns: str = "algorithm", lower_is_better: bool = True,
                      test: Callable[..., TestResult] = paired_t_test, alpha: float = 0.05,
                      pair_on: Sequence[str] = ("fold",)) -> pd.DataFrame:
    """Boolean rows x columns mask: the best cell and those not significantly worse."""
    usable = usable_records(records, [rows, columns, metric, *pair_on])
    means = usable.groupby([rows, columns], sort=False)[metric].mean().unstack(columns)
    marks = pd.DataFrame(False, index=means.index, columns=means.columns)
    for row, row_means in means.iterrows():
        present = row_means.dropna()
        if present.empty:
            continue
        best = present.idxmin() if lower_is_better else present.idxmax()
        runs = usable[usable[rows] == row].pivot_table(index=list(pair_on), columns=columns,
                                                       values=metric, aggfunc="mean")
        for label in present.index:
            marks.loc[row, label] = _equivalent_to_best(runs, best, label, present, test, alpha)
    return marks


def side_by_side(ours: Table | pd.DataFrame, paper: pd.DataFrame, compare: str = "difference",
                 labels: tuple[str, str] = ("ours", "paper"), caption: str = "") -> Table:
    """Interleave our numbers with the paper's: columns (column, ours | paper | diff|ratio).

    ``ours`` and ``paper`` share row labels (e.g. dataset) and column labels; rows or
    columns present in only one of them are kept with blanks. ``compare`` is
    ``"difference"`` (ours - paper) or ``"ratio"`` (ours / paper). Our spread and bold
    marks stay on our sub-column.
    """
    if compare not in ("difference", "ratio"):
        raise ValueError(f"compare={compare!r}: choose 'difference' or 'ratio'")
    table = ours if isinstance(ours, Table) else Table(ours)
    ours_values = table.values
    paper = paper.apply(pd.to_numeric, errors="coerce")
    missing = [c for c in ours_values.columns if c not in paper.columns]
    if len(missing) == len(ours_values.columns):
        raise ValueError(f"no column of ours {list(ours_values.columns)} is in the paper's "
                         f"{list(paper.columns)}; rename one side so the labels match")
    index = ours_values.index.append(paper.index.difference(ours_values.index, sort=False))
    ours_aligned = ours_values.reindex(index)
    paper_aligned = paper.reindex(index=index, columns=ours_values.columns)
    third = "diff" if compare == "difference" else "ratio"
    derived = ours_aligned - paper_aligned if compare == "difference" \
        else ours_aligned / paper_aligned.replace(0, np.nan)
    parts = {labels[0]: ours_aligned, labels[1]: paper_aligned, third: derived}
    values = _interleave(parts, ours_values.columns)
    spread = bold = marks = None
    if table.marks is not None:
        blank = {name: pd.DataFrame("", index=index, columns=ours_values.columns, dtype=object)
                 for name in parts}
        marks = _interleave({**blank, labels[0]: table.marks.reindex(index).fillna("")},
                            ours_values.columns)
    if table.spread is not None:
        blank = {name: pd.DataFrame(np.nan, index=index, columns=ours_values.columns)
                 for name in parts}
        spread = _interleave({**blank, labels[0]: table.spread.reindex(index)},
                             ours_values.columns)
    if table.bold is not None:
        none = {name: pd.DataFrame(False, index=index, columns=ours_values.columns)
                for name in parts}
        ours_bold = table.bold.reindex(index).fillna(False).astype(bool)
        bold = _interleave({**none, labels[0]: ours_bold}, ours_values.columns)
    return replace(table, values=values, spread=spread, bold=bold, marks=marks,
                   caption=caption or table.caption)


def to_markdown(table: Table) -> str:
    """GitHub Markdown table; bold cells as ``**x**``; caption above, footer below."""
    header = [_label(table.values.index.name or "")] + [_label(c) for c in table.values.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row_label, cells in zip(table.values.index, _formatted(table, "**{}**", " ± ")):
        lines.append("| " + " | ".join([str(row_label), *cells]) + " |")
    text = "\n".join(lines)
    if table.caption:
        text = f"{table.caption}\n\n{text}"
    for legend in (bold_legend(table), marks_legend(table)):
        if legend:
            text = f"{text}\n\n{legend}"
    if table.footer:
        text = f"{text}\n\n{table.footer}"
    return text


def bold_legend(table: Table) -> str:
    """"Bold: <meaning>." when the table has bold cells, else ""; bold cells with no meaning are
    an error (a reader cannot tell what bold marks)."""
    if table.bold is None or not table.bold.to_numpy().any():
        return ""
    if not table.bold_meaning:
        raise ValueError("this table sets cells in bold but does not say why: give "
                         "Table(bold_meaning=...) (mean_std_table does)")
    return f"Bold: {table.bold_meaning}."


def marks_legend(table: Table) -> str:
    """The legend line of the stop marks the table shows, '' when it shows none."""
    return "" if table.marks is None else stop_legend(table.marks.to_numpy().ravel())


def to_latex(table: Table) -> str:
    """booktabs ``tabular`` in a ``table`` float; MultiIndex columns get grouped headers."""
    columns = table.values.columns
    n = len(columns)
    lines = [r"\begin{table}[t]", r"\centering"]
    if table.caption:
        lines.append(rf"\caption{{{_latex_escape(table.caption)}}}")
    lines += [rf"\begin{{tabular}}{{l{'r' * n}}}", r"\toprule"]
    if isinstance(columns, pd.MultiIndex):
        groups, rules, start = [], [], 2
        for top, width in _runs([c[0] for c in columns]):
            groups.append(rf"\multicolumn{{{width}}}{{c}}{{{_latex_escape(str(top))}}}")
            rules.append(rf"\cmidrule(lr){{{start}-{start + width - 1}}}")
            start += width
        lines.append(" & ".join(["", *groups]) + r" \\")
        lines.append(" ".join(rules))
        subs = [_latex_escape(" ".join(str(level) for level in c[1:])) for c in columns]
    else:
        subs = [_latex_escape(str(c)) for c in columns]
    lines.append(" & ".join([_latex_escape(str(table.values.index.name or "")), *subs]) + r" \\")
    lines.append(r"\midrule")
    for row_label, cells in zip(table.values.index, _formatted(table, r"\textbf{{{}}}",
                                                               r" $\pm$ ")):
        lines.append(" & ".join([_latex_escape(str(row_label)), *cells]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    for note in filter(None, [bold_legend(table), marks_legend(table), table.footer]):
        lines.append(rf"\par\smallskip\footnotesize {_latex_escape(note)}")
    lines.append(r"\end{table}")
    return "\n".join(lines)


def to_csv(table: Table, path: str | Path) -> Path:
    """Write the table's numbers (value, spread, bold) with its caption/footer/formats as
    leading ``#`` lines; :func:`read_csv` reads it back unchanged."""
    path = Path(path)
    parts = {"value": table.values}
    if table.spread is not None:
        parts["spread"] = table.spread
    if table.bold is not None:
        parts["bold"] = table.bold
    if table.marks is not None:
        parts["marks"] = table.marks
    combined = pd.concat(parts, axis=1, names=["part"])
    meta = {"caption": table.caption, "footer": table.footer, "formats": dict(table.formats),
            "default_format": table.default_format, "bold_meaning": table.bold_meaning,
            "header_rows": combined.columns.nlevels,
            "column_names": list(table.values.columns.names)}
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        handle.write(f"# svmbench-table {json.dumps(meta)}\n")
        combined.to_csv(handle)
    return path


def read_csv(path: str | Path) -> Table:
    """Read a table written by :func:`to_csv`."""
    path = Path(path)
    first, _, body = path.read_text().partition("\n")
    marker = "# svmbench-table "
    if not first.startswith(marker):
        raise ValueError(f"{path} was not written by svmbench.analysis.tables.to_csv (first "
                         f"line should start with {marker!r}); read it with pandas.read_csv")
    meta = json.loads(first[len(marker):])
    combined = pd.read_csv(io.StringIO(body), header=list(range(meta["header_rows"])),
                           index_col=0)
    parts = {}
    for part in PARTS:
        if part in combined.columns.get_level_values(0):
            frame = combined[part]
            if isinstance(frame.columns, pd.MultiIndex) or len(meta["column_names"]) > 1:
                frame.columns = pd.MultiIndex.from_tuples(frame.columns,
                                                          names=meta["column_names"])
            else:
                frame.columns = pd.Index(frame.columns, name=meta["column_names"][0])
            if part == "bold":
                frame = frame.astype(bool)
            elif part == "marks":
                frame = frame.astype(object).where(frame.notna(), "")
            else:
                frame = frame.astype(float)
            parts[part] = frame
    return Table(parts["value"], parts.get("spread"), parts.get("bold"), marks=parts.get("marks"),
                 caption=meta["caption"], footer=meta["footer"], formats=meta["formats"],
                 default_format=meta["default_format"],
                 bold_meaning=meta.get("bold_meaning", ""))


def usable_records(records: pd.DataFrame, required: Sequence[str]) -> pd.DataFrame:
    """Records that have the ``required`` columns, without failed runs; errors name the fix."""
    missing = [c for c in required if c not in records.columns]
    if missing:
        raise ValueError(f"records lack column(s) {missing}; available: {list(records.columns)}")
    if "status" in records:
        records = records[~records["status"].astype(str).str.startswith(FAILED_PREFIX)]
    if records.empty:
        raise ValueError("no usable records (all missing or failed); run the sweep first")
    return records


def _pivot(stats: pd.DataFrame, rows: str, columns: str, metrics: list[str]) -> pd.DataFrame:
    wide = stats.unstack(columns)  # columns: (metric, column value)
    if len(metrics) == 1:
        return wide[metrics[0]]
    return wide.swaplevel(axis=1).sort_index(axis=1, level=0, sort_remaining=False)


def _equivalent_to_best(runs: pd.DataFrame, best, label, means: pd.Series,
                        test: Callable[..., TestResult], alpha: float) -> bool:
    if label == best or means[label] == means[best]:
        return True
    pairs = runs[[best, label]].dropna()
    if len(pairs) < 2:
        return False
    pvalue = test(pairs[best].to_numpy(), pairs[label].to_numpy(), alternative="two-sided").pvalue
    return bool(np.isnan(pvalue) or pvalue >= alpha)


def _interleave(parts: Mapping[str, pd.DataFrame], columns: pd.Index) -> pd.DataFrame:
    frames, keys = [], []
    for column in columns:
        for name, frame in parts.items():
            frames.append(frame[column])
            keys.append((*column, name) if isinstance(column, tuple) else (column, name))
    result = pd.concat(frames, axis=1)
    names = [*(columns.names if isinstance(columns, pd.MultiIndex) else [columns.name]), "source"]
    result.columns = pd.MultiIndex.from_tuples(keys, names=names)
    return result


def _formatted(table: Table, bold_template: str, plus_minus: str) -> list[list[str]]:
    rows = []
    for i in range(table.values.shape[0]):
        cells = []
        for j, column in enumerate(table.values.columns):
            top = column[0] if isinstance(column, tuple) else column
            spec = table.formats.get(str(top), table.default_format)
            text = _format_number(table.values.iat[i, j], spec)
            if table.spread is not None and text and pd.notna(table.spread.iat[i, j]):
                text += plus_minus + _format_number(table.spread.iat[i, j], spec)
            if table.bold is not None and text and bool(table.bold.iat[i, j]):
                text = bold_template.format(text)
            if table.marks is not None:
                text = with_mark(text, table.marks.iat[i, j])
            cells.append(text)
        rows.append(cells)
    return rows


def _format_number(value, spec: str) -> str:
    if isinstance(value, str):
        return value
    if value is None or pd.isna(value):
        return ""
    return spec.format(value)


def _label(column) -> str:
    return " ".join(str(level) for level in column) if isinstance(column, tuple) else str(column)


def _runs(items: list) -> list[tuple[object, int]]:
    runs: list[tuple[object, int]] = []
    for item in items:
        if runs and runs[-1][0] == item:
            runs[-1] = (item, runs[-1][1] + 1)
        else:
            runs.append((item, 1))
    return runs


def _latex_escape(text: str) -> str:
    replacements = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                    "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                    "^": r"\textasciicircum{}", "±": r"$\pm$"}
    return "".join(replacements.get(ch, ch) for ch in text)

