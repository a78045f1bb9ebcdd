"""Benchmark matrix (not a test): every solver against scikit-learn's SVC and Intel's oneDAL SVC
over a 3 x 3 grid of (C, gamma) per data set, one run.

Data sets: the Adult and Web sets and ijcnn1 as before, plus two multiclass sets (letter,
pendigits; features scaled to [-1, 1] on the training part, as LIBSVM's .scale files). Each set
has a centre (C, gamma) (SETTINGS: the paper's or a standard setting) and is run at its 9 points
C x {1/4, 1, 4} times gamma x {1/4, 1, 4}. GS-SVM has no C: it runs once per gamma (its own
gamma, gs-svm-tnn2008 Table I's theta, scaled the same way) and its fit stands in every C of
that gamma.

Contenders, fitted in turn within each repetition (interleaved, so a load change hits them all;
numpy's BLAS on one thread, so that no worker of an untimed prediction spins beside a fit):
scikit-learn's SVC (LIBSVM, one thread), scikit-learn-intelex's SVC when installed (oneDAL, its
own threads: all cores), and each of our solvers at 1 numba thread and at all cores. Same C,
gamma, tol 1e-3, shrinking and cache for all. A cell is the median over ``--repeats`` fits of the
wall time and of the process CPU time (all threads), with the SV count, accuracy, iterations and
kernel counts of the last fit; a contender whose fits all took less than ``--short-fit`` seconds
of wall time is fitted again, interleaved with the cell's other short ones, up to
``--short-repeats`` fits in all (a short fit's time is noisy, and the bookkeeping ratio below
divides it: smo_mod1 on a1a at C 0.5, gamma 0.0125 took 0.0447 s of CPU in the bench of
7d0ee2d6, its worst parity cell, and 0.032 s as the best of 5 on the same machine). The first
cell of a set is preceded by an untimed round (a process's first touch of its memory costs page
faults that later fits do not pay).

Per cell, ours: ``ns/K1``, the fit's CPU time (1 thread: its work, whatever the load) per
computed kernel entry (K1), and ``rows %``, the share of that fit spent computing kernel rows:
``rows s``, the seconds its provider spent computing the K1 entries, timed where they are
computed (svmbench.kernels.provider.computing_cycles: wall time, by svmbench.kernels.cycles; the
median over the cell's fits), over the fit's CPU time; for a solver whose results do not carry
that time, an estimate: K1 times the time per entry of full rows of the set at that gamma
(calibrated once per cell and gamma, cache off, 1 thread, best of 3 CPU times), which on fits of
a tenth of a second could exceed the whole fit's CPU time (smo_mod1 on a4a at C 2, gamma 0.0125).
A share near 100 % means the fit is at the row engine's bound. ``us/it``: that CPU time per
iteration (summed over class pairs); ``bk us/it``: its bookkeeping per iteration, the CPU time
less the kernel rows' time, ``rows s`` plus K2 x the time per requested entry
(``read_time_per_entry``: Rosen's Q d, eight cached float32 rows of the mean class-pair
length added into a float64 vector per pass, the fastest reading of rows we have, from a pool
of those rows as large as the pair's Q-matrix up to 256 MB, best of 3 CPU times), or, for a
solver that times its reading of requested entries where it runs, that time (``reads s``, the
median over the cell's fits: Rosen's Q d, whose up to 84 million entries an iteration left a
calibrated estimate's error larger than the rest of the iteration, negative in 13 of the 49
cells it finished at one thread in the bench of 2026-11-29; wall time, by
svmbench.kernels.cycles). Every
requested entry is read at least once, so what remains is the rule's own work (issue 42: within 1.5x of smo_wss2's per iteration, the
Summary's parity line). Every fit is certified by the referee (svmbench.referee), outside the times: ``referee s``
is its wall time per cell (the last fit), and the targets give it over the fit's wall time. A
slow solver's cell stopped at the budget says how far its fit went
(the last convergence checkpoint: iteration, K2, K1 and the violation, from a curve its worker
shares with the bench) and the time its kernel entries alone took by then at those costs: a
measured lower bound of the whole fit's time that the published rule imposes (issue 42). Past
the budget the fit goes on while that bound may still pass the budget within ``--bound-cap``
budgets at the rate it grew (``past_budget``), so that the note can say whether the rule's
entries alone exceed the budget; a cell not run after one over the budget states the largest
bound of a cell of its set with no larger C, gamma, assumed to hold (the summary counts the
pairs of finished cells of one set on which that held).

No solver has a size limit. A cell whose first fit exceeds the time budget (``--budget``) is
not repeated and is marked "over budget". When the bound of its rule's kernel entries measured
in that cell is above the budget (or the solver is not one the budget stops), the solver's cells
of that set with no smaller C or gamma are not run (``dominating``, ``rules_out_dominated``: by
the order the bounds above assume, each one's rule would cost at least as much); when the bound
is within the budget or was not measured, they run and the budget stops them: the order of the
whole fit's times is not assumed, since smo_platt's w8a cells at gamma 0.2 broke it (C 4 took
608 s in the record of 44f8d2c0 with a bound of 452 s, C 16 235 s alone: docs/changelog.md).
Its other cells run (each set's grid runs from the smallest C and gamma up), and so do its
cells of the other sets, whose gamma is another kernel's; the table says so.
The slow solvers (SLOW_SOLVERS: Platt, Keerthi 1 and 2, Rosen) fit in a
worker process (studies/_fit_worker.py) that is killed when the budget runs out: such a cell
has no times nor results, only its note, and the solver's other thread count is not tried in that
cell. A fit whose class pairs ended in a fault (max_iter, stalled, infeasible) keeps its times,
and its note names the pairs (e.g. "stalled 2 of 325 pairs"). A fit that raises, or that the
referee refutes (a peer's as well as ours: oneDAL's SVC on w8a, docs/changelog.md), is
recorded: its cell keeps no times, its note says why (``failed:refuted: ...``, the store's
status of such a fit), no ratio or comparison of results uses it, the contender is not fitted
again in that cell, the run goes on, the header lists those cells and the run exits with status
1 at its end. ``--slow-threads 1`` fits the slow solvers at one thread only (they are serial:
Keerthi's gain from a second thread was 1.04x on ijcnn1, results/bench/slow_ijcnn1.md). The
output file is rewritten after each set, so a stopped run leaves the sets it finished (the file
says which are missing). Summary per solver: geometric mean and worst cell of the ratios
against SVC (CPU time, 1 thread), against oneDAL (wall time at all cores) and of our 1-thread
over our all-core wall time; cells whose SV count differs by more than 2.5 % from the peer's, or
whose accuracy by more than 0.1 point, are counted. The header gives each target of issues 30,
41 and 42 with its figure and its verdict, "met" or "NOT met" (issue 42 item 6), and names the
targets this bench does not measure.

    python studies/bench.py [--scale full|quick] [--datasets ...] [--solvers ...]
        [--repeats N] [--short-fit S] [--short-repeats N] [--max-train N] [--budget S]
        [--bound-cap K] [--slow-threads 1|all] [--output PATH]

The script imports the installed svmbench (an editable install: the main checkout); to bench
another checkout, e.g. a worktree at a clean commit, run it with PYTHONPATH set to that checkout.
The table's last line names the commit of the code it imported (+dirty: uncommitted changes).

A run is resumable: after each set it leaves its state beside the output (``<output
stem>.partial.json``: rows, sections, the cells over the budget, its clock, its CPU), and a run
with the same arguments on the same clean commit and CPU goes on from the first set not benched,
in a new process that the header names with its load average (the sets before keep their
times); the state goes when the last set is done. Another commit, a dirty tree, another CPU or
other arguments start over.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _fit_worker, also in spawned workers

import numba
import numpy as np
import pandas as pd
import scipy.sparse as sp
from _fit_worker import TIMED_PARTS, FitWorker, certified_fit, one_blas_thread, summarize
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler
from sklearn.svm import SVC

from svmbench.algorithms import build_estimator
from svmbench.analysis.sources import sources
from svmbench.analysis.tables import Table, to_markdown
from svmbench.data import load_dataset
from svmbench.kernels.provider import kernel_row_once, make_provider
from svmbench.kernels.threads import threading_info
from svmbench.provenance import git_commit, static_provenance
from svmbench.solvers.rosen import GROUP, add_rows
from svmbench.warm_up import points_kind, warm_up

ROOT = Path(__file__).resolve().parent.parent
# data set -> (C, gamma, GS-SVM's gamma, scaled to [-1, 1]): Adult and Web gs-svm-tnn2008
# Tables I-II; ijcnn1, letter and pendigits chosen for this benchmark
SETTINGS = {
    "a1a": (2.0, 0.05, 0.05, False), "a4a": (2.0, 0.05, 0.05, False),
    "a8a": (2.0, 0.05, 0.05, False), "w7a": (4.0, 0.05, 0.10, False),
    "w8a": (4.0, 0.05, 0.10, False), "ijcnn1": (32.0, 2.0, 2.0, False),
    "letter": (8.0, 2.0, 2.0, True), "pendigits": (8.0, 0.5, 0.5, True),
}
FACTORS = (0.25, 1.0, 4.0)
SOLVERS = ["smo_wss2", "smo_mod2", "smo_mod1", "smo_platt", "rosen", "gs_svm"]
# solvers whose cold start the header reports (issue 42: a first fit within 30 s, compiling
# included): the matrix's and the other solvers of the papers
COLD_START_SOLVERS = [*SOLVERS, "hm_svm", "rsvm", "rho_svm", "cvm", "fw", "mfw"]
COLD_START_TARGET_S = 30.0
# fitted in a worker process killed at the budget (a fit of theirs can take hours)
SLOW_SOLVERS = {"smo_mod2", "smo_mod1", "smo_platt", "rosen"}
NOT_BENCHED_HERE = (
    "\n- not measured by this bench: issue 42 item 3's contention (a second busy process slows a "
    "smo_wss2 fit at most 1.5x: studies/wss2_threads.py --busy, results/bench/wss2_threads.jsonl) "
    "and item 4 (gs2008 Table VII at paper scale within 10 minutes on 2 cores: its sweep run "
    "alone in an empty store, store.reuse=none; a record's row for it in results/wall_times.md "
    "leaves out the cells it reuses from the tables run before it)")
SCALES = {
    "full": {"datasets": ["a1a", "a4a", "pendigits", "letter", "a8a", "w7a", "w8a", "ijcnn1"],
             "repeats": 3, "short_fit": 1.0, "short_repeats": 5,
             "max_train": None, "max_test": None, "budget": 600.0,
             "output": ROOT / "results" / "bench" / "matrix.md"},
    "quick": {"datasets": ["a1a", "w7a", "ijcnn1", "letter", "pendigits"], "repeats": 1,
              "short_fit": 0.0, "short_repeats": 1,
              "max_train": 300, "max_test": 1000, "budget": 30.0,
              "output": ROOT / "results" / "quick" / "bench" / "matrix.md"},
}
CACHE_MB = 1024.0
TOL = 1e-3
SVC_LABEL, ONEDAL_LABEL = "SVC (LIBSVM)", "oneDAL SVC"
FAILED_NOTE = "failed:"  # a cell's note when its fit raised (svmbench.runner.failure)
SV_TOLERANCE, ACCURACY_TOLERANCE = 0.025, 0.1  # equal results: relative SV count, points
CALIBRATION_ROWS = 20
READ_POOL_MB = 256.0  # read_time_per_entry's largest pool of rows


@dataclass
class Contender:
    label: str
    solver: str  # our solver's name, or the peer's label
    make: object  # () -> unfitted estimator
    threads: int | None = None  # numba threads while it fits; None: a peer
    params: dict | None = None  # our solver's config (build_estimator)
    walls: list = field(default_factory=list)
    cpus: list = field(default_factory=list)
    # per kept fit: its parts timed in the fit (_fit_worker.TIMED_PARTS: seconds, or None)
    timings: list = field(default_factory=list)
    summary: dict | None = None  # of the last fit (_fit_worker.summarize)
    over_budget: bool = False
    stopped: bool = False  # killed at the budget: no times, no results
    not_tried: bool = False  # its solver's 1-thread fit in this cell was stopped at the budget
    progress: tuple | None = None  # stopped: (iteration, K2, K1, gap) of its last checkpoint
    stopped_after: float = math.nan  # stopped: seconds it ran (past the budget: past_budget)
    failed: str = ""  # its fit raised, or the referee refuted it: why (no times, no more fits)


def peer_svc(C, gamma):
    """scikit-learn-intelex's SVC with our settings, or None when it is not installed."""
    try:
        from sklearnex.svm import SVC as OneDalSVC
    except ImportError:
        return None
    return lambda: OneDalSVC(C=C, gamma=gamma, tol=TOL, shrinking=True, cache_size=CACHE_MB)


