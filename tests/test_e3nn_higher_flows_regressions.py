"""Regressions found by running e3nn, higher and normflows unchanged under jtorch
(scripts/real_drivers/e3nn_higher_flows.py, docs/real-programs.md): each test is a small
stand-in for what the library did, in plain torch-API code, run in jtorch and in real
PyTorch."""

import torch

import jtorch


def test_fx_node_module_names_node():
    # `import e3nn` imports opt_einsum_fx, which does `from torch.fx.node import Node` at import
    # (ModuleNotFoundError: no jtorch.fx.node)
    from torch.fx.node import Node as want

    from jtorch.fx.node import Node
    assert want is torch.fx.Node and Node is jtorch.fx.Node
    assert isinstance(Node, type) and not isinstance(jtorch.ones(1), Node)
    assert jtorch.fx.node.map_arg is jtorch.fx.map_arg


def test_fx_graph_module_is_a_module_subclass():
    # e3nn decorates `class Legendre(fx.GraphModule)` at import with a check that the class
    # derives from nn.Module (TypeError: the stand-in derived from object only)
    for T in (torch, jtorch):
        GM = T.fx.GraphModule
        assert issubclass(GM, T.nn.Module), T.__name__
        assert not isinstance(T.nn.Linear(1, 1), GM), T.__name__

        class Sub(GM):
            pass

        assert issubclass(Sub, T.nn.Module)
    assert jtorch.fx.GraphModule is jtorch.fx.GraphModule   # one class, so isinstance agrees


def test_fx_interpreter_stand_in_can_be_subclassed():
    # opt_einsum_fx defines `class EfficientShapeProp(torch.fx.Interpreter)` at import
    for T in (torch, jtorch):
        class Prop(T.fx.Interpreter):
            def run_node(self, n):
                return super().run_node(n)

        assert issubclass(Prop, T.fx.Interpreter)
        gm = T.fx.symbolic_trace(T.nn.ReLU())
        assert Prop(gm).run(T.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]
