"""Compiling outside every timing: a fit on a toy problem per solver (and its grid search's path)
before the first timed one, once per process (numba compiles on first call, or loads its disk
cache). The runner warms each cell's solver up on the kind of points of each fold it fits
(dense, binary or sparse: each kind compiles its own row filler); a sweep warms every swept solver in the parent
process before its launcher fans out (svmbench.callbacks.WarmNumbaCache), and the benches before
they time.

And compiling ahead of the first fit: ``svmbench-compile`` (``main``; ``make venv`` runs it) fits
every built-in solver on toy problems of dense and of binary points (a fit compiles its own
kind's code only, svmbench.kernels.provider.with_kind; ``--kinds sparse`` adds other sparse
points), a solver whose compiled code changes with the fit's size also on a toy problem that
large (compile_tasks), and runs its grid search on a toy problem (the tuned cells'
precomputed-kernel, warm-started path; ``--no-grid-search`` leaves it out), in as many processes
as there are cores,
so that numba's disk cache (svmbench.kernels.compile_cache) holds what a first fit or a first
tuned cell would otherwise compile, and says what it did and how long it took.
"""

import argparse
import concurrent.futures
import functools
import logging
import multiprocessing
import os
import time
import warnings
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp
from numba.core import event

from svmbench.algorithms import build_estimator
from svmbench.kernels.compile_cache import naming
from svmbench.kernels.math import binary_bits, is_sparse, make_points
from svmbench.referee import SHARED_READS, RefutedError, precomputed_sums
from svmbench.solvers.plugins import specs
from svmbench.tuning import grid_search

# samples of the toy problem a warm-up fits unless the fit it prepares needs more (toy_samples)
TOY_SAMPLES = 40


def toy_problem(samples=TOY_SAMPLES):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(samples, 3))
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


@functools.cache
def warm_up(algorithm_name, kernel, *settings, kind="dense", samples=TOY_SAMPLES):
    """Compile (or load from numba's disk cache) once per process, outside every timing, the
    code a fit on points of ``kind`` runs (:func:`points_kind` of the data about to be fitted:
    each kind has its own row filler) on a toy problem of ``samples`` points (:func:`toy_samples`
    of the fit's size); ``settings``: (key, value) pairs of an algorithm config with a
    ``_target_``."""
    X, y = toy_points(kind, samples)
    estimator = build_estimator({**dict(settings), "name": algorithm_name, "kernel": kernel})
    with naming(algorithm_name):
        try:
            estimator.fit(X, y).predict(X)
        except RefutedError:  # compiled all the same; the referee judges each fold's own fit
            pass


@functools.cache
def warm_up_tuning(algorithm_name, kernel, *settings):
    """Compile the grid search's own path once per process, outside every timing: shared kernel
    matrices and precomputed-kernel fits with warm starts over class-pair blocks. A nested-CV
    record times its tuning; without this its first outer fold per process included compiling
    (smo_wss2 on segment, fresh checkout: 110 s of tuning, 23 s once compiled)."""
    X, y = toy_problem()
    algorithm = {**dict(settings), "name": algorithm_name, "kernel": kernel}
    taken = build_estimator(algorithm).get_params()
    axes = [name for name in ("C", "gamma") if name in taken]
    grid = {f"{name}_log2": [0, 1] for name in axes}
    halves = [(np.arange(20, 40), np.arange(20)), (np.arange(20), np.arange(20, 40))]
    with naming(f"{algorithm_name}'s grid search"):
        grid_search({**algorithm, **{name: 1.0 for name in axes}}, {"grid": grid}, X, y, halves,
                    scale=True)
        warm_up_shared_sums()


def warm_up_shared_sums():
    """Compile the referee's sums over one copy shared by the fits of a batch that read each
    column SHARED_READS times or more (svmbench.referee.precomputed_sums, over a grid search's
    symmetric kernel matrix), as a grid's C values do on real data: the toy grid search reaches
    them only by chance (gs2008 Table VII's first cells compiled them inside their timed
    tuning, after svmbench-compile)."""
    members = np.arange(4)
    fits = [SimpleNamespace(members=members, coefficients=np.ones(4))] * SHARED_READS
    precomputed_sums(np.eye(4), fits, True)


