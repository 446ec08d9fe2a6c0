"""Regressions found by running e3nn, higher and normflows unchanged under jtorch
(scripts/real_drivers/e3nn_higher_flows.py, docs/real-programs.md): each test is a small
stand-in for what the library did, in plain torch-API code, run in jtorch and in real
PyTorch."""

import copy
import importlib.util
import inspect
import pickle
import subprocess
import sys

import numpy as np
import torch
from helpers import assert_close

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


def _tensor_product_codegen(T):
    """A stand-in of e3nn's codegen_tensor_product_left_right (o3.TensorProduct builds its
    forward so at construction): a Graph of typed placeholders grown through Proxies of one
    GraphAppendingTracer, ``torch.broadcast_tensors`` of proxies for the batch shape (TraceError
    "Proxy object cannot be iterated": jtorch's broadcast_tensors read the proxies' shapes),
    ``torch.einsum`` of proxies, ``torch.tensordot`` as opt_einsum_fx writes it."""
    graph = T.fx.Graph()
    tracer = T.fx.proxy.GraphAppendingTracer(graph)
    x1 = T.fx.Proxy(graph.placeholder("x1", T.Tensor), tracer)
    x2 = T.fx.Proxy(graph.placeholder("x2", T.Tensor), tracer)
    w = T.fx.Proxy(graph.placeholder("w", T.Tensor), tracer)
    shape = T.broadcast_tensors(x1[..., :1], x2[..., :1])[0].shape[:-1]
    x1s, x2s = x1.broadcast_to(shape + (4,)), x2.broadcast_to(shape + (3,))
    outer = T.einsum("zu,zv->zuv", x1s.reshape(-1, 4), x2s.reshape(-1, 3))
    out = T.tensordot(outer, w.reshape(4, 3, 2), dims=([1, 2], [0, 1]))
    graph.output(out.reshape(shape + (2,)).node, T.Tensor)
    return T.fx.GraphModule(T.nn.Module(), graph, "tp_forward")


def _einsum_shapes(T, gm, *args):
    """opt_einsum_fx's EfficientShapeProp: an Interpreter that reads an einsum node's
    arguments as ``(equation, *operands)`` (jtorch's node held the operands as one tuple)."""
    seen = []

    class Prop(T.fx.Interpreter):
        def run_node(self, n):
            if n.op == "call_function" and n.target is T.einsum:
                equation, *operands = self.fetch_args_kwargs_from_env(n)[0]
                seen.append((equation, [tuple(o.shape) for o in operands]))
            return super().run_node(n)

    Prop(gm).run(*args)
    return seen


def test_e3nn_style_codegen_traces_torch_python_functions_as_torch():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in ((5, 4), (5, 3), (24,))]
    tgm, jgm = _tensor_product_codegen(torch), _tensor_product_codegen(jtorch)
    assert jgm.code == tgm.code
    assert [(n.op, str(n.target)) for n in jgm.graph.nodes if n.op != "call_function"] == \
        [(n.op, str(n.target)) for n in tgm.graph.nodes if n.op != "call_function"]
    ti = [torch.tensor(a, requires_grad=True) for a in arrays]
    ji = [jtorch.tensor(a, requires_grad=True) for a in arrays]
    assert _einsum_shapes(jtorch, jgm, *ji) == _einsum_shapes(torch, tgm, *ti)
    tout, jout = tgm(*ti), jgm(*ji)
    assert_close(jout, tout, atol=1e-12, rtol=1e-12)
    weight = np.cos(np.arange(10.0)).reshape(5, 2)
    (tout * torch.tensor(weight)).sum().backward()
    (jout * jtorch.tensor(weight)).sum().backward()
    assert_close([x.grad for x in ji], [x.grad for x in ti], atol=1e-12, rtol=1e-12)


