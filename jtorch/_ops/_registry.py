"""The op table, and the one record of where every public name comes from.

Two decorators publish names, and nothing else writes into jtorch's namespaces or into Tensor:

- ``@op(names, ...)`` registers a pure jnp body as an :class:`~jtorch._core.kernel.OpDef` and
  publishes its forms: the function (``torch.<name>``, with ``out=``; or in ``torch.linalg``,
  ``torch.special``, ``torch.nn.functional``, ``torch.fft``), the method ``Tensor.<name>``,
  the in-place method ``Tensor.<name>_`` and operators (``__add__``, ``__radd__``...).
- ``@export(names, ...)`` publishes a plain Python function (a factory, a wrapper that calls
  ops) in namespaces and/or as a Tensor method or property.

Each publication is an entry of :data:`PUBLISHED`: ``(namespace, name) -> Entry(obj, form)``.
The public files (``jtorch/__init__.py``, ``linalg.py``, ``special.py``, ``fft.py``,
``nn/functional.py`` and ``_tensor_ops.py``, Tensor's op methods) are real Python files that
import their names explicitly; their generated blocks are written from this table by
``scripts/gen_api.py``, and ``tests/test_api.py`` checks that they are current.
"""

from __future__ import annotations

import functools
import inspect
import numbers
from collections.abc import Callable
from typing import NamedTuple, TypeVar

import jax
import numpy as np

from .._core import torch_function
from .._core.dispatch import dispatch
from .._core.kernel import OpDef
from .._core.tensor_base import TensorBase
from .._core.views import dispatch_out, inplace_call

OPS: dict[str, OpDef] = {}   # op name -> OpDef, for every op made with @op

# the namespaces whose functions are C++ bindings in PyTorch (save the Python ones)
_C_BINDING_SPACES = frozenset({"torch", "torch.linalg", "torch.special", "torch.fft"})

# the decorators return a callable with the body's signature (so tools show the real one)
_Fn = TypeVar("_Fn", bound=Callable)


class Entry(NamedTuple):
    """One published name: ``obj`` appears there as ``form``: ``"object"`` (itself),
    ``"property"``, ``"inplace"`` (``Tensor.<name>_``), ``"operator"``, ``"reflected"``
    (``__radd__``: operands swapped) or ``"inplace_operator"`` (``__iadd__``)."""

    obj: object
    form: str = "object"


# (namespace, name) -> Entry; namespaces: "torch", "torch.linalg", "torch.special",
# "torch.fft", "torch.nn.functional", and "Tensor" for methods, properties and operators
PUBLISHED: dict[tuple[str, str], Entry] = {}


def _publish(namespace, name, obj, form="object"):
    key = (namespace, name)
    old = PUBLISHED.get(key)
    if old is not None and old != (obj, form):
        raise RuntimeError(f"jtorch: {namespace}.{name} is published twice ({old.obj} and "
                           f"{obj}): give each public name one place")
    PUBLISHED[key] = Entry(obj, form)


def _namespaces(namespace):
    """``""`` is torch itself, ``"linalg"`` torch.linalg...; several joined by ``,``; None:
    no function is published."""
    if namespace is None:
        return ()
    return tuple("torch" if not ns.strip() else "torch." + ns.strip()
                 for ns in namespace.split(","))


def _names(names):
    return (names,) if isinstance(names, str) else tuple(names)


