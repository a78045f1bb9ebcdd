"""Rosen's gradient projection (rosen-projection-svm §3): feasibility and descent of every step,
the multipliers of eq. (4) against a least-squares KKT solve, the optimum against smo_wss2 and
scikit-learn's SVC, the path of main's unfused code (c35b1c9a, issue 42: a step's passes fused,
the same iterations, counts and bits), and the IDA realizations the tables run on."""

import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

from svmbench.algorithms import build_estimator
from svmbench.data import DataError, available_realizations, load_dataset
from svmbench.kernels.provider import counts, kernel_row, make_provider
from svmbench.kernels.qmatrix import make_qmatrix
from svmbench.models import SMOSVC, RosenSVC
from svmbench.solvers import get_solver
from svmbench.solvers.rosen import (
    SCAN_CHUNK,
    direction,
    first_multiplier_at,
    least_multiplier,
    move,
    multiplier,
    q_times_direction,
    step_and_scan,
)
from svmbench.solvers.smo_step import max_violation, outcome


def random_problem(seed, n):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=n) > 0, 1.0, -1.0)
    y[:2] = (1.0, -1.0)  # both classes
    return X, y


def dual_objective(X, y, alpha, gamma):
    Q = np.outer(y, y) * rbf_kernel(X, gamma=gamma)
    return 0.5 * alpha @ Q @ alpha - alpha.sum()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(4, 40), C=st.floats(0.05, 20.0),
       gamma=st.floats(0.05, 5.0), tol=st.sampled_from([1e-3, 1e-6]))
def test_every_step_is_feasible_and_descends(seed, n, C, gamma, tol):
    """After every step 0 <= a <= C and y'a = 0 and the objective does not grow; until the KKT
    violation is <= 2 tol the direction is feasible and G'd = -||d||^2 < 0 (§2: d = -P grad f
    with P^2 = P). The first 300 steps (convergence: the optimum test below)."""
    X, y = random_problem(seed, n)
    q = make_qmatrix(X, y, "csvc", kernel="rbf", gamma=gamma, cache_mb=0)
    alpha, gradient = np.zeros(n), -np.ones(n)
    support, d, qd = np.empty(n, dtype=np.int64), np.zeros(n), np.zeros(n)
    offsets, weights = np.empty(n, dtype=np.int64), np.empty(n)
    objective = 0.0
    scanned = step_and_scan(y, alpha, gradient, 0.0, qd, C, support, np.empty(SCAN_CHUNK))
    for _ in range(300):
        assert scanned[3] == max_violation(alpha, gradient, y, C, n)
        if scanned[3] <= 2.0 * tol:
            break
        count = direction(y, alpha, gradient, C, tol, support, d, scanned)
        assert count > 0
        slope, norm2 = gradient @ d, d @ d
        assert slope < 0.0
        assert slope == pytest.approx(-norm2, rel=1e-9)
        assert abs(y @ d) <= 1e-12 * (1.0 + np.abs(d).sum())
        assert np.all(d[alpha <= 0.0] >= 0.0) and np.all(d[alpha >= C] <= 0.0)
        q_times_direction(q, support, count, d, qd, offsets, weights)
        lam = move(alpha, gradient, C, support, count, d, qd)
        assert np.isfinite(lam) and not d.any()
        scanned = step_and_scan(y, alpha, gradient, lam, qd, C, support, np.empty(SCAN_CHUNK))
        assert not qd.any()
        assert np.all(alpha >= 0.0) and np.all(alpha <= C)
        assert abs(y @ alpha) <= 1e-10 * C * n
        now = dual_objective(X, y, alpha, gamma)
        assert now <= objective + 1e-9 * (1.0 + abs(objective))
        objective = now


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 12))
def test_multipliers_of_eq4_solve_the_kkt_system_in_least_squares(seed, n):
    """Eq. (4) is beta = -(M M')^-1 M grad f: the least-squares solution of M' beta = -grad f
    over the binding constraints (rows -e_i for a_i = 0, e_i for a_i = C) and y."""
    rng = np.random.default_rng(seed)
    C = 2.0
    y = rng.choice([-1.0, 1.0], size=n)
    alpha = rng.choice([0.0, C, 0.7], size=n)
    alpha[0] = 1.3  # at least one free sample: N >= 1
    gradient = rng.normal(size=n)
    at_zero, at_c = np.flatnonzero(alpha == 0.0), np.flatnonzero(alpha == C)
    M = np.vstack([-np.eye(n)[at_zero], np.eye(n)[at_c], y[None, :]])
    beta = np.linalg.lstsq(M.T, -gradient, rcond=None)[0]
    mean = step_and_scan(y, alpha, gradient.copy(), 0.0, np.zeros(n), C,
                         np.empty(n, dtype=np.int64), np.empty(SCAN_CHUNK))[1]
    u = np.array([multiplier(y[i], alpha[i], gradient[i], C, mean) for i in range(n)])
    np.testing.assert_allclose(u[at_zero], beta[: at_zero.size], atol=1e-10)
    np.testing.assert_allclose(u[at_c], beta[at_zero.size: at_zero.size + at_c.size], atol=1e-10)


