"""Build the static report site from the committed results and the stores (no training).

    python -m svmbench.webreport --out results/site          # every artefact (make report)
    python -m svmbench.webreport --out /tmp/s gs2008_table2  # some artefacts only

Pages: ``index.html`` (the reproduction scoreboard), ``artefacts/<name>.html`` (table beside the
paper's with deviations coloured, figures, notes, provenance, every cell's command and record),
``leaderboard.html``, ``claims.html`` (the claims ledger: each seed paper's claims with a verdict,
results/leaderboard/claims.md), ``bench.html``, ``deviations.html`` (docs/deviations.md, which each
deviating cell of an artefact page links to) and ``pages/<file>.html`` for the other results
notes.
"""

import argparse
import json
import multiprocessing
import os
import shutil
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import pandas as pd
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from svmbench.analysis.sources import same_run, sources
from svmbench.conf import CONF_DIR, experiment_files
from svmbench.deviations import page as deviations
from svmbench.deviations.cells import document_cells
from svmbench.render import ROOT, artefacts
from svmbench.sweep import artefact_settings, cells
from svmbench.webreport import compare
from svmbench.webreport.cells import FAILED, NOT_RUN, RUN, cell_views
from svmbench.webreport.markdown_blocks import parse

SCALE = "paper"  # the committed results
RESULTS = ROOT / "results"
IMAGES = (".png", ".svg")
LEADERBOARDS = (("paper scale", RESULTS / "leaderboard"),
                ("quick scale", RESULTS / "quick" / "leaderboard"))
BENCH = RESULTS / "bench"
CLAIMS = RESULTS / "leaderboard" / "claims.md"  # written with leaderboard.md, a page of its own
SKIP = {"runs", "quick", "site", "leaderboard", "bench", "store", "quickstart"}


@dataclass
class Document:
    """A Markdown file of results/ with the images that belong to it, as blocks for a page."""

    source: str  # its path in the checkout
    title: str
    blocks: list
    images: list = field(default_factory=list)  # (site path, title, pdf site path or None)


class Site:
    """Copies of images and records inside the output folder; page rendering."""

    def __init__(self, out):
        self.out = Path(out)
        self.embedded = set()  # files a Markdown document shows itself
        self.templates = Environment(loader=PackageLoader("svmbench.webreport"),
                                     autoescape=select_autoescape(), undefined=StrictUndefined,
                                     trim_blocks=True, lstrip_blocks=True)
        self.templates.filters["number"] = compare.number

    def copy(self, path):
        """Copy a file into figures/ (under its path in the checkout); return its site path."""
        target = Path("figures") / shown_path(path)
        (self.out / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, self.out / target)
        return target.as_posix()

    def document(self, path, root, images=()):
        """Parse a Markdown file for a page ``root`` away from the site's top (``""`` or
        ``"../"``); copy the files it shows from its folder and ``images`` (with PDF twins)."""
        def resolve(target):
            if "://" in target or target.startswith("#"):
                return target
            found = (path.parent / target).resolve()
            if not (found.is_file() and path.parent.resolve() in found.parents):
                return None
            self.embedded.add(found)
            return root + self.copy(found)

        title, blocks = parse(path.read_text(), resolve)
        for block in blocks:
            if block.kind == "table":
                compare.annotate(block, title)
        return Document(shown_path(path).as_posix(), title or path.stem, blocks,
                        self.figures(images))

    def figures(self, images):
        """Copy each image (and its PDF twin); (site path, name, PDF site path or None)."""
        shown = []
        for image in sorted(images):
            pdf = image.with_suffix(".pdf")
            shown.append((self.copy(image), shown_path(image).as_posix(),
                          self.copy(pdf) if pdf.is_file() else None))
        return shown

    def write(self, page, template, **context):
        target = self.out / page
        target.parent.mkdir(parents=True, exist_ok=True)
        root = "../" * page.count("/")
        target.write_text(self.templates.get_template(template).render(root=root, page=page,
                                                                       **context))

    def write_record(self, view):
        """The cell's records (every fold) as one JSON file; its site path."""
        target = Path("records") / f"{view.config_hash}.json"
        (self.out / target).parent.mkdir(parents=True, exist_ok=True)
        (self.out / target).write_text(json.dumps(view.records, indent=1, sort_keys=True))
        return target.as_posix()


