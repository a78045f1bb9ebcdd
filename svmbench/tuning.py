"""Grid search by inner k-fold cross-validation (gs-svm-tnn2008 §V-C), as nested CV uses it.

Two ways to fill the table of validation errors (grid point x inner fold), same grid, same folds:

- ``naive_errors``: one fresh training per grid point and inner fold, each computing its kernel
  values itself: 17 x 12 x 10 = 2040 trainings per outer fold for a soft-margin SVM;
- ``shared_errors`` (default, ``protocol.shared_kernel=true``): per inner fold, the squared
  distances are computed once; per (inner fold, gamma) one kernel matrix serves every C and every
  one-vs-one class pair (``kernel="precomputed"``), and consecutive C values (ascending) warm-start
  from the previous solution where the estimator has ``warm_start``; the class pairs' blocks and
  Q-matrices (svmbench.kernels.qmatrix.GramBlocks) are built once per inner fold and refilled at
  every gamma, for every estimator whose fit takes them, and where it warm-starts, once the
  estimator says a larger C would return the same model (``same_model_above_C``: no alpha at C),
  the larger C of that gamma take its validation error without a fit; the referee
  certifies the fits of one (inner fold, gamma) together, after the last C (svmbench.referee.Batch:
  one pass over the kernel matrix for every C, the same bits as one fit at a time; a refuted fit
  fails the search as it did alone). It also fits no point that can no longer be chosen
  (``prune``, branch and bound): a point whose validation errors so far (the folds not yet fitted
  counted as 0, errors being >= 0) already average above a point with every fold fitted has a
  mean above that point's, so the search leaves its remaining folds out (NaN in the table). To
  have complete points early it fits inner fold 0 at every gamma, then the folds left at the
  ``COMPLETED_FIRST`` gammas best on fold 0, then the others; a C chain is cut after its last
  point still in play only (the warm start runs up the chain). The chosen point, its mean error
  and every error fitted are those of the full table, bit for bit; only the fits change.

Scaling to [-1, 1] is fitted on each inner training part only. The chosen point is the first
with the lowest mean validation error (smallest gamma, then smallest C).

Who tunes (``tuning_algorithm``): the cell's own algorithm; or ``protocol.tune_with`` naming
another (gs-svm-tnn2008 §VI: RSVM takes GS-SVM's kernel parameter); or ``tune_with: reference``:
the reference solver of the dual the cell's solver solves (``protocol.references``, problem ->
its solver and settings, e.g. the C-SVC's smo_wss2), so that every solver of one dual is measured
at one tuned point and differs from the others only by where it stops (issue 43). A solver whose
problem has no reference tunes itself.
"""

import inspect
import time
from itertools import product

import numpy as np
from sklearn import config_context

from svmbench.algorithms import build_estimator, harness_config, solver_problem
from svmbench.data import scale_features
from svmbench.kernels.cross import kernel_matrix, rbf_of_distances, squared_distances
from svmbench.kernels.math import make_kernel_spec, make_points
from svmbench.kernels.qmatrix import GramBlocks
from svmbench.referee import Batch

KERNEL_PARAMS = ("kernel", "coef0", "degree")
REFERENCE = "reference"  # protocol.tune_with: the reference solver of the cell's problem tunes
# gammas whose every inner fold is fitted before the rest (shared_errors: the pruning's first
# complete points). In simulations on six Table VII grids (docs/changelog.md, 2026-12-02) 3 kept
# the least fit time of the orders that build a fold's matrices at most twice; orders going
# gamma by gamma, which would hold every fold's matrices at once, did no better
COMPLETED_FIRST = 3


