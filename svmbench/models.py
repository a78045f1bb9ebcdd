"""Trained models and scikit-learn compatible estimators over every registered solver.

Signs as scikit-learn's SVC: binary problems use labels y = +1 for ``classes_[1]`` and -1 for
``classes_[0]``; more classes are trained one-vs-one, the pair (i, j), i < j, with +1 for class i
(LIBSVM's order), so a pair's decision value > 0 votes for class i. Prediction is by voting, ties
going to the lowest class index (LIBSVM's rule), as in all five papers.
"""

import functools
import inspect
import warnings
from itertools import combinations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmbench.kernels.compile_cache import naming
from svmbench.kernels.cross import weighted_kernel_sums
from svmbench.kernels.fixed_order import nonzero_weights, ordered_dot, weighted_pair_sums
from svmbench.kernels.math import make_kernel_spec, make_points
from svmbench.kernels.qmatrix import (
    GramBlocks,
    make_precomputed_qmatrices,
    make_precomputed_qmatrix,
    make_qmatrix,
)
from svmbench.loo_bounds import rbf_r_delta_squared, xi_alpha_bound
from svmbench.referee import (
    PROBLEM_OF_Q_KIND,
    PROBLEMS,
    VERDICT_ATTRIBUTES,
    Fit,
    Point,
    certify_fits,
    precision_unit,
    problem_named,
)
from svmbench.solvers.base import FAULTS, OPTIMAL, SOLVERS
from svmbench.solvers.plugins import builtin_specs, get_many_solver, get_solver

KERNEL_PARAMS = ("kernel", "gamma", "coef0", "degree")


def mean_squared_distance(X):
    """Average ||x_i - x_j||^2 over pairs i != j of the rows of X (dense or sparse)."""
    n = X.shape[0]
    squared = X.multiply(X) if sp.issparse(X) else X * X
    squared_norms = np.asarray(squared.sum(axis=1)).ravel()
    mean = np.asarray(X.mean(axis=0)).ravel()
    return 2.0 * (squared_norms.mean() - ordered_dot(mean, mean, mean.shape[0])) * n / max(n - 1, 1)


# kernel widths by name, resolved on the training data (resolve_gamma)
GAMMA_RULES = ("scale", "spread", "paper_default", "libcvm_default")


def resolve_gamma(gamma, X):
    """Numeric gamma, or by name: scikit-learn's ``"scale"`` = 1 / (n_features * X.var());
    ``"spread"`` = 1 / beta, beta = mean squared distance of the points to their mean
    (multiplicative-rho-svm §4.2); ``"paper_default"`` = 1 / (2 sigma^2) with sigma^2 the mean
    squared distance among training points (frank-wolfe-svm §5.2.1, kernel
    exp(-||x - z||^2 / 2 sigma^2)); ``"libcvm_default"`` = 1 / (mean squared distance), libCVM's
    own default (no factor 2)."""
    if gamma == "spread":
        mean = np.asarray(X.mean(axis=0)).ravel()
        squares = X.multiply(X).sum() if sp.issparse(X) else np.sum(X * X)
        spread = squares / X.shape[0] - ordered_dot(mean, mean, mean.shape[0])
        return 1.0 / spread if spread > 0 else 1.0
    if gamma in ("paper_default", "libcvm_default"):
        return 1.0 / ((2.0 if gamma == "paper_default" else 1.0) * mean_squared_distance(X))
    if gamma == "scale":
        variance = (X.multiply(X)).mean() - X.mean() ** 2 if sp.issparse(X) else X.var()
        return 1.0 / (X.shape[1] * variance) if variance > 0 else 1.0
    return float(gamma)


def one_vs_one_pairs(n_classes):
    return list(combinations(range(n_classes), 2))


@functools.cache
def pair_members(n_classes):
    """(first, second): pairs x classes 0/1 matrices, 1 where the class is the pair's first
    (second) in ``one_vs_one_pairs`` order; read-only, made once per class count."""
    low, high = np.array(one_vs_one_pairs(n_classes)).T
    classes = np.arange(n_classes)
    first, second = (low[:, None] == classes).astype(float), (high[:, None] == classes).astype(float)
    first.flags.writeable = second.flags.writeable = False
    return first, second


def pair_votes(decision, n_classes):
    """Votes per class from pairwise decision values (columns in ``one_vs_one_pairs`` order,
    > 0 voting for the pair's first class, as LIBSVM)."""
    first, second = pair_members(n_classes)
    wins_low = (decision > 0).astype(np.float64)
    # whole counts, exact in floating point
    return wins_low @ first + (1.0 - wins_low) @ second


def positive_class(pair, n_classes):
    """The class labelled +1 in a pair's training: ``classes_[1]`` for binary problems, the
    pair's first class otherwise (scikit-learn's SVC)."""
    low, high = pair
    return high if n_classes == 2 else low


FIXES = {
    "max_iter": "max_iter: raise max_iter (-1 means no limit).",
    "stalled": "stalled: the solver stopped short of tol (rounding, or a step rule refusing the "
               "steps still needed); loosen tol, rescale the features or change gamma.",
    "infeasible": "infeasible: no hard-margin separator exists (e.g. equal points with different "
                  "labels); use a soft-margin SVM (SMOSVC).",
}


