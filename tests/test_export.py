"""torch.export: export -> save -> load -> run equals eager jtorch and real PyTorch on the same
weights, a dynamic batch at two sizes, the StableHLO text, and PyTorch's errors.

PyTorch's own torch.export is not called here: its first use imports TorchDynamo (~4 s of CPU,
over this file's budget). The names and error texts expected below are those torch.export
2.13 gives for the same module and calls (printed from a run of torch 2.13.0)."""

from __future__ import annotations

import operator

import jax
import numpy as np
import pytest
import torch
from helpers import assert_close
from nn_helpers import copy_weights

import jtorch


def _mlp(T):
    class MLP(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = T.nn.Linear(6, 8)
            self.fc2 = T.nn.Linear(8, 3)
            self.register_buffer("scale", T.full((3,), 0.5))

        def forward(self, x):
            return T.tanh(self.fc2(T.relu(self.fc1(x)))) * self.scale

    return MLP()


def _pair():
    tm, jm = _mlp(torch), _mlp(jtorch)
    copy_weights(tm, jm)
    return tm, jm


def _x(n, seed):
    return np.random.default_rng(seed).standard_normal((n, 6)).astype(np.float32)


def test_round_trip_with_dynamic_batch_matches_eager_and_torch(tmp_path):
    tm, jm = _pair()
    ep = jtorch.export.export(jm, (jtorch.tensor(_x(4, 0)),),
                              dynamic_shapes={"x": {0: jtorch.export.Dim("batch", max=64)}})
    path = tmp_path / "mlp.pt2"
    jtorch.export.save(ep, path, extra_files={"note": "hello"})
    extra = {"note": ""}
    loaded = jtorch.export.load(path, extra_files=extra)
    assert extra == {"note": "hello"}
    for n in (3, 9):   # two batch sizes through the one symbolic program
        x = _x(n, n)
        expected = tm(torch.tensor(x)).detach().numpy()
        assert_close(jm(jtorch.tensor(x)).detach().numpy(), expected)
        assert_close(ep.module()(jtorch.tensor(x)).numpy(), expected)
        assert_close(loaded.module()(jtorch.tensor(x)).numpy(), expected)
    for prog in (ep, loaded):   # torch.export 2.13's names for this module
        assert list(prog.state_dict) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias",
                                         "scale"]
        for k, v in tm.state_dict().items():
            assert_close(prog.state_dict[k].detach().numpy(), v.detach().numpy())
        sig = prog.graph_signature
        assert sig.parameters == ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")
        assert (sig.buffers, sig.user_inputs) == (("scale",), ("x",))
        assert sig.inputs_to_parameters["p_fc1_weight"] == "fc1.weight"
        assert sorted(prog.module().state_dict()) == sorted(tm.state_dict())
        assert_close(prog.example_inputs[0][0].numpy(), _x(4, 0))
        assert prog.range_constraints == {"batch": (0, 64)}


def test_module_state_is_its_own_and_run_decompositions_is_equivalent():
    tm, jm = _pair()
    ep = jtorch.export.export(jm, (jtorch.tensor(_x(2, 1)),))
    x = jtorch.tensor(_x(2, 2))
    assert_close(ep.run_decompositions().module()(x).numpy(), ep.module()(x).numpy())
    mod = ep.module()
    with jtorch.no_grad():
        mod.fc2.bias.add_(1.0)    # the module runs the program on its own parameters
        jm.fc2.bias.add_(1.0)
    assert_close(mod(x).numpy(), jm(x).detach().numpy())


def test_stablehlo_text_of_a_cnn_with_a_dynamic_batch():
    def cnn(T):
        return T.nn.Sequential(T.nn.Conv2d(2, 4, 3, padding=1), T.nn.ReLU(), T.nn.MaxPool2d(2),
                               T.nn.Flatten(), T.nn.Linear(4 * 4 * 4, 5)).eval()

    tm, jm = cnn(torch), cnn(jtorch)
    copy_weights(tm, jm)
    x = np.random.default_rng(3).standard_normal((2, 2, 8, 8)).astype(np.float32)
    ep = jtorch.export.export(jm, (jtorch.tensor(x),),
                              dynamic_shapes=({0: jtorch.export.Dim.AUTO},))
    text = ep.stablehlo()
    for op in ("stablehlo.convolution", "stablehlo.dot_general", "stablehlo.select",
               "stablehlo.dynamic_reshape", "tensor<?x2x8x8xf32>", "tensor<?x5xf32>"):
        assert op in text, op
    x5 = np.random.default_rng(4).standard_normal((5, 2, 8, 8)).astype(np.float32)
    assert_close(ep.module()(jtorch.tensor(x5)).numpy(), tm(torch.tensor(x5)).detach().numpy())


