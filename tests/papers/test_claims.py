"""The claims ledger: each claim's verdict on synthetic records, one record set where it holds and
one where it does not; a claim without records is reported untested; the Markdown names every
claim's verdict."""

import numpy as np
import pandas as pd
import pytest

from svmbench.analysis import claims
from svmbench.analysis.claims import DOES_NOT_HOLD, HOLDS, NO_DATA

N_SETS = 12
RNG = np.random.default_rng(4)
BASE_ACCURACY = np.round(RNG.uniform(70, 95, N_SETS), 1)  # on the grid of 1000 test points
BASE_COST = RNG.uniform(1, 100, N_SETS)


def records(columns):
    """One converged record per (data set, algorithm): ``columns`` maps an algorithm to its
    fields, each an array over the N_SETS data sets (accuracy in %, the rest as recorded)."""
    rows = []
    for algorithm, fields in columns.items():
        for i in range(N_SETS):
            row = {"dataset": f"set{i:02d}", "algorithm": algorithm, "fold": 0, "n_test": 1000,
                   "status": "converged", "test_error": 0.2, "train_time_s": 1.0,
                   "kernel_requested": 1e6, "iterations": 100, "n_sv": 50}
            for field, values in fields.items():
                if field == "accuracy":
                    row["test_error"] = 1.0 - values[i] / 100.0
                else:
                    row[field] = values[i]
            rows.append(row)
    return pd.DataFrame(rows)


def accuracies(**by_algorithm):
    return records({a: {"accuracy": np.clip(v, 0, 100)} for a, v in by_algorithm.items()})


def costs(field, **by_algorithm):
    return records({a: {field: v} for a, v in by_algorithm.items()})


def grid_and_ensemble(ensemble, best):
    """tsang_table2's records: the ensemble, the rho-SVM and a C grid whose best point is
    ``best`` (the others 10 points below)."""
    grid = pd.concat([records({"csvm_xialpha": {"accuracy": best - drop, "C": np.full(
        N_SETS, c)}}) for c, drop in ((1.0, 10.0), (4.0, 0.0), (16.0, 10.0))])
    return pd.concat([grid, accuracies(rho_ensemble=ensemble, rho_svm=ensemble - 5)])


A, COST = BASE_ACCURACY, BASE_COST
SMALL = RNG.uniform(0.1, 0.4, N_SETS)  # positive differences below the ROPE, varying
CASES = {  # claim: (records where it holds, records where it does not)
    claims.gs_svm_as_accurate_as_c_svm: (
        accuracies(gs_svm=A + 0.1, libsvm=A, smo_wss2=A),
        accuracies(gs_svm=A - 3, libsvm=A, smo_wss2=A)),
    claims.gs_svm_more_accurate_than_hm_svm: (
        accuracies(gs_svm=A + 3, hm_svm=A), accuracies(gs_svm=A - 3, hm_svm=A)),
    claims.gs_svm_fewer_kernel_evaluations_than_smo: (
        costs("kernel_requested", gs_svm=COST, smo_mod1=COST * 20, smo_mod2=COST * 15),
        costs("kernel_requested", gs_svm=COST * 2, smo_mod1=COST, smo_mod2=COST)),
    claims.gs_svm_faster_than_libsvm: (
        costs("train_time_s", gs_svm=COST, libsvm=COST * 3),
        costs("train_time_s", gs_svm=COST * 3, libsvm=COST)),
    claims.gs_svm_fewer_support_vectors: (
        costs("n_sv", gs_svm=COST, libsvm=COST * 1.2), costs("n_sv", gs_svm=COST, libsvm=COST)),
    claims.rosen_fewer_iterations_at_small_tolerance: (
        pd.concat([costs("iterations", rosen=COST, smo_mod2=COST * 3).assign(tol=1e-6),
                   costs("iterations", rosen=COST, smo_mod2=COST * 2).assign(tol=1e-3)]),
        costs("iterations", rosen=COST * 3, smo_mod2=COST).assign(tol=1e-6)),
    claims.rosen_as_accurate_as_smo: (
        accuracies(rosen=A, smo_mod2=A), accuracies(rosen=A - 5, smo_mod2=A)),
    claims.rosen_more_kernel_operations: (
        costs("kernel_requested", rosen=COST * 3, smo_mod2=COST),
        costs("kernel_requested", rosen=COST / 3, smo_mod2=COST)),
    claims.ensemble_matches_svm_best: (grid_and_ensemble(A, A), grid_and_ensemble(A - 5, A)),
    claims.ensemble_beats_rho_svm: (
        accuracies(rho_ensemble=A + 5, rho_svm=A), accuracies(rho_ensemble=A - 5, rho_svm=A)),
    claims.fw_and_mfw_faster_than_cvm: (
        costs("train_time_s", cvm=COST * 3, fw=COST, mfw=COST),
        costs("train_time_s", cvm=COST, fw=COST * 3, mfw=COST * 3)),
    claims.cvm_more_accurate_than_fw_and_mfw: (
        accuracies(cvm=A + SMALL, fw=A, mfw=A), accuracies(cvm=A - SMALL, fw=A, mfw=A)),
    claims.mfw_more_accurate_than_fw: (
        accuracies(mfw=A + SMALL, fw=A), accuracies(mfw=A - SMALL, fw=A)),
    claims.mfw_reaches_cvm_accuracy_faster: (
        pd.concat([records({"mfw": {"accuracy": A, "train_time_s": COST}}),
                   records({"cvm": {"accuracy": A, "train_time_s": COST * 3}}),
                   records({"fw": {"accuracy": A - SMALL, "train_time_s": COST * 2}})]),
        pd.concat([records({"mfw": {"accuracy": A - 5, "train_time_s": COST * 3}}),
                   records({"cvm": {"accuracy": A, "train_time_s": COST}}),
                   records({"fw": {"accuracy": A, "train_time_s": COST}})])),
}