def fault_warnings(name, classes, results, verdict, stacklevel=4):
    """ConvergenceWarning naming each class pair whose training ended in a fault (max_iter,
    stalled, infeasible, as the referee's ``verdict``, a svmbench.referee.Verdict, decided), and
    the fix, for estimator class ``name``'s fit over ``classes`` with the solvers' ``results``; a
    published rule that stopped short of KKT ("own_rule") or a closed form is no fault: its gap
    is in ``kkt_violation_``, without a warning. ``stacklevel`` 4: the caller of ``fit``."""
    verdict = verdict.attributes()
    pairs = one_vs_one_pairs(len(classes))
    failed = [(pair, status, result, violation, tolerance) for pair, status, result, violation,
              tolerance in zip(pairs, verdict["status_"], results, verdict["kkt_violation_"],
                               verdict["kkt_tolerance_"])
              if status in FAULTS]
    if not failed:
        return
    lines = "; ".join(
        f"classes ({classes[low]}, {classes[high]}): {status} after "
        f"{result.iterations} iterations, KKT violation {violation:.3g} > tol {tolerance:.3g}"
        for (low, high), status, result, violation, tolerance in failed
    )
    fixes = " ".join(dict.fromkeys(FIXES[status] for _, status, _, _, _ in failed))
    warnings.warn(f"{name} did not converge: {lines}. {fixes}", ConvergenceWarning,
                  stacklevel=stacklevel)


def pair_curves(results):
    """The convergence checkpoints of every class pair's solve (their ``curve`` traces, see
    svmbench.solvers.checkpoints), one pair after the other, each point with its ``pair``."""
    return [{**point, "pair": pair} for pair, result in enumerate(results)
            for point in result.trace.get("curve", ())]


def working_set_requests(results):
    """The Q entries requested for the working sets' rows i and j, summed over class pairs (the
    papers' K2, LIBSVM 2.83's count), or None when the solver does not count them."""
    parts = [r.trace.get("requested_working_set") for r in results]
    return int(sum(parts)) if parts and None not in parts else None


def iterations_by_threads(results):
    """The iterations run on one thread and on all the fit's threads, summed over
    class pairs ({"1": ..., "2": ...}: svmbench.kernels.threads.FitThreads), or None when the
    solver does not say."""
    parts = [r.trace.get("iterations_by_threads") for r in results]
    if not parts or None in parts:
        return None
    return {threads: sum(part.get(threads, 0) for part in parts)
            for threads in sorted({key for part in parts for key in part}, key=int)}


class PairProblems:
    """The one-vs-one problems of labels ``y_index`` (class indices): ``pairs`` holds (members,
    labels in {-1, +1}) per class pair in ``one_vs_one_pairs`` order; ``rows``, ``columns`` and
    ``signs`` list every pair's (pair, member, label) one pair after the other, the label as the
    model reads it (+1 for ``positive_class``).

    ``sample_order="given"`` keeps the samples in their order with +1 for ``positive_class``;
    ``"libsvm"`` orders and labels them as LIBSVM 2.83's svm_train (svm_group_classes; also
    3.0-3.16's): classes ranked by first appearance in y, a pair's samples those of its
    first-ranked class, labelled +1, then those of the other. The solution is the same, the
    solver's path (which class is +1; ties) can differ. LIBSVM 3.17+ swaps a -1/+1 pair so that
    +1 comes first ("given" on the samples grouped +1 first takes its path), and scikit-learn's
    fork ranks the classes by value (``classes_``), so it takes the "libsvm" path only when the
    first sample is of ``classes_[0]`` (docs/deviations.md, section 1). ``flips`` holds -1 for
    the pairs whose solver labels are the negative of the model's."""

    def __init__(self, y_index, n_classes, sample_order="given"):
        self.sample_order = sample_order
        if sample_order == "libsvm":
            first_seen = np.unique(y_index, return_index=True)[1]  # by class index
        self.pairs, flips = [], []
        for low, high in one_vs_one_pairs(n_classes):
            positive = positive_class((low, high), n_classes)
            if sample_order == "libsvm":
                first, second = sorted((low, high), key=lambda c: first_seen[c])
                members = np.concatenate([np.flatnonzero(y_index == first),
                                          np.flatnonzero(y_index == second)])
            else:
                first = positive
                members = np.flatnonzero((y_index == low) | (y_index == high))
            self.pairs.append((members, np.where(y_index[members] == first, 1.0, -1.0)))
            flips.append(1.0 if first == positive else -1.0)
        self.flips = np.array(flips)
        self.rows = np.repeat(np.arange(len(self.pairs)),
                              [members.shape[0] for members, _ in self.pairs])
        self.columns = np.concatenate([members for members, _ in self.pairs])
        self.signs = self.flips[self.rows] * np.concatenate([labels for _, labels in self.pairs])


class PredictionCount:
    """Kernel values computed by an estimator's last prediction; a mutable holder, so that
    predicting leaves the estimator's own attributes unchanged (as scikit-learn requires)."""

    def __init__(self):
        self.kernel_values = 0
        self.checked = None  # the last matrix checked for prediction (KernelSVC._validated_queries)


