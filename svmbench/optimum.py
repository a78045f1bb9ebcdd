"""Certified optima: a reference solve of one problem to high precision, whose duality gap (the
referee's, svmbench.referee) bounds its own error, so that curves and solver comparisons measure
suboptimality against a number that is known, not against whichever solver stopped lowest.

``OptimumSVC(problem=...)`` computes the kernel matrix once in float64 and solves the problem on
it (``kernel="precomputed"``: every Q entry in double precision, no cache rounding) by a solver
with a stopping test far tighter than any benchmarked fit's:

- ``csvc``: smo_wss2 (LIBSVM's algorithm) at max violation ``tol`` (default 1e-9);
- ``hard_margin`` (and GS-SVM's ``stagewise`` expansion, whose optimum it is): hm_svm, exact
  active set, at KKT ``tol``;
- ``meb``: the modified Frank-Wolfe over all points (no sampling) at eps ``tol``;
- ``rho_simplex``: min a'Qa over the simplex is the hard-margin dual rescaled (a* = a_hm / 1'a_hm,
  a*'Qa* = 1 / 1'a_hm): hm_svm's solution, normalized, certified as the simplex problem.

Its records (algorithm ``optimum``) carry, per class pair, the referee's objective and gap
(``optimum_objectives``, ``optimum_gaps``): f* and the bound f(a_ref) - f* <= gap.
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from svmbench.kernels.cross import kernel_matrix
from svmbench.kernels.math import make_kernel_spec, make_points
from svmbench.models import MEBSVC, SMOSVC, HardMarginSVC, resolve_gamma
from svmbench.referee import PROBLEMS, Point, certify, precision_unit

INPUT_SHAPE = ("n_features_in_", "feature_names_in_")  # the inner fit's are the kernel matrix's
SOLVED_BY = {"csvc": "smo_wss2", "hard_margin": "hm_svm", "stagewise": "hm_svm",
             "meb": "mfw", "rho_simplex": "hm_svm"}


class OptimumSVC(ClassifierMixin, BaseEstimator):
    """The certified optimum of ``problem`` (svmbench.referee.PROBLEMS) on the training data, at
    ``C`` (C-SVC and MEB), ``kernel``, ``gamma``, ``coef0``, ``degree``; ``tol`` the reference
    solve's stopping tolerance. Fitted attributes as the other estimators' (``status_``,
    ``referee_objective_``, ``referee_gap_``, ...) and ``record_fields_``."""

    def __init__(self, problem="csvc", C=1.0, kernel="rbf", gamma="scale", coef0=0.0, degree=3,
                 tol=1e-9):
        self.problem = problem
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.tol = tol

    def _inner(self):
        if self.problem not in SOLVED_BY:
            raise ValueError(f"unknown problem {self.problem!r}; choose one of {sorted(SOLVED_BY)}")
        if self.problem == "csvc":
            return SMOSVC(variant="wss2", C=self.C, kernel="precomputed", tol=self.tol)
        if self.problem == "meb":
            return MEBSVC(variant="mfw", C=self.C, kernel="precomputed", eps=self.tol,
                          sample_size=0, max_iter=-1)
        return HardMarginSVC(kernel="precomputed", tol=self.tol)

    def fit(self, X, y):
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64)
        self._gamma = resolve_gamma(self.gamma, X)
        self._X = X
        gram = self._kernel(X)
        inner = self._inner().fit(gram, y)
        if self.problem == "rho_simplex":
            self._rescale_to_the_simplex(inner, gram)
        for name, value in vars(inner).items():  # its fitted attributes, not its input's shape
            if name.endswith("_") and not name.startswith("_") and name not in INPUT_SHAPE:
                setattr(self, name, value)
        self._model = inner
        self.record_fields_ = {"gamma_value": self._gamma, "reference_solver": SOLVED_BY[
            self.problem], "optimum_objectives": [float(v) for v in self.referee_objective_],
            "optimum_gaps": [float(v) for v in self.referee_gap_]}
        return self

    def _kernel(self, X, Y=None):
        spec = make_kernel_spec(self.kernel, self._gamma, self.coef0, self.degree)
        return kernel_matrix(make_points(X), make_points(self._X if Y is None else Y), spec,
                             X.shape[1])

    @staticmethod
    def _rescale_to_the_simplex(inner, gram):
        """hm_svm's solution a_hm per pair as the simplex point a_hm / 1'a_hm, certified as the
        rho-SVM dual (the inner estimator's referee fields replaced by this verdict)."""
        points = []
        for (members, labels), result in zip(inner._problems.pairs, inner.fit_results_):
            alpha = result.alpha / result.alpha.sum()
            points.append(Point(members, labels, alpha, alpha * labels, 0.0, np.inf,
                                result.tolerance,
                                result.status, result.reason, result.kkt_violation))
        largest = max(members.shape[0] for members, _ in inner._problems.pairs)
        verdict = certify("optimum (rho_simplex, hm_svm rescaled)", PROBLEMS["rho_simplex"],
                          points, gram, "precomputed", None, 0.0, 3,
                          precision_unit("float64", largest))
        for name, value in verdict.attributes().items():
            setattr(inner, name, value)

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return self._model.predict(self._kernel(X))
