"""torch.fx on jtorch: symbolic tracing into a Graph, GraphModule, Interpreter and Transformer.

``symbolic_trace(module_or_function)`` runs the program on :class:`Proxy` values and records a
:class:`Graph` of :class:`Node` s (jtorch's functions reach a proxy through the
``__torch_function__`` protocol, jtorch/_core/torch_function.py); a :class:`GraphModule`
compiles the graph back into Python. The files, each one concept: ``node.py``, ``graph.py``
(with ``_codegen.py``, the generated source), ``proxy.py``, ``_symbolic_trace.py`` (Tracer,
``wrap``), ``graph_module.py``, ``interpreter.py``, ``passes/shape_prop.py``,
``subgraph_rewriter.py`` (``replace_pattern``, with ``passes/utils/matcher_utils.py``),
``immutable_collections.py`` (what a node's args and kwargs hold). The other FX
names raise NotImplementedError naming the PyTorch API (docs/differences.md).
"""

from __future__ import annotations

from .._core.errors import torch_name_fallback
from ._symbolic_trace import (
           PH as PH,
           Tracer as Tracer,
           symbolic_trace as symbolic_trace,
           wrap as wrap,
)
from .graph import Graph as Graph
from .graph_module import GraphModule as GraphModule
from .interpreter import Interpreter as Interpreter, Transformer as Transformer
from .node import Node as Node, has_side_effect as has_side_effect, map_arg as map_arg
from .proxy import Proxy as Proxy
from .subgraph_rewriter import replace_pattern as replace_pattern

__all__ = ["PH", "Graph", "GraphModule", "Interpreter", "Node", "Proxy", "Tracer",
           "Transformer", "has_side_effect", "map_arg", "replace_pattern", "symbolic_trace",
           "wrap"]

__getattr__ = torch_name_fallback("torch.fx")