class KernelSVC(ClassifierMixin, BaseEstimator):
    """Base of the estimators: subclasses name their solver and list their solver parameters.

    Fitted attributes follow ``sklearn.svm.SVC`` where they apply: ``support_``,
    ``support_vectors_``, ``n_support_``, ``dual_coef_`` (alpha_i * y_i; one row per class pair,
    columns over ``support_``), ``intercept_``, ``n_iter_``; plus ``kernel_requested_`` and
    ``kernel_computed_`` (summed over class pairs), ``kernel_requested_working_set_`` (the Q
    entries requested for the working sets' rows i and j, LIBSVM 2.83's count: the papers' K2;
    None for solvers without working sets), ``iterations_by_threads_`` (smo_wss2: the iterations
    run on one thread and on all, iterations_by_threads), ``objective_``, ``status_``, ``stop_`` (why each
    pair's solver stopped), ``kkt_violation_`` and ``kkt_tolerance_`` per pair, ``curve_`` (the solvers' convergence
    checkpoints, pair_curves) and ``fit_results_`` (the solvers' full results); a fault (status max_iter, stalled or
    infeasible) raises a ``ConvergenceWarning``; a published rule that stops short of KKT
    (status "own_rule") or a closed form ("closed_form") does not. ``kernel_predict_`` is the number of kernel
    values the last ``predict`` / ``decision_function`` / ``score`` computed (n * len(support_)).

    ``kernel="precomputed"`` (as scikit-learn's SVC): ``fit`` takes the kernel matrix
    K(X_train, X_train) and ``predict`` K(X_test, X_train); ``gamma``, ``coef0`` and ``degree`` are
    ignored, ``kernel_computed_`` is 0 and ``support_vectors_`` is empty.

    Every fit is certified by the referee (svmbench.referee) after the solvers return: the status,
    ``kkt_violation_`` and ``kkt_tolerance_`` are its measurement at the returned point (the
    solvers' own claims are in ``claimed_status_`` and ``claimed_kkt_violation_``, their objective
    in ``objective_``), with ``kkt_allowance_`` (the rounding of the Q-matrix the solver read),
    ``referee_objective_``, ``referee_gap_`` (the duality gap where the problem has one),
    ``referee_kernel_evaluations_``, ``referee_time_s_`` and ``referee_cpu_time_s_``. A
    non-finite or infeasible point, or a claim of convergence the referee does not measure, raises
    svmbench.referee.RefutedError.
    """

    solver_name = None
    solver_params = ()
    problem = "csvc"  # the dual the solver solves: one of svmbench.referee.PROBLEMS
    q_precision = "float32"  # the precision of the Q entries it reads (the provider's cache)

    @property
    def q_kind(self):
        """The Q-matrix the solver reads: one of svmbench.kernels.qmatrix.Q_KINDS."""
        return PROBLEMS[self.problem].q_kind

    @classmethod
    @functools.cache
    def _get_param_names(cls):
        """scikit-learn's, once per class: it reads ``__init__``'s signature at every
        ``get_params`` / ``set_params``, which a grid search calls at each of its refits."""
        return super()._get_param_names()

    def _solver_settings(self):
        return {name: getattr(self, name) for name in self.solver_params}

    def _check_params(self):
        if self.cache_mb < 0:
            raise ValueError(f"cache_mb must be >= 0 (got {self.cache_mb}); 0 turns the cache off")

    def _initial_alphas(self, y_index):
        """Per class pair, the alphas a solver starts from (indexed like X), or None: cold start."""
        return

    def _make_provider(self, X, members, labels):
        """The Q-matrix of kind ``q_kind`` over one class pair (labels in {-1, +1} folded in)."""
        C = getattr(self, "C", None)  # the l2svm kind's ridge delta_ij / C
        if self.kernel == "precomputed":
            return make_precomputed_qmatrix(X, members, labels, self.q_kind, C)
        return make_qmatrix(X[members], labels, self.q_kind, C=C, kernel=self.kernel,
                            gamma=self._gamma, coef0=self.coef0, degree=self.degree,
                            cache_mb=self.cache_mb)

    def _kept_blocks(self, gram):
        """The class-pair blocks (and providers) kept from the last fit when ``gram`` is the same
        matrix (GramBlocks.holds) and ``warm_start`` is set (a grid over C refits one Gram
        matrix), else None."""
        blocks = getattr(self, "_blocks", None)
        if getattr(self, "warm_start", False) and blocks is not None and blocks.holds(gram):
            return blocks
        return None

    def _use_blocks(self, gram, blocks):
        """Keep the given GramBlocks of ``gram`` for this fit and the next (fit's ``blocks``)."""
        if self.kernel != "precomputed" or not blocks.holds(gram):
            raise ValueError("fit's blocks must be the GramBlocks of the kernel matrix fitted, with "
                             "kernel='precomputed': hand a new matrix over with blocks.take(K)")
        self._blocks = blocks

    def _gram_blocks(self, gram):
        """The class-pair blocks of ``gram``: those kept from the last fit when it had the same
        matrix, else new ones, kept for the next fit (``warm_start``'s grid over C)."""
        if self._kept_blocks(gram) is None:
            self._blocks = GramBlocks(gram)
        return self._blocks

    def _pair_problems(self, y_index):
        """The one-vs-one problems of ``y_index``: those of the last fit when it had the same."""
        order = getattr(self, "sample_order", "given")
        kept = getattr(self, "_problems", None)
        if (kept is None or kept.sample_order != order
                or not np.array_equal(self._y_index, y_index)):
            kept = PairProblems(y_index, self.classes_.shape[0], order)
        return kept

    def _pair_blocks(self, gram, given):
        """The GramBlocks whose Q-matrices this fit solves: those ``given`` to fit, those kept from
        the last fit or new ones kept for the next (``warm_start``), or None (no precomputed
        kernel, or a fit on its own: new Q-matrices pair by pair)."""
        if self.kernel != "precomputed":
            return None
        if given is not None:
            return given
        return self._gram_blocks(gram) if getattr(self, "warm_start", False) else None

    def _solve_pairs(self, X, problems, initial, blocks):
        """One SolverResult per class pair. Over GramBlocks (``_pair_blocks``), the pairs' kept
        Q-matrices, restored, are solved all in one compiled call where the solver registered a
        solve_many, else pair by pair; without, pair by pair over new Q-matrices."""
        settings = self._solver_settings()
        solve_many = get_many_solver(self.solver_name)
        blocks = self._pair_blocks(X, blocks)
        providers = None if blocks is None else make_precomputed_qmatrices(
            blocks, problems.pairs, self.q_kind, getattr(self, "C", None),
            typed=solve_many is not None)
        if providers is not None and solve_many is not None:
            start = None if initial is None else initial[problems.rows, problems.columns]
            return solve_many(providers, settings, start)
        solve = get_solver(self.solver_name)
        results = []
        for pair, (members, labels) in enumerate(problems.pairs):
            if initial is not None:
                settings = {**settings, "alpha_init": initial[pair][members]}
            provider = (self._make_provider(X, members, labels) if providers is None
                        else providers[pair])
            results.append(solve(provider, labels, settings))
        return results

    def _validated(self, X, y):
        """(X, class index of each label) checked, ``classes_`` set; a refit on the kept Gram
        matrix (``warm_start``) with the labels of the last fit takes both as that fit checked
        them (a grid over C refits them hundreds of times)."""
        precomputed = self.kernel == "precomputed"
        blocks = self._kept_blocks(X) if precomputed else None
        if blocks is not None and np.array_equal(y, self._fitted_y):
            return blocks.gram, self._y_index
        X, y = validate_data(self, X, y, accept_sparse=not precomputed and "csr",
                             dtype=np.float64, ensure_all_finite=blocks is None)
        if precomputed and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"kernel='precomputed' needs the square kernel matrix of the training samples, got "
                f"shape {X.shape}; pass K(X_train, X_train) to fit and K(X_test, X_train) to predict"
            )
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        if self.classes_.shape[0] < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least two classes; y has only one "
                f"class ({self.classes_[0]}). Add samples of another class."
            )
        self._fitted_y = np.array(y)  # a copy: the caller's array may change before the next fit
        self._prediction = PredictionCount()
        return X, y_index

    def fit(self, X, y, blocks=None, referee=None):
        """Train on X (or, with ``kernel="precomputed"``, the kernel matrix K(X, X)) and labels y.
        ``blocks``: with a precomputed kernel, a :class:`GramBlocks` of that matrix whose
        class-pair blocks and Q-matrices this fit uses, and with ``warm_start`` the next ones on
        the matrix (a grid search hands one to every gamma of an inner fold, refilled by
        GramBlocks.take); None: the estimator's own with ``warm_start``, else new Q-matrices.
        ``referee``: a svmbench.referee.Batch that certifies this fit later, with the others on
        the same matrix (a grid search's C values); the fit then has no referee's attributes
        (``status_``, ``kkt_violation_``, ...) and the batch's ``certify`` warns of its faults and
        raises RefutedError; None: certified before fit returns."""
        self._check_params()
        precomputed = self.kernel == "precomputed"
        X, y_index = self._validated(X, y)
        if blocks is not None:
            self._use_blocks(X, blocks)
        self._gamma = None if precomputed else resolve_gamma(self.gamma, X)
        problems = self._pair_problems(y_index)
        with naming(self.solver_name):  # what the compile notice names (the first fit compiles)
            results = self._solve_pairs(X, problems, self._initial_alphas(y_index), blocks)
            fit = self._referee_fit(problems, results)
            verdict = None if referee is not None else certify_fits(
                [fit], X, self.kernel, self._gamma, self.coef0, self.degree)[0]
        self.fit_results_ = results
        signed_alpha = np.zeros((len(problems.pairs), X.shape[0]))
        signed_alpha[problems.rows, problems.columns] = problems.signs * np.concatenate(
            [result.alpha for result in self.fit_results_])
        self._problems = problems
        self.support_ = np.flatnonzero(np.any(signed_alpha != 0, axis=0))
        self.support_vectors_ = np.empty((0, 0)) if precomputed else X[self.support_]
        self._y_index = y_index
        self.dual_coef_ = signed_alpha[:, self.support_]
        self.n_support_ = np.bincount(y_index[self.support_], minlength=self.classes_.shape[0])
        self.intercept_ = problems.flips * np.array([r.bias for r in self.fit_results_])
        self.n_iter_ = np.array([r.iterations for r in self.fit_results_])
        self.objective_ = np.array([r.objective for r in self.fit_results_])
        self.stop_ = [r.stop for r in self.fit_results_]
        self.claimed_status_ = [r.status for r in self.fit_results_]
        self.claimed_kkt_violation_ = np.array([r.kkt_violation for r in self.fit_results_])
        self.kernel_requested_ = sum(r.kernel_requested for r in self.fit_results_)
        self.kernel_computed_ = sum(r.kernel_computed for r in self.fit_results_)
        self.curve_ = pair_curves(self.fit_results_)
        self.kernel_requested_working_set_ = working_set_requests(self.fit_results_)
        self.iterations_by_threads_ = iterations_by_threads(self.fit_results_)
        self._prediction.kernel_values = 0
        if referee is None:
            self._take_verdict(verdict)
        else:
            for name in VERDICT_ATTRIBUTES:
                self.__dict__.pop(name, None)  # a verdict of an earlier fit is not this fit's
            referee.add(fit, X, self.kernel, self._gamma, self.coef0, self.degree,
                        functools.partial(fault_warnings, type(self).__name__, self.classes_,
                                          results, stacklevel=3))
        return self

    def _take_verdict(self, verdict):
        """Set the referee's attributes of ``verdict`` (svmbench.referee.Verdict.attributes) and
        warn of the faults it found."""
        for name, value in verdict.attributes().items():
            setattr(self, name, value)
        fault_warnings(type(self).__name__, self.classes_, self.fit_results_, verdict,
                       stacklevel=5)

    def _referee_fit(self, problems, results):
        """Every class pair's returned point as the referee reads it (svmbench.referee.Fit)."""
        points = [Point(members, labels, self._checked_point(result), result.alpha * labels,
                        result.bias, self._box(result), self._tolerance(result), result.status,
                        result.reason, result.kkt_violation)
                  for (members, labels), result in zip(problems.pairs, results)]
        precision = "float64" if self.kernel == "precomputed" else self.q_precision
        largest = max(members.shape[0] for members, _ in problems.pairs)
        return Fit(self.solver_name, PROBLEMS[self.problem], points,
                   precision_unit(precision, largest),
                   f"C={self.C!r}" if hasattr(self, "C") else "")

    def _checked_point(self, result):
        """The point the referee checks against the problem: the solver's alphas."""
        return result.alpha

    def _box(self, result):
        """The problem's C (the box of the C-SVC duals, the L2-SVM's ridge); inf: none."""
        return float(getattr(self, "C", np.inf))

    def _tolerance(self, result):
        """The violation up to which the point counts as converged: the solver's published rule
        (its tol, or 2 tol for Keerthi et al.'s b_low <= b_up + 2 tol, ...)."""
        return result.tolerance

    @property
    def kernel_predict_(self):
        """Kernel values computed by the last prediction (0 for ``kernel="precomputed"``)."""
        check_is_fitted(self)
        return self._prediction.kernel_values

    def _pair_decision(self, X):
        check_is_fitted(self)
        precomputed = self.kernel == "precomputed"
        X = self._validated_queries(X)
        if precomputed:
            self._prediction.kernel_values = 0
            columns, weights, column_starts = nonzero_weights(self.dual_coef_)
            sums = np.empty((self.dual_coef_.shape[0], X.shape[0]))
            weighted_pair_sums(np.ascontiguousarray(X, dtype=np.float64), self.support_[columns],
                               weights, column_starts, sums)
            return sums.T + self.intercept_
        spec = make_kernel_spec(self.kernel, self._gamma, self.coef0, self.degree)
        sums, self._prediction.kernel_values = weighted_kernel_sums(
            make_points(X), make_points(self.support_vectors_), spec, self.dual_coef_,
            self.n_features_in_,
        )
        return sums + self.intercept_

    def _validated_queries(self, X):
        """X checked for prediction; with ``warm_start`` and a precomputed kernel, the matrix the
        last prediction checked is taken as it is while the fits reuse their kept Gram matrix (a
        grid over C predicts it after every fit)."""
        precomputed = self.kernel == "precomputed"
        last = self._prediction.checked
        if (precomputed and getattr(self, "warm_start", False) and last is not None
                and isinstance(X, np.ndarray)
                and X.__array_interface__ == last.__array_interface__):
            return last
        X = validate_data(self, X, accept_sparse=not precomputed and "csr", dtype=np.float64,
                          reset=False)
        self._prediction.checked = X
        return X

    def decision_function(self, X):
        """Binary: f(x) (> 0 means ``classes_[1]``). More classes: votes per class, with ties
        broken by summed confidences (scikit-learn's "ovr" shape)."""
        decision = self._pair_decision(X)
        if self.classes_.shape[0] == 2:
            return decision[:, 0]
        votes = pair_votes(decision, self.classes_.shape[0])
        confidence = np.zeros_like(votes)
        for column, (low, high) in enumerate(one_vs_one_pairs(self.classes_.shape[0])):
            confidence[:, low] += decision[:, column]
            confidence[:, high] -= decision[:, column]
        return votes + confidence / (3.0 * (np.abs(confidence) + 1.0))

    def predict(self, X):
        decision = self._pair_decision(X)
        if self.classes_.shape[0] == 2:
            return self.classes_[(decision[:, 0] > 0).astype(int)]
        return self.classes_[np.argmax(pair_votes(decision, self.classes_.shape[0]), axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def settings_init(name, settings):
    """The ``__init__`` of the estimator of solver ``name``: it takes ``settings`` (name ->
    default, in order) and stores each unchanged as the attribute of its name, as scikit-learn's
    estimators do; its explicit signature is what scikit-learn's get_params reads."""
    signature = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(key, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default)
           for key, default in settings.items()])

    def __init__(self, *args, **params):
        try:
            bound = signature.bind(self, *args, **params)
        except TypeError as error:
            raise TypeError(f"solver {name!r}: {error}; its parameters are "
                            f"{list(settings)}") from None
        bound.apply_defaults()
        for key, value in list(bound.arguments.items())[1:]:
            setattr(self, key, value)

    __init__.__signature__ = signature
    return __init__


