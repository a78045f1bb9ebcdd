"""Time per iteration of the SMO family, kernel rows taken out (issue 42, item 1).

    python studies/iteration_cost.py [--repeats N] [--solvers ...] [--classes K] CELL ...
    python studies/iteration_cost.py --ab BASE_CHECKOUT [--rounds N] CELL ...

A cell is ``set:C:gamma`` (e.g. ``letter:2:0.5``, ``a4a:2:0.05``, ``w7a:4:0.05``), loaded as
studies/bench.py loads it (letter and pendigits scaled to [-1, 1] on the training part); with
``--classes K`` a multiclass set keeps its first K classes (letter's 26 make 325 class pairs).
Every solver fits at one numba thread, in turn within each round (the first round warms up and
is dropped), cache 1024 MB and tol 1e-3 as the bench. Per solver: iterations, K1, K2 and a hash
of the fitted model (support, dual coefficients, intercepts: the path), median CPU and wall
seconds of the fit (the referee's check taken out), and the bench's definitions
(studies/bench.py, run_cell): the kernel-row time, the seconds the provider spent computing the
K1 entries, timed in the fit (bench.part_seconds; K1 x the CPU time per computed entry of
full rows, row_time_per_entry, for a checkout whose provider does not time them) + K2 x the
time per requested entry (read_time_per_entry; Rosen's reading of them is timed in the fit
instead), ``us/it``
CPU per iteration and ``bk us/it`` (CPU - row time) / iterations, and that bookkeeping over
smo_wss2's in the same cell (target: 1.5).

``--ab BASE`` compares this checkout with another one (e.g. ``git worktree`` or ``git archive``
of main) in alternating processes, BASE first in each round, one fit per solver after a warm-up
round in each process: the same iterations and model hash (the path) are asserted, both sides'
K1 and K2 printed (a count that changes is a fix and says so), and the medians of both sides
printed with their ratio and the load average before and after. Under load the ratios, not the
times, are what the run says.
"""

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numba
import numpy as np
from _fit_worker import certified_fit, one_blas_thread, timed_parts
from bench import (
    CACHE_MB,
    TOL,
    load,
    median_part,
    pair_length,
    part_seconds,
    read_time_per_entry,
    row_time_per_entry,
)

from svmbench.algorithms import build_estimator
from svmbench.warm_up import warm_up

SOLVERS = ["smo_wss2", "smo_platt", "smo_mod1", "smo_mod2"]
PARITY_TARGET = 1.5
ROOT = Path(__file__).resolve().parent.parent


def model_hash(model):
    """sha256 of the fitted model's support, dual coefficients and intercepts (its bits)."""
    digest = hashlib.sha256()
    for values in (model.support_, model.dual_coef_, model.intercept_):
        digest.update(np.ascontiguousarray(values).tobytes())
    return digest.hexdigest()[:16]


def cell_data(cell, classes):
    """(name, C, gamma, (X, y)) of ``set:C:gamma``, the first ``classes`` classes when given."""
    name, C, gamma = cell.split(":")
    X, y, _, _ = load(name, None, None)
    if classes:
        keep = np.isin(y, np.unique(y)[:classes])
        X, y = X[keep], y[keep]
    return name, float(C), float(gamma), (X, y)


def fit_once(solver, C, gamma, X, y):
    """(CPU s, wall s, the parts it timed in the fit (_fit_worker.timed_parts), counts) of one
    fit at one thread."""
    model = build_estimator({"name": solver, "C": C, "gamma": gamma, "tol": TOL,
                             "cache_mb": CACHE_MB})
    wall, cpu, failed = certified_fit(model, X, y)
    if failed:
        raise RuntimeError(f"{solver} at C {C:g}, gamma {gamma:g}: {failed}")
    return cpu, wall, timed_parts(model), {
        "iterations": int(np.sum(model.n_iter_)), "K1": model.kernel_computed_,
        "K2": model.kernel_requested_, "hash": model_hash(model)}


def measure(cells, solvers, repeats, classes):
    """Per cell and solver: the counts and the CPU and wall seconds of ``repeats`` fits."""
    numba.set_num_threads(1)
    for solver in solvers:
        warm_up(solver, "rbf")
    found = []
    for cell in cells:
        _, C, gamma, (X, y) = cell_data(cell, classes)
        times = {solver: ([], [], []) for solver in solvers}
        counts = {}
        for round_ in range(repeats + 1):
            for solver in solvers:
                cpu, wall, reading, counts[solver] = fit_once(solver, C, gamma, X, y)
                if round_ > 0:
                    for kept, value in zip(times[solver], (cpu, wall, reading), strict=True):
                        kept.append(value)
        row_entry = row_time_per_entry(X, gamma, 1)
        read_entry = read_time_per_entry(pair_length(y))
        for solver in solvers:
            found.append({"cell": cell, "classes": classes, "n": int(y.shape[0]),
                          "solver": solver, **counts[solver], "cpu": times[solver][0],
                          "wall": times[solver][1], "timings": times[solver][2],
                          "row_ns": 1e9 * row_entry,
                          "read_ns": 1e9 * read_entry})
    return found


