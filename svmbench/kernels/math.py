"""Kernel function math on dense or CSR points, compiled with numba.

A *points* bundle is a tuple of arrays that compiled code can take as one argument:
``(dense, indptr, indices, values, sqnorm)``. Dense data fills ``dense`` (n x d) and leaves the
CSR arrays empty; sparse data fills the CSR arrays and leaves ``dense`` as a 0 x 0 array.
``sqnorm`` holds ||x||^2 for every point (used by the RBF kernel); its length is the number of points.

A *kernel spec* is ``(kind, gamma, coef0, degree)`` with kind one of LINEAR, POLY, RBF.
"""

import numpy as np
import scipy.sparse as sp
from numba import njit

LINEAR, POLY, RBF = 0, 1, 2
KERNEL_KINDS = {"linear": LINEAR, "poly": POLY, "rbf": RBF}


def make_points(X):
    """Bundle a dense array or a scipy sparse matrix into the points tuple used by compiled code."""
    if sp.issparse(X):
        csr = sp.csr_matrix(X, dtype=np.float64)
        csr.sum_duplicates()
        dense = np.zeros((0, 0), dtype=np.float64)
        indptr = csr.indptr.astype(np.int64)
        indices = csr.indices.astype(np.int32)
        values = np.ascontiguousarray(csr.data, dtype=np.float64)
        sqnorm = np.asarray(csr.multiply(csr).sum(axis=1), dtype=np.float64).ravel()
    else:
        dense = np.ascontiguousarray(X, dtype=np.float64)
        indptr = np.zeros(1, dtype=np.int64)
        indices = np.zeros(0, dtype=np.int32)
        values = np.zeros(0, dtype=np.float64)
        sqnorm = np.einsum("ij,ij->i", dense, dense)
    return (dense, indptr, indices, values, sqnorm)


def make_kernel_spec(kernel="rbf", gamma=1.0, coef0=0.0, degree=3):
    """Validate kernel parameters and return the spec tuple ``(kind, gamma, coef0, degree)``."""
    if kernel not in KERNEL_KINDS:
        raise ValueError(f"unknown kernel {kernel!r}; choose one of {sorted(KERNEL_KINDS)}")
    if kernel == "rbf" and not gamma > 0:
        raise ValueError(f"RBF kernel needs gamma > 0 (got {gamma}); gamma is the papers' theta")
    return (KERNEL_KINDS[kernel], float(gamma), float(coef0), float(degree))


@njit(cache=True)
def is_sparse(points):
    return points[1].shape[0] > 1


@njit(cache=True)
def apply_kernel(spec, dot, sqnorm_a, sqnorm_b):
    """k(a, b) from <a, b> and the squared norms."""
    kind, gamma, coef0, degree = spec
    if kind == RBF:
        dist = sqnorm_a + sqnorm_b - 2.0 * dot
        return np.exp(-gamma * max(dist, 0.0))
    if kind == POLY:
        return (gamma * dot + coef0) ** degree
    return dot


@njit(cache=True)
def scatter(points, i, buffer):
    """Write sparse point i into the dense work buffer (which must be all zeros)."""
    indptr, indices, values = points[1], points[2], points[3]
    for k in range(indptr[i], indptr[i + 1]):
        buffer[indices[k]] = values[k]


@njit(cache=True)
def unscatter(points, i, buffer):
    indptr, indices = points[1], points[2]
    for k in range(indptr[i], indptr[i + 1]):
        buffer[indices[k]] = 0.0


@njit(cache=True)
def dot_with_buffer(points, j, buffer):
    """<x_j, b> where b is a dense vector (a scattered sparse point, or a dense point)."""
    if is_sparse(points):
        indptr, indices, values = points[1], points[2], points[3]
        total = 0.0
        for k in range(indptr[j], indptr[j + 1]):
            total += values[k] * buffer[indices[k]]
        return total
    row = points[0][j]
    total = 0.0
    for k in range(row.shape[0]):
        total += row[k] * buffer[k]
    return total


@njit(cache=True)
def load_point(points, i, buffer):
    """Make ``buffer`` hold point i densely: scatter it if sparse, return the row view if dense."""
    if is_sparse(points):
        scatter(points, i, buffer)
        return buffer
    return points[0][i]


@njit(cache=True)
def release_point(points, i, buffer):
    if is_sparse(points):
        unscatter(points, i, buffer)