def scan_one_sample_at_a_time(y, alpha, gradient, lam, qd, C):
    """step_and_scan's answers as the loop before issue 42's chunks made them, one sample after
    the other (a comparison with a NaN false, a sum in position order): the reference."""
    total, free_set = 0.0, []
    b_up, b_low, i_up, i_low = np.inf, -np.inf, -1, -1
    up_bound, low_bound, low, high = np.inf, -np.inf, np.inf, -np.inf
    for i in range(alpha.shape[0]):
        gradient[i] = gradient[i] + lam * qd[i]
        qd[i] = 0.0
        f = y[i] * gradient[i]
        free = 0.0 < alpha[i] < C
        up = alpha[i] < C if y[i] > 0 else alpha[i] > 0.0
        low_set = alpha[i] > 0.0 if y[i] > 0 else alpha[i] < C
        if up and f < b_up:
            b_up, i_up = f, i
        if low_set and f > b_low:
            b_low, i_low = f, i
        if up and not free and f < up_bound:
            up_bound = f
        if low_set and not free and f > low_bound:
            low_bound = f
        if free:
            free_set.append(i)
            total += f
            low, high = min(low, f), max(high, f)  # a NaN f is never taken
    count = len(free_set)
    mean, spread = (total / count, high - low) if count else (0.0, 0.0)
    return (count, mean, spread, b_low - b_up, i_up, i_low, up_bound, low_bound), free_set


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 1_600), levels=st.integers(1, 6),
       nan_share=st.sampled_from([0.0, 0.0, 0.01]), lam=st.sampled_from([0.0, 0.3]))
def test_the_scan_in_chunks_answers_as_one_sample_at_a_time(seed, n, levels, nan_share, lam):
    """step_and_scan (SCAN_CHUNK samples at a time, extremes as integer keys, J by 64-bit words)
    against the loop over one sample after the other: the same gradient, J in order and answers
    (a zero's sign aside), over several chunks and a partial one, ties made common (few distinct
    F, zeros of both signs) and NaN F (no set's extreme, as a comparison skips them)."""
    rng = np.random.default_rng(seed)
    C = 2.0
    y = rng.choice([-1.0, 1.0], size=n)
    alpha = rng.choice([0.0, C, 0.7, 1.3], size=n, p=[0.5, 0.2, 0.15, 0.15])
    gradient = rng.choice(np.append(rng.normal(size=levels), [0.0, -0.0]), size=n)
    gradient[rng.random(n) < nan_share] = np.nan
    qd = rng.choice([0.0, 1.0, -0.5], size=n) if lam else np.zeros(n)
    support = np.full(n, -1, dtype=np.int64)
    chunked_gradient, chunked_qd = gradient.copy(), qd.copy()
    answers = step_and_scan(y, alpha, chunked_gradient, lam, chunked_qd, C, support,
                            np.empty(SCAN_CHUNK))
    expected, free_set = scan_one_sample_at_a_time(y, alpha, gradient, lam, qd, C)
    np.testing.assert_array_equal(np.array(answers, dtype=float), np.array(expected))
    np.testing.assert_array_equal(chunked_gradient, gradient)
    assert not chunked_qd.any()
    assert support[:answers[0]].tolist() == free_set


