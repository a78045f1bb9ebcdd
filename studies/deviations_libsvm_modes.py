"""Which LIBSVM does a smo_wss2 mode reproduce? (issue 31, deviations page, docs/deviations.md)

One binary problem (gs2008 Table II's setting: RBF gamma 0.05, C 2 on Adult / 4 on Web, eps 1e-3,
1000 MB cache, shrinking) trained by
- the real solvers: upstream LIBSVM 3.37 (PyPI ``libsvm-official``) on the labels as read and on
  the negated labels (which turns off 3.17+'s -1/+1 label swap, i.e. LIBSVM 3.0-3.16's order and
  labels), scikit-learn's SVC (its LIBSVM fork) and, when ``--libsvm283 PATH`` names an
  ``svm-train`` built from LIBSVM 2.83's sources (cjlin1/libsvm at 89ed02f, Nov. 2006), LIBSVM
  2.83 itself on the same data written as a LIBSVM file;
- smo_wss2 in each sample order and shrinking rule, and in the given order on the data permuted
  as LIBSVM 3.17+'s svm_group_classes orders it (the +1 class first, labelled +1).

Writes a Markdown table (iterations, objective, support vectors) with provenance.

    PYTHONPATH=. python studies/deviations_libsvm_modes.py --datasets a1a w1a \
        --libsvm283 /tmp/libsvm283/svm-train --out results/deviations/libsvm_modes.md
"""

import argparse
import os
import re
import subprocess
import tempfile
import time

import numpy as np
from _deviations import libsvm_log, write_table
from sklearn.datasets import dump_svmlight_file
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from svmbench import SMOSVC
from svmbench.data import load_dataset

GAMMA, TOL, CACHE_MB = 0.05, 1e-3, 1000.0
C_OF = {"a": 2.0, "w": 4.0}  # gs2008 Table II: C = 2 on Adult, 4 on Web
LIBSVM_OUTPUT = re.compile(r"#iter = (\d+).*?obj = (\S+),.*?nSV = (\d+)", re.DOTALL)


def parse_libsvm(text):
    """(iterations, objective, n_sv) of a LIBSVM training log."""
    found = LIBSVM_OUTPUT.search(text)
    if found is None:
        raise RuntimeError(f"no LIBSVM summary in its output: {text[-300:]!r}")
    return int(found[1]), float(found[2]), int(found[3])


def libsvm337(X, y, C):
    return parse_libsvm(libsvm_log(X, y, f"-c {C} -g {GAMMA} -e {TOL} -m {int(CACHE_MB)}"))


def libsvm283(binary, X, y, C):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "train")
        dump_svmlight_file(X, y, path, zero_based=False)
        log = subprocess.run([binary, "-c", str(C), "-g", str(GAMMA), "-e", str(TOL), "-m",
                              str(int(CACHE_MB)), path, os.path.join(folder, "model")],
                             capture_output=True, text=True, check=True).stdout
    return parse_libsvm(log)


def sklearn_svc(X, y, C):
    svc = SVC(C=C, gamma=GAMMA, tol=TOL, cache_size=CACHE_MB).fit(X, y)
    coef = np.ravel(svc.dual_coef_.toarray() if hasattr(svc.dual_coef_, "toarray")
                    else svc.dual_coef_)  # alpha_i y_i: the dual objective 1/2 a'Qa - sum a
    sv = svc.support_vectors_
    objective = 0.5 * coef @ rbf_kernel(sv, sv, gamma=GAMMA) @ coef - np.abs(coef).sum()
    return int(svc.n_iter_[0]), float(objective), int(svc.support_.shape[0])


def ours(X, y, C, order, rules):
    svm = SMOSVC(variant="wss2", C=C, gamma=GAMMA, tol=TOL, cache_mb=CACHE_MB,
                 shrinking_rules=rules, sample_order=order).fit(X, y)
    return int(svm.n_iter_[0]), float(svm.objective_[0]), int(svm.support_.shape[0])


def runs(X, y, C, libsvm283_binary):
    """(label, (iterations, objective, n_sv)) of every solver and mode on one problem."""
    plus_first = np.concatenate([np.flatnonzero(y == 1), np.flatnonzero(y != 1)])
    yield "LIBSVM 3.37, labels as read", libsvm337(X, y, C)
    yield "LIBSVM 3.37, labels negated (3.0-3.16 order)", libsvm337(X, -y, C)
    if libsvm283_binary:
        yield "LIBSVM 2.83 (svm-train)", libsvm283(libsvm283_binary, X, y, C)
    yield "scikit-learn SVC", sklearn_svc(X, y, C)
    for order in ("given", "libsvm"):
        for rules in ("libsvm283", "libsvm3"):
            yield f"smo_wss2 {order}, {rules}", ours(X, y, C, order, rules)
    for rules in ("libsvm283", "libsvm3"):
        yield (f"smo_wss2 given on +1-first data (3.17+ order), {rules}",
               ours(X[plus_first], y[plus_first], C, "given", rules))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=["a1a", "a2a", "a3a", "a4a", "w1a"])
    parser.add_argument("--libsvm283", help="an svm-train binary built from LIBSVM 2.83")
    parser.add_argument("--first-positive", action="store_true",
                        help="move the first +1 sample to the front (first-seen class +1)")
    parser.add_argument("--out", help="Markdown file to write (default: stdout only)")
    args = parser.parse_args()
    lines = ["| data set | n | C | solver / mode | iterations | objective | SVs |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    started = time.time()
    for name in args.datasets:
        data = load_dataset(name)
        X, y = data.X_train, np.asarray(data.y_train, dtype=float)
        if args.first_positive:
            lead = np.flatnonzero(y == 1)[0]
            order = np.concatenate([[lead], np.delete(np.arange(y.shape[0]), lead)])
            X, y = X[order], y[order]
        C = C_OF[name[0]]
        for label, (iterations, objective, n_sv) in runs(X, y, C, args.libsvm283):
            line = (f"| {name} | {X.shape[0]} | {C:g} | {label} | {iterations} | "
                    f"{objective:.6f} | {n_sv} |")
            print(line, flush=True)
            lines.append(line)
    write_table(lines, f"RBF gamma {GAMMA}, eps {TOL}, cache {CACHE_MB:g} MB, shrinking on.",
                started, args.out)

if __name__ == "__main__":
    main()
