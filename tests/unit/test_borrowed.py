"""kernels.borrowed: the same arrays, without reference counts."""

from collections import namedtuple

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from numba.core.unsafe.refcount import get_refcount

from svmbench.kernels.borrowed import borrowed
from svmbench.kernels.provider import make_provider

Bundle = namedtuple("Bundle", ["values", "inner", "scale"])


@njit
def references_taken_by_holding(array, copies, borrow):
    """How many references on ``array`` holding ``copies`` more names of it takes (a list keeps
    each), with the names bound to borrowed(array) when ``borrow``."""
    before = get_refcount(array)
    held = [borrowed(array) if borrow else array for _ in range(copies)]
    taken = get_refcount(array) - before
    return taken + 0 * len(held)


def test_holding_a_borrowed_array_takes_no_reference_and_a_plain_one_does():
    array = np.arange(4.0)
    assert references_taken_by_holding(array, 3, False) == 3
    assert references_taken_by_holding(array, 3, True) == 0


@njit
def write_through(bundle, k, value):
    view = borrowed(bundle)
    view.values[k] = value
    view.inner[1][k] = -value
    return view.scale, view.inner[0], view.values.shape[0]


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 9), data=st.data())
def test_a_borrowed_bundle_is_the_same_arrays_and_scalars(n, data):
    k = data.draw(st.integers(0, n - 1))
    value = data.draw(st.floats(-1e6, 1e6))
    values, other = np.zeros(n), np.ones(n)
    bundle = Bundle(values, (7, other), 2.5)
    assert write_through(bundle, k, value) == (2.5, 7, n)
    assert values[k] == value and other[k] == -value


@njit
def provider_row_sum(provider, borrow):
    view = borrowed(provider) if borrow else provider
    return view.diag.sum() + view.cache.pool.shape[0] + view.points[4].sum()


def test_a_provider_reads_the_same_when_borrowed():
    provider = make_provider(np.random.default_rng(0).normal(size=(30, 3)), gamma=0.5,
                             cache_mb=1)
    assert provider_row_sum(provider, True) == provider_row_sum(provider, False)
