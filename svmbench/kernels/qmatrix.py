"""The Q-matrix layer: the matrix a dual solver sees, as LIBSVM's ``QMatrix`` (svm.cpp).

Solvers never compute a kernel value or multiply by labels themselves: they ask for rows of Q,
its diagonal and position swaps, and the provider underneath folds labels in, caches and counts,
once for every solver. Kinds:

- ``"kernel"``: Q_ij = k(x_i, x_j) (no labels; e.g. the rho-SVM's f_t needs K and y separately);
- ``"csvc"``: Q_ij = y_i y_j k(x_i, x_j), the C-SVC / hard-margin dual (LIBSVM's ``SVC_Q``);
- ``"l2svm"``: Q_ij = y_i y_j (k(x_i, x_j) + 1) + delta_ij / C, the L2-SVM dual that Core Vector
  Machines and Frank-Wolfe solve as a minimum enclosing ball (frank-wolfe-svm eq. 12).

The served functions are the provider's: ``kernel_row(q, position, length)`` (a row of Q over a
prefix of positions, cached), ``kernel_row_once`` (uncached), ``kernel_entry``, ``q.diag`` and
``swap_positions``; ``counts(q)`` gives (kernel_requested, kernel_computed).
"""

import numpy as np

from svmbench.kernels.provider import (
    gram_block,
    gram_blocks,
    make_precomputed_provider,
    make_provider,
    restore_precomputed_providers,
)
from svmbench.kernels.typed_lists import typed_list

Q_KINDS = ("kernel", "csvc", "l2svm")


def _fold(kind, y, C):
    """(signs, shift, ridge) of a Q-matrix kind."""
    if kind not in Q_KINDS:
        raise ValueError(f"unknown Q-matrix kind {kind!r}; choose one of {list(Q_KINDS)}")
    if kind == "kernel":
        return None, 0.0, 0.0
    if y is None:
        raise ValueError(f"a {kind!r} Q-matrix folds the labels in: pass y (values in {{-1, +1}})")
    if kind == "csvc":
        return y, 0.0, 0.0
    if C is None or not C > 0:
        raise ValueError(f"an 'l2svm' Q-matrix needs C > 0 for its ridge delta_ij / C (got {C})")
    return y, 1.0, 1.0 / C  # frank-wolfe-svm eq. (12)


def check_labels_folded(q, y):
    """Fail early when a solver that reads Q_ij = y_i y_j k_ij gets a Q-matrix without labels y
    (e.g. a plain kernel provider): its solution would be silently wrong."""
    if not np.array_equal(q.signs, np.asarray(y, dtype=np.float64)):
        raise ValueError("this solver reads a C-SVC Q-matrix: build it with make_qmatrix(X, y, "
                         "'csvc', ...) from the same labels y it is given")


def make_qmatrix(X, y=None, kind="csvc", C=None, kernel="rbf", gamma=1.0, coef0=0.0, degree=3,
                 cache_mb=100.0):
    """Q-matrix of ``kind`` over training data X (dense or sparse) with labels y in {-1, +1}."""
    signs, shift, ridge = _fold(kind, y, C)
    return make_provider(X, kernel, gamma, coef0, degree, cache_mb, signs=signs, shift=shift,
                         ridge=ridge)


def make_precomputed_qmatrix(gram, members, y=None, kind="csvc", C=None):
    """Q-matrix of ``kind`` over the rows and columns ``members`` of a given kernel matrix;
    ``y`` holds the labels of those members."""
    signs, shift, ridge = _fold(kind, y, C)
    return make_precomputed_provider(gram_block(gram, members), signs=signs, shift=shift,
                                     ridge=ridge)


