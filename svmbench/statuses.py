"""The statuses a training ends with and the reasons a solver stops: the words solvers, the
referee and the records share (their meanings: svmbench.solvers.base, docs/DESIGN.md "Run
record"). Plain names, no engine: reading records (svmbench.status) needs them without loading a
solver.
"""

# statuses, as recorded: "converged" iff KKT holds at the returned point; otherwise the
# published algorithm stopped by its own rule (no KKT guarantee: not a fault), a closed form was
# returned, or a fault (the last three)
CONVERGED, OWN_RULE, CLOSED_FORM = "converged", "own_rule", "closed_form"
MAX_ITER, STALLED, INFEASIBLE = "max_iter", "stalled", "infeasible"
STATUSES = (CONVERGED, CLOSED_FORM, OWN_RULE, MAX_ITER, STALLED, INFEASIBLE)
FAULTS = (MAX_ITER, STALLED, INFEASIBLE)
SEVERITY = {status: rank for rank, status in enumerate(STATUSES)}
# why a solver stopped, as it tells finish(): its optimality test (a KKT test) passed; its own
# published rule (no KKT test) stopped it; max_iter; infeasibility proved; no progress (STALLED);
# a closed form (no iterations)
OPTIMAL = "optimal"
STOPS = (OPTIMAL, OWN_RULE, MAX_ITER, INFEASIBLE, STALLED, CLOSED_FORM)
# the record's ``stop``: an optimality test is the solver's own rule too
STOP_RECORDED = {OPTIMAL: OWN_RULE, OWN_RULE: OWN_RULE, MAX_ITER: MAX_ITER,
                 INFEASIBLE: INFEASIBLE, STALLED: "no_progress", CLOSED_FORM: CLOSED_FORM}