def test_every_claim_has_both_cases():
    assert set(CASES) == set(claims.CLAIMS)
    assert claims.artefacts_of(claims.rosen_fewer_iterations_at_small_tolerance) == (
        "rosen_table1", "rosen_table2")


@pytest.mark.parametrize("claim", list(CASES), ids=lambda claim: claim.__name__)
def test_claim_verdict_on_records_where_it_holds_and_where_it_does_not(claim):
    holds, fails = CASES[claim]
    answered = claim(holds)
    assert answered.verdict == HOLDS, answered.numbers
    assert claim(fails).verdict == DOES_NOT_HOLD, claim(fails).numbers
    assert answered.statement and answered.test and answered.paper_evidence


@pytest.mark.parametrize("claim", list(CASES), ids=lambda claim: claim.__name__)
def test_claim_without_records_is_not_tested(claim):
    empty = pd.DataFrame(columns=["dataset", "algorithm", "status", "fold"])
    assert claim(empty).verdict == NO_DATA


def test_a_mixed_record_set_holds_in_part():
    half = np.where(np.arange(N_SETS) < 8, 3.0, 1 / 3.0)  # Rosen fewer iterations on 8 of 12
    answered = claims.rosen_fewer_iterations_at_small_tolerance(
        costs("iterations", rosen=COST, smo_mod2=COST * half).assign(tol=1e-6))
    assert answered.verdict == claims.IN_PART
    not_particularly = claims.rosen_fewer_iterations_at_small_tolerance(pd.concat([
        costs("iterations", rosen=COST, smo_mod2=COST * 3).assign(tol=1e-6),
        costs("iterations", rosen=COST, smo_mod2=COST * 4).assign(tol=1e-3)]))
    assert not_particularly.verdict == claims.IN_PART  # fewer, but not more so at 1e-6


def test_ledger_runs_every_claim_on_its_artefact_and_the_markdown_lists_them():
    from svmbench.boards._claims import claims_markdown

    holding = {"leaderboard": CASES[claims.gs_svm_as_accurate_as_c_svm][0]}
    ledger = claims.ledger(holding)
    assert [c.artefact for c in ledger] == [" + ".join(claims.artefacts_of(claim))
                                            for claim in claims.CLAIMS]
    assert ledger[0].verdict == HOLDS   # the leaderboard's records reach its first claim
    assert {c.verdict for c in ledger if c.artefact == "fw_table2"} == {NO_DATA}
    text = claims_markdown(ledger)
    for i, claim in enumerate(ledger, start=1):
        assert f"### Claim {i}: {claim.statement}" in text
        assert f"| {i} | {claim.paper} | {claim.statement} | **{claim.verdict}** |" in text


def test_as_accurate_as_holds_when_better_and_a_named_factor_must_be_reached():
    better = claims.gs_svm_as_accurate_as_c_svm(accuracies(gs_svm=A + 3, libsvm=A, smo_wss2=A))
    assert better.verdict == HOLDS
    twice = claims.gs_svm_fewer_kernel_evaluations_than_smo(  # fewer everywhere, not 10x
        costs("kernel_requested", gs_svm=COST, smo_mod1=COST * 2, smo_mod2=COST * 2))
    assert twice.verdict == claims.IN_PART and "at least 10x on 0 of 12" in twice.numbers