def parameter_grid(grid, algorithm):
    """Every combination of 2^k values of the grid axes the algorithm has, in a fixed order.

    ``grid`` maps ``<param>_log2`` to an inclusive ``[low, high]`` range of integer exponents
    (gs-svm-tnn2008 §V-C: log2 gamma in -8..8, log2 C in -1..10). Axes whose parameter the
    algorithm does not take (C for GS-SVM) are left out. Order: gamma-major, C ascending.
    """
    axes = {}
    for key, (low, high) in grid.items():
        name = key.removesuffix("_log2")
        if not key.endswith("_log2"):
            raise ValueError(f"protocol.grid key {key!r} must be <parameter>_log2, e.g. gamma_log2")
        if name in algorithm:
            axes[name] = [2.0 ** exponent for exponent in range(int(low), int(high) + 1)]
    if not axes:
        raise ValueError(
            f"protocol.grid {dict(grid)} has no axis for algorithm {algorithm['name']!r}, whose "
            f"parameters are {sorted(k for k in algorithm if k != 'name')}; add e.g. gamma_log2"
        )
    return [dict(zip(axes, values)) for values in product(*axes.values())]


def inner_seed(seed, fold):
    """Seed of the inner split of an outer fold: reproducible and distinct per (seed, fold)."""
    return int(np.random.SeedSequence([seed, fold]).generate_state(1)[0])


def inner_parts(X, y, inner_folds, scale):
    """(X_fit, y_fit, X_check, y_check) per inner fold, scaled on X_fit only."""
    for train, validation in inner_folds:
        X_fit, X_check = X[train], X[validation]
        if scale:
            X_fit, X_check = scale_features(X_fit, X_check)
        yield X_fit, y[train], X_check, y[validation]


def timed_error(estimator, X_fit, y_fit, X_check, y_check, **fit_params):
    """(validation error, training seconds); the referee's check of the fit (svmbench.referee)
    is not training."""
    start = time.perf_counter()
    estimator.fit(X_fit, y_fit, **fit_params)
    seconds = time.perf_counter() - start - getattr(estimator, "referee_time_s_", 0.0)
    return float(np.mean(estimator.predict(X_check) != y_check)), seconds


def naive_errors(algorithm, points, X, y, inner_folds, scale):
    """errors[point, fold] with one fresh training per grid point and inner fold; train seconds."""
    errors = np.empty((len(points), len(inner_folds)))
    seconds = 0.0
    for fold, (X_fit, y_fit, X_check, y_check) in enumerate(inner_parts(X, y, inner_folds, scale)):
        for index, params in enumerate(points):
            estimator = build_estimator({**algorithm, **params})
            errors[index, fold], spent = timed_error(estimator, X_fit, y_fit, X_check, y_check)
            seconds += spent
    return errors, seconds


def kernel_matrices(X_fit, X_check, algorithm):
    """gamma -> (K(X_fit, X_fit), K(X_check, X_fit)), by the kernel provider's arithmetic
    (svmbench.kernels.cross), so that a grid search picks the same point on every machine (with
    BLAS's distances, OpenBLAS's Haswell and SkylakeX kernels moved 4 of gs2008 Table VII's 438
    tuned folds to another grid point); RBF shares one distance matrix by all gammas and writes
    every gamma's pair of matrices into the same two arrays: a pair is valid until the next
    call. K(X_fit, X_fit) equals its transpose bit for bit (each entry's inner product sums the
    same products in feature order, and a product with a zero only adds a zero)."""
    fit_points, check_points = make_points(X_fit), make_points(X_check)
    n_features = X_fit.shape[1]
    kernel = algorithm.get("kernel", "rbf")
    if kernel != "rbf":
        def matrices(gamma):
            spec = make_kernel_spec(kernel, gamma, algorithm.get("coef0", 0.0),
                                    algorithm.get("degree", 3))
            return tuple(kernel_matrix(points, fit_points, spec, n_features)
                         for points in (fit_points, check_points))
        return matrices
    fit_distances = squared_distances(fit_points, fit_points, n_features)
    np.fill_diagonal(fit_distances, 0.0)  # k(x, x) = 1 exactly, as the provider's diagonal
    check_distances = squared_distances(check_points, fit_points, n_features)
    K_fit, K_check = np.empty_like(fit_distances), np.empty_like(check_distances)
    return lambda gamma: (rbf_of_distances(fit_distances, gamma, K_fit),
                          rbf_of_distances(check_distances, gamma, K_check))


