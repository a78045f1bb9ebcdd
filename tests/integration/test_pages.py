"""Every committed page re-renders from the committed records it names (issue 45: "no number on
any page contradicts the records it names").

Every artefact (svmbench.render, ``make tables``) is rendered at paper scale from the committed
stores into a scratch folder, two artefacts at a time, with the FW paper's Tables 4-7 (from its
printed Tables 2-3), and each page is compared with the committed file, whole, character for
character: a number that differs is a page that differs. Nothing on these pages is volatile:
their provenance footers are made from the records (svmbench.analysis.sources), not from the
machine or commit rendering them. Figures: their PNG/PDF bytes are not compared (they change
with matplotlib's and FreeType's versions), nor written here (plots.writing_figures); their data
are the tables of the page beside them, which are, and every figure a re-rendered page shows
must be one the tree holds.
docs/deviations.md is compared by tests/integration/test_deviations.py.

A page that does not re-render as committed (differs, is not committed, or is not written from
the committed records) is listed in STALE with why and what re-run fixes it; the test fails when
a listed page matches (remove it) or an unlisted one does not. Every committed Markdown page
under results/ is either re-rendered here or listed in NOT_RENDERED with what writes it.
"""

import os
import re
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import pytest

from svmbench import walltime
from svmbench.analysis import plots
from svmbench.papers.fw import fw_tables
from svmbench.render import ROOT, artefacts, render

ENGINE = ("numba", "svmbench.solvers", "svmbench.models", "svmbench.runner")

# page -> why it does not re-render from its committed records today, and what re-run fixes it
STALE = {}

# committed Markdown pages under results/ that no renderer of svmbench writes from records,
# with what writes them
NOT_RENDERED = {
    "results/README.md": "written by hand: what the folders hold and the commands that fill them",
    "results/fw/NOTE.md": "written by hand: what the FW re-run found",
    "results/fw/bench.md": "a bench timed as it is written (studies/bench_fw.py), no records",
    "results/leaderboard/tuning_budget.md": (
        "a study's output (studies/leaderboard_tuning_budget.py render, from "
        "results/leaderboard/tuning_budget/runs); the study imports the runner, so numba"),
}
# benches and the deviation experiments: outputs of their runs (their footers name the command)
NOT_RENDERED_FOLDERS = {
    "results/bench/": "benches timed as they are written (studies/bench*.py, curve_overhead.py)",
    "results/deviations/": "the deviation experiments' outputs (studies/deviations_*.py)",
}

FIGURE = re.compile(r"!\[[^\]]*\]\(([^)\s]+\.png)\)")
# a page's provenance footer (svmbench.analysis.sources.describe): its commits and how measured
FOOTER = re.compile(r"Records: \d+ .*?Commits: (.*?)\. Solver code .*?(Measured in one run of one "
                    r"clean commit|Measured from one clean commit|Not measured in one run)")
COMMIT = re.compile(r"([0-9a-f]{12}) \(\d+ records")
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def render_one(name, out_root):
    """Render artefact ``name`` under ``out_root``, its figures' files not written (their bytes
    are not compared; docs/changelog.md, 2026-12-03, has what writing them cost): its output
    path and the engine modules the process had loaded by then (a worker of the pool below)."""
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    plots.writing_figures.set(False)
    written = render(name, "paper", out_root=out_root)
    return written, sorted(module for module in ENGINE if module in sys.modules)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """{page relative to the checkout: re-rendered text} of every artefact, rendered in two
    fresh processes (spawn: a test process of the suite has loaded the engine for other tests,
    and a forked worker would inherit it)."""
    out_root = tmp_path_factory.mktemp("pages")
    names = artefacts()
    with ProcessPoolExecutor(max_workers=2, mp_context=get_context("spawn")) as pool:
        results = list(pool.map(render_one, names, [out_root] * len(names)))
    loaded = sorted({module for _, modules in results for module in modules})
    assert loaded == [], f"rendering loaded {loaded}"
    pages = {path.relative_to(out_root).as_posix(): path.read_text()
             for path in sorted(out_root.rglob("*.md"))}
    return {**pages, "results/fw/tables4-7.md": fw_tables.report(),
            "results/wall_times.md": walltime.page(walltime.log_path("paper"))}


def first_difference(committed, fresh):
    """The first line that differs, with the numbers on it that differ, for the message."""
    for number, (old, new) in enumerate(zip(committed.splitlines(), fresh.splitlines()), 1):
        if old != new:
            numbers = [(a, b) for a, b in zip(NUMBER.findall(old), NUMBER.findall(new)) if a != b]
            return f"line {number}: committed {old[:200]!r}\n  re-rendered {new[:200]!r}\n" \
                   f"  numbers committed -> re-rendered: {numbers[:8]}"
    return f"lengths differ: {len(committed.splitlines())} vs {len(fresh.splitlines())} lines"


def compared(rendered, root=ROOT):
    """(pages that match the committed ones under ``root``, {page: how it differs})."""
    matches, differs = [], {}
    for page, fresh in rendered.items():
        committed = root / page
        if not committed.is_file():
            differs[page] = "not committed"
        elif committed.read_text() == fresh:
            matches.append(page)
        else:
            differs[page] = first_difference(committed.read_text(), fresh)
    return matches, differs


def test_every_committed_page_re_renders_as_committed_or_is_listed_stale(rendered):
    matches, differs = compared(rendered)
    assert sorted(set(STALE) & set(matches)) == [], "re-renders as committed now: drop from STALE"
    unlisted = {page: why for page, why in differs.items() if page not in STALE}
    assert unlisted == {}, "\n\n".join(f"{page}: {why}" for page, why in unlisted.items())


def test_every_figure_a_page_shows_is_committed(rendered):
    missing = [f"{page}: {figure}" for page, text in rendered.items() if page not in STALE
               for figure in FIGURE.findall(text)
               for path in [(ROOT / page).parent / figure]
               if not (path.is_file() and path.with_suffix(".pdf").is_file())]
    assert missing == []


def test_every_page_of_the_record_comes_from_one_clean_commit(rendered):
    """The record (results/README.md) is one clean commit: each page's records, every footer,
    name that commit and no dirty tree (a record a copy or a prune left behind shows here)."""
    footers = {page: FOOTER.findall(text) for page, text in rendered.items()
               if page not in STALE}
    mixed = {page: found for page, found in footers.items()
             for commits, how in found if len(COMMIT.findall(commits)) != 1
             or how.startswith("Not") or "dirty" in commits}
    assert mixed == {}, "pages whose records are not from one clean commit"
    commits = {COMMIT.findall(commits)[0] for found in footers.values() for commits, _ in found}
    assert len(commits) == 1, f"the record's pages name commits {sorted(commits)}"


def test_every_committed_page_is_re_rendered_or_says_what_writes_it(rendered):
    committed = set(subprocess.run(["git", "ls-files", "results/*.md"], cwd=ROOT, check=True,
                                   capture_output=True, text=True).stdout.split())
    unaccounted = sorted(page for page in committed - set(rendered) - set(NOT_RENDERED)
                         if page not in STALE and not page.startswith(tuple(NOT_RENDERED_FOLDERS)))
    assert unaccounted == [], "committed pages nothing here re-renders nor names a writer of"
    assert sorted(set(NOT_RENDERED) - committed) == []
    assert sorted(set(NOT_RENDERED) & set(rendered)) == []
