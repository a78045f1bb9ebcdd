"""Which table cells put our number beside the paper's, and how far apart they are.

The renderers print the paper's value next to ours in four ways (found in their headers):
``<q> ours`` / ``<q> paper`` columns, ``<q>`` / ``paper <q>`` columns, a ``<q> (paper)`` column
whose cells read ``ours (paper)``, and tables introduced by "Each cell: ours / paper" whose cells
read ``ours / paper`` (except derived ``a - b`` columns). Every such pair is scored with one rule, :data:`RELATIVE_TOLERANCE`.
"""

import math
import re
from dataclasses import dataclass

# A cell reproduces the paper when |ours - paper| <= max(5 % of |paper|, half a unit of the
# paper's last printed digit): the paper's own rounding, plus a margin for the papers' random
# splits and our different machines.
RELATIVE_TOLERANCE = 0.05
# Colour bands of the relative deviation |ours - paper| / |paper| beyond the tolerance.
BANDS = ((0.25, "dev-small"), (1.0, "dev-medium"), (math.inf, "dev-large"))
# Times depend on the machine; they are scored apart from the other quantities.
TIME_HEADER = re.compile(r"\btime\b|\(s\)|\bs$|\bs\b(?= ours| paper)", re.IGNORECASE)
TIME_TITLE = re.compile(r"training time \(s\)", re.IGNORECASE)
_NUMBER = re.compile(r"[-+−]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_OURS_PAPER_CELLS = "ours / paper"


@dataclass(frozen=True)
class Comparison:
    """One of our cells against the paper's value."""

    row: int
    column: int  # the column of our number
    ours: float
    paper: float
    paper_text: str
    timing: bool

    @property
    def deviation(self):
        """|ours - paper| / |paper| (inf when the paper printed 0 and we did not)."""
        gap = abs(self.ours - self.paper)
        return gap / abs(self.paper) if self.paper else (0.0 if gap == 0 else math.inf)

    @property
    def within(self):
        allowed = max(RELATIVE_TOLERANCE * abs(self.paper), half_unit(self.paper_text))
        return abs(self.ours - self.paper) <= allowed * (1 + 1e-12)

    @property
    def css_class(self):
        if self.within:
            return "within"
        return next(name for limit, name in BANDS if self.deviation <= limit)

    @property
    def tooltip(self):
        verdict = "within tolerance" if self.within else "deviates"
        return f"paper {self.paper_text}; deviation {self.deviation:.1%}; {verdict}"


def number(text):
    """The first number in a cell (``**0.15**``, ``84.4 ± 0.1``, ``14.4x``), or None."""
    found = _NUMBER.search(text.replace("−", "-"))
    return float(found.group()) if found else None


def half_unit(text):
    """Half a unit of the last digit printed in ``text``'s first number (``0.4`` -> 0.05)."""
    found = _NUMBER.search(text.replace("−", "-"))
    if not found:
        return 0.0
    mantissa, _, exponent = found.group().lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (int(exponent or 0) - decimals)


def comparisons(table, title=""):
    """Every (our cell, paper's cell) pair of a :class:`~.markdown_blocks.TableBlock`."""
    found = []
    timing_page = bool(TIME_TITLE.search(title))
    for ours_column, paper_column, in_cell in _pairs(table):
        timing = timing_page or bool(TIME_HEADER.search(table.header[ours_column]))
        for row_index, row in enumerate(table.rows):
            pair = _values(row, ours_column, paper_column, in_cell)
            if pair is not None:
                found.append(Comparison(row_index, ours_column, *pair, timing))
    return found


def _pairs(table):
    """(our column, paper's column, how the cell holds them) for each compared quantity."""
    header = [name.strip() for name in table.header]
    position = {name: i for i, name in enumerate(header)}
    for i, name in enumerate(header):
        words = name.split()
        if "ours" in words:
            paper = " ".join("paper" if word == "ours" else word for word in words)
            if paper in position:
                yield i, position[paper], None
        elif f"paper {name}" in position:
            yield i, position[f"paper {name}"], None
        elif name.endswith("(paper)"):
            yield i, i, "parenthesis"
        elif i > 0 and _OURS_PAPER_CELLS in table.intro and " - " not in name:
            yield i, i, "slash"  # a derived "a - b" column is not a measurement


def _values(row, ours_column, paper_column, in_cell):
    """(ours, paper, paper's text) of one row, or None when either is not a number."""
    if in_cell == "parenthesis":
        ours_text, _, paper_text = row[ours_column].text.partition("(")
    elif in_cell == "slash":
        ours_text, _, paper_text = row[ours_column].text.partition(" / ")
    else:
        ours_text, paper_text = row[ours_column].text, row[paper_column].text
    ours, paper = number(ours_text), number(paper_text)
    if ours is None or paper is None:
        return None
    return ours, paper, paper_text.strip().rstrip(")")


def annotate(table, title=""):
    """Attach the comparisons to the table, by (row, column) of our cell, for colouring."""
    table.comparisons = {(c.row, c.column): c for c in comparisons(table, title)}
