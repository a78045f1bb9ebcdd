"""svmbench.analysis.tables: aggregation, bolding, side-by-side, rendering and CSV round trip."""

import numpy as np
import pandas as pd
import pytest

from svmbench.analysis import tables
from svmbench.analysis.sources import sources
from svmbench.analysis.stats import wilcoxon_signed_rank


def make_records(seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    # On "easy" gs and svm are equivalent and hm is clearly worse; on "hard" gs is clearly best.
    means = {"easy": {"gs": 0.10, "svm": 0.101, "hm": 0.30},
             "hard": {"gs": 0.05, "svm": 0.25, "hm": 0.40}}
    for dataset, by_algorithm in means.items():
        for fold in range(10):
            noise = rng.normal(0, 0.01)
            for algorithm, mean in by_algorithm.items():
                rows.append({"experiment": "t", "dataset": dataset, "algorithm": algorithm, "fold": fold,
                                 "test_error": mean + noise + rng.normal(0, 0.002),
                                 "train_time_s": 1.0 + fold, "status": "converged", "host": "box",
                                 "git_commit": "abc123", "timestamp_utc": "2024-05-01T10:00:00Z"})
    rows.append({"experiment": "t", "dataset": "easy", "algorithm": "gs", "fold": 99, "test_error": 9.9,
                     "train_time_s": 0.0, "status": "failed:nan", "host": "box", "git_commit": "abc123",
                     "timestamp_utc": "2024-05-02T10:00:00Z"})
    return pd.DataFrame(rows)


def test_mean_std_and_bold_follow_paired_t():
    table = tables.mean_std_table(make_records(), "test_error", scale=100)
    assert table.values.loc["easy", "gs"] < 11  # the failed run (9.9) was dropped
    assert table.bold.loc["easy"].to_dict() == {"gs": True, "svm": True, "hm": False}
    assert table.bold.loc["hard"].to_dict() == {"gs": True, "svm": False, "hm": False}
    assert (table.spread > 0).all().all()


def test_bold_with_other_test_and_higher_is_better():
    records = make_records().assign(accuracy=lambda r: 1 - r["test_error"])
    table = tables.mean_std_table(records, "accuracy", lower_is_better=False,
                                  test=wilcoxon_signed_rank)
    assert table.bold.loc["hard"].to_dict() == {"gs": True, "svm": False, "hm": False}


def test_several_metrics_give_multiindex_columns():
    table = tables.mean_std_table(make_records(), ["test_error", "train_time_s"],
                                  lower_is_better={"test_error": True, "train_time_s": True})
    assert ("gs", "train_time_s") in table.values.columns
    markdown = tables.to_markdown(table)
    assert "gs test_error" in markdown


def test_side_by_side_difference_and_ratio():
    ours = pd.DataFrame({"gs": [1.0, 2.0]}, index=pd.Index(["a", "b"], name="dataset"))
    paper = pd.DataFrame({"gs": [0.5, 4.0]}, index=pd.Index(["a", "c"], name="dataset"))
    diff = tables.side_by_side(ours, paper)
    assert diff.values.loc["a", ("gs", "diff")] == 0.5
    assert np.isnan(diff.values.loc["b", ("gs", "paper")])
    assert diff.values.loc["c", ("gs", "paper")] == 4.0
    ratio = tables.side_by_side(ours, paper, compare="ratio")
    assert ratio.values.loc["a", ("gs", "ratio")] == 2.0
    with pytest.raises(ValueError, match="rename"):
        tables.side_by_side(ours, paper.rename(columns={"gs": "x"}))


def test_side_by_side_keeps_our_bold_and_spread():
    table = tables.mean_std_table(make_records(), "test_error", scale=100)
    paper = pd.DataFrame({"gs": [10.0, 5.0], "svm": [10.1, 25.0]}, index=["easy", "hard"])
    merged = tables.side_by_side(table, paper)
    assert merged.bold.loc["easy", ("gs", "ours")]
    assert not merged.bold.loc["easy", ("gs", "paper")]
    assert np.isnan(merged.spread.loc["easy", ("gs", "paper")])
    markdown = tables.to_markdown(merged)
    assert "**" in markdown and "±" in markdown
    latex = tables.to_latex(merged)
    assert r"\toprule" in latex and r"\cmidrule" in latex and r"\textbf{" in latex


@pytest.mark.parametrize("with_parts", [True, False])
def test_csv_round_trip(tmp_path, with_parts):
    table = tables.mean_std_table(make_records(), "test_error", scale=100,
                                  caption="Errors (%)", number_format="{:.3f}")
    if with_parts:
        table = tables.side_by_side(table, pd.DataFrame({"gs": [10.0, 5.0]},
                                                        index=["easy", "hard"]))
    else:
        table = tables.Table(table.values, footer="made on box", formats={"gs": "{:.1e}"})
    path = tables.to_csv(table, tmp_path / "t.csv")
    back = tables.read_csv(path)
    pd.testing.assert_frame_equal(back.values, table.values, check_dtype=False)
    for part in ("spread", "bold"):
        if getattr(table, part) is None:
            assert getattr(back, part) is None
        else:
            pd.testing.assert_frame_equal(getattr(back, part), getattr(table, part),
                                          check_dtype=False)
    assert (back.caption, back.footer, dict(back.formats), back.default_format) == (
        table.caption, table.footer, dict(table.formats), table.default_format)
    assert tables.to_markdown(back) == tables.to_markdown(table)


def test_markdown_formats_blanks_and_latex_escapes():
    table = tables.Table(pd.DataFrame({"p_value": [0.000003085, np.nan]},
                                      index=pd.Index(["a_b", "c"], name="test")),
                         formats={"p_value": "{:.4g}"})
    markdown = tables.to_markdown(table)
    assert "| a_b | 3.085e-06 |" in markdown and "| c |  |" in markdown
    assert r"a\_b" in tables.to_latex(table)


def test_provenance_states_machine_commit_and_dates():
    text = sources(make_records())
    assert "box" in text and "abc123" in text and "2024-05-01 to 2024-05-02" in text
    assert "cpu not recorded" in text
    assert "git commit" in sources()


def test_bad_input_is_named(tmp_path):
    with pytest.raises(ValueError, match="lack column"):
        tables.mean_std_table(make_records(), "objective")
    plain = tmp_path / "plain.csv"
    make_records().to_csv(plain)
    with pytest.raises(ValueError, match="read it with pandas"):
        tables.read_csv(plain)


def test_a_table_with_bold_cells_says_what_bold_means():
    import pandas as pd

    from svmbench.analysis.tables import Table, mean_std_table, to_latex, to_markdown

    records = pd.DataFrame({"dataset": ["d"] * 4, "algorithm": ["a", "a", "b", "b"],
                            "fold": [0, 1, 0, 1], "test_error": [0.1, 0.2, 0.3, 0.5]})
    table = mean_std_table(records, "test_error")
    assert table.bold.to_numpy().any()
    for text in (to_markdown(table), to_latex(table)):
        assert "Bold: the best mean of its row and every cell not significantly different" in text
    unexplained = Table(table.values, bold=table.bold)
    with pytest.raises(ValueError, match="does not say why"):
        to_markdown(unexplained)
    assert "Bold" not in to_markdown(Table(table.values))
