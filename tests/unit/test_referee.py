"""The referee (svmbench.referee): the harness's own check of every point a solver returns.

A solver that lies -- claims optimality at a random feasible point, returns an infeasible point or
NaN -- is refuted for every problem kind; every built-in solver's converged fits are certified;
the referee's objective and duality gap agree with an independent interior-point QP (cvxopt) on
small problems; scikit-learn's SVC is read and certified pair by pair; a lying plug-in fails its
cell, named, and the command exits non-zero."""

import math
import os
import subprocess
import sys
import warnings
from itertools import combinations

import cvxopt
import numpy as np
import pytest
import scipy.sparse
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from svmbench import algorithms
from svmbench.kernels.fixed_order import weighted_row_sums
from svmbench.models import plugin_estimator
from svmbench.referee import (
    PROBLEMS,
    Batch,
    Fit,
    Point,
    RefutedError,
    best_bias,
    certify,
    certify_fits,
    certify_scikit_learn,
    scikit_learn_points,
)
from svmbench.solvers.base import CONVERGED, MAX_ITER, OPTIMAL, OWN_RULE, SOLVERS, finish
from svmbench.solvers.plugins import SolverPlugin
from svmbench.store import ResultStore

GAMMA = 0.5
cvxopt.solvers.options.update(show_progress=False, abstol=1e-12, reltol=1e-12, feastol=1e-12)


