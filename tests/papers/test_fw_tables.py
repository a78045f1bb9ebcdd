"""FW paper Tables 5-6 recomputed from its Tables 2-3 reproduce the printed values."""

import pytest

from svmbench.analysis.reference import list_references, load_reference
from svmbench.papers.fw import fw_tables


@pytest.fixture(scope="module")
def ours():
    return fw_tables.compute_statistics()


def printed(name, suffixes):
    return fw_tables.paper_table(name, suffixes, as_printed=True)


@pytest.mark.parametrize("label", ["FW vs. CVM", "MFW vs. CVM", "FW vs. MFW"])
def test_running_time_wilcoxon_p_matches_printed_digits(ours, label):
    paper_p = printed("fw_table6", ("p", "p")).loc["Time", label]
    assert fw_tables.agrees_to_printed_digits(ours["pvalue"].loc["Time", label], paper_p)


@pytest.mark.parametrize("label", ["FW vs. CVM", "MFW vs. CVM"])
def test_running_time_w_matches(ours, label):
    assert ours["statistic"].loc["Time", label] == float(
        printed("fw_table5", ("W", "F")).loc["Time", label])


def test_two_sided_time_w_is_the_other_rank_sum(ours):
    assert ours["w_minus"].loc["Time", "FW vs. MFW"] == float(
        printed("fw_table5", ("W", "F")).loc["Time", "FW vs. MFW"])


def test_running_time_iman_davenport_f_matches(ours):
    paper_f = printed("fw_table5", ("W", "F")).loc["Time", fw_tables.FRIEDMAN_LABEL]
    assert fw_tables.agrees_to_printed_digits(
        ours["statistic"].loc["Time", fw_tables.FRIEDMAN_LABEL], paper_f)


def test_accuracy_fw_vs_cvm_matches_despite_rounding(ours):
    paper = printed("fw_table6", ("p", "p")).loc["Accuracy", "FW vs. CVM"]
    assert fw_tables.agrees_to_printed_digits(ours["pvalue"].loc["Accuracy", "FW vs. CVM"],
                                              paper)
    assert ours["statistic"].loc["Accuracy", "FW vs. CVM"] == 19


def test_printed_digit_rule():
    assert fw_tables.agrees_to_printed_digits(3.08454e-06, "3.085e-06")
    assert fw_tables.agrees_to_printed_digits(14.85849, "14.858")
    assert not fw_tables.agrees_to_printed_digits(8.62e-06, "1.72e-05")


def test_report_is_written(tmp_path):
    out = fw_tables.main(["--out", str(tmp_path / "fw" / "tables4-7.md")])
    text = out.read_text()
    for heading in ("Table 4", "Table 5", "Table 6", "Table 7", "Notes on the differences"):
        assert heading in text
    assert "| Time | 17 | 17 | 0 |" in text


def test_every_reference_loads_with_metadata():
    names = list_references()
    assert {"fw_table2", "fw_table3", "gs2008_table7", "rosen_table1", "tsang_table2"} <= set(names)
    for name in names:
        frame = load_reference(name)
        assert len(frame) > 0 and "paper" in frame.attrs["meta"]
    with pytest.raises(ValueError, match="choose one of"):
        load_reference("fw_table99")
