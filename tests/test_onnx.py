"""torch.onnx.export: ONNX files of an MLP and of a small CNN, run by onnxruntime, equal to
PyTorch's outputs on the same weights at two batch sizes; options PyTorch has and jtorch does
not raise NotImplementedError; a failing export leaves no file."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest
import torch
from helpers import assert_close
from nn_helpers import copy_weights

import jtorch

ort = pytest.importorskip("onnxruntime", reason="onnxruntime (the jtorch[onnx] extra, part of "
                          "the test extra) runs the exported models")


def _mlp(T):
    return T.nn.Sequential(T.nn.Linear(6, 16), T.nn.GELU(), T.nn.Linear(16, 16), T.nn.Sigmoid(),
                           T.nn.Dropout(0.1), T.nn.Linear(16, 4), T.nn.Softmax(-1)).eval()


def _cnn(T):
    return T.nn.Sequential(
        T.nn.Conv2d(3, 8, 3, padding=1), T.nn.BatchNorm2d(8), T.nn.ReLU(), T.nn.MaxPool2d(2),
        T.nn.Conv2d(8, 8, 3, stride=2, groups=2), T.nn.Tanh(), T.nn.AdaptiveAvgPool2d(1),
        T.nn.Flatten(), T.nn.Linear(8, 5), T.nn.LogSoftmax(-1)).eval()


def _pair(make):
    tm, jm = make(torch), make(jtorch)
    if hasattr(tm[1], "running_mean"):   # non-trivial running statistics for eval mode
        with torch.no_grad():
            tm[1].running_mean.uniform_(-1, 1)
            tm[1].running_var.uniform_(0.5, 2)
    copy_weights(tm, jm)
    return tm, jm


def _rand(*shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _check(session, tm, shapes):
    name = session.get_inputs()[0].name
    for k, shape in enumerate(shapes):
        x = _rand(*shape, seed=k)
        (out,) = session.run(None, {name: x})
        assert_close(out, tm(torch.tensor(x)).detach().numpy(), atol=1e-5, rtol=1e-5)


def test_mlp_to_a_path_with_dynamic_axes(tmp_path):
    tm, jm = _pair(_mlp)
    path = tmp_path / "mlp.onnx"
    prog = jtorch.onnx.export(jm, (jtorch.tensor(_rand(2, 6, seed=9)),), str(path),
                              input_names=["features"], output_names=["probs"],
                              dynamic_axes={"features": {0: "batch"}, "probs": {0: "batch"}})
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert [(i.name, i.shape) for i in session.get_inputs()] == [("features", ["batch", 6])]
    assert [(o.name, o.shape) for o in session.get_outputs()] == [("probs", ["batch", 4])]
    _check(session, tm, [(2, 6), (7, 6)])
    x = _rand(3, 6, seed=5)   # the returned ONNXProgram runs the same model
    assert_close(prog(jtorch.tensor(x))[0].numpy(), tm(torch.tensor(x)).detach().numpy(),
                 atol=1e-5, rtol=1e-5)


def test_cnn_to_a_file_object_with_dynamic_shapes():
    tm, jm = _pair(_cnn)
    buf = io.BytesIO()
    jtorch.onnx.export(jm, (jtorch.tensor(_rand(2, 3, 10, 10, seed=1)),), buf,
                       dynamic_shapes={"input": {0: jtorch.export.Dim("n")}})
    session = ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])
    assert session.get_inputs()[0].shape == ["n", 3, 10, 10]
    _check(session, tm, [(2, 3, 10, 10), (5, 3, 10, 10)])


def test_failing_export_leaves_no_file(tmp_path):
    class Sorts(jtorch.nn.Module):
        def forward(self, x):
            return x.sort(dim=-1).values

    path = tmp_path / "sorts.onnx"
    with pytest.raises(NotImplementedError, match="'sort'"):
        jtorch.onnx.export(Sorts(), (jtorch.ones(2, 3),), path)
    assert not path.exists() and list(tmp_path.iterdir()) == []


def test_options_jtorch_lacks_raise_naming_them():
    m, x = _mlp(jtorch), jtorch.ones(1, 6)
    with pytest.raises(NotImplementedError, match=r"torch\.onnx\.export\(verify=True\)"):
        jtorch.onnx.export(m, (x,), verify=True)
    with pytest.raises(NotImplementedError, match=r"opset_version=11"):
        jtorch.onnx.export(m, (x,), opset_version=11)
    with pytest.raises(ValueError, match="Expected `mod` to be an instance of"):
        jtorch.onnx.export(lambda a: a, (x,))


def test_missing_onnx_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)   # `import onnx` fails as if not installed
    with pytest.raises(ModuleNotFoundError, match=r"pip install jtorch\[onnx\]"):
        jtorch.onnx.export(_mlp(jtorch), (jtorch.ones(1, 6),))


def test_exported_program_exports_with_its_dynamic_batch():
    class Seen(jtorch.nn.Linear):
        seen = []

        def forward(self, x):
            self.seen.append(jtorch.onnx.is_in_onnx_export())
            return super().forward(x)

    tm, jm = torch.nn.Linear(4, 2), Seen(4, 2)
    copy_weights(tm, jm)
    ep = jtorch.export.export(jm, (jtorch.ones(2, 4),),
                              dynamic_shapes=({0: jtorch.export.Dim("b")},))
    prog = jtorch.onnx.export(ep, dynamo=True)
    assert jm.seen == [False, True] and not jtorch.onnx.is_in_onnx_export()
    x = _rand(5, 4, seed=2)
    assert_close(prog(jtorch.tensor(x))[0].numpy(), tm(torch.tensor(x)).detach().numpy(),
                 atol=1e-5, rtol=1e-5)
    assert jtorch.onnx.export(ep, dynamo=False) is None


def test_embedding_slicing_and_views_with_a_dynamic_batch():
    def make(T):
        class Tokens(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = T.nn.Embedding(11, 6)
                self.norm = T.nn.LayerNorm(6)

            def forward(self, ids):
                h = self.norm(self.emb(ids))                      # (B, L, 6)
                first = h[:, 0] + h[:, 1:3].mean(1)               # slices of the batch's rows
                flat = h.transpose(1, 2).reshape(h.shape[0], -1)  # a view's reshape: a copy
                return T.cat([first, flat.narrow(1, 2, 4), T.nn.functional.silu(flat[:, ::5])], 1)

        return Tokens()

    tm, jm = make(torch), make(jtorch)
    copy_weights(tm, jm)
    ids = np.random.default_rng(0).integers(0, 11, (2, 5))
    prog = jtorch.onnx.export(jm, (jtorch.tensor(ids),), dynamic_axes={"ids": [0]})
    for n in (2, 4):
        ids = np.random.default_rng(n).integers(0, 11, (n, 5))
        assert_close(prog(jtorch.tensor(ids))[0].numpy(), tm(torch.tensor(ids)).detach().numpy(),
                     atol=1e-5, rtol=1e-5)


def test_transformer_encoder_layer_with_a_dynamic_batch():
    def make(T):
        return T.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).eval()

    tm, jm = make(torch), make(jtorch)
    copy_weights(tm, jm)
    prog = jtorch.onnx.export(jm, (jtorch.tensor(_rand(2, 5, 8, seed=0)),),
                              dynamic_shapes=({0: jtorch.export.Dim("b")},))
    for n in (2, 3):
        x = _rand(n, 5, 8, seed=n)
        with torch.no_grad():
            expected = tm(torch.tensor(x)).numpy()
        assert_close(prog(jtorch.tensor(x))[0].numpy(), expected, atol=1e-5, rtol=1e-5)


def test_transposed_convolution_with_a_dynamic_batch():
    def make(T):
        return T.nn.Sequential(
            T.nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1, output_padding=1, groups=2),
            T.nn.ReLU(), T.nn.ConvTranspose2d(4, 2, (3, 2), stride=(2, 3), dilation=(1, 2)))

    tm, jm = make(torch), make(jtorch)
    copy_weights(tm, jm)
    prog = jtorch.onnx.export(jm, (jtorch.tensor(_rand(2, 4, 5, 6, seed=0)),),
                              dynamic_axes={"input": [0]})
    for n in (2, 3):
        x = _rand(n, 4, 5, 6, seed=n)
        assert_close(prog(jtorch.tensor(x))[0].numpy(), tm(torch.tensor(x)).detach().numpy(),
                     atol=1e-5, rtol=1e-5)


def test_slicing_along_dynamic_dimensions():
    def make(T):
        class Slicer(T.nn.Module):
            def forward(self, x):   # x: (b, k), both dimensions dynamic
                d = x[1:] - x[:-1]   # sizes computed at run time: b - 1, min(b, 5) - 2...
                return (d[::2], x[2:5], x[-3:], x[-1], x[:, 1:] * x[:, :-1],
                        x.narrow(0, 0, x.shape[0] - 1), x.unfold(0, 2, 1), x.select(0, -2),
                        x[[0, -1]], x[:-1].contiguous().view(-1, x.shape[1]))

        return Slicer()

    b, k = jtorch.export.Dim("b", min=2, max=64), jtorch.export.Dim("k", min=2, max=8)
    prog = jtorch.onnx.export(make(jtorch), (jtorch.tensor(_rand(4, 3, seed=0)),),
                              dynamic_shapes={"x": {0: b, 1: k}})
    for n, m in ((2, 3), (7, 5)):
        x = _rand(n, m, seed=n)
        got = prog(jtorch.tensor(x))
        expected = make(torch)(torch.tensor(x))
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_close(g.numpy(), e.numpy())