def per_iteration(entry):
    """The bench's us/it and bk us/it of an entry (median CPU)."""
    cpu = statistics.median(entry["cpu"])
    rows = (part_seconds(median_part(entry["timings"], "rows s"), entry["K1"],
                         1e-9 * entry["row_ns"])
            + part_seconds(median_part(entry["timings"], "reads s"), entry["K2"],
                           1e-9 * entry["read_ns"]))
    return 1e6 * cpu / entry["iterations"], 1e6 * (cpu - rows) / entry["iterations"], rows


def report(found):
    """One line per cell and solver: counts, times, us/it, bk us/it and its ratio to wss2's."""
    base = {e["cell"]: per_iteration(e)[1] for e in found if e["solver"] == "smo_wss2"}
    lines = [("| cell | n | solver | iterations | K1 | K2 | CPU s | wall s | rows s | us/it | "
              "bk us/it | bk / wss2 |"), "|" + " --- |" * 12]
    for e in found:
        us, bk, rows = per_iteration(e)
        ratio = bk / base[e["cell"]] if e["cell"] in base else float("nan")
        lines.append(f"| {e['cell']} | {e['n']} | {e['solver']} | {e['iterations']} | "
                     f"{e['K1']:.4g} | {e['K2']:.4g} | {statistics.median(e['cpu']):.3f} | "
                     f"{statistics.median(e['wall']):.3f} | {rows:.3f} | {us:.2f} | {bk:.2f} | "
                     f"{ratio:.2f} |")
    return "\n".join(lines)


def one_side(checkout, args, out):
    """Run this script for ``checkout`` in a fresh process (PYTHONPATH set to it), one fit per
    solver after the warm-up round, its entries into ``out``."""
    command = [sys.executable, str(Path(__file__).resolve()), *args.cells, "--repeats", "1",
               "--json", out, "--solvers", *args.solvers]
    if args.classes:
        command += ["--classes", str(args.classes)]
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    return json.loads(Path(out).read_text())


def compare(args):
    """A/B in alternating processes: BASE then this checkout in each round; the iterations and
    the model hash must agree (the path), the counts are shown beside each other; medians and
    ratios of us/it and bk us/it."""
    sides = {"base": Path(args.ab).resolve(), "this": ROOT}
    runs = {side: [] for side in sides}
    loads = [os.getloadavg()]
    for round_ in range(args.rounds):
        for side, checkout in sides.items():
            out = f"/tmp/iteration_cost_{os.getpid()}_{side}_{round_}.json"
            runs[side].append(one_side(checkout, args, out))
            loads.append(os.getloadavg())
    merged = {}
    for side, rounds in runs.items():
        for entries in rounds:
            for e in entries:
                key = (e["cell"], e["solver"])
                kept = merged.setdefault(side, {}).setdefault(key, {**e, "cpu": [], "wall": [],
                                                                        "timings": []})
                if (e["iterations"], e["K1"], e["K2"], e["hash"]) != (
                        kept["iterations"], kept["K1"], kept["K2"], kept["hash"]):
                    raise AssertionError(f"{side} {key}: the path differs between rounds")
                kept["cpu"] += e["cpu"]
                kept["wall"] += e["wall"]
                kept["timings"] += e["timings"]
    lines = [("| cell | solver | iterations | K1 base | K1 this | K2 base | K2 this | same path | "
              "us/it base | us/it this | bk us/it base | bk us/it this | this / base (bk) | "
              "bk / wss2 this |"), "|" + " --- |" * 14]
    for key, base in merged["base"].items():
        this = merged["this"][key]
        same = all(base[k] == this[k] for k in ("iterations", "hash"))
        us_b, bk_b, _ = per_iteration(base)
        us_t, bk_t, _ = per_iteration(this)
        wss2 = per_iteration(merged["this"][(key[0], "smo_wss2")])[1] \
            if (key[0], "smo_wss2") in merged["this"] else float("nan")
        lines.append(f"| {key[0]} | {key[1]} | {this['iterations']} | {base['K1']:.4g} | "
                     f"{this['K1']:.4g} | {base['K2']:.4g} | {this['K2']:.4g} | "
                     f"{'yes' if same else 'NO'} | {us_b:.2f} | {us_t:.2f} | "
                     f"{bk_b:.2f} | {bk_t:.2f} | {bk_t / bk_b:.2f} | {bk_t / wss2:.2f} |")
    print("\n".join(lines))
    print("load average (1/5/15) before and after each process: "
          + ", ".join("/".join(f"{v:.1f}" for v in load) for load in loads))
    return 0 if all("| NO |" not in line for line in lines) else 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cells", nargs="+", help="set:C:gamma")
    parser.add_argument("--solvers", nargs="+", default=SOLVERS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--classes", type=int, help="keep a multiclass set's first K classes")
    parser.add_argument("--json", help="write the entries to this file")
    parser.add_argument("--ab", help="another checkout to compare with, alternating processes")
    parser.add_argument("--rounds", type=int, default=3, help="--ab: processes per side")
    args = parser.parse_args(argv)
    one_blas_thread()
    if args.ab:
        return compare(args)
    load_before = os.getloadavg()
    started = time.perf_counter()
    found = measure(args.cells, args.solvers, args.repeats, args.classes)
    if args.json:
        Path(args.json).write_text(json.dumps(found))
    print(report(found))
    print(f"load average {load_before} before, {os.getloadavg()} after; "
          f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
