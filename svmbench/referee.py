"""The referee: the harness's own check of every point a solver returns.

A solver says why it stopped and how far it believes its point is from optimal; the harness takes
neither on trust. After every fit, outside the fit's timed part, the referee

1. checks that the returned point is finite and feasible for the problem the solver declares
   (:data:`PROBLEMS`: the box 0 <= a <= C and y'a = 0 of the C-SVC dual, the box without bias,
   a >= 0 of the hard margin, the unit simplexes of the rho-SVM and of the MEB), and that a model
   without a free bias returns the bias its problem defines;
2. recomputes in float64, from kernel entries computed afresh (by the kernel providers'
   arithmetic with no cache, :func:`kernel_sums`, spot-checked against scikit-learn's pairwise
   kernels, :func:`spot_check`; or the given matrix for ``kernel="precomputed"``; never the
   solver's cache, rows or gradient, and outside its kernel counts) and summed in a fixed order
   (svmbench.kernels.fixed_order: no BLAS product), the decision values of the returned
   model on its training samples, and from them the dual objective, the KKT violation at the
   returned bias (the problem's relative gap on the simplexes) and, where the problem has one, the
   duality gap, a bound on the objective's distance to the optimum in the objective's units;
3. decides the status from its own measurement (:func:`judge`): ``converged`` when the KKT
   violation it measured is within the solver's tolerance plus the rounding :func:`allowance` of
   the Q-matrix the solver was given (LIBSVM's single-precision cache: a solver reading Q in
   float32 cannot place its point better than that). A solver that claimed convergence the
   referee does not measure is refuted (:class:`RefutedError`), and so is a non-finite or
   infeasible point, whatever the solver claimed.

Every dual here is stated in its minimisation form over the Q-matrix of its kind
(svmbench.kernels.qmatrix): with s_i = sum_j a_j y_j k(x_i, x_j) the model's kernel sums,
(Q a)_i = y_i s_i for the C-SVC kind and y_i (s_i + sum_j a_j y_j) + a_i / C for the L2-SVM kind.
"""

import math
import time
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import pairwise_kernels

from svmbench.kernels.fixed_order import (
    dense_weighted_sums,
    gathered_sums,
    shared_member_sums,
    weighted_provider_sums,
    weighted_row_sums,
)
from svmbench.kernels.math import is_sparse, make_kernel_spec, make_points
from svmbench.kernels.provider import make_provider
from svmbench.solvers.base import (
    CLOSED_FORM,
    CONVERGED,
    MAX_ITER,
    OPTIMAL,
    OWN_RULE,
    STALLED,
    STOP_RECORDED,
)

# rounding of one Q entry stored in single precision (LIBSVM's Qfloat), relative
FLOAT32_UNIT = 2.0 ** -24
FLOAT64_UNIT = 2.0 ** -53
# precomputed_sums: a class pair's points that read each of their columns this many times or
# more on average share one copy of the columns (a column's copy costs about as much as reading
# it where it lies two or three times; measured on gs2008 Table VII's grid searches)
SHARED_READS = 3
# feasibility: bounds met to this relative slack; y'a = 0 and sum a = 1 to this, relative to |a|_1
BOUND_SLACK = 1e-12
EQUALITY_SLACK = 1e-9
# a bias the problem defines (0, or sum_i a_i y_i for the MEB) matched to this, relative
BIAS_SLACK = 1e-9
# rows of each pair whose sums are recomputed by scikit-learn's pairwise kernels as well, a
# check independent of svmbench.kernels (whose arithmetic the solvers share)
SPOT_ROWS = 16
SPOT_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Problem:
    """A dual a solver can declare; the referee checks a returned point against it."""

    name: str
    q_kind: str  # the Q-matrix it is stated over (svmbench.kernels.qmatrix.Q_KINDS)
    bias: str  # "free" (y'a = 0, b returned), "zero" (b = 0), "sum" (b = sum_i a_i y_i, MEB eq. 13)
    box: bool  # a <= C
    simplex: bool  # sum_i a_i = 1
    kkt: str  # "absolute" KKT violation, "entry" (GS-SVM: unused samples only), "relative" gap
    description: str


PROBLEMS = {problem.name: problem for problem in (
    Problem("csvc", "csvc", "free", True, False, "absolute",
            "C-SVC dual: min 1/2 a'Qa - 1'a, 0 <= a <= C, y'a = 0 (with bias)"),
    Problem("csvc_nobias", "csvc", "zero", True, False, "absolute",
            "C-SVC dual without bias: min 1/2 a'Qa - 1'a, 0 <= a <= C"),
    Problem("hard_margin", "csvc", "zero", False, False, "absolute",
            "hard-margin dual without bias: min 1/2 a'Qa - 1'a, a >= 0 (gs-svm-tnn2008 eq. 2)"),
    Problem("stagewise", "csvc", "zero", False, False, "entry",
            "GS-SVM's stagewise expansion of the hard-margin dual (gs-svm-tnn2008 Alg. 1): "
            "a >= 0, optimal where no unused sample could lower the objective"),
    Problem("rho_simplex", "csvc", "zero", False, True, "relative",
            "rho-SVM dual: min a'Qa over the unit simplex (multiplicative-rho-svm eq. 5); "
            "relative gap (a'Qa - min_i (Qa)_i) / a'Qa"),
    Problem("meb", "l2svm", "sum", False, True, "relative",
            "minimum enclosing ball of the L2-SVM (frank-wolfe-svm eq. 12): min a'Qa over the unit "
            "simplex; relative gap 2 (a'Qa - min_i (Qa)_i) / (max_i Q_ii - a'Qa)"),
)}
# the problem of a solver that declares only its Q-matrix kind
PROBLEM_OF_Q_KIND = {"csvc": "csvc", "l2svm": "meb"}