def declared(name):
    """Class decorator: the estimator of built-in solver ``name`` as its spec declares it
    (svmbench.solvers.plugins.builtin_specs): ``__init__`` over the spec's settings, the settings
    its solver is given, the problem it solves, and the solver's name unless the class has its own
    (a family's ``variant`` picks it)."""

    def declare(cls):
        spec = builtin_specs()[name]
        cls.__init__ = settings_init(name, spec.settings())
        cls.solver_params = spec.solver_settings()
        cls.problem = plugin_problem(spec)
        if "solver_name" not in vars(cls) and spec.name in SOLVERS:
            cls.solver_name = spec.name
        return cls

    return declare


def plugin_problem(plugin):
    """The problem a plug-in declares (svmbench.referee.PROBLEMS), or the one of its Q-matrix
    kind."""
    name = plugin.problem or PROBLEM_OF_Q_KIND.get(plugin.q_kind)
    if name is None:
        raise ValueError(f"a plug-in over the {plugin.q_kind!r} Q-matrix must declare the problem "
                         f"it solves: SolverPlugin(problem=...), one of {sorted(PROBLEMS)}")
    problem_named(name)
    return name


@declared("gs_svm")
class GSSVC(KernelSVC):
    """GS-SVM (gs-svm-tnn2008 Algorithm 1): greedy stagewise, no bias and no C.

    Parameters: ``kernel`` ("rbf", "poly", "linear"), ``gamma`` (the papers' theta, or "scale"),
    ``coef0``, ``degree``, ``cache_mb`` (LRU kernel-row cache; GS-SVM requests every row once, so
    it only matters for memory), ``max_iter`` (-1: no limit; at most n steps anyway), ``rows``
    ("full": whole kernel rows, gs-svm-tnn2008's K2; "unused": rows over the unused set only,
    gs-svm-pakdd2005's count; the same model).
    """