def finite_by_construction(algorithm, gamma):
    """Whether every entry of kernel_matrices' matrices at ``gamma`` is finite whatever the data:
    RBF's at gamma >= 0 are exp_nonpositive's values, in [0, 1] (it gives 0 for a NaN or -inf
    argument; the data were checked finite when loaded, svmbench.data.validation). Their fits
    then skip scikit-learn's finiteness check, a pass over the matrix that can only pass (2.8 ms
    at each of Segment's 1,871 x 1,871 matrices: 0.32 s of an smo_wss2 outer fold's 14 s)."""
    return algorithm.get("kernel", "rbf") == "rbf" and float(gamma) >= 0.0


def shared_errors(algorithm, points, X, y, inner_folds, scale, prune=True):
    """errors[point, fold] as ``naive_errors``, with kernel matrices shared and C warm-started;
    with ``prune``, NaN where the search showed the point cannot be chosen (module docstring)."""
    errors = np.full((len(points), len(inner_folds)), np.nan)
    chains = c_chains(points)
    parts = list(inner_parts(X, y, inner_folds, scale))
    seconds = fill_folds(algorithm, points, chains, parts, [0], list(chains), errors, prune)
    passes = [list(chains)]
    if prune:  # the gammas best on fold 0 complete first (ties: grid order)
        ranked = sorted(chains, key=lambda gamma: np.min(errors[chains[gamma], 0]))
        passes = [ranked[:COMPLETED_FIRST], ranked[COMPLETED_FIRST:]]
    for gammas in passes:
        seconds += fill_folds(algorithm, points, chains, parts, range(1, len(parts)), gammas,
                              errors, prune)
    return errors, seconds


def c_chains(points):
    """gamma -> the indices of its grid points, C ascending (the order of the warm start)."""
    chains = {}
    for index, params in enumerate(points):
        chains.setdefault(params.get("gamma"), []).append(index)
    return {gamma: sorted(indices, key=lambda i: points[i].get("C", 0.0))
            for gamma, indices in chains.items()}


def fill_folds(algorithm, points, chains, parts, folds, gammas, errors, prune):
    """Fill errors[:, fold] of the given folds at the given gammas (each fold's kernel matrices
    and blocks built once, if a chain of it is still in play); returns the training seconds."""
    seconds = 0.0
    for fold in folds:
        X_fit, y_fit, X_check, y_check = parts[fold]
        matrices = blocks = None  # blocks: the fold's class pairs, refilled at every gamma
        for gamma in gammas:
            chain = chains[gamma]
            length = live_length(errors, chain) if prune else len(chain)
            if length == 0:
                continue
            if matrices is None:
                matrices = kernel_matrices(X_fit, X_check, algorithm)
            gamma_value = algorithm["gamma"] if gamma is None else gamma
            K_fit, K_check = matrices(gamma_value)
            estimator = build_estimator({**algorithm, "kernel": "precomputed"})
            fit_params = {}
            if ("warm_start" in estimator.get_params()
                    and getattr(estimator, "supports_warm_start", True)):
                estimator.set_params(warm_start=True)
            if "blocks" in inspect.signature(estimator.fit).parameters:
                blocks = shared_blocks(blocks, K_fit)
                fit_params["blocks"] = blocks
            if "referee" in inspect.signature(estimator.fit).parameters:
                fit_params["referee"] = Batch(f" of inner fold {fold}, gamma={gamma!r}",
                                              symmetric=True)  # K_fit: kernel_matrices
            with config_context(assume_finite=finite_by_construction(algorithm, gamma_value)):
                for position, index in enumerate(chain[:length]):
                    tuned = {k: v for k, v in points[index].items() if k != "gamma"}
                    estimator.set_params(**tuned)
                    errors[index, fold], spent = timed_error(estimator, K_fit, y_fit, K_check,
                                                             y_check, **fit_params)
                    seconds += spent
                    if set(tuned) == {"C"} and same_model_above_C(estimator):
                        errors[chain[position + 1:], fold] = errors[index, fold]
                        break
            if "referee" in fit_params:
                fit_params["referee"].certify()
    return seconds


def mean_errors(errors):
    """Each point's mean validation error over the inner folds (NaN: a fold left out)."""
    return errors.mean(axis=1)


