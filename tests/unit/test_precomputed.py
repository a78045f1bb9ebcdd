"""kernel="precomputed" and warm starts, the two pieces of the cheap grid search (svmbench.tuning):
a Gram matrix gives the same models as the kernel itself, a warm start the same optimum, and the
shared-kernel grid the same validation errors as the naive one."""

import inspect
import math
import os
import platform
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from sklearn.metrics.pairwise import pairwise_kernels, rbf_kernel

from svmbench import referee
from svmbench.algorithms import builtin_estimators
from svmbench.kernels.cross import kernel_matrix, rbf_of_distances
from svmbench.kernels.math import make_kernel_spec, make_points
from svmbench.kernels.provider import gram_blocks
from svmbench.kernels.qmatrix import (
    GramBlocks,
    make_precomputed_qmatrices,
    make_precomputed_qmatrix,
)
from svmbench.models import GSSVC, RSVC, SMOSVC, HardMarginSVC
from svmbench.protocols import kfold_indices
from svmbench.referee import RefutedError
from svmbench.solvers import get_solver
from svmbench.solvers.smo import solve_wss2_many
from svmbench.tuning import (
    finite_by_construction,
    inner_parts,
    kernel_matrices,
    naive_errors,
    parameter_grid,
    shared_blocks,
    shared_errors,
)


def problem(seed, n=60, classes=2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, size=n)
    X = rng.normal(size=(n, 3)) + y[:, None] * 1.2
    return X, y


# A given matrix is read in double precision; computed rows are cached as float32 (as LIBSVM's),
# so the SMO solvers stop at another point within tol (1e-3); GS-SVM and HM-SVM read double rows
# both ways and must agree to rounding
@pytest.mark.parametrize("make, atol", [(lambda: SMOSVC(C=2.0, gamma=0.4), 1e-2),
                                        (lambda: GSSVC(gamma=0.4), 1e-6),
                                        (lambda: HardMarginSVC(gamma=0.4), 1e-6),
                                        (lambda: RSVC(gamma=0.4), 1e-2),
                                        (lambda: SMOSVC(variant="mod2", C=2.0, gamma=0.4), 1e-2)])
@given(seed=st.integers(0, 10_000), classes=st.sampled_from([2, 3]))
@settings(max_examples=5, deadline=None)
def test_a_gram_matrix_gives_the_model_the_kernel_gives(make, atol, seed, classes):
    X, y = problem(seed, classes=classes)
    X_test = np.random.default_rng(seed + 1).normal(size=(20, 3))
    direct = make().fit(X, y)
    gram = make().set_params(kernel="precomputed").fit(rbf_kernel(X, gamma=0.4), y)
    if atol < 1e-3:
        np.testing.assert_array_equal(direct.support_, gram.support_)
    # each class pair's f(x): decision_function's votes flip where an f(x) is within atol of 0
    np.testing.assert_allclose(direct._pair_decision(X_test),
                               gram._pair_decision(rbf_kernel(X_test, X, gamma=0.4)), atol=atol)
    assert gram.kernel_computed_ == 0 and gram.kernel_requested_ > 0


@given(seed=st.integers(0, 10_000), classes=st.sampled_from([2, 3]),
       log2_C=st.integers(-4, 6))
@settings(max_examples=12, deadline=None)
def test_a_gram_matrix_predicts_the_sum_over_its_support(seed, classes, log2_C):
    """Decision values from a given matrix are sum_sv coef k + b written out, to rounding."""
    X, y = problem(seed, classes=classes)
    X_test = np.random.default_rng(seed + 1).normal(size=(20, 3))
    model = SMOSVC(C=2.0 ** log2_C, kernel="precomputed").fit(rbf_kernel(X, gamma=0.4), y)
    K_test = rbf_kernel(X_test, X, gamma=0.4)
    decision = model._pair_decision(K_test)
    written_out = np.array([[sum(float(K_test[t, s]) * float(model.dual_coef_[pair, k])
                                 for k, s in enumerate(model.support_)) + model.intercept_[pair]
                             for pair in range(model.dual_coef_.shape[0])]
                            for t in range(X_test.shape[0])])
    np.testing.assert_allclose(decision, written_out, rtol=1e-12, atol=1e-12)