def toy_samples(algorithm_name, kernel, *settings, n_train):
    """The size of the toy problem whose fit compiles what a fit on ``n_train`` samples runs:
    TOY_SAMPLES, or more where the solver the algorithm's estimator runs picks its compiled code
    by size (its SolverPlugin's ``compiled_size``: smo_wss2's loop with parallel passes, with
    more than one numba thread, from wss2_parallel_from() samples on; w7a at 2 threads after
    svmbench-compile: its first record's train_time_s was 19.77 s, 0.98 s once compiled; see the
    changelog). Every other solver compiles the same code at any size, and fits on a large toy
    problem can take minutes (eg_fixed). A multiclass fit whose class pairs are all shorter
    compiles the larger code for nothing, outside every timing."""
    estimator = build_estimator({**dict(settings), "name": algorithm_name, "kernel": kernel})
    spec = specs().get(getattr(estimator, "solver_name", None))
    if spec is None or spec.compiled_size is None:
        return TOY_SAMPLES
    return max(spec.compiled_size(n_train), TOY_SAMPLES)


def largest_toy_samples(algorithm_name):
    """toy_samples of a fit of any size: more than TOY_SAMPLES for a solver whose compiled code
    changes with the fit's size (smo_wss2's parallel loop, with more than one numba thread)."""
    any_size = np.iinfo(np.int64).max - 1  # smo.wss2_parallel_from()'s "never" is above any fit
    return toy_samples(algorithm_name, "rbf", n_train=any_size)


def tuning_refusal(algorithm_name, kernel):
    """:func:`warm_up_tuning`; None, or why no grid search can tune the solver (its estimator
    refuses the precomputed kernel matrices the search fits on: csvm_xialpha's bound needs the
    points), which its tuned cells then say themselves."""
    try:
        warm_up_tuning(algorithm_name, kernel)
    except ValueError as error:
        return str(error)
    return None


# the kinds of points a fit's compiled code differs by (svmbench.kernels.provider.with_kind), and
# those svmbench-compile compiles unless told: the papers' data sets are dense (UCI, bundled,
# and sparse files dense enough to be bundled densely) or binary (Adult, Web); other sparse
# points would add a third of the time for data none of them has
KINDS = ("dense", "binary", "sparse")
DEFAULT_KINDS = ("dense", "binary")


def toy_points(kind, samples=TOY_SAMPLES):
    """toy_problem's labels with points of ``kind``: its dense points; 0/1 points on 100 features,
    about 10 a point (kept as bits, as Adult's and Web's); other sparse points, as many nonzeros
    at random values (walked by columns, svmbench.kernels.math.make_points)."""
    X, y = toy_problem(samples)
    if kind == "dense":
        return X, y
    rng = np.random.default_rng(1)
    mask = rng.random((X.shape[0], 100)) < 0.1
    mask[:, 0] = X[:, 0] > 0  # the labels' feature
    values = np.where(mask, 1.0 if kind == "binary" else rng.uniform(0.1, 1.0, mask.shape), 0.0)
    return sp.csr_matrix(values), y


def points_kind(X):
    """The kind of points (KINDS) a fit on ``X`` runs compiled code for: binary when its provider
    keeps bits (svmbench.kernels.math.binary_bits), else dense or sparse as make_points bundles
    it (svmbench.kernels.provider.with_kind)."""
    if binary_bits(X).shape[0] > 0:
        return "binary"
    return "sparse" if is_sparse(make_points(X)) else "dense"


class CompileCount(event.Listener):
    """Counts numba's compilations of svmbench's functions (numba announces cache misses only)."""

    def __init__(self):
        self.count = 0

    def on_start(self, event):
        self.count += (event.data["dispatcher"].py_func.__module__ or "").startswith("svmbench.")

    def on_end(self, event):
        pass


# the task of svmbench-compile that runs a solver's grid search (warm_up_tuning), not a fit
GRID_SEARCH = "grid search"


