"""The report as a person sees it: Debian's chromium, driven by Selenium, on a site built from the
committed results of a few artefacts and served from 127.0.0.1. Every page loads without a
console error, every image loads, every internal link resolves, each table has the rows its
source says, sorting reorders. Screenshots of the index and an artefact page go to
build/report-screenshots/ (ignored)."""

import json
import re
import urllib.request
from pathlib import Path
from urllib.parse import urldefrag, urlparse

import pytest
from browsing import chromium, console_errors, crawl, needs_chromium, served

from svmbench.render import ROOT
from svmbench.webreport.build import build

pytest.importorskip("selenium.webdriver", reason="selenium not installed "
                    "(pip install -e '.[dev]')")
from selenium.webdriver.common.by import By

pytestmark = needs_chromium
ARTEFACTS = ("gs2008_table2", "gs2008_table3", "tsang_fig1")
SCREENSHOTS = ROOT / "build" / "report-screenshots"


def leaderboard_folder(folder):
    """A leaderboard folder as svmbench/boards/leaderboard.py writes one: a table that shows an SVG,
    and a PNG curve in a subfolder."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    (folder / "curves").mkdir(parents=True)
    figure, axes = plt.subplots(figsize=(3, 2))
    axes.plot([1, 2, 3], [3, 1, 2])
    figure.savefig(folder / "cd.svg")
    figure.savefig(folder / "curves" / "curve.png")
    plt.close(figure)
    (folder / "leaderboard.md").write_text("# Leaderboard\n\n| solver | rank |\n|---|---|\n"
                                           "| a | 1.5 |\n| b | 2.5 |\n\n![CD diagram](cd.svg)\n")
    return folder


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    boards = tmp_path_factory.mktemp("results")
    build(out, list(ARTEFACTS), leaderboards=(
        ("paper scale", leaderboard_folder(boards / "leaderboard")),
        ("quick scale", boards / "quick" / "leaderboard")))
    with served(out) as address:
        yield address


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as driver:
        yield driver


def test_every_page_loads_cleanly_with_its_images_and_links(site, browser):
    pages = crawl(browser, site)
    assert {urlparse(u).path for u in pages} >= {
        "/index.html", "/leaderboard.html", "/bench.html",
        *(f"/artefacts/{name}.html" for name in ARTEFACTS)}
    assert console_errors(pages) == {}
    for url, (_, images, targets) in pages.items():
        assert all(complete and width > 0 for _, complete, width in images), (url, images)
        for target in targets:
            if target.startswith(("data:", "mailto:")):
                continue
            assert target.startswith(site), f"{url} refers outside the site: {target}"
            with urllib.request.urlopen(urldefrag(target).url) as response:
                assert response.status == 200, (url, target)
    assert any(images for _, images, _ in pages.values()), "no page showed a figure"


def test_the_leaderboard_shows_its_tables_and_every_figure_or_says_not_run(site, browser):
    browser.get(f"{site}leaderboard.html")
    sources = [image.get_attribute("src") for image in browser.find_elements(By.TAG_NAME, "img")]
    assert sorted(Path(urlparse(s).path).name for s in sources) == ["cd.svg", "curve.png"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "table.sortable tbody tr")) == 2
    assert "Not run yet" in browser.find_element(By.TAG_NAME, "main").text


def markdown_table_rows(path):
    """Body rows of each pipe table in a Markdown file, counted from its lines."""
    counts, current = [], None
    for line in Path(path).read_text().splitlines() + [""]:
        if line.startswith("|"):
            current = -1 if current is None else current + 1  # the separator is not a row
        elif current is not None:
            counts.append(current)
            current = None
    return counts


def listed_commands(path):
    """The commands of the renderer's "Cells (each re-runs from the shell):" block."""
    text = Path(path).read_text().partition("Cells (each re-runs from the shell):")[2]
    return [line.strip() for line in text.splitlines() if line.startswith("    svmbench ")]


def stored_outcome(cell_folder):
    """'run', 'failed' or 'not run' from a cell's record files, read directly."""
    statuses = [json.loads(p.read_text())["status"] for p in cell_folder.glob("fold-*.json")]
    if not statuses or set(statuses) == {"unsuitable"}:  # the solver cannot take the data set
        return "not run"
    finished = ("converged", "own_rule", "closed_form", "max_iter", "stalled", "infeasible")
    return "run" if all(s in finished for s in statuses) else "failed"