def test_precomputed_needs_a_square_matrix_and_says_so():
    X, y = problem(0)
    with pytest.raises(ValueError, match="square kernel matrix"):
        SMOSVC(kernel="precomputed").fit(X, y)


@given(seed=st.integers(0, 10_000), classes=st.sampled_from([2, 3]))
@settings(max_examples=8, deadline=None)
def test_a_warm_start_along_C_reaches_the_cold_optimum(seed, classes):
    X, y = problem(seed, n=80, classes=classes)
    warm = SMOSVC(gamma=0.5, tol=1e-4, warm_start=True)
    for C in (0.5, 2.0, 8.0, 1.0):  # up, up, then down: the start is scaled into the new box
        warm.set_params(C=C).fit(X, y)
        cold = SMOSVC(gamma=0.5, tol=1e-4, C=C).fit(X, y)
        np.testing.assert_allclose(warm.objective_, cold.objective_, rtol=1e-3)
        assert all(status == "converged" for status in warm.status_)


@given(seed=st.integers(0, 10_000), classes=st.sampled_from([2, 3, 4]),
       made_by=st.sampled_from(["sklearn", "grid"]))
@settings(max_examples=8, deadline=None)
def test_a_warm_refit_on_the_same_gram_matrix_reuses_its_blocks_and_changes_nothing(seed, classes,
                                                                                   made_by):
    """Along C, an estimator refitting one matrix object (blocks kept, gathered once per pair)
    gives exactly the models of one handed a fresh copy each time (blocks gathered anew); also
    for the grid search's own matrices, which numba makes (scikit-learn's validation hands the
    estimator a new view of those at every fit)."""
    X, y = problem(seed, n=70, classes=classes)
    gram = (rbf_kernel(X, gamma=0.5) if made_by == "sklearn"
            else kernel_matrices(X, X[:5], {"kernel": "rbf"})(0.5)[0])
    kept = SMOSVC(kernel="precomputed", warm_start=True)
    copied = SMOSVC(kernel="precomputed", warm_start=True)
    for C in (0.5, 4.0, 1.0):
        kept.set_params(C=C).fit(gram, y)
        if C == 0.5:
            blocks = kept._blocks
        assert kept._blocks is blocks  # no pair's block gathered again
        copied.set_params(C=C).fit(gram.copy(), y)
        np.testing.assert_array_equal(kept.dual_coef_, copied.dual_coef_)
        np.testing.assert_array_equal(kept.intercept_, copied.intercept_)
    assert blocks.holds(gram) and len(blocks._blocks) == classes * (classes - 1) // 2
    for members, block in blocks._blocks.values():
        np.testing.assert_array_equal(block, gram[np.ix_(members, members)])
    other = gram.copy()
    kept.fit(other, y)
    assert kept._blocks is not blocks and kept._blocks.holds(other)
    assert not blocks.holds(other) and not blocks.holds(gram[1:, 1:])