def random_problem(seed, n, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    y[:2] = (1.0, -1.0)  # both classes
    return X, y


def q_matrix(problem, X, y, C):
    """Q of the problem's kind from the whole kernel matrix (numpy, independently)."""
    K = rbf_kernel(X, gamma=GAMMA)
    if PROBLEMS[problem].q_kind == "l2svm":
        return np.outer(y, y) * (K + 1.0) + np.eye(len(y)) / C
    return np.outer(y, y) * K


def independent_violation(problem, X, y, alpha, bias, C):
    """The KKT violation (or relative gap) of a point, from the whole kernel matrix."""
    Q = q_matrix(problem, X, y, C)
    q_alpha = Q @ alpha
    if problem == "rho_simplex":
        value = alpha @ q_alpha
        return (value - q_alpha.min()) / value
    if problem == "meb":
        value = alpha @ q_alpha
        return 2.0 * (value - q_alpha.min()) / (np.diag(Q).max() - value)
    margin = q_alpha - 1.0 + y * bias
    box = C if PROBLEMS[problem].box else np.inf
    if problem == "stagewise":
        return float(np.maximum(-margin[alpha <= 0], 0.0).max(initial=0.0))
    return float(np.where(alpha <= 0, np.maximum(-margin, 0), np.where(
        alpha >= box, np.maximum(margin, 0), np.abs(margin))).max())


def random_feasible_point(problem, y, C, rng):
    """A random point of the problem's feasible set, with the bias its problem defines."""
    n = len(y)
    if PROBLEMS[problem].simplex:
        alpha = rng.dirichlet(np.ones(n))
    elif problem == "csvc":
        alpha = rng.uniform(0.1, 0.9, size=n) * C
        positive, negative = alpha[y > 0].sum(), alpha[y < 0].sum()
        alpha[y > 0] *= min(positive, negative) / positive  # y'a = 0 inside the box
        alpha[y < 0] *= min(positive, negative) / negative
    else:  # some samples unused (alpha 0), so that a stagewise expansion has conditions too
        alpha = rng.uniform(0.1, 0.9, size=n) * (C if PROBLEMS[problem].box else 3.0)
        alpha[rng.random(n) < 0.5] = 0.0
    bias = float(alpha @ y) if problem == "meb" else rng.normal() if problem == "csvc" else 0.0
    return alpha, bias


def liar(point):
    """A solver that returns ``point(y, params)`` -> (alpha, bias) and claims it optimal with
    violation 0 (its Q-matrix untouched)."""
    def solve(q, y, params):
        alpha, bias = point(y, params)
        return finish(q, np.asarray(alpha, dtype=float), bias, 1, OPTIMAL, 0.0, 0.0, 1e-3)
    return solve


def liar_estimator(problem, point, name="liar", C=1.0):
    """The estimator of a lying plug-in of ``problem``, as svmbench builds it for any plug-in."""
    takes_C = PROBLEMS[problem].box or PROBLEMS[problem].q_kind == "l2svm"
    plugin = SolverPlugin(solve=liar(point), params={"C": C} if takes_C else {}, problem=problem)
    return registered(name, plugin)(gamma=GAMMA)


def registered(name, plugin):
    """The estimator class of ``plugin``, its solver registered under ``name`` (replacing the
    last test's: the fixture below forgets them)."""
    SOLVERS[name] = plugin.solve
    return plugin_estimator(name, plugin)


@pytest.fixture(autouse=True)
def forget_test_solvers():
    yield
    for name in ("liar", "rule"):
        SOLVERS.pop(name, None)


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_a_point_of_nan_is_refuted_naming_the_solver(problem):
    X, y = random_problem(0, 20)
    estimator = liar_estimator(problem, lambda y, p: (np.full(len(y), np.nan), 0.0), name="liar")
    with pytest.raises(RefutedError, match=r"refuted: liar returned an infeasible point: 20 of "
                                           r"its 20 alphas are not finite"):
        estimator.fit(X, y)


DEFECTS = {
    "negative": lambda alpha, y, C: (np.r_[-0.5, alpha[1:]], "negative entries"),
    "above the box": lambda alpha, y, C: (np.r_[2.0 * C, alpha[1:]], "exceeds the box"),
    "y'a": lambda alpha, y, C: (alpha + 0.01 * (y > 0), "not 0 \\(the equality"),
    "sum": lambda alpha, y, C: (1.5 * alpha, "not 1 \\(the unit simplex"),
}


@pytest.mark.parametrize("problem, defect", [
    (problem, defect) for problem in sorted(PROBLEMS) for defect in DEFECTS
    if (defect != "above the box" or PROBLEMS[problem].box)
    and (defect != "y'a" or PROBLEMS[problem].bias == "free")
    and (defect != "sum" or PROBLEMS[problem].simplex)])
def test_an_infeasible_point_is_refuted_naming_what_is_wrong(problem, defect):
    X, y = random_problem(1, 30)
    alpha, bias = random_feasible_point(problem, y, 1.0, np.random.default_rng(1))
    broken, message = DEFECTS[defect](alpha, y, 1.0)
    if problem == "meb":
        bias = float(broken @ y)
    estimator = liar_estimator(problem, lambda y, p: (broken, bias))
    with pytest.raises(RefutedError, match="infeasible point: .*" + message):
        estimator.fit(X, y)


@pytest.mark.parametrize("problem", ["csvc_nobias", "hard_margin", "stagewise", "rho_simplex"])
def test_a_bias_a_problem_without_one_does_not_define_is_refuted(problem):
    X, y = random_problem(2, 20)
    alpha, _ = random_feasible_point(problem, y, 1.0, np.random.default_rng(2))
    estimator = liar_estimator(problem, lambda y, p: (alpha, 0.3))
    with pytest.raises(RefutedError, match=r"its bias is 0.3; the problem defines it as 0"):
        estimator.fit(X, y)


@settings(max_examples=20, deadline=None)
@given(problem=st.sampled_from(sorted(PROBLEMS)), seed=st.integers(0, 2**32 - 1),
       n=st.integers(6, 40), log2_C=st.integers(-2, 6))
def test_a_claim_of_optimality_at_a_random_feasible_point_is_refuted(problem, seed, n, log2_C):
    X, y = random_problem(seed, n)
    C = 2.0 ** log2_C
    alpha, bias = random_feasible_point(problem, y, C, np.random.default_rng(seed))
    truth = independent_violation(problem, X, y, alpha, bias, C)
    assume(truth > 1e-2)  # not optimal by chance
    estimator = liar_estimator(problem, lambda y, p: (alpha, bias), C=C)
    with pytest.raises(RefutedError, match=r"refuted: liar claimed convergence \(its violation "
                                           r"0 <= tolerance 0.001\), but the referee measured"):
        estimator.fit(X, y)


@pytest.mark.parametrize("reason, claimed_violation, status, claimed", [
    (OWN_RULE, 0.0, "own_rule", "converged"),  # a published rule that is no KKT test
    (MAX_ITER, 1.0, "max_iter", "max_iter"),  # an honest stop at max_iter
])
def test_a_solver_that_claims_no_convergence_is_judged_not_refuted(reason, claimed_violation,
                                                                   status, claimed):
    X, y = random_problem(3, 20)
    alpha, _ = random_feasible_point("rho_simplex", y, 1.0, np.random.default_rng(3))

    def solve(q, labels, params):
        return finish(q, alpha.copy(), 0.0, 5, reason, 0.0, claimed_violation, 1e-3)

    plugin = SolverPlugin(solve=solve, problem="rho_simplex")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator = registered("rule", plugin)(gamma=GAMMA).fit(X, y)
    assert estimator.status_ == [status] and estimator.claimed_status_ == [claimed]
    assert estimator.kkt_violation_[0] == pytest.approx(
        independent_violation("rho_simplex", X, y, alpha, 0.0, np.inf), rel=1e-9)


def test_a_stop_at_max_iter_that_claims_convergence_is_refuted():
    X, y = random_problem(4, 20)
    alpha, _ = random_feasible_point("rho_simplex", y, 1.0, np.random.default_rng(4))

    def solve(q, labels, params):
        return finish(q, alpha.copy(), 0.0, 5, MAX_ITER, 0.0, 0.0, 1e-3)

    estimator = registered("rule", SolverPlugin(solve=solve, problem="rho_simplex"))(gamma=GAMMA)
    with pytest.raises(RefutedError, match="refuted: rule claimed convergence"):
        estimator.fit(X, y)


BUILT_IN = ["smo_wss2", "smo_mod1", "smo_mod2", "smo_platt", "rosen", "gs_svm", "hm_svm",
            "rsvm", "rho_svm", "eg_fixed", "cvm", "fw", "mfw"]


@pytest.mark.parametrize("algorithm", BUILT_IN)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(10, 50), classes=st.sampled_from([2, 3]))
def test_every_built_in_solvers_converged_fits_are_certified(algorithm, seed, n, classes):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.arange(n) % classes
    config = {"name": algorithm, "gamma": GAMMA}
    if "C" in algorithms.build_estimator({"name": algorithm}).get_params():
        config["C"] = 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator = algorithms.build_estimator(config).fit(X, y)  # no RefutedError
    statuses, claimed = np.array(estimator.status_), np.array(estimator.claimed_status_)
    converged = statuses == "converged"
    sampled = algorithm in ("cvm", "fw", "mfw")  # their stop is tested on a sample of points
    # where a solver's own KKT test holds, the referee's does, and their violations agree
    assert sampled or np.all(converged[claimed == "converged"])
    assert np.all(estimator.kkt_violation_[converged] <= (estimator.kkt_tolerance_
                                                          + estimator.kkt_allowance_)[converged])
    agree = np.abs(estimator.kkt_violation_ - estimator.claimed_kkt_violation_)
    assert sampled or np.all(agree <= 1e-6 + 2.0 * estimator.kkt_allowance_)


