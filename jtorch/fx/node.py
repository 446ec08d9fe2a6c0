"""torch.fx.node: ``Node``, one operation of a :class:`~jtorch.fx.Graph`, and the helpers that
walk the arguments nodes hold (``map_arg``, ``map_aggregate``).

A node's ``op`` is one of ``placeholder`` (an input), ``get_attr`` (a parameter, buffer or
attribute of the root module), ``call_function``, ``call_method``, ``call_module`` and
``output``; ``target`` is what it calls (a function, a method or attribute name, a module
path). Nodes form a doubly linked list in their graph and keep their use edges both ways:
``all_input_nodes`` (the nodes found in ``args``/``kwargs``, in order) and ``users`` (an
insertion-ordered dict of the nodes using this one), which assigning ``args``/``kwargs``
keeps current.
"""

from __future__ import annotations

import builtins
import typing
from collections.abc import Callable, Mapping, Sequence

from .._core.device import device
from .._core.dtypes import dtype
from .._core.errors import missing_names
from .._core.layout import layout, memory_format
from .._core.torch_function import C_NN_FUNCTIONS, PYTHON_FUNCTIONS
from .._ops._registry import PUBLISHED
from .._tensor import Tensor
from .immutable_collections import immutable_dict, immutable_list

__all__ = ["Argument", "BaseArgumentTypes", "Node", "Target", "has_side_effect",
           "map_aggregate", "map_arg"]

# the functions has_side_effect() marked: dead-code elimination keeps their calls
_SIDE_EFFECTFUL = set()


def has_side_effect(fn):
    """``torch.fx.node.has_side_effect``: mark ``fn`` impure (its call nodes are never
    eliminated as dead code); returns ``fn``."""
    _SIDE_EFFECTFUL.add(fn)
    return fn


def map_aggregate(a, fn):
    """``a`` with ``fn`` applied to every leaf of its tuples, lists, dicts and slices; lists
    and dicts come back as the immutable ones a Node holds (named tuples kept), as PyTorch's."""
    if isinstance(a, tuple):
        items = tuple(map_aggregate(e, fn) for e in a)
        return type(a)(*items) if hasattr(a, "_fields") else items
    if isinstance(a, list):
        return immutable_list([map_aggregate(e, fn) for e in a])
    if isinstance(a, dict):
        out = immutable_dict()
        for k, v in a.items():
            dict.__setitem__(out, k, map_aggregate(v, fn))
        return out
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn),
                     map_aggregate(a.step, fn))
    return fn(a)


def _same(x):
    return x