def test_a_kept_provider_restored_after_a_solve_that_moved_positions_gives_the_fresh_model():
    """Along C up and down, a warm refit hands each pair the provider of its last solve, restored
    (re-folded when shrinking left positions moved, else not); the models
    equal those from fresh providers, bit for bit, for each pair and C."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 3))
    y = np.where(X[:, 0] + rng.normal(size=300) > 0, 1, 0)
    gram = rbf_kernel(X, gamma=0.5)
    # max_iter: a wrong Q-matrix shows as a failure, not as a fit that never finishes
    kept = SMOSVC(kernel="precomputed", warm_start=True, max_iter=100_000)
    fresh = SMOSVC(kernel="precomputed", warm_start=True, max_iter=100_000)
    moved = []
    for C in (1.0, 100.0, 0.5, 0.25, 100.0, 1.0):
        kept.set_params(C=C).fit(gram, y)
        providers = kept._blocks._kept[1]
        moved.append(not np.array_equal(providers[0].perm, np.arange(300)))
        fresh.set_params(C=C).fit(gram.copy(), y)
        np.testing.assert_array_equal(kept.dual_coef_, fresh.dual_coef_)
        np.testing.assert_array_equal(kept.intercept_, fresh.intercept_)
        assert kept.n_iter_.tolist() == fresh.n_iter_.tolist()
        assert kept.status_ == ["converged"]
        assert kept.kernel_requested_ == fresh.kernel_requested_
    assert len(providers) == 1 and kept._blocks._kept[1] is providers  # reused by every fit
    # the solve before a refit left positions moved (re-folded) and did not (bookkeeping only)
    assert True in moved[:-1] and False in moved[:-1], moved


def test_a_kept_block_serves_exactly_the_q_matrix_a_gathered_one_does():
    X, y = problem(5, n=50, classes=3)
    gram = rbf_kernel(X, gamma=0.5)
    cold = SMOSVC(kernel="precomputed", C=2.0).fit(gram, y)
    warm = SMOSVC(kernel="precomputed", C=2.0, warm_start=True).fit(gram, y)
    warm._y_index = warm._fitted_y = None  # no warm start, labels checked: the kept blocks alone
    warm.fit(gram, y)
    np.testing.assert_array_equal(warm.dual_coef_, cold.dual_coef_)
    np.testing.assert_array_equal(warm.intercept_, cold.intercept_)


def test_warm_start_is_refused_where_the_solver_cannot_start_from_alphas():
    X, y = problem(0)
    with pytest.raises(ValueError, match="warm_start needs variant='wss2'"):
        SMOSVC(variant="platt", warm_start=True).fit(X, y)


@pytest.mark.parametrize("algorithm, tolerance", [({"name": "gs_svm", "gamma": 1.0}, 0.0),
                                                  ({"name": "smo_wss2", "gamma": 1.0, "C": 1.0},
                                                   0.03)])
def test_the_shared_kernel_grid_gives_the_naive_grids_errors(algorithm, tolerance):
    X, y = problem(7, n=90, classes=3)
    inner = kfold_indices(y, 3, 0)
    points = parameter_grid({"gamma_log2": [-3, 1], "C_log2": [-1, 3]}, algorithm)
    shared, _ = shared_errors(algorithm, points, X, y, inner, scale=True, prune=False)
    naive, _ = naive_errors(algorithm, points, X, y, inner, scale=True)
    assert shared.shape == naive.shape == (len(points), 3)
    # the warm start stops at another point within tol: a validation sample may flip
    assert np.abs(shared.mean(axis=1) - naive.mean(axis=1)).max() <= tolerance
    assert len(list(inner_parts(X, y, inner, True))) == 3


@given(seed=st.integers(0, 10_000), sparse=st.booleans(), gamma=st.floats(0.01, 10.0),
       n_fit=st.integers(1, 41))
@settings(max_examples=15, deadline=None)
def test_the_grids_kernel_matrices_are_the_providers_kernel_values(seed, sparse, gamma, n_fit):
    """Rows of any length, odd and even (rbf_of_distances takes a row's halves side by side)."""
    rng = np.random.default_rng(seed)
    X_fit, X_check = rng.normal(size=(n_fit, 6)), rng.normal(size=(15, 6))
    if sparse:
        X_fit[X_fit < 0.3], X_check[X_check < 0.3] = 0.0, 0.0
        X_fit, X_check = csr_matrix(X_fit), csr_matrix(X_check)
    matrices = kernel_matrices(X_fit, X_check, {"name": "smo_wss2", "kernel": "rbf"})
    before = matrices(3.0 * gamma)
    K_fit, K_check = matrices(gamma)  # written over the last gamma's arrays
    assert K_fit is before[0] and K_check is before[1]
    spec = make_kernel_spec("rbf", gamma)
    fit_points = make_points(X_fit)
    own = kernel_matrix(fit_points, fit_points, spec, 6)  # the provider's arithmetic
    off_diagonal = ~np.eye(n_fit, dtype=bool)
    assert np.array_equal(K_fit[off_diagonal], own[off_diagonal])
    assert np.all(np.diag(K_fit) == 1.0)
    assert np.array_equal(K_check, kernel_matrix(make_points(X_check), fit_points, spec, 6))
    np.testing.assert_allclose(K_check, rbf_kernel(X_check, X_fit, gamma=gamma), atol=1e-13)
    K_poly, _ = kernel_matrices(X_fit, X_check, {"name": "smo_wss2", "kernel": "poly",
                                                 "coef0": 1.0, "degree": 2})(gamma)
    np.testing.assert_allclose(K_poly, pairwise_kernels(X_fit, metric="poly", gamma=gamma,
                                                        coef0=1.0, degree=2),
                               rtol=1e-12, atol=1e-12)  # (gamma <x, z> + 1)^2 cancels near 0


@given(distances=st.lists(st.one_of(st.floats(min_value=0.0), st.just(math.nan)), min_size=1,
                         max_size=9),
       gamma=st.one_of(st.floats(min_value=0.0), st.just(math.inf)))
@settings(max_examples=60, deadline=None)
def test_the_grids_rbf_matrices_are_finite_whatever_their_distances(distances, gamma):
    """What lets a grid search's RBF fits skip scikit-learn's finiteness check
    (finite_by_construction): every entry of rbf_of_distances in [0, 1] for any squared distance,
    huge, infinite or NaN, and any gamma >= 0."""
    d = np.array([distances, distances[::-1]])
    K = rbf_of_distances(d, gamma, np.empty_like(d))
    assert np.all((K >= 0.0) & (K <= 1.0))
    assert finite_by_construction({"name": "smo_wss2"}, gamma)
    assert finite_by_construction({"name": "smo_wss2", "kernel": "rbf"}, gamma)
    assert not finite_by_construction({"name": "smo_wss2", "kernel": "poly"}, gamma)
    assert not finite_by_construction({"name": "smo_wss2"}, -1.0)


@given(seed=st.integers(0, 10_000), sparse=st.booleans(),
       kernel=st.sampled_from(["rbf", "linear", "poly"]), gamma=st.floats(0.01, 10.0))
@settings(max_examples=25, deadline=None)
def test_the_grids_training_kernel_matrix_is_its_transpose_bit_for_bit(seed, sparse, kernel,
                                                                        gamma):
    """The referee reads a grid search's K_fit by rows as if by columns (Batch symmetric=True):
    every kind of kernel, dense and sparse data with zeros, negative values, a repeated and a
    zero sample."""
    rng = np.random.default_rng(seed)
    X_fit = rng.normal(size=(30, 5)) * 10.0 ** rng.integers(-3, 4, size=5)
    X_fit[rng.random(X_fit.shape) < 0.4] = 0.0
    X_fit[7], X_fit[11] = X_fit[3], 0.0
    X_fit = csr_matrix(X_fit) if sparse else X_fit
    K_fit, _ = kernel_matrices(X_fit, X_fit[:4], {"name": "smo_wss2", "kernel": kernel,
                                                  "coef0": 0.5, "degree": 3})(gamma)
    assert K_fit.tobytes() == np.ascontiguousarray(K_fit.T).tobytes()


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="OpenBLAS x86 kernels")
def test_the_grids_kernel_matrices_do_not_depend_on_the_blas_kernel():
    # OpenBLAS's SSE3 kernel rounds scikit-learn's euclidean_distances differently from the
    # machine's own (AVX2, AVX-512), which moved near-ties of a grid search to another point
    code = ("import hashlib, numpy as np; from svmbench.tuning import kernel_matrices; "
            "X = np.random.default_rng(1).normal(size=(200, 13)); "
            "K = kernel_matrices(X, X[:20], {'name': 'smo_wss2', 'kernel': 'rbf'})(0.5); "
            "print(hashlib.sha256(K[0].tobytes() + K[1].tobytes()).hexdigest())")
    digests = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True, env={**os.environ, **blas}).stdout
               for blas in ({}, {"OPENBLAS_CORETYPE": "Prescott"})}
    assert len(digests) == 1