def compile_tasks(solvers, kinds, grid_search=True):
    """svmbench-compile's tasks, (solver, kind of points or GRID_SEARCH, toy samples): a fit of
    every solver on TOY_SAMPLES points of each kind, its grid search, and a fit on the larger toy
    problem of each kind for a solver whose code changes with the fit's size (toy_samples of the
    largest fit: smo_wss2's parallel loop when numba has more than one thread), which a user's
    first large fit would otherwise compile (see the changelog: a first 8,692-sample fit took
    17.74 s without it, 0.60 s with it)."""
    larger = {name: largest_toy_samples(name) for name in solvers}
    tasks = [(name, kind, TOY_SAMPLES) for kind in kinds for name in solvers]
    tasks += [(name, kind, larger[name]) for kind in kinds for name in solvers
              if larger[name] > TOY_SAMPLES]
    return tasks + [(name, GRID_SEARCH, TOY_SAMPLES) for name in solvers if grid_search]


def compile_solver(name, kind, samples=TOY_SAMPLES):
    """Fit and predict with solver ``name`` on toy_points(kind, samples), or run its grid search
    when ``kind`` is GRID_SEARCH; (name, kind, samples, CPU s, wall s, svmbench functions
    compiled, why the grid search could not run or None) of it in this process."""
    count = CompileCount()
    event.register("numba:compile", count)
    wall, cpu = time.perf_counter(), time.process_time()
    refused = None
    if kind == GRID_SEARCH:
        refused = tuning_refusal(name, "rbf")
    else:
        warm_up(name, "rbf", kind=kind, samples=samples)
    event.unregister("numba:compile", count)
    return (name, kind, samples, time.process_time() - cpu, time.perf_counter() - wall,
            count.count, refused)


def quiet_worker():
    """A svmbench-compile worker says nothing of its own (the compile notice, a toy fit's
    warnings): the command says what it does."""
    logging.getLogger("svmbench").setLevel(logging.ERROR)
    warnings.simplefilter("ignore")


def builtin_solvers():
    from svmbench.specs import declared_specs

    return sorted(declared_specs())


def main(argv=None):
    """``svmbench-compile``: compile every built-in solver ahead (see the module note)."""
    from svmbench.kernels.compile_cache import key_directory

    parser = argparse.ArgumentParser(description="Compile svmbench's solvers ahead of their "
                                     "first fit, into numba's disk cache (once per source).")
    parser.add_argument("--solvers", nargs="+", help="default: every built-in solver")
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(DEFAULT_KINDS),
                        help=f"kinds of points (default: {' '.join(DEFAULT_KINDS)})")
    parser.add_argument("--no-grid-search", dest="grid_search", action="store_false",
                        help="leave out each solver's grid search (the tuned cells' path)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(),
                        help="processes (default: one per core)")
    args = parser.parse_args(argv)
    solvers = args.solvers or builtin_solvers()
    tasks = compile_tasks(solvers, args.kinds, args.grid_search)
    searches = " and its grid search" if args.grid_search else ""
    larger = sorted({name for name, _, samples in tasks if samples > TOY_SAMPLES})
    larger = f", larger fits of {', '.join(larger)}" if larger else ""
    print(f"svmbench-compile: {len(tasks)} runs on toy problems ({len(solvers)} solvers x a fit "
          f"on {', '.join(args.kinds)} points{searches}{larger}) in {args.jobs} processes, "
          f"compiling what numba's cache lacks into {key_directory()}", flush=True)
    started, cpu = time.perf_counter(), 0.0
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(args.jobs, mp_context=spawn,
                                                initializer=quiet_worker) as pool:
        for done in concurrent.futures.as_completed(
                [pool.submit(compile_solver, *task) for task in tasks]):
            name, kind, samples, task_cpu, wall, compiled, refused = done.result()
            cpu += task_cpu
            what = kind if kind == GRID_SEARCH else f"{samples} {kind} points"
            print(f"  {name} ({what}): {compiled} functions compiled, {task_cpu:.1f} s "
                  f"CPU, {wall:.1f} s{f'; no grid search: {refused}' if refused else ''}",
                  flush=True)
    print(f"svmbench-compile: done in {time.perf_counter() - started:.0f} s ({cpu:.0f} s CPU); a "
          f"first fit loads the compiled code", flush=True)


if __name__ == "__main__":
    main()
