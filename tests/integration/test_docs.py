"""The documentation site and the README as a front door.

The site (docs/, `make docs`) builds with warnings as errors; a link to a page, a heading or a
repository path that does not exist fails the build (checked on a small project of its own, each
kind of break once, beside the same links intact); the built index opens in headless Chromium with
every page it reaches loading cleanly. The README keeps the data variable before the first
command that needs data, names only make targets that exist, links only to files that exist, and
its `svmbench` commands and the tutorial's compose into cells whose keys their algorithms have.
"""

import html
import re
import shlex
import subprocess
import sys
import urllib.request
from pathlib import Path
from urllib.parse import urldefrag

import pytest
from browsing import chromium, console_errors, crawl, needs_chromium, served

from svmbench.conf import CONF_DIR

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def sphinx_build(source, out):
    """Run Sphinx as `make docs` does (fresh environment, warnings as errors)."""
    return subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-E", "-W",
                           "--keep-going", "-q", str(source), str(out)],
                          capture_output=True, text=True, cwd=ROOT, check=False)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("myst_parser", reason="the docs extras: pip install -e '.[dev]'")
    out = tmp_path_factory.mktemp("docs-html")
    build = sphinx_build(DOCS, out)
    return out, build


def test_the_site_builds_without_a_warning(site):
    out, build = site
    assert build.returncode == 0, build.stderr
    assert "WARNING" not in build.stderr, build.stderr
    for page in ("index", "tutorial", "reference/config", "reference/records",
                 "reference/statuses", "reference/cli", "reference/api", "DESIGN", "changelog",
                 "deviations", "cluster", "report"):
        assert (out / f"{page}.html").is_file(), page


def test_the_reference_lists_what_the_code_has(site):
    """Every algorithm config (the solver specs' and the files'), with the reason of every harness
    default apart from its estimator's, every status, every make target of `make help` and every
    public estimator appears in the generated reference."""
    out, _ = site
    import svmbench
    from svmbench.solvers.base import STATUSES
    from svmbench.specs import declared_specs

    config = (out / "reference" / "config.html").read_text()
    text = html.unescape(re.sub(r"<[^>]+>", "", config))
    text = text.replace("\u2018", "'").replace("\u2019", "'")  # smart quotes
    for name in {*(path.stem for path in (CONF_DIR / "algorithm").glob("*.yaml")),
                 *declared_specs()}:
        assert name in text, name
    for name, spec in declared_specs().items():
        for key, reason in spec.harness_reasons().items():
            assert reason in text, (name, key)
    statuses = (out / "reference" / "statuses.html").read_text()
    assert all(status in statuses for status in STATUSES)
    help_text = subprocess.run(["make", "-s", "--no-print-directory", "help"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout
    cli = re.sub(r"<[^>]+>", "", (out / "reference" / "cli.html").read_text())
    for target in re.findall(r"^  ([\w-]+):", help_text, flags=re.MULTILINE):
        assert f"make {target}" in cli, target
    api = (out / "reference" / "api.html").read_text()
    for name in svmbench.__all__:
        if not name.startswith("_"):
            assert re.search(rf'id="svmbench\.[\w.]*\b{name}"', api), name
    records = (out / "reference" / "records.html").read_text()
    for field in ("kernel_requested", "kernel_computed", "status", "stop", "referee_gap",
                  "code_fingerprint"):
        assert field in records, field


SMALL_CONF = """
import sys
sys.path.insert(0, {ext!r})
extensions = ["myst_parser", "svmbench_reference"]
myst_heading_anchors = 4
svmbench_reference_pages = False
svmbench_repository_root = {root!r}
"""
GOOD_LINKS = ("[a page](other.md), [a heading](other.md#a-heading), "
              "[a repository file](../code/module.py), [a folder](../code)")
BROKEN_LINKS = {
    "page": "[a page](nothere.md)",
    "heading": "[a heading](other.md#no-such-heading)",
    "repository file": "[a repository file](../code/missing.py)",
    "repository Markdown file": "[a repository page](../code/missing.md)",
}


def small_site(root, links):
    """A two-page project under ``root/docs`` (with ``root/code/module.py`` beside it) whose
    index holds ``links``; built with the site's link handling; returns the build."""
    (root / "code").mkdir(parents=True)
    (root / "code" / "module.py").write_text("x = 1\n")
    source = root / "docs"
    source.mkdir()
    (source / "conf.py").write_text(SMALL_CONF.format(ext=str(DOCS / "_ext"), root=str(root)))
    (source / "index.md").write_text(f"# Index\n\n{links}\n\n```{{toctree}}\nother\n```\n")
    (source / "other.md").write_text("# Other\n\n## A heading\n\ntext\n")
    return sphinx_build(source, root / "html")


def test_intact_links_build_and_point_into_the_checkout(tmp_path):
    pytest.importorskip("myst_parser")
    build = small_site(tmp_path, GOOD_LINKS)
    assert build.returncode == 0, build.stderr
    index = (tmp_path / "html" / "index.html").read_text()
    assert 'href="../code/module.py"' in index and 'href="../code"' in index
    assert 'href="other.html#a-heading"' in index


@pytest.mark.parametrize("kind", BROKEN_LINKS)
def test_a_broken_internal_link_fails_the_build(tmp_path, kind):
    pytest.importorskip("myst_parser")
    build = small_site(tmp_path, f"{GOOD_LINKS}, {BROKEN_LINKS[kind]}")
    assert build.returncode != 0, f"a broken {kind} link built: {build.stderr}"
    assert "WARNING" in build.stderr


@needs_chromium
def test_the_index_opens_in_chromium_and_every_page_it_reaches_loads(site, tmp_path):
    from selenium.webdriver.common.by import By

    def has_a_heading(browser, url):
        assert browser.find_elements(By.CSS_SELECTOR, "h1"), url

    out, build = site
    assert build.returncode == 0, build.stderr
    with served(out) as start, chromium(tmp_path / "profile") as browser:
        browser.get(start + "index.html")
        assert browser.title.startswith("svmbench")
        headings = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "h1")]
        assert "svmbench" in " ".join(headings)
        # links into the checkout (class "repository") leave the served site by design
        pages = crawl(browser, start, check=has_a_heading,
                      links="a[href]:not(.repository), link[href], img[src], script[src]")
        assert console_errors(pages) == {}
        for url, (_, _, targets) in pages.items():
            for target in {urldefrag(t).url for t in targets if t.startswith(start)}:
                with urllib.request.urlopen(target) as response:
                    assert response.status == 200, (url, target)
    assert len(pages) >= 20, sorted(pages)


