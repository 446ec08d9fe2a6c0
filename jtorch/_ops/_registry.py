"""The op table. ``@op`` registers a pure jnp body once; every public form is generated from it.

One definition yields ``jtorch.<name>``, ``Tensor.<name>``, ``Tensor.<name>_`` (in-place),
``out=`` and the operator dunders. Per-op behaviour lives in flags on :class:`OpDef`, never in
``if`` chains in the dispatcher.
"""

from __future__ import annotations

import collections
import functools
import inspect

from .._core.tensor_base import TensorBase

# name -> public callable, per namespace ("" is jtorch itself; "linalg", "nn.functional"...)
NAMESPACES: dict[str, dict[str, object]] = collections.defaultdict(dict)
TENSOR_METHODS: dict[str, object] = {}
OPS: dict[str, OpDef] = {}


class OpDef:
    """One tensor operation.

    Args:
        name: PyTorch's name (``"add"``, ``"linalg.norm"``).
        fn: the body, a pure function of jnp arrays and static Python values.
        tensors: parameter names that take tensors (a Python number there becomes a dynamic
            0-d array; lists of tensors are allowed).
        promote: ``None`` (body sees inputs as given), ``"common"`` (PyTorch's promotion of the
            ``tensors`` parameters to one dtype) or ``"float"`` (as common, then integers and
            bools become the default float dtype).
        is_view: the outputs are views of the first tensor argument (they share storage).
        saves: backward needs the inputs' values, so modifying them in place afterwards is an
            error at backward and a second backward needs retain_graph (PyTorch's rule). Ops
            whose PyTorch derivative needs no saved values (add, sum, views...) set False;
            bilinear ops (mul, matmul) set ``"others"``: input j is saved only when another
            input needs a gradient.
        grad_name: the grad_fn's class name; default ``<CamelName>Backward0``. May be a
            function of the op's arguments (tensors passed as opaque markers) when PyTorch's
            name depends on the overload: ``SumBackward0`` for ``sum()``, ``SumBackward1``
            with a dim.
        returns: field names of the namedtuple PyTorch returns (``("values", "indices")``).
        differentiable: False for ops whose outputs never carry gradients (comparisons...).
        nondiff: parameter names whose tensors never receive gradients (index, mask...).
        check: ``check(*args, **kwargs)`` run eagerly before dispatch, for errors PyTorch raises
            on the VALUE of a Python-number argument (``int_tensor ** -1``, ``int_tensor // 0``);
            numbers are dynamic inside the kernel, so the body cannot see them.
    """

    __slots__ = ("name", "fn", "tensors", "tensor_pos", "promote", "is_view", "saves",
                 "grad_name", "returns", "differentiable", "nondiff", "nondiff_pos",
                 "kernels", "bwd_kernels", "params", "stride_rule", "check", "__weakref__")

    def __init__(self, name, fn, *, tensors=("input",), promote=None, is_view=False,
                 saves=True, grad_name=None, returns=None, differentiable=True, nondiff=(),
                 stride_rule=None, check=None):
        self.name = name
        self.fn = fn
        self.params = list(inspect.signature(fn).parameters)
        self.tensors = frozenset(tensors)
        self.tensor_pos = frozenset(i for i, p in enumerate(self.params) if p in self.tensors)
        self.promote = promote
        self.is_view = is_view
        self.saves = saves
        short = name.rsplit(".", 1)[-1]
        camel = "".join(w.capitalize() for w in short.split("_"))
        self.grad_name = grad_name or camel + "Backward0"
        self.returns = _return_type(name.replace(".", "_"), returns) if returns else None
        self.differentiable = differentiable
        self.nondiff = frozenset(nondiff)
        self.nondiff_pos = frozenset(i for i, p in enumerate(self.params) if p in self.nondiff)
        self.stride_rule = stride_rule
        self.check = check
        self.kernels = {}
        self.bwd_kernels = {}

    def __repr__(self):
        return f"OpDef({self.name})"


class return_types:  # noqa: N801 - PyTorch's module name
    """Namespace of the namedtuples ops return, as ``torch.return_types``."""


def _return_type(name, fields):
    cls = getattr(return_types, name, None)
    if cls is None:
        cls = collections.namedtuple(name, fields)
        cls.__module__ = "torch.return_types"
        cls.__qualname__ = name
        setattr(return_types, name, cls)
    return cls


def op(names, *, method=True, inplace=False, dunder=(), out=True, namespace="",
       method_name=None, **flags):
    """Register ``fn`` as the op ``names`` (a name or a tuple of aliases) and generate its forms.

    method: also a Tensor method; inplace: also ``Tensor.<name>_``; dunder: operator names
    (``__radd__``-style reflected names swap the operands); out: accept ``out=``;
    namespace: ``"linalg"``, ``"special"``, ``"nn.functional"`` or several joined by ``,``
    (``""`` is jtorch itself).
    """
    from .._core.dispatch import dispatch, dispatch_out, inplace_call

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
