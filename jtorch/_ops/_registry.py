"""The op table. ``@op`` registers a pure jnp body once; every public form is generated from it.

One definition yields ``jtorch.<name>``, ``Tensor.<name>``, ``Tensor.<name>_`` (in-place),
``out=`` and the operator dunders. Per-op behaviour lives in flags on :class:`OpDef`, never in
``if`` chains in the dispatcher.
"""

from __future__ import annotations

import collections
import functools

from .._core.dispatch import dispatch
from .._core.kernel import OpDef
from .._core.tensor_base import TensorBase
from .._core.views import dispatch_out, inplace_call

# name -> public callable, per namespace ("" is jtorch itself; "linalg", "nn.functional"...)
NAMESPACES: dict[str, dict[str, object]] = collections.defaultdict(dict)
TENSOR_METHODS: dict[str, object] = {}
OPS: dict[str, OpDef] = {}


def op(names, *, method=True, inplace=False, dunder=(), out=True, namespace="",
       method_name=None, **flags):
    """Register ``fn`` as the op ``names`` (a name or a tuple of aliases) and generate its forms.

    method: also a Tensor method; inplace: also ``Tensor.<name>_``; dunder: operator names
    (``__radd__``-style reflected names swap the operands); out: accept ``out=``;
    namespace: ``"linalg"``, ``"special"``, ``"nn.functional"`` or several joined by ``,``
    (``""`` is jtorch itself).
    """
    names = (names,) if isinstance(names, str) else tuple(names)

    def deco(fn):
        opdef = OpDef(names[0], fn, **flags)
        OPS[names[0]] = opdef

        def public(*args, out=None, **kwargs):
            if out is not None:
                return dispatch_out(opdef, args, kwargs, out)
            return dispatch(opdef, args, kwargs)

        if not out:
            def public(*args, **kwargs):  # noqa: F811 - the no-out= form
                return dispatch(opdef, args, kwargs)

        functools.update_wrapper(public, fn)
        public.__name__ = names[0].rsplit(".", 1)[-1]
        public.__qualname__ = public.__name__
        public._opdef = opdef
        for ns in namespace.split(","):
            for n in names:
                NAMESPACES[ns.strip()][n] = public
        if method:
            for n in (method_name,) if method_name else names:
                TENSOR_METHODS[n.rsplit(".", 1)[-1]] = public
        if inplace:
            def inplace_method(self, *args, **kwargs):
                return inplace_call(self, opdef, args, kwargs)

            for n in names:
                short = n.rsplit(".", 1)[-1]
                inplace_method.__name__ = short + "_"
                TENSOR_METHODS[short + "_"] = inplace_method
        for d in dunder:
            TENSOR_METHODS[d] = _dunder(opdef, d, dispatch, inplace_call)
        return public

    return deco


def export(name=None, *, namespace="", method=False):
    """Publish a plain Python function (factories, random ops) as ``jtorch.<name>`` (and in
    ``namespace``), and as a Tensor method when ``method`` is true or a method name."""

    def deco(fn):
        n = name or fn.__name__
        for ns in namespace.split(","):
            NAMESPACES[ns.strip()][n] = fn
        if method:
            TENSOR_METHODS[method if isinstance(method, str) else n] = fn
        return fn

    return deco


_REFLECTED = {"__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__rfloordiv__", "__rmod__",
              "__rpow__", "__rmatmul__", "__rand__", "__ror__", "__rxor__", "__rlshift__",
              "__rrshift__", "__rdiv__"}


_INPLACE = {"__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__",
            "__ipow__", "__imatmul__", "__iand__", "__ior__", "__ixor__", "__ilshift__",
            "__irshift__", "__idiv__"}


def _operand_types():
    """What a binary dunder accepts; for anything else it returns NotImplemented, as PyTorch's
    do, so ``t == None`` is False and ``t + "a"`` is Python's TypeError."""
    import numbers

    import jax
    import numpy as np

    return (TensorBase, numbers.Number, np.ndarray, jax.Array)


def _dunder(opdef, name, dispatch, inplace_call):
    ok = _operand_types()
    if name in _REFLECTED:
        def f(self, other):
            if not isinstance(other, ok):
                return NotImplemented
            return dispatch(opdef, (other, self), {})
    elif name in _INPLACE:
        def f(self, other):
            if not isinstance(other, ok):
                return NotImplemented
            return inplace_call(self, opdef, (other,), {})
    else:
        def f(self, *args):
            if args and not isinstance(args[0], ok):
                return NotImplemented
            return dispatch(opdef, (self, *args), {})
    f.__name__ = name
    return f
