"""Measurement (not a test): what recording convergence checkpoints costs a fit.

The solvers record their curve on every fit (svmbench.solvers.checkpoints); the baseline is the
same package at a commit before the recorder (``--base``, default 81d5f70), extracted with
``git archive`` into a temporary folder and imported as ``svmbench_base`` beside this checkout's
``svmbench``. Within each repetition the two fit the same problem one after the other, in
alternating order (interleaved: a load change hits both); each cell is the median over
``--repeats`` of the process CPU time of one fit (numba at 1 thread, kernels computed, not
precomputed), after one untimed fit of each. The overhead is new / base - 1; the table also
gives the curve's points and checks that both fits agree (iterations, objective, kernel counts).

    python studies/curve_overhead.py [--base 81d5f70] [--repeats 9] [--output PATH]
"""

import argparse
import importlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

REPO = Path(__file__).resolve().parent.parent
# (dataset, algorithm, parameters): C-SVM dual solvers, GS-SVM, HM-SVM, the MEB solvers, rho-SVM
CASES = [
    ("breast_cancer", "smo_wss2", {"C": 10.0, "gamma": 0.05}),
    ("breast_cancer", "smo_platt", {"C": 10.0, "gamma": 0.05}),
    ("breast_cancer", "smo_mod2", {"C": 10.0, "gamma": 0.05}),
    ("breast_cancer", "rosen", {"C": 10.0, "gamma": 0.05}),
    ("breast_cancer", "gs_svm", {"gamma": 0.05}),
    ("breast_cancer", "hm_svm", {"gamma": 0.05}),
    ("breast_cancer", "mfw", {"gamma": 0.05}),
    ("breast_cancer", "rho_svm", {"gamma": 0.05}),
    ("australian", "smo_wss2", {"C": 1024.0, "gamma": 0.1}),
    ("australian", "smo_mod1", {"C": 1024.0, "gamma": 0.1}),
    ("australian", "gs_svm", {"gamma": 0.1}),
    ("australian", "fw", {"gamma": 0.1}),
    ("a1a", "smo_wss2", {"C": 4.0, "gamma": 0.1}),
    ("a1a", "cvm", {"gamma": 0.1}),
]


def import_base(commit, folder):
    """The package at ``commit`` as module ``svmbench_base`` (its own imports renamed)."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", commit, "svmbench"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    (folder / "svmbench").rename(folder / "svmbench_base")
    for path in (folder / "svmbench_base").rglob("*.py"):
        text = path.read_text()
        path.write_text(text.replace("svmbench.", "svmbench_base.")
                        .replace("import svmbench\n", "import svmbench_base\n"))
    sys.path.insert(0, str(folder))
    return importlib.import_module("svmbench_base.algorithms")


def cpu_fit(build_estimator, algorithm, X, y):
    estimator = build_estimator(algorithm)
    start = time.process_time()
    estimator.fit(X, y)
    return time.process_time() - start, estimator


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="81d5f70")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    numba.set_num_threads(1)
    from svmbench.algorithms import build_estimator
    from svmbench.data import load_dataset

    with tempfile.TemporaryDirectory() as folder:
        base = import_base(args.base, Path(folder))
        title = (f"Curve overhead: CPU time of one fit, median of {args.repeats}, 1 numba "
                 f"thread, base {args.base}; load average before {os.getloadavg()}")
        lines = [title, "",
                 "| data | algorithm | n | iterations | points | base ms | curve ms | overhead |",
                 "|---|---|---|---|---|---|---|---|"]
        for dataset, name, params in CASES:
            data = load_dataset(dataset)
            X, y = data.X_train, data.y_train
            algorithm = {"name": name, **params}
            builders = (base.build_estimator, build_estimator)
            times = ([], [])
            for builder in builders:
                cpu_fit(builder, algorithm, X, y)  # compile / load and first touch, untimed
            for repeat in range(args.repeats):
                for which in ((0, 1) if repeat % 2 == 0 else (1, 0)):
                    seconds, fitted = cpu_fit(builders[which], algorithm, X, y)
                    times[which].append(seconds)
                    if which == 1:
                        new = fitted
                    else:
                        old = fitted
            same = (np.array_equal(old.n_iter_, new.n_iter_)
                    and np.array_equal(old.objective_, new.objective_)
                    and old.kernel_computed_ == new.kernel_computed_)
            if not same:
                raise SystemExit(f"{dataset} {name}: the fits differ with the recorder")
            base_ms, new_ms = (1e3 * statistics.median(t) for t in times)
            lines.append(f"| {dataset} | {name} | {X.shape[0]} | {int(np.sum(new.n_iter_))} | "
                         f"{len(new.curve_)} | {base_ms:.2f} | {new_ms:.2f} | "
                         f"{100 * (new_ms / base_ms - 1):+.1f} % |")
            print(lines[-1], flush=True)
        lines += ["", f"load average after {os.getloadavg()}"]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        args.output.write_text(text)


if __name__ == "__main__":
    main()
