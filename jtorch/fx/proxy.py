"""torch.fx.proxy: ``Proxy``, the stand-in value a trace runs a program on, and ``TracerBase``,
what turns each operation on proxies into a graph node.

A Proxy holds a :class:`~jtorch.fx.Node`; Python's operators on it record ``operator``'s
functions, attribute reads ``getattr`` (or, when called, a ``call_method``), and jtorch's
functions reach it through ``__torch_function__`` (jtorch/_core/torch_function.py: an op's
argument whose type defines it is handed the call), recorded as ``call_function``. Control flow
on a proxy (``bool``, ``len``, iteration) cannot be recorded and raises :class:`TraceError`.
"""

from __future__ import annotations

import dis
import inspect
import operator

from .._core.device import device
from .._core.dtypes import dtype
from .._core.layout import layout, memory_format
from .._core.torch_function import FOREIGN
from .graph import Graph
from .node import Node, map_aggregate

__all__ = ["Attribute", "GraphAppendingTracer", "Proxy", "TraceError", "TracerBase"]

_BASE_TYPES = (str, int, float, bool, complex, type(None), type(Ellipsis), range, dtype,
               device, layout, memory_format)


class TraceError(ValueError):
    """``torch.fx.proxy.TraceError``: an operation on a proxy that a graph cannot record."""


class TracerBase:
    """``torch.fx.proxy.TracerBase``: makes nodes and proxies in ``self.graph``."""

    graph: Graph
    record_stack_traces = False
    scope = None

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node):
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None,
                     proxy_factory_fn=None):
        """A proxy of a new node calling ``target``; ``args``/``kwargs`` go through
        :meth:`create_arg` (proxies become their nodes)."""
        node = self.create_node(kind, target, self.create_arg(args), self.create_arg(kwargs),
                                name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a):
        """``a`` as a node argument: proxies as their nodes, containers item by item;
        NotImplementedError for a value a graph cannot hold."""
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Node) or isinstance(a, _BASE_TYPES):
            return a
        if isinstance(a, (tuple, list, dict, slice)):
            return self._create_container(a)
        raise NotImplementedError(f"argument of type: {type(a)}")

    def _create_container(self, a):
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                if not isinstance(k, str):
                    k = self.create_arg(k)
                    if isinstance(k, Node):
                        raise RuntimeError("Keys for dictionaries used as an argument cannot "
                                           f"contain a Node. Got key: {k}")
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))
        items = [self.create_arg(e) for e in a]
        return type(a)(*items) if hasattr(a, "_fields") else type(a)(items)

    def to_bool(self, obj):
        raise TraceError("symbolically traced variables cannot be used as inputs to control "
                         "flow")

    def iter(self, obj):
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the "
                         "Proxy is used in a loop or as a *args or **kwargs function argument. "
                         "See the torch.fx docs on pytorch.org for a more detailed explanation "
                         "of what types of control flow can be traced, and check out the Proxy "
                         "docstring for help troubleshooting Proxy iteration errors")

    def keys(self, obj):
        return Attribute(obj, "keys")()


class GraphAppendingTracer(TracerBase):
    """A tracer that only appends to ``graph`` (a Proxy made on a bare graph gets one)."""

    def __init__(self, graph):
        self.graph = graph


class Proxy:
    """``torch.fx.Proxy``: a traced value standing for ``node``'s result."""

    def __init__(self, node, tracer=None):
        self.tracer = tracer if tracer is not None else GraphAppendingTracer(node.graph)
        self.node = node
        FOREIGN[0] = True   # composite functions now look for proxies among their arguments

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):   # copy/pickle probing, as PyTorch's
            raise AttributeError(k)
        return Attribute(self, k)

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self, *args), kwargs)

    def __iter__(self):
        frame = inspect.currentframe().f_back
        inst = next((i for i in dis.get_instructions(frame.f_code)
                     if i.offset >= frame.f_lasti), None)
        if inst is not None and inst.opname == "UNPACK_SEQUENCE":   # a, b = proxy
            return (self[i] for i in range(inst.argval))
        return self.tracer.iter(self)

    def __bool__(self):
        return self.tracer.to_bool(self)

    def keys(self):
        return self.tracer.keys(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want "
                           "this call to be recorded, please call torch.fx.wrap('len') at "
                           "module scope")

    @classmethod
    def __torch_function__(cls, orig_method, types, args=(), kwargs=None):
        tracers = {}

        def find(a):
            if isinstance(a, Proxy):
                tracers[a.tracer] = None
            return a
        map_aggregate((args, kwargs or {}), find)
        if len(tracers) > 1:
            raise RuntimeError(f"Found multiple different tracers {list(tracers)} while trying "
                               f"to trace operations {orig_method}")
        tracer = next(iter(tracers))
        if getattr(orig_method, "__qualname__", "").startswith("Tensor."):
            return tracer.create_proxy("call_method", orig_method.__name__, args, kwargs or {})
        return tracer.create_proxy("call_function", orig_method, args, kwargs or {})


class Attribute(Proxy):
    """``proxy.attr``: a ``getattr`` node, made when first used as a value; called, a
    ``call_method`` node instead."""

    def __init__(self, root, attr):
        self.root, self.attr, self.tracer = root, attr, root.tracer
        self._node = None

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr,
                                                  (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root, *args), kwargs)


def _binary(name, reflected):
    fn = getattr(operator, name)

    def method(self, other):
        args = (other, self) if reflected else (self, other)
        return self.tracer.create_proxy("call_function", fn, args, {})
    return method


def _unary(name):
    fn = getattr(operator, name)

    def method(self):
        return self.tracer.create_proxy("call_function", fn, (self,), {})
    return method


_REFLECTABLE = ("add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "lshift", "rshift",
                "and_", "or_", "xor", "matmul")
for _name in (*_REFLECTABLE, "getitem", "eq", "ne", "lt", "gt", "le", "ge"):
    setattr(Proxy, f"__{_name.strip('_')}__", _binary(_name, False))
for _name in _REFLECTABLE:
    setattr(Proxy, f"__r{_name.strip('_')}__", _binary(_name, True))
for _name in ("neg", "pos", "invert"):
    setattr(Proxy, f"__{_name}__", _unary(_name))
Proxy.__hash__ = object.__hash__
del _name
