"""Trained models and scikit-learn compatible estimators over every registered solver.

Binary problems use labels y = +1 for ``classes_[1]`` and -1 for ``classes_[0]`` (as scikit-learn's
SVC). More classes are trained one-vs-one, the pair (i, j), i < j, with +1 for class j; prediction
is by voting, ties going to the lowest class index (LIBSVM's rule), as in all five papers.
"""

from itertools import combinations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmbench.kernels.cross import weighted_kernel_sums
from svmbench.kernels.math import make_kernel_spec, make_points
from svmbench.kernels.provider import make_precomputed_provider, make_provider
from svmbench.kernels.qmatrix import make_precomputed_qmatrix, make_qmatrix
from svmbench.solvers.base import get_solver

KERNEL_PARAMS = ("kernel", "gamma", "coef0", "degree")


def mean_squared_distance(X):
    """Average ||x_i - x_j||^2 over pairs i != j of the rows of X (dense or sparse)."""
    n = X.shape[0]
    squared = X.multiply(X) if sp.issparse(X) else X * X
    squared_norms = np.asarray(squared.sum(axis=1)).ravel()
    mean = np.asarray(X.mean(axis=0)).ravel()
    return 2.0 * (squared_norms.mean() - mean @ mean) * n / max(n - 1, 1)


def resolve_gamma(gamma, X):
    """Numeric gamma, or by name: scikit-learn's ``"scale"`` = 1 / (n_features * X.var());
    ``"paper_default"`` = 1 / (2 sigma^2) with sigma^2 the mean squared distance among training
    points (frank-wolfe-svm §5.2.1, kernel exp(-||x - z||^2 / 2 sigma^2)); ``"libcvm_default"`` =
    1 / (mean squared distance), libCVM's own default (no factor 2)."""
    if gamma in ("paper_default", "libcvm_default"):
        return 1.0 / ((2.0 if gamma == "paper_default" else 1.0) * mean_squared_distance(X))
    if gamma == "scale":
        variance = (X.multiply(X)).mean() - X.mean() ** 2 if sp.issparse(X) else X.var()
        return 1.0 / (X.shape[1] * variance) if variance > 0 else 1.0
    return float(gamma)


def one_vs_one_pairs(n_classes):
    return list(combinations(range(n_classes), 2))


def pair_votes(decision, n_classes):
    """Votes per class from pairwise decision values (columns in ``one_vs_one_pairs`` order)."""
    votes = np.zeros((decision.shape[0], n_classes))
    for column, (low, high) in enumerate(one_vs_one_pairs(n_classes)):
        wins_high = decision[:, column] > 0
        votes[:, high] += wins_high
        votes[:, low] += ~wins_high
    return votes