def problem_named(name):
    if name not in PROBLEMS:
        raise ValueError(f"unknown problem {name!r}; choose one of {sorted(PROBLEMS)}")
    return PROBLEMS[name]


class RefutedError(ValueError):
    """The referee refuted a fit: a non-finite or infeasible point, or a claim of convergence its
    measurement contradicts. ``verdict`` holds the referee's :class:`Verdict` on every class pair
    (for the run record), when it got that far."""

    def __init__(self, message, verdict=None):
        super().__init__(message)
        self.verdict = verdict


@dataclass
class Measurement:
    """What the referee measured at one returned point."""

    infeasible: str | None  # None, or what is wrong with the point
    objective: float  # the dual objective of the problem (minimisation form)
    violation: float  # KKT violation (absolute) or relative gap, as the problem states it
    gap: float  # duality gap: a bound on objective - optimum, in the objective's units
    allowance: float  # what the Q-matrix's rounding alone can put on ``violation``
    kernel_evaluations: int


def kernel_sums(X, rows, used, weights, kernel, gamma, coef0, degree):
    """(sum_j weights_j k(x_r, x_rows[used[j]]) and sum_j |weights_j k(x_r, x_rows[used[j]])| for
    each r in ``rows``, kernel entries computed): in float64, by the kernel providers'
    arithmetic, afresh (no cache), each sum in a fixed order, in parallel without changing a bit
    (svmbench.kernels.fixed_order): dense points by dense_weighted_sums, sparse ones (binary
    among them, from their bits) by a provider of the referee's own over X[rows], row after row
    (weighted_provider_sums). A given kernel matrix: :func:`precomputed_sums`."""
    sums, magnitudes = np.zeros(rows.shape[0]), np.zeros(rows.shape[0])
    if used.shape[0] == 0:
        return sums, magnitudes, 0
    pair = X[rows]
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    used = used.astype(np.int64)
    points = make_points(pair)
    if not is_sparse(points):
        dense_weighted_sums(points[0], points[7], points[4], used, weights,
                            *make_kernel_spec(kernel, gamma, coef0, degree), sums, magnitudes)
    else:
        provider = make_provider(pair, kernel, gamma, coef0, degree, cache_mb=0, points=points)
        weighted_provider_sums(provider, used, weights, np.empty(rows.shape[0]), sums,
                               magnitudes)
    return sums, magnitudes, rows.shape[0] * used.shape[0]


def spot_check(X, rows, used, weights, sums, kernel, gamma, coef0, degree):
    """Recompute the sums of :data:`SPOT_ROWS` of the points X[rows] (spread evenly) from
    scikit-learn's pairwise kernels, a check of svmbench.kernels (whose arithmetic the solvers
    share) by independent code, and raise RuntimeError, naming the harness, when one differs
    from ``sums`` by more than :data:`SPOT_TOLERANCE` of sum_j |weights_j k(x_r, x_j)| (rounding
    moves them apart by far less, a wrong kernel by far more); returns the kernel entries it
    computed."""
    spot = np.unique(np.linspace(0, rows.shape[0] - 1, SPOT_ROWS).astype(np.intp))
    params = {} if kernel == "linear" else \
        {"gamma": gamma} if kernel == "rbf" else {"gamma": gamma, "coef0": coef0, "degree": degree}
    block = pairwise_kernels(X[rows[spot]], X[rows[used]], metric=kernel, **params)
    theirs, magnitudes = np.zeros(spot.shape[0]), np.zeros(spot.shape[0])
    weighted_row_sums(np.ascontiguousarray(block, dtype=np.float64),
                      np.ascontiguousarray(weights, dtype=np.float64), theirs, magnitudes)
    allowed = SPOT_TOLERANCE * magnitudes
    off = np.abs(sums[spot] - theirs) > allowed
    if np.any(off):
        first = int(np.argmax(off))
        raise RuntimeError(
            "the referee's kernel sums (svmbench.kernels) disagree with scikit-learn's pairwise "
            f"kernels at sample {int(rows[spot[first]])}: {sums[spot[first]]!r} against "
            f"{theirs[first]!r}, beyond the rounding allowed ({allowed[first]:.3g}); a defect "
            "of the harness's kernel code, not of the solver")
    return spot.shape[0] * used.shape[0]


