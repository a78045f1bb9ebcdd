"""The report site's parts: Markdown blocks, the ours-vs-paper pairing and tolerance, cells'
outcomes from a store (read without touching it). The browser test is test_webreport_browser."""

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from svmbench.sweep import Cell
from svmbench.webreport.build import empty_site_folder
from svmbench.webreport.cells import FAILED, NOT_RUN, RUN, cell_views
from svmbench.webreport.compare import Comparison, comparisons, half_unit, number
from svmbench.webreport.markdown_blocks import parse

DOCUMENT = """# Table X — a title

Intro paragraph.

| Problem | SV ours | SV paper | SV diff | Time s ours | Time s paper | Note |
|---|---|---|---|---|---|---|
| A | **100** | 100 | 0 | 1.5 | 3.0 | |
| B | 130 | 100 | 30 | — | 2.0 | not run yet |

Records: 2.

Cells (each re-runs from the shell):

    svmbench +experiment=x scale=paper dataset=a
"""


def test_a_document_splits_into_title_text_and_tables_without_the_command_list():
    title, blocks = parse(DOCUMENT)
    assert title == "Table X — a title"
    assert [b.kind for b in blocks] == ["text", "table", "text"]
    table = blocks[1]
    assert table.header[:3] == ["Problem", "SV ours", "SV paper"]
    assert [[c.text for c in row][:3] for row in table.rows] == [["A", "100", "100"],
                                                                 ["B", "130", "100"]]
    assert table.rows[0][1].html == "<strong>100</strong>"
    assert table.intro == "Intro paragraph."
    assert "Records: 2." in blocks[2].html and "svmbench +experiment" not in blocks[2].html


def test_links_are_mapped_or_dropped_and_markup_is_escaped():
    _, blocks = parse("![f](fig.png) [n](other.md) <script>x</script>",
                      lambda target: "figures/fig.png" if target == "fig.png" else None)
    html = blocks[0].html
    assert 'src="figures/fig.png"' in html and "other.md" not in html
    assert "<script>" not in html


@pytest.mark.parametrize("text, value", [("**84.93**", 84.93), ("84.40 ± 0.02", 84.40),
                                         ("14.36x", 14.36), ("−1.5", -1.5), ("3.085e-06", 3.085e-06),
                                         ("—", None), ("", None)])
def test_number_reads_the_first_number_of_a_cell(text, value):
    assert number(text) == value


@pytest.mark.parametrize("text, unit", [("0.4", 0.05), ("679", 0.5), ("15.70", 0.005),
                                        ("3.085e-06", 5e-10), ("n/a", 0.0)])
def test_half_unit_is_half_the_last_printed_digit(text, unit):
    assert half_unit(text) == pytest.approx(unit)


def test_the_four_ways_tables_put_the_paper_beside_us_are_all_paired():
    def pairs(markdown):
        title, blocks = parse(markdown)
        return [(c.row, c.column, c.ours, c.paper, c.timing)
                for c in comparisons(blocks[-1], title)]

    _, blocks = parse(DOCUMENT)
    assert [(c.row, c.column, c.ours, c.paper, c.timing) for c in comparisons(blocks[1])] == [
        (0, 1, 100, 100, False), (1, 1, 130, 100, False), (0, 4, 1.5, 3.0, True)]
    assert pairs("| D | Iter. SMO | paper Iter. SMO |\n|---|---|---|\n| a | 12 | 10 |\n") == [
        (0, 1, 12, 10, False)]
    assert pairs("| D | FW/CVM (paper) |\n|---|---|\n| a | 0.28x (0.5x) |\n") == [
        (0, 1, 0.28, 0.5, False)]
    assert pairs("Each cell: ours / paper.\n\n| set | SVM | SVM - Parzen | notes |\n"
                 "|---|---|---|---|\n| a | 25.1 / 23.1 | +1.0 / -0.2 | mean (paper: 100) |\n"
                 "| b | - / 24.8 | - / +0.1 | not run |\n") == [
        (0, 1, 25.1, 23.1, False)]
    assert pairs("# T — training time (s)\n\n| D | CVM ours | CVM paper |\n|---|---|---|\n"
                 "| a | 1 | 2 |\n") == [(0, 1, 1, 2, True)]


