"""Benchmark (not a test): every solver against scikit-learn's SVC and Intel's oneDAL SVC, one run.

Contenders, fitted in turn within each repetition (interleaved, so a load change hits them all):
scikit-learn's SVC (LIBSVM, one thread), scikit-learn-intelex's SVC when installed (oneDAL, its
own threads; ``pip install -e '.[peers]'``), and each of our solvers of the same C-SVM dual
(the SMO variants, Rosen's projection) and GS-SVM, at 1 numba thread and at all cores. Same C,
gamma, tol 1e-3, shrinking and cache for all; GS-SVM (no C) takes gs-svm-tnn2008 Table I's theta.
Each cell is the median over ``--repeats`` fits of the wall time and of the process CPU time
(all threads), with the SV count, iterations and test accuracy of the last fit beside it; ratios
are SVC's time over the contender's (> 1: faster than SVC), wall and CPU apart. numba is warmed
first and one untimed round of fits comes before the timed ones (a process's first touch of its
memory costs page faults that later fits do not pay: smo_wss2 on a8a, 2.2 s of system time in
the first fit, 0.05 s after), so times are training only; ours include building the Q-matrix.
Solvers slower than hours on the large sets run on the sets up to their size limit (SIZE_LIMITS);
their other rows say so.

    python experiments/bench.py [--datasets a1a a4a w7a a8a w8a ijcnn1] [--repeats 5]
        [--solvers smo_wss2 smo_mod2 ...] [--max-train N] [--output PATH]

The script imports the installed svmbench (an editable install: the main checkout); to bench
another checkout, e.g. a worktree at a clean commit, run it with PYTHONPATH set to that checkout.
The table's last line names the commit of the code it imported (+dirty: uncommitted changes).
"""

import argparse
import os
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

from svmbench.algorithms import build_estimator
from svmbench.analysis.tables import Table, provenance, to_markdown
from svmbench.data import load_dataset
from svmbench.kernels.threads import threading_info
from svmbench.runner import warm_up

OUTPUT = Path(__file__).resolve().parent.parent / "results" / "bench" / "solvers_vs_svc.md"
DATASETS = ["a1a", "a4a", "w7a", "a8a", "w8a", "ijcnn1"]
SOLVERS = ["smo_wss2", "smo_mod2", "smo_mod1", "smo_platt", "rosen", "gs_svm"]
# largest training set each slow solver is timed on (Keerthi's and Platt's loops fetch two rows
# over I0 or all samples per step without shrinking; Rosen projects on the whole free set): one
# a8a fit of smo_mod1 took more than an hour here
SIZE_LIMITS = {"smo_mod2": 5000, "smo_mod1": 5000, "smo_platt": 5000, "rosen": 5000}
CACHE_MB = 1024.0
TOL = 1e-3


def settings(dataset):
    """(C, gamma, GS-SVM's gamma): gs-svm-tnn2008 Tables I-II on Adult and Web; ijcnn1 (no paper
    setting here) C = 32, gamma = 2, chosen for this benchmark."""
    if dataset.startswith("w"):
        return 4.0, 0.05, 0.10
    if dataset.startswith("a"):
        return 2.0, 0.05, 0.05
    return 32.0, 2.0, 2.0


@dataclass
class Contender:
    label: str
    make: object  # () -> unfitted estimator
    threads: int | None = None  # numba threads while it fits; None: not ours
    walls: list = field(default_factory=list)
    cpus: list = field(default_factory=list)
    fitted: object = None


def peer_svc(C, gamma):
    """scikit-learn-intelex's SVC with our settings, or None when it is not installed."""
    try:
        from sklearnex.svm import SVC as OneDalSVC
    except ImportError:
        return None
    return lambda: OneDalSVC(C=C, gamma=gamma, tol=TOL, shrinking=True, cache_size=CACHE_MB)


def contenders(dataset, n, solvers, all_cores):
    """The peers and each of ``solvers`` within its size limit at 1 and ``all_cores`` threads;
    plus the solvers left out for the size of the set."""
    C, gamma, gs_gamma = settings(dataset)
    found = [Contender("SVC (LIBSVM)", lambda: SVC(C=C, gamma=gamma, tol=TOL, shrinking=True,
                                                   cache_size=CACHE_MB))]
    onedal = peer_svc(C, gamma)
    if onedal is not None:
        found.append(Contender("sklearnex SVC (oneDAL)", onedal))
    too_large = [name for name in solvers if n > SIZE_LIMITS.get(name, n)]
    for name in solvers:
        if name in too_large:
            continue
        params = {"name": name, "gamma": gs_gamma if name == "gs_svm" else gamma,
                  "cache_mb": CACHE_MB}
        if name != "gs_svm":
            params.update(C=C, tol=TOL)
        for threads in sorted({1, all_cores}):
            found.append(Contender(f"{name} ({threads} thr)",
                                   lambda p=params: build_estimator(p), threads))
    return found, too_large


