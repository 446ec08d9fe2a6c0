"""torch.ops: operators by namespace, ``torch.ops.<namespace>.<name>``.

The operators here are the ones ``torch.library.custom_op`` made (``jtorch/library.py``
registers each with :func:`register`), as PyTorch's ``OpOverloadPacket`` objects: calling one
runs the op, ``.default`` is its one overload. Any namespace can be read (PyTorch makes them on
first use); an operator it does not hold raises PyTorch's AttributeError.

``torch.ops.aten.<name>`` maps to jtorch's op of the same name (``jtorch.<name>``, else the
``Tensor`` method: ``aten.view(x, shape)`` is ``x.view(shape)``; the aten-only ``alias``,
``slice``, ``index``, ``_to_copy`` and ``_pin_memory`` are in jtorch/_ops/aten_only.py), and
every overload name (``aten.add.Tensor``) to that same function: jtorch's ops take every form
of their arguments. aten operators jtorch has no op for raise NotImplementedError (when read;
the few private ones PyTorch Geometric's dispatch tables name, when called). See
docs/differences.md. ``torch.ops.profiler._record_function_enter``/``_exit`` open and close
a record_function range. An operator called with an argument that defines
``__torch_function__`` (a subclass, an FX proxy) hands the call to it, as PyTorch's do.
"""

from __future__ import annotations

import types

import jtorch

from ._core import torch_function
from ._core.errors import is_stand_in, missing_attribute, missing_function
from ._ops.aten_only import ATEN_ONLY, STAND_INS
from .autograd.profiler import record_function

__all__ = ["OpOverload", "OpOverloadPacket", "load_library", "import_module",
           "loaded_libraries"]

_OPS: dict = {}          # "namespace::name" -> OpOverloadPacket
_NAMESPACES: dict = {}   # "namespace" -> _OpNamespace

loaded_libraries: set = set()
load_library = missing_function("torch.ops.load_library")
import_module = missing_function("torch.ops.import_module")


def _call(op, args, kwargs):
    """Run operator ``op`` (an OpOverload or OpOverloadPacket); an argument defining
    ``__torch_function__`` (a subclass, an FX Proxy) gets the call, as PyTorch's operators
    hand it on."""
    over = torch_function.overloaded_args(args, kwargs)
    if over:
        return torch_function.handle(op, over, args, kwargs, f"torch.ops.{op}")
    return op._op(*args, **kwargs)


class OpOverload:
    """One overload of an operator (``torch.ops.ns.name.default``): calling it runs the op."""

    def __init__(self, namespace, opname, overloadname, fn, schema=None, packet=None):
        self._namespace, self._opname, self._overloadname = namespace, opname, overloadname
        self._op = fn
        self._name = f"{namespace}::{opname}"
        self._schema = schema
        self.overloadpacket = packet
        self.__name__ = f"{opname}.{overloadname}"
        self.__qualname__ = self._name
        self._fx_name = f"torch.ops.{namespace}.{opname}.{overloadname}"   # in FX's code

    def __call__(self, /, *args, **kwargs):
        return _call(self, args, kwargs)

    @property
    def namespace(self):
        return self._namespace

    def name(self):
        """``"namespace::name"`` (``".overload"`` added for an overload other than default)."""
        if self._overloadname == "default":
            return self._name
        return f"{self._name}.{self._overloadname}"

    def __repr__(self):
        return f"<OpOverload(op='{self._namespace}.{self._opname}', " \
               f"overload='{self._overloadname}')>"

    def __str__(self):
        return f"{self._namespace}.{self._opname}.{self._overloadname}"


class OpOverloadPacket:
    """An operator by name (``torch.ops.ns.name``): calling it runs the op; its overloads are
    attributes (``.default``)."""

    def __init__(self, namespace, opname, fn, schema=None):
        self._namespace, self._opname = namespace, opname
        self._qualified_op_name = f"{namespace}::{opname}"
        self._op = fn
        self._schema = schema
        self.__name__ = opname
        self._fx_name = f"torch.ops.{namespace}.{opname}"   # how FX's code names it
        self.default = OpOverload(namespace, opname, "default", fn, schema, self)

    def __call__(self, /, *args, **kwargs):
        return _call(self, args, kwargs)

    def overloads(self):
        return ["default"]

    def __getattr__(self, name):
        raise AttributeError(f"The underlying op of '{self}' has no overload name '{name}'")

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._namespace}.{self._opname}')>"

    def __str__(self):
        return f"{self._namespace}.{self._opname}"