@njit
def least_and_its_sample(y, alpha, gradient, C, mean, up_bound, low_bound):
    """least_multiplier and first_multiplier_at (compiled callees: no entry from Python)."""
    u = least_multiplier(mean, up_bound, low_bound)
    return u, first_multiplier_at(y, alpha, gradient, C, mean, u)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 30), levels=st.integers(1, 4))
def test_the_least_multiplier_and_its_sample_are_those_of_a_pass_over_every_multiplier(
        seed, n, levels):
    """least_multiplier (from the scan's extremes of F over the bound samples) is the least of
    eq. (4)'s multipliers to the bit, and first_multiplier_at names the sample a pass over them
    all keeps (the first position of the least, ties made common: few distinct values of G)."""
    rng = np.random.default_rng(seed)
    C = 2.0
    y = rng.choice([-1.0, 1.0], size=n)
    alpha = rng.choice([0.0, C, 0.7], size=n)
    alpha[0] = 1.3  # at least one free sample: N >= 1
    gradient = rng.choice(rng.normal(size=levels), size=n) * rng.choice([1.0, 1e-17], size=n)
    scanned = step_and_scan(y, alpha, gradient.copy(), 0.0, np.zeros(n), C,
                            np.empty(n, dtype=np.int64), np.empty(SCAN_CHUNK))
    mean = scanned[1]
    best, chosen = 0.0, -1  # the pass the paper's test makes
    for i in range(n):
        u = multiplier(y[i], alpha[i], gradient[i], C, mean)
        if u < best:
            best, chosen = u, i
    least, sample = least_and_its_sample(y, alpha, gradient, C, mean, scanned[6], scanned[7])
    bound = (alpha <= 0.0) | (alpha >= C)
    assert least == (min(multiplier(y[i], alpha[i], gradient[i], C, mean)
                         for i in np.flatnonzero(bound)) if bound.any() else np.inf)
    if chosen >= 0:
        assert least == best
        assert sample == chosen
    else:
        assert least >= 0.0


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.integers(0, 45),
       cached_rows=st.sampled_from([0, 2, 15, 100]))
def test_q_times_direction_adds_rows_as_one_row_at_a_time(seed, count, cached_rows):
    """Q d from cached rows added eight at a time, computed rows alone, equals to the bit Q d
    from the same rows requested and added one at a time in support order, with the same
    counts, whether the cache is off, holds two rows, some of the support or all of it; twice,
    the second time in reverse order, so that rows held are followed by rows computed (which
    evict rows)."""
    cache_mb = cached_rows * 50 * 4 / 2**20
    n = 50
    X, y = random_problem(seed, n)
    rng = np.random.default_rng(seed)
    forward = rng.permutation(n)[:count].astype(np.int64)
    d = rng.normal(size=n)
    grouped = make_qmatrix(X, y, "csvc", kernel="rbf", gamma=0.7, cache_mb=cache_mb)
    single = make_qmatrix(X, y, "csvc", kernel="rbf", gamma=0.7, cache_mb=cache_mb)
    offsets, weights = np.empty(n, dtype=np.int64), np.empty(n)
    for support in (forward, forward[::-1].copy()):
        out = np.zeros(n)
        q_times_direction(grouped, support, count, d, out, offsets, weights)
        expected = np.zeros(n)
        for j in support:
            expected += d[j] * np.asarray(kernel_row(single, j, n)[:n], dtype=np.float64)
        np.testing.assert_array_equal(out, expected)
        assert counts(grouped) == counts(single)
        for lru in ("lru_prev", "lru_next", "state", "length", "offset"):  # the same LRU order
            np.testing.assert_array_equal(getattr(grouped.cache, lru), getattr(single.cache, lru))
    Q = np.outer(y, y) * rbf_kernel(X, gamma=0.7)
    np.testing.assert_allclose(out, Q[:, support] @ d[support], rtol=1e-5, atol=1e-5)


