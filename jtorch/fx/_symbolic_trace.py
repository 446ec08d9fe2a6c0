"""torch.fx._symbolic_trace: ``Tracer``, ``symbolic_trace`` and ``wrap``.

``Tracer.trace(root)`` runs ``root``'s forward (or the function) on :class:`~jtorch.fx.Proxy`
inputs, one placeholder per parameter, and records what it does. While it runs,
``Module.__call__`` is patched (a leaf module, by default jtorch.nn's own layers but not
``Sequential``, becomes one ``call_module`` node; other modules are traced through),
``Module.__getattr__`` (a parameter read becomes a ``get_attr`` node), the functions
:func:`wrap` named (calls on proxies become ``call_function`` nodes of them) and the
``math`` functions the traced code's module uses. Everything is restored when it returns.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import inspect
import math

from .._ops.typeinfo import _assert
from .._tensor import Tensor
from ..nn.modules.container import Sequential
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from . import graph_module as _graph_module
from .graph import Graph
from .graph_module import GraphModule
from .node import map_aggregate
from .proxy import Proxy, TracerBase

__all__ = ["PH", "Tracer", "symbolic_trace", "wrap"]

# (id of a module's globals, name) -> those globals: the functions wrap() named
_WRAPPED = {}
_MISSING = object()


def wrap(fn_or_name):
    """``torch.fx.wrap``: calls of this module-level function (or function name) on proxies
    are recorded as one ``call_function`` node instead of being traced through; returns
    ``fn_or_name``. It must be called at the top level of a module."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable "
                           "or string name")
    caller = inspect.currentframe().f_back
    if caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    name = fn_or_name if isinstance(fn_or_name, str) else fn_or_name.__name__
    _WRAPPED[(id(caller.f_globals), name)] = caller.f_globals
    return fn_or_name


class _PH:
    """``torch.fx.PH``: in ``concrete_args``, a value left symbolic (a placeholder)."""

    def __repr__(self):
        return "PH"


PH = _PH()


def _proxy_in(args, kwargs):
    found = []
    map_aggregate((args, kwargs), lambda a: found.append(a) if isinstance(a, Proxy) else a)
    return found[0] if found else None


class _Patcher:
    """Attribute and global patches undone in reverse order."""

    def __init__(self):
        self._undo = []

    def setattr(self, obj, name, value):
        self._undo.append((obj, name, obj.__dict__[name] if name in obj.__dict__ else None))
        setattr(obj, name, value)

    def setitem(self, d, name, value):
        self._undo.append((d, name, d.get(name, _MISSING)))
        d[name] = value

    def undo(self):
        for obj, name, old in reversed(self._undo):
            if isinstance(obj, dict):
                if old is _MISSING:
                    del obj[name]
                else:
                    obj[name] = old
            elif old is None:
                delattr(obj, name)
            else:
                setattr(obj, name, old)