def gram_problems(seed, count):
    """A Gram matrix, its GramBlocks and ``count`` random two-class problems over its samples."""
    X, _ = problem(seed, n=90)
    gram = rbf_kernel(X, gamma=0.5)
    rng = np.random.default_rng(seed)
    problems = []
    for _ in range(count):
        members = np.sort(rng.choice(90, size=int(rng.integers(4, 60)), replace=False))
        labels = np.where(rng.random(members.shape[0]) < 0.5, 1.0, -1.0)
        labels[:2] = 1.0, -1.0
        problems.append((members, labels))
    return gram, GramBlocks(gram), problems


@given(seed=st.integers(0, 10_000), count=st.integers(1, 5), C=st.sampled_from([0.5, 4.0, 64.0]))
@settings(max_examples=10, deadline=None)
def test_solve_many_gives_each_problems_solve_bit_for_bit(seed, count, C):
    """The compiled loop over a list of Q-matrices (one call per fit; wss2, the one many-solver)
    returns what solve returns on each problem alone: alphas, bias, iterations, status, objective
    and counts; twice over the same list (the providers restored between), the second time
    warm-started."""
    variant = "smo_wss2"
    gram, blocks, problems = gram_problems(seed, count)
    params = {"C": C, "tol": 1e-3, "max_iter": 100_000}
    starts = None
    for _ in range(2):
        providers = make_precomputed_qmatrices(blocks, problems)
        many = solve_wss2_many(providers, params, starts)
        for k, (members, labels) in enumerate(problems):
            alone = {**params}
            if starts is not None:
                alone["alpha_init"] = starts[sum(p[0].shape[0] for p in problems[:k]):][
                    :members.shape[0]]
            one = get_solver(variant)(make_precomputed_qmatrix(gram, members, labels), labels,
                                      alone)
            np.testing.assert_array_equal(many[k].alpha, one.alpha)
            one_trace = {key: value for key, value in one.trace.items() if key != "curve"}
            assert (many[k].bias, many[k].iterations, many[k].status, many[k].objective,
                    many[k].kkt_violation, many[k].kernel_requested, many[k].trace) == \
                   (one.bias, one.iterations, one.status, one.objective, one.kkt_violation,
                    one.kernel_requested, one_trace)  # solve_many records no curve
        starts = np.concatenate([result.alpha for result in many]) * 0.5  # as a grid over C