def grid(dataset):
    """The set's 9 points (C, gamma, GS-SVM's gamma), C varying fastest."""
    C, gamma, gs_gamma, _ = SETTINGS[dataset]
    return [(C * c, gamma * g, gs_gamma * g) for g in FACTORS for c in FACTORS]


def contenders(point, solvers, all_cores, skipped, slow_threads="all"):
    """The peers and each of ``solvers`` not in ``skipped`` at 1 and ``all_cores`` threads (the
    slow solvers at 1 thread only when ``slow_threads`` is "1")."""
    C, gamma, gs_gamma = point
    found = [Contender(SVC_LABEL, SVC_LABEL, lambda: SVC(C=C, gamma=gamma, tol=TOL,
                                                         shrinking=True, cache_size=CACHE_MB))]
    onedal = peer_svc(C, gamma)
    if onedal is not None:
        found.append(Contender(ONEDAL_LABEL, ONEDAL_LABEL, onedal))
    for name in solvers:
        if name in skipped:
            continue
        params = {"name": name, "gamma": gs_gamma if name == "gs_svm" else gamma,
                  "cache_mb": CACHE_MB}
        if name != "gs_svm":
            params.update(C=C, tol=TOL)
        one_thread = name in SLOW_SOLVERS and slow_threads == "1"
        for threads in [1] if one_thread else sorted({1, all_cores}):
            found.append(Contender(f"{name} ({threads} thr)", name,
                                   lambda p=params: build_estimator(p), threads, params))
    return found


def load(dataset, max_train, max_test):
    """Training and test parts (multiclass sets scaled to [-1, 1] on the training part), cut to
    stratified samples of ``max_train`` and ``max_test`` (seed 0) when given."""
    data = load_dataset(dataset)
    X, y, X_test, y_test = data.X_train, data.y_train, data.X_test, data.y_test
    if SETTINGS[dataset][3]:
        scaler = (MaxAbsScaler() if sp.issparse(X) else MinMaxScaler((-1, 1))).fit(X)
        X, X_test = scaler.transform(X), scaler.transform(X_test)
    X, y = subsample(X, y, max_train)
    X_test, y_test = subsample(X_test, y_test, max_test)
    return X, y, X_test, y_test