def dual_objective(problem, Q, alpha):
    """The problem's objective (minimisation form) at alpha."""
    return alpha @ Q @ alpha if PROBLEMS[problem].simplex else 0.5 * alpha @ Q @ alpha - alpha.sum()


@pytest.mark.parametrize("problem", ["csvc", "csvc_nobias", "hard_margin", "meb", "rho_simplex"])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(6, 30), log2_C=st.integers(-2, 5))
def test_the_duality_gap_bounds_the_distance_to_an_independent_qp_optimum(problem, seed, n,
                                                                        log2_C):
    """cvxopt's interior point gives the optimum F*; at any feasible point the referee's
    objective is the problem's and its gap is >= F(a) - F* >= 0; at cvxopt's own solution the
    gap is close to 0."""
    X, y = random_problem(seed, n)
    C = 2.0 ** log2_C if PROBLEMS[problem].box or problem == "meb" else np.inf
    optimum, optimum_alpha = qp_optimum(problem, X, y, C)
    assume(np.isfinite(optimum))
    Q = q_matrix(problem, X, y, C)
    rng = np.random.default_rng(seed)
    alpha, _ = random_feasible_point(problem, y, C if np.isfinite(C) else 1.0, rng)
    scale = max(1.0, abs(optimum))
    for point in (alpha, optimum_alpha):
        sums = rbf_kernel(X, gamma=GAMMA) @ (point * y)
        bias = best_bias(y, sums) if problem == "csvc" else float(point @ y) \
            if problem == "meb" else 0.0
        estimator = liar_estimator(problem, lambda y, p, point=point, bias=bias: (point, bias),
                                   C=C if np.isfinite(C) else 1.0)
        try:
            estimator.fit(X, y)
        except RefutedError as error:
            measured = error.verdict.measurements[0]
            gap, objective = measured.gap, measured.objective
        else:
            gap, objective = estimator.referee_gap_[0], estimator.referee_objective_[0]
        assert objective == pytest.approx(dual_objective(problem, Q, point), rel=1e-9, abs=1e-12)
        assert objective - optimum >= -1e-7 * scale
        assert gap >= objective - optimum - 1e-7 * scale
    assert gap <= 1e-5 * scale  # at the QP's optimum


