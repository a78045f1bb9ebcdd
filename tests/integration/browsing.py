"""What the browser tests share (tests/integration/test_webreport_browser.py, test_docs.py):
Debian's chromium driven by Selenium, a folder served from 127.0.0.1, and a crawl of every page
a site's index reaches."""

import contextlib
import functools
import http.server
import shutil
import threading
from urllib.parse import urldefrag

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
needs_chromium = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="chromium or chromedriver missing: apt-get install chromium chromium-driver "
           "(.ci/run does)")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000")
EVERY_REFERENCE = "[href], [src]"
SERIOUS = ("SEVERE", "WARNING")  # console levels a clean page has none of


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def served(folder):
    """``folder`` served over HTTP on a free port of 127.0.0.1; yields its base address."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()


@contextlib.contextmanager
def chromium(profile):
    """A headless chromium (profile folder ``profile``) that keeps the console log."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed "
                                    "(pip install -e '.[dev]')")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def crawl(browser, start, links=EVERY_REFERENCE, check=None):
    """Visit every HTML page under ``start`` reachable from its index.html through the elements
    matching the CSS selector ``links``. On each page, while it is open, ``check(browser, url)``
    runs (when given). Returns {url: (console entries, images as (src, complete, natural width),
    every address the page's ``links`` refer to)}."""
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
            f"return Array.from(document.querySelectorAll({links!r}), e => e.href || e.src);")
        if check is not None:
            check(browser, url)
        pages[url] = (console, images, targets)
        for target in targets:
            address = urldefrag(target).url
            if address.startswith(start) and address.endswith(".html"):
                queue.append(address)
    return pages


def console_errors(pages):
    """{url: its console's errors and warnings} of the crawled pages that have any."""
    found = {url: [e for e in console if e["level"] in SERIOUS]
             for url, (console, _, _) in pages.items()}
    return {url: errors for url, errors in found.items() if errors}