def pair_sums(X, points, kernel, gamma, coef0, degree, symmetric=False):
    """:func:`kernel_sums` of every :class:`Point`'s model over its pair's samples, laid one pair
    after the other; the pair with the most support vectors :func:`spot_check`-ed (one check a
    certification: every pair's sums come from the same code). ``symmetric``: a precomputed X is
    exactly symmetric (:func:`precomputed_sums`)."""
    if kernel == "precomputed":
        return precomputed_sums(X, points, symmetric)
    used = [np.flatnonzero(point.coefficients) for point in points]
    parts = [kernel_sums(X, point.members, columns, point.coefficients[columns], kernel, gamma,
                         coef0, degree) for point, columns in zip(points, used)]
    evaluations = [count for _, _, count in parts]
    checked = int(np.argmax([columns.shape[0] for columns in used]))
    if used[checked].shape[0] > 0:
        evaluations[checked] += spot_check(
            X, points[checked].members, used[checked],
            points[checked].coefficients[used[checked]], parts[checked][0], kernel, gamma,
            coef0, degree)
    return (np.concatenate([sums for sums, _, _ in parts]),
            np.concatenate([magnitudes for _, magnitudes, _ in parts]), evaluations)


def precomputed_sums(gram, points, symmetric=False):
    """:func:`pair_sums` over a given kernel matrix, read, no entry computed. The points of one
    class pair (the same members array: a grid search's C values) that read each of their columns
    SHARED_READS times or more on average sum over one transposed copy of those columns
    (svmbench.kernels.fixed_order.shared_member_sums); the other points in one call of
    gathered_sums, which reads each entry where it lies (a single fit: the copy would cost more
    than its sums). Both sum each point in one fixed order: the same bits either way.
    The magnitudes are bounded by max_k |K_kk| |coefficients|_1 (|K_ij| <= sqrt(K_ii K_jj) for a
    kernel matrix): in float64 the allowance they enter is negligible. ``symmetric``: ``gram``
    equals its transpose bit for bit (a kernel matrix of one point set by
    svmbench.kernels.cross, as a grid search's), so the copy reads its columns as rows."""
    gram = np.asarray(gram, dtype=np.float64)
    sizes = [point.members.shape[0] for point in points]
    starts = np.cumsum([0] + sizes)
    sums = np.zeros(starts[-1])
    alone = []
    for group in same_members(points):
        m = sizes[group[0]]
        coefficients = np.concatenate([points[p].coefficients for p in group], dtype=np.float64)
        nonzero = np.flatnonzero(coefficients)
        positions = nonzero % m  # in the pair's members
        read = np.zeros(m, dtype=bool)
        read[positions] = True
        if nonzero.shape[0] < SHARED_READS * np.count_nonzero(read):
            alone += group
            continue
        shared = np.empty(len(group) * m)
        shared_member_sums(gram, points[group[0]].members.astype(np.intp), positions,
                           coefficients[nonzero],
                           np.searchsorted(nonzero, np.arange(len(group) + 1) * m), shared,
                           symmetric)
        for k, p in enumerate(group):
            sums[starts[p]:starts[p + 1]] = shared[k * m:(k + 1) * m]
    if alone:
        members = np.concatenate([points[p].members for p in alone]).astype(np.intp)
        coefficients = np.concatenate([points[p].coefficients for p in alone], dtype=np.float64)
        nonzero = np.flatnonzero(coefficients)
        alone_starts = np.cumsum([0] + [sizes[p] for p in alone])
        gathered = np.zeros(members.shape[0])
        gathered_sums(gram, members, alone_starts.astype(np.intp), members[nonzero],
                      coefficients[nonzero], np.searchsorted(nonzero, alone_starts), gathered)
        for k, p in enumerate(alone):
            sums[starts[p]:starts[p + 1]] = gathered[alone_starts[k]:alone_starts[k + 1]]
    largest = float(np.abs(np.diagonal(gram)).max())
    magnitudes = np.concatenate([np.full(point.members.shape[0],
                                         largest * float(np.abs(point.coefficients).sum()))
                                 for point in points])
    return sums, magnitudes, [0] * len(points)


def same_members(points):
    """The positions of ``points`` grouped by their members array (one object for a class pair's
    fits at every C of a grid search), in order of first appearance."""
    groups = {}
    for position, point in enumerate(points):
        groups.setdefault(id(point.members), []).append(position)
    return list(groups.values())


def kernel_diagonal(X, rows, kernel, gamma, coef0, degree):
    """k(x_r, x_r) for each r in ``rows``, computed afresh (the given matrix's diagonal)."""
    if kernel == "precomputed":
        return np.asarray(X[rows, rows], dtype=np.float64).ravel()
    if kernel == "rbf":
        return np.ones(rows.shape[0])
    points = X[rows]
    squares = np.asarray(points.multiply(points).sum(axis=1)).ravel() if sp.issparse(points) \
        else np.einsum("ij,ij->i", points, points)
    return (gamma * squares + coef0) ** degree if kernel == "poly" else squares


