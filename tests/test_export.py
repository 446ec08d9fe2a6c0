"""torch.export: export -> save -> load -> run equals eager jtorch and real PyTorch (its own
torch.export too) on the same weights, a dynamic batch at two sizes, the StableHLO text, and
PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_close, raises_like
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


@pytest.fixture(scope="module")
def programs():
    """The MLP pair and PyTorch's own export of it with a dynamic batch (PyTorch's first
    export costs seconds: made once for the file)."""
    tm, jm = _pair()
    t_ep = torch.export.export(tm, (torch.tensor(_x(4, 0)),),
                               dynamic_shapes={"x": {0: torch.export.Dim("batch", max=64)}})
    return tm, jm, t_ep


def _x(n, seed):
    return np.random.default_rng(seed).standard_normal((n, 6)).astype(np.float32)


def test_round_trip_with_dynamic_batch_matches_eager_and_torch(tmp_path, programs):
    tm, jm, t_ep = programs
    ep = jtorch.export.export(jm, (jtorch.tensor(_x(4, 0)),),
                              dynamic_shapes={"x": {0: jtorch.export.Dim("batch", max=64)}})
    path = tmp_path / "mlp.pt2"
    jtorch.export.save(ep, path, extra_files={"note": "hello"})
    extra = {"note": ""}
    loaded = jtorch.export.load(path, extra_files=extra)
    assert extra == {"note": "hello"}
    for n in (3, 9):   # two batch sizes through the one symbolic program
        x = _x(n, n)
        expected = t_ep.module()(torch.tensor(x)).detach().numpy()
        assert_close(tm(torch.tensor(x)).detach().numpy(), expected)
        assert_close(jm(jtorch.tensor(x)).detach().numpy(), expected)
        assert_close(ep.module()(jtorch.tensor(x)).numpy(), expected)
        assert_close(loaded.module()(jtorch.tensor(x)).numpy(), expected)
    for prog in (ep, loaded):
        assert list(prog.state_dict) == list(t_ep.state_dict)
        for k, v in t_ep.state_dict.items():
            assert_close(prog.state_dict[k].detach().numpy(), v.detach().numpy())
        sig, t_sig = prog.graph_signature, t_ep.graph_signature
        assert (sig.parameters, sig.buffers, sig.user_inputs) == \
            (tuple(t_sig.parameters), tuple(t_sig.buffers), tuple(t_sig.user_inputs))
        assert sig.inputs_to_parameters == t_sig.inputs_to_parameters
        assert sorted(prog.module().state_dict()) == sorted(t_ep.module().state_dict())
        assert_close(prog.example_inputs[0][0].numpy(), t_ep.example_inputs[0][0].numpy())
    assert ep.range_constraints == {"batch": (0, 64)}


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


def test_errors_are_pytorchs(programs):
    tm, jm, t_dyn = programs
    x, tx = jtorch.tensor(_x(2, 0)), torch.tensor(_x(2, 0))
    raises_like(lambda: torch.export.export(lambda a: a, (tx,)),
                lambda: jtorch.export.export(lambda a: a, (x,)))
    raises_like(lambda: torch.export.export(tm, [tx]), lambda: jtorch.export.export(jm, [x]),
                RuntimeError)
    bad = {"y": {0: torch.export.Dim("b")}}
    raises_like(lambda: torch.export.export(tm, (tx,), dynamic_shapes=bad),
                lambda: jtorch.export.export(jm, (x,), dynamic_shapes={
                    "y": {0: jtorch.export.Dim("b")}}), RuntimeError)
    raises_like(lambda: torch.export.Dim("1b"), lambda: jtorch.export.Dim("1b"))
    raises_like(lambda: torch.export.Dim("b", min=5, max=2),
                lambda: jtorch.export.Dim("b", min=5, max=2))
    t_ep, ep = torch.export.export(tm, (tx,)), jtorch.export.export(jm, (x,))
    raises_like(lambda: t_ep(tx), lambda: ep(x))
    raises_like(lambda: t_ep.module()(torch.tensor(_x(3, 0))),
                lambda: ep.module()(jtorch.tensor(_x(3, 0))))
    ep = jtorch.export.export(jm, (x,), dynamic_shapes={"x": {0: jtorch.export.Dim("batch",
                                                                                  max=64)}})
    raises_like(lambda: t_dyn.module()(torch.tensor(_x(65, 0))),
                lambda: ep.module()(jtorch.tensor(_x(65, 0))))
    with pytest.raises(NotImplementedError, match=r"torch\.export\.ExportedProgram\.graph"):
        ep.graph