SMO_VARIANTS = ("wss2", "platt", "mod1", "mod2")
SAMPLE_ORDERS = ("given", "libsvm")


@declared("smo_wss2")
class SMOSVC(KernelSVC):
    """Soft-margin C-SVM with bias trained by SMO; ``variant`` picks the algorithm:

    - ``"wss2"``: LIBSVM 2.83 (Fan et al. 2005 WSS 2, shrinking, LRU cache), solver ``smo_wss2``;
    - ``"platt"``: Platt's SMO (1998), solver ``smo_platt``;
    - ``"mod1"`` / ``"mod2"``: Keerthi et al. (2001) Modification 1 / 2, solvers ``smo_mod1`` /
      ``smo_mod2``.

    Parameters: ``C``, ``kernel``, ``gamma``, ``coef0``, ``degree`` as ``sklearn.svm.SVC``; ``tol``
    (wss2: maximal violation; mod1/mod2: b_low <= b_up + 2 tol; platt: KKT tolerance),
    ``shrinking`` and ``shrinking_rules`` (wss2 only: "libsvm283" or "libsvm3"), ``cache_mb``
    (LRU kernel-row cache), ``max_iter`` (-1: no limit), ``warm_start`` (wss2 only: start from
    the previous fit's alphas, scaled
    into the new box [0, C] so they stay feasible; for a grid over C on the same data; with
    ``kernel="precomputed"`` the class pairs' blocks of the matrix and their Q-matrices are also
    kept for the next fit on the same matrix, which is then not checked again and must not change
    in between, nor must the matrix last predicted, whose check is not repeated either),
    ``sample_order`` ("given": the samples' order, +1 for the class scikit-learn's SVC calls
    positive; "libsvm": LIBSVM 2.83's svm_train order and labels, see PairProblems: the same
    solution, and LIBSVM 2.83's own path, also on data with exact ties such as the Web sets'
    duplicate points; scikit-learn's SVC's path when the first sample is of ``classes_[0]``).
    """

    @property
    def solver_name(self):
        return f"smo_{self.variant}"

    @property
    def supports_warm_start(self):
        """Only LIBSVM's solver (wss2) starts from given alphas; the grid search asks here."""
        return self.variant == "wss2"

    def _check_params(self):
        super()._check_params()
        if self.variant not in SMO_VARIANTS:
            raise ValueError(f"unknown SMO variant {self.variant!r}; choose one of {SMO_VARIANTS}")
        if self.warm_start and self.variant != "wss2":
            raise ValueError(f"warm_start needs variant='wss2' (got {self.variant!r})")
        if self.sample_order not in SAMPLE_ORDERS:
            raise ValueError(f"unknown sample_order {self.sample_order!r}; choose one of "
                             f"{SAMPLE_ORDERS}")

    def _initial_alphas(self, y_index):
        same_problem = hasattr(self, "_y_index") and np.array_equal(self._y_index, y_index)
        if not (self.warm_start and same_problem):
            return None
        initial = np.abs(self.dual_coef_)  # alpha_i of each pair, over support_
        initial *= np.minimum(1.0, self.C / np.maximum(initial.max(axis=1, keepdims=True), 1e-300))
        alphas = np.zeros((initial.shape[0], y_index.shape[0]))
        alphas[:, self.support_] = initial
        return alphas

    def same_model_above_C(self):
        """Whether the next fit, at a larger C on the same data, would return this model (a grid
        over ascending C then knows its errors without it): a warm start, and every class pair
        claimed convergence with no alpha at C. Such an alpha is a KKT point of every box
        [0, C'], C' > C, with the same sets I_up and I_low, and the next fit starts from it
        unscaled: its G, Q alpha - 1 computed anew, differs from the G this fit stopped on by
        rounding, so it stops before its first step, with the same alphas (unless this fit's
        stopping test m(a) - M(a) < tol held within rounding of tol) and the bias from the
        same free samples, equal to rounding."""
        check_is_fitted(self)
        return self.warm_start and all(r.reason == OPTIMAL and not np.any(r.alpha >= self.C)
                                       for r in self.fit_results_)