class KernelSVC(ClassifierMixin, BaseEstimator):
    """Base of the estimators: subclasses name their solver and list their solver parameters.

    Fitted attributes follow ``sklearn.svm.SVC`` where they apply: ``support_``,
    ``support_vectors_``, ``n_support_``, ``dual_coef_`` (alpha_i * y_i; one row per class pair,
    columns over ``support_``), ``intercept_``, ``n_iter_``; plus ``kernel_requested_`` and
    ``kernel_computed_`` (summed over class pairs), ``objective_`` and ``status_`` per pair, and
    ``fit_results_`` (the solvers' full results). Predicting n samples evaluates n * len(support_)
    kernel values.

    ``kernel="precomputed"`` (as scikit-learn's SVC): ``fit`` takes the kernel matrix
    K(X_train, X_train) and ``predict`` K(X_test, X_train); ``gamma``, ``coef0`` and ``degree`` are
    ignored, ``kernel_computed_`` is 0 and ``support_vectors_`` is empty.
    """

    solver_name = None
    solver_params = ()

    def _solver_settings(self):
        return {name: getattr(self, name) for name in self.solver_params}

    def _check_params(self):
        if self.cache_mb < 0:
            raise ValueError(f"cache_mb must be >= 0 (got {self.cache_mb}); 0 turns the cache off")

    def _initial_alphas(self, y_index):
        """Per class pair, the alphas a solver starts from (indexed like X), or None: cold start."""
        return

    def _make_provider(self, X, members, labels):
        """Provider of the pair's training points ``X[members]`` (``labels`` in {-1, +1})."""
        if self.kernel == "precomputed":
            return make_precomputed_provider(X, members)
        return make_provider(X[members], self.kernel, self._gamma, self.coef0, self.degree,
                             self.cache_mb)

    def fit(self, X, y):
        self._check_params()
        precomputed = self.kernel == "precomputed"
        X, y = validate_data(self, X, y, accept_sparse=not precomputed and "csr",
                             dtype=np.float64)
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
                f"class ({self.classes_[0]!r}). Add samples of another class."
            )
        self._gamma = None if precomputed else resolve_gamma(self.gamma, X)
        solve = get_solver(self.solver_name)
        pairs = one_vs_one_pairs(self.classes_.shape[0])
        initial = self._initial_alphas(y_index)
        self.fit_results_, alphas = [], []
        for pair, (low, high) in enumerate(pairs):
            members = np.flatnonzero((y_index == low) | (y_index == high))
            labels = np.where(y_index[members] == high, 1.0, -1.0)
            settings = self._solver_settings()
            if initial is not None:
                settings["alpha_init"] = initial[pair][members]
            result = solve(self._make_provider(X, members, labels), labels, settings)
            self.fit_results_.append(result)
            alpha = np.zeros(X.shape[0])
            alpha[members] = result.alpha * labels
            alphas.append(alpha)
        signed_alpha = np.vstack(alphas)
        self.support_ = np.flatnonzero(np.any(signed_alpha != 0, axis=0))
        self.support_vectors_ = np.empty((0, 0)) if precomputed else X[self.support_]
        self._y_index = y_index
        self.dual_coef_ = signed_alpha[:, self.support_]
        self.n_support_ = np.bincount(y_index[self.support_], minlength=self.classes_.shape[0])
        self.intercept_ = np.array([r.bias for r in self.fit_results_])
        self.n_iter_ = np.array([r.iterations for r in self.fit_results_])
        self.objective_ = np.array([r.objective for r in self.fit_results_])
        self.status_ = [r.status for r in self.fit_results_]
        self.kernel_requested_ = sum(r.kernel_requested for r in self.fit_results_)
        self.kernel_computed_ = sum(r.kernel_computed for r in self.fit_results_)
        return self

    def _pair_decision(self, X):
        check_is_fitted(self)
        precomputed = self.kernel == "precomputed"
        X = validate_data(self, X, accept_sparse=not precomputed and "csr", dtype=np.float64,
                          reset=False)
        if precomputed:
            return X[:, self.support_] @ self.dual_coef_.T + self.intercept_
        spec = make_kernel_spec(self.kernel, self._gamma, self.coef0, self.degree)
        sums, _ = weighted_kernel_sums(
            make_points(X), make_points(self.support_vectors_), spec, self.dual_coef_.T,
            self.n_features_in_,
        )
        return sums + self.intercept_

    def decision_function(self, X):
        """Binary: f(x) (> 0 means ``classes_[1]``). More classes: votes per class, with ties
        broken by summed confidences (scikit-learn's "ovr" shape)."""
        decision = self._pair_decision(X)
        if self.classes_.shape[0] == 2:
            return decision[:, 0]
        votes = pair_votes(decision, self.classes_.shape[0])
        confidence = np.zeros_like(votes)
        for column, (low, high) in enumerate(one_vs_one_pairs(self.classes_.shape[0])):
            confidence[:, high] += decision[:, column]
            confidence[:, low] -= decision[:, column]
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


