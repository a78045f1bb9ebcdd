"""kernels.borrowed: the same named tuple, bound without reference counts."""

import re
from collections import namedtuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit, types
from numba.core.registry import cpu_target
from numba.core.unsafe.refcount import get_refcount

from svmbench.kernels.borrowed import BorrowedTuple, borrowed
from svmbench.kernels.provider import make_provider

Inner = namedtuple("Inner", ["count", "values"])
Bundle = namedtuple("Bundle", ["values", "inner", "pair", "scale"])


def bundle_of(n):
    return Bundle(np.zeros(n), Inner(7, np.ones(n)), (3, np.full(n, 2.0)), 2.5)


@njit
def references_taken_by_holding(bundle, copies, borrow):
    """How many references on ``bundle.values`` holding ``copies`` more names of it takes (a list
    keeps each), the names read from borrowed(bundle) when ``borrow`` (its meminfo cleared)."""
    before = get_refcount(bundle.values)
    if borrow:
        held = [borrowed(bundle).values for _ in range(copies)]
    else:
        held = [bundle.values for _ in range(copies)]
    return get_refcount(bundle.values) - before + 0 * len(held)


@pytest.mark.parametrize("copies", [1, 3])
def test_holding_a_borrowed_array_takes_no_reference_and_a_plain_one_does(copies):
    bundle = bundle_of(4)
    assert references_taken_by_holding(bundle, copies, False) == copies
    assert references_taken_by_holding(bundle, copies, True) == 0


@njit(no_cpython_wrapper=True)
def fills_own_work(view, k):
    """Binds ``view`` around a call out (the allocation of its own work array), so numba's pruner
    keeps the reference counts of whatever the binding counts."""
    work = np.empty(k)
    work[:] = view.scale
    return work.sum()


@njit
def plain_call(bundle, k):
    return fills_own_work(bundle, k)


@njit
def borrowed_call(bundle, k):
    return fills_own_work(borrowed(bundle), k)


def reference_count_calls(signature):
    code = fills_own_work.inspect_llvm(signature)
    return len(re.findall(r"call void @NRT_(?:incref|decref)", code))


def test_binding_a_borrowed_bundle_makes_no_reference_count_call():
    bundle = bundle_of(3)
    assert plain_call(bundle, 2) == borrowed_call(bundle, 2) == 5.0
    plain, lent = fills_own_work.nopython_signatures
    # the plain binding takes and drops one reference on each of the bundle's three arrays
    assert reference_count_calls(plain.args) - reference_count_calls(lent.args) == 2 * 3
    models = cpu_target.target_context.data_model_manager
    assert models[plain.args[0]].contains_nrt_meminfo()
    assert not models[lent.args[0]].contains_nrt_meminfo()


@njit
def write_through(bundle, k, value):
    view = borrowed(bundle)
    view.values[k] = value
    view.inner.values[k] = -value
    view.pair[1][k] = 2 * value
    return view.scale, view.inner.count, view.pair[0], view.values.shape[0]


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 9), data=st.data())
def test_a_borrowed_bundle_is_the_same_arrays_and_scalars(n, data):
    k = data.draw(st.integers(0, n - 1))
    value = data.draw(st.floats(-1e6, 1e6))
    bundle = bundle_of(n)
    assert write_through(bundle, k, value) == (2.5, 7, 3, n)
    assert bundle.values[k] == value and bundle.inner.values[k] == -value
    assert bundle.pair[1][k] == 2 * value


@njit
def field_types(bundle):
    view = borrowed(bundle)
    inner, values, pair = view.inner, view.values, view.pair
    return inner.count + values.shape[0] + pair[0]


def test_named_tuple_fields_are_borrowed_and_the_rest_plain():
    field_types(bundle_of(2))
    signature = field_types.nopython_signatures[0]
    typemap = field_types.overloads[signature.args].type_annotation.typemap
    assert typemap["view"] == BorrowedTuple(signature.args[0])
    assert isinstance(typemap["inner"], BorrowedTuple)
    assert typemap["inner"].inner.fields == Inner._fields
    assert isinstance(typemap["values"], types.Array)
    assert isinstance(typemap["pair"], types.BaseTuple)


@njit
def borrow_an_array(array):
    return borrowed(array)


def test_only_a_named_tuple_is_borrowed():
    with pytest.raises(TypeError, match="borrowed takes a named tuple"):
        borrow_an_array(np.zeros(2))


@njit
def provider_sums(view):
    return view.diag.sum() + view.cache.pool.shape[0] + view.points[4].sum()


@njit
def borrowed_provider_sums(provider):
    return provider_sums(borrowed(provider))


def test_a_provider_reads_the_same_when_borrowed():
    provider = make_provider(np.random.default_rng(0).normal(size=(30, 3)), gamma=0.5,
                             cache_mb=1)
    assert borrowed_provider_sums(provider) == provider_sums(provider)
