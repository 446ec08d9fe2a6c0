"""torch.fx.interpreter: ``Interpreter``, which runs a GraphModule node by node, and
``Transformer``, an Interpreter whose values are proxies, so running it builds a new graph.

``run_node`` fetches a node's arguments from the values computed so far and calls the method
named after its opcode (``placeholder``, ``get_attr``, ``call_function``, ``call_method``,
``call_module``, ``output``); subclasses override those to change what a node does.
"""

from __future__ import annotations

import inspect

from ._symbolic_trace import Tracer
from .graph import Graph
from .graph_module import GraphModule
from .node import map_aggregate, map_arg
from .proxy import Proxy

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """``torch.fx.Interpreter``: runs ``module``'s graph (or ``graph``) one node at a time,
    freeing each value after its last use unless ``garbage_collect_values`` is false."""

    def __init__(self, module, garbage_collect_values=True, graph=None):
        self.module = module
        self.submodules = dict(module.named_modules())
        self.graph = graph if graph is not None else module.graph
        self.env = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        self.user_to_last_uses = {}
        if garbage_collect_values:
            seen = set()
            for node in reversed(self.graph.nodes):
                for n in node._input_nodes:
                    if n not in seen:
                        seen.add(n)
                        self.user_to_last_uses.setdefault(node, []).append(n)

    def run(self, *args, initial_env=None, enable_io_processing=True):
        """The graph's output for inputs ``args``."""
        self.env = initial_env if initial_env is not None else {}
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            self.env[node] = self.run_node(node)
            if self.garbage_collect_values:
                for used in self.user_to_last_uses.get(node, []):
                    del self.env[used]
            if node.op == "output":
                return self.env[node]
        return None

    def boxed_run(self, args_list):
        args = list(args_list)
        args_list.clear()
        return self.run(*args)

    def run_node(self, n):
        """Run node ``n``: its arguments from the environment, then ``self.<n.op>``."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    # ------------------------------------------------------------ one method per opcode
    def placeholder(self, target, args, kwargs):
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration:
            if args:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but one "
                               "was not passed in!") from None

    def get_attr(self, target, args, kwargs):
        return self.fetch_attr(target)

    def call_function(self, target, args, kwargs):
        return target(*args, **kwargs)

    def call_method(self, target, args, kwargs):
        self_obj, *rest = args
        return getattr(self_obj, target)(*rest, **kwargs)

    def call_module(self, target, args, kwargs):
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target, args, kwargs):
        return args[0]

    # ------------------------------------------------------------ helpers
    def fetch_attr(self, target):
        obj = self.module
        atoms = target.split(".")
        for i, atom in enumerate(atoms):
            if not hasattr(obj, atom):
                raise RuntimeError("Node referenced nonexistent target "
                                   f"{'.'.join(atoms[:i + 1])}")
            obj = getattr(obj, atom)
        return obj

    def fetch_args_kwargs_from_env(self, n):
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args, n):
        def value(arg):
            if arg not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {arg}! Run "
                                   "Graph.lint() to diagnose such an error")
            return self.env[arg]
        return map_arg(args, value)


class _TransformerTracer(Tracer):
    def __init__(self, graph, root):
        super().__init__()
        self.graph, self.root, self.tensor_attrs = graph, root, {}

    def is_leaf_module(self, m, module_qualified_name):
        return True


class Transformer(Interpreter):
    """``torch.fx.Transformer``: ``transform()`` runs the graph on proxies and returns the
    GraphModule of what was recorded; override the opcode methods to rewrite nodes."""

    def __init__(self, module):
        super().__init__(module)
        self.new_graph = Graph()
        self.tracer = _TransformerTracer(self.new_graph, module)

    def placeholder(self, target, args, kwargs):
        default = next(iter(args), inspect.Parameter.empty)
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target, args, kwargs):
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target, args, kwargs):
        submod = self.fetch_attr(target)
        return self.tracer.call_module(submod, submod.forward, args, kwargs)

    def call_function(self, target, args, kwargs):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def transform(self):
        result = super().run(enable_io_processing=False)
        if result is not None:
            self.new_graph.output(map_aggregate(
                result, lambda a: a.node if isinstance(a, Proxy) else a))
        return GraphModule(self.module, self.new_graph)