class GSSVC(KernelSVC):
    """GS-SVM (gs-svm-tnn2008 Algorithm 1): greedy stagewise, no bias and no C.

    Parameters: ``kernel`` ("rbf", "poly", "linear"), ``gamma`` (the papers' theta, or "scale"),
    ``coef0``, ``degree``, ``cache_mb`` (LRU kernel-row cache; GS-SVM requests every row once, so
    it only matters for memory), ``max_iter`` (-1: no limit; at most n steps anyway).
    """

    solver_name = "gs_svm"
    solver_params = ("max_iter",)

    def __init__(self, kernel="rbf", gamma="scale", coef0=0.0, degree=3, cache_mb=100.0,
                 max_iter=-1):
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.cache_mb = cache_mb
        self.max_iter = max_iter


SMO_VARIANTS = ("wss2", "platt", "mod1", "mod2")


class SMOSVC(KernelSVC):
    """Soft-margin C-SVM with bias trained by SMO; ``variant`` picks the algorithm:

    - ``"wss2"``: LIBSVM 2.83 (Fan et al. 2005 WSS 2, shrinking, LRU cache), solver ``smo_wss2``;
    - ``"platt"``: Platt's SMO (1998), solver ``smo_platt``;
    - ``"mod1"`` / ``"mod2"``: Keerthi et al. (2001) Modification 1 / 2, solvers ``smo_mod1`` /
      ``smo_mod2``.

    Parameters: ``C``, ``kernel``, ``gamma``, ``coef0``, ``degree`` as ``sklearn.svm.SVC``; ``tol``
    (wss2: maximal violation; mod1/mod2: b_low <= b_up + 2 tol; platt: KKT tolerance),
    ``shrinking`` (wss2 only), ``cache_mb`` (LRU kernel-row cache), ``max_iter`` (-1: LIBSVM's
    max(10^7, 100 n)), ``warm_start`` (wss2 only: start from the previous fit's alphas, scaled
    into the new box [0, C] so they stay feasible; for a grid over C on the same data).
    """

    solver_params = ("C", "tol", "shrinking", "max_iter")

    def __init__(self, variant="wss2", C=1.0, kernel="rbf", gamma="scale", coef0=0.0, degree=3,
                 tol=1e-3, shrinking=True, cache_mb=100.0, max_iter=-1, warm_start=False):
        self.variant = variant
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.tol = tol
        self.shrinking = shrinking
        self.cache_mb = cache_mb
        self.max_iter = max_iter
        self.warm_start = warm_start

    @property
    def solver_name(self):
        return f"smo_{self.variant}"

    def _check_params(self):
        super()._check_params()
        if self.variant not in SMO_VARIANTS:
            raise ValueError(f"unknown SMO variant {self.variant!r}; choose one of {SMO_VARIANTS}")
        if self.warm_start and self.variant != "wss2":
            raise ValueError(f"warm_start needs variant='wss2' (got {self.variant!r})")

    def _initial_alphas(self, y_index):
        same_problem = hasattr(self, "_y_index") and np.array_equal(self._y_index, y_index)
        if not (self.warm_start and same_problem):
            return None
        initial = np.abs(self.dual_coef_)  # alpha_i of each pair, over support_
        initial *= np.minimum(1.0, self.C / np.maximum(initial.max(axis=1, keepdims=True), 1e-300))
        alphas = np.zeros((initial.shape[0], y_index.shape[0]))
        alphas[:, self.support_] = initial
        return alphas