def op(names, *, method=True, inplace=False, dunder=(), out=True, namespace="", public=None,
       legacy=None, **flags):
    """Register the decorated body as op ``names`` (a name or a tuple of aliases; the first is
    the op's name) and publish its forms (none for a private op, whose name starts with _).

    Args:
        method: publish ``Tensor.<name>`` for each name (True), for the given name(s) (a str or
            tuple), or not at all (False).
        inplace: publish ``Tensor.<name>_`` for each name.
        dunder: operator names; ``__radd__``-style reflected names swap the operands,
            ``__iadd__``-style ones write in place.
        out: the function accepts ``out=``.
        namespace: where the function is published: ``""`` (torch itself), ``"linalg"``,
            ``"special"``, ``"nn.functional"``, ``"fft"``, several joined by ``,``, or None.
        public: publish the forms at all (default: unless the name starts with ``_``, a
            private op that is a piece of a public function).
        legacy: ``rewrite(args, kwargs, inplace=False) -> (args, kwargs)``, run on every
            call's arguments before they are bound: PyTorch's deprecated positional
            overloads (``_deprecated_overloads.py``).
        flags: the OpDef's flags (``tensors``, ``promote``, ``saves``, ``grad_name``...).
    """
    names = _names(names)

    def deco(fn: _Fn) -> _Fn:
        opdef = OpDef(names[0], fn, **flags)
        OPS[names[0]] = opdef
        if out:
            def public_fn(*args, out=None, **kwargs):
                if legacy is not None and len(args) > 2:   # (a deprecated form has 3 or more)
                    args, kwargs = legacy(args, kwargs)
                if out is not None:
                    return dispatch_out(opdef, args, kwargs, out)
                return dispatch(opdef, args, kwargs)
        else:
            def public_fn(*args, **kwargs):
                if legacy is not None and len(args) > 2:
                    args, kwargs = legacy(args, kwargs)
                return dispatch(opdef, args, kwargs)
        functools.update_wrapper(public_fn, fn)
        public_fn._legacy = legacy
        public_fn.__name__ = public_fn.__qualname__ = names[0].rsplit(".", 1)[-1]
        public_fn._opdef = opdef
        opdef.public = public_fn
        if not (public if public is not None else not names[0].startswith("_")):
            return public_fn
        short = names[0].rsplit(".", 1)[-1]
        if _namespaces(namespace) == ("torch.nn.functional",) and \
                short not in torch_function.C_NN_FUNCTIONS:
            # PyTorch's is a Python functional: how it hands a call on to __torch_function__
            public_fn.protocol_positional = torch_function.functional_positional(short, fn)
        for ns in _namespaces(namespace):
            for n in names:
                if ns != "torch" or "." not in n:   # "linalg.det" is not torch.det
                    _publish(ns, n.rsplit(".", 1)[-1], public_fn)
        method_names = names if method is True else _names(method) if method else ()
        for n in method_names:
            _publish("Tensor", n.rsplit(".", 1)[-1], public_fn)
        if inplace:
            for n in names:
                _publish("Tensor", n.rsplit(".", 1)[-1] + "_", public_fn, "inplace")
        for d in dunder:
            _publish("Tensor", d, public_fn, _operator_form(d))
        return public_fn

    return deco


def export(names=None, *, namespace="", method=False, tensor_property=False, opdef_of=None):
    """Publish a plain Python function under ``names`` (default: its ``__name__``).

    Args:
        namespace: as for :func:`op` (``""`` is torch itself; None: no function).
        method: also ``Tensor.<name>`` (True), under other method name(s) (a str or tuple).
        tensor_property: also ``Tensor.<name>`` as a property (``Tensor.real``).
        opdef_of: the op the function mostly runs (so docs/ops.md can report its coverage).

    A function of torch's that PyTorch writes in Python (:data:`~jtorch._core.torch_function.
    PYTHON_FUNCTIONS`: ``torch.broadcast_tensors``, ``torch.tensordot``) is published
    :func:`~jtorch._core.torch_function.overridable`, as PyTorch's checks the protocol itself;
    so is every composite published only in torch.nn.functional (PyTorch's are Python functions
    or C++ bindings that check it: ``F.interpolate``, ``F.cross_entropy``), and every other
    function in torch, torch.linalg, torch.special and torch.fft but those of
    :data:`~jtorch._core.torch_function.NOT_OVERRIDABLE` (PyTorch's C++ bindings hand the call
    on as made: ``torch.chunk(proxy, 2)``).
    """

    def deco(fn: _Fn) -> _Fn:
        ns_names = _names(names) if names else (fn.__name__,)
        spaces = _namespaces(namespace)
        if "torch" in spaces and ns_names[0] in torch_function.PYTHON_FUNCTIONS:
            fn = torch_function.overridable(
                "torch." + ns_names[0], torch_function.PYTHON_FUNCTIONS[ns_names[0]])(fn)
        elif spaces and set(spaces) <= _C_BINDING_SPACES and inspect.isfunction(fn) and \
                not hasattr(fn, "__wrapped__") and \
                ns_names[0] not in torch_function.NOT_OVERRIDABLE:
            fn = torch_function.overridable(f"{spaces[0]}.{ns_names[0]}", None)(fn)
        elif spaces == ("torch.nn.functional",) and not hasattr(fn, "__wrapped__") and \
                not ns_names[0].endswith("_"):
            # (a function already wrapped checks the protocol itself: F.relu, F.mse_loss...;
            # the in-place forms, F.elu_, are ops' in-place calls that dispatch finds it for)
            fn = torch_function.overridable(
                "torch.nn.functional." + ns_names[0],
                torch_function.functional_positional(ns_names[0], fn))(fn)
        for ns in spaces:
            for n in ns_names:
                _publish(ns, n, fn)
        method_names = ns_names if method is True else _names(method) if method else ()
        for n in method_names:
            _publish("Tensor", n, fn)
        if tensor_property:
            for n in ns_names:
                _publish("Tensor", n, fn, "property")
        if opdef_of is not None:
            fn._opdef = opdef_of._opdef
        return fn

    return deco


