"""Do two stores hold the same results for an artefact's cells? Records are matched by (config
hash, fold); every result a table reads must be equal: test and train errors, the tuned point and
its inner CV error, status, iterations, support vectors and kernel counts (clocks, provenance and
the referee's own measurements aside, compared too with ``--referee``: the same bits, or the
fields that moved). Folds only one store has are counted, not compared.

    python studies/same_records.py gs2008_table7 results/uci/runs /tmp/t7/store [--referee]
"""

import argparse
import json
import sys

from svmbench.store import ResultStore
from svmbench.sweep import cells

COMPARED = ("test_error", "train_error", "selected_gamma", "selected_C", "inner_cv_error",
            "inner_trainings", "tuned_on", "status", "iterations", "n_sv", "kernel_requested",
            "kernel_computed", "kernel_predict", "n_train", "n_test")
# the referee's measurements of the refit (svmbench.referee), beside the solver's claims
REFEREE = ("kkt_violation", "kkt_tolerance", "kkt_allowance", "kkt_holds", "referee_objective",
           "referee_gap", "referee_kernel_evaluations", "problem", "claimed_status",
           "claimed_kkt_violation", "objective")


def by_key(store_dir, hashes):
    return {(r["config_hash"], r["fold"]): r for r in ResultStore(store_dir).records()
            if r["config_hash"] in hashes}


def differences(reference, candidate, fields=COMPARED):
    """(key, field, reference value, candidate value) of every field of ``fields`` that differs
    in a (cell, fold) both stores hold."""
    return [(key, field, reference[key].get(field), candidate[key].get(field))
            for key in sorted(reference.keys() & candidate.keys()) for field in fields
            if same_bits(reference[key].get(field)) != same_bits(candidate[key].get(field))]


def same_bits(value):
    """``value`` as text that two equal values share, NaN included (NaN != NaN)."""
    return json.dumps(value, sort_keys=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("artefact")
    parser.add_argument("reference")
    parser.add_argument("candidate")
    parser.add_argument("--scale", default="paper")
    parser.add_argument("--referee", action="store_true",
                        help="compare the referee's measurements too (to the bit)")
    args = parser.parse_args(argv)
    hashes = {cell.config_hash for cell in cells(args.artefact, args.scale)}
    reference, candidate = by_key(args.reference, hashes), by_key(args.candidate, hashes)
    found = differences(reference, candidate, COMPARED + (REFEREE if args.referee else ()))
    for key, field, old, new in found:
        print(f"{key[0]} fold {key[1]} ({reference[key]['dataset']} "
              f"{reference[key]['algorithm']}): {field} {old!r} -> {new!r}")
    shared = len(reference.keys() & candidate.keys())
    print(f"{shared} records compared ({len(reference)} in {args.reference}, {len(candidate)} in "
          f"{args.candidate}), {len(found)} differing field(s)")
    return 1 if found or not shared else 0


if __name__ == "__main__":
    sys.exit(main())