def make_precomputed_qmatrices(blocks, problems, kind="csvc", C=None, typed=True):
    """The Q-matrices of ``kind`` over several blocks of one kernel matrix, as a numba typed
    list (``typed``: a solve_many's argument) or a Python list (solved one by one): ``blocks``
    is a :class:`GramBlocks` of the matrix, ``problems`` a list of (members, labels of those
    members), e.g. the class pairs of one-vs-one. A call over the same problems and fold as the
    last one gets that call's list back, restored (GramBlocks.providers)."""
    folds = [_fold(kind, y, C) for _, y in problems]
    shift, ridge = folds[0][1:]
    return blocks.providers([members for members, _ in problems],
                            [signs for signs, _, _ in folds], shift, ridge, typed)


class GramBlocks:
    """The blocks gram[members][:, members] of one kernel matrix, each gathered once, and the
    providers of the last solves over them: a grid search refits every C on one Gram matrix and
    its class pairs, and gathering a pair's block costs as much as solving it (Segment,
    svmbench.tuning). The matrix must not change while its blocks are kept; the grid's next gamma
    hands over its matrix with :meth:`take`, which refills the kept arrays."""

    def __init__(self, gram):
        self.gram = gram
        self._blocks = {}  # members' bytes -> (members, block: a view of its batch's flat array)
        self._batches = []  # (members list, flat array) of each gathering, for take
        self._kept = None  # (key of the problems and fold, providers, their blocks)
        self._refold = False  # the kept blocks hold new values: fold every provider anew

    def holds(self, gram):
        """Whether ``gram`` is this matrix: the same object, or a view of the same memory with the
        same shape, strides and type (an array returned by a function numba loaded from its
        on-disk cache carries a float64 dtype equal to, not identical with, numpy's, and
        scikit-learn's validation, np.asarray(dtype=float64), hands the estimator a new view of
        it at every fit)."""
        return gram is self.gram or gram.__array_interface__ == self.gram.__array_interface__

    def take(self, gram):
        """Serve the blocks of ``gram``, a matrix of the same shape over the same samples (a grid
        search's next gamma), from now on: each kept block gathered anew from it into its own
        array, the kept providers folded anew at the next :meth:`providers` call; no new arrays,
        no new typed list (building those costs a Segment grid a fifth of its time)."""
        if gram.shape != self.gram.shape:
            raise ValueError(f"GramBlocks.take needs a matrix of shape {self.gram.shape}, the "
                             f"kept one's (got {gram.shape}); make new GramBlocks for it")
        self.gram = gram
        for members_list, flat in self._batches:
            gram_blocks(gram, members_list, flat)
        self._refold = True

    def gathered(self, members_list):
        """The blocks of ``members_list``, those not kept yet gathered together (gram_blocks)."""
        missing = {}
        for members in members_list:
            missing.setdefault(members.tobytes(), members)
        missing = [members for key, members in missing.items() if key not in self._blocks]
        if missing:
            flat, blocks = gram_blocks(self.gram, missing)
            self._batches.append((missing, flat))
            self._blocks.update((members.tobytes(), (members, block))
                                for members, block in zip(missing, blocks))
        return [self._blocks[members.tobytes()][1] for members in members_list]

    def providers(self, members_list, signs_list, shift, ridge, typed=True):
        """The Q-matrices of the blocks of ``members_list`` folded by ``signs_list``, ``shift``
        and ``ridge``, in a numba typed list (``typed``: for compiled code, never read from
        Python) or a Python list: the list the last call over the same members and fold
        returned, every provider restored to its state at construction in one compiled call
        (no new arrays; a block is folded again only when its solve left positions moved or
        :meth:`take` gave it new values), else new providers, kept. The solves must be done with
        the previous list before the next is asked for."""
        key = (b"".join(members.tobytes() + signs.tobytes()
                        for members, signs in zip(members_list, signs_list)), shift, ridge)
        if self._kept is None or self._kept[0] != key:
            blocks = self.gathered(members_list)
            providers = [make_precomputed_provider(block, signs=signs, shift=shift, ridge=ridge)
                         for block, signs in zip(blocks, signs_list)]
            self._kept = (key, providers, typed_list(providers), typed_list(blocks))
        else:
            restore_precomputed_providers(*self._kept[2:], self._refold)
        self._refold = False
        _, providers, listed, _ = self._kept
        return listed if typed else providers