def _leaf_call(fn):
    """``fn`` wrapped to record a ``call_function`` node when given a proxy."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        proxy = _proxy_in(args, kwargs)
        if proxy is None:
            return fn(*args, **kwargs)
        out = proxy.tracer.create_proxy("call_function", fn, args, kwargs)
        out.node.meta["is_wrapped"] = True
        return out
    return call


class Tracer(TracerBase):
    """``torch.fx.Tracer``: records a module's (or function's) operations as a Graph."""

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(),
                 param_shapes_constant=False):
        self._autowrap_ids = {id(v) for m in autowrap_modules for k, v in vars(m).items()
                              if not k.startswith("_") and callable(v)}
        self._autowrap_ids.update(id(f) for f in autowrap_functions)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths = None

    def is_leaf_module(self, m, module_qualified_name):
        """jtorch.nn's own layers are leaves (one call_module node), except Sequential."""
        return m.__module__.startswith(("jtorch.nn", "torch.nn")) and \
            not isinstance(m, Sequential)

    def path_of_module(self, mod):
        if self.submodule_paths is None:
            self.submodule_paths = {id(m): n for n, m in self.root.named_modules()}
        path = self.submodule_paths.get(id(mod))
        if path is None:
            raise NameError("module is not installed as a submodule")
        return path

    def call_module(self, m, forward, args, kwargs):
        path = self.path_of_module(m)
        if not self.is_leaf_module(m, path):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", path, args, kwargs)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """A parameter read from a module: a ``get_attr`` proxy of it (one per trace)."""
        if isinstance(attr_val, Parameter):
            for name, p in self.root.named_parameters():
                if p is attr_val:
                    if name not in parameter_proxy_cache:
                        parameter_proxy_cache[name] = self.create_proxy("get_attr", name, (),
                                                                        {})
                    return parameter_proxy_cache[name]
        return attr_val

    def create_arg(self, a):
        """As TracerBase's, and a root's parameters and tensors as ``get_attr`` nodes (a
        tensor the root does not hold is added to it as ``_tensor_constant<i>``)."""
        if isinstance(a, Parameter):
            for name, p in self.root.named_parameters():
                if p is a:
                    return self.create_node("get_attr", name, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, Tensor):
            name = self.tensor_attrs.get(id(a))
            if name is None:
                i = 0
                while hasattr(self.root, f"_tensor_constant{i}"):
                    i += 1
                name = f"_tensor_constant{i}"
                setattr(self.root, name, a)
                self.tensor_attrs[id(a)] = name
            return self.create_node("get_attr", name, (), {})
        if isinstance(a, Module):
            return self.create_node("get_attr", self.path_of_module(a), (), {})
        return super().create_arg(a)

    def _placeholders(self, fn, skip_self, concrete_args):
        """The arguments ``fn`` is traced with: a placeholder proxy per parameter, or the
        concrete value (checked by an assertion node) for those in ``concrete_args``."""
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())[1 if skip_self else 0:]
        concrete = concrete_args or {}
        annotations = getattr(fn, "__annotations__", {})
        args = []
        for p in params:
            default = () if p.default is inspect.Parameter.empty else (p.default,)
            prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
            if p.name not in concrete or concrete[p.name] is PH:
                args.append(self.create_proxy("placeholder", prefix + p.name, default, {},
                                              type_expr=annotations.get(p.name)))
                continue
            value = concrete[p.name]
            ph = self.create_proxy("placeholder", f"{p.name}_1", default, {})
            if value is None:
                self.create_proxy("call_function", _assert_is_none,
                                  (ph, f"{p.name} has been specialized to have value None but "
                                   "got another value"), {})
            elif type(value) in (bool, int, float, str):
                self.create_proxy("call_function", _assert,
                                  (ph == value, f"{p.name} has been specialized to have value "
                                   f"{value} but got another value"), {})
            args.append(value)
        return params, args

    def trace(self, root, concrete_args=None):
        """The Graph of ``root`` (a Module's forward, or a function) run on proxies."""
        if isinstance(root, Module):
            self.root, fn, skip_self = root, type(root).forward, True
        else:
            self.root, fn, skip_self = Module(), root, False
        self.graph = Graph(tracer_cls=type(self))
        self.submodule_paths = None
        self.tensor_attrs = {}
        for mod_name, mod in self.root.named_modules():
            for k, v in vars(mod).items():
                if isinstance(v, Tensor):
                    self.tensor_attrs[id(v)] = f"{mod_name}.{k}" if mod_name else k
            for k, v in mod._buffers.items():
                if v is not None:
                    self.tensor_attrs.setdefault(id(v), f"{mod_name}.{k}" if mod_name else k)
        params, args = self._placeholders(fn, skip_self, concrete_args)
        if skip_self:
            args = [root, *args]
        patcher = _Patcher()
        try:
            self._patch(patcher, getattr(fn, "__globals__", {}))
            call_args, call_kwargs = [], {}
            for p, a in zip(params, args[1:] if skip_self else args):
                if p.kind == p.VAR_POSITIONAL:
                    call_args.extend(a) if not isinstance(a, Proxy) else call_args.append(a)
                elif p.kind == p.VAR_KEYWORD:
                    call_kwargs.update(a if not isinstance(a, Proxy) else {})
                elif p.kind == p.KEYWORD_ONLY:
                    call_kwargs[p.name] = a
                else:
                    call_args.append(a)
            if skip_self:
                call_args.insert(0, root)
            out = fn(*call_args, **call_kwargs)
            self.create_node("output", "output", (self.create_arg(out),), {},
                             type_expr=fn.__annotations__.get("return"))
        finally:
            patcher.undo()
        self.submodule_paths = None
        return self.graph

    def _patch(self, patcher, fn_globals):
        tracer, cache = self, {}
        module_call, module_getattr = Module.__call__, Module.__getattr__

        def call(mod, *args, **kwargs):
            return tracer.call_module(mod, lambda *a, **k: module_call(mod, *a, **k), args,
                                      kwargs)

        def getattr_(mod, attr):
            return tracer.getattr(attr, module_getattr(mod, attr), cache)

        patcher.setattr(Module, "__call__", call)
        patcher.setattr(Module, "__getattr__", getattr_)
        for globals_, name in [(g, n) for (_, n), g in _WRAPPED.items()]:
            fn = globals_.get(name, getattr(builtins, name, None))
            if fn is not None:
                patcher.setitem(globals_, name, _leaf_call(fn))
        for name, value in list(fn_globals.items()):
            if id(value) in self._autowrap_ids:
                patcher.setitem(fn_globals, name, _leaf_call(value))


def _assert_is_none(value, msg):
    assert value is None, msg


def symbolic_trace(root, concrete_args=None):
    """``torch.fx.symbolic_trace``: ``root`` (a Module or a function) traced by a
    :class:`Tracer` into a :class:`GraphModule`."""
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)


class _CodeOnlyModule(Module):
    """A module holding an unpickled GraphModule's ``__dict__``, its class's ``forward`` the
    GraphModule's code."""

    def __init__(self, body):
        super().__init__()
        self.__dict__ = body


class _KeepModules(Tracer):
    def is_leaf_module(self, m, module_qualified_name):
        return True


def reduce_graph_module(body, src, refs):
    """Unpickle a GraphModule (``GraphModule.__reduce__``): run its code's source with its
    globals (``refs``: name -> (a module's name?, the module's name or the object)), trace it,
    every submodule a leaf, and make the GraphModule of that graph and ``body``."""
    namespace = {name: importlib.import_module(ref) if is_module else ref
                 for name, (is_module, ref) in refs.items()}
    code = compile(src, "<eval_with_key>", "exec", dont_inherit=True)
    exec(code, namespace)   # noqa: S102 (generated source)
    root = type("CodeOnlyModule", (_CodeOnlyModule,), {"forward": namespace["forward"]})(body)
    gm = GraphModule(root, _KeepModules().trace(root),
                     body.get("_graphmodule_cls_name", "GraphModule"))
    for k, v in body.items():
        if not hasattr(gm, k):
            setattr(gm, k, v)
    return gm


_graph_module.REDUCE[0] = reduce_graph_module