def subsample(X, y, count):
    """A stratified sample of ``count`` samples (seed 0), or all when count is None or more."""
    if count is None or count >= y.shape[0]:
        return X, y
    keep, _ = train_test_split(np.arange(y.shape[0]), train_size=count, stratify=y,
                               random_state=0)
    keep.sort()
    return X[keep], y[keep]


def timed_fit(contender, data, all_cores, budget, worker, keep=True, keep_going=None):
    """Fit once; keep the wall and CPU time unless it is an untimed round; a fit longer than
    ``budget`` seconds marks our contender over budget (the peers have none). A slow solver fits
    in ``worker``, stopped at the budget or, while ``keep_going`` says so, later
    (past_budget). A fit that raised or that the referee refuted (certified_fit) sets
    ``failed`` and keeps no time; what it returned, if anything, is summarized."""
    X, y, X_test, y_test = data
    if contender.solver in SLOW_SOLVERS:
        done = worker.fit(contender.params, contender.threads, budget, keep_going)
        contender.stopped = contender.over_budget = done is None
        if done is None:
            contender.progress, contender.stopped_after = worker.progress, worker.ran
        if done is not None:
            (wall, cpu, contender.failed), contender.summary = done
            if keep and not contender.failed:
                contender.walls.append(wall)
                contender.cpus.append(cpu)
                contender.timings.append({part: contender.summary[part] for part in TIMED_PARTS})
                contender.over_budget = wall > budget
        return
    numba.set_num_threads(contender.threads or all_cores)
    estimator = contender.make()
    wall, cpu, contender.failed = certified_fit(estimator, X, y)
    contender.summary = summarize(estimator, X_test, y_test)
    if keep and not contender.failed:
        contender.walls.append(wall)
        contender.cpus.append(cpu)
        contender.timings.append({part: contender.summary[part] for part in TIMED_PARTS})
        contender.over_budget = contender.threads is not None and contender.walls[-1] > budget
    numba.set_num_threads(all_cores)


def median_part(timings, part):
    """The median over a contender's kept fits (Contender.timings) of one timed part's seconds,
    NaN when its solver does not time it."""
    timed = [fit[part] for fit in timings if fit[part] is not None]
    return statistics.median(timed) if timed else math.nan


def part_seconds(timed, entries, seconds_per_entry):
    """The seconds a fit spent on a part over ``entries`` Q entries (reading its K2 requested
    ones, computing its K1 computed ones): ``timed`` (median_part) where the fit timed it, else
    ``entries`` x ``seconds_per_entry`` (read_time_per_entry, row_time_per_entry)."""
    return entries * seconds_per_entry if math.isnan(timed) else timed


def row_time_per_entry(X, gamma, all_cores):
    """CPU seconds per kernel entry of full rows of X at gamma (cache off, 1 thread, best of
    3)."""
    numba.set_num_threads(1)
    provider = make_provider(X, "rbf", gamma=gamma, cache_mb=0)
    n = X.shape[0]
    out, positions = np.empty(n), np.linspace(0, n - 1, CALIBRATION_ROWS).astype(np.int64)
    best = math.inf
    for _ in range(3):
        start = time.process_time()
        for position in positions:
            kernel_row_once(provider, position, n, out)
        best = min(best, time.process_time() - start)
    numba.set_num_threads(all_cores)
    return best / (CALIBRATION_ROWS * n)