def test_errors_are_pytorchs():
    jm = _mlp(jtorch)
    x = jtorch.tensor(_x(2, 0))
    with pytest.raises(ValueError, match=r"^Expected `mod` to be an instance of "
                       r"`torch.nn.Module`, got <class 'function'>.$"):
        jtorch.export.export(lambda a: a, (x,))
    with pytest.raises(RuntimeError, match=r"^Expecting `args` to be a tuple of example "
                       r"positional inputs, got <class 'list'>$"):
        jtorch.export.export(jm, [x])
    with pytest.raises(RuntimeError, match=r"^When `dynamic_shapes` is specified as a dict, its "
                       r"top-level keys must be the arg names \['x'\] of `inputs`, but here "
                       r"they are \['y'\]. Alternatively"):
        jtorch.export.export(jm, (x,), dynamic_shapes={"y": {0: jtorch.export.Dim("b")}})
    with pytest.raises(AssertionError, match=r"^Dim name must be a valid identifier, got 1b$"):
        jtorch.export.Dim("1b")
    with pytest.raises(AssertionError, match=r"^Cannot create Dim with inconsistent min=5, "
                       r"max=2$"):
        jtorch.export.Dim("b", min=5, max=2)
    ep = jtorch.export.export(jm, (x,))
    with pytest.raises(RuntimeError, match=r"^Unable to call ExportedProgram directly. You "
                       r"should use `exported_program.module\(\)` instead.$"):
        ep(x)
    with pytest.raises(AssertionError, match=r"^Guard failed: x.size\(\)\[0\] == 2$"):
        ep.module()(jtorch.tensor(_x(3, 0)))
    ep = jtorch.export.export(jm, (x,), dynamic_shapes={"x": {0: jtorch.export.Dim("batch",
                                                                                  max=8)}})
    with pytest.raises(AssertionError, match=r"^Guard failed: x.size\(\)\[0\] <= 8$"):
        ep.module()(jtorch.tensor(_x(9, 0)))
    with pytest.raises(NotImplementedError, match=r"torch\.export\.ExportedProgram\.graph"):
        ep.graph


def test_keyword_inputs_share_a_dim_and_may_come_in_any_order():
    def make(T):
        class Mix(T.nn.Module):
            def forward(self, a, b=None, c=None):
                return a.sum(-1) + b.sum(-1) * c.mean(-1)

        return Mix()

    n, k = jtorch.export.Dim("n"), jtorch.export.Dim("k")
    ep = jtorch.export.export(make(jtorch), (jtorch.ones(2, 3),),
                              {"c": jtorch.ones(2, 5), "b": jtorch.ones(2, 4)},
                              dynamic_shapes={"a": {0: n}, "b": {0: n}, "c": {0: n, 1: k}})
    assert ep.graph_signature.user_inputs == ("a", "c", "b")
    a, b, c = _x(3, 1)[:, :3], _x(3, 2)[:, :4], _x(3, 3)
    expected = make(torch)(torch.tensor(a), b=torch.tensor(b), c=torch.tensor(c)).numpy()
    got = ep.module()(jtorch.tensor(a), b=jtorch.tensor(b), c=jtorch.tensor(c))
    assert_close(got.numpy(), expected)
    with pytest.raises(RuntimeError, match=r"^Expected input at c.shape\[0\] to be equal to 3, "
                       r"but got 4$"):
        ep.module()(jtorch.tensor(a), b=jtorch.tensor(b), c=jtorch.tensor(_x(4, 3)))


def _slicer(T):
    class Slicer(T.nn.Module):
        def forward(self, x):   # x: (b, k), both dimensions dynamic
            d = x[1:] - x[:-1]                                     # sizes b - 1
            return (d[::2], x[2:5], x[-3:], x[-1], x[:, 1:] * x[:, :-1],
                    x.narrow(0, 0, x.shape[0] - 1), x.unfold(0, 2, 1), x[100:],
                    x[x.shape[0] - 1], x.select(0, -2), x[[0, -1]],
                    x[:-1].contiguous().view(-1, x.shape[1]))   # its strides are symbolic

    return Slicer()