class _AtenPacket(OpOverloadPacket):
    """``torch.ops.aten.<name>``: jtorch's function; every overload name gives the same one."""

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(f"The underlying op of '{self}' has no overload name '{name}'")
        overload = OpOverload(self._namespace, self._opname, name, self._op, packet=self)
        setattr(self, name, overload)
        return overload

    def overloads(self):
        return [k for k, v in vars(self).items() if isinstance(v, OpOverload)]


class _OpNamespace(types.ModuleType):
    """``torch.ops.<namespace>``: its operators are attributes."""

    def __init__(self, name):
        super().__init__(f"jtorch.ops.{name}")
        self.name = name

    def __getattr__(self, op_name):
        packet = _OPS.get(f"{self.name}::{op_name}")
        if packet is None or op_name.startswith("__"):
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute "
                                 f"'{op_name}'")
        setattr(self, op_name, packet)
        return packet

    def __dir__(self):
        prefix = self.name + "::"
        return sorted([*super().__dir__(), *(q[len(prefix):] for q in _OPS
                                             if q.startswith(prefix))])


class _AtenNamespace(_OpNamespace):
    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(f"'_OpNamespace' 'aten' object has no attribute '{op_name}'")
        fn = _jtorch_op(op_name)
        if fn is None and op_name in STAND_INS:
            fn = missing_function(f"torch.ops.aten.{op_name}")
        if fn is None:
            raise missing_attribute(f"torch.ops.aten.{op_name}")
        packet = _AtenPacket("aten", op_name, fn)
        setattr(self, op_name, packet)
        return packet


def _jtorch_op(name):
    """jtorch's op ``name`` (an aten-only op, a function from the op table, else a Tensor
    method), or None."""
    if name in ATEN_ONLY:
        return ATEN_ONLY[name]
    for owner in (jtorch, jtorch.Tensor):
        fn = getattr(owner, name, None) if not name.startswith("_") else None
        if callable(fn) and not isinstance(fn, type) and not is_stand_in(fn) and \
                getattr(fn, "__module__", "").startswith("jtorch._ops"):
            return fn
    return None


def _namespace(name):
    ns = _NAMESPACES.get(name)
    if ns is None:
        ns = _NAMESPACES[name] = (_AtenNamespace if name == "aten" else _OpNamespace)(name)
    return ns


def register(namespace, opname, fn, schema=None):
    """Make ``torch.ops.<namespace>.<opname>`` call ``fn`` (replacing an operator of that name,
    as PyTorch's custom_op does); returns its OpOverloadPacket."""
    packet = OpOverloadPacket(namespace, opname, fn, schema)
    _OPS[f"{namespace}::{opname}"] = packet
    ns = _NAMESPACES.get(namespace)
    if ns is not None and opname in vars(ns):
        setattr(ns, opname, packet)
    return packet


def lookup(qualname):
    """The OpOverloadPacket of ``"namespace::name"``, or None."""
    return _OPS.get(qualname)


# torch.ops.profiler: a record_function range as two operators (PyTorch's record_function
# opens and closes its range through them; an FX tracer records them as nodes)
def _record_function_enter(name, args=None):
    """Open a profiler range named ``name``; returns its handle (``_record_function_exit``)."""
    return record_function(name, args).__enter__()


def _record_function_exit(handle):
    """Close the range ``handle`` (from ``_record_function_enter``)."""
    handle.__exit__(None, None, None)


for _name, _fn in (("_record_function_enter", _record_function_enter),
                   ("_record_function_enter_new", _record_function_enter),
                   ("_record_function_exit", _record_function_exit)):
    register("profiler", _name, _fn)
del _name, _fn


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(f"module 'jtorch.ops' has no attribute '{name}'")
    return _namespace(name)
