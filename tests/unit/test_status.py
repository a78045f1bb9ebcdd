"""svmbench.status: the record's status fields, written by the runner and read back, old
records (no ``stop``) included."""

import pytest

from svmbench.solvers.base import decide_status, worst_status
from svmbench.status import FINISHED, SOUND, record_status


@pytest.mark.parametrize(("reason", "violation", "status"), [
    ("optimal", 1e-4, "converged"), ("own_rule", 1e-4, "converged"),
    ("closed_form", 1e-4, "converged"),
    ("optimal", 0.1, "stalled"),  # an optimality test that KKT contradicts
    ("own_rule", 0.1, "own_rule"), ("closed_form", 0.1, "closed_form"),
    ("max_iter", 0.1, "max_iter"), ("infeasible", 0.1, "infeasible"),
    ("stalled", 0.1, "stalled"), ("max_iter", float("nan"), "max_iter"),
])
def test_converged_means_kkt_holds_whatever_stopped_the_solver(reason, violation, status):
    assert decide_status(reason, violation, 1e-3) == status


def test_the_worst_pair_decides_and_a_fault_is_worse_than_a_published_stop():
    assert worst_status(["converged", "own_rule", "closed_form"]) == "own_rule"
    assert worst_status(["own_rule", "max_iter"]) == "max_iter"
    assert worst_status(["infeasible", "failed:ValueError: x"]) == "failed:ValueError: x"
    assert set(SOUND) == {"converged", "own_rule", "closed_form"}
    assert set(FINISHED) - set(SOUND) == {"max_iter", "stalled", "infeasible"}


def test_new_records_are_read_as_written():
    record = {"algorithm": "rho_svm", "status": "own_rule", "stop": "own_rule",
              "kkt_holds": False, "kkt_violation": 0.2, "kkt_tolerance": 0.005}
    assert record_status(record) == {"status": "own_rule", "stop": "own_rule",
                                     "kkt_holds": False, "kkt_violation": 0.2,
                                     "kkt_tolerance": 0.005}


@pytest.mark.parametrize(("record", "status", "stop", "holds"), [
    ({"algorithm": "rho_svm", "status": "stalled", "kkt_violation": 0.3}, "own_rule", "own_rule",
     None),
    ({"algorithm": "rho_ensemble", "status": "stalled"}, "own_rule", "own_rule", None),
    ({"algorithm": "parzen", "status": "max_iter"}, "closed_form", "closed_form", None),
    ({"algorithm": "hm_svm", "status": "stalled"}, "stalled", None, None),
    ({"algorithm": "rosen", "status": "max_iter"}, "max_iter", "max_iter", None),
    ({"algorithm": "smo_wss2", "status": "converged", "kkt_violation": 1e-4}, "converged", None,
     True),
])
def test_old_records_without_stop_are_read_as_far_as_they_tell(record, status, stop, holds):
    read = record_status(record)
    assert (read["status"], read["stop"], read["kkt_holds"]) == (status, stop, holds)
    assert read["kkt_tolerance"] is None