@pytest.mark.parametrize("name, markdown, store", [
    ("gs2008_table2", "results/gs2008/table2.md", "results/gs2008/runs"),
    ("gs2008_table3", "results/gs2008/table3.md", "results/gs2008/runs")])
def test_an_artefact_page_has_the_rows_its_table_and_records_say(site, browser, name, markdown,
                                                                 store):
    browser.get(f"{site}artefacts/{name}.html")
    tables = browser.find_elements(By.CSS_SELECTOR, "table.sortable:not(#cells-table)")
    assert [len(t.find_elements(By.CSS_SELECTOR, "tbody tr")) for t in tables] == \
        markdown_table_rows(ROOT / markdown)
    cells = browser.find_elements(By.CSS_SELECTOR, "#cells-table tbody tr")
    commands = [row.find_element(By.CSS_SELECTOR, "code.command").text for row in cells]
    assert commands == listed_commands(ROOT / markdown)
    for row in cells:
        folder = ROOT / store / row.get_attribute("data-config-hash")
        assert row.get_attribute("data-outcome") == stored_outcome(folder), folder


def column(table, index):
    return [row.find_elements(By.TAG_NAME, "td")[index].get_attribute("data-value")
            for row in table.find_elements(By.CSS_SELECTOR, "tbody tr")]


def leading_number(text):
    """The number a cell starts with (a count may carry its stop mark: '679 [R]'), as sort.js
    reads it."""
    return float(text.split()[0])


def test_clicking_a_header_sorts_its_column_and_a_second_click_reverses(site, browser):
    browser.get(f"{site}artefacts/gs2008_table2.html")
    table = browser.find_elements(By.CSS_SELECTOR, "table.compared")[0]
    headers = table.find_elements(By.CSS_SELECTOR, "thead th")
    index = [h.text.strip(" ↕↑↓") for h in headers].index("SV ours")
    before = column(table, index)
    numbers = sorted(leading_number(v) for v in before if v)
    headers[index].find_element(By.TAG_NAME, "button").click()
    ascending = column(table, index)
    assert ascending != before
    assert [leading_number(v) for v in ascending if v] == numbers
    assert headers[index].get_attribute("aria-sort") == "ascending"
    headers[index].find_element(By.TAG_NAME, "button").click()
    assert [leading_number(v) for v in column(table, index) if v] == numbers[::-1]
    assert headers[index].get_attribute("aria-sort") == "descending"


def whole_page_screenshot(browser, path):
    """A screenshot of the whole page (the window grown to the page's height, then restored)."""
    width, height = browser.get_window_size().values()
    page, viewport = browser.execute_script(
        "return [document.documentElement.scrollHeight, window.innerHeight];")
    browser.set_window_size(width, page + height - viewport)  # the window's frame is not page
    assert browser.save_screenshot(str(path))
    browser.set_window_size(width, height)


def test_the_scoreboard_counts_and_colours_and_screenshots_are_written(site, browser):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.get(f"{site}index.html")
    rows = {row.get_attribute("data-artefact"): [td.text for td in
                                                 row.find_elements(By.TAG_NAME, "td")]
            for row in browser.find_elements(By.CSS_SELECTOR, "#scoreboard tbody tr")}
    assert set(rows) == set(ARTEFACTS)
    cells, run = int(rows["gs2008_table2"][1]), int(rows["gs2008_table2"][2])
    assert cells == run == 24  # svmbench/papers/gs2008/experiment/gs2008_table2.yaml: 24 cells at paper scale
    whole_page_screenshot(browser, SCREENSHOTS / "index.png")
    browser.get(f"{site}artefacts/gs2008_table2.html")
    coloured = browser.find_elements(By.CSS_SELECTOR, "table.compared td[title^='paper ']")
    assert coloured and all(re.search(r"within|dev-", c.get_attribute("class"))
                            for c in coloured)
    whole_page_screenshot(browser, SCREENSHOTS / "artefact.png")
