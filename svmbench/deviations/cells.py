"""The cells of the committed tables that put our number beside the paper's, scored by the
report's rule (svmbench.webreport.compare), each named by a key the deviations page and the
report share: (artefact, section, row, column).

- section: the last heading above the table in the artefact's Markdown ("" when none);
- row: the row's first cell, or its first cells joined by " / " where the first alone repeats
  within the table (up to the first compared column);
- column: the header of the column that holds our number.
"""

import html
import re
from dataclasses import dataclass
from functools import cache

from svmbench.render import ROOT, artefacts
from svmbench.sweep import artefact_settings
from svmbench.webreport import compare
from svmbench.webreport.markdown_blocks import parse

SCALE = "paper"  # the committed tables
_HEADING = re.compile(r"<h[1-6][^>]*>(.*?)</h[1-6]>", re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class TableCell:
    """One of our numbers beside the paper's in a committed table."""

    artefact: str
    section: str
    row_key: str
    column: str  # header of our column
    table: int  # which table of the document (0, 1, ...)
    row: int  # row and column index in that table
    column_index: int
    comparison: compare.Comparison

    @property
    def key(self):
        return (self.artefact, self.section, self.row_key, self.column)

    @property
    def deviates(self):
        return not self.comparison.within

    @property
    def timing(self):
        return self.comparison.timing


@cache
def output_of(artefact):
    """The committed Markdown of an artefact (its ``artefact.output`` at paper scale)."""
    settings, _ = artefact_settings(artefact, SCALE)
    return ROOT / settings["output"]


def row_keys(table, first_compared):
    """Each row's key: its first cell, or its first cells joined until the keys are unique
    within the table (a repeat left after every leading cell gets `` #2``, `` #3``, ...)."""
    width, keys = 1, []
    for width in range(1, max(1, first_compared) + 1):
        keys = [" / ".join(row[i].text for i in range(width)) for row in table.rows]
        if len(set(keys)) == len(keys):
            return keys
    seen, unique = {}, []
    for key in keys:
        seen[key] = seen.get(key, 0) + 1
        unique.append(key if seen[key] == 1 else f"{key} #{seen[key]}")
    return unique


def document_cells(artefact, title, blocks):
    """Every compared cell of a parsed document (``markdown_blocks.parse``), in order."""
    found, section, table_index = [], "", 0
    for block in blocks:
        if block.kind != "table":
            headings = _HEADING.findall(block.html)
            if headings:
                section = html.unescape(_TAG.sub("", headings[-1])).strip()
            continue
        comparisons = compare.comparisons(block, title)
        if comparisons:
            keys = row_keys(block, min(c.column for c in comparisons))
            found += [TableCell(artefact, section, keys[c.row], block.header[c.column].strip(),
                                table_index, c.row, c.column, c) for c in comparisons]
        table_index += 1
    return found


@cache
def parsed(path):
    """(title, blocks) of a committed Markdown file (``markdown_blocks.parse``)."""
    return parse(path.read_text())


def tables(path):
    """The tables of a committed Markdown file, in order."""
    return [block for block in parsed(path)[1] if block.kind == "table"]


@cache
def artefact_cells(artefact):
    """The compared cells of an artefact's committed table (none when it is not rendered)."""
    path = output_of(artefact)
    return tuple(document_cells(artefact, *parsed(path))) if path.is_file() else ()


def compared_cells(names=None):
    """The compared cells of every artefact (or of ``names``), in artefact order."""
    return [cell for name in (names or artefacts()) for cell in artefact_cells(name)]