def test_solve_many_refuses_an_infeasible_start_and_a_one_class_problem():
    gram, blocks, problems = gram_problems(3, 2)
    providers = make_precomputed_qmatrices(blocks, problems)
    size = sum(members.shape[0] for members, _ in problems)
    with pytest.raises(ValueError, match="alpha_init must"):
        solve_wss2_many(providers, {"C": 1.0}, np.full(size, 2.0))
    members = problems[0][0]
    providers = make_precomputed_qmatrices(GramBlocks(gram), [(members, np.ones(members.shape))])
    with pytest.raises(ValueError, match="labels of both signs"):
        solve_wss2_many(providers, {"C": 1.0})


@given(seed=st.integers(0, 10_000), classes=st.sampled_from([2, 3]),
       gamma=st.sampled_from([0.5, 2.0, 8.0]), precomputed=st.booleans())
@settings(max_examples=10, deadline=None)
def test_where_same_model_above_C_says_so_a_larger_C_returns_the_same_model(seed, classes, gamma,
                                                                           precomputed):
    """SMOSVC.same_model_above_C: when it holds, the next fit (a larger C, same data) takes no
    step and returns the alphas bit for bit and the bias to rounding (from G computed anew); it
    never holds with an alpha at C."""
    X, y = problem(seed, n=60, classes=classes)
    data = rbf_kernel(X, gamma=gamma) if precomputed else X
    model = SMOSVC(kernel="precomputed" if precomputed else "rbf", gamma=gamma, warm_start=True)
    said, before = False, None
    for C in 2.0 ** np.arange(-1, 13, 2):
        model.set_params(C=C).fit(data, y)
        if said:
            np.testing.assert_array_equal(model.dual_coef_, before[0])
            np.testing.assert_allclose(model.intercept_, before[1], rtol=1e-12, atol=1e-14)
            assert model.n_iter_.tolist() == [0] * len(model.n_iter_)
        said = model.same_model_above_C()
        if np.any(np.abs(model.dual_coef_) >= C):
            assert not said
        before = model.dual_coef_.copy(), model.intercept_.copy()