def qp_optimum(problem, X, y, C):
    """(F*, a*) of the problem by cvxopt's interior point (min 1/2 x'Px + q'x)."""
    n = len(y)
    Q = q_matrix(problem, X, y, C)
    simplex = PROBLEMS[problem].simplex
    P, q = (2.0 * Q, np.zeros(n)) if simplex else (Q, -np.ones(n))
    G, h = [-np.eye(n)], [np.zeros(n)]
    if PROBLEMS[problem].box:
        G.append(np.eye(n))
        h.append(np.full(n, C))
    equality = y if problem == "csvc" else np.ones(n) if simplex else None
    A, b = (None, None) if equality is None else \
        (cvxopt.matrix(equality.reshape(1, -1)), cvxopt.matrix(0.0 if problem == "csvc" else 1.0))
    solution = cvxopt.solvers.qp(cvxopt.matrix(P + 1e-12 * np.eye(n)), cvxopt.matrix(q),
                                 cvxopt.matrix(np.vstack(G)), cvxopt.matrix(np.concatenate(h)),
                                 A, b)
    if solution["status"] != "optimal":
        return math.inf, None
    alpha = np.maximum(np.array(solution["x"]).ravel(), 0.0)
    if PROBLEMS[problem].box:
        alpha = np.minimum(alpha, C)
    if simplex:
        alpha /= alpha.sum()
    if problem == "csvc":  # y'a = 0 to rounding after the clipping
        positive, negative = alpha[y > 0].sum(), alpha[y < 0].sum()
        alpha[y > 0] *= min(positive, negative) / positive
        alpha[y < 0] *= min(positive, negative) / negative
    return dual_objective(problem, Q, alpha), alpha


@pytest.mark.parametrize("classes, sparse", [(2, False), (3, False), (4, False), (2, True),
                                             (3, True)])
