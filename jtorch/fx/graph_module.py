"""torch.fx.graph_module: ``GraphModule``, a Module whose ``forward`` is generated from a Graph.

Made from a root (a Module, or a dict of attribute paths to values) and a graph, it copies the
submodules, parameters and buffers the graph's ``get_attr`` and ``call_module`` nodes name (a
buffer stays a buffer, a parameter a parameter) and compiles ``graph.python_code("self")``
into ``forward``. Each GraphModule has a class of its own (named after the traced class, as
PyTorch's), since ``forward`` is set on the class; ``recompile()`` regenerates it after the
graph is edited. Pickled (``copy.deepcopy`` of a module holding one, ``torch.save``), it is
its ``__dict__`` but the graph, its code and the code's globals; unpickling runs the code and
traces it again, every submodule a leaf, as PyTorch's ``reduce_graph_module`` does. A copy
(``copy.copy``, ``deepcopy``, unpickled) is a class named ``GraphModule``, as PyTorch's.
"""

from __future__ import annotations

import copy
import itertools
import linecache
import types

from ..nn.modules.module import Module
from .graph import Graph

__all__ = ["GraphModule"]

_KEYS = itertools.count()
# how an unpickled GraphModule is made again: jtorch.fx._symbolic_trace's reduce_graph_module
# (registered there, as that module imports this one)
REDUCE = [None]


def _copy_attr(src, dst, target):
    """Set ``dst.<target>`` to ``src.<target>``, making the modules on the path as needed."""
    *path, field = target.split(".")
    for item in path:
        sub_src = getattr(src, item)
        sub_dst = getattr(dst, item, None)
        if sub_dst is sub_src:   # a module on the path is copied already, and all it holds
            return
        if sub_dst is None:
            sub_dst = Module()
            setattr(dst, item, sub_dst)
        src, dst = sub_src, sub_dst
    value = getattr(src, field)
    if isinstance(value, Module) or field not in src._buffers:
        setattr(dst, field, value)
    else:
        dst.register_buffer(field, value, persistent=field not in
                            getattr(src, "_non_persistent_buffers_set", ()))


def _get_attr(module, target):
    """``module.<target>`` (a dotted path)."""
    for item in target.split("."):
        module = getattr(module, item)
    return module


def _assign_attr(value, dst, target):
    *path, field = target.split(".")
    for item in path:
        if not hasattr(dst, item):
            setattr(dst, item, Module())
        dst = getattr(dst, item)
    setattr(dst, field, value)


class GraphModule(Module):
    """``torch.fx.GraphModule``: ``forward`` generated from ``graph`` (see the module
    docstring). ``code`` is its source, ``graph`` the graph (assigning it recompiles)."""

    def __new__(cls, *args, **kwargs):
        while cls.__name__ == "GraphModuleImpl":
            cls = cls.__mro__[1]

        class GraphModuleImpl(cls):
            pass
        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(f"Node {node} referenced target {node.target} but "
                                           "that target was not provided in ``root``!")
                    _assign_attr(root[node.target], self, node.target)
        else:
            raise RuntimeError("Unsupported type " + str(root) + " passed for root!")
        self.meta = {}
        self.graph = graph

    @property
    def graph(self):
        return self._graph

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph instance, but got {type(g)}")
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self):
        """The generated source of ``forward``."""
        return self._code

    def recompile(self):
        """Regenerate ``forward`` from ``self.graph`` (call it after editing the graph)."""
        python_code = self._graph.python_code(root_module="self")
        self._code = python_code.src
        key = f"<eval_with_key>.{next(_KEYS)}"
        linecache.cache[key] = (len(self._code), None, self._code.splitlines(True), key)
        namespace = dict(python_code.globals)
        # (dont_inherit: annotations stay objects, not this module's postponed strings)
        code = compile(self._code, key, "exec", dont_inherit=True)
        exec(code, namespace)   # noqa: S102 (generated source)
        type(self).forward = namespace["forward"]
        return python_code

    # ------------------------------------------------------------ submodules by path
    def add_submodule(self, target, m):
        """Set submodule ``target`` (a dotted path) to ``m``, making the modules on the path as
        needed; False when something on the path is not a Module."""
        *path, field = target.split(".")
        mod = self
        for item in path:
            sub = getattr(mod, item, None)
            if sub is None:
                sub = Module()
                mod.add_module(item, sub)
            if not isinstance(sub, Module):
                return False
            mod = sub
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target):
        """Delete submodule ``target``; False when it is not there (or not a Module)."""
        *path, field = target.split(".")
        mod = self
        for item in path:
            mod = getattr(mod, item, None)
            if not isinstance(mod, Module):
                return False
        if not isinstance(getattr(mod, field, None), Module):
            return False
        delattr(mod, field)
        return True

    def delete_all_unused_submodules(self):
        """Delete the submodules the graph does not use (no ``call_module`` or ``get_attr``
        node names them, a module inside them, or a module they are inside)."""
        used = set()
        for node in self._graph.nodes:
            if node.op in ("call_module", "get_attr") and isinstance(node.target, str):
                parts = node.target.split(".")
                used.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
                if node.op == "call_module":
                    try:
                        sub = self.get_submodule(node.target)
                    except AttributeError:
                        continue
                    used.update(f"{node.target}.{name}" for name, _ in sub.named_modules()
                                if name)
        for name in [name for name, _ in self.named_modules() if name and name not in used]:
            self.delete_submodule(name)

    def print_readable(self, print_output=True, include_stride=False, include_device=False,
                       colored=False, **kwargs):
        """``forward``'s source as a class (what ``print`` shows, and returns it)."""
        src = self._graph.python_code("self", verbose=True).src
        lines = src.strip("\n").split("\n")[:-1]   # (the last is the body's closing blank)
        out = f"class {self._get_name()}(torch.nn.Module):\n" + \
            "".join(f"    {line}\n" if line.strip() else "\n" for line in lines)
        if print_output:
            print(out)
        return out

    def __str__(self):
        return (f"{super().__str__()}\n{self._code}\n"
                "# To see more debug info, please use `graph_module.print_readable()`")

    def __deepcopy__(self, memo):
        fake = Module()
        fake.__dict__ = copy.deepcopy({k: v for k, v in self.__dict__.items()
                                       if k != "_graph"}, memo)
        graph = Graph()
        out, output = graph.graph_copy(self._graph, {}, return_output_node=True)
        graph.output(out, output.type)
        return GraphModule(fake, graph)

    def __reduce__(self):
        python_code = self._graph.python_code("self")
        refs = {name: (True, obj.__name__) if isinstance(obj, types.ModuleType) else (False, obj)
                for name, obj in python_code.globals.items()}
        body = {k: v for k, v in self.__dict__.items() if k != "_graph"}
        return REDUCE[0], (body, python_code.src, refs)

    def __copy__(self):
        fake = Module()
        fake.__dict__ = dict(self.__dict__)
        return GraphModule(fake, self._graph)