@declared("hm_svm")
class HardMarginSVC(KernelSVC):
    """HM-SVM: the hard-margin dual without bias (gs-svm-tnn2008, eq. 2), solved exactly by a
    primal active-set method (Lawson & Hanson's NNLS for the QP, incrementally updated Cholesky
    factor of Q over the support vectors) to the absolute KKT tolerance ``tol`` (default 1e-6),
    solver ``hm_svm``. Data with no hard-margin separator give status "infeasible", alphas too
    large for ``tol`` in double precision "stalled" (see :mod:`svmbench.solvers.hm_svm`); both
    raise a ``ConvergenceWarning``.

    Parameters: ``kernel``, ``gamma``, ``coef0``, ``degree``, ``tol``, ``cache_mb`` (unused: the
    solver keeps its own double-precision rows of the support vectors), ``max_iter`` (-1: no
    limit; active-set iterations).
    """

    q_precision = "float64"  # the solver keeps its own double-precision rows


@declared("rsvm")
class RSVC(KernelSVC):
    """RSVM (gs-svm-tnn2008 §VI, eq. 29): a soft-margin C-SVM with bias whose C is found by
    bisection so that ||w||^2 equals that of GS-SVM on the same data and kernel, solver ``rsvm``.

    Parameters: ``kernel``, ``gamma``, ``coef0``, ``degree``, ``cache_mb`` as GSSVC;
    ``bisection_tol`` (relative tolerance on ||w||^2), ``inner_solver`` (the registered
    soft-margin solver, default "smo_wss2") with its ``tol``, ``shrinking``, ``max_iter``.
    Fitted ``C_``, ``w_norm2_`` and ``target_w_norm2_`` hold one value per class pair.
    """

    def _box(self, result):
        """The C the bisection chose for the pair (its soft-margin solve is the point)."""
        return float(result.trace["C"])

    def fit(self, X, y):
        super().fit(X, y)
        self.C_ = np.array([r.trace["C"] for r in self.fit_results_])
        self.w_norm2_ = np.array([r.trace["w_norm2"] for r in self.fit_results_])
        self.target_w_norm2_ = np.array([r.trace["target_w_norm2"] for r in self.fit_results_])
        return self