def test_scikit_learns_svc_is_read_pair_by_pair_and_certified(classes, sparse):
    rng = np.random.default_rng(classes)
    X = rng.normal(size=(90, 3)) * (rng.random((90, 3)) < 0.5)
    y = np.arange(90) % classes
    svc = SVC(C=2.0, gamma=GAMMA, decision_function_shape="ovo").fit(
        scipy.sparse.csr_matrix(X) if sparse else X, y)
    decision = svc.decision_function(X).reshape(90, -1)
    K = rbf_kernel(X, gamma=GAMMA)
    for pair, point in enumerate(scikit_learn_points(svc, y)):
        # the pair's expansion and bias reproduce LIBSVM's decision values on its samples
        assert K[point.members][:, point.members] @ point.coefficients + point.bias == \
            pytest.approx(decision[point.members, pair], abs=1e-9)
        assert np.all(point.alpha >= 0) and np.all(point.alpha <= 2.0)
    certify_scikit_learn(svc, scipy.sparse.csr_matrix(X) if sparse else X, y)
    assert svc.status_ == ["converged"] * (classes * (classes - 1) // 2)
    assert np.all(svc.kkt_violation_ <= 1e-3 + svc.kkt_allowance_)


def test_a_plug_in_returning_nan_fails_its_cell_named_and_the_command_exits_1(tmp_path):
    module = tmp_path / "nan_solver.py"
    module.write_text(
        "import numpy as np\n"
        "from svmbench.solvers.base import OPTIMAL, finish\n"
        "from svmbench.solvers.plugins import SolverPlugin\n"
        "def solve(q, y, params):\n"
        "    return finish(q, np.full(len(y), np.nan), 0.0, 1, OPTIMAL, 0.0, 0.0, 1e-3)\n"
        "PLUGIN = SolverPlugin(solve=solve, params={'C': 1.0, 'tol': 1e-3})\n")
    result = subprocess.run(
        [sys.executable, "-m", "svmbench.runner", "-m", "dataset=iris", "algorithm=target",
         "algorithm._target_=nan_solver.PLUGIN", "algorithm.name=nan_solver", "algorithm.C=4",
         "protocol.k=3", f"store.dir={tmp_path / 'store'}",
         f"hydra.sweep.dir={tmp_path / 'multirun'}"],
        check=False, capture_output=True, text=True, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)})
    output = result.stdout + result.stderr
    assert result.returncode == 1, output[-2000:]
    assert "1 cell(s) failed" in output
    assert "refuted: nan_solver returned an infeasible point: 66 of its 66 alphas are not " \
        "finite (NaN or inf) [class pair 0; 3 of 3 class pairs refuted]" in output
    records = list(ResultStore(tmp_path / "store").records())
    assert len(records) == 3 and all(r["kkt_violation"] is None for r in records)
    assert all(r["status"].startswith("failed:refuted: nan_solver returned an infeasible point")
               for r in records)


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
@pytest.mark.parametrize("kernel", ["rbf", "precomputed"])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sizes=st.lists(st.integers(2, 25), min_size=1, max_size=6),
       log2_C=st.integers(-2, 5))
def test_every_class_pair_of_a_fit_is_measured_as_alone_and_as_from_the_whole_kernel_matrix(
        problem, kernel, seed, sizes, log2_C):
    """The referee measures all class pairs of a fit at once (one numpy call per quantity over the
    pairs laid end to end): each pair's violation and objective are those of the pair certified
    alone and those computed from its own whole kernel matrix (numpy, independently), and an
    infeasible pair (every third, its bias or a bound broken) is named as it is alone."""
    rng = np.random.default_rng(seed)
    X, _ = random_problem(seed, sum(sizes))
    C = 2.0 ** log2_C
    data = rbf_kernel(X, gamma=GAMMA) if kernel == "precomputed" else X
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    points = []
    for pair, (start, size) in enumerate(zip(starts, sizes)):
        members = rng.permutation(np.arange(start, start + size))
        labels = np.where(np.arange(size) % 2 == 0, 1.0, -1.0)
        alpha, bias = random_feasible_point(problem, labels, C, rng)
        if pair % 3 == 2:
            bias += 1.0 if PROBLEMS[problem].bias != "free" else 0.0
            alpha[0] = -1.0 if PROBLEMS[problem].bias == "free" else alpha[0]
        box = C if PROBLEMS[problem].box or PROBLEMS[problem].q_kind == "l2svm" else np.inf
        points.append(Point(members, labels, alpha, alpha * labels, bias, box, 1e-3, OPTIMAL,
                            OPTIMAL, 0.0))

    def measured(chosen):
        try:
            return certify("liar", PROBLEMS[problem], chosen, data, kernel, GAMMA, 0.0, 3,
                           1e-12).measurements
        except RefutedError as error:
            return error.verdict.measurements

    together = measured(points)
    for pair, (point, whole) in enumerate(zip(points, together)):
        (alone,) = measured([point])
        assert whole.infeasible == alone.infeasible
        assert (whole.infeasible is None) == (pair % 3 != 2)
        for name in ("objective", "violation", "gap", "allowance"):
            assert getattr(whole, name) == pytest.approx(getattr(alone, name), rel=1e-9,
                                                         abs=1e-12, nan_ok=True)
        X_pair = X[point.members]
        Q = q_matrix(problem, X_pair, point.labels, C)
        assert whole.violation == pytest.approx(independent_violation(
            problem, X_pair, point.labels, point.alpha,
            point.bias if PROBLEMS[problem].bias == "free" else 0.0, C), rel=1e-7, abs=1e-9)
        assert whole.objective == pytest.approx(dual_objective(problem, Q, point.alpha),
                                                rel=1e-9, abs=1e-12)