# ------------------------------------------------------------------ Tensor's generated forms
_REFLECTED = frozenset({"__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__rfloordiv__",
                        "__rmod__", "__rpow__", "__rmatmul__", "__rand__", "__ror__", "__rxor__",
                        "__rlshift__", "__rrshift__", "__rdiv__"})
_INPLACE = frozenset({"__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__",
                      "__imod__", "__ipow__", "__imatmul__", "__iand__", "__ior__", "__ixor__",
                      "__ilshift__", "__irshift__", "__idiv__"})

# what a binary operator accepts; for anything else it returns NotImplemented, as PyTorch's
# do, so ``t == None`` is False and ``t + "a"`` is Python's TypeError
# what a Tensor's binary operators take as the other operand (else NotImplemented)
OPERANDS = (TensorBase, numbers.Number, np.ndarray, jax.Array)


def _operator_form(name):
    if name in _REFLECTED:
        return "reflected"
    return "inplace_operator" if name in _INPLACE else "operator"


def inplace_method(public):
    """``Tensor.<name>_`` of op function ``public``: computes out of place, writes in place."""
    opdef = public._opdef
    legacy = getattr(public, "_legacy", None)

    def method(self, *args, **kwargs):
        if legacy is not None and len(args) > 1:   # (a deprecated form: a number, tensors)
            (_, *args), kwargs = legacy((self, *args), kwargs, inplace=True)
        return inplace_call(self, opdef, args, kwargs)

    method.__name__ = method.__qualname__ = opdef.name.rsplit(".", 1)[-1] + "_"
    return method


def operator(public, name):
    """A binary or unary operator (``__add__``, ``__neg__``) running op ``public``."""
    opdef = public._opdef

    def method(self, *args):
        if args and not isinstance(args[0], OPERANDS):
            return NotImplemented
        return dispatch(opdef, (self, *args), {})

    method.__name__ = method.__qualname__ = name
    return method


def _binary_operator(name, call):
    """Operator method ``name``: ``call(self, other)``, or NotImplemented when ``other`` is not
    an operand Tensor's operators take."""

    def method(self, other):
        if not isinstance(other, OPERANDS):
            return NotImplemented
        return call(self, other)

    method.__name__ = method.__qualname__ = name
    return method


# PyTorch's ``__radd__`` and ``__rmul__`` are its ``__add__`` and ``__mul__``: the tensor stays
# the first operand (``(2 * b).grad_fn.next_functions`` lists ``b``'s node, then the number's)
_COMMUTED = frozenset({"__radd__", "__rmul__"})


def reflected_operator(public, name):
    """A reflected operator (``__radd__``): ``other <op> self`` (``self <op> other`` for the
    commutative ``__radd__`` and ``__rmul__``, as PyTorch's)."""
    opdef = public._opdef
    if name in _COMMUTED:
        return _binary_operator(name, lambda self, other: dispatch(opdef, (self, other), {}))
    return _binary_operator(name, lambda self, other: dispatch(opdef, (other, self), {}))


def inplace_operator(public, name):
    """An augmented assignment (``__iadd__``): writes into ``self``."""
    opdef = public._opdef
    return _binary_operator(name, lambda self, other: inplace_call(self, opdef, (other,), {}))
