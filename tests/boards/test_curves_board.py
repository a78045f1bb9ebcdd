"""The curves board (svmbench/boards/curves.py) says why a problem has no certified optimum."""

import pandas as pd

from svmbench.analysis.curves import ROWS
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