def one_vs_one_points(classes, C, rng):
    """Every class pair's random feasible C-SVC point over samples of ``classes`` labels (pairs
    overlap as LIBSVM's one-vs-one pairs do), some coefficients 0, with a random bias."""
    points = []
    for low, high in combinations(range(classes.max() + 1), 2):
        members = np.flatnonzero((classes == low) | (classes == high))
        labels = np.where(classes[members] == low, 1.0, -1.0)
        alpha, bias = random_feasible_point("csvc", labels, C, rng)
        alpha[rng.random(alpha.shape[0]) < 0.3] = 0.0
        positive, negative = alpha[labels > 0].sum(), alpha[labels < 0].sum()
        if min(positive, negative) == 0.0:
            alpha[:] = 0.0
        else:  # y'a = 0 again, inside the box
            alpha[labels > 0] *= min(positive, negative) / positive
            alpha[labels < 0] *= min(positive, negative) / negative
        points.append(Point(members, labels, alpha, alpha * labels, bias, C, 1e-3, OPTIMAL,
                            OPTIMAL, 0.0))
    return points


def measured_bits(points, data, kernel):
    """The referee's measurements of ``points`` as bytes (objective, violation, gap, allowance)."""
    try:
        verdict = certify("liar", PROBLEMS["csvc"], points, data, kernel, GAMMA, 0.0, 3, 1e-12)
    except RefutedError as error:
        verdict = error.verdict
    return np.array([(m.objective, m.violation, m.gap, m.allowance)
                     for m in verdict.measurements]).tobytes()


def at_offset(array, offset):
    """A copy of ``array`` starting ``offset`` float64s past the start of a fresh buffer."""
    buffer = np.empty(array.size + offset)
    copy = buffer[offset:].reshape(array.shape)
    copy[...] = array
    return copy


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_referees_measurements_are_the_same_bits_at_any_alignment_and_blas_thread_count(seed):
    """A record is the same for the same config and seed: the referee's sums (one-vs-one pairs of
    5 classes over a 700-sample kernel matrix, a grid search's size) do not depend on the
    arrays' memory alignment or on the BLAS's thread count, where a BLAS product's last bits
    do (OpenBLAS 0.3.31 Haswell, 1 against 2 threads: gemv and gemm of a 700 x 700 matrix
    differ; of 600 x 600 and 1000 x 1000, not)."""
    rng = np.random.default_rng(seed)
    X, _ = random_problem(seed, 700, d=10)
    classes = rng.permutation(np.arange(700) % 5)
    points = one_vs_one_points(classes, 4.0, rng)
    gram, weights = rbf_kernel(X, gamma=GAMMA), rng.normal(size=700)
    seen, row_sums = set(), set()
    for threads in (1, 2):
        with threadpool_limits(threads):
            for offset in (0, 1, 2, 3):
                seen.add(measured_bits(points, at_offset(gram, offset), "precomputed"))
                sums, magnitudes = np.zeros(700), np.zeros(700)
                weighted_row_sums(at_offset(gram, offset), at_offset(weights, offset), sums,
                                  magnitudes)
                row_sums.add(sums.tobytes() + magnitudes.tobytes())
    assert len(seen) == 1 and len(row_sums) == 1


