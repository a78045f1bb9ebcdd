"""Evgeniou et al.'s leave-one-out bound (svmbench/loo_bounds.py) against brute-force
leave-one-out on tiny random problems: for the SVM without bias it is a theorem, so it is never
below the error rate of retraining without each point in turn. (Joachims' xi-alpha bound is not
tested so: with a bias, a leave-one-out problem whose bias is not unique, e.g. with no free
support vector, predicts by the solver's choice of bias, and the brute force then contradicts
the bound on such tiny sets.)"""

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics.pairwise import rbf_kernel

from svmbench.loo_bounds import evgeniou_bound


def nobias_dual(K, y, C):
    """The C-SVM without bias, min 1/2 a'Qa - 1'a on 0 <= a <= C with Q = yy'K, solved by
    exact coordinate descent to a projected-gradient violation of 1e-10."""
    Q = np.outer(y, y) * K
    alpha = np.zeros(len(y))
    for _ in range(100000):
        gradient = Q @ alpha - 1.0
        violation = np.where(alpha <= 0, -np.minimum(gradient, 0),
                             np.where(alpha >= C, np.maximum(gradient, 0), np.abs(gradient)))
        if violation.max() <= 1e-10:
            return alpha
        i = int(np.argmax(violation))
        alpha[i] = np.clip(alpha[i] - gradient[i] / Q[i, i], 0.0, C)
    raise AssertionError("coordinate descent did not converge")


problems = st.tuples(st.integers(5, 10), st.integers(1, 3), st.integers(0, 2**31 - 1),
                     st.sampled_from([1.0, 4.0, 16.0]), st.sampled_from([0.5, 2.0, 16.0]))


def problem(size, dimension, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(size, dimension))
    y = np.where(rng.random(size) < 0.5, -1.0, 1.0)
    y[:2] = [-1.0, 1.0]  # both classes in every leave-one-out training set
    y[2] = 1.0
    y[3] = -1.0
    return X, y


@settings(max_examples=40, deadline=None)
@given(problems)
def test_evgeniou_bound_is_above_leave_one_out_without_bias(case):
    size, dimension, seed, gamma, C = case
    X, y = problem(size, dimension, seed)
    K = rbf_kernel(X, gamma=gamma)
    assume(np.linalg.cond(K) < 1e6)  # coordinate descent converges in reasonable time
    alpha = nobias_dual(K, y, C)
    margins = y * (K @ (alpha * y))
    errors = 0
    for i in range(size):
        rest = np.arange(size) != i
        reduced = nobias_dual(K[np.ix_(rest, rest)], y[rest], C)
        errors += y[i] * (K[i, rest] @ (reduced * y[rest])) <= 0
    assert evgeniou_bound(alpha, margins, np.diag(K)) >= errors / size
