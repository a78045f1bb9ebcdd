"""Leave-one-out error bounds of a trained soft-margin SVM, for choosing C without a test set.

The xi-alpha estimator of Joachims (2000), "Estimating the generalization performance of an SVM
efficiently", ICML, Theorem 2: the leave-one-out error rate of a C-SVM is at most
|{i : rho alpha_i R_delta^2 + xi_i >= 1}| / m with rho = 2, alpha_i the dual variables, xi_i =
max(0, 1 - y_i f(x_i)) the training slacks and R_delta^2 >= k(x, x) - k(x, x') for all training
points x, x'.

The bound of Evgeniou, Pontil and Elisseeff (2004), "Leave one out error, stability, and
generalization of voting combinations of classifiers", Machine Learning 55(1), the bound
multiplicative-rho-svm (Tsang and Kwok 2007, Section 4.2) chose SVM(LOO) by: after Jaakkola and
Haussler (1999), the leave-one-out error rate of a kernel machine f = sum_j alpha_j y_j k(x_j, .)
is at most |{i : y_i f(x_i) <= alpha_i k(x_i, x_i)}| / m (taking x_i out moves y_i f(x_i) by at
most alpha_i k(x_i, x_i)). It is a theorem for the SVM without bias; with a bias, as Tsang and
Kwok's regularization-path C-SVM and ours, the bias of the reduced problem moves too and the
count is an estimate. (The equation number in Evgeniou et al. is not checked here: the paper is
not among the staged ones.)
"""

import numpy as np

from svmbench.kernels.cross import kernel_blocks
from svmbench.kernels.math import make_kernel_spec, make_points


def max_squared_distance(X):
    """max over pairs of training points of ||x - x'||^2, from their inner products in blocks of
    rows by the providers' arithmetic (svmbench.kernels.cross: no BLAS, the same bits on any
    CPU)."""
    points = make_points(X)
    squares = points[4]
    largest = 0.0
    for first, inner, _ in kernel_blocks(points, points, make_kernel_spec("linear"), X.shape[1]):
        distances = squares[first:first + inner.shape[0], None] + squares[None, :] - 2.0 * inner
        largest = max(largest, float(distances.max()))
    return largest


def rbf_r_delta_squared(X, gamma):
    """R_delta^2 = max k(x, x) - min k(x, x') = 1 - exp(-gamma max ||x - x'||^2) for the RBF kernel."""
    return 1.0 - np.exp(-gamma * max_squared_distance(X))


def xi_alpha_bound(alpha, margins, r_delta_squared):
    """Joachims' xi-alpha bound on the leave-one-out error rate (Theorem 2, rho = 2);
    ``margins`` are y_i f(x_i) on the training points."""
    slacks = np.maximum(0.0, 1.0 - np.asarray(margins))
    return float(np.mean(2.0 * np.asarray(alpha) * r_delta_squared + slacks >= 1.0))


def evgeniou_bound(alpha, margins, kernel_diagonal):
    """Evgeniou et al.'s (Jaakkola-Haussler) bound on the leave-one-out error rate: the share of
    training points with y_i f(x_i) <= alpha_i k(x_i, x_i); ``margins`` are y_i f(x_i),
    ``kernel_diagonal`` k(x_i, x_i) (1 for the RBF kernel)."""
    reach = np.asarray(alpha) * np.asarray(kernel_diagonal)
    return float(np.mean(np.asarray(margins) <= reach))