@pytest.mark.parametrize("kernel", ["rbf", "precomputed"])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_classes=st.integers(3, 6), n=st.integers(12, 90),
       log2_C=st.integers(-2, 5))
def test_every_one_vs_one_pair_is_measured_as_alone_and_as_an_independent_per_pair_referee(
        kernel, seed, n_classes, n, log2_C):
    """On fresh random multi-class problems (one-vs-one pairs, overlapping), the referee's
    measurement of each pair among all pairs is bit for bit the pair certified alone (the sums of
    each pair in a fixed order, whatever else is certified with it), and agrees with a per-pair
    referee computed independently in numpy from the pair's own kernel matrix: objective to
    1e-9 relative, KKT violation 1e-7, duality gap (its best bias by brute force over the kinks)
    1e-9 of the primal's scale."""
    rng = np.random.default_rng(seed)
    X, _ = random_problem(seed, n)
    classes = np.arange(n) % n_classes
    C = 2.0 ** log2_C
    points = one_vs_one_points(rng.permutation(classes), C, rng)
    data = rbf_kernel(X, gamma=GAMMA) if kernel == "precomputed" else X
    together = certify("liar", PROBLEMS["csvc"], points, data, kernel, GAMMA, 0.0, 3,
                       1e-12).measurements
    for point, whole in zip(points, together):
        assert measured_bits([point], data, kernel) == np.array(
            [(whole.objective, whole.violation, whole.gap, whole.allowance)]).tobytes()
        y, alpha = point.labels, point.alpha
        Q = q_matrix("csvc", X[point.members], y, C)
        sums = y * (Q @ alpha)
        objective = dual_objective("csvc", Q, alpha)
        assert whole.objective == pytest.approx(objective, rel=1e-9, abs=1e-12)
        assert whole.violation == pytest.approx(independent_violation(
            "csvc", X[point.members], y, alpha, point.bias, C), rel=1e-7, abs=1e-9)
        kinks = np.where(y > 0, 1.0 - sums, -1.0 - sums)
        primal = min(np.maximum(1.0 - y * (sums + b), 0.0).sum() for b in kinks)
        gap = 0.5 * alpha @ Q @ alpha + C * primal + objective
        assert whole.gap == pytest.approx(gap, abs=1e-9 * (1.0 + C * n + abs(objective)))


def batch_of_fits(seed, n_classes, n, log2_Cs, lying=()):
    """(X, classes, fits): one fit per C of ``log2_Cs`` over the one-vs-one pairs of a random
    problem, each pair's point random and feasible, claimed stopped at max_iter (judged, not
    refuted) or, for the fits in ``lying``, claimed optimal (refuted: a random point is no
    optimum). Every fit's pair holds the first fit's members array, as an estimator's fits on one
    matrix do (the referee sums such points over one copy of the entries they read)."""
    rng = np.random.default_rng(seed)
    X, _ = random_problem(seed, n)
    classes = rng.permutation(np.arange(n) % n_classes)
    fits = []
    for index, log2_C in enumerate(log2_Cs):
        claim, reason = (CONVERGED, OPTIMAL) if index in lying else (MAX_ITER, MAX_ITER)
        points = [Point(fits[0].points[pair].members if fits else p.members, p.labels, p.alpha,
                        p.coefficients, p.bias, p.C, p.tolerance, claim, reason, math.nan)
                  for pair, p in enumerate(one_vs_one_points(classes, 2.0 ** log2_C, rng))]
        fits.append(Fit("liar", PROBLEMS["csvc"], points, 1e-12, f"C={2.0 ** log2_C!r}"))
    return X, fits