def wdbc():
    X, y = load_breast_cancer(return_X_y=True)
    return MinMaxScaler((-1, 1)).fit_transform(X), np.where(y == 1, 1.0, -1.0)


def noisy():
    X, y = make_classification(n_samples=200, n_features=6, flip_y=0.15, random_state=7)
    return MinMaxScaler((-1, 1)).fit_transform(X), np.where(y == 1, 1.0, -1.0)


@pytest.mark.parametrize("data, C, gamma", [(wdbc, 10.0, 0.1), (noisy, 1.0, 0.5)])
def test_optimum_at_1e6_agrees_with_smo_wss2_and_scikit_learn(data, C, gamma):
    X, y = data()
    rosen = RosenSVC(C=C, gamma=gamma, tol=1e-6).fit(X, y)
    wss2 = SMOSVC(variant="wss2", C=C, gamma=gamma, tol=1e-6).fit(X, y)
    reference = SVC(C=C, gamma=gamma, tol=1e-8).fit(X, y)
    alpha_reference = np.zeros(y.shape[0])
    alpha_reference[reference.support_] = np.abs(reference.dual_coef_[0])
    ours = rosen.objective_[0]
    assert rosen.status_ == ["converged"]
    assert ours == pytest.approx(wss2.objective_[0], rel=1e-6)
    assert ours == pytest.approx(dual_objective(X, y, alpha_reference, gamma), rel=1e-6)
    assert ours == pytest.approx(dual_objective(X, y, rosen.fit_results_[0].alpha, gamma),
                                 rel=1e-6)


def unfused_rosen(q, y, C, tol, max_iter):
    """main's Rosen (c35b1c9a) in Python, pass by pass as it ran: the free set, the multiplier
    test, the gradient update and the stop test each their own pass, Q d one requested row at a
    time into a zeroed vector; the same operations on the same values in the same order, so the
    same bits. Returns (alpha, bias, iterations)."""
    n = y.shape[0]
    alpha, gradient = np.zeros(n), -np.ones(n)
    iterations = 0
    while max_violation(alpha, gradient, y, C, n) > 2.0 * tol and iterations < max_iter:
        F = y * gradient
        support = [i for i in range(n) if 0.0 < alpha[i] < C]
        if not support:  # the maximal violating pair, first position of a tie
            up = [i for i in range(n) if (alpha[i] < C if y[i] > 0 else alpha[i] > 0.0)]
            low = [i for i in range(n) if (alpha[i] > 0.0 if y[i] > 0 else alpha[i] < C)]
            if not up or not low:
                break
            i_up, i_low = min(up, key=lambda i: (F[i], i)), max(low, key=lambda i: (F[i], -i))
            if i_up == i_low:
                break
            support = [i_up, i_low]
        else:
            total = 0.0
            for i in support:
                total += F[i]
            mean, spread = total / len(support), max(F[support]) - min(F[support])
            best, released = 0.0, -1
            for i in range(n):
                u = multiplier(y[i], alpha[i], gradient[i], C, mean)
                if u < best:
                    best, released = u, i
            face = spread if spread > 2.0 * tol else 0.0
            if released >= 0 and -best > face:
                support.append(released)
            elif face == 0.0:
                break
        total = 0.0
        for i in support:
            total += y[i] * gradient[i]
        mean = total / len(support)
        d = np.zeros(n)
        for i in support:
            d[i] = -(gradient[i] - y[i] * mean)
        qd = np.zeros(n)
        for j in support:
            qd += d[j] * np.asarray(kernel_row(q, j, n)[:n], dtype=np.float64)
        slope, d_q_d, lam_max = 0.0, 0.0, np.inf
        rooms = {}
        for i in support:
            slope += gradient[i] * d[i]
            d_q_d += d[i] * qd[i]
            rooms[i] = ((C - alpha[i]) / d[i] if d[i] > 0.0 else -alpha[i] / d[i] if d[i] < 0.0
                        else np.inf)
            lam_max = min(lam_max, rooms[i])
        lam = -slope / d_q_d if d_q_d > 0.0 else np.inf
        blocked = lam_max <= lam
        lam = lam_max if blocked else lam
        if not np.isfinite(lam):
            break
        for i in support:
            if blocked and rooms[i] <= lam:
                alpha[i] = C if d[i] > 0.0 else 0.0
            else:
                alpha[i] = min(C, max(0.0, alpha[i] + lam * d[i]))
        gradient += lam * qd
        iterations += 1
    return outcome(alpha, gradient, y, C, iterations, False)[:3]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(4, 60), C=st.floats(0.05, 50.0),
       gamma=st.floats(0.05, 5.0), tol=st.sampled_from([1e-3, 1e-6]),
       cached_rows=st.sampled_from([0, 2, 9, 100]))