def test_same_model_above_C_holds_for_a_warm_start_with_no_alpha_at_C():
    X, y = problem(1, n=60, classes=2)
    gram = rbf_kernel(X, gamma=8.0)
    warm = SMOSVC(kernel="precomputed", C=1e4, warm_start=True).fit(gram, y)
    assert np.abs(warm.dual_coef_).max() < 1e4 and warm.same_model_above_C()
    assert not SMOSVC(kernel="precomputed", C=1e4).fit(gram, y).same_model_above_C()  # cold
    bounded = SMOSVC(kernel="precomputed", C=1e-2, warm_start=True).fit(gram, y)
    assert np.abs(bounded.dual_coef_).max() == 1e-2 and not bounded.same_model_above_C()


@given(seed=st.integers(0, 10_000), classes=st.sampled_from([2, 3]))
@settings(max_examples=6, deadline=None)
def test_the_grid_takes_the_errors_a_larger_C_would_give_without_fitting_it(seed, classes):
    """Where SMOSVC.same_model_above_C holds, the grid fills the larger C of that gamma with its
    error and fits no more: the same table, bit for bit, as fitting every point."""
    X, y = problem(seed, n=90, classes=classes)
    inner = kfold_indices(y, 3, 0)
    algorithm = {"name": "smo_wss2", "gamma": 1.0, "C": 1.0}
    points = parameter_grid({"gamma_log2": [-1, 3], "C_log2": [-1, 9]}, algorithm)
    fits = []
    fit = SMOSVC.fit
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SMOSVC, "fit", lambda self, *a, **k: fits.append(1) or fit(self, *a, **k))
        skipping, _ = shared_errors(algorithm, points, X, y, inner, scale=True, prune=False)
        fitted_skipping = len(fits)
        patch.setattr(SMOSVC, "same_model_above_C", lambda self: False)
        every, _ = shared_errors(algorithm, points, X, y, inner, scale=True, prune=False)
    np.testing.assert_array_equal(skipping, every)
    assert len(fits) - fitted_skipping == every.size > fitted_skipping


def test_a_warm_refit_checks_new_labels_and_a_new_prediction_matrix():
    """The grid's refits skip scikit-learn's checks only for the kept Gram matrix with the same
    labels, and the prediction matrix last checked: new labels give the cold model of those
    labels, another prediction matrix is checked (wrong width refused)."""
    X, y = problem(11, n=60, classes=3)
    gram = rbf_kernel(X, gamma=0.5)
    warm = SMOSVC(kernel="precomputed", C=2.0, warm_start=True).fit(gram, y)
    queries = gram[:10]
    warm.predict(queries)
    relabelled = (y + 1) % 3
    warm.set_params(C=2.0).fit(gram, relabelled)
    cold = SMOSVC(kernel="precomputed", C=2.0).fit(gram, relabelled)
    np.testing.assert_allclose(warm.objective_, cold.objective_, rtol=1e-3)
    np.testing.assert_array_equal(warm.predict(queries), cold.predict(queries))
    with pytest.raises(ValueError, match="features"):
        warm.predict(gram[:10, :-1])
    with pytest.raises(ValueError, match="two classes"):
        warm.fit(gram, np.zeros(60))


@given(seed=st.integers(0, 10_000), classes=st.sampled_from([2, 3, 4]),
       gammas=st.lists(st.floats(0.05, 4.0), min_size=2, max_size=4))