def live_length(errors, chain):
    """How much of a C chain to fit at its next fold: up to its last point whose errors so far,
    the folds not fitted counted as 0, average no more than the best point with every fold
    fitted. Errors are >= 0 and rounding is monotone, so the mean of that point's full row (the
    same sum over the same folds) is at least this partial mean: a point cut off has a mean above
    the best complete one's and cannot be the first minimum."""
    complete = ~np.isnan(errors).any(axis=1)
    best = mean_errors(errors[complete]).min() if complete.any() else np.inf
    partial = mean_errors(np.nan_to_num(errors[chain], nan=0.0))
    in_play = np.flatnonzero(partial <= best)
    return int(in_play[-1]) + 1 if in_play.size else 0


def same_model_above_C(estimator):
    """Whether the estimator says its next fit at a larger C would return its model (SMOSVC.
    same_model_above_C: a warm-started C-SVC whose alphas are all below C; its bias equal to
    rounding, so a validation sample would flip only with its decision value that close to 0)."""
    said = getattr(estimator, "same_model_above_C", None)
    return said is not None and said()


def shared_blocks(blocks, gram):
    """GramBlocks serving ``gram``: the fold's ``blocks`` refilled with its values (each gamma's
    first fit starts cold on a new estimator, its pairs' arrays and Q-matrices are the last
    gamma's), or new ones for the fold's first gamma."""
    if blocks is None:
        return GramBlocks(gram)
    blocks.take(gram)
    return blocks


def tuning_algorithm(algorithm, protocol):
    """The algorithm whose validation error chooses the parameters: the cell's own,
    ``protocol.tune_with`` (gs-svm-tnn2008 §VI: RSVM takes GS-SVM's kernel parameter), or with
    ``tune_with: reference`` the reference solver of the cell's problem (reference_tuner)."""
    other = protocol.get("tune_with")
    if other == REFERENCE:
        return reference_tuner(algorithm, protocol.get("references") or {})
    if not other or other == algorithm["name"]:
        return algorithm
    return {"name": other, **kernel_settings(algorithm)}


def kernel_settings(algorithm):
    return {key: algorithm[key] for key in (*KERNEL_PARAMS, "gamma") if key in algorithm}


def reference_tuner(algorithm, references):
    """The reference solver of ``algorithm``'s problem (svmbench.algorithms.solver_problem) in
    ``references`` (problem -> {name, settings}): its harness config with those settings and the
    algorithm's kernel; the algorithm itself when it is that solver or its problem has none."""
    reference = references.get(solver_problem(algorithm))
    if reference is None or reference["name"] == algorithm["name"]:
        return algorithm
    return {**harness_config(reference["name"]), **reference, **kernel_settings(algorithm)}


def search_settings(tuner, protocol):
    """What a grid search of ``tuner`` depends on beyond its data: the tuner's estimator
    parameters but the grid's axes (each grid point sets them), the grid and inner folds. Two
    cells with equal settings on one training part run the same search."""
    axes = {key.removesuffix("_log2") for key in protocol["grid"]}
    params = build_estimator(tuner).get_params()
    return {"tuner": tuner["name"],
            "params": {key: value for key, value in params.items() if key not in axes},
            "grid": dict(protocol["grid"]), "inner_k": int(protocol["inner_k"]),
            "shared_kernel": bool(protocol.get("shared_kernel", True))}


def grid_search(algorithm, protocol, X, y, inner_folds, scale):
    """(chosen parameters, record fields describing the search) for one outer training part."""
    start = time.perf_counter()
    tuner = tuning_algorithm(algorithm, protocol)
    points = parameter_grid(protocol["grid"], tuner)
    fill = shared_errors if protocol.get("shared_kernel", True) else naive_errors
    errors, train_seconds = fill(tuner, points, X, y, inner_folds, scale)
    means = mean_errors(errors)  # NaN: a point the search showed cannot be chosen
    best = int(np.nanargmin(means))  # the first minimum: smallest gamma, then smallest C
    chosen = points[best]
    return chosen, {
        **{f"selected_{name}": value for name, value in chosen.items()},
        "tuned_with": tuner["name"],
        "inner_cv_error": float(means[best]),
        "inner_trainings": int(errors.size),
        "inner_train_time_s": train_seconds,
        "inner_tuning_time_s": time.perf_counter() - start,
    }
