"""frank-wolfe-svm Tables 5-7 (§5.6) recomputed from OUR Tables 2-3 (records of
svmbench/papers/fw/experiment/fw_tables4_7_ours.yaml, the cells of Table 2), beside the paper's values computed
from its own 26 sets."""

from svmbench.analysis.artefact_tables import sources_and_cells
from svmbench.papers.fw.fw_table2_3 import ALGORITHMS, summary
from svmbench.papers.fw.fw_tables import (
    FRIEDMAN_LABEL,
    compute_statistics,
    conclusions,
    paper_table,
)

TITLE = "# frank-wolfe-svm Tables 5-7 from our measured times and accuracies"
COLUMNS = {"Time": "train_time_s_mean", "Accuracy": "accuracy_mean"}


def render(records, artefact):
    means = summary(records)

    def scores_of(measure):
        return means[COLUMNS[measure]].unstack("algorithm").reindex(columns=list(ALGORITHMS)) \
            .dropna()

    sets = list(scores_of("Time").index) if len(means) else []
    if len(sets) < 2:
        return "\n\n".join([TITLE, f"SCALE={artefact.scale}.",
                            "The tests need two sets with records of CVM, FW and MFW; "
                            + f"{len(sets)} have them.",
                            *sources_and_cells(records, artefact)])
    ours = compute_statistics(scores_of)
    paper_stat = paper_table("fw_table5", ("W", "F"))
    paper_p = paper_table("fw_table6", ("p", "p"))
    lines = [TITLE, "",
             f"SCALE={artefact.scale}.", "",
             (f"Our {len(sets)} sets ({', '.join(sets)}; Tables 2-3 records, mean over seeds) "
             "against the paper's 26. Binary tests: exact Wilcoxon signed-rank (Pratt zeros), "
             f"alternatives of Table 4; multiple test: Friedman / Iman-Davenport F over "
             f"{FRIEDMAN_LABEL}. With {len(sets)} sets the smallest attainable one-sided exact "
             f"p-value is 2^-{len(sets)} = {2.0 ** -len(sets):.4f}."), "",
             "| measure | comparison | W or F ours | W or F paper | p ours | p paper |",
             "|---|---|---|---|---|---|"]
    for measure in COLUMNS:
        for label in ours["statistic"].columns:
            lines.append(f"| {measure} | {label} | {ours['statistic'].loc[measure, label]:.4g} | "
                         f"{paper_stat.loc[measure, label]:.4g} | "
                         f"{ours['pvalue'].loc[measure, label]:.4g} | "
                         f"{paper_p.loc[measure, label]:.4g} |")
    lines += ["", "## Table 7 from our numbers", "",
              "| comparison | measure | H1 | our conclusion |", "|---|---|---|---|"]
    for _, row in conclusions(ours["pvalue"]).iterrows():
        lines.append("| " + " | ".join(str(v) for v in row.values) + " |")
    lines += ["", ("The paper's own Tables 4-7 recomputed from its printed Tables 2-3: "
              "tables4-7.md (make fw-tables4-7).")]
    return "\n\n".join(["\n".join(lines), *sources_and_cells(records, artefact)])