@declared("rho_svm")
class RhoSVC(KernelSVC):
    """rho-SVM trained by multiplicative updates with an adaptive learning rate
    (multiplicative-rho-svm Algorithm 1), solver ``rho_svm``, over the C-SVC Q-matrix; no bias.

    ``output``: "last" (the hard-margin rho-SVM, f_{T+1}), "ensemble" (sum_t eta_t f_t /
    sum_t eta_t, §3.2) or "first" (the Parzen window classifier f_1). ``eps`` (termination, paper
    0.005), ``eps_first`` (eps_1, paper 0.1), ``rank`` (0: exact Q rows; r > 0: Q ~ G G' by
    pivoted incomplete Cholesky of rank r, §3.3), ``max_iter`` (-1: no limit). ``gamma="spread"``
    is the paper's kernel width, 1 / (mean squared distance of the points to their mean).
    ``record_fields_`` holds the run's final rho, number of ensemble members, rank, the low-rank
    relative trace error and (first class pair) the traces of rhobar_t (the dual objective), eta_t
    and rho_t.
    """

    def _checked_point(self, result):
        """The simplex weights: at rank r > 0 the returned alphas are their expansion over the
        pivots (solvers.rho_svm.on_pivots), whose decision values the referee recomputes."""
        return result.trace.get("simplex_point", result.alpha)

    def fit(self, X, y):
        super().fit(X, y)
        traces = [r.trace for r in self.fit_results_]
        self.record_fields_ = {
            "gamma_value": self._gamma,
            "rho": float(np.sum([t["rhobar"][-1] for t in traces])),
            "ensemble_members": int(np.sum([t["eta"].shape[0] for t in traces])),
            "rank": int(np.sum([t["rank"] for t in traces])),
            "lowrank_trace_error": float(np.max([t["lowrank_trace_error"] for t in traces])),
            "objective_trace": traces[0]["rhobar"].tolist(),
            "eta_trace": traces[0]["eta"].tolist(),
            "rho_trace": traces[0]["rho"].tolist(),
        }
        return self


@declared("eg_fixed")
class EGFixedSVC(RhoSVC):
    """The fixed-learning-rate multiplicative update of Cristianini et al. (1999) on the same
    hard-margin dual, solver ``eg_fixed``: ``eta`` (paper: 0.005 .. 0.04), ``max_iter`` updates.
    ``record_fields_`` holds the rho-SVM objective per iteration and the first overshoot."""

    def fit(self, X, y):
        KernelSVC.fit(self, X, y)
        traces = [r.trace for r in self.fit_results_]
        self.record_fields_ = {
            "gamma_value": self._gamma,
            "objective_trace": np.sum([t["objective_trace"] for t in traces], axis=0).tolist(),
            "overshoot": int(traces[0]["overshoot"]),
        }
        return self


