"""``torchvision.models.feature_extraction``: ``get_graph_node_names`` and
``create_feature_extractor`` on jtorch.fx.

A :class:`NodePathTracer` names each node after the module it was recorded in (``layer1.0.relu``,
``layer1.0.add``; a repeated name gets ``_1``, ``_2``...), as torchvision's does; a feature
extractor is the model traced in train and in eval mode, each graph returning the requested
nodes (a dict of their new names), in a module that switches graph with ``train()``/``eval()``.
"""

from __future__ import annotations

import re
import warnings
from collections import OrderedDict

from ... import fx
from ...fx.graph_module import _copy_attr
from ...nn.modules.module import Module

__all__ = ["create_feature_extractor", "get_graph_node_names"]


class LeafModuleAwareTracer(fx.Tracer):
    """A tracer that also treats the classes in ``leaf_modules`` as leaves."""

    def __init__(self, *args, **kwargs):
        self.leaf_modules = tuple(kwargs.pop("leaf_modules", ()))
        super().__init__(*args, **kwargs)

    def is_leaf_module(self, m, module_qualname):
        return isinstance(m, self.leaf_modules) or super().is_leaf_module(m, module_qualname)


class NodePathTracer(LeafModuleAwareTracer):
    """Records ``node_to_qualname``: each node's name by the module path it was made in."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.current_module_qualname = ""
        self.node_to_qualname = OrderedDict()

    def call_module(self, m, forward, args, kwargs):
        old = self.current_module_qualname
        try:
            self.current_module_qualname = self.path_of_module(m)
            if not self.is_leaf_module(m, self.current_module_qualname):
                return forward(*args, **kwargs)
            return self.create_proxy("call_module", self.current_module_qualname, args, kwargs)
        finally:
            self.current_module_qualname = old

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, *_):
        proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr)
        self.node_to_qualname[proxy.node] = self._get_node_qualname(
            self.current_module_qualname, proxy.node)
        return proxy

    def _get_node_qualname(self, module_qualname, node):
        qualname = module_qualname
        if node.op != "call_module":
            qualname = f"{qualname}.{node}" if qualname else str(node)
        if re.match(r".+_[0-9]+$", qualname) is not None:
            qualname = qualname.rsplit("_", 1)[0]
        for existing in reversed(self.node_to_qualname.values()):
            if re.match(rf"{qualname}(_[0-9]+)?$", existing) is not None:
                postfix = existing.replace(qualname, "")
                qualname += f"_{int(postfix[1:]) + 1 if postfix else 1}"
                break
        return qualname


def _set_train_mode(model, mode):
    model.train(mode)
    return model


def _warn_graph_differences(train_tracer, eval_tracer):
    train_nodes = list(train_tracer.node_to_qualname.values())
    eval_nodes = list(eval_tracer.node_to_qualname.values())
    if train_nodes != eval_nodes:
        warnings.warn("NOTE: The nodes obtained by tracing the model in eval mode are a "
                      "subsequence of those obtained in train mode. When choosing nodes for "
                      "feature extraction, you may need to specify output nodes for train and "
                      "eval mode separately.", stacklevel=3)


def get_graph_node_names(model, tracer_kwargs=None, suppress_diff_warning=False,
                         concrete_args=None):
    """The node names of ``model``'s graph, ``(train_nodes, eval_nodes)``, as
    :func:`create_feature_extractor` accepts them."""
    tracer_kwargs = tracer_kwargs or {}
    is_training = model.training
    train_tracer = NodePathTracer(**tracer_kwargs)
    train_tracer.trace(_set_train_mode(model, True), concrete_args=concrete_args)
    eval_tracer = NodePathTracer(**tracer_kwargs)
    eval_tracer.trace(_set_train_mode(model, False), concrete_args=concrete_args)
    if not suppress_diff_warning:
        _warn_graph_differences(train_tracer, eval_tracer)
    model.train(is_training)
    return (list(train_tracer.node_to_qualname.values()),
            list(eval_tracer.node_to_qualname.values()))


class DualGraphModule(fx.GraphModule):
    """A GraphModule holding a train-mode and an eval-mode graph; ``train()``/``eval()`` pick
    the one ``forward`` runs."""

    def __init__(self, root, train_graph, eval_graph, class_name="GraphModule"):
        Module.__init__(self)
        self.__class__.__name__ = class_name
        self.train_graph, self.eval_graph = train_graph, eval_graph
        for graph in (train_graph, eval_graph):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        self.meta = {}
        self.graph = train_graph if root.training else eval_graph
        Module.train(self, root.training)

    def train(self, mode=True):
        if hasattr(self, "train_graph") and mode != self.training:
            self.graph = self.train_graph if mode else self.eval_graph
        return super().train(mode)


def _as_dict(nodes):
    if nodes is None or isinstance(nodes, dict):
        return nodes
    return {str(n): str(n) for n in nodes}


def create_feature_extractor(model, return_nodes=None, train_return_nodes=None,
                             eval_return_nodes=None, tracer_kwargs=None,
                             suppress_diff_warning=False, concrete_args=None):
    """``model`` as a module returning the outputs of ``return_nodes`` (node names, or a dict
    of node name to output name), traced in both train and eval mode."""
    tracer_kwargs = tracer_kwargs or {}
    is_training = model.training
    if all(arg is None for arg in (return_nodes, train_return_nodes, eval_return_nodes)):
        raise ValueError("Either `return_nodes` or `train_return_nodes` and `eval_return_nodes` "
                         "together, should be specified")
    if (train_return_nodes is None) ^ (eval_return_nodes is None):
        raise ValueError("If any of `train_return_nodes` and `eval_return_nodes` are "
                         "specified, then both should be specified")
    if not ((return_nodes is None) ^ (train_return_nodes is None)):
        raise ValueError("If `train_return_nodes` and `eval_return_nodes` are specified, then "
                         "both should be specified")
    if return_nodes is not None:
        train_return_nodes = eval_return_nodes = return_nodes
    wanted = {"train": _as_dict(train_return_nodes), "eval": _as_dict(eval_return_nodes)}
    graphs, tracers = {}, {}
    for mode in ("train", "eval"):
        model.train(mode == "train")
        tracer = NodePathTracer(**tracer_kwargs)
        graph = tracer.trace(model, concrete_args=concrete_args)
        gm = fx.GraphModule(tracer.root, graph, model.__class__.__name__)
        graphs[mode], tracers[mode] = _select_outputs(gm, tracer, dict(wanted[mode])), tracer
    if not suppress_diff_warning:
        _warn_graph_differences(tracers["train"], tracers["eval"])
    extractor = DualGraphModule(model, graphs["train"], graphs["eval"],
                                class_name=model.__class__.__name__)
    model.train(is_training)
    extractor.train(is_training)
    return extractor


def _select_outputs(gm, tracer, wanted):
    """``gm``'s graph returning the nodes named in ``wanted`` (a dict to output names)."""
    available = list(tracer.node_to_qualname.values())
    if len(set(available)) != len(available):
        raise ValueError("There are duplicate nodes! Please raise an issue "
                         "https://github.com/pytorch/vision/issues")
    for query in wanted:
        if not any(re.match(rf"^{query}(\.|$)", n) is not None for n in available):
            raise ValueError(f"node: '{query}' is not present in model. Hint: use "
                             "`get_graph_node_names` to make sure the `return_nodes` you "
                             "specified are present. It may even be that you need to specify "
                             "`train_return_nodes` and `eval_return_nodes` separately.")
    graph = gm.graph
    for n in reversed(graph.nodes):
        if n.op == "output":
            graph.erase_node(n)
    nodes = list(graph.nodes)
    outputs = OrderedDict()
    for n in reversed(nodes):
        qualname = tracer.node_to_qualname.get(n)
        if qualname is None:
            continue
        for query in wanted:
            if ".".join(qualname.split(".")[:query.count(".") + 1]) == query:
                outputs[wanted.pop(query)] = n
                break
    with graph.inserting_after(nodes[-1]):
        graph.output(dict(reversed(list(outputs.items()))))
    graph.eliminate_dead_code()
    gm.recompile()
    return graph
