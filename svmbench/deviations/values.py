"""The numbers of the deviations page: each one read from a committed table, a committed
experiment output or a store, never typed.

The prose of docs/deviations.yaml holds placeholders ``{{ expression }}``; an expression is a
call of the readers below (string arguments name the source; a number may only be a keyword
argument, e.g. a record filter ``seed=1``), optionally followed by a method that formats it.
Each expression becomes a Markdown link: its text the number, its target the file or store it
was read from, its title the expression, so that a reader (and tests/integration/test_deviations.py, which
re-reads every one) can check it against its source.

Readers:
- ``ours(artefact, row, column, section=None)`` / ``paper(...)``: our number and the paper's in a
  compared cell (svmbench.deviations.cells: the report's pairs) of a committed table;
  ``cell(artefact, row, column, section=None, after=None)``: the first number printed in any
  cell of a compared row (``after``: in the part of the cell after that separator);
- ``output(path, row, column)``: a number in a table of a committed experiment output
  (results/deviations/*.md; rows keyed as in svmbench.deviations.cells.row_keys);
- ``records(store, **filters)``: the records of a store (a folder of results/) whose fields
  equal the filters, then ``.mean(field)``, ``.min(field)``, ``.max(field)``, ``.count()``,
  ``.value(field)`` (its one value over the records; an error when they differ),
  ``.values(field)`` (the distinct values, sorted, joined by ", "), ``.span_by(group, field)``
  (the smallest and largest mean of a field over the groups of one ``group`` value);
- ``span(a, b, ...)``: the smallest and the largest of several numbers, "min..max";
  ``span_of(source, column, rows='*')``: of a column of an artefact's table or an output's
  tables (``rows``: a shell pattern on the row keys);
- ``below(artefact, column)``: "k of n", the compared cells of our column where ours is lower;
- ``deviation(artefact, row, column, section=None)``: |ours - paper| / |paper| of a compared
  cell, in %.
Formatting: ``.fmt(spec)`` (a Python format spec, e.g. ``".2f"``), ``.pct(spec)`` (x 100 first).
"""

import ast
import json
import math
import os
import re
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path

from svmbench.deviations.cells import artefact_cells, output_of, row_keys, tables
from svmbench.render import ROOT, artefacts
from svmbench.webreport.compare import number

_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


class PlaceholderError(ValueError):
    """A placeholder that cannot be read: the message names it and what is wrong."""


@dataclass(frozen=True)
class Value:
    """A number (or a text such as a commit) and where it was read."""

    value: object
    text: str
    source: Path  # the file or folder it was read from
    bounds: tuple = ()  # a span's smallest and largest Value

    def fmt(self, spec):
        if self.bounds:
            return _joined(*(bound.fmt(spec) for bound in self.bounds))
        return replace(self, text=format(self.value, spec))

    def pct(self, spec):
        if self.bounds:
            return _joined(*(bound.pct(spec) for bound in self.bounds))
        return replace(self, text=format(100 * self.value, spec))


def _joined(low, high):
    """A span of two Values, "low..high"."""
    return Value((low.value, high.value), f"{low.text}..{high.text}", low.source, (low, high))


@dataclass(frozen=True)
class Records:
    """Records of a store selected by field values."""

    rows: tuple
    source: Path
    filters: str

    def _field(self, name):
        values = [r[name] for r in self.rows if r.get(name) is not None]
        if not values:
            raise PlaceholderError(f"no record in {self.source} with {self.filters} has {name!r}")
        return values

    def _number(self, value):
        return Value(value, format(value, ".4g"), self.source)

    def mean(self, name):
        values = self._field(name)
        return self._number(math.fsum(values) / len(values))

    def min(self, name):
        return self._number(min(self._field(name)))

    def max(self, name):
        return self._number(max(self._field(name)))

    def count(self):
        return Value(len(self.rows), str(len(self.rows)), self.source)

    def value(self, name):
        values = sorted({str(v) for v in self._field(name)})
        if len(values) != 1:
            raise PlaceholderError(f"{name!r} of the records in {self.source} with {self.filters} "
                              f"is not one value: {values}")
        found = self._field(name)[0]
        return Value(found, format(found, ".4g") if isinstance(found, float) else str(found),
                     self.source)

    def values(self, name):
        values = sorted({str(v) for v in self._field(name)})
        return Value(values, ", ".join(values), self.source)

    def span_by(self, group, name):
        """The smallest and largest mean of ``name`` over the groups of records with one
        value of ``group`` (e.g. the mean test error per split seed)."""
        groups = {}
        for record in self.rows:
            if record.get(name) is not None:
                groups.setdefault(str(record.get(group)), []).append(record[name])
        if not groups:
            raise PlaceholderError(f"no record in {self.source} with {self.filters} has {name!r}")
        return span(*(self._number(math.fsum(v) / len(v)) for v in groups.values()))


