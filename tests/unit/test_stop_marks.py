"""Which rule stopped each table cell: the marks and their legend (svmbench.analysis.stop_marks),
in a paper table built from records with mixed stops, new and old."""

import pandas as pd

from svmbench.analysis.stop_marks import stop_legend, stop_mark
from svmbench.analysis.tables import mean_std_table, read_csv, to_csv, to_markdown


def record(dataset, algorithm, fold, status, stop=None, holds=None, gap=None, error=0.1):
    fields = {"dataset": dataset, "algorithm": algorithm, "fold": fold, "status": status,
              "test_error": error, "kkt_violation": gap}
    if stop is not None:  # records stored before `stop` existed lack these three fields
        fields.update(stop=stop, kkt_holds=holds, kkt_tolerance=1e-3)
    return fields


def test_a_cell_is_marked_by_the_stops_of_its_folds_and_the_largest_gap_where_kkt_fails():
    converged = record("a", "smo", 0, "converged", "own_rule", True, 1e-4)
    at_limit = record("a", "smo", 1, "max_iter", "max_iter", False, 0.02)
    at_limit_worse = record("a", "smo", 2, "max_iter", "max_iter", False, 0.5)
    assert stop_mark([converged, converged]) == "R"
    assert stop_mark([at_limit]) == "M* 2.0e-02"
    assert stop_mark([converged, at_limit, at_limit_worse]) == "M2 R1* 5.0e-01"
    assert stop_mark(pd.DataFrame([converged, at_limit])) == "M1 R1* 2.0e-02"
    assert stop_mark([]) == ""


def test_old_records_are_read_through_record_status():
    # rho-SVM's old "stalled" is its own rule, Parzen's old "max_iter" the closed form; an old
    # "converged" does not say which rule stopped it, but KKT held
    assert stop_mark([record("a", "rho_svm", 0, "stalled", gap=0.03)]) == "R* 3.0e-02"
    assert stop_mark([record("a", "parzen", 0, "max_iter")]) == "F*"
    assert stop_mark([record("a", "smo", 0, "converged", gap=1e-5)]) == "?"
    assert stop_mark([record("a", "smo", 0, "infeasible")]) == "I*"


def test_the_legend_explains_the_marks_shown_and_only_those():
    legend = stop_legend(["R", "M2 R1* 5.0e-01", ""])
    assert "R = its own stopping rule" in legend and "M = max_iter" in legend
    assert "* = KKT does not hold" in legend
    assert "F = " not in legend and "? = " not in legend
    assert "*" not in stop_legend(["R", "F"]) and "count" not in stop_legend(["R", "F"])
    assert "a count after a letter" in stop_legend(["M2 R1"])
    assert stop_legend(["", ""]) == ""


def mixed_records():
    """Two data sets x two algorithms x two folds: smo on 'b' hit max_iter on fold 1, GS-SVM's
    records on 'a' are old (no stop)."""
    rows = []
    for dataset in ("a", "b"):
        for fold in (0, 1):
            rows.append(record(dataset, "smo", fold, "converged", "own_rule", True, 1e-4,
                               0.10 + 0.01 * fold))
            if dataset == "b" and fold == 1:
                rows[-1].update(status="max_iter", stop="max_iter", kkt_holds=False,
                                kkt_violation=0.25)
            rows.append(record(dataset, "gs_svm", fold, "converged", gap=1e-5,
                               error=0.12 + 0.01 * fold) if dataset == "a" else
                        record(dataset, "gs_svm", fold, "converged", "own_rule", True, 1e-5,
                               0.12 + 0.01 * fold))
    return pd.DataFrame(rows)


def test_a_paper_table_marks_each_cell_with_its_stop_and_explains_the_marks(tmp_path):
    table = mean_std_table(mixed_records(), "test_error", scale=100)
    text = to_markdown(table)
    cells = {line.split(" | ")[0].strip("| "): line for line in text.splitlines()
             if line.startswith(("| a", "| b"))}
    columns = text.splitlines()[0]
    assert columns == "| dataset | smo | gs_svm |"
    assert cells["a"] == "| a | **10.50 ± 0.71** [R] | 12.50 ± 0.71 [?] |"
    assert cells["b"] == "| b | **10.50 ± 0.71** [M1 R1* 2.5e-01] | 12.50 ± 0.71 [R] |"
    legend = text.splitlines()[-1]
    assert legend.startswith("Stop, in brackets after a cell's number")
    assert all(part in legend for part in ("R = ", "M = ", "? = ", "* = KKT does not hold"))
    assert read_csv(to_csv(table, tmp_path / "t.csv")).marks.equals(table.marks)


def test_several_metrics_mark_the_first_metric_of_each_cell():
    table = mean_std_table(mixed_records().assign(n_sv=10), ["test_error", "n_sv"])
    assert table.marks.loc["b", ("smo", "test_error")] == "M1 R1* 2.5e-01"
    assert table.marks.loc["b", ("smo", "n_sv")] == ""
