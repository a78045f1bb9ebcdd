"""Render docs/deviations.md: every compared cell of the committed tables that stays outside its
tolerance (the report's rule), under the entry that covers it (docs/deviations.yaml) or as
unexplained, every number a placeholder read from its source (svmbench.deviations.values)."""

from collections import Counter
from dataclasses import dataclass

from svmbench.deviations import values
from svmbench.deviations.cells import compared_cells, output_of
from svmbench.deviations.entries import PLACEHOLDER, load
from svmbench.render import ROOT, artefacts
from svmbench.webreport.compare import RELATIVE_TOLERANCE
from svmbench.webreport.markdown_blocks import slug

SOURCE = ROOT / "docs" / "deviations.yaml"
PAGE = ROOT / "docs" / "deviations.md"
UNEXPLAINED = "unexplained"


@dataclass(frozen=True)
class Listed:
    """A deviating cell on the page: its entry (None: unexplained) and its anchor there."""

    cell: object  # svmbench.deviations.cells.TableCell
    entry: object
    anchor: str

    @property
    def status(self):
        return self.entry.status if self.entry else UNEXPLAINED


def entry_heading(entry):
    return f"{entry.id}. {entry.title}"


def unexplained_heading(artefact):
    return f"Unexplained: {artefact}"


def listed(cells, entries):
    """Each deviating cell with the first entry that covers it (or none) and its anchor."""
    found = []
    for cell in cells:
        if not cell.deviates:
            continue
        entry = next((e for e in entries if e.covers(cell)), None)
        heading = entry_heading(entry) if entry else unexplained_heading(cell.artefact)
        found.append(Listed(cell, entry, slug(heading)))
    return found


def expand(prose, folder=PAGE.parent):
    """Prose with each placeholder replaced by its number, linked to its source."""
    return PLACEHOLDER.sub(lambda found: values.link(found.group(1), folder), prose.strip())


def _quoted(text):
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def cell_expression(reader, cell):
    section = f", section={_quoted(cell.section)}" if cell.section else ""
    return (f"{reader}({_quoted(cell.artefact)}, {_quoted(cell.row_key)}, "
            f"{_quoted(cell.column)}{section})")


def cells_table(shown):
    lines = ["| artefact | section | row | column | ours | paper | deviation |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for item in shown:
        cell = item.cell
        numbers = [values.link(cell_expression(reader, cell), PAGE.parent)
                   for reader in ("ours", "paper", "deviation")]
        time = " (time)" if cell.timing else ""
        lines.append(f"| {cell.artefact} | {cell.section} | {cell.row_key} | {cell.column}{time} "
                     f"| {' | '.join(numbers)} |")
    return lines


def entry_section(entry, shown):
    lines = [f"### {entry_heading(entry)}", ""]
    lines += [f"**Status: {entry.status}.** Cells ({len(shown)}):", "", *cells_table(shown), ""] \
        if shown else [f"**Status: {entry.status}.** No deviating cell now.", ""]
    if entry.what:
        lines += [f"**What differs.** {expand(entry.what)}", ""]
    if entry.experiments:
        lines += ["**Experiments.**", ""]
        for experiment in entry.experiments:
            output = f" ([{experiment.output}](../{experiment.output}))" if experiment.output \
                else ""
            lines.append(f"- `{experiment.command.strip()}`{output}: {expand(experiment.result)}")
        lines.append("")
    for name, label in (("cause", "Cause"), ("candidates", "Candidates"),
                        ("settle", "What would settle it")):
        if getattr(entry, name):
            lines += [f"**{label}.** {expand(getattr(entry, name))}", ""]
    return lines


def summary(cells, shown):
    by_artefact = Counter(c.artefact for c in cells if not c.timing)
    within = Counter(c.artefact for c in cells if not c.timing and not c.deviates)
    statuses = Counter((i.cell.artefact, i.status, i.cell.timing) for i in shown)
    lines = [("| artefact | table | compared | within | deviating | explained | open | "
              "unexplained | times deviating (explained / open / unexplained) |"),
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name in artefacts():
        timed = [statuses[(name, s, True)] for s in ("explained", "open", UNEXPLAINED)]
        compared = by_artefact[name]
        if not compared and not any(timed):
            continue
        output = output_of(name).relative_to(ROOT).as_posix()
        lines.append(f"| {name} | [{output}](../{output}) | {compared} | {within[name]} | "
                     f"{compared - within[name]} | "
                     + " | ".join(str(statuses[(name, s, False)])
                                  for s in ("explained", "open", UNEXPLAINED))
                     + f" | {sum(timed)} ({' / '.join(map(str, timed))}) |")
    return lines


def render(entries=None, cells=None):
    """The page's Markdown."""
    entries = load(SOURCE) if entries is None else entries
    cells = compared_cells() if cells is None else cells
    shown = listed(cells, entries)
    deviating = [i for i in shown if not i.cell.timing]
    counts = Counter(i.status for i in deviating)
    generated = ("Generated by `python -m svmbench.deviations` (`make deviations`) from the "
                 "committed tables, the committed experiment outputs and the result stores, with "
                 "the prose of [deviations.yaml](deviations.yaml); edit that file, never this one. "
                 "Every number below is a link to the table, output or store it was read from; "
                 "its title is the expression that read it.")
    rule = (f"A cell is listed when our number and the paper's differ by more than "
            f"max({RELATIVE_TOLERANCE:.0%} of the paper's, half a unit of its last printed "
            "digit): the rule of the report's scoreboard (`make report`, "
            "svmbench/webreport/compare.py), which links each such cell here. Times are scored "
            "apart, as there. Each cell is *explained* (an experiment, its command and its "
            "result), *open* (candidates named, and what would settle it) or *unexplained* (no "
            "entry covers it yet).")
    totals = (f"Deviating cells: {len(deviating)} (explained {counts['explained']}, open "
              f"{counts['open']}, unexplained {counts[UNEXPLAINED]}); deviating times: "
              f"{len(shown) - len(deviating)}.")
    lines = ["# Deviations from the papers", "", generated, "", rule, "", totals, "",
             *summary(cells, shown), "", "## Entries", ""]
    covered = {id(i.entry) for i in shown if i.entry}
    for entry in entries:
        if id(entry) in covered:
            lines += entry_section(entry, [i for i in shown if i.entry is entry])
    lines += ["## Unexplained cells", ""]
    orphans = [i for i in shown if i.entry is None]
    if not orphans:
        lines += ["None.", ""]
    for name in artefacts():
        mine = [i for i in orphans if i.cell.artefact == name]
        if mine:
            lines += [f"### {unexplained_heading(name)}", "", *cells_table(mine), ""]
    idle = [entry for entry in entries if id(entry) not in covered]
    if idle:
        kept = ("Their cells are within tolerance in the committed tables (or the entry is about "
                "a solver's behaviour, not a cell); kept for what they found.")
        lines += ["## Entries without a deviating cell now", "", kept, ""]
        for entry in idle:
            lines += entry_section(entry, [])
    return "\n".join(lines).rstrip() + "\n"


def anchors(artefact, cells):
    """{(table, row, column): anchor on the page} for an artefact's deviating cells
    (``cells``: svmbench.deviations.cells.document_cells of the document the report shows)."""
    entries = load(SOURCE)
    return {(i.cell.table, i.cell.row, i.cell.column_index): i.anchor
            for i in listed([c for c in cells if c.artefact == artefact], entries)}