def test_slicing_along_symbolic_dimensions_matches_eager_and_torch():
    b, k = jtorch.export.Dim("b", min=2, max=64), jtorch.export.Dim("k", min=2, max=8)
    ep = jtorch.export.export(_slicer(jtorch), (jtorch.tensor(_x(4, 0)),),
                              dynamic_shapes={"x": {0: b, 1: k}})
    for n, m in ((2, 3), (7, 6)):   # x[2:5] is empty at b = 2
        x = _x(n, n)[:, :m]
        expected = _slicer(torch)(torch.tensor(x))
        eager = _slicer(jtorch)(jtorch.tensor(x))
        got = ep.module()(jtorch.tensor(x))
        assert len(got) == len(expected)
        for g, e, t in zip(got, eager, expected):
            assert_close(g.numpy(), t.numpy())
            assert_close(e.numpy(), t.numpy())


def test_slicing_a_symbolic_dimension_that_needs_a_guard_raises_jaxs_error():
    def export(f, b=jtorch.export.Dim("b", min=2, max=64)):
        class M(jtorch.nn.Module):
            def forward(self, x):
                return f(x)

        return jtorch.export.export(M(), (jtorch.tensor(_x(4, 0)),),
                                    dynamic_shapes={"x": {0: b}})

    ep = export(lambda x: x.narrow(0, 1, 2), jtorch.export.Dim("b", min=3))   # 1 + 2 <= b
    assert_close(ep.module()(jtorch.tensor(_x(5, 1))).numpy(),
                 torch.tensor(_x(5, 1)).narrow(0, 1, 2).numpy())
    # PyTorch's export adds a guard (b >= 3) or a specialisation; JAX cannot decide these
    with pytest.raises(jax.errors.InconclusiveDimensionOperation, match="'b - 2' < '1'"):
        export(lambda x: x.narrow(0, 1, 2))
    with pytest.raises(jax.errors.InconclusiveDimensionOperation,
                       match="split of the symbolic dimension b"):
        export(lambda x: x.split(2)[0])
    with pytest.raises(jax.errors.InconclusiveDimensionOperation,
                       match="unbind of the symbolic dimension b"):
        export(lambda x: x.unbind(0)[0])


def _at(expr, **sizes):
    """The value of a JAX dimension expression (its text: ``2*k + 1``, ``mod(- 1, b)``...)."""
    ops = {"floordiv": operator.floordiv, "mod": operator.mod, "max": max, "min": min}
    return int(eval(str(expr).replace("^", "**"), ops, sizes))


def test_strides_of_views_with_symbolic_sizes_are_dimension_expressions():
    def views(x):
        return x[1:], x[1::2, 1:], x[-1], x.t()[1:], x[:, -2:].unsqueeze(1)

    seen = []

    class Views(jtorch.nn.Module):
        def forward(self, x):
            seen.extend((v.stride(), v.storage_offset(), v.is_contiguous()) for v in views(x))
            return x[1:]

    b, k = jtorch.export.Dim("b", min=2, max=64), jtorch.export.Dim("k", min=2, max=8)
    jtorch.export.export(Views(), (jtorch.tensor(_x(4, 0)),), dynamic_shapes={"x": {0: b, 1: k}})
    expected = [(v.stride(), v.storage_offset(), v.is_contiguous())
                for v in views(torch.zeros(7, 3))]
    assert [(tuple(_at(s, b=7, k=3) for s in st), _at(off, b=7, k=3), c)
            for st, off, c in seen] == expected


def test_view_with_inferred_size_of_a_symbolic_numel():
    """-1 resolves by JAX dimension arithmetic where it is decidable; where it is not, JAX's
    error (not PyTorch's "invalid shape", which would be wrong for some sizes)."""
    def _x8(n, seed):
        return np.random.default_rng(seed).standard_normal((n, 8)).astype(np.float32)

    class M(jtorch.nn.Module):
        def forward(self, x):
            return x[1:].view(-1, 4) * 2

    b = jtorch.export.Dim("b", min=2, max=64)
    ep = jtorch.export.export(M(), (jtorch.tensor(_x8(4, 0)),),
                              dynamic_shapes={"x": {0: b}})
    for n in (3, 6):
        x = _x8(n, 1)
        assert_close(ep.module()(jtorch.tensor(x)).numpy(),
                     (torch.tensor(x)[1:].view(-1, 4) * 2).numpy())
    k = jtorch.export.Dim("k", min=2, max=8)
    with pytest.raises(jax.errors.InconclusiveDimensionOperation, match="Cannot divide evenly"):
        jtorch.export.export(M(), (jtorch.tensor(_x8(4, 0)),),
                             dynamic_shapes={"x": {0: b, 1: k}})
