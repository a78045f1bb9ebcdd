"""The generated deviations page (svmbench.deviations): it lists every cell of the committed
tables outside its tolerance by the report's rule, its numbers read back from the tables,
outputs and records they name (by readers written here, independent of svmbench's), it is up to
date, and no number can be typed into its prose."""

import json
import math
import re
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from svmbench.deviations import page
from svmbench.deviations.cells import compared_cells, document_cells, output_of
from svmbench.deviations.entries import EntryError, load, typed_numbers
from svmbench.deviations.values import PlaceholderError, evaluate
from svmbench.render import ROOT
from svmbench.webreport.markdown_blocks import parse, slug

PAGE = ROOT / "docs" / "deviations.md"
LINK = re.compile(r'\[([^\]]+)\]\(([^) ]+) "((?:[^"\\]|\\.)*)"\)')
pytestmark = pytest.mark.skipif(not PAGE.is_file(), reason="docs/deviations.md not generated")


def listed_cells(text):
    """(artefact, section, row, column) of every cell row of the page's cell tables."""
    found = set()
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[4].startswith("[") and "ours(" in cells[4]:
            found.add((cells[0], cells[1], cells[2], cells[3].removesuffix(" (time)")))
    return found


def test_the_page_lists_every_cell_the_report_scores_as_deviating():
    deviating = {cell.key for cell in compared_cells() if cell.deviates}
    listed = listed_cells(PAGE.read_text())
    assert deviating, "the committed tables have no deviating cell: the test cannot fail"
    assert deviating - listed == set(), "deviating cells the page does not list"
    assert listed - deviating == set(), "cells the page lists that do not deviate"


def test_the_committed_page_is_up_to_date():
    assert page.render() == PAGE.read_text(), "run python -m svmbench.deviations"


# --- the page's numbers read back, by readers independent of svmbench.deviations.values ----

def _markdown_tables(path):
    """[(section, header, rows)] of a Markdown file, split by hand (no markdown parser)."""
    tables, section, current = [], "", None
    for line in Path(path).read_text().splitlines():
        if line.startswith("#"):
            section = line.lstrip("#").strip() if line.startswith("##") else section
        if line.startswith("|"):
            cells = [re.sub(r"[*`]", "", c).strip() for c in line.strip().strip("|").split("|")]
            if current is None:
                current = (section, cells, [])
                tables.append(current)
            elif not set("".join(cells)) <= set("-: "):
                current[2].append(cells)
        else:
            current = None
    return tables