def kernel_entry_error(X, rows, kernel, gamma, coef0, degree):
    """A bound on the rounding of one kernel entry k(x_i, x_j) over ``rows`` computed in float64
    from inner products (as the solvers' provider and scikit-learn both do): an inner product of
    d terms is off by up to d 2^-53 |x_i| |x_j| (Higham), the RBF's squared distance
    |x_i|^2 + |x_j|^2 - 2 <x_i, x_j> by about 4 2^-53 max |x|^2 (cancellation: points far from
    the origin), which exp(-gamma d) <= 1 turns into gamma times that, plus the exponential's
    own rounding (svmbench.kernels.math.exp_nonpositive: below 5e-16 relative, so 8 2^-53 on
    entries <= 1); a given matrix: 0."""
    if kernel == "precomputed":
        return 0.0
    points = X[rows]
    squares = np.asarray(points.multiply(points).sum(axis=1)).ravel() if sp.issparse(points) \
        else np.einsum("ij,ij->i", points, points)
    largest = float(squares.max()) if squares.shape[0] else 0.0
    dot_error = X.shape[1] * FLOAT64_UNIT * largest
    if kernel == "rbf":
        return 4.0 * gamma * FLOAT64_UNIT * largest + 8.0 * FLOAT64_UNIT
    if kernel == "linear":
        return dot_error
    base = abs(gamma) * largest + abs(coef0)
    return degree * abs(gamma) * dot_error * base ** max(degree - 1, 0)


def allowance(problem, error, radius2=None, rho=None):
    """How far rounding alone can move the measured ``violation`` at the returned point, from
    ``error``, the bound on the rounding of any (Q a)_i (see :func:`measure`): a bias the solver
    derived from its gradient doubles it, a relative gap divides it by its denominator."""
    if problem.kkt == "relative":
        denominator = radius2 if problem.name == "meb" else rho
        scale = 4.0 if problem.name == "meb" else 2.0
        return scale * error / denominator if denominator and denominator > 0 else math.inf
    return (2.0 if problem.bias == "free" else 1.0) * error


@dataclass(frozen=True)
class Stack:
    """The class pairs' per-sample arrays laid one pair after the other (none empty): pair p's
    entries start at ``starts[p]``; ``pair`` holds each entry's pair. One numpy call per quantity
    measures every pair of a fit (a grid search certifies thousands of fits of up to hundreds of
    pairs, where a call per pair and quantity cost more than the fits)."""

    starts: np.ndarray
    pair: np.ndarray

    @classmethod
    def of(cls, sizes):
        sizes = np.asarray(sizes, dtype=np.intp)
        if sizes.shape[0] == 0 or sizes.min() < 1:
            raise ValueError(f"every class pair needs at least one sample (sizes {sizes.tolist()})")
        return cls(np.concatenate([[0], np.cumsum(sizes)[:-1]]),
                   np.repeat(np.arange(sizes.shape[0]), sizes))

    def total(self, values):
        return np.add.reduceat(values, self.starts)

    def largest(self, values):
        return np.maximum.reduceat(values, self.starts)

    def smallest(self, values):
        return np.minimum.reduceat(values, self.starts)

    def part(self, values, pair):
        end = self.starts[pair + 1] if pair + 1 < self.starts.shape[0] else values.shape[0]
        return values[self.starts[pair]:end]


def measure(problem, stack, alpha, y, bias, sums, magnitudes, C, diagonal, unit, entry_error,
            evaluations):
    """The referee's :class:`Measurement` of every class pair's point (``stack``: the pairs'
    entries one pair after the other): ``alpha`` (labels ``y`` in {-1, +1}) with ``bias`` (one per
    pair) returned by the solver, from ``sums`` s_i = sum_j a_j y_j k(x_i, x_j) computed afresh,
    ``magnitudes`` sum_j |a_j k(x_i, x_j)| and the kernel's ``diagonal``; ``C`` the problem's per
    pair (inf: no box). Rounding: the solver's Q entries are stored to relative ``unit`` and every
    kernel entry, computed by the solver and again here, is off by up to ``entry_error`` (per pair,
    :func:`kernel_entry_error`), so each (Q a)_i is uncertain by unit * max_i sum_j |Q_ij a_j|
    + 2 entry_error |a|_1: the :func:`allowance`."""
    box, pair_bias = C[stack.pair], bias[stack.pair]
    infeasible = feasibilities(problem, stack, alpha, y, bias, C)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if problem.q_kind == "l2svm":
            q_alpha = y * (sums + stack.total(alpha * y)[stack.pair]) + alpha / box
            q_diagonal = diagonal + 1.0 + 1.0 / box
            magnitudes = magnitudes + stack.total(np.abs(alpha))[stack.pair] + np.abs(alpha) / box
        else:
            q_alpha = y * sums
            q_diagonal = diagonal
        error = unit * stack.largest(magnitudes) + 2.0 * entry_error * stack.total(np.abs(alpha))
        quadratic = stack.total(alpha * q_alpha)
        if problem.kkt == "relative":
            values = relative_gaps(problem, stack, q_alpha, q_diagonal, quadratic)
        else:
            values = absolute_violations(problem, stack, alpha, y, sums, pair_bias, C, box,
                                         q_alpha, quadratic)
    measurements = []
    for pair, (objective, violation, gap, denominator) in enumerate(zip(*values)):
        if infeasible[pair] and not np.all(np.isfinite(stack.part(alpha, pair))):
            measurements.append(Measurement(infeasible[pair], math.nan, math.nan, math.nan,
                                            math.nan, evaluations[pair]))
            continue
        radius2 = denominator if problem.name == "meb" else None
        measurements.append(Measurement(
            infeasible[pair], float(objective), float(violation), float(gap),
            allowance(problem, float(error[pair]), radius2, float(denominator)),
            evaluations[pair]))
    return measurements