def shown_path(path):
    """A file's path in the checkout (outside it, its absolute path without the leading /)."""
    path = Path(path).resolve()
    return path.relative_to(ROOT) if ROOT in path.parents else Path(*path.parts[1:])


@dataclass
class Score:
    """One artefact's line on the scoreboard."""

    name: str
    title: str
    page: str
    cells: int
    run: int
    failed: int
    not_run: int
    reasons: list  # (reason, count) for failed and not run cells
    compared: int
    within: int
    timing: int
    timing_within: int
    one_clean_run: bool
    rendered: bool

    @property
    def deviating(self):
        return self.compared - self.within


def paper_cells(name):
    """An artefact's cells at paper scale (a worker's task)."""
    return cells(name, SCALE)


def cells_of(names, workers):
    """Each artefact's cells; composing every cell's config is most of the build's time, so
    artefacts are composed in ``workers`` processes (spawned: a forked copy of a process whose
    numba threads run could hang)."""
    with ProcessPoolExecutor(max(1, min(workers, len(names))),
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        return dict(zip(names, pool.map(paper_cells, names)))


def link_deviations(name, document):
    """Link each deviating cell of an artefact's tables to its entry on the deviations page
    (svmbench.deviations: the entry that covers it, or its table's unexplained cells)."""
    tables = [block for block in document.blocks if block.kind == "table"]
    cells = document_cells(name, document.title, document.blocks)
    for (table, row, column), anchor in deviations.anchors(name, cells).items():
        tables[table].links[(row, column)] = f"deviations.html#{anchor}"


def artefact_page(site, name, artefact_cells):
    """Write ``artefacts/<name>.html``; return its :class:`Score`."""
    settings, store_dir = artefact_settings(name, SCALE)
    output = ROOT / settings["output"]
    views = cell_views(artefact_cells, ROOT / store_dir, name, SCALE)
    records = pd.DataFrame.from_records([r for v in views for r in v.records])
    images = [p for p in output.parent.glob(f"{output.stem}.*") if p.suffix in IMAGES]
    document = site.document(output, "../", images) if output.is_file() else None
    if document:
        link_deviations(name, document)
    found = [c for b in (document.blocks if document else []) if b.kind == "table"
             for c in b.comparisons.values()]
    scored = [c for c in found if not c.timing]
    timing = [c for c in found if c.timing]
    outcomes = Counter(v.outcome for v in views)
    reasons = Counter(v.reason for v in views if v.outcome != RUN)
    record_pages = {v.config_hash: site.write_record(v) for v in views if v.records}
    page = f"artefacts/{name}.html"
    score = Score(name, document.title if document else name, page, len(views), outcomes[RUN],
                  outcomes[FAILED], outcomes[NOT_RUN], sorted(reasons.items()), len(scored),
                  sum(c.within for c in scored), len(timing), sum(c.within for c in timing),
                  same_run(records), document is not None)
    site.write(page, "artefact.html.j2", name=name, document=document, score=score, views=views,
               record_pages=record_pages, provenance=sources(records),
               output=output.relative_to(ROOT).as_posix(), bands=compare.BANDS,
               config=experiment_files()[name][1].relative_to(CONF_DIR.parent.parent).as_posix())
    return score


@dataclass
class Folder:
    """A results folder shown whole (leaderboard, bench): its Markdown files and its images."""

    path: str
    documents: list
    figures: list

    @property
    def empty(self):
        return not (self.documents or self.figures)


def folder(site, path, exclude=()):
    """Every Markdown file (but those named in ``exclude``) and every image (any depth) of a
    folder, for a top-level page; the images the Markdown does not show itself follow it."""
    markdown = sorted(p for p in path.glob("*.md") if p.name not in exclude) \
        if path.is_dir() else []
    documents = [site.document(p, "") for p in markdown]
    images = [p for p in path.rglob("*") if p.suffix in IMAGES and p.resolve() not in site.embedded]
    return Folder(shown_path(path).as_posix(), documents, site.figures(images))


def other_documents(site, artefact_outputs):
    """results Markdown that is neither an artefact's table nor bench/leaderboard output."""
    pages = []
    for path in sorted(RESULTS.glob("*/*.md")):
        if path.parent.name in SKIP or path in artefact_outputs:
            continue
        page = f"pages/{path.parent.name}-{path.stem}.html"
        site.write(page, "document.html.j2", document=site.document(path, "../"))
        pages.append((page, shown_path(path).as_posix()))
    return pages


def empty_site_folder(out):
    """``out``, emptied: it may be missing, empty, or a site this module built (it has
    ``static/report.css``); anything else is refused, never deleted."""
    if out.is_dir() and any(out.iterdir()):
        if not (out / "static" / "report.css").is_file():
            raise ValueError(f"{out} is not empty and is not a report site built before; "
                             "give --out a new or empty folder (default results/site)")
        shutil.rmtree(out)
    elif out.exists() and not out.is_dir():
        raise ValueError(f"{out} is a file; give --out a folder")
    return out


def build(out, names=None, workers=None, leaderboards=LEADERBOARDS, bench=BENCH, claims=CLAIMS):
    """Write the site into ``out`` (emptied first); return the scoreboard. ``leaderboards``:
    (label, folder) pairs; ``bench``: the folder of ``make bench`` results; ``claims``: the
    claims ledger's Markdown (its page is left out when the file is missing)."""
    out = Path(out)
    site = Site(empty_site_folder(out))
    static = resources.files("svmbench.webreport").joinpath("static")
    (out / "static").mkdir(parents=True)
    for asset in static.iterdir():
        (out / "static" / asset.name).write_bytes(asset.read_bytes())
    chosen = list(names or artefacts())
    scores = [artefact_page(site, name, found) for name, found in
              cells_of(chosen, workers or os.cpu_count()).items()]
    outputs = {ROOT / artefact_settings(name, SCALE)[0]["output"] for name in artefacts()}
    pages = other_documents(site, outputs)
    leaderboards = [(label, folder(site, path, exclude={claims.name}))
                    for label, path in leaderboards]
    bench = folder(site, bench)
    ledger = site.document(claims, "") if claims.is_file() else None
    if ledger:
        site.write("claims.html", "document.html.j2", document=ledger)
    site.write("leaderboard.html", "leaderboard.html.j2", leaderboards=leaderboards)
    site.write("bench.html", "folder.html.j2", title="make bench", folder=bench)
    if deviations.PAGE.is_file():
        site.write("deviations.html", "document.html.j2",
                   document=site.document(deviations.PAGE, ""))
    site.write("index.html", "index.html.j2", scores=scores, pages=pages,
               leaderboards=leaderboards, bench=bench, claims=ledger,
               tolerance=compare.RELATIVE_TOLERANCE,
               bands=compare.BANDS)
    return scores


def main(argv=None):
    parser = argparse.ArgumentParser(description="Build the static report site (no training).")
    parser.add_argument("names", nargs="*", help="artefacts to include (default: every one)")
    parser.add_argument("--out", default=str(RESULTS / "site"), help="output folder")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(),
                        help="processes composing the cells (default: every core)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(artefacts()))
    if unknown:
        parser.error(f"no artefact {unknown}; choose from {artefacts()}")
    try:
        scores = build(args.out, args.names, args.jobs)
    except ValueError as error:
        parser.error(str(error))
    print(f"wrote {len(scores)} artefact pages to {args.out}/index.html", file=sys.stderr)