@cache
def store_records(folder):
    """Every record (``<cell>/fold-*.json``) of a store folder, as read from disk."""
    path = ROOT / folder
    if not path.is_dir():
        raise PlaceholderError(f"no store {folder} (a folder of results/ holding <cell>/fold-*.json)")
    return tuple(json.loads(p.read_text()) for p in sorted(path.glob("*/fold-*.json")))


def records(store, **filters):
    found = tuple(r for r in store_records(store)
                  if all(r.get(key) == value for key, value in filters.items()))
    shown = " ".join(f"{key}={value}" for key, value in filters.items()) or "no filter"
    return Records(found, ROOT / store, shown)  # none: count() is 0, the others say so


def _compared(artefact, row, column, section):
    """The compared cell (svmbench.deviations.cells.TableCell) at a row and our column."""
    matches = [c for c in artefact_cells(artefact) if c.row_key == row and c.column == column
               and (section is None or c.section == section)]
    if len(matches) != 1:
        raise PlaceholderError(f"{artefact}: {len(matches)} compared cells at row {row!r}, "
                               f"column {column!r}" + (f", section {section!r}" if section else ""))
    return matches[0]


def printed_number(text):
    """The first number in a cell's text as printed (``**0.15** [R]`` -> ``0.15``)."""
    found = _NUMBER.search(text.replace("\u2212", "-"))
    return found.group() if found else None


def ours(artefact, row, column, section=None):
    found = _compared(artefact, row, column, section)
    text = tables(output_of(artefact))[found.table].rows[found.row][found.column_index].text
    return Value(found.comparison.ours, printed_number(text), output_of(artefact))


def paper(artefact, row, column, section=None):
    comparison = _compared(artefact, row, column, section).comparison
    return Value(comparison.paper, printed_number(comparison.paper_text), output_of(artefact))


def deviation(artefact, row, column, section=None):
    share = _compared(artefact, row, column, section).comparison.deviation
    return Value(100 * share, f"{100 * share:.0f} %", output_of(artefact))


def _number_at(table, index, column, source, row, after=None):
    header = [name.strip() for name in table.header]
    if column not in header:
        raise PlaceholderError(f"{source}: no column {column!r} in the table of row {row!r}; "
                               f"its columns: {header}")
    text = _part(table.rows[index][header.index(column)].text, after)
    if printed_number(text) is None:
        raise PlaceholderError(f"{source}: no number at row {row!r}, column {column!r}")
    return number(text), printed_number(text)


def _part(text, after):
    """The text of a cell, or its part after the separator ``after`` (e.g. " / ")."""
    return text if after is None else text.partition(after)[2]


def cell(artefact, row, column, section=None, after=None):
    rows = {(c.table, c.row) for c in artefact_cells(artefact)
            if c.row_key == row and (section is None or c.section == section)}
    if len(rows) != 1:
        raise PlaceholderError(f"{artefact}: {len(rows)} compared rows {row!r}"
                               + (f" in section {section!r}" if section else ""))
    table, index = rows.pop()
    path = output_of(artefact)
    return Value(*_number_at(tables(path)[table], index, column, artefact, row, after), path)


def output(path, row, column):
    """A number in a committed output's table whose header has ``column``, at the row keyed
    ``row`` (its leading cells, joined by " / " until unique)."""
    found = [(table, index) for table in tables(ROOT / path)
             if column in [name.strip() for name in table.header]
             for index, key in enumerate(row_keys(table, len(table.header))) if key == row]
    if len(found) != 1:
        raise PlaceholderError(f"{path}: {len(found)} cells at row {row!r}, column {column!r}")
    return Value(*_number_at(*found[0], column, path, row), ROOT / path)


