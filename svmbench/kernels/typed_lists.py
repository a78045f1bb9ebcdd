"""numba typed Lists built by compiled code, which numba caches.

A typed List made, appended to or read from Python runs numba's own list helpers, and numba
compiles those anew in every process (it caches none of them): smo_wss2's first grid search in
a fresh process compiled 14 of them, 3.7-4.7 s of CPU where it needs 0.4 s without (a toy
problem; docs/changelog.md). Compiled code that builds a list links the helpers into its own
machine code, cached with it. So Python builds a typed List with :func:`typed_list`, hands it to
compiled code and never reads it.
"""

from numba import njit
from numba.typed import List


@njit(cache=True)
def _empty_list_for(item):
    """An empty typed List for values of ``item``'s type (the list's type is inferred from an
    append)."""
    items = List()
    items.append(item)
    items.clear()
    return items


@njit(cache=True)
def _append(items, item):
    items.append(item)


def typed_list(items):
    """A numba typed List of ``items``, a non-empty Python sequence of values of one numba type
    (providers of one class, arrays of one dtype and dimension). Any length runs the same two
    compiled functions, so a warm-up over one item loads what a list of many needs."""
    listed = _empty_list_for(items[0])
    for item in items:
        _append(listed, item)
    return listed