def relative_gaps(problem, stack, q_alpha, q_diagonal, quadratic):
    """(objective, relative gap, Frank-Wolfe duality gap, its denominator) per pair of a simplex
    problem: grad'a - min_i grad_i with grad = 2 Q a bounds a'Qa - min a'Qa."""
    gap = 2.0 * (quadratic - stack.smallest(q_alpha))
    if problem.name == "meb":
        denominator = stack.largest(q_diagonal) - quadratic
        violation = np.where(denominator > 0, gap / denominator, math.inf)
    else:
        denominator = quadratic
        violation = np.where(quadratic > 0, 0.5 * gap / quadratic, math.inf)
    return quadratic, violation, gap, denominator


def absolute_violations(problem, stack, alpha, y, sums, bias, C, box, q_alpha, quadratic):
    """(objective, KKT violation, duality gap, objective) per pair of a problem with an absolute
    KKT test, at the returned ``bias`` (per entry); GS-SVM's stagewise expansion ("entry"): the
    largest violation over its unused samples, and no gap (it solves no dual to optimality)."""
    objective = 0.5 * quadratic - stack.total(alpha)
    margin = q_alpha - 1.0 + (y * bias if problem.bias == "free" else 0.0)  # y_i f(x_i) - 1
    if problem.kkt == "entry":
        violation = stack.largest(np.where(alpha <= 0.0, np.maximum(-margin, 0.0), 0.0))
        return objective, violation, np.full(objective.shape[0], math.nan), objective
    violation = stack.largest(kkt_violations(alpha, margin, box))
    gap = duality_gaps(problem, stack, alpha, y, sums, C, quadratic, objective)
    return objective, violation, gap, objective


def kkt_violations(alpha, margin, C):
    """Each sample's violation of y_i f(x_i) >= 1 where a_i = 0, = 1 where 0 < a_i < C, <= 1
    where a_i = C, from ``margin`` = y_i f(x_i) - 1 (svmbench.solvers.kkt, in numpy)."""
    return np.where(alpha <= 0.0, np.maximum(-margin, 0.0),
                    np.where(alpha >= C, np.maximum(margin, 0.0), np.abs(margin)))


def duality_gaps(problem, stack, alpha, y, sums, C, quadratic, objective):
    """Primal minus dual at each pair's point: with w = sum a_i y_i phi(x_i), the C-SVC primal
    1/2 |w|^2 + C sum_i max(0, 1 - y_i (s_i + b)) at its best bias b (with bias; b = 0 without);
    the hard margin's primal (C = inf) 1/2 |w|^2 / m^2 at w scaled to margin m = min_i y_i s_i
    (inf when m <= 0). Weak duality makes it >= 0 and bounds the objective's distance to the
    optimum."""
    smallest = stack.smallest(y * sums)
    hard = np.where(smallest > 0, 0.5 * quadratic / smallest ** 2 + objective, math.inf)
    bias = best_biases(stack, y, sums) if problem.bias == "free" else np.zeros(C.shape[0])
    slack = stack.total(np.maximum(1.0 - y * (sums + bias[stack.pair]), 0.0))
    return np.where(np.isinf(C), hard, 0.5 * quadratic + C * slack + objective)


def best_biases(stack, y, sums):
    """Per pair, the b minimising sum_i max(0, 1 - y_i (s_i + b)): a convex piecewise linear
    function whose slope at b is -#{y_i = +1, b < 1 - s_i} + #{y_i = -1, b > -1 - s_i}, so a
    minimiser is the n_+-th smallest of the kinks (1 - s_i for y_i = +1, -1 - s_i for
    y_i = -1); with no y_i = +1 every slack is 0 below the smallest kink."""
    kinks = np.where(y > 0, 1.0 - sums, -1.0 - sums)
    sizes = np.diff(np.append(stack.starts, kinks.shape[0]))
    # each pair's kinks ascending in a row of its own, NaN after them (numpy sorts NaN last)
    in_order = np.full((sizes.shape[0], sizes.max()), math.nan)
    in_order[stack.pair, np.arange(kinks.shape[0]) - stack.starts[stack.pair]] = kinks
    in_order.sort(axis=1)
    positives = stack.total((y > 0).astype(np.intp))
    return in_order[np.arange(sizes.shape[0]), np.maximum(positives - 1, 0)]


def best_bias(y, sums):
    """:func:`best_biases` of one pair."""
    return float(best_biases(Stack.of([y.shape[0]]), y, sums)[0])


def feasibilities(problem, stack, alpha, y, bias, C):
    """Per pair None for a feasible point, else what is wrong with it (:func:`feasibility`, asked
    only for the pairs whose point comes within half a slack of a bound)."""
    with np.errstate(invalid="ignore", over="ignore"):
        magnitude = stack.total(np.abs(alpha))
        scale = np.maximum(1.0, stack.largest(np.abs(alpha)))
        y_alpha = stack.total(alpha * y)
        near = (stack.total(~np.isfinite(alpha)) > 0) | ~np.isfinite(bias) \
            | (stack.smallest(alpha) < -0.5 * BOUND_SLACK * scale)
        if problem.box:
            near |= stack.largest(alpha) > C * (1.0 + 0.5 * BOUND_SLACK)
        if problem.bias == "free":
            near |= np.abs(y_alpha) > 0.5 * EQUALITY_SLACK * np.maximum(magnitude, 1.0)
        if problem.simplex:
            near |= np.abs(stack.total(alpha) - 1.0) > 0.5 * EQUALITY_SLACK
        expected = y_alpha if problem.bias == "sum" else 0.0 if problem.bias == "zero" else bias
        near |= ~(np.abs(bias - expected) <= 0.5 * BIAS_SLACK * np.maximum(1.0, np.abs(expected)))
    return [feasibility(problem, stack.part(alpha, pair), stack.part(y, pair), float(bias[pair]),
                        float(C[pair])) if near[pair] else None
            for pair in range(stack.starts.shape[0])]


