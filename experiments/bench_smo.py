"""Benchmark: smo_wss2 (svmbench's LIBSVM 2.83 algorithm) against scikit-learn's SVC (LIBSVM).

Same data, C, gamma, tol and cache size; numba is warmed first, so times are training only
(kernel provider build included, as SVC's fit includes its own setup). Parameters follow
gs-svm-tnn2008 Tables I-II: gamma (theta) 0.05, C = 2 for Adult, C = 4 for Web.
Prints a Markdown table and writes it to results/bench/smo_vs_svc.md.

    python experiments/bench_smo.py [--datasets a1a w1a a4a w7a] [--cache-mb 1000]
"""

import argparse
import platform
import time
from datetime import datetime, timezone
from pathlib import Path

import numba
import numpy as np
from sklearn.svm import SVC

from svmbench.data import load_dataset
from svmbench.models import SMOSVC

GAMMA = 0.05
C_BY_FAMILY = {"a": 2.0, "w": 4.0}
# gs-svm-tnn2008 Table II, LIBSVM 2.83 (1 GB cache): K1, K2 in 10^6 kernel evaluations
PAPER_K = {"a1a": (1.1, 3.2), "a4a": (9.6, 13.9), "w1a": (1.1, 5.5)}
OUTPUT = Path("results/bench/smo_vs_svc.md")


def warm_up():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    SMOSVC(C=1.0, gamma=0.5).fit(X, np.where(X[:, 0] > 0, 1, -1))


def timed_fit(estimator, X, y):
    start = time.perf_counter()
    estimator.fit(X, y)
    return time.perf_counter() - start


def bench(name, cache_mb):
    ds = load_dataset(name)
    C = C_BY_FAMILY[name[0]]
    ours = SMOSVC(variant="wss2", C=C, gamma=GAMMA, tol=1e-3, shrinking=True, cache_mb=cache_mb)
    theirs = SVC(C=C, gamma=GAMMA, tol=1e-3, shrinking=True, cache_size=cache_mb)
    ours_time = timed_fit(ours, ds.X_train, ds.y_train)
    theirs_time = timed_fit(theirs, ds.X_train, ds.y_train)
    paper = PAPER_K.get(name, ("-", "-"))
    return {
        "dataset": name, "n": ds.X_train.shape[0], "C": C,
        "time_wss2_s": ours_time, "time_svc_s": theirs_time, "ratio": ours_time / theirs_time,
        "iter_wss2": int(ours.n_iter_[0]), "iter_svc": int(theirs.n_iter_[0]),
        "sv_wss2": ours.support_.shape[0], "sv_svc": theirs.support_.shape[0],
        "acc_wss2": (ours.predict(ds.X_test) == ds.y_test).mean(),
        "acc_svc": (theirs.predict(ds.X_test) == ds.y_test).mean(),
        "K1": ours.kernel_computed_ / 1e6, "K2": ours.kernel_requested_ / 1e6,
        "paper_K1": paper[0], "paper_K2": paper[1],
    }


def markdown(rows, cache_mb):
    header = ("| dataset | n | C | wss2 s | SVC s | ratio | iter wss2 | iter SVC | SV wss2 | SV SVC "
              "| acc wss2 | acc SVC | K1 (1e6) | K2 (1e6) | paper LIBSVM K1 | paper LIBSVM K2 |")
    lines = [
        (f"smo_wss2 vs scikit-learn SVC: gamma {GAMMA}, tol 1e-3, shrinking, cache {cache_mb} MB; "
         f"{numba.get_num_threads()} numba threads; {platform.node()}; "
         f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC"),
        "",
        header,
        "|" + "---|" * header.count(" | ") + "---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['dataset']} | {r['n']} | {r['C']:g} | {r['time_wss2_s']:.2f} | "
            f"{r['time_svc_s']:.2f} | {r['ratio']:.2f} | {r['iter_wss2']} | {r['iter_svc']} | "
            f"{r['sv_wss2']} | {r['sv_svc']} | {100 * r['acc_wss2']:.2f} | "
            f"{100 * r['acc_svc']:.2f} | {r['K1']:.2f} | {r['K2']:.2f} | {r['paper_K1']} | "
            f"{r['paper_K2']} |"
        )
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["a1a", "w1a", "a4a", "w7a"])
    parser.add_argument("--cache-mb", type=float, default=1000.0)
    args = parser.parse_args()
    warm_up()
    rows = [bench(name, args.cache_mb) for name in args.datasets]
    table = markdown(rows, args.cache_mb)
    print(table)
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(table)


if __name__ == "__main__":
    main()
