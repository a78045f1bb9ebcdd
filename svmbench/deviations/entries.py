"""The human-written part of the deviations page: docs/deviations.yaml, a list of entries, each
keyed to the cells it covers and saying what was found (prose whose numbers are placeholders,
svmbench.deviations.values).

An entry::

    - id: 3b                       # stable: code and commits cite "docs/deviations.md, 3b"
      title: gs2008 Table VII, the fold split
      status: explained            # or open (cells no entry covers are unexplained)
      cells:                       # which deviating cells it covers; rows, columns, section:
        - artefact: gs2008_table7  # optional lists (default: all), keys as in
          rows: [Glass, Liver disorders]   # svmbench.deviations.cells
          columns: [GS-SVMs ours]
      what: ...                    # what differs, beyond the cells' numbers (optional)
      experiments:                 # each: the command, its output (file or store), its result
        - command: python -m svmbench.runner -m dataset=glass ...
          output: results/deviations/uci_seeds
          result: ... {{ records('results/deviations/uci_seeds', dataset='glass').mean('test_error').fmt('.4f') }} ...
      cause: ...                   # explained: what it is
      candidates: ...              # open: what it could be
      settle: ...                  # open: what would settle it

A cell belongs to the first entry that covers it. Prose may not type a number: outside
placeholders, code spans and link targets, a word that starts with a digit is refused, except
a reference (Table 2, Fig. 3, eq. 29, §5.2, issue 31, LIBSVM 2.83, et al. (2004), entry 3b).
"""

import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

import yaml

STATUSES = ("explained", "open")
PROSE = ("what", "cause", "candidates", "settle")
PLACEHOLDER = re.compile(r"\{\{(.+?)\}\}", re.DOTALL)
_CODE = re.compile(r"`[^`]*`")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_REFERENCE_NUMBER = r"[\dIVX][\d.\-–/]*[a-z]?"
_REFERENCE = re.compile(r"(?:\b(?:Tables?|Figs?\.|Figures?|Alg\.|Algorithms?|eqs?\.|[Ss]ections?"
                        r"|issues?|LIBSVM|Modification|entry|entries)|§|et al\.\s*\()\s*"
                        + _REFERENCE_NUMBER + r"(?:\s*(?:,|and)\s*" + _REFERENCE_NUMBER + ")*")
_NUMERIC_CODE = re.compile(r"`\s*[-+]?[\d.,eE%x\s]+`")


class EntryError(ValueError):
    """An entry of docs/deviations.yaml that cannot be used; the message names it."""


@dataclass(frozen=True)
class Selector:
    """The cells of one artefact an entry covers (``rows``/``columns``: shell-style patterns)."""

    artefact: str
    rows: tuple = ()
    columns: tuple = ()
    section: str = None

    def matches(self, cell):
        return (cell.artefact == self.artefact
                and (self.section is None or cell.section == self.section)
                and (not self.rows or any(fnmatchcase(cell.row_key, p) for p in self.rows))
                and (not self.columns or any(fnmatchcase(cell.column, p) for p in self.columns)))


@dataclass(frozen=True)
class Experiment:
    command: str
    result: str
    output: str = None  # the committed file or store it wrote


@dataclass
class Entry:
    id: str
    title: str
    status: str
    selectors: list
    experiments: list = field(default_factory=list)
    what: str = ""
    cause: str = ""
    candidates: str = ""
    settle: str = ""

    def covers(self, cell):
        return any(selector.matches(cell) for selector in self.selectors)

    def prose(self):
        """Every prose text of the entry (for checks)."""
        return [self.title, *(getattr(self, name) for name in PROSE),
                *(e.result for e in self.experiments)]


def typed_numbers(prose):
    """The words of ``prose`` that type a number (outside placeholders, code spans, link
    targets and references)."""
    numeric_code = _NUMERIC_CODE.findall(prose)
    text = _REFERENCE.sub(" ", _LINK_TARGET.sub("]", _CODE.sub(" ", PLACEHOLDER.sub(" ", prose))))
    words = (word.strip("()[]{}*_'\",;:.!?") for word in text.split())
    return numeric_code + [word for word in words
                           if re.match(r"[-+−~≈<>=]*\.?\d", word)]


def _entry(raw):
    name = raw.get("id", "?")
    unknown = set(raw) - {"id", "title", "status", "cells", "experiments", *PROSE}
    if unknown:
        raise EntryError(f"entry {name}: unknown keys {sorted(unknown)}")
    if raw.get("status") not in STATUSES:
        raise EntryError(f"entry {name}: status {raw.get('status')!r}; choose one of {STATUSES} "
                         "(a cell no entry covers is listed as unexplained)")
    selectors = [Selector(s["artefact"], tuple(s.get("rows", ())), tuple(s.get("columns", ())),
                          s.get("section")) for s in raw.get("cells", [])]
    experiments = [Experiment(e["command"], e.get("result", ""), e.get("output"))
                   for e in raw.get("experiments", [])]
    entry = Entry(str(raw["id"]), raw["title"], raw["status"], selectors, experiments,
                  **{key: raw.get(key, "") for key in PROSE})
    if entry.status == "open" and not (entry.candidates and entry.settle):
        raise EntryError(f"entry {name}: an open entry names its candidates and what would "
                         "settle it (candidates:, settle:)")
    for text in entry.prose():
        typed = typed_numbers(text)
        if typed:
            raise EntryError(f"entry {name}: typed number(s) {typed} in {text[:80]!r}...; read "
                             "each from its source with a placeholder {{ ... }} "
                             "(svmbench.deviations.values)")
    return entry


def load(path):
    """The entries of a YAML file, checked."""
    raw = yaml.safe_load(path.read_text()) or []
    entries = [_entry(item) for item in raw]
    ids = [entry.id for entry in entries]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise EntryError(f"entry ids repeated: {repeated}")
    return entries