class HardMarginSVC(KernelSVC):
    """HM-SVM: the hard-margin dual without bias (gs-svm-tnn2008, eq. 2), solved exactly by a
    primal active-set method (Lawson & Hanson's NNLS for the QP, incrementally updated Cholesky
    factor of Q over the support vectors) to the KKT tolerance ``tol`` (default 1e-6), solver
    ``hm_svm``; see :mod:`svmbench.solvers.hm_svm` for the relative tolerance used when the alphas
    are so large (> ~1e8) that 1e-6 is below rounding.

    Parameters: ``kernel``, ``gamma``, ``coef0``, ``degree``, ``tol``, ``cache_mb`` (unused: the
    solver keeps its own double-precision rows of the support vectors), ``max_iter`` (-1:
    10 n + 1000 active-set iterations).
    """

    solver_name = "hm_svm"
    solver_params = ("tol", "max_iter")

    def __init__(self, kernel="rbf", gamma="scale", coef0=0.0, degree=3, tol=1e-6, cache_mb=100.0,
                 max_iter=-1):
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.tol = tol
        self.cache_mb = cache_mb
        self.max_iter = max_iter


class RSVC(KernelSVC):
    """RSVM (gs-svm-tnn2008 §VI, eq. 29): a soft-margin C-SVM with bias whose C is found by
    bisection so that ||w||^2 equals that of GS-SVM on the same data and kernel, solver ``rsvm``.

    Parameters: ``kernel``, ``gamma``, ``coef0``, ``degree``, ``cache_mb`` as GSSVC;
    ``bisection_tol`` (relative tolerance on ||w||^2), ``inner_solver`` (the registered
    soft-margin solver, default "smo_wss2") with its ``tol``, ``shrinking``, ``max_iter``.
    Fitted ``C_``, ``w_norm2_`` and ``target_w_norm2_`` hold one value per class pair.
    """

    solver_name = "rsvm"
    solver_params = ("bisection_tol", "inner_solver", "tol", "shrinking", "max_iter")

    def __init__(self, kernel="rbf", gamma="scale", coef0=0.0, degree=3, cache_mb=100.0,
                 bisection_tol=1e-3, inner_solver="smo_wss2", tol=1e-3, shrinking=True,
                 max_iter=-1):
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.cache_mb = cache_mb
        self.bisection_tol = bisection_tol
        self.inner_solver = inner_solver
        self.tol = tol
        self.shrinking = shrinking
        self.max_iter = max_iter

    def fit(self, X, y):
        super().fit(X, y)
        self.C_ = np.array([r.trace["C"] for r in self.fit_results_])
        self.w_norm2_ = np.array([r.trace["w_norm2"] for r in self.fit_results_])
        self.target_w_norm2_ = np.array([r.trace["target_w_norm2"] for r in self.fit_results_])
        return self


MEB_VARIANTS = ("cvm", "fw", "mfw")


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

    solver_params = ("eps", "smo_eps", "sample_size", "verify_stop", "initial_points", "seed",
                     "max_iter")

    def __init__(self, variant="mfw", C=1.0, kernel="rbf", gamma="paper_default", coef0=0.0,
                 degree=3, eps=1e-6, smo_eps=1e-3, sample_size=59, verify_stop=False,
                 initial_points=20, seed=0, cache_mb=100.0, max_iter=-1):
        self.variant = variant
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.eps = eps
        self.smo_eps = smo_eps
        self.sample_size = sample_size
        self.verify_stop = verify_stop
        self.initial_points = initial_points
        self.seed = seed
        self.cache_mb = cache_mb
        self.max_iter = max_iter

    @property
    def solver_name(self):
        return self.variant

    def _check_params(self):
        super()._check_params()
        if self.variant not in MEB_VARIANTS:
            raise ValueError(f"unknown MEB variant {self.variant!r}; choose one of {MEB_VARIANTS}")
        if not self.C > 0:
            raise ValueError(f"C must be > 0 (got {self.C})")

    def _make_provider(self, X, members, labels):
        if self.kernel == "precomputed":
            return make_precomputed_qmatrix(X, members, labels, "l2svm", self.C)
        return make_qmatrix(X[members], labels, "l2svm", C=self.C, kernel=self.kernel,
                            gamma=self._gamma, coef0=self.coef0, degree=self.degree,
                            cache_mb=self.cache_mb)