def _first_number(text):
    found = re.search(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", text.replace("−", "-"))
    return float(found.group()) if found else None


def _row(rows, key, width):
    """The row whose first cells, joined by " / ", are ``key`` (the page's row keys)."""
    for size in range(1, width + 1):
        matches = [r for r in rows if " / ".join(r[:size]) == key]
        if len(matches) == 1:
            return matches[0]
    return None


def _ours_of(header, row, column):
    """Our number in a compared column (before " / " where the cell holds both)."""
    name = header[column]
    slash = "ours" not in name.split() and f"paper {name}" not in header \
        and not name.endswith("(paper)")
    return _first_number(row[column].partition(" / ")[0] if slash else row[column])


def _paper_of(header, row, column):
    """The paper's number beside our column (the four ways the renderers print it)."""
    name = header[column]
    if "ours" in name.split():
        return _first_number(row[header.index(name.replace("ours", "paper"))])
    if f"paper {name}" in header:
        return _first_number(row[header.index(f"paper {name}")])
    if name.endswith("(paper)"):
        return _first_number(row[column].partition("(")[2])
    return _first_number(row[column].partition(" / ")[2])


def _table_cell(artefact, row_key, column, section=None):
    for table_section, header, rows in _markdown_tables(_output(artefact)):
        if column in header and (section is None or table_section == section):
            row = _row(rows, row_key, header.index(column) + 1)
            if row is not None:
                return header, row, header.index(column)
    raise AssertionError(f"{artefact}: no cell {row_key!r} / {column!r}")


def _output(artefact):
    return output_of(artefact)  # where the artefact's table is committed (its config says)


class Number:
    """A number read independently, compared with the page's text at its printed precision."""

    def __init__(self, value):
        self.value = value

    def fmt(self, spec):
        return self

    def pct(self, spec):
        return Number(tuple(100 * v for v in self.value) if isinstance(self.value, tuple)
                      else 100 * self.value)


class Records:
    def __init__(self, rows):
        self.rows = rows

    def _values(self, name):
        return [r[name] for r in self.rows if r.get(name) is not None]

    def mean(self, name):
        values = self._values(name)
        return Number(sum(values) / len(values))

    def min(self, name):
        return Number(min(self._values(name)))

    def max(self, name):
        return Number(max(self._values(name)))

    def count(self):
        return Number(len(self.rows))

    def value(self, name):
        return Number(self._values(name)[0])

    def values(self, name):
        return Number(", ".join(sorted({str(v) for v in self._values(name)})))

    def span_by(self, group, name):
        means = {}
        for r in self.rows:
            means.setdefault(r.get(group), []).append(r[name])
        values = [sum(v) / len(v) for v in means.values()]
        return Number((min(values), max(values)))


def _records(store, **filters):
    rows = [json.loads(p.read_text()) for p in (ROOT / store).glob("*/fold-*.json")]
    return Records([r for r in rows if all(r.get(k) == v for k, v in filters.items())])


def _ours(artefact, row, column, section=None):
    header, cells, index = _table_cell(artefact, row, column, section)
    return Number(_ours_of(header, cells, index))


def _paper(artefact, row, column, section=None):
    header, cells, index = _table_cell(artefact, row, column, section)
    return Number(_paper_of(header, cells, index))


def _deviation(artefact, row, column, section=None):
    header, cells, index = _table_cell(artefact, row, column, section)
    ours, paper = _ours_of(header, cells, index), _paper_of(header, cells, index)
    return Number(100 * abs(ours - paper) / abs(paper) if paper else math.inf)


def _cell(artefact, row, column, section=None, after=None):
    for table_section, header, rows in _markdown_tables(_output(artefact)):
        if column in header and (section is None or table_section == section):
            found = _row(rows, row, len(header))
            if found is not None:
                text = found[header.index(column)]
                return Number(_first_number(text if after is None else text.partition(after)[2]))
    raise AssertionError(f"{artefact}: no cell {row!r} / {column!r}")


def _column(source, column, rows="*", after=None):
    path = _output(source) if "/" not in source else ROOT / source
    found = []
    for _, header, table_rows in _markdown_tables(path):
        if column not in header:
            continue
        for row in table_rows:
            key_cells = [row[: size] for size in range(1, len(header) + 1)]
            if any(fnmatchcase(" / ".join(k), rows) for k in key_cells):
                text = row[header.index(column)]
                value = _first_number(text if after is None else text.partition(after)[2])
                if value is not None:
                    found.append(value)
    return found


def _span_of(source, column, rows="*", after=None):
    values = _column(source, column, rows, after)
    return Number((min(values), max(values)))


def _span(*numbers):
    values = [v for n in numbers for v in (n.value if isinstance(n.value, tuple) else (n.value,))]
    return Number((min(values), max(values)))


def _below(artefact, column):
    pairs = []
    for _, header, rows in _markdown_tables(_output(artefact)):
        if column in header:
            for row in rows:
                index = header.index(column)
                ours, paper = _ours_of(header, row, index), _paper_of(header, row, index)
                if ours is not None and paper is not None:
                    pairs.append(ours < paper)
    return Number(f"{sum(pairs)} of {len(pairs)}")


def _output_number(path, row, column):
    for _, header, rows in _markdown_tables(ROOT / path):
        if column in header:
            found = _row(rows, row, len(header))
            if found is not None:
                return Number(_first_number(found[header.index(column)]))
    raise AssertionError(f"{path}: no cell {row!r} / {column!r}")


READERS = {"ours": _ours, "paper": _paper, "deviation": _deviation, "cell": _cell,
           "output": _output_number, "records": _records, "span": _span, "span_of": _span_of,
           "below": _below}


def _agrees(text, value):
    """Whether the page's ``text`` shows ``value`` (to half a unit of its last printed digit)."""
    if isinstance(value, tuple):
        low, _, high = text.partition("..")
        return _agrees(low, value[0]) and _agrees(high, value[1])
    if isinstance(value, (str, bool)):
        return text == str(value)
    shown = _first_number(text)
    if math.isinf(value):
        return "inf" in text
    mantissa = re.search(r"[-+]?\d+\.?(\d*)(?:[eE]([-+]?\d+))?", text)
    unit = 10.0 ** (-len(mantissa.group(1)) + int(mantissa.group(2) or 0))
    return abs(shown - value) <= unit / 2 * (1 + 1e-9) + 1e-12


def test_every_number_on_the_page_reads_back_from_the_source_it_names():
    links = LINK.findall(PAGE.read_text())
    numbers = [(text, expression) for text, _, expression in links if "(" in expression]
    assert len(numbers) > 100
    wrong = []
    for text, expression in numbers:
        expression = expression.replace("\\'", "'").replace('\\"', '"')
        value = eval(expression, {"__builtins__": {}}, READERS).value
        if not _agrees(text, value):
            wrong.append((text, expression, value))
    assert wrong == [], "\n".join(map(str, wrong))


def test_each_link_points_at_the_file_or_store_it_read():
    for text, target, expression in LINK.findall(PAGE.read_text()):
        assert (PAGE.parent / target).exists(), (text, target)
        named = re.findall(r"'(results/[^']+)'", expression)
        if named:
            assert (PAGE.parent / target).resolve() == (ROOT / named[0]).resolve()


# --- the rules, on made-up tables and entries ------------------------------------------------

TABLE = """# A table

## Part one

| Problem | SV ours | SV paper | Time s ours | Time s paper |
|---|---|---|---|---|
| A | 100 | 100 | 1.0 | 1.0 |
| B | 130 | 100 | 9.0 | 1.0 |
"""


def made_up_cells():
    title, blocks = parse(TABLE)
    return document_cells("made_up", title, blocks)


def test_a_deviating_cell_no_entry_covers_is_listed_as_unexplained(monkeypatch):
    monkeypatch.setattr(page, "artefacts", lambda: ["made_up"])
    monkeypatch.setattr(page, "output_of", lambda name: ROOT / "results" / "made_up.md")
    monkeypatch.setattr(page.values, "link", lambda expression, folder: expression)
    text = page.render(entries=[], cells=made_up_cells())
    assert "### Unexplained: made_up" in text
    assert "| made_up | Part one | B | SV ours |" in text
    assert "| made_up | Part one | B | Time s ours (time) |" in text
    assert "| A |" not in text  # within tolerance: not listed
    assert "Deviating cells: 1 (explained 0, open 0, unexplained 1); deviating times: 1" in text


def test_an_entry_takes_the_cells_it_selects(tmp_path, monkeypatch):
    (tmp_path / "e.yaml").write_text(
        "- id: x1\n  title: made up\n  status: explained\n  cells:\n"
        "    - artefact: made_up\n      columns: [SV ours]\n  cause: a reason\n")
    entries = load(tmp_path / "e.yaml")
    shown = page.listed(made_up_cells(), entries)
    assert [(i.cell.column, i.status) for i in shown] == [("SV ours", "explained"),
                                                         ("Time s ours", "unexplained")]
    assert shown[0].anchor == "x1-made-up"


@pytest.mark.parametrize("prose", ["it took 4.35 s", "ours 0.2846 against", "a gap of 2 points",
                                   "`0.3463`", "speed-ups 0.17-0.63x", "(-2.4..+5.1)"])
def test_a_typed_number_is_found(prose):
    assert typed_numbers(prose)


@pytest.mark.parametrize("prose", ["Table 2 and Fig. 3", "Adult-7 on a1a", "LIBSVM 2.83",
                                   "Evgeniou et al. (2004)'s bound", "entries 4a and 4b",
                                   "`python -m svmbench.runner seed=1,2`", "{{ ours('a', 'b') }}"])
def test_references_names_and_commands_are_not_typed_numbers(prose):
    assert typed_numbers(prose) == []


def test_an_entry_with_a_typed_number_is_refused(tmp_path):
    (tmp_path / "e.yaml").write_text(
        "- id: x\n  title: t\n  status: explained\n  cells: []\n  cause: it took 4.35 s\n")
    with pytest.raises(EntryError, match="typed number"):
        load(tmp_path / "e.yaml")


@pytest.mark.parametrize("expression", ["'4.35'", "ours('a', 'b', 'c').fmt(2)", "ours(4)",
                                        "open('x').read()", "ours('a', 'b', 'c') + ours('d')",
                                        "ours('a', 'b', 'c').__class__"])
def test_a_placeholder_reads_a_source_and_never_holds_a_number(expression):
    with pytest.raises(PlaceholderError):
        evaluate(expression)


def test_an_open_entry_names_candidates_and_what_would_settle_it(tmp_path):
    (tmp_path / "e.yaml").write_text(
        "- id: x\n  title: t\n  status: open\n  cells: []\n  candidates: a guess\n")
    with pytest.raises(EntryError, match="settle"):
        load(tmp_path / "e.yaml")


def test_the_report_links_each_deviating_cell_to_an_entry_heading_of_the_page():
    headings = set(re.findall(r'^#{2,3} (.+)$', PAGE.read_text(), re.MULTILINE))
    anchors_on_page = {slug(h) for h in headings}
    for name in ("gs2008_table7", "tsang_table2"):
        cells = [c for c in compared_cells([name])]
        anchors = page.anchors(name, cells)
        assert len(anchors) == sum(c.deviates for c in cells) > 0
        assert set(anchors.values()) <= anchors_on_page
