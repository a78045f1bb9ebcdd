"""Borrowed providers: a named tuple of arrays that compiled code passes around without reference
counts.

numba takes and drops a reference on every array that a compiled function binds (its arguments,
and the values of functions it inlines), unless its pruner removes the pair; it keeps the pairs of
a function that calls out, and a provider holds 37 arrays (svmbench.kernels.provider). Keerthi's
rules make many short requests, each through a few such functions: the reference counts were about
60 % of smo_mod2's CPU on pendigits (perf, issue 42).

``borrowed(value)`` is the named tuple ``value`` as a ``BorrowedTuple``: the same data, a type
whose binding takes no reference at all. Its fields are read by name: a named tuple field is
borrowed in turn (the provider's cache), an array field is an ordinary array whose memory-manager
pointer is cleared (so that its reference, taken when it is read, is a null test), any other
field is itself. So a function pays for the arrays it reads, not for the 37 it is passed. Whoever
passes the value in keeps its arrays alive for the whole call, as the Python caller of a solver
does with its provider and smo.solve_each with the SMO state it lends its loop; a borrowed array
must not outlive the call (a solver returns none of them: its results are arrays of its own or
copies; the SMO loop's alpha is its state's, which solve_each reads through the state it holds).
"""

from llvmlite import ir
from numba.core import types
from numba.core.datamodel import models, register_default
from numba.core.imputils import impl_ret_borrowed, lower_getattr_generic
from numba.core.typing.templates import AttributeTemplate, infer_getattr
from numba.extending import intrinsic


class BorrowedTuple(types.Type):
    """A named tuple type ``inner`` whose values compiled code binds without reference counts."""

    def __init__(self, inner):
        self.inner = inner
        super().__init__(name=f"Borrowed({inner})")

    @property
    def key(self):
        return self.inner

    @property
    def instance_class(self):
        """The named tuple's class (an overload may choose by it: provider.fill_of_kind)."""
        return self.inner.instance_class


@register_default(BorrowedTuple)
class BorrowedModel(models.DataModel):
    """The inner named tuple's data model in every representation, with no member to count:
    numba's reference counting (get_meminfos) walks ``traverse``, which is empty."""

    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type)
        self._inner = dmm.lookup(fe_type.inner)

    def get_value_type(self):
        return self._inner.get_value_type()

    def get_data_type(self):
        return self._inner.get_data_type()

    def get_argument_type(self):
        return self._inner.get_argument_type()

    def get_return_type(self):
        return self._inner.get_return_type()

    def as_data(self, builder, value):
        return self._inner.as_data(builder, value)

    def as_argument(self, builder, value):
        return self._inner.as_argument(builder, value)

    def as_return(self, builder, value):
        return self._inner.as_return(builder, value)

    def from_data(self, builder, value):
        return self._inner.from_data(builder, value)

    def from_argument(self, builder, value):
        return self._inner.from_argument(builder, value)

    def from_return(self, builder, value):
        return self._inner.from_return(builder, value)


def _field_type(inner, name):
    """The type a borrowed ``inner``'s field ``name`` is read as."""
    field = inner.types[inner.fields.index(name)]
    return BorrowedTuple(field) if isinstance(field, types.BaseNamedTuple) else field


@infer_getattr
class BorrowedAttributes(AttributeTemplate):
    key = BorrowedTuple

    def generic_resolve(self, typ, name):
        if name in typ.inner.fields:
            return _field_type(typ.inner, name)
        return None


@lower_getattr_generic(BorrowedTuple)
def _borrowed_field(context, builder, typ, value, name):
    field = builder.extract_value(value, typ.inner.fields.index(name))
    read_as = _field_type(typ.inner, name)
    if isinstance(read_as, BorrowedTuple):
        return field
    return impl_ret_borrowed(context, builder, read_as, field)


def _clear_meminfos(context, builder, typ, value):
    """``value`` of numba type ``typ`` with the meminfo of every array in it cleared."""
    if isinstance(typ, types.Array):
        array = context.make_array(typ)(context, builder, value=value)
        array.meminfo = ir.Constant(array.meminfo.type, None)
        return array._getvalue()
    if isinstance(typ, types.BaseTuple):
        for k, member in enumerate(typ):
            part = _clear_meminfos(context, builder, member, builder.extract_value(value, k))
            value = builder.insert_value(value, part, k)
    return value


@intrinsic
def borrowed(typingctx, value):
    """The named tuple ``value`` (of arrays, named tuples, tuples and scalars) as a BorrowedTuple
    (see the module note)."""
    if not isinstance(value, types.BaseNamedTuple):
        raise TypeError(f"borrowed takes a named tuple, not {value}")

    def codegen(context, builder, signature, args):
        return _clear_meminfos(context, builder, value, args[0])

    return BorrowedTuple(value)(value), codegen