@declared("csvm_xialpha")
class XiAlphaSVC(SMOSVC):
    """A C-SVM (LIBSVM's algorithm, ``smo_wss2``) that also reports Joachims' xi-alpha bound on its
    leave-one-out error (svmbench.loo_bounds) in ``record_fields_["loo_xi_alpha"]``, RBF kernel
    only. The bound is defined for binary problems: with more classes the model is SMOSVC's
    one-vs-one model and the bound NaN, with a warning. ``gamma="spread"`` as RhoSVC."""

    # SMOSVC's settings it fixes: LIBSVM's algorithm, cold started, the samples in their order
    variant, warm_start, shrinking_rules, sample_order = "wss2", False, "libsvm283", "given"

    def fit(self, X, y):
        if self.kernel != "rbf":
            raise ValueError(f"the xi-alpha bound here needs kernel='rbf' (got {self.kernel!r})")
        super().fit(X, y)
        bound = np.nan
        if self.classes_.shape[0] == 2:
            X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
            signs = np.where(self._y_index == 1, 1.0, -1.0)
            alpha = np.zeros(X.shape[0])
            alpha[self.support_] = np.abs(self.dual_coef_[0])
            bound = xi_alpha_bound(alpha, signs * self.decision_function(X),
                                   rbf_r_delta_squared(X, self._gamma))
        else:
            warnings.warn(f"the xi-alpha bound is for binary problems; y has "
                          f"{self.classes_.shape[0]} classes: loo_xi_alpha is NaN", UserWarning,
                          stacklevel=2)
        self.record_fields_ = {"gamma_value": self._gamma, "loo_xi_alpha": bound}
        return self


MEB_VARIANTS = ("cvm", "fw", "mfw")


@declared("mfw")
class MEBSVC(KernelSVC):
    """L2-SVM of frank-wolfe-svm eq. (12) on the Q-matrix y_i y_j (k(x_i, x_j) + 1) + delta_ij / C,
    trained as a minimum enclosing ball; ``variant`` picks the algorithm (solver of the same name):

    - ``"cvm"``: Core Vector Machine (Algorithm 1; normalized kernels only, e.g. RBF);
    - ``"fw"``: Frank-Wolfe (Algorithm 2); ``"mfw"``: modified Frank-Wolfe (Algorithm 3).

    Parameters: ``C``, ``kernel``, ``gamma`` (a number, ``"paper_default"`` = 1 / (2 mean squared
    distance), ``"libcvm_default"`` = 1 / mean squared distance, or ``"scale"``), ``coef0``,
    ``degree``; ``eps`` (the (1 + eps) stopping rule), ``smo_eps`` (cvm: tolerance of the reduced QP
    when a point enters, libCVM's SMO_EPS), ``sample_size`` (furthest point searched in
    this many random points, Theorem 1; 0: all points), ``verify_stop`` (re-check a sampled stop
    over all points), ``initial_points`` (p of the random initial MEB), ``seed``, ``cache_mb``,
    ``max_iter`` (-1: 100 n + 10^6). The decision is sum_i alpha_i y_i (k(x_i, x) + 1) (eq. 13):
    ``intercept_`` = sum_i alpha_i y_i.
    """

    @property
    def solver_name(self):
        return self.variant

    def _check_params(self):
        super()._check_params()
        if self.variant not in MEB_VARIANTS:
            raise ValueError(f"unknown MEB variant {self.variant!r}; choose one of {MEB_VARIANTS}")
        if not self.C > 0:
            raise ValueError(f"C must be > 0 (got {self.C})")


# a plug-in's tolerance when it declares none and has no ``tol`` setting: LIBSVM's default
DEFAULT_TOLERANCE = 1e-3


def plugin_estimator(name, plugin):
    """The estimator class of a solver a spec declares with no model of svmbench.models (another
    package's, svmbench.solvers.plugins, or a built-in's whose ``model`` names the class made
    here): a KernelSVC over solver ``name``, its parameters the spec's settings with their
    defaults (the kernel's, ``cache_mb`` and the solver's own), in scikit-learn's
    explicit-signature form; the referee's tolerance is the spec's, never the one a result
    states."""

    def _tolerance(self, result):
        """The declared tolerance at the estimator's settings."""
        settings = self._solver_settings()
        if plugin.tolerance is not None:
            return float(plugin.tolerance(settings))
        return float(settings.get("tol", DEFAULT_TOLERANCE))

    class_name = plugin.model or f"PluginSVC_{name}"
    return type(class_name, (KernelSVC,), {
        "__init__": settings_init(name, plugin.settings()), "__module__": __name__,
        "__qualname__": class_name, "__doc__": plugin_doc(name, plugin),
        "solver_name": name, "solver_params": plugin.solver_settings(),
        "problem": plugin_problem(plugin), "_tolerance": _tolerance})


def plugin_doc(name, plugin):
    """The docstring of an estimator made from a spec: the spec's, else its solver, problem and
    settings."""
    if plugin.doc:
        return plugin.doc
    settings = ", ".join(f"``{key}={default!r}``" for key, default in plugin.settings().items())
    return (f"Estimator of solver ``{name}`` ({plugin_problem(plugin)} problem), made from its "
            f"spec (svmbench.solvers.plugins.SolverPlugin). Parameters: {settings}.")


@functools.cache
def builtin_estimator(model):
    """The estimator class named ``model`` that a built-in spec declares and this module does not
    define, made from the spec (once per process)."""
    for name, spec in builtin_specs().items():
        if spec.model == model:
            return plugin_estimator(name, spec)
    raise AttributeError(f"module {__name__!r} has no attribute {model!r}")


def __getattr__(model):
    return builtin_estimator(model)