def map_arg(a, fn):
    """``a`` with every :class:`Node` in it replaced by ``fn(node)``."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _collect(a, out):
    """The nodes in argument ``a``, appended to dict ``out`` (as keys, in order)."""
    map_arg(a, lambda n: out.setdefault(n))
    return out


# where a function published in several namespaces is named: the first in this order
_NAMESPACES = ("torch", "torch.nn.functional", "torch.linalg", "torch.special", "torch.fft",
               "torch.sparse")
_PUBLIC_NAMES = {}
# the namespaces whose functions PyTorch names by the binding's module (jtorch/_C/_prefixed.py)
_C_MODULES = {"torch.linalg": "torch._C._linalg", "torch.special": "torch._C._special",
              "torch.fft": "torch._C._fft"}


def _public_names():
    order = {space: i for i, space in enumerate(_NAMESPACES)}
    found = {}
    for (space, name), entry in PUBLISHED.items():
        rank = order.get(space)
        if rank is not None and found.get(id(entry.obj), (len(order),))[0] > rank:
            if space == "torch.nn.functional" and name in C_NN_FUNCTIONS:
                space, name = "torch._C._nn", C_NN_FUNCTIONS[name]
            elif space == "torch" and (name in PYTHON_FUNCTIONS or name == "einsum"):
                space = "torch.functional"   # PyTorch's Python functions are named there
            elif space in _C_MODULES:   # torch._C._linalg.linalg_vector_norm
                space, name = _C_MODULES[space], f"{space[6:]}_{name}"
            found[id(entry.obj)] = (rank, f"{space}.{name}")
    _PUBLIC_NAMES.update({k: v[1] for k, v in found.items()})


def qualified_name(fn):
    """The name PyTorch prints for a call target: ``operator.add``, ``getattr`` (a builtin),
    ``torch.relu`` (jtorch's public functions by PyTorch's names), else ``module.qualname``."""
    if isinstance(fn, str):
        return fn
    name = getattr(fn, "__name__", None)
    if name is not None and getattr(builtins, name, None) is fn:
        return name
    if not _PUBLIC_NAMES:
        _public_names()
    public = _PUBLIC_NAMES.get(id(fn))
    if public is not None:
        return public
    op_name = getattr(fn, "_fx_name", None)   # an operator (torch.ops.profiler._record_...)
    if op_name is not None:
        return op_name
    module = getattr(fn, "__module__", None) or "builtins"
    if module == "_operator":
        module = "operator"
    return f"{module}.{getattr(fn, '__qualname__', name)}"


def _pretty_target(target):
    if isinstance(target, str):
        return target
    if getattr(target, "__module__", None) in ("builtins", "_operator"):
        prefix = "builtins" if target.__module__ == "builtins" else "operator"
        return f"{prefix}.{target.__name__}"
    return qualified_name(target)


def _format_arg(a):
    if isinstance(a, list):
        return "[" + ", ".join(_format_arg(e) for e in a) + "]"
    if isinstance(a, tuple):
        return "(" + ", ".join(_format_arg(e) for e in a) + ("," if len(a) == 1 else "") + ")"
    if isinstance(a, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in a.items()) + "}"
    return "%" + a.name if isinstance(a, Node) else str(a)


class Node:
    """``torch.fx.Node``: one operation of a graph (see the module docstring)."""

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op not in ("placeholder", "get_attr", "call_function", "call_method",
                      "call_module", "output", "root"):
            raise AssertionError(f"Unsupported node op: {op}")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has "
                             f"type {type(target)} but a Callable is expected")
        if op not in ("call_function", "root") and not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has "
                             f"type {type(target)} but a str is expected")
        self.graph, self.name, self.op, self.target = graph, name, op, target
        self._input_nodes = {}
        self.users = {}
        self.type = return_type
        self.meta = {}
        self._prev = self._next = self
        self._erased = False
        self._args, self._kwargs = (), {}
        self._set_uses(tuple(args), dict(kwargs))

    # ------------------------------------------------------------ the linked list
    @property
    def next(self):
        return self._next

    @property
    def prev(self):
        return self._prev

    def prepend(self, x):
        """Move (or insert) node ``x`` just before this one."""
        if x is self:
            raise AssertionError("Cannot prepend self")
        x._remove_from_list()
        p = self._prev
        p._next, x._prev, x._next, self._prev = x, p, self, x

    def append(self, x):
        """Move (or insert) node ``x`` just after this one."""
        self._next.prepend(x)

    def _remove_from_list(self):
        p, n = self._prev, self._next
        p._next, n._prev = n, p

    # ------------------------------------------------------------ arguments and uses
    @property
    def args(self):
        return self._args

    @args.setter
    def args(self, a):
        self._set_uses(tuple(a), self._kwargs)

    @property
    def kwargs(self):
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k):
        self._set_uses(self._args, dict(k))

    @property
    def all_input_nodes(self):
        """The nodes this one reads, in the order its arguments name them."""
        return list(self._input_nodes)

    def _set_uses(self, args, kwargs):
        for n in self._input_nodes:
            n.users.pop(self, None)
        self._args, self._kwargs = map_aggregate(args, _same), map_aggregate(kwargs, _same)
        self._input_nodes = _collect(kwargs, _collect(args, {}))
        for n in self._input_nodes:
            n.users.setdefault(self)

    def update_arg(self, idx, arg):
        args = list(self._args)
        args[idx] = arg
        self.args = args

    def update_kwarg(self, key, arg):
        self.kwargs = {**self._kwargs, key: arg}

    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True, *,
                              propagate_meta=False):
        """Make every user of this node (for which ``delete_user_cb`` is true) read
        ``replace_with`` instead; returns the users changed."""
        if propagate_meta:
            for k, v in self.meta.items():
                replace_with.meta.setdefault(k, v)
        changed = [u for u in list(self.users) if delete_user_cb(u)]
        for u in changed:
            u.replace_input_with(self, replace_with)
        return changed

    def replace_input_with(self, old_input, new_input):
        """Read ``new_input`` wherever this node's arguments name ``old_input``."""
        def swap(n):
            return new_input if n is old_input else n
        self._set_uses(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def is_impure(self, impure_random=True):
        """Whether dead-code elimination must keep this node: placeholders, outputs, and
        calls of in-place methods, of functions marked by :func:`has_side_effect` and of
        modules that are impure."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_method":
            return self.target.endswith("_") and not self.target.endswith("__")
        if self.op == "call_module":
            mod = self.graph.owning_module
            target = mod.get_submodule(self.target) if mod is not None else None
            return bool(getattr(target, "_is_impure", False))
        return self.target in _SIDE_EFFECTFUL or getattr(self.target, "_is_impure", False)

    # ------------------------------------------------------------ printing
    @property
    def stack_trace(self):
        return self.meta.get("stack_trace")

    @stack_trace.setter
    def stack_trace(self, trace):
        self.meta["stack_trace"] = trace

    def format_node(self, placeholder_names=None, maybe_return_typename=None):
        """The node's line in ``print(graph)`` (None for a placeholder whose name goes to
        ``placeholder_names``)."""
        if self.op == "placeholder":
            if placeholder_names is not None:
                placeholder_names.append(self.target)
                return None
            default = f"(default={self.args[0]})" if self.args else ""
            return (f"%{self.name} : [num_users={len(self.users)}] = "
                    f"placeholder[target={self.target}]{default}")
        if self.op == "get_attr":
            return (f"%{self.name} : [num_users={len(self.users)}] = "
                    f"get_attr[target={self.target}]")
        if self.op == "output":
            return f"return {self.args[0]}"
        return (f"%{self.name} : [num_users={len(self.users)}] = "
                f"{self.op}[target={_pretty_target(self.target)}](args = "
                f"{_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})")

    def __repr__(self):
        return self.name

    def _rename(self, candidate):
        if candidate != self.name:
            self.name = self.graph._namespace.create_name(candidate, None)


# the annotation types PyTorch's FX names (tracers' signatures use them: create_proxy's target)
BaseArgumentTypes = typing.Union[str, int, float, bool, complex, dtype, Tensor, device,
                                 memory_format, layout]
Target = typing.Union[Callable[..., typing.Any], str]
Argument = typing.Union[
    tuple["Argument", ...], Sequence["Argument"], Mapping[str, "Argument"], slice, range,
    Node, BaseArgumentTypes, None]

__getattr__ = missing_names("torch.fx.node", ["normalize_function", "normalize_module"])