def _column_numbers(source, column, rows, after):
    """(value, printed) of every number in a column of the tables of an artefact's committed
    Markdown or an output, at the rows whose key (leading cells joined by " / " until unique)
    matches the shell pattern ``rows``."""
    path = output_of(source) if source in artefacts() else ROOT / source
    found = []
    for table in tables(path):
        header = [name.strip() for name in table.header]
        if column not in header:
            continue
        for row, key in zip(table.rows, row_keys(table, len(header))):
            text = _part(row[header.index(column)].text, after)
            if fnmatchcase(key, rows) and printed_number(text) is not None:
                found.append(Value(number(text), printed_number(text), path))
    if not found:
        raise PlaceholderError(f"{source}: no number in column {column!r} at rows {rows!r}")
    return found


def span_of(source, column, rows="*", after=None):
    """The smallest and largest number of a column (rows: a shell pattern on row keys;
    after: read the part of each cell after this separator)."""
    return span(*_column_numbers(source, column, rows, after))


def below(artefact, column):
    """"k of n": in how many compared cells of our column ours is below the paper's."""
    found = [c.comparison for c in artefact_cells(artefact) if c.column == column]
    if not found:
        raise PlaceholderError(f"{artefact}: no compared column {column!r}")
    count = sum(c.ours < c.paper for c in found)
    return Value(count, f"{count} of {len(found)}", output_of(artefact))


def span(*values):
    found = [bound for value in values for bound in (value.bounds or (value,))]
    return _joined(min(found, key=lambda v: v.value), max(found, key=lambda v: v.value))


READERS = {"ours": ours, "paper": paper, "cell": cell, "output": output, "records": records,
           "span": span, "span_of": span_of, "below": below, "deviation": deviation}
METHODS = {"mean", "min", "max", "count", "value", "values", "span_by", "fmt", "pct"}


def check(expression):
    """Raise PlaceholderError unless ``expression`` is a reader's call (then methods), with numbers
    only as keyword arguments: so that no number on the page can be typed into its prose."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as error:
        raise PlaceholderError(f"{{{{ {expression} }}}} is not an expression: {error.msg}") from None
    keyword_values = {id(k.value) for k in ast.walk(tree) if isinstance(k, ast.keyword)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and not isinstance(node.value, str) \
                and id(node) not in keyword_values and node.value is not None:
            raise PlaceholderError(f"{{{{ {expression} }}}}: a typed number ({node.value!r}); read "
                              "it from a table, an output or the records instead")
        if isinstance(node, ast.Name) and node.id not in READERS:
            raise PlaceholderError(f"{{{{ {expression} }}}}: {node.id!r} is not a reader; choose "
                              f"from {sorted(READERS)}")
        if isinstance(node, ast.Attribute) and node.attr not in METHODS:
            raise PlaceholderError(f"{{{{ {expression} }}}}: .{node.attr} is not a method; choose "
                              f"from {sorted(METHODS)}")
        if not isinstance(node, (ast.Expression, ast.Call, ast.Attribute, ast.Name, ast.Constant,
                                 ast.keyword, ast.Load)):
            raise PlaceholderError(f"{{{{ {expression} }}}}: {type(node).__name__} is not allowed; "
                              "a placeholder calls readers only")
    if not isinstance(tree.body, ast.Call):
        raise PlaceholderError(f"{{{{ {expression} }}}}: not a reader's call")
    return tree


def evaluate(expression):
    """The :class:`Value` of a placeholder's expression."""
    tree = check(expression)
    value = eval(compile(tree, "<placeholder>", "eval"), {"__builtins__": {}}, READERS)
    if not isinstance(value, Value):
        raise PlaceholderError(f"{{{{ {expression} }}}} gives records, not a number: add .mean(...), "
                          ".count(), ...")
    return value


def link(expression, page_folder):
    """The placeholder as a Markdown link from a page in ``page_folder``: the number, its
    source, the expression (its double quotes escaped, as a Markdown title's)."""
    value = evaluate(expression)
    target = Path(os.path.relpath(value.source, page_folder)).as_posix()
    title = " ".join(expression.split()).replace('"', '\\"')
    return f'[{value.text}]({target} "{title}")'
