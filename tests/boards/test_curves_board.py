"""The curves board (svmbench/boards/curves.py) says why a problem has no certified optimum, and
which records certify one (svmbench.analysis.curves, shared with the solvers board)."""

import math

import pandas as pd

from svmbench.analysis.curves import (
    ROWS,
    certifying_optimum,
    optima_of,
    reference_note,
    summary,
)
from svmbench.analysis.solvers_board import optimum_of
from svmbench.boards.curves import why_uncertified


def optimum(problem, status, dataset="a1a", fold=0):
    return {"dataset": dataset, "algorithm": "optimum", "problem": problem, "status": status,
            "fold": fold}


def test_an_infeasible_hard_margin_and_its_rescaled_simplex_say_why():
    records = pd.DataFrame([optimum("hard_margin", "infeasible"),
                            optimum("rho_simplex", "infeasible"),
                            optimum("csvc", "converged"), optimum("meb", "max_iter")])
    assert "no hard margin separates" in why_uncertified(records, "a1a", ROWS["hard_margin"][0])
    assert "simplex minimum is 0" in why_uncertified(records, "a1a", ROWS["rho_simplex"][0])
    assert why_uncertified(records, "a1a", ROWS["meb"][0]) == "the reference solve ended max_iter"
    assert why_uncertified(records, "w1a", ROWS["meb"][0]) == "no reference solve stored"


def reference(problem, status, objective, gap, dataset="australian", fold=0):
    return {**optimum(problem, status, dataset, fold), "optimum_objectives": [objective],
            "optimum_gaps": [gap], "reference_solver": "hm_svm", "kkt_violation": 1.9e-8,
            "kkt_tolerance": 1e-9, "kkt_allowance": 4.3e-6}


def test_a_stalled_reference_with_a_finite_gap_certifies_and_says_how_it_ended():
    records = pd.DataFrame([reference("hard_margin", "stalled", -3.5e7, 0.83),
                            reference("rho_simplex", "infeasible", 2e-4, 8e-4),
                            reference("meb", "converged", 5e-3, 6e-9),
                            reference("csvc", "converged", -150.0, math.inf)])
    assert optima_of(records, "australian") == {ROWS["hard_margin"][0]: (-3.5e7, 0.83),
                                                ROWS["meb"][0]: (5e-3, 6e-9)}
    assert optimum_of(records, "australian", "hard_margin") == (-3.5e7, 0.83)  # the board's too
    assert optimum_of(records, "australian", "rho_simplex") is None  # no finite optimum
    assert optimum_of(records, "australian", "csvc") is None  # no gap measured: no bound
    note = reference_note(certifying_optimum(records, "australian", "hard_margin"))
    assert "ended stalled at KKT violation 1.9e-08 (its tol 1e-09" in note
    assert "duality gap 0.83 (2.4e-08 relative)" in note
    assert reference_note(certifying_optimum(records, "australian", "meb")) is None


def test_the_summary_lists_each_reference_solve_under_its_problem():
    records = pd.DataFrame([{**reference(problem, "converged", -1.0, 1e-9), "train_time_s": 0.1}
                            for problem in ("csvc", "hard_margin")])
    table = summary(records)
    assert sorted(table["problem"]) == sorted([ROWS["csvc"][0], ROWS["hard_margin"][0]])
