"""An audit of the committed models board (issue 43: "an independent recomputation of the
statistics from the records agrees").

Nothing of svmbench.analysis is used: the fold records of results/leaderboard/runs are read as
JSON, each model's accuracy is recomputed by the rule the page states, and the statistics by
scipy and baycomp (the Wilcoxon signed-rank's exact p by its own enumeration, since scipy's exact
method takes no tied or zero differences). Each is compared with the number the committed
results/leaderboard/leaderboard.md prints, to the digits it prints (the Bayesian probabilities
to their Monte Carlo error: baycomp draws its own samples).
"""

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "results" / "leaderboard"
PAGE = BOARD / "leaderboard.md"

# the board's models, restated here (the page's "One entry per model" paragraph)
MODELS = {
    **dict.fromkeys(["smo_platt", "smo_mod1", "smo_mod2", "smo_wss2", "rosen", "libsvm",
                     "onedal"], "C-SVM"),
    **dict.fromkeys(["cvm", "fw", "mfw"], "L2-SVM"),
    "gs_svm": "GS-SVM", "hm_svm": "HM-SVM", "rsvm": "RSVM", "rho_svm": "rho-SVM",
    "rho_ensemble": "rho-SVM ensemble", "parzen": "Parzen window",
}
# Demšar (2006) Table 5, alpha 0.05: the studentized range over sqrt(2) for k = 8 models
NEMENYI_Q_8 = 3.031
# the page's Bayesian probabilities are means of 50,000 draws, so are baycomp's: each is off by
# at most 0.5 / sqrt(50,000) = 0.0022 (one standard error); the two differ by at most 5 of them
BAYES_TOLERANCE = 5 * 0.0022 * math.sqrt(2)


def records():
    for path in sorted(BOARD.glob("runs/*/fold-*.json")):
        yield json.loads(path.read_text())


