"""Borrowed arrays: views of arrays that compiled code passes around without reference counts.

numba takes and drops an atomic reference on every array that a compiled function binds (its
arguments, and the values of functions it inlines), unless its pruner removes the pair; it keeps
the pairs of a function that calls out, and a provider holds 37 arrays
(svmbench.kernels.provider). Keerthi's rules make many short requests, each through a few such
functions: the reference counts were about 60 % of smo_mod2's CPU on pendigits (perf, issue 42).

``borrowed(value)`` is ``value`` with each array's memory-manager pointer cleared, so that numba's
reference counting skips it (its increment and decrement test the pointer first). Whoever passes
the value in keeps the arrays alive for the whole call, as the Python caller of a solver does with
its provider; a borrowed array must not outlive the call (a solver returns none of them: its
results are arrays of its own or copies).
"""

from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic


def _borrow(context, builder, typ, value):
    """``value`` of numba type ``typ`` with the meminfo of every array in it cleared."""
    if isinstance(typ, types.Array):
        array = context.make_array(typ)(context, builder, value=value)
        array.meminfo = ir.Constant(array.meminfo.type, None)
        return array._getvalue()
    if isinstance(typ, types.BaseTuple):
        for k, member in enumerate(typ):
            part = _borrow(context, builder, member, builder.extract_value(value, k))
            value = builder.insert_value(value, part, k)
    return value


@intrinsic
def borrowed(typingctx, value):
    """``value`` (an array or a tuple of arrays, tuples and scalars) with its arrays borrowed: no
    reference counts while compiled code passes them on (see the module note)."""

    def codegen(context, builder, signature, args):
        return _borrow(context, builder, value, args[0])

    return value(value), codegen
