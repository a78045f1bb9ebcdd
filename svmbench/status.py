"""What a run record says about how its training ended, read the same way for every record.

A record holds ``status`` (one word; "converged" iff KKT holds at the returned point), ``stop``
(why the solver stopped), ``kkt_holds``, ``kkt_violation`` (the measured gap) and
``kkt_tolerance`` (docs/DESIGN.md "Run record"; the meanings are those of
svmbench.statuses). Records stored before ``stop`` existed lack the last three fields:
:func:`record_status` reads them as far as they can be told, so analysis reads every record
through it.
"""

import math

import pandas as pd

from svmbench.statuses import CLOSED_FORM, FAULTS, OWN_RULE, STATUSES

# statuses of a training that ran to its end (re-running gives the same); anything else
# ("failed:<reason>") is a failure: the cell runs again next time
FINISHED = STATUSES
# a finished training that is no fault: KKT holds, or the published algorithm ran as published
SOUND = tuple(status for status in STATUSES if status not in FAULTS)
# what an old record's status meant for algorithms whose reading changed: rho-SVM's "stalled" was
# its own eps rule stopping short of the KKT gap (the only stop it had besides max_iter); the
# Parzen window ran no iteration (max_iter=0)
LEGACY = {("rho_svm", "stalled"): OWN_RULE, ("rho_ensemble", "stalled"): OWN_RULE,
          ("parzen", "max_iter"): CLOSED_FORM}
LEGACY_STOP = {"converged": None, OWN_RULE: OWN_RULE, CLOSED_FORM: CLOSED_FORM,
               "max_iter": "max_iter", "infeasible": "infeasible", "stalled": None}


def record_status(record):
    """{status, stop, kkt_holds, kkt_violation, kkt_tolerance} of a record (a dict or a pandas
    row); a field an old record cannot tell is None."""
    status = record.get("status")
    if "stop" in record and _known(record.get("stop")):
        return {"status": status, "stop": record["stop"],
                "kkt_holds": _bool_or_none(record.get("kkt_holds")),
                "kkt_violation": _number_or_none(record.get("kkt_violation")),
                "kkt_tolerance": _number_or_none(record.get("kkt_tolerance"))}
    status = LEGACY.get((record.get("algorithm"), status), status)
    return {"status": status, "stop": LEGACY_STOP.get(status),
            "kkt_holds": True if status == "converged" else None,
            "kkt_violation": _number_or_none(record.get("kkt_violation")),
            "kkt_tolerance": None}


def statuses(records):
    """The status of each row of a records DataFrame, old records read as :func:`record_status`."""
    return pd.Series([record_status(row)["status"] for _, row in records.iterrows()],
                     index=records.index, dtype=object)


def _known(value):
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _number_or_none(value):
    return float(value) if _known(value) else None


def _bool_or_none(value):
    return bool(value) if _known(value) else None