def test_the_fused_loop_takes_the_unfused_path_to_the_bit(seed, n, C, gamma, tol, cached_rows):
    """The solver (one pass for G, the stop test and J; d and Q d zeroed where they were
    written) against main's unfused steps in Python: the same iterations, alpha and bias to the
    bit and the same K1 and K2, the cache off, holding two rows, some or all."""
    X, y = random_problem(seed, n)
    cache_mb = cached_rows * n * 4 / 2**20
    fused = make_qmatrix(X, y, "csvc", kernel="rbf", gamma=gamma, cache_mb=cache_mb)
    unfused = make_qmatrix(X, y, "csvc", kernel="rbf", gamma=gamma, cache_mb=cache_mb)
    result = get_solver("rosen")(fused, y, {"C": C, "tol": tol, "max_iter": 2000})
    alpha, bias, iterations = unfused_rosen(unfused, y, C, tol, 2000)
    assert result.iterations == iterations
    np.testing.assert_array_equal(result.alpha, alpha)
    assert result.bias == bias
    assert (result.kernel_requested, result.kernel_computed) == counts(unfused)


def rows_mb(rows, n):
    return rows * n * 4 / 2**20


# main's code (c35b1c9a, before issue 42's fusion) on fixed problems: iterations, K1, K2, the
# first 16 hex digits of sha256 of alpha's bytes, bias
PINNED_PROBLEMS = {
    "wdbc C 10 gamma 0.1 tol 1e-3": (wdbc, 10.0, 0.1, 1e-3, 100.0),
    "wdbc C 10 gamma 0.1 tol 1e-6": (wdbc, 10.0, 0.1, 1e-6, 100.0),
    "noisy C 1 gamma 0.5 cache off": (noisy, 1.0, 0.5, 1e-3, 0.0),
    "noisy C 20 gamma 2 tol 1e-6 12 rows": (noisy, 20.0, 2.0, 1e-6, rows_mb(12, 200)),
    "random 400 C 5 gamma 1 30 rows": (lambda: random_problem(11, 400), 5.0, 1.0, 1e-3,
                                       rows_mb(30, 400)),
}
MAIN_PINS = {
    "wdbc C 10 gamma 0.1 tol 1e-3": (1094, 42106, 12950440, "d4e82dd6d1deb5b2",
                                     -0.542259666087647),
    "wdbc C 10 gamma 0.1 tol 1e-6": (2412, 42106, 33108972, "98a86750de616929",
                                     -0.5437827309659741),
    "noisy C 1 gamma 0.5 cache off": (386, 826200, 826200, "b4096e9bb8c984c4",
                                      0.3500108319186765),
    "noisy C 20 gamma 2 tol 1e-6 12 rows": (2809, 32924800, 32971000, "0d520117a483b9cb",
                                            0.42310884795308074),
    "random 400 C 5 gamma 1 30 rows": (1589, 42558800, 44005600, "85964a0ab4176b1d",
                                       0.0072498282630868065),
}