def test_tolerance_is_five_percent_or_the_papers_rounding():
    assert Comparison(0, 0, 104.9, 100, "100", False).within
    assert not Comparison(0, 0, 105.2, 100, "100", False).within
    assert Comparison(0, 0, 0.44, 0.4, "0.4", False).within          # rounding: 0.4 +- 0.05
    assert not Comparison(0, 0, 0.46, 0.4, "0.4", False).within
    assert Comparison(0, 0, 0.0, 0.0, "0", False).css_class == "within"
    assert Comparison(0, 0, 1.0, 0.0, "0", False).deviation == math.inf
    assert [Comparison(0, 0, ours, 100, "100", False).css_class
            for ours in (120, 180, 260)] == ["dev-small", "dev-medium", "dev-large"]


@given(st.floats(0.01, 1e6), st.integers(0, 4), st.floats(-3, 3))
def test_a_smaller_deviation_never_leaves_the_tolerance(paper, decimals, relative):
    printed = f"{paper:.{decimals}f}"
    value = float(printed)
    far = Comparison(0, 0, value * (1 + relative), value, printed, False)
    near = Comparison(0, 0, value * (1 + relative / 2), value, printed, False)
    assert Comparison(0, 0, value, value, printed, False).within
    assert near.within or not far.within
    assert far.within == (abs(far.ours - value) <= max(0.05 * value, 0.5 * 10.0 ** -decimals)
                          * (1 + 1e-9))


def test_cells_outcomes_come_from_the_store_which_is_left_untouched(tmp_path):
    def store(config_hash, fold, content):
        path = tmp_path / config_hash / f"fold-{fold}.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content))

    store("aa", 0, {"status": "converged", "dataset": "a1a"})
    store("aa", 1, {"status": "max_iter", "dataset": "a1a"})
    store("bb", 0, {"status": "failed:DataError: a1a missing"})
    store("cc", 0, "{not json")
    store("ee", -1, {"status": "unsuitable", "unsuitable_reason": "hm_svm needs separable data"})
    before = {p: p.read_bytes() for p in tmp_path.rglob("*")if p.is_file()}
    cells = [Cell(("dataset=a1a",), h) for h in ("aa", "bb", "cc", "dd", "ee")]
    views = cell_views(cells, tmp_path, "x", "paper")
    assert [v.outcome for v in views] == [RUN, FAILED, FAILED, NOT_RUN, NOT_RUN]
    assert [v.reason for v in views] == ["1 of 2 folds max_iter", "DataError: a1a missing",
                                         "unreadable record(s): fold-0.json",
                                         "no record in the store",
                                         "unsuitable: hm_svm needs separable data"]
    assert views[0].command == "svmbench +experiment=x scale=paper dataset=a1a"
    assert views[0].field("dataset") == "a1a"
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_the_output_folder_is_emptied_only_when_it_is_a_site_built_before(tmp_path):
    results = tmp_path / "results"
    (results / "gs2008").mkdir(parents=True)
    (results / "gs2008" / "table2.md").write_text("ours")
    with pytest.raises(ValueError, match="not a report site built before"):
        empty_site_folder(results)
    assert (results / "gs2008" / "table2.md").read_text() == "ours"
    site = tmp_path / "site"
    (site / "static").mkdir(parents=True)
    (site / "static" / "report.css").write_text("")
    assert not empty_site_folder(site).exists()
    assert empty_site_folder(tmp_path / "new") == tmp_path / "new"


def test_the_claims_ledger_is_a_page_linked_from_the_index_and_not_repeated(tmp_path,
                                                                           monkeypatch):
    from svmbench.webreport import build as site_build

    monkeypatch.setattr(site_build, "cells_of", lambda names, workers: {})  # no artefact pages
    build = site_build.build

    board = tmp_path / "board"
    board.mkdir()
    (board / "leaderboard.md").write_text("# Leaderboard\n\n| solver | rank |\n|---|---|\n"
                                          "| a | 1.5 |\n")
    (board / "claims.md").write_text("# Claims ledger\n\n| # | Claim | Verdict |\n|---|---|---|\n"
                                     "| 1 | GS-SVM is as accurate | **holds in part** |\n")
    out = tmp_path / "site"
    build(out, ["gs2008_table2"], workers=1, leaderboards=(("paper scale", board),),
          bench=tmp_path / "no-bench", claims=board / "claims.md")
    assert "holds in part" in (out / "claims.html").read_text()
    assert 'href="claims.html"' in (out / "index.html").read_text()
    assert "holds in part" not in (out / "leaderboard.html").read_text()
    missing = tmp_path / "site2"
    build(missing, ["gs2008_table2"], workers=1, leaderboards=(("paper scale", board),),
          bench=tmp_path / "no-bench", claims=tmp_path / "none.md")
    assert not (missing / "claims.html").exists()
    assert "Not rendered yet" in (missing / "index.html").read_text()