def feasibility(problem, alpha, y, bias, C):
    """None for a feasible point, else what is wrong with it."""
    n = alpha.shape[0]
    bad = int(np.count_nonzero(~np.isfinite(alpha)))
    if bad:
        return f"{bad} of its {n} alphas are not finite (NaN or inf)"
    if not math.isfinite(bias):
        return f"its bias is {bias}"
    scale = max(1.0, float(np.abs(alpha).max())) if n else 1.0
    if n and alpha.min() < -BOUND_SLACK * scale:
        return f"alpha has negative entries (smallest {alpha.min():.3g}); the problem needs a >= 0"
    if problem.box and n and alpha.max() > C * (1.0 + BOUND_SLACK):
        return f"alpha exceeds the box (largest {alpha.max():.6g} > C = {C:.6g})"
    alpha_l1 = max(float(np.abs(alpha).sum()), 1.0)
    y_alpha = float(np.sum(alpha * y))  # numpy's summation, not BLAS: the same bits on every run
    if problem.bias == "free" and abs(y_alpha) > EQUALITY_SLACK * alpha_l1:
        return f"y'a = {y_alpha:.3g}, not 0 (the equality constraint of the dual)"
    if problem.simplex and abs(float(alpha.sum()) - 1.0) > EQUALITY_SLACK:
        return f"sum of alpha is {float(alpha.sum()):.12g}, not 1 (the unit simplex)"
    expected = y_alpha if problem.bias == "sum" else 0.0 if problem.bias == "zero" \
        else bias
    if abs(bias - expected) > BIAS_SLACK * max(1.0, abs(expected)):
        rule = "sum_i a_i y_i (eq. 13)" if problem.bias == "sum" else "0 (no bias)"
        return f"its bias is {bias:.6g}; the problem defines it as {rule} = {expected:.6g}"
    return None


def judge(solver, claimed_status, reason, claimed_violation, tolerance, measured):
    """The recorded status of a returned point from the referee's ``measured``
    :class:`Measurement`: ``converged`` when the measured violation is within ``tolerance``, or
    within it plus the rounding allowance of the solver's Q-matrix when the solver claimed
    convergence (the rounding leaves that claim undecided; it never turns an admitted failure into
    convergence); otherwise why the solver stopped (``reason``, one of
    svmbench.solvers.base.STOPS; ``stalled`` for an optimality test the measurement contradicts).
    Raises :class:`RefutedError` for a non-finite or infeasible point, or when the solver claimed
    convergence (by its optimality test, or after max_iter) and the referee's violation exceeds
    ``tolerance`` plus the allowance; a published rule that is no KKT test (``own_rule``) makes no
    such claim."""
    if measured.infeasible:
        raise RefutedError(f"refuted: {solver} returned an infeasible point: "
                           f"{measured.infeasible}")
    if reason == CLOSED_FORM:
        return CLOSED_FORM
    if measured.violation <= tolerance:
        return CONVERGED
    if claimed_status == CONVERGED and measured.violation <= tolerance + measured.allowance:
        return CONVERGED  # within what the Q-matrix's rounding leaves undecided: its claim stands
    if claimed_status == CONVERGED and reason != OWN_RULE:
        claim = "its stopping test passed" if math.isnan(claimed_violation) else \
            f"its violation {claimed_violation:.3g} <= tolerance {tolerance:.3g}"
        raise RefutedError(
            f"refuted: {solver} claimed convergence ({claim}), but the referee measured a "
            f"violation of {measured.violation:.3g} > tolerance {tolerance:.3g} + rounding "
            f"allowance {measured.allowance:.2g}")
    return STALLED if reason == OPTIMAL else reason


@dataclass
class Verdict:
    """The referee's word on one fit: per class pair the status and measurements, and the time
    and kernel entries the check took."""

    statuses: list
    measurements: list
    tolerances: np.ndarray
    time_s: float
    cpu_time_s: float

    def attributes(self):
        """The estimator attributes it sets (``status_``, ``kkt_violation_``, ...)."""
        column = np.array
        return {
            "status_": list(self.statuses),
            "kkt_violation_": column([m.violation for m in self.measurements]),
            "kkt_tolerance_": column(self.tolerances, dtype=float),
            "kkt_allowance_": column([m.allowance for m in self.measurements]),
            "referee_objective_": column([m.objective for m in self.measurements]),
            "referee_gap_": column([m.gap for m in self.measurements]),
            "referee_kernel_evaluations_": int(sum(m.kernel_evaluations
                                                   for m in self.measurements)),
            "referee_time_s_": self.time_s,
            "referee_cpu_time_s_": self.cpu_time_s,
        }