@settings(max_examples=10, deadline=None)
def test_blocks_refilled_for_each_gamma_give_the_models_of_blocks_built_for_it(seed, classes,
                                                                                gammas):
    """The grid's path (one GramBlocks per inner fold, refilled by take at every gamma, each
    gamma's C ascending on a new warm-started estimator) gives, bit for bit, the models of the
    plain path (each gamma's estimator gathering its own blocks): alphas, biases, iterations,
    statuses and counts."""
    X, y = problem(seed, n=70, classes=classes)
    matrices = kernel_matrices(X, X[:5], {"kernel": "rbf"})
    blocks = None
    for gamma in gammas:
        gram = matrices(gamma)[0]
        shared = SMOSVC(kernel="precomputed", warm_start=True, max_iter=100_000)
        plain = SMOSVC(kernel="precomputed", warm_start=True, max_iter=100_000)
        blocks = shared_blocks(blocks, gram)
        for C in (0.5, 2.0, 16.0):
            shared.set_params(C=C).fit(gram, y, blocks=blocks)
            plain.set_params(C=C).fit(gram, y)
            assert shared._blocks is blocks and plain._blocks is not blocks
            np.testing.assert_array_equal(shared.dual_coef_, plain.dual_coef_)
            np.testing.assert_array_equal(shared.intercept_, plain.intercept_)
            assert shared.n_iter_.tolist() == plain.n_iter_.tolist()
            assert shared.status_ == plain.status_
            assert (shared.kernel_requested_, shared.kernel_requested_working_set_) == \
                   (plain.kernel_requested_, plain.kernel_requested_working_set_)


@given(seed=st.integers(0, 10_000), count=st.integers(1, 6), n=st.integers(1, 40))
@settings(max_examples=20, deadline=None)
def test_blocks_gathered_in_one_pass_are_numpys_blocks(seed, count, n):
    """gram_blocks over any member sets (unsorted, overlapping, repeated members) fills each
    block as numpy's indexing gram[m][:, m] does, whatever the blocks share, and a refill of its
    flat array fills them again."""
    rng = np.random.default_rng(seed)
    gram = rng.normal(size=(n, n))
    members_list = [rng.integers(0, n, size=int(rng.integers(1, 2 * n + 1)))
                    for _ in range(count)]
    flat, blocks = gram_blocks(gram, members_list)
    flat[:] = np.nan  # a refill writes every entry
    assert gram_blocks(gram, members_list, flat)[0] is flat
    for members, block in zip(members_list, blocks):
        assert block.flags.c_contiguous and np.shares_memory(block, flat)
        np.testing.assert_array_equal(block, gram[np.ix_(members, members)])


# the estimators the grid hands its GramBlocks (fit takes them), but wss2's (solve_many, above)
ONE_PAIR_AT_A_TIME = sorted(
    name for name, make in builtin_estimators().items()
    if name != "smo_wss2" and "blocks" in inspect.signature(make().fit).parameters)


@pytest.mark.parametrize("name", ONE_PAIR_AT_A_TIME)
@given(seed=st.integers(0, 10_000), classes=st.sampled_from([2, 3]))
@settings(max_examples=2, deadline=None)
def test_every_solver_fits_the_grids_kept_q_matrices_as_new_ones(name, seed, classes):
    """Every solver solved pair by pair takes the grid's GramBlocks (its Q-matrices kept and
    restored between fits, refilled at a new gamma) and returns, bit for bit, the model of new
    Q-matrices: alphas, biases, iterations and requested kernel entries; over two gammas and two
    C values, so that each fit after the first gets Q-matrices a fit has used."""
    X, y = problem(seed, n=50, classes=classes)
    matrices = kernel_matrices(X, X[:5], {"kernel": "rbf"})
    blocks = None
    for gamma in (0.5, 4.0):
        gram = matrices(gamma)[0]
        blocks = shared_blocks(blocks, gram)
        for C in (1.0, 8.0):
            models = [builtin_estimators()[name](kernel="precomputed") for _ in range(2)]
            if "C" in models[0].get_params():
                models = [model.set_params(C=C) for model in models]
            shared, plain = models[0].fit(gram, y, blocks=blocks), models[1].fit(gram, y)
            np.testing.assert_array_equal(shared.dual_coef_, plain.dual_coef_)
            np.testing.assert_array_equal(shared.intercept_, plain.intercept_)
            assert shared.n_iter_.tolist() == plain.n_iter_.tolist()
            assert shared.kernel_requested_ == plain.kernel_requested_