def model_accuracies():
    """{(dataset, model): accuracy %}: per solver, test points right over test points over its
    folds, for the solvers whose every fold finished; per model, the lower median of those."""
    counts = {}
    for record in records():
        if record["algorithm"] not in MODELS or record["status"] == "unsuitable":
            continue
        cell = counts.setdefault((record["dataset"], record["algorithm"]), [0, 0, True])
        if record["status"].startswith("failed") or record.get("test_error") is None:
            cell[2] = False
            continue
        cell[0] += round((1.0 - record["test_error"]) * record["n_test"])
        cell[1] += record["n_test"]
    per_model = {}
    for (dataset, algorithm), (right, tested, complete) in counts.items():
        if complete:
            per_model.setdefault((dataset, MODELS[algorithm]), []).append(100.0 * right / tested)
    return {key: sorted(values)[(len(values) - 1) // 2] for key, values in per_model.items()}


def page_section(heading, until="\n#"):
    """The page's text from ``heading`` to the next ``until`` (by default the next heading)."""
    text = PAGE.read_text()
    start = text.index(heading)
    end = text.find(until, start + len(heading))
    return text[start:end if end >= 0 else len(text)]


def page_rows(heading):
    """The first table under ``heading``: its header and its rows as lists of cells."""
    lines = [line for line in page_section(heading).splitlines() if line.startswith("|")]
    cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    return cells[0], cells[2:]


@pytest.fixture(scope="module")
def board():
    if not PAGE.exists():
        pytest.skip("no committed leaderboard")
    header, rows = page_rows("### Model test accuracy (%)")
    models = header[1:]
    printed = {(row[0], model): float(value) for row in rows if row[0] != "Average rank"
               for model, value in zip(models, row[1:]) if value}
    complete = sorted({dataset for dataset, _ in printed
                       if all((dataset, model) in printed for model in models)})
    # the statistics are of the records' accuracies, not of the page's rounded ones
    measured = model_accuracies()
    table = np.array([[measured[dataset, model] for model in models] for dataset in complete])
    return models, measured, complete, table


def test_every_model_accuracy_on_the_page_is_the_records(board):
    header, rows = page_rows("### Model test accuracy (%)")
    printed = {(row[0], model): float(value) for row in rows if row[0] != "Average rank"
               for model, value in zip(header[1:], row[1:]) if value}
    _, measured, _, _ = board
    assert set(measured) == set(printed)
    assert {key: f"{value:.2f}" for key, value in measured.items()} == \
        {key: f"{value:.2f}" for key, value in printed.items()}


def test_friedman_iman_davenport_nemenyi_and_holm_agree_with_scipy(board):
    models, _, _, table = board
    n, k = table.shape
    ranks = scipy.stats.rankdata(-table, axis=1).mean(axis=0)
    chi2 = scipy.stats.friedmanchisquare(*table.T).statistic
    f = (n - 1) * chi2 / (n * (k - 1) - chi2)
    text = page_section("**Model test accuracy (%)** over")
    assert f"over {n} data sets x {k} models" in text
    assert f"Friedman chi2 = {chi2:.2f} (df {k - 1}, p = {scipy.stats.chi2.sf(chi2, k - 1):.3g})" \
        in text
    assert f"Iman-Davenport F = {f:.2f} (df {k - 1}, {(k - 1) * (n - 1)}, p = " \
        f"{scipy.stats.f.sf(f, k - 1, (k - 1) * (n - 1)):.3g})" in text
    se = math.sqrt(k * (k + 1) / (6 * n))
    assert f"Nemenyi critical difference at 0.05: {NEMENYI_Q_8 * se:.2f}" in text
    assert "Average ranks (1 = best): " + ", ".join(
        f"{models[i]} {ranks[i]:.2f}" for i in np.argsort(ranks, kind="stable")) in text
    best = int(np.argmin(ranks))
    others = [i for i in np.argsort(ranks, kind="stable") if i != best]
    z = [(ranks[i] - ranks[best]) / se for i in others]
    p = [2 * scipy.stats.norm.sf(value) for value in z]
    holm = holm_adjusted(p)
    _, rows = page_rows("**Model test accuracy (%)** over")
    assert [row[:5] for row in rows] == [
        [models[i], f"{ranks[i]:.2f}", f"{value:.2f}", f"{pi:.3g}", f"{hi:.3g}"]
        for i, value, pi, hi in zip(others, z, p, holm)]


def holm_adjusted(p):
    order = np.argsort(p, kind="stable")
    adjusted, running = np.empty(len(p)), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def signed_rank(differences):
    """(W+, W-, zeros, exact two-sided p) with Pratt's zeros (ranked with the others, then
    dropped); p by enumerating the 2^m sign patterns of the nonzero ranks (as doubled integers,
    since midranks are halves): min(1, 2 min(P(W+ <= w), P(W+ >= w)))."""
    ranks = scipy.stats.rankdata(np.abs(differences))
    kept = differences != 0
    plus, minus = ranks[differences > 0].sum(), ranks[differences < 0].sum()
    counts = {0: 1}
    for doubled in np.rint(2 * ranks[kept]).astype(int):
        shifted = {}
        for total, ways in counts.items():
            for new in (total, total + doubled):
                shifted[new] = shifted.get(new, 0) + ways
        counts = shifted
    patterns, observed = 2 ** int(kept.sum()), round(2 * plus)
    lower = sum(ways for total, ways in counts.items() if total <= observed) / patterns
    upper = sum(ways for total, ways in counts.items() if total >= observed) / patterns
    return plus, minus, int((~kept).sum()), min(1.0, 2 * min(lower, upper))


def test_pairwise_wilcoxon_with_holm_agrees(board):
    models, _, _, table = board
    _, rows = page_rows("### Pairwise Wilcoxon signed-rank tests")
    assert len(rows) == len(models) * (len(models) - 1) // 2
    index = {model: i for i, model in enumerate(models)}
    differences = [table[:, index[first]] - table[:, index[second]]
                   for first, second in (row[0].split(" vs ") for row in rows)]
    results = [signed_rank(np.round(difference, 10)) for difference in differences]
    holm = holm_adjusted([p for *_, p in results])
    assert [row[1:] for row in rows] == [
        [f"{plus:g} / {minus:g}", str(zeros), f"{np.median(difference):+.2f}", f"{p:.3g}",
         f"{adjusted:.3g}", "yes" if adjusted <= 0.05 else "no"]
        for difference, (plus, minus, zeros, p), adjusted in zip(differences, results, holm)]


def test_bayesian_signed_rank_agrees_with_baycomp(board):
    baycomp = pytest.importorskip("baycomp")
    models, _, _, table = board
    _, rows = page_rows("### Bayesian signed-rank tests")
    assert len(rows) == len(models) * (len(models) - 1) // 2
    index = {model: i for i, model in enumerate(models)}
    for row in rows:
        first, second = (index[name] for name in row[0].split(" vs "))
        a, b = table[:, first], table[:, second]
        assert row[1] == f"{np.mean(a - b):+.2f}"
        # baycomp's difference is y - x: x = b, y = a puts "a better" on its right
        b_better, equivalent, a_better = baycomp.SignedRankTest.probs(
            b, a, rope=1.0, prior=0.5, nsamples=50_000, random_state=1)
        assert [float(value) for value in row[2:5]] == pytest.approx(
            [a_better, equivalent, b_better], abs=BAYES_TOLERANCE), row[0]


CLAIM = re.compile(r"- Ours \(leaderboard's records\): (\d+) data sets, mean (.+?) - (.+?) "
                   r"([-+]\d+\.\d+) points; P\(\2 better\) (\d\.\d+), P\(equivalent\) (\d\.\d+), "
                   r"P\(\3 better\) (\d\.\d+)\.")


def test_the_claims_on_the_leaderboard_records_agree_with_baycomp(board):
    """The ledger's claims tested on the models board (each over the sets where both models
    have an accuracy): their set count, mean difference and Bayesian probabilities."""
    baycomp = pytest.importorskip("baycomp")
    _, measured, _, _ = board
    claims = CLAIM.findall(page_section("## Claims ledger", until="\n## "))
    assert len(claims) >= 2  # GS-SVM against C-SVM and against HM-SVM
    for count, first, second, mean, a_better, equivalent, b_better in claims:
        sets = sorted({dataset for dataset, model in measured if model == first}
                      & {dataset for dataset, model in measured if model == second})
        a = np.array([measured[dataset, first] for dataset in sets])
        b = np.array([measured[dataset, second] for dataset in sets])
        assert (int(count), mean) == (len(sets), f"{np.mean(a - b):+.2f}")
        theirs = baycomp.SignedRankTest.probs(b, a, rope=1.0, prior=0.5, nsamples=50_000,
                                              random_state=1)
        assert [float(a_better), float(equivalent), float(b_better)] == pytest.approx(
            theirs[::-1], abs=BAYES_TOLERANCE), (first, second)
