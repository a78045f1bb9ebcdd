"""Benchmark (not a test): our solvers' training time against scikit-learn's SVC, same run.

For each dataset, in one process: scikit-learn's SVC (LIBSVM), smo_wss2 (our LIBSVM 2.83
algorithm, same C, gamma, tol, shrinking and cache) and GS-SVM (gs-svm-tnn2008 Table I's theta:
0.05 on Adult, 0.10 on Web). C = 2 (Adult) / 4 (Web) as in Table II. numba is warmed first, so
times are training only; our times include building the kernel provider, as SVC's include its
setup. Ratios are SVC time / ours (> 1: ours is faster).

    python experiments/bench.py [--datasets a1a w1a a4a w7a a8a w8a] [--cache-mb 1024]
"""

import argparse
import time
from pathlib import Path

import numba
import pandas as pd
from sklearn.svm import SVC

from svmbench.analysis.reference import load_reference
from svmbench.analysis.tables import Table, provenance, to_markdown
from svmbench.data import load_dataset
from svmbench.models import GSSVC, SMOSVC
from svmbench.runner import warm_up

OUTPUT = Path(__file__).resolve().parent.parent / "results" / "bench" / "solvers_vs_svc.md"


def timed_fit(estimator, X, y):
    start = time.perf_counter()
    estimator.fit(X, y)
    return time.perf_counter() - start


def accuracy(estimator, data):
    return 100.0 * (estimator.predict(data.X_test) == data.y_test).mean()


def bench(name, cache_mb, paper):
    data = load_dataset(name)
    web = name.startswith("w")
    C = 4.0 if web else 2.0
    svc = SVC(C=C, gamma=0.05, tol=1e-3, shrinking=True, cache_size=cache_mb)
    wss2 = SMOSVC(variant="wss2", C=C, gamma=0.05, tol=1e-3, shrinking=True, cache_mb=cache_mb)
    gs = GSSVC(gamma=0.10 if web else 0.05, cache_mb=cache_mb)
    times = {label: timed_fit(model, data.X_train, data.y_train)
             for label, model in (("svc", svc), ("wss2", wss2), ("gs", gs))}
    reference = paper.get(data.paper_names[0] if data.paper_names else name, {})
    return {
        "n": data.X_train.shape[0], "C": C,
        "SVC s": times["svc"], "smo_wss2 s": times["wss2"], "GS-SVM s": times["gs"],
        "SVC/smo_wss2": times["svc"] / times["wss2"], "SVC/GS-SVM": times["svc"] / times["gs"],
        "iter SVC": int(svc.n_iter_[0]), "iter smo_wss2": int(wss2.n_iter_[0]),
        "SV SVC": len(svc.support_), "SV smo_wss2": len(wss2.support_), "SV GS-SVM": len(gs.support_),
        "acc SVC %": accuracy(svc, data), "acc smo_wss2 %": accuracy(wss2, data),
        "acc GS-SVM %": accuracy(gs, data),
        "smo_wss2 K1 (1e6)": wss2.kernel_computed_ / 1e6,
        "paper LIBSVM K1": reference.get("libsvm_k1"),
        "smo_wss2 K2 (1e6)": wss2.kernel_requested_ / 1e6,
        "paper LIBSVM K2": reference.get("libsvm_k2"),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["a1a", "w1a", "a4a", "w7a", "a8a", "w8a"])
    parser.add_argument("--cache-mb", type=float, default=1024.0)
    args = parser.parse_args()
    for algorithm in ("gs_svm", "smo_wss2"):
        warm_up(algorithm, "rbf")
    paper = load_reference("gs2008_table2").set_index("problem").to_dict("index")
    rows = {name: bench(name, args.cache_mb, paper) for name in args.datasets}
    values = pd.DataFrame.from_dict(rows, orient="index").rename_axis("dataset")
    table = Table(values, formats={"n": "{:.0f}", "C": "{:g}"}, default_format="{:.3g}")
    text = "\n\n".join([
        "# Benchmark: smo_wss2 and GS-SVM against scikit-learn's SVC (LIBSVM), same run",
        (f"RBF; SVC and smo_wss2: gamma 0.05, C 2 (Adult) / 4 (Web), tol 1e-3, shrinking, "
         f"cache {args.cache_mb:g} MB; GS-SVM: gamma 0.05 (Adult) / 0.10 (Web). "
         f"{numba.get_num_threads()} numba threads. Ratios: SVC time / ours (> 1: ours faster). "
         "Paper K1/K2: gs-svm-tnn2008 Table II (LIBSVM 2.83, 1 GB cache)."),
        to_markdown(table),
        provenance(),
    ])
    print(text)
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(text + "\n")


if __name__ == "__main__":
    main()
