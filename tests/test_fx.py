"""torch.fx on jtorch against PyTorch 2.13's: the same modules traced in both, compared by graph
text, generated code, node opcodes and targets, outputs and gradients through the GraphModule;
graph edits applied identically; Interpreter, Transformer and ShapeProp; ``wrap`` (libraries
call it at import); PyTorch's errors."""

from __future__ import annotations

import copy
import io
import operator
import pickle

import numpy as np
import pytest
import torch
from helpers import assert_close, raises_like
from nn_helpers import copy_weights

import jtorch


def _helper(x):
    return x + 1


def _leaf(x, k):
    return x * k


torch.fx.wrap("_leaf")
jtorch.fx.wrap("_leaf")


def _forget_wraps_in(namespace):
    table = torch.fx._symbolic_trace._wrapped_fns_to_patch
    for key in [k for k in table if k[0] == id(namespace)]:
        del table[key]
    table = jtorch.fx._symbolic_trace._WRAPPED
    for key in [k for k in table if k[0] == id(namespace)]:
        del table[key]


# ------------------------------------------------------------------ the models, in both libraries
def _mlp(T):
    return T.nn.Sequential(T.nn.Linear(4, 8), T.nn.ReLU(), T.nn.Linear(8, 3))


def _cnn(T):
    class CNN(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.features = T.nn.Sequential(T.nn.Conv2d(1, 4, 3, padding=1),
                                            T.nn.BatchNorm2d(4), T.nn.ReLU(),
                                            T.nn.MaxPool2d(2))
            self.fc = T.nn.Linear(4 * 4 * 4, 5)

        def forward(self, x):
            x = self.features(x)
            x = T.flatten(x, 1)
            return T.nn.functional.gelu(self.fc(x))
    return CNN()


def _functional(T):
    F = T.nn.functional

    class Functional(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = T.nn.Linear(4, 4)
            self.register_buffer("scale", T.ones(4) * 2)

        def forward(self, x, y):
            a = T.relu(x)
            b = F.relu(a)
            c = x.view(x.size(0), -1) + 1
            d = T.cat([a, b], dim=1)
            e = d[:, :4] * self.scale - y
            f = T.add(self.lin(e), 1, alpha=2)
            g = _leaf(f, 3)
            h = (2 * g) @ self.lin.weight.t() / 4
            i = F.dropout(h, 0.1, self.training)
            return {"out": -i + c, "parts": (a, d.sum(1))}
    return Functional()


MODELS = {"mlp": (_mlp, [(2, 4)]), "cnn": (_cnn, [(2, 1, 8, 8)]),
          "functional": (_functional, [(2, 4), (2, 4)])}


def _pair(name, seed=0):
    make, shapes = MODELS[name]
    torch.manual_seed(seed)
    tm, jm = make(torch), make(jtorch)
    copy_weights(tm, jm)
    tm.eval()
    jm.eval()
    rng = np.random.default_rng(seed)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    return tm, jm, inputs


def _traced(name):
    tm, jm, inputs = _pair(name)
    return torch.fx.symbolic_trace(tm), jtorch.fx.symbolic_trace(jm), inputs


def _target_name(t):
    return t if isinstance(t, str) else t.__name__


def _summary(gm):
    return [(n.op, n.name, _target_name(n.target)) for n in gm.graph.nodes]


def _run_both(tgm, jgm, inputs, grad=True):
    ti = [torch.tensor(a, requires_grad=grad) for a in inputs]
    ji = [jtorch.tensor(a, requires_grad=grad) for a in inputs]
    tout, jout = tgm(*ti), jgm(*ji)
    flat_t = torch.utils._pytree.tree_leaves(tout)
    flat_j = jtorch.utils._pytree.tree_leaves(jout)
    assert_close(flat_j, flat_t, atol=1e-5, rtol=1e-5)
    if grad:
        sum(o.sum() for o in flat_t).backward()
        sum(o.sum() for o in flat_j).backward()
        assert_close([x.grad for x in ji], [x.grad for x in ti], atol=1e-5, rtol=1e-5)


# ------------------------------------------------------------------ tracing
@pytest.mark.parametrize("name", sorted(MODELS))
def test_symbolic_trace_graph_and_code_match_torch(name):
    tgm, jgm, _ = _traced(name)
    assert str(jgm.graph) == str(tgm.graph)
    assert jgm.code == tgm.code
    assert _summary(jgm) == _summary(tgm)
    assert type(jgm).__name__ == type(tgm).__name__
    assert isinstance(jgm, jtorch.fx.GraphModule) and isinstance(jgm, jtorch.nn.Module)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_graph_module_outputs_and_gradients_match_torch(name):
    tgm, jgm, inputs = _traced(name)
    _run_both(tgm, jgm, inputs)


def test_graph_module_state_is_what_the_graph_uses():
    tgm, jgm, _ = _traced("functional")
    assert sorted(jgm.state_dict()) == sorted(tgm.state_dict())
    assert [n for n, _ in jgm.named_buffers()] == [n for n, _ in tgm.named_buffers()]
    assert sorted(n for n, _ in jgm.named_modules()) == sorted(n for n, _ in tgm.named_modules())


def test_trace_a_function_with_math_and_methods():
    def fn(T):
        def f(x, n=2):
            y = T.sigmoid(x).sum(dim=-1, keepdim=True)
            return y.expand(x.shape[0], 3).reshape(-1) ** n, x.dtype
        return f
    tgm = torch.fx.symbolic_trace(fn(torch))
    jgm = jtorch.fx.symbolic_trace(fn(jtorch))
    assert str(jgm.graph) == str(tgm.graph)
    assert jgm.code == tgm.code
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    assert_close(jgm(jtorch.tensor(x))[0], tgm(torch.tensor(x))[0])


def test_concrete_args_specialize_as_torch():
    def fn(x, flag=True):
        return x + 1 if flag else x - 1
    tgm = torch.fx.symbolic_trace(fn, concrete_args={"flag": False})
    jgm = jtorch.fx.symbolic_trace(fn, concrete_args={"flag": False})
    assert str(jgm.graph) == str(tgm.graph)
    assert jgm.code == tgm.code
    assert_close(jgm(jtorch.ones(2), False), tgm(torch.ones(2), False))
    raises_like(lambda: tgm(torch.ones(2)), lambda: jgm(jtorch.ones(2)))


def _leafy(T):
    class Block(T.nn.Module):
        def forward(self, x):
            return x * 2

    class Net(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.block, self.other = Block(), Block()

        def forward(self, x):
            return self.other(self.block(x)) + 1

    class LeafTracer(T.fx.Tracer):
        def is_leaf_module(self, m, qualified_name):
            return qualified_name == "block" or super().is_leaf_module(m, qualified_name)
    net = Net()
    graph = LeafTracer().trace(net)
    return T.fx.GraphModule(net, graph, "Net")


def test_custom_tracer_leaf_modules():
    tgm, jgm = _leafy(torch), _leafy(jtorch)
    assert str(jgm.graph) == str(tgm.graph)
    assert jgm.code == tgm.code
    assert jgm(jtorch.ones(2)).tolist() == tgm(torch.ones(2)).tolist() == [5.0, 5.0]


def test_softmax_is_one_call():
    """F.softmax is one node (PyTorch's names ``torch.nn.functional.softmax`` with its keyword
    defaults; jtorch's is the op ``torch.softmax``: docs/differences.md)."""
    def f(x):
        return jtorch.nn.functional.softmax(x, dim=-1)
    gm = jtorch.fx.symbolic_trace(f)
    assert [n.op for n in gm.graph.nodes] == ["placeholder", "call_function", "output"]
    x = jtorch.tensor([[1.0, 2.0, 3.0]])
    assert_close(gm(x), torch.softmax(torch.tensor([[1.0, 2.0, 3.0]]), -1))


def test_print_readable_and_str_match_torch():
    tgm, jgm, _ = _traced("mlp")
    assert jgm.print_readable(print_output=False) == tgm.print_readable(print_output=False)
    assert str(jgm).endswith(str(tgm).split(")\n\n\n\n", 1)[1])


# ------------------------------------------------------------------ editing graphs
def _replace_relu_by_gelu(lib, gm):
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target is lib.relu:
            with gm.graph.inserting_after(node):
                new = gm.graph.call_function(lib.nn.functional.gelu, node.args, node.kwargs)
            node.replace_all_uses_with(new)
            gm.graph.erase_node(node)
    gm.graph.lint()
    gm.recompile()


def _insert_scale_before_output(lib, gm):
    out = next(n for n in gm.graph.nodes if n.op == "output")
    value = out.args[0]
    with gm.graph.inserting_before(out):
        scaled = gm.graph.call_method("mul", (value["out"], 0.5))
    out.args = ({"out": scaled, "parts": value["parts"]},)
    gm.graph.lint()
    gm.recompile()


def _erase_dropout(lib, gm):
    drop = next(n for n in gm.graph.nodes if n.target is lib.nn.functional.dropout)
    drop.replace_all_uses_with(drop.args[0])
    gm.graph.erase_node(drop)
    gm.graph.eliminate_dead_code()
    gm.recompile()


@pytest.mark.parametrize("edit", [_replace_relu_by_gelu, _insert_scale_before_output,
                                  _erase_dropout])
def test_graph_edits_match_torch(edit):
    tgm, jgm, inputs = _traced("functional")
    edit(torch, tgm)
    edit(jtorch, jgm)
    assert str(jgm.graph) == str(tgm.graph)
    assert jgm.code == tgm.code
    _run_both(tgm, jgm, inputs)


def test_node_queries_match_torch():
    tgm, jgm, _ = _traced("functional")
    for tn, jn in zip(tgm.graph.nodes, jgm.graph.nodes):
        assert [n.name for n in jn.all_input_nodes] == [n.name for n in tn.all_input_nodes]
        assert [n.name for n in jn.users] == [n.name for n in tn.users]
        assert jn.format_node() == tn.format_node()
        assert repr(jn) == repr(tn)
    first = next(iter(jgm.graph.nodes))
    assert first.next.prev is first and first.meta == {}
    assert len(jgm.graph.nodes) == len(tgm.graph.nodes)


def test_replace_input_with_and_dead_code():
    graphs = []
    for lib in (torch, jtorch):
        g = lib.fx.Graph()
        x = g.placeholder("x")
        b = g.call_function(lib.neg, (x,))
        a = g.call_function(lib.relu, (x,))
        unused = g.call_method("sum", (b,))
        g.output(a)
        a.replace_input_with(x, b)
        assert a.args == (b,) and list(x.users) == [b]
        assert g.eliminate_dead_code() and unused not in list(g.nodes)
        gm = lib.fx.GraphModule(lib.nn.Module(), g)
        assert gm(lib.tensor([1.0, -2.0])).tolist() == [0.0, 2.0]
        graphs.append(str(g))
    assert graphs[0] == graphs[1]


def test_deepcopy_graph_module():
    tgm, jgm, inputs = _traced("mlp")
    clone = copy.deepcopy(jgm)
    x = jtorch.tensor(inputs[0])
    assert_close(clone(x), jgm(x))
    assert clone.code == jgm.code
    assert type(clone).__name__ == type(copy.deepcopy(tgm)).__name__ == "GraphModule"
    assert clone.get_submodule("0").weight is not jgm.get_submodule("0").weight


# ------------------------------------------------------------------ interpreters
def test_interpreter_matches_torch():
    tgm, jgm, inputs = _traced("cnn")
    tout = torch.fx.Interpreter(tgm).run(torch.tensor(inputs[0]))
    jout = jtorch.fx.Interpreter(jgm).run(jtorch.tensor(inputs[0]))
    assert_close(jout, tout, atol=1e-5, rtol=1e-5)

    def negating(lib):
        class Negating(lib.fx.Interpreter):
            def call_function(self, target, args, kwargs):
                out = super().call_function(target, args, kwargs)
                return -out if target is lib.flatten else out
        return Negating
    tout = negating(torch)(tgm).run(torch.tensor(inputs[0]))
    jout = negating(jtorch)(jgm).run(jtorch.tensor(inputs[0]))
    assert_close(jout, tout, atol=1e-5, rtol=1e-5)


def test_transformer_matches_torch():
    def swap(lib):
        class Swap(lib.fx.Transformer):
            def call_function(self, target, args, kwargs):
                if target is lib.relu:
                    target = lib.sigmoid
                return super().call_function(target, args, kwargs)
        return Swap
    tgm, jgm, inputs = _traced("functional")
    tnew, jnew = swap(torch)(tgm).transform(), swap(jtorch)(jgm).transform()
    assert _summary(jnew) == _summary(tnew)
    assert jnew.code == tnew.code
    _run_both(tnew, jnew, inputs)


def test_shape_prop_records_tensor_meta():
    from torch.fx.passes.shape_prop import ShapeProp as TShapeProp

    from jtorch.fx.passes.shape_prop import ShapeProp
    tgm, jgm, inputs = _traced("cnn")
    TShapeProp(tgm).propagate(torch.tensor(inputs[0]))
    ShapeProp(jgm).propagate(jtorch.tensor(inputs[0]))
    for tn, jn in zip(tgm.graph.nodes, jgm.graph.nodes):
        tm, jm = tn.meta.get("tensor_meta"), jn.meta.get("tensor_meta")
        assert (tm is None) == (jm is None), tn.name
        if tm is not None:
            assert tuple(jm.shape) == tuple(tm.shape) and str(jm.dtype) == str(tm.dtype)
            assert jm.requires_grad == tm.requires_grad and tuple(jm.stride) == tm.stride
    # print_readable shows the recorded shapes, as PyTorch's
    assert jgm.print_readable(print_output=False) == tgm.print_readable(print_output=False)


# ------------------------------------------------------------------ proxies and errors
def test_proxy_on_a_bare_graph_records_jtorch_calls():
    for lib in (torch, jtorch):
        g = lib.fx.Graph()
        p = lib.fx.Proxy(g.placeholder("x"))
        out = lib.add(lib.nn.functional.relu(p), 1)
        g.output(out.node)
        assert [n.op for n in g.nodes] == ["placeholder", "call_function", "call_function",
                                           "output"]
        assert repr(out) == "Proxy(add)"


def test_control_flow_on_a_proxy_raises_trace_error():
    def fn(x):
        if x.sum() > 0:
            return x
        return -x
    raises_like(lambda: torch.fx.symbolic_trace(fn), lambda: jtorch.fx.symbolic_trace(fn),
                jtorch.fx.proxy.TraceError)


def test_proxy_errors_match_torch():
    def iterate(x):
        return [y + 1 for y in x]

    def length(x):
        return len(x)

    def unpack(x):
        a, b = x
        return a + b
    raises_like(lambda: torch.fx.symbolic_trace(iterate),
                lambda: jtorch.fx.symbolic_trace(iterate), jtorch.fx.proxy.TraceError)
    raises_like(lambda: torch.fx.symbolic_trace(length),
                lambda: jtorch.fx.symbolic_trace(length))
    tgm, jgm = torch.fx.symbolic_trace(unpack), jtorch.fx.symbolic_trace(unpack)
    assert jgm.code == tgm.code


def test_graph_errors_match_torch():
    def erase_used(lib):
        g = lib.fx.Graph()
        x = g.placeholder("x")
        g.output(g.call_function(lib.relu, (x,)))
        g.erase_node(x)

    def used_before_defined(lib):
        g = lib.fx.Graph()
        x = g.placeholder("x")
        with g.inserting_before(x):
            y = g.call_function(lib.relu, (x,))
        g.output(y)
        g.lint()
    raises_like(lambda: erase_used(torch), lambda: erase_used(jtorch))
    raises_like(lambda: used_before_defined(torch), lambda: used_before_defined(jtorch))


# ------------------------------------------------------------------ wrap
def test_wrap_returns_its_argument_as_torch():
    for lib in (torch, jtorch):
        # (at a module's top level, as libraries call it: exec'd as a module body)
        namespace = {"wrap": lib.fx.wrap, "helper": _helper}
        try:
            exec("a = wrap(helper)\nb = wrap('helper')", namespace)
            assert namespace["a"] is _helper and namespace["b"] == "helper"
        finally:
            # PyTorch keeps each wrap in a process-wide table that every later FX trace
            # (torch.compile's included) reads back by name from this namespace, where
            # `_helper` is not: a later torch.compile in this worker failed with KeyError
            _forget_wraps_in(namespace)


def test_wrap_errors_match_torch():
    raises_like(lambda: exec("torch.fx.wrap(3)", {"torch": torch}),
                lambda: exec("torch.fx.wrap(3)", {"torch": jtorch}))
    raises_like(lambda: torch.fx.wrap(_helper), lambda: jtorch.fx.wrap(_helper))


def test_the_rest_of_fx_is_named_as_not_implemented():
    assert hasattr(torch.fx, "operator_schemas")
    with pytest.raises(NotImplementedError, match="torch.fx.operator_schemas"):
        jtorch.fx.operator_schemas  # noqa: B018 - the attribute read raises


# ------------------------------------------------------------------ torchvision feature extraction
# torchvision 0.28's get_graph_node_names(resnet18()) (its documentation's example model)
_RESNET18_NODES = (["x", "conv1", "bn1", "relu", "maxpool"] + [
    f"layer{i}.{j}.{part}" for i in range(1, 5) for j in range(2) for part in
    ["conv1", "bn1", "relu", "conv2", "bn2"] + (["downsample.0", "downsample.1"]
                                                if i > 1 and j == 0 else []) + ["add", "relu_1"]]
    + ["avgpool", "flatten", "fc"])


def test_feature_extraction_node_names_and_outputs():
    from jtorch.vision.models import resnet18
    from jtorch.vision.models.feature_extraction import (
        create_feature_extractor,
        get_graph_node_names,
    )
    model = resnet18(num_classes=10).eval()
    train_nodes, eval_nodes = get_graph_node_names(model)
    assert train_nodes == eval_nodes == _RESNET18_NODES
    assert not model.training
    extractor = create_feature_extractor(
        model, return_nodes={"layer1": "feat1", "layer3.1.relu_1": "feat3", "flatten": "flat"})
    assert not extractor.training and type(extractor).__name__ == "ResNet"
    x = jtorch.tensor(np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32))
    out = extractor(x)
    assert list(out) == ["feat1", "feat3", "flat"]
    with jtorch.no_grad():
        f1 = model.layer1(model.maxpool(model.relu(model.bn1(model.conv1(x)))))
        f3 = model.layer3(model.layer2(f1))
        flat = jtorch.flatten(model.avgpool(model.layer4(f3)), 1)
    assert_close(out["feat1"].detach(), f1, atol=1e-5, rtol=1e-5)
    assert_close(out["feat3"].detach(), f3, atol=1e-5, rtol=1e-5)
    assert_close(out["flat"].detach(), flat, atol=1e-5, rtol=1e-5)
    extractor.train()
    assert extractor.training and extractor.graph is extractor.train_graph
    with pytest.raises(ValueError, match="node: 'layer9' is not present in model"):
        create_feature_extractor(model, return_nodes=["layer9"])


def test_vision_transformer_traces_through_torch_assert():
    """torchvision's ViT checks its input with torch._assert, which a trace records."""
    from jtorch.vision.models.vision_transformer import VisionTransformer
    jtorch.manual_seed(0)
    model = VisionTransformer(image_size=32, patch_size=16, num_layers=1, num_heads=2,
                              hidden_dim=8, mlp_dim=16).eval()
    gm = jtorch.fx.symbolic_trace(model)
    assert sum(n.target is jtorch._assert for n in gm.graph.nodes) == 4
    x = jtorch.randn(2, 3, 32, 32)
    assert_close(gm(x).detach(), model(x).detach(), atol=1e-6, rtol=1e-6)
    # (the message is made while tracing, as in PyTorch: "... but got Proxy(getitem_2)!")
    with pytest.raises(AssertionError, match="Wrong image height! Expected 32 but got Proxy"):
        gm(jtorch.randn(2, 3, 16, 32))


# ------------------------------------------------------------------ torch's Python functions
def _python_functions(T):
    """PyTorch's functions written in Python (torch/functional.py) on proxies: each one node,
    its target the function itself (e3nn traces broadcast_tensors, einsum and tensordot)."""
    def f(x, y):
        a, b = T.broadcast_tensors(x[..., :1], y)
        c = T.einsum("ij,ij->i", a, b)
        d = T.tensordot(x, y, dims=([1], [1]))
        e, _ = T.split(x, [2, 1], dim=1)
        g, _ = T.meshgrid(c, c, indexing="ij")
        return c, d, T.atleast_2d(e).sum(), g, T.cartesian_prod(c, c)
    return f


def test_python_functions_trace_as_one_node_like_torch():
    tgm = torch.fx.symbolic_trace(_python_functions(torch))
    jgm = jtorch.fx.symbolic_trace(_python_functions(jtorch))
    assert str(jgm.graph) == str(tgm.graph)
    assert jgm.code == tgm.code
    assert _summary(jgm) == _summary(tgm)
    _run_both(tgm, jgm, [np.linspace(-1, 1, 9, dtype=np.float32).reshape(3, 3),
                         np.linspace(2, 0, 9, dtype=np.float32).reshape(3, 3)])


def _functional_calls(T):
    """torch.nn.functional's composites and torch's factories on proxies: each one node with
    PyTorch's arguments (the required ones positional, the rest keywords with their defaults),
    as PyTorch's Python functionals and argument parser hand them to ``__torch_function__``."""
    F = T.nn.functional

    def f(x, y):
        up = F.interpolate(x, scale_factor=2.0, mode="nearest")
        flat = F.pad(up, (1, 1)).flatten(1)
        loss = F.cross_entropy(flat[:, :3], y.long()[:, 0, 0, 0] % 3)
        normed = F.batch_norm(x, None, None, training=True)
        att = F.scaled_dot_product_attention(x, x, x)
        emb = F.embedding(y.long()[:, 0, 0] % 2, flat[:, :5])
        pos = T.arange(x.size(0)) + T.ones(x.shape[0]) + T.full((x.size(0),), 2.0)
        hot = F.one_hot(y.long()[:, 0, 0, 0] % 3, 3)
        # one-op functionals (glu, adaptive_avg_pool2d) and loss wrappers, as Python's
        small = F.adaptive_avg_pool2d(F.glu(x, dim=2), 2)
        losses = F.mse_loss(x, y) + F.smooth_l1_loss(x, y, beta=0.5)
        return loss, normed.sum() + att.sum() + emb.sum() + small.sum() + losses, pos, hot
    return f


def test_functional_composites_and_factories_trace_as_one_node_like_torch():
    tgm = torch.fx.symbolic_trace(_functional_calls(torch))
    jgm = jtorch.fx.symbolic_trace(_functional_calls(jtorch))
    assert jgm.code == tgm.code
    assert _summary(jgm) == _summary(tgm)
    x = np.linspace(-1, 1, 2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    y = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    _run_both(tgm, jgm, [x, y], grad=False)
    tx, jx = torch.tensor(x, requires_grad=True), jtorch.tensor(x, requires_grad=True)
    tgm(tx, torch.tensor(y))[1].backward()
    jgm(jx, jtorch.tensor(y))[1].backward()
    assert_close(jx.grad, tx.grad, atol=1e-5, rtol=1e-5)


def test_normalize_node_has_pytorchs_keywords():
    """F.normalize (one op in jtorch, a Python functional in PyTorch) is recorded with its
    defaults as keywords (PyTorch's also has ``out = None``)."""
    def normalize(T):
        return lambda x: T.nn.functional.normalize(x, dim=0)

    nodes = {}
    for T in (torch, jtorch):
        gm = T.fx.symbolic_trace(normalize(T))
        (node,) = [n for n in gm.graph.nodes if n.op == "call_function"]
        nodes[T] = dict(node.kwargs)
    assert nodes[torch].pop("out") is None
    assert nodes[jtorch] == nodes[torch] == {"p": 2.0, "dim": 0, "eps": 1e-12}


def _inplace_functionals(T):
    F = T.nn.functional

    def f(x):
        a = F.relu_(x * 1)
        b = F.elu_(x * 2)
        return a + F.leaky_relu_(b * 1) + T.relu_(x * 3)
    return f


def test_inplace_functionals_trace_as_one_node_like_torch():
    """The in-place functionals, PyTorch's C++ bindings (``torch.relu_``,
    ``torch._C._nn.elu_``), are one node each, named as PyTorch names them."""
    tgm = torch.fx.symbolic_trace(_inplace_functionals(torch))
    jgm = jtorch.fx.symbolic_trace(_inplace_functionals(jtorch))
    assert jgm.code == tgm.code
    _run_both(tgm, jgm, [np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)])


def _torch_composites(T):
    """torch's, torch.linalg's and torch.fft's functions that are composites in jtorch (C++
    bindings in PyTorch) on proxies: one node each, as called, named as PyTorch's bindings."""
    def f(x):
        a, b = T.chunk(x, 2)
        c = T.tensor_split(x, 3, dim=1)
        d = T.linalg.vector_norm(x, dim=1)
        e = T.fft.rfft(x, dim=0).abs()
        g = T.hsplit(x, 3)[0]
        return (a + b + T.reshape(c[0], (-1,)).sum() + d.sum() + g.sum() + e.sum()
                + T.where(x > 0, x, 0).sum())
    return f


def test_torch_composites_trace_as_one_node_like_torch():
    tgm = torch.fx.symbolic_trace(_torch_composites(torch))
    jgm = jtorch.fx.symbolic_trace(_torch_composites(jtorch))
    assert jgm.code == tgm.code
    # (the targets' __name__ differ: PyTorch's binding is linalg_vector_norm)
    assert [s[:2] for s in _summary(jgm)] == [s[:2] for s in _summary(tgm)]
    assert [n.target for n in jgm.graph.nodes if n.op == "call_function"][:4] == [
        jtorch.chunk, operator.getitem, operator.getitem, jtorch.tensor_split]
    _run_both(tgm, jgm, [np.linspace(-1, 2, 18, dtype=np.float32).reshape(6, 3)])


def _typed_graph(T):
    """A graph built by hand with typed placeholders and output (as e3nn's codegen builds)."""
    graph = T.fx.Graph()
    tracer = T.fx.proxy.GraphAppendingTracer(graph)
    x = T.fx.Proxy(graph.placeholder("x", T.Tensor), tracer)
    w = T.fx.Proxy(graph.placeholder("w", T.Tensor), tracer)
    shape = x.shape[:-1] + (2,)
    out = T.tensordot(x.reshape(-1, 3), w.reshape(3, 2), dims=([1], [0])).reshape(shape)
    graph.output(out.node, T.Tensor)
    return T.fx.GraphModule(T.nn.Module(), graph, "Typed")


def test_typed_placeholders_and_output_are_annotated_like_torch():
    tgm, jgm = _typed_graph(torch), _typed_graph(jtorch)
    assert jgm.code == tgm.code
    assert "def forward(self, x : torch.Tensor, w : torch.Tensor) -> torch.Tensor:" in jgm.code
    _run_both(tgm, jgm, [np.ones((2, 2, 3), np.float32), np.arange(6, dtype=np.float32)])


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "save"])
def test_graph_module_pickles_by_retracing_its_code_like_torch(how):
    def roundtrip(T, gm):
        holder = T.nn.Module()
        holder.gm = gm
        if how == "deepcopy":
            return copy.deepcopy(holder).gm
        if how == "pickle":
            return pickle.loads(pickle.dumps(holder)).gm
        buf = io.BytesIO()
        T.save(holder, buf)
        buf.seek(0)
        return T.load(buf, weights_only=False).gm

    tgm, jgm, inputs = _traced("functional")
    t2, j2 = roundtrip(torch, tgm), roundtrip(jtorch, jgm)
    assert type(j2).__name__ == type(t2).__name__ == "GraphModule"
    assert str(j2.graph) == str(t2.graph)
    assert j2.code == t2.code
    assert sorted(j2.state_dict()) == sorted(t2.state_dict())
    _run_both(t2, j2, inputs)
    typed_t = roundtrip(torch, _typed_graph(torch))
    typed_j = roundtrip(jtorch, _typed_graph(jtorch))
    assert typed_j.code == typed_t.code
