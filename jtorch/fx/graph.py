"""torch.fx.graph: ``Graph``, the list of :class:`~jtorch.fx.Node` s a trace records and passes
edit.

Nodes are kept in a circular doubly linked list around a ``root`` sentinel; new nodes go in at
the insertion point (the end, or where ``inserting_before``/``inserting_after`` put it).
Names come from one :class:`~jtorch.fx._codegen.Namespace` per graph, so they are unique and
valid Python identifiers; ``python_code`` (jtorch/fx/_codegen.py) writes the graph as source.
"""

from __future__ import annotations

import contextlib
import inspect
import re

from ._codegen import Namespace, PythonCode, python_code
from .node import Node, map_arg, qualified_name

__all__ = ["Graph", "PythonCode"]

_CAMEL = re.compile(r"(?<=[a-z])([A-Z])")


def _target_to_str(target):
    if callable(target):
        # a binding's own name where PyTorch's is one (torch._C._linalg.linalg_vector_norm)
        public = qualified_name(target)
        name = public.rsplit(".", 1)[1] if public.startswith("torch._C.") else target.__name__
    else:
        name = target
        if name.startswith("__") and name.endswith("__") and len(name) > 4:
            name = name[2:-2]
    return _CAMEL.sub(r"_\1", name).lower()


class _NodeList:
    """``graph.nodes``: the nodes in order (a node erased while iterating is skipped)."""

    def __init__(self, graph, reverse=False):
        self._graph, self._reverse = graph, reverse

    def __len__(self):
        return self._graph._len

    def __iter__(self):
        root = self._graph._root
        step = "_prev" if self._reverse else "_next"
        cur = getattr(root, step)
        while cur is not root:
            if not cur._erased:
                yield cur
            cur = getattr(cur, step)

    def __reversed__(self):
        return iter(_NodeList(self._graph, not self._reverse))

    def __repr__(self):
        return repr(list(self))


class Graph:
    """``torch.fx.Graph``: the nodes of a program, in order (see the module docstring)."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._len = 0
        self._namespace = Namespace()
        self._insert = self._root.prepend
        self.owning_module = owning_module
        self._tracer_cls, self._tracer_extras = tracer_cls, tracer_extras

    @property
    def nodes(self):
        return _NodeList(self)

    def find_nodes(self, *, op, target=None, sort=True):
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ------------------------------------------------------------ making nodes
    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """A new node at the insertion point, named after ``name`` or its target."""
        candidate = name if name is not None else _target_to_str(target)
        node = Node(self, self._namespace.create_name(candidate, None), op, target,
                    args or (), kwargs or {}, type_expr)
        self._insert(node)
        self._len += 1
        return node

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None, name=None):
        return self.create_node("call_function", the_function, args, kwargs, name=name,
                                type_expr=type_expr)

    def output(self, result, type_expr=None):
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(self, node, arg_transform=lambda x: x):
        """A copy of ``node`` (from any graph) here, its input nodes mapped by
        ``arg_transform``."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        copy = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        copy.meta = dict(node.meta)
        return copy

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copy ``g``'s nodes here (``val_map``: its nodes to theirs, filled in); returns the
        value its output node returns (or the output node, with ``return_output_node``)."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                out = map_arg(node.args[0], lambda n: val_map[n])
                return (out, node) if return_output_node else out
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    # ------------------------------------------------------------ where new nodes go
    @contextlib.contextmanager
    def _inserting(self, insert):
        prev, self._insert = self._insert, insert
        try:
            yield
        finally:
            self._insert = prev

    def inserting_before(self, n=None):
        """Context manager: new nodes go just before ``n`` (the start of the graph for None)."""
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return self._inserting(n.prepend)

    def inserting_after(self, n=None):
        """Context manager: new nodes go just after ``n`` (the end of the graph for None)."""
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return self._inserting(n.append)

    # ------------------------------------------------------------ removing nodes
    def erase_node(self, to_erase):
        """Remove a node that has no users."""
        if to_erase.users:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had "
                               f"{len(to_erase.users)} users in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._set_uses((), {})

    def eliminate_dead_code(self, is_impure_node=None):
        """Erase the nodes whose values nothing uses and that have no side effects; returns
        whether any was erased."""
        impure = is_impure_node or (lambda n: n.is_impure())
        changed = False
        for node in reversed(self.nodes):
            if not node.users and not impure(node):
                self.erase_node(node)
                changed = True
        return changed

    # ------------------------------------------------------------ checking and printing
    def lint(self):
        """Check the graph's invariants: nodes belong to it, inputs come before their users,
        names are unique, and get_attr/call_module targets exist in the owning module."""
        seen, names = set(), set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' does not belong "
                                       "to this Graph, but was used as an argument! If you "
                                       "are copying nodes from another graph, make sure to "
                                       "use ``arg_transform`` on node_copy() to remap values"
                                       f"\n{self}")
                if arg not in seen:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it "
                                       "has been defined! Please check that Nodes in the "
                                       f"graph are topologically ordered\n{self}")
            if node.name in names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen.add(node)
            names.add(node.name)
            if self.owning_module is not None and node.op in ("get_attr", "call_module"):
                self._check_target(node)

    def _check_target(self, node):
        obj = self.owning_module
        for i, atom in enumerate(node.target.split(".")):
            if not hasattr(obj, atom):
                seen = ".".join(node.target.split(".")[:i])
                raise RuntimeError(f"Node {node} target {node.target} references nonexistent "
                                   f"attribute {atom} of {seen}")
            obj = getattr(obj, atom)

    def python_code(self, root_module, *, verbose=False, **kwargs):
        return python_code(self, root_module, verbose)

    def __str__(self):
        return "graph():" + "".join("\n    " + n.format_node() for n in self.nodes)

    def print_tabular(self):
        """Print the nodes as a table (opcode, name, target, args, kwargs); needs the
        ``tabulate`` package, as PyTorch's."""
        try:
            from tabulate import tabulate  # an optional dependency, as in PyTorch
        except ImportError:
            print("`print_tabular` relies on the library `tabulate`, which could not be found "
                  "on this machine. Run `pip install tabulate` to install the library.")
            raise
        rows = [[n.op, n.name, n.target, n.args, n.kwargs] for n in self.nodes]
        print(tabulate(rows, headers=["opcode", "name", "target", "args", "kwargs"]))