def subsample(X, y, count):
    """A stratified sample of ``count`` training samples (seed 0), or all when count is None."""
    if count is None:
        return X, y
    keep, _ = train_test_split(np.arange(y.shape[0]), train_size=count, stratify=y, random_state=0)
    keep.sort()
    return X[keep], y[keep]


def timed_fit(contender, X, y, all_cores, keep=True):
    """Fit once; keep the wall and CPU time unless it is the untimed warm-up round."""
    numba.set_num_threads(contender.threads or all_cores)
    estimator = contender.make()
    wall, cpu = time.perf_counter(), time.process_time()
    estimator.fit(X, y)
    if keep:
        contender.walls.append(time.perf_counter() - wall)
        contender.cpus.append(time.process_time() - cpu)
    contender.fitted = estimator
    numba.set_num_threads(all_cores)


def bench_dataset(dataset, solvers, repeats, max_train, all_cores):
    """One table row per contender: medians of wall and CPU time, ratios to SVC (and to oneDAL's
    SVC when it ran), SV, accuracy; and the solvers left out for the size of the set."""
    data = load_dataset(dataset)
    X, y = subsample(data.X_train, data.y_train, max_train)
    entrants, too_large = contenders(dataset, X.shape[0], solvers, all_cores)
    for round_ in range(repeats + 1):  # round 0: untimed warm-up
        for contender in entrants:
            timed_fit(contender, X, y, all_cores, keep=round_ > 0)
    peers = {contender.label: (statistics.median(contender.walls),
                               statistics.median(contender.cpus))
             for contender in entrants if contender.threads is None}
    rows = []
    for contender in entrants:
        wall, cpu = statistics.median(contender.walls), statistics.median(contender.cpus)
        model = contender.fitted
        ratios = {}
        for label, short in (("SVC (LIBSVM)", "SVC"), ("sklearnex SVC (oneDAL)", "oneDAL")):
            if label in peers:
                ratios[f"{short}/ours wall"] = peers[label][0] / wall
                ratios[f"{short}/ours CPU"] = peers[label][1] / cpu
        rows.append({
            "dataset": dataset, "n": X.shape[0], "contender": contender.label,
            "wall s": wall, "CPU s": cpu, **ratios,
            "SV": len(model.support_),
            "iter": int(np.sum(getattr(model, "n_iter_", [np.nan]))),
            "test acc %": 100.0 * float(np.mean(model.predict(data.X_test) == data.y_test)),
        })
    return rows, too_large


def load_average():
    return "/".join(f"{v:.1f}" for v in os.getloadavg())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--solvers", nargs="+", default=SOLVERS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--max-train", type=int, default=None,
                        help="train on a stratified sample of N (a quick check of the script)")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    threads = threading_info()
    all_cores = threads["numba_threads"]
    for solver in args.solvers:
        warm_up(solver, "rbf")
    load_before = load_average()
    tables = []
    for name in args.datasets:
        rows, too_large = bench_dataset(name, args.solvers, args.repeats, args.max_train,
                                        all_cores)
        values = pd.DataFrame(rows)
        table = Table(values.drop(columns=["dataset", "n"]).set_index("contender"),
                      formats={"SV": "{:.0f}", "iter": "{:.0f}", "test acc %": "{:.2f}"},
                      default_format="{:.3g}")
        skipped = "".join(f"\n\n{solver}: not run here, n = {rows[0]['n']} > its size limit "
                          f"{SIZE_LIMITS[solver]} (hours per fit)." for solver in too_large)
        tables.append(f"## {name} (n = {rows[0]['n']})\n\n{to_markdown(table)}{skipped}")
        print(tables[-1], flush=True)
    text = "\n\n".join([
        "# Benchmark: our solvers against scikit-learn's SVC (LIBSVM) and oneDAL's SVC, one run",
        (f"RBF; C and gamma: Adult C 2, Web C 4, gamma 0.05 (gs-svm-tnn2008 Table II; GS-SVM "
         f"Table I's theta 0.05 / 0.10); ijcnn1 C 32, gamma 2. tol {TOL:g}, shrinking, cache "
         f"{CACHE_MB:g} MB for all. Median of {args.repeats} interleaved fits; wall and process "
         f"CPU time (all threads). SVC runs one thread; ours run 1 and {all_cores} numba threads "
         f"(layer {threads['threading_layer']}, OMP_WAIT_POLICY={threads['omp_wait_policy']}, "
         f"GOMP_SPINCOUNT={threads['gomp_spincount']}); "
         f"oneDAL's SVC runs its own threads (all cores). Ratios: the peer's time / the "
         f"contender's (> 1: the contender is faster); compare like with like: CPU time, or "
         f"wall time at equal threads (ours at {all_cores} threads against oneDAL). Load average "
         f"(1/5/15 min) {load_before} before, {load_average()} after."
         + ("" if peer_svc(1.0, 1.0) else " scikit-learn-intelex is not installed: no oneDAL row "
            "(pip install -e '.[peers]').")
         + (f" Training sets cut to a stratified sample of {args.max_train}."
            if args.max_train else "")),
        *tables,
        provenance(),
    ])
    print(text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text + "\n")


if __name__ == "__main__":
    main()