def test_blocks_of_another_matrix_are_refused_and_say_how_to_hand_it_over():
    X, y = problem(2, n=40, classes=3)
    gram = rbf_kernel(X, gamma=0.5)
    blocks = GramBlocks(gram)
    with pytest.raises(ValueError, match=r"blocks.take\(K\)"):
        SMOSVC(kernel="precomputed", warm_start=True).fit(gram.copy(), y, blocks=blocks)
    with pytest.raises(ValueError, match="shape"):
        blocks.take(gram[1:, 1:])


def test_a_grid_search_certifies_every_inner_fit_together_with_the_bits_of_each_alone(
        monkeypatch):
    """The grid search certifies every inner fit: the C values of one (inner fold, gamma)
    together, after the last (svmbench.referee.Batch), each verdict the bits of the fit certified
    alone (svmbench.referee.certify: certify_fits of the one fit)."""
    X, y = problem(3, n=90, classes=3)
    inner = kfold_indices(y, 3, 0)
    algorithm = {"name": "smo_wss2", "gamma": 1.0, "C": 1.0}
    points = parameter_grid({"gamma_log2": [-2, 1], "C_log2": [-1, 3]}, algorithm)
    batches = []

    def certify_and_compare(fits, X, kernel, gamma, coef0, degree, context="", symmetric=False):
        assert symmetric  # the grid's K_fit, read by rows (fixed_order.mirrored_gather)
        verdicts = together(fits, X, kernel, gamma, coef0, degree, context, symmetric)
        batches.append(len(fits))
        for fit, verdict in zip(fits, verdicts):
            (alone,) = together([fit], X, kernel, gamma, coef0, degree)  # referee.certify
            assert [m.__dict__ for m in verdict.measurements] == \
                [m.__dict__ for m in alone.measurements]
            assert verdict.statuses == alone.statuses
        return verdicts

    together = referee.certify_fits
    monkeypatch.setattr(referee, "certify_fits", certify_and_compare)
    errors, _ = shared_errors(algorithm, points, X, y, inner, scale=True, prune=False)
    # the C values fitted per (gamma, inner fold): 5 but those a smaller C's model stands for
    assert len(batches) == 4 * 3 and all(1 <= fits <= 5 for fits in batches)
    assert errors.shape == (len(points), 3)
    batches.clear()
    monkeypatch.setattr(SMOSVC, "same_model_above_C", lambda self: False)
    shared_errors(algorithm, points, X, y, inner, scale=True, prune=False)
    assert batches == [5] * (4 * 3)  # every C fitted: 5 C values per (gamma, inner fold)


def test_a_refuted_inner_fit_fails_the_grid_search_naming_its_grid_point(monkeypatch):
    """A claim of convergence the referee does not measure fails the search, named: the fit at
    C = 2 reports half its alphas (a feasible point off the optimum) as converged."""
    X, y = problem(4, n=90, classes=3)
    inner = kfold_indices(y, 3, 0)
    algorithm = {"name": "smo_wss2", "gamma": 1.0, "C": 1.0}
    points = parameter_grid({"gamma_log2": [0, 0], "C_log2": [0, 2]}, algorithm)
    honest = SMOSVC._checked_point
    monkeypatch.setattr(SMOSVC, "_checked_point", lambda self, result: honest(self, result) * (
        0.5 if self.C == 2.0 else 1.0))
    with pytest.raises(RefutedError, match=r"refuted: smo_wss2 claimed convergence .*"
                                           r"\[C=2\.0 of inner fold 0, gamma=1\.0, certified "
                                           r"with 2 other fits\]"):
        shared_errors(algorithm, points, X, y, inner, scale=True)