# ---- the README as a front door

# commands that need no real data set: the bundled sets, and targets that read committed files
NO_DATA_TARGETS = {"run", "test", "venv", "help", "docs", "lint", "tables", "figures", "report",
                   "deviations", "wall-times", "clean-numba", "fw-tables4-7"}


def readme_commands(text):
    """The shell lines of the fenced ``sh`` blocks, continuation lines joined, comments cut."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].strip()
            if line and not line.startswith("#"):
                commands.append(line)
    return commands


def make_targets():
    """Every target the Makefile and mk/*.mk define."""
    text = "\n".join(path.read_text() for path in [ROOT / "Makefile", *ROOT.glob("mk/*.mk")])
    targets = set(re.findall(r"^([\w-]+):", text, flags=re.MULTILINE))
    artefacts = re.search(r"^ARTEFACTS := (.*?)\n(?!\s)", text, flags=re.MULTILINE | re.DOTALL)
    return targets | set(artefacts[1].replace("\\", " ").split())


def needs_data(command):
    from svmbench.data.registry import REGISTRY

    words = shlex.split(command)
    if words[0] == "make":
        return bool(set(words[1:2]) - NO_DATA_TARGETS)
    datasets = [value for word in words if word.startswith("dataset=")
                for value in word.split("=", 1)[1].split(",")]
    return any(REGISTRY[name].reader != "sklearn" for name in datasets)


def test_the_readme_is_a_front_door():
    text = README.read_text()
    lines = text.splitlines()
    assert len(lines) <= 140, f"README.md has {len(lines)} lines; the site holds the details"
    commands = readme_commands(text)
    assert commands[:1] == ["make run"], "the main job comes first"
    assert "make test" in commands
    first_data = next(i for i, command in enumerate(commands) if needs_data(command))
    data_line = text.index("export SVMBENCH_DATA_PATH")
    assert data_line < text.index(commands[first_data]), (
        f"SVMBENCH_DATA_PATH comes after {commands[first_data]!r}, which needs data")
    targets = make_targets()
    for command in commands:
        words = shlex.split(command)
        if words[0] == "make":
            assert words[1] in targets, f"README names make {words[1]}, which does not exist"
    for link in re.findall(r"\]\(([^)#\s]+)", text):
        if "://" not in link:
            assert (ROOT / link).exists(), f"README links to {link}, which does not exist"
    assert "docs/_build/html/index.html" in text and "make docs" in text


def svmbench_overrides(page):
    """The overrides of every `svmbench` command of a page, a sweep's first values."""
    for command in readme_commands(page.read_text()):
        words = shlex.split(command)
        while words and "=" in words[0]:  # PYTHONPATH=... before the command
            words.pop(0)
        if words and words[0].endswith("bin/svmbench"):
            overrides = [word for word in words[1:] if word != "-m" and "=" in word]
            yield command, [re.sub(r"=([^,\[]*),.*$", r"=\1", word) if "[" not in word
                            else word for word in overrides]


@pytest.mark.parametrize("page", [README, DOCS / "tutorial.md", DOCS / "howto" / "sweeps.md"],
                         ids=lambda path: path.name)
def test_the_commands_of_a_page_compose_into_cells_their_algorithms_can_run(page):
    """Each `svmbench` command of the page composes (Hydra) and every algorithm key it sets is
    one its algorithm has (runner.check_algorithm), without loading data or training. A plug-in
    that is not installed here (the tutorial installs toy_cd) is skipped."""
    from hydra import compose, initialize_config_dir

    from svmbench import runner
    from svmbench.solvers.plugins import plugins

    checked = 0
    runner.register_configs()  # what the command registers before it composes
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        for command, overrides in svmbench_overrides(page):
            algorithm = dict(o.split("=", 1) for o in overrides).get("algorithm", "")
            if algorithm in {"toy_cd"} - set(plugins()) or algorithm == "target":
                continue
            overrides = [o for o in overrides if not o.startswith(("hydra/", "hydra."))]
            cfg = compose("config", overrides)
            runner.check_algorithm(runner.cell_config(cfg)["algorithm"])
            checked += 1
    assert checked, f"no svmbench command checked in {page.name}"