def test_module_holding_a_graph_module_deepcopies_and_pickles():
    # e3nn's CodeGenMixin.__getstate__ pickles its generated GraphModules (copy.deepcopy of an
    # o3.Linear raised "Can't pickle local object 'GraphModule.__new__.<locals>...'")
    x = [jtorch.ones(2, 4), jtorch.full((2, 3), 0.5), jtorch.linspace(-1, 1, 24)]
    for T, inputs in ((torch, [torch.tensor(a.numpy()) for a in x]), (jtorch, x)):
        holder = T.nn.Module()
        holder.gm = _tensor_product_codegen(T)
        for clone in (copy.deepcopy(holder), pickle.loads(pickle.dumps(holder))):
            assert clone.gm.code == holder.gm.code, T.__name__
            assert clone.gm(*inputs).tolist() == holder.gm(*inputs).tolist(), T.__name__


_E3NN_LAYERS = """
import torch
torch.set_default_dtype(torch.float64)
from e3nn import o3
def fill(m):
    for i, p in enumerate(m.parameters()):
        p.data = torch.cos(torch.arange(p.numel(), dtype=torch.float64) + i).reshape(p.shape)
    return m
x1 = torch.sin(torch.arange(35.0)).reshape(5, 7).requires_grad_(True)
x2 = torch.cos(torch.arange(20.0)).reshape(5, 4).requires_grad_(True)
tp = fill(o3.FullyConnectedTensorProduct("1x0e + 2x1o", "1x0e + 1x1o", "2x0e + 1x1o + 1x1e"))
lin = fill(o3.Linear("1x0e + 2x1o", "2x0e + 1x1o", biases=True))
sh = o3.spherical_harmonics([0, 1, 2], x2[:, 1:], True)
sq = fill(o3.TensorSquare("1x0e + 1x1o", "1x0e + 1x1e"))
out = tp(x1, x2).sum() + lin(x1).pow(2).sum() + sq(x2).sum() + sh.pow(3).sum()
out.backward()
print(out.item(), x1.grad.abs().sum().item(), x2.grad.abs().sum().item(),
      tp.weight.grad.abs().sum().item(), lin.weight.grad.abs().sum().item())
"""


def test_e3nn_layers_run_under_the_runner_as_in_torch():
    """e3nn's FX-generated layers under ``python -m jtorch`` against real PyTorch, weights set
    alike (where e3nn is installed; else the stand-in codegen above, run the same way)."""
    if importlib.util.find_spec("e3nn") is not None:
        code = _E3NN_LAYERS
    else:
        code = "\n".join([
            "import torch", inspect.getsource(_tensor_product_codegen),
            "gm = _tensor_product_codegen(torch)",
            "x = [torch.ones(2, 4, dtype=torch.float64, requires_grad=True),",
            "     torch.full((2, 3), 0.5, dtype=torch.float64),",
            "     torch.linspace(-1, 1, 24, dtype=torch.float64)]",
            "out = gm(*x).pow(2).sum(); out.backward()",
            "print(out.item(), x[0].grad.abs().sum().item())"])
    results = []
    for runner in ([], ["-m", "jtorch"]):
        done = subprocess.run([sys.executable, *runner, "-c", code], capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        results.append([float(v) for v in done.stdout.split()])
    want, got = results
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert abs(g - w) <= 1e-10 * max(1.0, abs(w)), (got, want)


def test_compile_walks_a_tuple_subclass_whose_len_raises():
    # e3nn's Irreps is a tuple whose __len__ raises NotImplementedError; e3nn.util.jit.compile
    # (torch.jit.script: jtorch.compile) collected a module's state through list(irreps)
    class Irreps(tuple):
        def __len__(self):
            raise NotImplementedError

    def make(T):
        lin = T.nn.Linear(3, 2)
        lin.irreps = Irreps(((1, 0), (2, 1)))
        with T.no_grad():
            lin.weight.copy_(T.tensor(np.cos(np.arange(6.0)).reshape(2, 3)))
            lin.bias.fill_(0.5)
        return lin

    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    want = make(torch)(torch.tensor(x)).detach()
    assert_close(jtorch.jit.script(make(jtorch))(jtorch.tensor(x)), want)
    assert_close(jtorch.compile(make(jtorch))(jtorch.tensor(x)), want)