# the estimator attributes a Verdict sets: those of a verdict on no class pair
VERDICT_ATTRIBUTES = tuple(Verdict([], [], np.array([]), 0.0, 0.0).attributes())


@dataclass
class Point:
    """One class pair's returned point, as the referee reads it."""

    members: np.ndarray  # training sample indices of the pair
    labels: np.ndarray  # their labels in {-1, +1}, as the solver saw them
    alpha: np.ndarray  # the point checked against the problem (indexed like members)
    coefficients: np.ndarray  # the model's expansion: f(x) = sum_j coefficients_j k(x_j, x) + bias
    bias: float
    C: float
    tolerance: float
    claimed_status: str
    reason: str
    claimed_violation: float


def certify(solver, problem, points, X, kernel, gamma, coef0, degree, unit):
    """The :class:`Verdict` on the class pairs' returned ``points`` (:class:`Point`) over
    training data X; raises :class:`RefutedError` naming every pair refuted, with the verdict on
    all pairs."""
    return certify_fits([Fit(solver, problem, points, unit)], X, kernel, gamma, coef0, degree)[0]


@dataclass
class Fit:
    """One fit's returned points as the referee reads them: the solver, the problem it declares,
    its class pairs' :class:`Point` and the rounding unit of the Q-matrix it read
    (:func:`precision_unit`); ``name`` tells it apart from the other fits certified with it (a
    grid search's point)."""

    solver: str
    problem: Problem
    points: list
    unit: float
    name: str = ""


def certify_fits(fits, X, kernel, gamma, coef0, degree, context="", symmetric=False):
    """The :class:`Verdict` of each :class:`Fit` over one training matrix X, all measured at
    once: every class pair of every fit laid end to end, the sums of each pair in its own fixed
    order (:func:`pair_sums`) and the numpy reductions per pair, so that each fit's measurements
    are the bits of the fit certified alone (a grid search certifies the 12 C values of one
    (inner fold, gamma) in one pass over their kernel matrix: svmbench.tuning). Raises
    :class:`RefutedError` for the first fit (in ``fits``' order) with a pair refuted, naming the
    fit (its ``name``, in ``context``) and every pair of it refuted, with its verdict. The time
    of the check is shared equally by the fits. ``symmetric``: a precomputed X equals its
    transpose bit for bit (:func:`precomputed_sums`)."""
    problem = fits[0].problem
    if any(fit.problem != problem for fit in fits):
        raise ValueError("certify_fits certifies fits of one problem at a time, got "
                         f"{sorted({fit.problem.name for fit in fits})}")
    wall, cpu = time.perf_counter(), time.process_time()
    points = [point for fit in fits for point in fit.points]
    sums, magnitudes, evaluations = pair_sums(X, points, kernel, gamma, coef0, degree,
                                              symmetric)
    members = np.concatenate([point.members for point in points])
    measurements = measure(
        problem, Stack.of([point.members.shape[0] for point in points]),
        np.concatenate([point.alpha for point in points]),
        np.concatenate([point.labels for point in points]),
        np.array([point.bias for point in points], dtype=float),
        sums, magnitudes,
        np.array([point.C for point in points], dtype=float),
        kernel_diagonal(X, members, kernel, gamma, coef0, degree),
        np.concatenate([np.full(len(fit.points), fit.unit) for fit in fits]),
        np.array([kernel_entry_error(X, point.members, kernel, gamma, coef0, degree)
                  for point in points]),
        evaluations)
    wall, cpu = (time.perf_counter() - wall) / len(fits), (time.process_time() - cpu) / len(fits)
    verdicts, first = [], 0
    for fit in fits:
        verdict, refutations = judged(fit, measurements[first:first + len(fit.points)], wall, cpu)
        first += len(fit.points)
        if refutations:
            pair, message = refutations[0]
            if len(fit.points) > 1:
                message += (f" [class pair {pair}; {len(refutations)} of {len(fit.points)} "
                            "class pairs refuted]")
            if len(fits) > 1 or context:
                message += (f" [{fit.name or 'fit'}{context}, certified with {len(fits) - 1} "
                            "other fits]")
            raise RefutedError(message, verdict)
        verdicts.append(verdict)
    return verdicts


def judged(fit, measurements, time_s, cpu_time_s):
    """(the :class:`Verdict` on ``fit`` from the referee's ``measurements`` of its pairs, the
    (pair, message) of each pair refuted)."""
    statuses, refutations = [], []
    for pair, (point, measured) in enumerate(zip(fit.points, measurements)):
        try:
            statuses.append(judge(fit.solver, point.claimed_status, point.reason,
                                  point.claimed_violation, point.tolerance, measured))
        except RefutedError as error:
            statuses.append("refuted")
            refutations.append((pair, str(error)))
    return Verdict(statuses, measurements, np.array([p.tolerance for p in fit.points]), time_s,
                   cpu_time_s), refutations


def same_array(a, b):
    """Whether a and b are one array: the same object, or views of the same memory with the same
    shape, strides and type (scikit-learn's validation hands an estimator a new view at every
    fit)."""
    return a is b or (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
                      and a.__array_interface__ == b.__array_interface__)