def verdict_bits(verdict):
    return (np.array([(m.objective, m.violation, m.gap, m.allowance)
                      for m in verdict.measurements]).tobytes(), tuple(verdict.statuses))


@pytest.mark.parametrize("kernel", ["rbf", "precomputed"])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_classes=st.integers(2, 5), n=st.integers(12, 80),
       log2_Cs=st.lists(st.integers(-2, 6), min_size=1, max_size=6))
def test_fits_certified_together_are_each_the_fit_certified_alone_and_an_independent_referee(
        kernel, seed, n_classes, n, log2_Cs):
    """A grid search certifies the C values of one (inner fold, gamma) in one pass
    (svmbench.referee.certify_fits): each fit's verdict is bit for bit its verdict certified
    alone (certify, one fit at a time), whatever is certified with it, and each pair's violation
    and objective are those of an independent numpy referee on the pair's own kernel matrix."""
    X, fits = batch_of_fits(seed, n_classes, n, log2_Cs)
    data = rbf_kernel(X, gamma=GAMMA) if kernel == "precomputed" else X
    together = certify_fits(fits, data, kernel, GAMMA, 0.0, 3)
    assert len(together) == len(fits)
    for fit, verdict in zip(fits, together):
        alone = certify(fit.solver, fit.problem, fit.points, data, kernel, GAMMA, 0.0, 3, fit.unit)
        assert verdict_bits(verdict) == verdict_bits(alone)
        assert set(verdict.statuses) <= {"converged", MAX_ITER}
        for point, measured in zip(fit.points, verdict.measurements):
            Q = q_matrix("csvc", X[point.members], point.labels, point.C)
            assert measured.objective == pytest.approx(dual_objective("csvc", Q, point.alpha),
                                                       rel=1e-9, abs=1e-12)
            assert measured.violation == pytest.approx(independent_violation(
                "csvc", X[point.members], point.labels, point.alpha, point.bias, point.C),
                rel=1e-7, abs=1e-9)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_fits=st.integers(2, 6), data=st.data())
def test_the_first_refuted_fit_of_a_batch_fails_it_named_with_its_verdict_alone(seed, n_fits,
                                                                                data):
    """A lie among fits certified together is refuted as it is alone: the batch raises
    RefutedError naming the first lying fit (its C and where it was: the batch's context), with
    that fit's verdict, the bits of the fit certified alone; the fits after it do not hide it."""
    lying = data.draw(st.sets(st.integers(0, n_fits - 1), min_size=1))
    X, fits = batch_of_fits(seed, 3, 30, list(range(n_fits)), lying)
    gram = rbf_kernel(X, gamma=GAMMA)
    batch = Batch(" of inner fold 2, gamma=0.5")
    told = []
    for fit in fits:
        batch.add(fit, gram, "precomputed", None, 0.0, 3, told.append)
    with pytest.raises(RefutedError) as refuted:
        batch.certify()
    first = fits[min(lying)]
    with pytest.raises(RefutedError) as alone:
        certify(first.solver, first.problem, first.points, gram, "precomputed", None, 0.0, 3,
                first.unit)
    message = str(refuted.value)
    assert message.startswith(str(alone.value))
    assert f"[{first.name} of inner fold 2, gamma=0.5, certified with {n_fits - 1}" in message
    assert verdict_bits(refuted.value.verdict) == verdict_bits(alone.value.verdict)
    assert told == [] and batch.fits == []


def test_a_batch_refuses_a_fit_over_another_matrix():
    X, fits = batch_of_fits(0, 3, 30, [0, 1])
    batch = Batch()
    batch.add(fits[0], rbf_kernel(X, gamma=GAMMA), "precomputed", None, 0.0, 3, print)
    with pytest.raises(ValueError, match="one training matrix"):
        batch.add(fits[1], rbf_kernel(X, gamma=GAMMA), "precomputed", None, 0.0, 3, print)