def read_time_per_entry(length):
    """CPU seconds per requested entry: the least time we know a cached entry to be read in,
    Rosen's Q d (svmbench.solvers.rosen.add_rows: GROUP rows of float32 entries added into a
    float64 vector per pass over it), over as many rows of ``length`` entries as the Q-matrix of
    that many samples holds, at most READ_POOL_MB (best of 3)."""
    count = max(GROUP, min(length, int(READ_POOL_MB * 2**20) // (4 * length)))
    pool = np.random.default_rng(0).random(count * length, dtype=np.float32)
    offsets, weights = np.arange(count, dtype=np.int64) * length, np.full(count, 0.5)
    out = np.zeros(length)
    add_rows(out, pool, offsets, weights, count)  # compiled and the pool touched, untimed
    best = math.inf
    for _ in range(3):
        start = time.process_time()
        add_rows(out, pool, offsets, weights, count)
        best = min(best, time.process_time() - start)
    return best / (count * length)


def pair_length(y):
    """The mean number of samples of a one-vs-one class pair of labels y (n for two classes)."""
    return round(2 * y.shape[0] / np.unique(y).shape[0])


def run_cell(dataset, point, data, args, all_cores, skipped, warm, gs_fits, worker):
    """One cell's rows: a row per contender. GS-SVM is fitted at the first C of its gamma and
    its fits stand in for the other C (``gs_fits``, by GS-SVM's gamma)."""
    X = data[0]
    entrants = contenders(point, args.solvers, all_cores, skipped, args.slow_threads)
    fitted = [c for c in entrants if not (c.solver == "gs_svm" and (point[2], c.threads)
                                           in gs_fits)]
    rounds = range(args.repeats + 1) if warm else range(1, args.repeats + 1)
    row_seconds = entry_costs(data, point[1], fitted, all_cores)
    for round_ in rounds:
        for contender in fitted:
            stopped = {c.solver for c in fitted if c.stopped}
            if contender.over_budget or contender.not_tried or contender.failed:
                continue
            if contender.solver in stopped:
                contender.not_tried = True
                continue
            timed_fit(contender, data, all_cores, args.budget, worker, keep=round_ > 0,
                      keep_going=past_budget(row_seconds, point[1], args)
                      if contender.threads == 1 else None)
    short = [c for c in fitted if c.walls and not c.failed and max(c.walls) < args.short_fit]
    for _ in range(args.repeats, args.short_repeats):
        for contender in short:
            timed_fit(contender, data, all_cores, args.budget, worker)
    for contender in entrants:
        key = (point[2], contender.threads)
        if contender.solver == "gs_svm":
            (contender.walls, contender.cpus, contender.timings, contender.summary,
             contender.failed) = gs_fits.setdefault(key, (contender.walls, contender.cpus,
                                                          contender.timings, contender.summary,
                                                          contender.failed))
    rows = []
    for contender in entrants:
        results = dict(contender.summary or dict.fromkeys(["SV", "test acc %", "iter", "K1",
                                                           "K2"], math.nan))
        faults = results.pop("faults", "")
        computed = results["K1"] if not contender.stopped else None
        row = {"dataset": dataset, "n": X.shape[0], "C": point[0], "gamma": point[1],
               "contender": contender.label, "solver": contender.solver,
               "threads": contender.threads,
               "wall s": statistics.median(contender.walls) if contender.walls else math.nan,
               "CPU s": statistics.median(contender.cpus) if contender.cpus else math.nan,
               **results, "note": "; ".join(filter(None, [contender.failed,
                                                         note(contender, args.budget),
                                                         faults]))}
        gamma = point[2] if contender.solver == "gs_svm" else point[1]
        if contender.threads == 1 and (computed or contender.progress is not None):
            if gamma not in row_seconds:
                row_seconds[gamma] = row_time_per_entry(X, gamma, all_cores)
            if "read" not in row_seconds:
                row_seconds["read"] = read_time_per_entry(pair_length(data[1]))
        row["reads s"] = median_part(contender.timings, "reads s")
        row["rows s"] = median_part(contender.timings, "rows s")
        if computed and contender.threads == 1:
            computing = part_seconds(row["rows s"], computed, row_seconds[gamma])
            reading = part_seconds(row["reads s"], results["K2"], row_seconds["read"])
            row["ns/K1"] = 1e9 * row["CPU s"] / computed
            row["rows %"] = 100.0 * computing / row["CPU s"]
            row["us/it"] = 1e6 * row["CPU s"] / results["iter"]
            row["bk us/it"] = 1e6 * (row["CPU s"] - computing - reading) / results["iter"]
            # the bound's costs (entry_seconds), the computing at the calibrated least time
            row["rule s"] = computed * row_seconds[gamma] + reading
        if contender.progress is not None:
            row["entries s"] = row["rule s"] = entry_seconds(contender.progress, row_seconds,
                                                             gamma)
        if contender.solver in SLOW_SOLVERS and contender.threads == 1 and contender.over_budget:
            row["note"] += bound_note(contender, row, row_seconds, gamma, data[1], args.budget)
        if contender.failed:
            print(f"{dataset}, C {point[0]:g}, gamma {point[1]:g}: {contender.label}: "
                  f"{contender.failed}", file=sys.stderr, flush=True)
        rows.append(row)
    skipped.update(c.solver for c in entrants if c.over_budget and c.threads is not None)
    return rows


# ---------------------------------------------------------------- a cell over the budget: a
# measured lower bound of what the published rule costs (issue 42, item 2)
#
# A slow solver's fit requests the kernel entries its published rule asks for: K2 (Rosen: the
# |J| + 1 rows of n entries of each iteration's direction, Platt and Keerthi: the rows of each
# step's pair), of which K1 are computed. The least costs we measured for reading a requested
# entry (read_time_per_entry: Rosen's own Q d, eight cached rows per pass) and for computing one
# (row_time_per_entry: full rows, the row engine) give K1 x one + K2 x the other; at a point of
# the fit where it has not finished, that is a lower bound of the whole fit's time at one thread
# on this machine, the rule's whatever the bookkeeping (assumed: no faster reading or computing
# of an entry than those measured; the note names both costs).
# A fit still running at the budget goes on while that bound, read from its checkpoints, is
# within the budget and, at the rate it grew so far, may pass it within --bound-cap budgets;
# the cell then states the bound and whether it is above the budget (the rule's cost) or not
# (the rest of the time is not shown to be the rule's). The class pair a multiclass fit was on
# counts alone (the pairs before it are left out): still a lower bound.

def entry_costs(data, gamma, fitted, all_cores):
    """{gamma: CPU s per computed entry, "read": CPU s per requested entry} when a slow solver
    fits at 1 thread in the cell (measured before its fits, with no fit running), else {}."""
    if not any(c.solver in SLOW_SOLVERS and c.threads == 1 for c in fitted):
        return {}
    return {gamma: row_time_per_entry(data[0], gamma, all_cores),
            "read": read_time_per_entry(pair_length(data[1]))}


def entry_seconds(progress, row_seconds, gamma):
    """The least CPU seconds of a checkpoint's (iteration, K2, K1, ...) entries: K1 x the time
    per computed entry + K2 x the time per requested entry."""
    return progress[2] * row_seconds[gamma] + progress[1] * row_seconds["read"]


def past_budget(row_seconds, gamma, args):
    """FitWorker.fit's keep_going: past the budget, go on while the bound of the last checkpoint
    is within the budget and, growing as it grew so far (bound / seconds run), passes it within
    ``args.bound_cap`` budgets; None when no slow solver fits at 1 thread in the cell."""
    if not row_seconds:
        return None

    def keep_going(progress, seconds):
        if progress is None or seconds >= args.bound_cap * args.budget:
            return False
        bound = entry_seconds(progress, row_seconds, gamma)
        return bound <= args.budget < bound / seconds * args.bound_cap * args.budget

    return keep_going


def bound_note(contender, row, row_seconds, gamma, y, budget):
    """The note of a slow solver's cell over the budget: how far its fit went and the bound of
    its rule's kernel entries, with the costs it assumes."""
    if "rule s" not in row:
        return "; no checkpoint before it was stopped: no bound"
    costs = (f"K2 x {1e9 * row_seconds['read']:.3g} ns + K1 x {1e9 * row_seconds[gamma]:.3g} "
             f"ns, the least measured costs of a requested and a computed entry")
    bound = row["rule s"]
    verdict = ("above the budget: the published rule's cost" if bound > budget
               else "within the budget: the rest of its time is not shown to be the rule's")
    if not contender.stopped:
        return (f"; finished in {row['wall s']:.0f} s: its rule's kernel entries alone >= "
                f"{bound:.3g} s ({costs}), {verdict}")
    iteration, requested, computed, gap = contender.progress
    stop = ("" if contender.solver == "smo_platt"
            else f", its stop at <= {2 * contender.params['tol']:g}")
    reached = "no violation recorded" if math.isnan(gap) else f"violation {gap:.3g}{stop}"
    pair = ", the class pair it was on" if pair_length(y) < y.shape[0] else ""
    return (f"; stopped after {contender.stopped_after:.0f} s at iteration {iteration} (last "
            f"checkpoint{pair}: {reached}; K2 {requested:.4g}, K1 "
            f"{computed:.4g}): its rule's kernel entries alone >= {bound:.3g} s ({costs}), "
            f"{verdict}")


def with_inherited_bounds(found, budget):
    """``found`` with a row for each slow solver's cell not run (skipped: a cell of its set over
    the budget, its rule's bound above it, dominates it, bench_dataset): the largest bound of a
    cell of that solver and set with no larger C and gamma, assumed to hold here (a rule's
    entries do not fall as C or gamma grow: bound_headline checks it on the finished cells of
    each set)."""
    if not found:
        return found
    frame = pd.DataFrame(found)
    one = frame[(frame.threads == 1) & frame.solver.isin(SLOW_SOLVERS)]
    bounds = one[one["rule s"].notna()] if "rule s" in one else one.iloc[:0]
    dataset, n = found[0]["dataset"], found[0]["n"]
    done = set(zip(one.solver, one.C, one.gamma))
    points = sorted({(row["C"], row["gamma"]) for row in found})
    solvers = sorted(SLOW_SOLVERS.intersection(frame.solver))
    added = []
    for C, gamma in points:
        for solver in solvers:
            if (solver, C, gamma) in done:
                continue
            below = bounds[(bounds.solver == solver) & (bounds.C <= C) & (bounds.gamma <= gamma)]
            row = {"dataset": dataset, "n": n, "C": C, "gamma": gamma,
                   "contender": f"{solver} (1 thr)", "solver": solver, "threads": 1,
                   "wall s": math.nan, "CPU s": math.nan,
                   "note": "not run (over the budget, its rule's kernel entries alone above "
                           "it, on a cell of this set with no larger C or gamma)"}
            if len(below):
                source = below.loc[below["rule s"].idxmax()]
                row["bound s"] = bound = float(source["rule s"])
                row["note"] += (f"; its rule's kernel entries >= {bound:.3g} s, assumed from "
                                f"C {source.C:g} gamma {source.gamma:g} (no larger C or "
                                f"gamma): "
                                + ("above the budget" if bound > budget else
                                   "within the budget: not shown to be the rule's"))
            added.append(row)
    return found + added


def monotone_pairs(frame, solver):
    """(held, pairs): ordered pairs of the solver's finished 1-thread cells of one set, the
    second with no smaller C and gamma, where the second's rule bound is no smaller."""
    if "rule s" not in frame:
        return 0, 0
    runs = frame[(frame.solver == solver) & (frame.threads == 1) & frame["wall s"].notna()
                 & frame["rule s"].notna()]
    cells = list(zip(runs.dataset, runs.C, runs.gamma, runs["rule s"]))
    pairs = [(a, b) for a in cells for b in cells if a is not b and b[0] == a[0]
             and b[1] >= a[1] and b[2] >= a[2]]
    return sum(b[3] >= a[3] for a, b in pairs), len(pairs)


def bound_headline(frame, args):
    """Per slow solver: its cells over the budget and not run, how many state a bound above the
    budget (measured, assumed), and the check of the assumption on its finished cells."""
    lines = []
    for solver in [s for s in args.solvers if s in SLOW_SOLVERS]:
        runs = frame[(frame.solver == solver) & (frame.threads == 1)]
        over = runs[runs.note.str.contains("over budget") & runs["wall s"].isna()
                    & ~runs.note.str.startswith("not run")]
        late = runs[runs.note.str.contains("over budget") & runs["wall s"].notna()]
        skipped = runs[runs.note.str.startswith("not run")]
        if not len(over) + len(late) + len(skipped):
            continue
        measured = pd.concat([over, late])
        above = int((measured.get("rule s", pd.Series(dtype=float)) > args.budget).sum())
        assumed = int((skipped.get("bound s", pd.Series(dtype=float)) > args.budget).sum())
        held, pairs = monotone_pairs(frame, solver)
        lines.append(
            f"\n- {solver}, cells over the budget: {len(measured)} fitted ({len(late)} finished "
            f"late), {above} of them with a measured bound of the rule's kernel entries above "
            f"the budget; {len(skipped)} not run, {assumed} of them with such a bound assumed "
            f"from a smaller cell (held on {held} of {pairs} ordered pairs of finished cells)")
    return "".join(lines)


def note(contender, budget):
    """A cell's note: over budget, and how many fits it kept, or stopped at the budget."""
    if contender.stopped:
        return f"over budget: stopped at {budget:g} s"
    if contender.not_tried:
        return "not run: over budget at 1 thread"
    return f"over budget, {len(contender.walls)} fit(s)" if contender.over_budget else ""


def dominating(over, C, gamma):
    """The first of ``over``'s points (C, gamma, ...) of one set where a solver went over the
    budget with no larger C or gamma than (C, gamma), or None. Only within one set: a gamma of
    another set's features is another kernel (w8a's Platt cell over the budget said nothing of
    ijcnn1's in the bench of 44f8d2c0)."""
    return next((point for point in over if point[0] <= C and point[1] <= gamma), None)


def rules_out_dominated(solver, cell, budget):
    """Whether the solver's cell over the budget (``cell``: that cell's rows) rules out the
    cells of its set it dominates: the bound of its rule's kernel entries measured there is
    above the budget (each dominated cell's, assumed no smaller, is too), or the solver is not
    one the budget stops (its fits would run to their end). A bound within the budget or not
    measured rules out nothing: the whole fit's time need not grow with C or gamma (smo_platt's
    cache thrash on w8a, docs/changelog.md)."""
    if solver not in SLOW_SOLVERS:
        return True
    return any(row.get("rule s", math.nan) > budget for row in cell if row["solver"] == solver)


def bench_dataset(dataset, args, all_cores):
    """Every cell of the set's grid, in grid order; a solver skips each cell that one of this set
    where it went over the budget and that rules it out (``rules_out_dominated``) dominates
    (``dominating``). Returns the rows, per solver its points over the budget in this set, and
    per solver (cells not run, the first dominating point)."""
    data = load(dataset, args.max_train, args.max_test)
    for solver in args.solvers:  # outside every timing, on this set's kind of points
        warm_up(solver, "rbf", kind=points_kind(data[0]))
    gs_fits, rows, over_here, ruling_out, not_run = {}, [], {}, {}, {}
    worker = FitWorker(data, sorted(SLOW_SOLVERS.intersection(args.solvers)))
    try:
        for index, point in enumerate(grid(dataset)):
            skipped = set()
            for solver, points in ruling_out.items():
                dominant = dominating(points, point[0], point[1])
                if dominant is not None:
                    skipped.add(solver)
                    count, first = not_run.get(solver, (0, dominant))
                    not_run[solver] = (count + 1, first)
            before = set(skipped)
            cell = run_cell(dataset, point, data, args, all_cores, skipped, index == 0, gs_fits,
                            worker)
            rows += cell
            for solver in skipped - before:
                over_here.setdefault(solver, []).append(point)
                if rules_out_dominated(solver, cell, args.budget):
                    ruling_out.setdefault(solver, []).append(point)
    finally:
        worker.close()
    return rows, over_here, not_run


def ratio_summary(frame, all_cores):
    """Per solver: geometric mean and worst of SVC CPU / ours CPU at 1 thread, oneDAL wall /
    ours wall at all cores, ours 1 thread / all cores wall; and the cells whose SV count or
    accuracy differs from oneDAL's (SVC's without oneDAL) beyond the tolerances."""
    cell = ["dataset", "C", "gamma"]
    certified = frame[~failed_rows(frame)]  # a failed peer's results are no reference
    peers = {label: certified[certified.contender == label].set_index(cell)
             for label in (SVC_LABEL, ONEDAL_LABEL) if (frame.contender == label).any()}
    reference = peers.get(ONEDAL_LABEL, peers[SVC_LABEL])
    ours = frame[frame.threads.notna()]
    summary = []
    for solver, runs in ours.groupby("solver", sort=False):
        one = runs[runs.threads == 1].set_index(cell)
        many = runs[runs.threads == all_cores].set_index(cell)
        ratios = {"SVC CPU / ours CPU, 1 thr": peers[SVC_LABEL]["CPU s"] / one["CPU s"],
                  f"ours 1 thr / ours {all_cores} thr, wall": one["wall s"] / many["wall s"]}
        if ONEDAL_LABEL in peers:
            ratios[f"oneDAL / ours wall, {all_cores} thr"] = (peers[ONEDAL_LABEL]["wall s"]
                                                             / many["wall s"])
        entry = {"solver": solver, "cells": len(one)}
        for name, values in ratios.items():
            values = values.dropna()
            entry[f"{name}: geo mean"] = float(np.exp(np.mean(np.log(values))))
            entry[f"{name}: worst"] = float(values.min())
        matched = reference.reindex(one.index)
        entry["SV off"] = int(np.sum(np.abs(one["SV"] / matched["SV"] - 1) > SV_TOLERANCE))
        entry["acc off"] = int(np.sum(np.abs(one["test acc %"] - matched["test acc %"])
                                      > ACCURACY_TOLERANCE))
        summary.append(entry)
    return pd.DataFrame(summary).set_index("solver")


def failed_rows(frame):
    """The rows whose fit raised or was refuted by the referee (certified_fit): no times."""
    notes = frame["note"] if "note" in frame else pd.Series("", index=frame.index)
    return notes.str.startswith(FAILED_NOTE)


def failed_headline(frame):
    """The cells whose fit failed (the run exits non-zero when there is one), by contender."""
    failed = frame[failed_rows(frame)]
    if failed.empty:
        return "\n- fits that raised or that the referee refuted: none"
    cells = "; ".join(f"{row.contender} on {row.dataset} at C {row.C:g}, gamma {row.gamma:g}"
                      for row in failed.itertuples())
    return (f"\n- fits that raised or that the referee refuted: {len(failed)} cell(s), each noted "
            f"with why ({cells}); they have no times, no ratio and no comparison of results "
            f"uses them, and the run exits non-zero")


def speedups(frame, all_cores, solvers=("smo_wss2", "gs_svm"), large=20000):
    """Our 1-thread over all-core wall time: geometric mean on ijcnn1 and over the sets with
    n >= ``large``, per solver (NaN where no such cell ran)."""
    found = {}
    for solver in solvers:
        runs = frame[frame.solver == solver]
        one = runs[runs.threads == 1].set_index(["dataset", "C", "gamma"])["wall s"]
        many = runs[runs.threads == all_cores].set_index(["dataset", "C", "gamma"])["wall s"]
        ratio = (one / many).dropna()
        sets = ratio.index.get_level_values(0)
        sizes = frame.groupby("dataset")["n"].first().reindex(sets).to_numpy()
        for label, mask in (("ijcnn1", sets == "ijcnn1"), (f"n >= {large}", sizes >= large)):
            chosen = ratio[mask]
            found[(solver, label)] = float(np.exp(np.mean(np.log(chosen)))) if len(chosen) \
                else math.nan
    return found


def verdict(met):
    """A target's verdict in the header: "met", or "NOT met" (capitals: it is what a reader looks
    for)."""
    return "met" if met else "NOT met"


def headline(summary, speeds, all_cores):
    """The issue's targets' figures, one line each, with each target's verdict."""
    lines = []
    onedal = f"oneDAL / ours wall, {all_cores} thr"
    for solver, (mean_target, worst_target) in (("smo_wss2", (2.0, 1.0)), ("gs_svm", (3.0, 1.5))):
        if solver in summary.index and f"{onedal}: geo mean" in summary:
            row = summary.loc[solver]
            mean, worst = row[f"{onedal}: geo mean"], row[f"{onedal}: worst"]
            lines.append(f"- {solver} vs oneDAL, wall at {all_cores} threads: geometric mean "
                         f"{mean:.2f} (target >= {mean_target:g}), worst {worst:.2f} (target >= "
                         f"{worst_target:g}): {verdict(mean >= mean_target and worst >= worst_target)}"
                         f"; cells with SV count off > 2.5 %: {row['SV off']:.0f}, accuracy off > "
                         f"0.1 pt: {row['acc off']:.0f}"
                         + (" (a different classifier from SVC's: these differ by design)"
                            if solver == "gs_svm" else ""))
    for (solver, label), value in speeds.items():
        target = 1.6 if label == "ijcnn1" else 1.45
        lines.append(f"- {solver}, 1 thread / {all_cores} threads wall, {label}: geometric mean "
                     f"{value:.2f} (target >= {target:g}): "
                     + ("no such cell ran" if math.isnan(value) else verdict(value >= target)))
    return "\n".join(lines)


def cell_table(rows):
    values = pd.DataFrame(rows).drop(columns=["dataset", "n", "solver", "threads",
                                              "entries s", "rule s", "bound s"], errors="ignore")
    values["C"] = values["C"].map("{:g}".format)
    values["gamma"] = values["gamma"].map("{:g}".format)
    values = values.set_index("contender")
    return Table(values, formats={"SV": "{:.0f}", "iter": "{:.0f}", "test acc %": "{:.2f}",
                                  "K1": "{:.4g}", "K2": "{:.4g}", "rows %": "{:.0f}",
                                  "ns/K1": "{:.3g}", "us/it": "{:.3g}", "bk us/it": "{:.3g}"},
                 default_format="{:.3g}")


def load_average():
    return "/".join(f"{v:.1f}" for v in os.getloadavg())


def first_fit(solver, cache, size="small"):
    """studies/_cold_start.py's measures of ``solver``'s first fit (of its small problem, or of
    the large one that takes code only large fits run: ``size`` "large") in a fresh process
    whose numba compile cache is the directory ``cache``."""
    done = subprocess.run([sys.executable, str(Path(__file__).resolve().parent / "_cold_start.py"),
                           solver, size], capture_output=True, text=True, check=True,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    return json.loads(done.stdout.strip().splitlines()[-1])


def compile_ahead(cache):
    """``svmbench-compile`` (what ``make venv`` runs) into the empty directory ``cache``: its wall
    seconds and the CPU seconds of its processes."""
    started, before = time.perf_counter(), os.times()
    subprocess.run([sys.executable, "-m", "svmbench.warm_up"], capture_output=True, check=True,
                   env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    after = os.times()
    return {"wall": time.perf_counter() - started, "cpu": after.children_user
            + after.children_system - before.children_user - before.children_system,
            "load average": load_average()}


def cold_starts(solvers):
    """Per solver, one after the other: its first fit of a small problem (300 samples) in a fresh
    process with an empty compile cache (compiling included: a first fit without
    svmbench-compile); then svmbench-compile into another empty cache (what make venv does) and,
    per solver, the first fit in a fresh process on that cache, and for a solver that compiles
    code for large fits only (smo_wss2 at more than one thread) the first large fit in another.
    (rows, the compile's measures)."""
    rows = []
    for solver in solvers:
        load = load_average()
        with tempfile.TemporaryDirectory() as cache:
            cold = first_fit(solver, cache)
        rows.append({"solver": solver, "cold fit s": cold["fit_wall"],
                     "cold fit CPU s": cold["fit_cpu"], "compiled": cold["compiled"],
                     "first predict s": cold["predict_wall"], "import s": cold["import_wall"],
                     "load average": load})
    if not rows:
        return [], None
    with tempfile.TemporaryDirectory() as cache:
        ahead = compile_ahead(cache)
        for row in rows:
            after = first_fit(row["solver"], cache)
            large = first_fit(row["solver"], cache, "large")
            row.update({"fit after compile s": after["fit_wall"],
                        "compiled after compile": after["compiled"],
                        "large fit samples": large["samples"],
                        "large fit after compile s": large.get("fit_wall"),
                        "large fit compiled": large.get("compiled")})
    return rows, ahead


def cold_start_section(measured):
    """The header's cold-start table and its target line (``measured``: what cold_starts
    returns)."""
    rows, ahead = measured
    if not rows:
        return []
    frame = pd.DataFrame(rows)
    after = frame[["fit after compile s", "large fit after compile s"]].max(axis=1)
    worst = frame.loc[frame["cold fit s"].idxmax()]
    met = int((after <= COLD_START_TARGET_S).sum())
    large = frame.dropna(subset=["large fit samples"])
    large = "; ".join(f"{row['solver']} on {row['large fit samples']:.0f} samples "
                      f"{row['large fit after compile s']:.2f} s, {row['large fit compiled']:.0f} "
                      f"compiled" for _, row in large.iterrows()) or "none"
    target = (f"Cold start (issue 42: the first fit of every solver within "
              f"{COLD_START_TARGET_S:g} s): compiling moved to the install: `make venv` runs "
              f"svmbench-compile, which compiled every built-in solver for dense and binary "
              f"points and its grid search in {ahead['wall']:.0f} s ({ahead['cpu']:.0f} s CPU of its "
              f"processes, load average {ahead['load average']}); the first fit after it took at "
              f"most {after.max():.2f} s: {met} of {len(frame)} solvers "
              f"{'met' if met == len(frame) else 'NOT met'}. Without it, a first fit compiles: "
              f"{int((frame['cold fit s'] <= COLD_START_TARGET_S).sum())} of {len(frame)} within "
              f"the target, longest {worst['solver']} {worst['cold fit s']:.1f} s. A fresh "
              f"process fits 300 samples (5 features, 2 classes; studies/_cold_start.py) with an "
              f"empty numba cache, then with the cache svmbench-compile filled; compiled: "
              f"svmbench functions numba compiled (0: all loaded). The first fit after it of a "
              f"problem large enough for code only large fits run (\"large fit\", counted in "
              f"the target): {large}.")
    return [target, to_markdown(Table(frame, formats={
        "compiled": "{:.0f}", "compiled after compile": "{:.0f}", "large fit samples": "{:.0f}",
        "large fit compiled": "{:.0f}"}, default_format="{:.2f}"))]


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=sorted(SCALES), default="full")
    parser.add_argument("--datasets", nargs="+")
    parser.add_argument("--solvers", nargs="+", default=SOLVERS)
    parser.add_argument("--repeats", type=int)
    parser.add_argument("--short-fit", type=float,
                        help="seconds of wall time under which a contender's fits are repeated")
    parser.add_argument("--short-repeats", type=int,
                        help="fits in all of a contender whose fits are all short")
    parser.add_argument("--max-train", type=int,
                        help="train on a stratified sample of N (the quick scale: 300)")
    parser.add_argument("--max-test", type=int,
                        help="test on a stratified sample of N (the quick scale: 1000)")
    parser.add_argument("--budget", type=float, help="seconds a cell's first fit may take")
    parser.add_argument("--bound-cap", type=float, default=3.0,
                        help="a slow fit past the budget goes on at most this many budgets to "
                             "show a bound of its rule's cost above the budget")
    parser.add_argument("--slow-threads", choices=["1", "all"], default="all",
                        help="fit the slow solvers at 1 thread only, or at 1 and all cores")
    parser.add_argument("--output", type=Path)
    parser.add_argument("--cold-start", nargs="*", default=COLD_START_SOLVERS,
                        help="solvers whose first fit in a fresh process is timed (none: skip)")
    args = parser.parse_args(argv)
    for name, value in SCALES[args.scale].items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    unknown = sorted(set(args.datasets) - set(SETTINGS))
    if unknown:
        parser.error(f"no setting for data set(s) {unknown}; choose from {sorted(SETTINGS)}")
    return args


def partial_path(output):
    """Where a run keeps its state between sets (save_partial), beside its output."""
    return output.with_name(output.stem + ".partial.json")


def run_key(args):
    """The arguments that shape the matrix (all but the output), as text."""
    return {name: str(value) for name, value in sorted(vars(args).items()) if name != "output"}


def machine():
    """The CPU a run's times come from: its model and the target numba compiles for, as every
    record names them (svmbench.provenance)."""
    static = static_provenance()
    return f"{static['cpu']} ({static['cpu_target']})"


def save_partial(args, run, rows, sections):
    """The state after a set: what a resumed run needs to go on (resumed_state). Kept across
    sessions (copied beside the output), a run resumes on the same commit and the same CPU."""
    state = {"key": run_key(args), "commit": git_commit(), "machine": machine(), "rows": rows,
             "sections": sections, "seconds": elapsed(run),
             "run": {key: run[key] for key in ("command", "threads", "load_before",
                                               "cold_starts", "resumed")}}
    partial_path(args.output).write_text(json.dumps(
        state, default=lambda value: value.item() if hasattr(value, "item") else str(value)))


def resumed_state(args):
    """The state a stopped run of the same arguments left on this same clean commit and CPU, or
    None (none left, or one of a finished run, another commit, a dirty tree, another CPU, whose
    clock would share the matrix with this one's, or other arguments: said, and started over)."""
    path = partial_path(args.output)
    if not path.exists():
        return None
    state, commit, here = json.loads(path.read_text()), git_commit(), machine()
    why = ("other arguments" if state["key"] != run_key(args)
           else f"commit {state['commit']}, this is {commit}" if state["commit"] != commit
           else "a dirty tree" if commit.endswith("+dirty")
           else f"a run on {state.get('machine')}, this is {here}" if state.get("machine") != here
           else "a finished run" if len(state["sections"]) >= len(args.datasets) else None)
    if why is not None:
        print(f"bench: {path} is of {why}: starting over", file=sys.stderr)
        return None
    return state


def elapsed(run):
    """Seconds the run has taken, over its processes."""
    return run["seconds_before"] + time.perf_counter() - run["started"]


def main(argv=None):
    args = parse(argv)
    command = " ".join(sys.argv[1:] if argv is None else argv)
    one_blas_thread()
    threads = threading_info()
    all_cores = threads["numba_threads"]
    state = resumed_state(args)
    if state is None:
        run = {"command": command, "threads": threads, "load_before": load_average(),
               "started": time.perf_counter(), "seconds_before": 0.0, "resumed": [],
               "cold_starts": cold_starts(args.cold_start)}
        rows, sections = [], []
    else:
        run = {**state["run"], "started": time.perf_counter(), "seconds_before": state["seconds"]}
        rows, sections = state["rows"], state["sections"]
        run["resumed"].append({"from": args.datasets[len(sections)], "load": load_average(),
                               "at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())})
    for name in args.datasets[len(sections):]:
        found, over_here, not_run = bench_dataset(name, args, all_cores)
        found = with_inherited_bounds(found, args.budget)
        rows += found
        notes = "".join(f"\n\n{solver}: over budget ({args.budget:g} s) at "
                        + "; ".join(f"C {C:g}, gamma {gamma:g}" for C, gamma, _ in points) + "."
                        for solver, points in over_here.items())
        notes += "".join(f"\n\n{solver}: not run on {count} cell(s) of this set, each with no "
                         f"smaller C or gamma than a cell where it was over budget"
                         + (", its rule's kernel entries alone above it" if solver in SLOW_SOLVERS
                            else "")
                         + f" (the first: C {first[0]:g}, gamma {first[1]:g})."
                         for solver, (count, first) in not_run.items())
        sections.append(f"## {name} (n = {found[0]['n']})\n\n{to_markdown(cell_table(found))}"
                        f"{notes}")
        print(sections[-1], flush=True)
        left = args.datasets[len(sections):]
        text = document(args, run, rows, sections, left)
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text + "\n")
        save_partial(args, run, rows, sections)
    partial_path(args.output).unlink(missing_ok=True)
    print(text)
    failed = failed_rows(pd.DataFrame(rows))
    if failed.any():
        print(f"{int(failed.sum())} cell(s) failed (their notes say why): exit status 1; the "
              f"run is complete and its state gone, so a run again starts over and meets them "
              f"again", file=sys.stderr)
    return int(failed.any())


def document(args, run, rows, sections, left):
    """The matrix file: targets, settings, summary and the sets benched so far."""
    frame = pd.DataFrame(rows)
    all_cores, threads = run["threads"]["numba_threads"], run["threads"]
    summary = ratio_summary(frame, all_cores)
    speeds = speedups(frame, all_cores)
    centres = [(name, SETTINGS[name]) for name in args.datasets]
    with_onedal = peer_svc(1.0, 1.0) is not None
    return "\n\n".join([
        "# Benchmark matrix: our solvers against scikit-learn's SVC (LIBSVM)"
        + (" and oneDAL's SVC" if with_onedal else ""),
        *([] if with_onedal else [
            ("**No oneDAL row: scikit-learn-intelex was not installed in this run's environment "
             "(pip install -e '.[peers]'; make record installs it).**")]),
        *([f"**Partial: the run has not benched {', '.join(left)} yet (or was stopped).**"]
          if left else []),
        f"Targets (issues 30, 41, 42):\n{headline(summary, speeds, all_cores)}"
        + slow_headline(frame, args) + bound_headline(frame, args) + referee_headline(frame)
        + failed_headline(frame) + NOT_BENCHED_HERE,
        *cold_start_section(run["cold_starts"]),
        ("RBF, 9 points per set: C x {1/4, 1, 4} times gamma x {1/4, 1, 4} around "
         + ", ".join(f"{name} C {setting[0]:g} gamma {setting[1]:g}" for name, setting in centres)
         + f". tol {TOL:g}, shrinking, cache {CACHE_MB:g} MB for all. Median of {args.repeats} "
         f"interleaved fits ({args.short_repeats} of a contender whose fits all took less than "
         f"{args.short_fit:g} s of wall time); wall and process CPU time (all threads). SVC "
         f"runs one thread; ours run 1 and {all_cores} numba threads (layer "
         f"{threads['threading_layer']}, OMP_WAIT_POLICY={threads['omp_wait_policy']}, "
         f"GOMP_SPINCOUNT={threads['gomp_spincount']})"
         + (", the slow solvers (" + ", ".join(sorted(SLOW_SOLVERS)) + ") 1 thread only"
            if args.slow_threads == "1" else "")
         + f"; oneDAL's SVC runs its own threads (all cores); numpy's "
         f"and scipy's BLAS (predictions, untimed) {threads['blas_threads']} thread. "
         f"ns/K1: our 1-thread CPU time per computed kernel entry; rows s: the seconds the fit's "
         f"provider spent computing its K1 entries, timed where they are computed by the cycle "
         f"counter (wall time, svmbench.kernels.cycles); rows %: rows s / CPU time (where a "
         f"solver does not time its rows, K1 x a calibrated time per entry of full rows takes "
         f"the place of rows s); us/it: that CPU time per iteration; bk us/it: its bookkeeping, "
         f"(CPU time - rows s - K2 x time per requested entry) / iterations, the "
         f"time per requested entry that of Rosen's Q d over cached rows of the mean class "
         f"pair's length (studies/bench.py, read_time_per_entry); Rosen's own: reads s, the "
         f"seconds its Q d spent reading requested entries, timed in the fit by the cycle "
         f"counter (wall time, svmbench.kernels.cycles), which takes the place of K2 x that time. Budget {args.budget:g} s per cell's first fit. Load average (1/5/15 min) "
         f"{run['load_before']} before, {load_average()} after the last set; "
         f"{elapsed(run):.0f} s."
         + "".join(f" Resumed in a new process from {resumed['from']} at {resumed['at']} (load "
                   f"average {resumed['load']}): the run had stopped."
                   for resumed in run["resumed"])
         + (f" Training sets cut to a stratified sample of {args.max_train}."
            if args.max_train else "")
         + (f" Test sets cut to a stratified sample of {args.max_test}."
            if args.max_test else "")),
        "## Summary per solver\n\n" + to_markdown(Table(summary, formats={
            "cells": "{:.0f}", "SV off": "{:.0f}", "acc off": "{:.0f}"}, default_format="{:.2f}")),
        *sections,
        f"Command: `python studies/bench.py {run['command']}`. {sources()}",
    ])


def referee_headline(frame, large=20000):
    """The referee's cost (issue 41: outside every timed fit, below the fit's own time on the
    large sets): its wall seconds over the fit's, per cell, on the sets of ``large`` samples or
    more and over all."""
    if "referee s" not in frame:
        return ""
    cells = frame.dropna(subset=["referee s", "wall s"])
    cells = cells[cells["wall s"] > 0]
    ratio = cells["referee s"] / cells["wall s"]
    big = ratio[cells["n"] >= large]
    text = (f"\n- referee (certifying each fit, outside its timed part) / fit wall: "
            f"{len(big)} cells with n >= {large:,}: worst {big.max():.2f}, median "
            f"{big.median():.2f} (target < 1): {verdict(big.max() < 1)}; " if len(big) else
            f"\n- referee / fit wall: no cell with n >= {large:,}; ")
    return text + f"all {len(ratio)} cells: worst {ratio.max():.2f}, median {ratio.median():.2f}"


PARITY_TARGET = 1.5  # issue 42: bookkeeping per iteration within 1.5x of smo_wss2's


def parity(frame, reference="smo_wss2"):
    """Per solver but ``reference``: its bookkeeping per iteration (``bk us/it``, 1 thread) over
    the reference's in the same cell, as (geometric mean, worst, cells within PARITY_TARGET,
    cells compared, cells left out); cells where either is not positive (at the rows' bound, or
    where the estimated row time exceeds the fit's: the headline counts them) are left out."""
    if "bk us/it" not in frame:
        return {}
    cell = ["dataset", "C", "gamma"]
    one = frame[(frame.threads == 1) & frame["bk us/it"].notna()]
    base = one[one.solver == reference].set_index(cell)["bk us/it"]
    found = {}
    for solver, runs in one[one.solver != reference].groupby("solver", sort=False):
        paired = pd.concat([runs.set_index(cell)["bk us/it"], base], axis=1,
                           join="inner").to_numpy()
        kept = paired[(paired > 0).all(axis=1)]
        if len(kept):
            ratio = kept[:, 0] / kept[:, 1]
            found[solver] = (float(np.exp(np.mean(np.log(ratio)))), float(ratio.max()),
                             int(np.sum(ratio <= PARITY_TARGET)), len(ratio),
                             len(paired) - len(kept))
    return found


def bound_above_budget(runs, budget):
    """Which of a slow solver's 1-thread rows are cells over the budget (fitted, or not run)
    whose bound of the rule's kernel entries, measured (``rule s``) or assumed from a smaller
    cell (``bound s``), is above the budget: the cost the published rule imposes (item 2)."""
    over = runs.note.str.contains("over budget")
    measured = runs.get("rule s", pd.Series(math.nan, index=runs.index)) > budget
    assumed = runs.get("bound s", pd.Series(math.nan, index=runs.index)) > budget
    return (over & measured) | (runs.note.str.startswith("not run") & assumed)


def slow_headline(frame, args):
    """Per slow solver: its 1-thread cells (9 per set benched) finished within the budget, and
    its longest fit (issue 30's target: every cell with n <= 50,000 within 10 minutes)."""
    lines = []
    for solver in [s for s in args.solvers if s in SLOW_SOLVERS]:
        runs = frame[(frame.solver == solver) & (frame.threads == 1)]
        over = runs[runs.note.str.contains("over budget")]
        done = runs[runs["wall s"].notna() & ~runs.note.str.contains("over budget")]
        expected = 9 * frame.dataset.nunique()
        line = (f"\n- {solver}, every cell within the budget ({args.budget:g} s): "
                f"{len(done)} of {expected} cells finished at 1 thread")
        faulted = int(done.note.ne("").sum())
        if faulted:
            line += f" ({faulted} with class pairs not converged: see their notes)"
        if len(done):
            worst = done.loc[done["wall s"].idxmax()]
            line += (f", longest {worst['wall s']:.1f} s wall ({worst.dataset}, C {worst.C:g}, "
                     f"gamma {worst.gamma:g})")
        if len(over):
            line += "; over budget on " + ", ".join(dict.fromkeys(over.dataset))
        if "entries s" in runs and runs["entries s"].notna().any():
            spent = runs["entries s"].dropna()
            line += (f"; the {len(spent)} fit(s) stopped at the budget had spent {spent.min():.0f}"
                     f"-{spent.max():.0f} s on their kernel entries alone by their last checkpoint")
        accounted = len(done) + int(bound_above_budget(runs, args.budget).sum())
        line += (f"; each cell within the budget or with a bound of its rule's kernel entries "
                 f"above it (issue 42 item 2): {accounted} of {expected}, "
                 f"{verdict(accounted == expected)}")
        lines.append(line)
    for solver, (mean, worst, within, cells, left_out) in parity(frame).items():
        if solver in SLOW_SOLVERS:
            lines.append(f"\n- {solver}, bookkeeping per iteration / smo_wss2's in the same cell, "
                         f"1 thread: geometric mean {mean:.2f}, worst {worst:.2f}; {within} of "
                         f"{cells} cells within {PARITY_TARGET:g}x (target: all): "
                         f"{verdict(within == cells and not left_out)}"
                         + (f"; {left_out} cells left out, a bookkeeping not positive"
                            if left_out else ""))
    return "".join(lines)


if __name__ == "__main__":
    sys.exit(main())
