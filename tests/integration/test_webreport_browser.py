"""The report as a person sees it: Debian's chromium, driven by Selenium, on a site built from the
committed results of a few artefacts and served from 127.0.0.1. Every page loads without a
console error, every image loads, every internal link resolves, each table has the rows its
source says, sorting reorders. Screenshots of the index and an artefact page go to
build/report-screenshots/ (ignored)."""

import functools
import http.server
import json
import re
import shutil
import threading
import urllib.request
from pathlib import Path
from urllib.parse import urldefrag, urlparse

import pytest

from svmbench.render import ROOT
from svmbench.webreport.build import build

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed "
                                "(pip install -e '.[dev]')")
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="chromium or chromedriver missing: apt-get install chromium chromium-driver "
           "(.ci/run does)")
ARTEFACTS = ("gs2008_table2", "gs2008_table3", "tsang_fig1")
SCREENSHOTS = ROOT / "build" / "report-screenshots"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000")


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
    handler = functools.partial(Quiet, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def crawl(browser, start):
    """Visit every HTML page reachable from ``start``; per page: console entries, images'
    natural widths, and every address the page refers to."""
    seen, queue, pages = set(), [start + "index.html"], {}
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        browser.get(url)
        console = browser.get_log("browser")
        images = browser.execute_script(
            "return Array.from(document.images, i => [i.src, i.complete, i.naturalWidth]);")
        targets = browser.execute_script(
            "return Array.from(document.querySelectorAll('[href], [src]'), "
            "e => e.href || e.src);")
        pages[url] = (console, images, targets)
        for target in targets:
            address = urldefrag(target).url
            if address.startswith(start) and address.endswith(".html"):
                queue.append(address)
    return pages


def test_every_page_loads_cleanly_with_its_images_and_links(site, browser):
    pages = crawl(browser, site)
    assert {urlparse(u).path for u in pages} >= {
        "/index.html", "/leaderboard.html", "/bench.html",
        *(f"/artefacts/{name}.html" for name in ARTEFACTS)}
    for url, (console, images, targets) in pages.items():
        errors = [entry for entry in console if entry["level"] in ("SEVERE", "WARNING")]
        assert not errors, f"{url}: console {errors}"
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