class Batch:
    """Fits over one training matrix whose certification waits for :meth:`certify`, which
    certifies them together (:func:`certify_fits`) and hands each its verdict: a grid search
    refits every C on one (inner fold, gamma)'s kernel matrix, and one pass over the matrix for
    all of them reads it once, where one per fit read it twelve times (gs2008 Table VII).
    ``symmetric``: the fits' precomputed training matrices equal their transposes bit for bit
    (certify_fits)."""

    def __init__(self, context="", symmetric=False):
        self.fits, self.then, self.matrix = [], [], None
        self.context = context  # where the fits are, for a refutation's message
        self.symmetric = symmetric

    def add(self, fit, X, kernel, gamma, coef0, degree, then):
        """Certify ``fit`` over X at the next :meth:`certify` and call ``then(verdict)``; X and
        the kernel must be those of the fits already added."""
        matrix = (X, kernel, gamma, coef0, degree)
        if self.matrix is not None and not (same_array(X, self.matrix[0])
                                            and matrix[1:] == self.matrix[1:]):
            raise ValueError("a referee Batch certifies fits over one training matrix and kernel; "
                             "certify the fits added so far before adding one over another")
        self.matrix = matrix
        self.fits.append(fit)
        self.then.append(then)

    def certify(self):
        """Certify every fit added (raises :class:`RefutedError` for the first refuted), call
        their ``then`` with their verdicts, and start empty."""
        fits, then, matrix = self.fits, self.then, self.matrix
        self.fits, self.then, self.matrix = [], [], None
        if not fits:
            return []
        verdicts = certify_fits(fits, *matrix, context=self.context, symmetric=self.symmetric)
        for callback, verdict in zip(then, verdicts):
            callback(verdict)
        return verdicts


def precision_unit(q_precision, n):
    """Relative rounding of the (Q a)_i a solver computes over n samples from Q entries stored in
    ``q_precision`` ("float32", LIBSVM's cache; "float64")."""
    summation = n * FLOAT64_UNIT
    return FLOAT32_UNIT + summation if q_precision == "float32" else summation


def scikit_learn_points(estimator, y):
    """The class pairs' :class:`Point` of a fitted scikit-learn SVC (LIBSVM) or one with its
    layout (oneDAL's): read from ``dual_coef_`` / ``intercept_`` (binary: positive for
    ``classes_[1]``; more classes: LIBSVM's one-vs-one layout, pair (i, j) positive for class i,
    class i's coefficients in row j - 1 and class j's in row i), at the estimator's C and tol.
    Its own word is only that its stopping test passed (``fit_status_`` 0)."""
    classes = estimator.classes_
    y_index = np.searchsorted(classes, np.asarray(y))
    support = np.asarray(estimator.support_)
    support_class = y_index[support]
    coefficients = estimator.dual_coef_  # a sparse matrix when fitted on sparse data
    coefficients = coefficients.toarray() if sp.issparse(coefficients) \
        else np.asarray(coefficients, dtype=np.float64)
    stopped = getattr(estimator, "fit_status_", 0) == 0
    reason, claimed = (OPTIMAL, CONVERGED) if stopped else (MAX_ITER, MAX_ITER)
    binary = classes.shape[0] == 2
    points = []
    for pair, (low, high) in enumerate(combinations(range(classes.shape[0]), 2)):
        members = np.flatnonzero((y_index == low) | (y_index == high))
        labels = np.where(y_index[members] == (high if binary else low), 1.0, -1.0)
        expansion = np.zeros(y_index.shape[0])
        for cls, row in ((low, 0 if binary else high - 1), (high, 0 if binary else low)):
            on = support_class == cls
            expansion[support[on]] = coefficients[row, np.flatnonzero(on)]
        pair_coefficients = expansion[members]
        points.append(Point(members, labels, pair_coefficients * labels, pair_coefficients,
                            float(estimator.intercept_[pair]), float(estimator.C),
                            float(estimator.tol), claimed, reason, math.nan))
    return points


def certify_scikit_learn(estimator, X, y):
    """Certify a fitted scikit-learn SVC (or oneDAL's) in place (:func:`scikit_learn_points`,
    judged as the C-SVC dual): sets the attributes our estimators have (``status_``, ``stop_``,
    ``claimed_status_``, ``kkt_violation_``, ...); raises :class:`RefutedError`."""
    points = scikit_learn_points(estimator, y)
    precomputed = estimator.kernel == "precomputed"
    X = X if precomputed else validate_points(X)
    largest = max(point.members.shape[0] for point in points)
    verdict = certify(type(estimator).__name__, PROBLEMS["csvc"], points, X, estimator.kernel,
                      getattr(estimator, "_gamma", None), estimator.coef0, estimator.degree,
                      precision_unit("float64" if precomputed else "float32", largest))
    attributes = {**verdict.attributes(), "stop_": [STOP_RECORDED[p.reason] for p in points],
                  "claimed_status_": [p.claimed_status for p in points],
                  "claimed_kkt_violation_": np.full(len(points), math.nan), "problem": "csvc"}
    for name, value in attributes.items():
        setattr(estimator, name, value)
    return estimator


def validate_points(X):
    """X as float64 rows (dense array or CSR), as the estimator was fitted on."""
    return X.tocsr().astype(np.float64) if sp.issparse(X) else np.asarray(X, dtype=np.float64)
