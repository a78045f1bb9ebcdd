"""The models board (issue 43): one entry per *model*, the solvers of one model pooled.

Seven solvers of the C-SVM dual (SMO Platt, Keerthi 1 and 2, WSS2, Rosen, LIBSVM, oneDAL) reach
one optimum by different paths; ranking them against each other by test accuracy ranks their
stopping points. Here each model gets one accuracy per data set:

- a solver's accuracy on a set is pooled over its folds: test points classified correctly over
  test points, both counted (``round((1 - test_error) * n_test)`` per fold), so two accuracies
  on a set are equal exactly when their counts are: ties at the test set's resolution
  (1 / the set's test points over all folds);
- a model's accuracy on a set is the *lower median* of its solvers' accuracies there, over the
  solvers whose every fold finished (the median of an even count taken as the lower middle
  value, so the model's count is one a solver reached and stays on the set's grid). The median,
  not one solver's value, so that no single implementation (LIBSVM may be absent, Platt's SMO
  stalls on some folds) decides the model's number; the *spread* (largest minus smallest
  solver accuracy, in points) is shown beside it as the check that the solvers agree.

Models: :data:`ALGORITHM_MODELS` maps the built-in solvers; a solver from another package
(svmbench.solvers.plugins) enters by the problem it declares (``SolverPlugin.problem``, or the
record's ``problem`` field), mapped by :data:`PROBLEM_MODELS` (problem ``csvc`` pools into
C-SVM); a solver that declares nothing is its own model, under its own name.
"""

import numpy as np
import pandas as pd

C_SVM, L2_SVM = "C-SVM", "L2-SVM"
# built-in solver -> model. RSVM is its own model (min sum xi s.t. ||w||^2 <= Delta0^-2,
# gs-svm-tnn2008 §VI), though its inner solver is a C-SVM's; rho-SVM (last hypothesis), its
# ensemble and the Parzen window (first hypothesis) are three models of one run
# (multiplicative-rho-svm §3.2); eg_fixed solves the rho-SVM's problem with a fixed step.
ALGORITHM_MODELS = {
    **dict.fromkeys(["smo_platt", "smo_mod1", "smo_mod2", "smo_wss2", "rosen", "libsvm",
                     "onedal"], C_SVM),
    "gs_svm": "GS-SVM", "hm_svm": "HM-SVM", "rsvm": "RSVM", "rho_svm": "rho-SVM",
    "eg_fixed": "rho-SVM", "rho_ensemble": "rho-SVM ensemble", "parzen": "Parzen window",
    **dict.fromkeys(["cvm", "fw", "mfw"], L2_SVM),
}
# a plug-in's declared problem -> model
PROBLEM_MODELS = {"csvc": C_SVM, "hard_margin": "HM-SVM", "stagewise": "GS-SVM",
                  "rho_simplex": "rho-SVM", "meb": L2_SVM}


def declared_problem(algorithm):
    """The problem an installed plug-in ``algorithm`` declares, or None (not a plug-in, not
    installed, or nothing declared)."""
    from svmbench.solvers.plugins import PluginError, plugins

    try:
        plugin = plugins().get(algorithm)
    except PluginError:
        return None
    return getattr(plugin, "problem", None)


def model_of(algorithm, problem=None):
    """The model a solver belongs to: built-in by :data:`ALGORITHM_MODELS`, else by its declared
    ``problem`` (given, e.g. from its records, or read from the installed plug-in) through
    :data:`PROBLEM_MODELS`, else its own name."""
    if algorithm in ALGORITHM_MODELS:
        return ALGORITHM_MODELS[algorithm]
    problem = problem if isinstance(problem, str) else declared_problem(algorithm)
    return PROBLEM_MODELS.get(problem, algorithm)


def solver_counts(records, finished):
    """Per (dataset, algorithm) with finished records (``finished``, a subset of ``records``):
    ``correct`` and ``tested`` test points summed over the finished folds, ``complete`` (every
    fold recorded for the cell finished) and the solver's ``model``."""
    frame = finished.assign(
        tested=finished["n_test"].astype(float),
        correct=np.rint((1.0 - finished["test_error"].astype(float))
                        * finished["n_test"].astype(float)),
        problem=finished.get("problem", None))
    counts = frame.groupby(["dataset", "algorithm"]).agg(
        correct=("correct", "sum"), tested=("tested", "sum"), folds=("fold", "size"),
        problem=("problem", "first")).reset_index()
    recorded = records.groupby(["dataset", "algorithm"]).size()
    counts["complete"] = counts["folds"].to_numpy() == recorded.reindex(
        pd.MultiIndex.from_frame(counts[["dataset", "algorithm"]])).to_numpy()
    counts["model"] = [model_of(a, p) for a, p in zip(counts["algorithm"], counts["problem"])]
    return counts.drop(columns="problem")


def pooled_models(counts):
    """Per (dataset, model): the model's accuracy (%, lower median of the pooled accuracies of
    its solvers whose every fold finished), the spread (max - min, points), the number of
    solvers pooled and those at either end, and the set's resolution (points)."""
    counts = counts[counts["complete"]]
    counts = counts.assign(accuracy=100.0 * counts["correct"] / counts["tested"])
    rows = []
    for (dataset, model), group in counts.groupby(["dataset", "model"]):
        ordered = group.sort_values(["accuracy", "algorithm"])
        middle = ordered.iloc[(len(ordered) - 1) // 2]
        rows.append({"dataset": dataset, "model": model, "accuracy": middle["accuracy"],
                     "spread": ordered["accuracy"].iloc[-1] - ordered["accuracy"].iloc[0],
                     "solvers": len(ordered), "lowest": ordered["algorithm"].iloc[0],
                     "highest": ordered["algorithm"].iloc[-1],
                     "resolution": 100.0 / middle["tested"]})
    return pd.DataFrame(rows)


def model_scores(pooled):
    """dataset x model table of pooled accuracies (%), NaN where a model has none."""
    return pooled.pivot(index="dataset", columns="model", values="accuracy")


def solver_spread(pooled, min_solvers=2):
    """dataset x model table of spreads (points) for models pooled from at least
    ``min_solvers`` solvers on that set."""
    pooled = pooled[pooled["solvers"] >= min_solvers]
    return pooled.pivot(index="dataset", columns="model", values="spread")