@pytest.mark.parametrize("name", sorted(PINNED_PROBLEMS))
def test_fixed_problems_keep_the_iterations_counts_and_bits_of_main(name):
    make, C, gamma, tol, cache_mb = PINNED_PROBLEMS[name]
    X, y = make()
    q = make_qmatrix(X, y, "csvc", kernel="rbf", gamma=gamma, cache_mb=cache_mb)
    result = get_solver("rosen")(q, y, {"C": C, "tol": tol, "max_iter": 10**6})
    digest = hashlib.sha256(np.ascontiguousarray(result.alpha).tobytes()).hexdigest()[:16]
    assert (result.iterations, result.kernel_computed, result.kernel_requested, digest,
            result.bias) == MAIN_PINS[name]


def test_counts_come_from_the_provider_and_the_cache_serves_repeated_rows():
    X, y = noisy()
    cached = RosenSVC(C=1.0, gamma=0.5, tol=1e-3).fit(X, y)
    uncached = RosenSVC(C=1.0, gamma=0.5, tol=1e-3, cache_mb=0).fit(X, y)
    assert cached.n_iter_[0] == uncached.n_iter_[0]
    assert cached.kernel_requested_ == uncached.kernel_requested_ == uncached.kernel_computed_
    assert cached.kernel_computed_ <= y.shape[0] ** 2 < cached.kernel_requested_


def test_rosen_needs_the_csvc_qmatrix_and_takes_smo_mod2_keys():
    X, y = random_problem(0, 20)
    with pytest.raises(ValueError, match="csvc"):
        get_solver("rosen")(make_provider(X, gamma=1.0), y, {"C": 1.0})
    keys = {"C": 2.0, "gamma": 0.5, "tol": 1e-6, "cache_mb": 1, "max_iter": 3}
    estimator = build_estimator({"name": "rosen", **keys}).fit(X, y)
    assert estimator.n_iter_[0] <= 3
    assert estimator.status_ == ["max_iter"]
    build_estimator({"name": "smo_mod2", **keys})


# IDA sizes (docs/data-manifest.md, "Expected (IDA)"): train rows, test rows, features
IDA_SIZES = {
    "ida_banana": (400, 4900, 2), "ida_breast_cancer": (200, 77, 9), "ida_german": (700, 300, 20),
    "ida_heart": (170, 100, 13), "ida_image": (1300, 1010, 18), "ida_ringnorm": (400, 7000, 20),
    "ida_titanic": (150, 2051, 3), "ida_twonorm": (400, 7000, 20),
    "ida_waveform": (400, 4600, 21),
}


@pytest.mark.parametrize("name", sorted(IDA_SIZES))
def test_realizations_load_with_the_documented_sizes(name):
    try:
        staged = available_realizations(name)
    except DataError as error:
        pytest.skip(str(error))
    if not staged:
        pytest.skip(f"no realization of {name} staged: set SVMBENCH_DATA_PATH to shared/data")
    n_train, n_test, n_features = IDA_SIZES[name]
    for realization in (staged[0], staged[-1]):
        data = load_dataset(name, realization=realization)
        assert data.X_train.shape == (n_train, n_features)
        assert data.X_test.shape == (n_test, n_features)
        assert set(np.unique(data.y_train)) == {-1.0, 1.0}
        assert data.realization == realization

