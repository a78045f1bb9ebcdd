"""The KKT check that decides every solver's status (docs/DESIGN.md "Run record": status by an
absolute KKT check on the returned point), callable from compiled loops and from Python.

Every dual here is min 1/2 a'Qa - 1'a over 0 <= a <= C (C = inf: hard margin), plus y'a = 0 when
the model has a bias; G = Qa - 1 is its gradient and f(x_i) = y_i (G_i + 1) + b the decision value
of a training sample, so y_i f(x_i) - 1 = G_i + y_i b.
"""

from numba import njit


@njit(cache=True)
def kkt_violation(alpha, gradient, y, C, bias):
    """Largest violation at (alpha, bias) of y_i f(x_i) >= 1 where alpha_i = 0, = 1 where
    0 < alpha_i < C, <= 1 where alpha_i = C (Keerthi et al. 2001, eqs. 6-8; with bias = 0 and
    C = inf the bias-free hard-margin conditions). NaN anywhere gives NaN: never converged."""
    worst = 0.0
    for i in range(alpha.shape[0]):
        margin = gradient[i] + y[i] * bias
        if alpha[i] <= 0.0:
            violation = max(-margin, 0.0)
        elif alpha[i] >= C:
            violation = max(margin, 0.0)
        else:
            violation = abs(margin)
        if not violation <= worst:  # also takes a NaN
            worst = violation
    return worst


@njit(cache=True)
def entry_violation(alpha, gradient):
    """Largest -G_i over the samples with alpha_i = 0: how much a sample outside the expansion
    could still lower the objective (GS-SVM's stopping rule, gs-svm-tnn2008 Alg. 1 step 3)."""
    worst = 0.0
    for i in range(alpha.shape[0]):
        if alpha[i] <= 0.0 and not -gradient[i] <= worst:
            worst = -gradient[i]
    return worst

