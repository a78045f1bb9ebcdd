"""smo_wss2 at 1 and 2 numba threads, interleaved in one process (issue 42, item 3).

    python studies/wss2_threads.py --repeats 5 ijcnn1:32:2 a8a:2:0.05 w7a:4:0.05 w8a:4:0.05
    python studies/wss2_threads.py --repeats 5 --busy ijcnn1:32:2

Each round fits every cell at 1 then 2 threads (the first round warms up and is dropped); a
fit's time is its wall time less the referee's (the harness's certificate, outside the solver).
``--busy`` starts a second process that fits the same cell at 1 thread in a loop, to see how much
a busy neighbour slows a 2-thread fit (the contention target: at most 1.5x). Prints one JSON
line per cell: the fit times, their medians, the 1-thread / 2-thread ratio of the medians, the
iterations (which must not depend on the thread count) and the load average before and after.
"""
import argparse
import json
import multiprocessing
import os
import statistics
import time

import numba

from svmbench.algorithms import build_estimator
from svmbench.data import load_dataset


def fit_seconds(data, C, gamma, threads):
    """(solver seconds, iterations) of one smo_wss2 fit at ``threads`` numba threads."""
    numba.set_num_threads(threads)
    model = build_estimator({"name": "smo_wss2", "C": C, "gamma": gamma, "tol": 1e-3,
                             "cache_mb": 1024.0})
    start = time.perf_counter()
    model.fit(data.X_train, data.y_train)
    return time.perf_counter() - start - model.referee_time_s_, int(model.n_iter_.sum())


def busy_neighbour(name, C, gamma, stop):
    """Fit the cell at 1 thread until ``stop`` is set (the contention check's second process)."""
    data = load_dataset(name)
    while not stop.is_set():
        fit_seconds(data, C, gamma, 1)


def measure(cell, repeats, busy):
    name, C, gamma = cell.split(":")
    C, gamma = float(C), float(gamma)
    data = load_dataset(name)
    stop, neighbour = multiprocessing.Event(), None
    if busy:
        neighbour = multiprocessing.Process(target=busy_neighbour, args=(name, C, gamma, stop))
        neighbour.start()
    load_before = os.getloadavg()
    seconds, iterations = {1: [], 2: []}, {1: set(), 2: set()}
    for round_ in range(repeats + 1):
        for threads in (1, 2):
            spent, n_iter = fit_seconds(data, C, gamma, threads)
            iterations[threads].add(n_iter)
            if round_:
                seconds[threads].append(spent)
    if neighbour is not None:
        stop.set()
        neighbour.join()
    medians = {threads: statistics.median(times) for threads, times in seconds.items()}
    return {"cell": cell, "busy_neighbour": busy, "seconds": seconds,
            "median_s": medians, "ratio_1t_over_2t": medians[1] / medians[2],
            "iterations": {t: sorted(n) for t, n in iterations.items()},
            "load_before": load_before, "load_after": os.getloadavg()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cells", nargs="+", help="set:C:gamma")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--busy", action="store_true")
    args = parser.parse_args()
    for cell in args.cells:
        print(json.dumps(measure(cell, args.repeats, args.busy)), flush=True)


if __name__ == "__main__":
    main()
