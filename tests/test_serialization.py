"""torch.save / torch.load in PyTorch's format, tested both ways against real PyTorch."""

from __future__ import annotations

import collections
import copy
import io
import os
import pickle
import zipfile

import numpy as np
import pytest
import torch

import jtorch
from jtorch import serialization as S
from tests.helpers import assert_close

Point = collections.namedtuple("Point", "x y")


def _jt_checkpoint():
    a = jtorch.arange(12.0).reshape(3, 4)
    sd = collections.OrderedDict(
        w=a, t=a.t(), row=a[1], p=jtorch.nn.Parameter(jtorch.linspace(0, 1, 5)),
        i=jtorch.arange(3), b=jtorch.tensor([True, False]),
        h=jtorch.ones(2, dtype=jtorch.bfloat16), f16=jtorch.full((2,), 0.5, dtype=jtorch.float16),
        f64=jtorch.randn(2, 2, dtype=jtorch.float64),
        i8=jtorch.tensor([-3, 4], dtype=jtorch.int8), u8=jtorch.tensor([250], dtype=jtorch.uint8),
        c=jtorch.tensor([1 + 2j]), scalar=jtorch.tensor(3.5), empty=jtorch.zeros(0, 3))
    sd._metadata = {"": {"version": 1}}
    return {"model": sd, "epoch": 7, "loss": 0.25, "name": "run-1", "tags": ["a", "b"],
            "betas": (0.9, 0.999), "nested": {"x": [jtorch.ones(2), {"y": None}]},
            "dtype": jtorch.float16, "size": jtorch.Size([2, 3]), "blob": b"\x00\x01",
            "flags": {True, False}}


def _compare(j, t, path="obj"):
    if isinstance(t, torch.Tensor):
        assert isinstance(j, jtorch.Tensor), path
        assert isinstance(j, jtorch.nn.Parameter) == isinstance(t, torch.nn.Parameter), path
        assert j.requires_grad == t.requires_grad, path
        assert_close(j, t, msg=path)
    elif isinstance(t, dict):
        assert type(j).__name__ == type(t).__name__ and sorted(j) == sorted(t), path
        for k in t:
            _compare(j[k], t[k], f"{path}[{k!r}]")
    elif isinstance(t, (list, tuple)) and not isinstance(t, torch.Size):
        assert type(j) is type(t) and len(j) == len(t), path
        for k, (a, b) in enumerate(zip(j, t)):
            _compare(a, b, f"{path}[{k}]")
    elif isinstance(t, torch.dtype):
        assert str(j) == str(t), path
    elif isinstance(t, torch.Size):
        assert isinstance(j, jtorch.Size) and tuple(j) == tuple(t), path
    else:
        assert j == t, path


def test_jtorch_file_loads_in_torch_weights_only(tmp_path):
    obj = _jt_checkpoint()
    jtorch.save(obj, tmp_path / "ck.pt")
    t = torch.load(tmp_path / "ck.pt", weights_only=True)
    _compare(obj, t)
    m = t["model"]
    assert m._metadata == {"": {"version": 1}}
    # shared storage and views are kept: one storage for w, t and row
    ptr = m["w"].untyped_storage().data_ptr()
    assert m["t"].untyped_storage().data_ptr() == ptr == m["row"].untyped_storage().data_ptr()
    assert m["t"].stride() == (1, 4) and m["row"].storage_offset() == 4
    m["w"][1, 2] = -1.0
    assert m["row"][2].item() == -1.0
    with zipfile.ZipFile(tmp_path / "ck.pt") as z:
        names = z.namelist()
        assert {"ck/data.pkl", "ck/byteorder", "ck/version"} <= set(names)
        for info in z.infolist():  # storages start on 64-byte boundaries, as PyTorch writes
            if "/data/" in info.filename:
                off = info.header_offset
                raw = (tmp_path / "ck.pt").read_bytes()
                n = int.from_bytes(raw[off + 26:off + 28], "little")
                m_ = int.from_bytes(raw[off + 28:off + 30], "little")
                assert (off + 30 + n + m_) % 64 == 0


@pytest.mark.parametrize("zip_format", [True, False])
def test_torch_file_loads_in_jtorch(tmp_path, zip_format):
    base = torch.arange(12.0).reshape(3, 4)
    obj = {"w": base, "t": base.t(), "row": base[2], "p": torch.nn.Parameter(torch.ones(3)),
           "i": torch.arange(4, dtype=torch.int32), "h": torch.ones(2, dtype=torch.bfloat16),
           "n": [1, 2.5, "s", None], "tup": (torch.zeros(1), 3), "size": torch.Size([4])}
    torch.save(obj, tmp_path / "t.pt", _use_new_zipfile_serialization=zip_format)
    j = jtorch.load(tmp_path / "t.pt")
    _compare(j, obj)
    j["w"][2, 1] = 42.0  # they share one storage in jtorch too
    assert j["row"][1].item() == 42.0 and j["t"][1, 2].item() == 42.0


def test_module_and_optimizer_state_dicts_round_trip(tmp_path):
    tm = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    opt = torch.optim.Adam(tm.parameters(), lr=1e-3)
    tm(torch.randn(5, 4)).sum().backward()
    opt.step()
    torch.save({"model": tm.state_dict(), "opt": opt.state_dict(), "epoch": 3}, tmp_path / "a.pt")
    j = jtorch.load(tmp_path / "a.pt")
    _compare(j, torch.load(tmp_path / "a.pt"))
    assert list(j["opt"]["state"]) == [0, 1, 2, 3]
    jtorch.save(j, tmp_path / "b.pt")
    _compare(j, torch.load(tmp_path / "b.pt"))


def test_bytes_io_and_mmap_and_map_location(tmp_path):
    x = jtorch.randn(4, 3)
    buf = io.BytesIO()
    jtorch.save({"x": x}, buf)
    buf.seek(0)
    assert_close(jtorch.load(buf)["x"], torch.load(io.BytesIO(buf.getvalue()))["x"])
    jtorch.save({"x": x}, tmp_path / "m.pt")
    for kw in ({"mmap": True}, {"map_location": "cpu"}, {"map_location": jtorch.device("cpu")},
               {"map_location": {"cpu": "cpu"}}, {"map_location": lambda s, loc: s},
               {"map_location": lambda s, loc: None}):
        got = jtorch.load(tmp_path / "m.pt", **kw)["x"]
        np.testing.assert_array_equal(got.numpy(), x.numpy())


def _cuda_checkpoint(path):
    class P(S._Pickler):
        def _storage(self, t):
            ref = super()._storage(t)
            ref.location = "cuda:0"
            return ref

    buf = io.BytesIO()
    p = P(buf, 2)
    p.dump({"x": jtorch.arange(3.0)})
    with open(path, "wb") as f:
        S._write_zip(f, "archive", buf.getvalue(), list(p.storages.values()))


def test_cuda_locations_map_to_cpu(tmp_path):
    _cuda_checkpoint(tmp_path / "c.pt")
    ref = torch.load(tmp_path / "c.pt", map_location="cpu")["x"]
    for ml in ("cpu", {"cuda:0": "cpu"}, lambda s, loc: s):
        assert_close(jtorch.load(tmp_path / "c.pt", map_location=ml)["x"], ref)
    if not jtorch.cuda.is_available():
        with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA"):
            jtorch.load(tmp_path / "c.pt")


# ------------------------------------------------------------------ safety
class Evil:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


def _evil_zip(path, payload):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("archive/data.pkl", payload)
        z.writestr("archive/version", "3\n")


@pytest.mark.parametrize("kind", ["torch_zip", "torch_legacy", "handmade", "builtins_eval"])
def test_malicious_pickle_runs_nothing(tmp_path, kind):
    marker = tmp_path / "pwned"
    f = tmp_path / "evil.pt"
    if kind == "torch_zip":
        torch.save({"w": torch.ones(2), "x": Evil(marker)}, f)
    elif kind == "torch_legacy":
        torch.save({"x": Evil(marker)}, f, _use_new_zipfile_serialization=False)
    elif kind == "handmade":
        _evil_zip(f, pickle.dumps(Evil(marker), protocol=2))
    else:
        _evil_zip(f, b"cbuiltins\neval\n(V__import__('os').system('touch " +
                  str(marker).encode() + b"')\ntR.")
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        jtorch.load(f)
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global"):
        jtorch.load(f, weights_only=True)
    assert not marker.exists()


def test_weights_only_false_is_explicit_and_safe_globals(tmp_path):
    obj = {"p": Point(1, 2)}
    jtorch.save(obj, tmp_path / "p.pt")
    with pytest.raises(pickle.UnpicklingError):
        jtorch.load(tmp_path / "p.pt")
    assert jtorch.load(tmp_path / "p.pt", weights_only=False) == obj
    with S.safe_globals([Point]):
        assert jtorch.load(tmp_path / "p.pt") == obj
    with pytest.raises(pickle.UnpicklingError):
        jtorch.load(tmp_path / "p.pt")
    S.add_safe_globals([Point])
    try:
        assert jtorch.load(tmp_path / "p.pt") == obj
        assert Point in S.get_safe_globals()
    finally:
        S.clear_safe_globals()


def test_truncated_and_corrupt_files(tmp_path):
    jtorch.save({"w": jtorch.randn(100)}, tmp_path / "ok.pt")
    raw = (tmp_path / "ok.pt").read_bytes()
    for cut in (len(raw) // 2, len(raw) - 10, 10):
        (tmp_path / "bad.pt").write_bytes(raw[:cut])
        with pytest.raises(RuntimeError):
            jtorch.load(tmp_path / "bad.pt")
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint at all")
    with pytest.raises((RuntimeError, pickle.UnpicklingError)):
        jtorch.load(tmp_path / "junk.pt")


def test_failed_save_keeps_the_old_file(tmp_path):
    path = tmp_path / "ck.pt"
    jtorch.save({"w": jtorch.ones(3)}, path)
    good = path.read_bytes()
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        jtorch.save({"w": jtorch.zeros(3), "f": lambda: 0}, path)
    assert path.read_bytes() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck.pt"]  # no temp file left
    np.testing.assert_array_equal(jtorch.load(path)["w"].numpy(), np.ones(3, np.float32))


def test_safetensors_both_ways(tmp_path):
    st = pytest.importorskip("safetensors.torch")
    from jtorch.utils import safetensors as jst

    sd = {"w": jtorch.randn(3, 4), "b": jtorch.arange(4),
          "h": jtorch.ones(2, dtype=jtorch.bfloat16), "m": jtorch.tensor([True, False])}
    jst.save_file(sd, tmp_path / "a.safetensors", metadata={"format": "pt"})
    t = st.load_file(str(tmp_path / "a.safetensors"))
    for k in sd:
        assert_close(sd[k], t[k])
    t2 = {"x": torch.randn(2, 5, dtype=torch.float64), "y": torch.arange(3, dtype=torch.int16)}
    st.save_file(t2, str(tmp_path / "b.safetensors"))
    j = jst.load_file(tmp_path / "b.safetensors")
    for k in t2:
        assert_close(j[k], t2[k])
    with pytest.raises(ValueError):
        jst.load(b"\x10\x00")


def _whole_model_class(T):
    """A model class (one per library) holding a functional, a set and MultiheadAttention."""
    class WholeModel(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = T.nn.Linear(4, 4)
            self.act = T.nn.functional.relu
            self.mha = T.nn.MultiheadAttention(4, 2)
            self.tags = {"a", "b"}

        def forward(self, x):
            return self.mha(*(self.act(self.lin(x)),) * 3)[0]

    WholeModel.__qualname__ = WholeModel.__name__ = f"WholeModel_{T.__name__}"
    globals()[WholeModel.__name__] = WholeModel   # picklable by name, as a user's class is
    return WholeModel


def test_whole_model_saved_by_torch_loads_and_runs(tmp_path):
    """``torch.save(model)`` of a whole model: jtorch loads PyTorch's file (module paths such as
    torch.nn.modules.activation.MultiheadAttention, F.relu by name, a set) and computes the
    same outputs; with weights_only=True the user's safe_globals admit the classes (and a set,
    pickled as Python 2's ``__builtin__.set``)."""
    tm = _whole_model_class(torch)().eval()
    _whole_model_class(jtorch)
    path = str(tmp_path / "whole.pt")
    torch.save(tm, path)
    jm = jtorch.load(path, weights_only=False)
    assert type(jm.mha).__module__ == "jtorch.nn.modules.activation"
    assert type(jm.mha.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert jm.tags == {"a", "b"}
    x = np.random.default_rng(0).standard_normal((3, 2, 4)).astype(np.float32)
    assert_close(jm(jtorch.tensor(x)), tm(torch.tensor(x)))
    jtorch.save(jm, path)
    allowed = [type(jm), set, jtorch.nn.Linear, jtorch.nn.MultiheadAttention,
               jtorch.nn.modules.linear.NonDynamicallyQuantizableLinear,
               jtorch.nn.functional.relu]
    with pytest.raises(pickle.UnpicklingError, match="was not an allowed global by default"):
        jtorch.load(path)
    with jtorch.serialization.safe_globals(allowed):
        again = jtorch.load(path)
    assert_close(again(jtorch.tensor(x)), tm(torch.tensor(x)))


def _tensor_subclass(lib):
    """A Tensor subclass of ``lib``, put in this module's globals so pickle finds it."""
    name = f"PickledSub_{lib.__name__}"
    cls = type(name, (lib.Tensor,), {"__module__": __name__})
    globals()[name] = cls
    return cls


@pytest.mark.parametrize("how", ["pickle", "copy"])
def test_pickle_and_copy_keep_subclass_and_attributes(how):
    """``pickle`` and ``copy.copy`` of a tensor bring back its subclass and its attributes, as
    PyTorch's ``_rebuild_from_type_v2`` does (a subclass instance as an alias in the graph)."""
    def roundtrip(t):
        return pickle.loads(pickle.dumps(t)) if how == "pickle" else copy.copy(t)

    seen = []
    for lib in (torch, jtorch):
        cls = _tensor_subclass(lib)
        plain = lib.tensor([1.0, 2.0])
        plain.tag = {"k": 1}
        sub = lib.tensor([3.0, 4.0]).as_subclass(cls).detach().requires_grad_()
        sub.z = 5
        p, s = roundtrip(plain), roundtrip(sub)
        seen.append((type(p) is lib.Tensor, p.tag, p.tolist(), type(s) is cls, s.z,
                     s.requires_grad, s.is_leaf, s.tolist()))
        bare = roundtrip(lib.arange(3))
        assert not vars(bare) and bare.tolist() == [0, 1, 2]
    assert seen[0] == seen[1]


@pytest.mark.parametrize("writer", ["torch", "jtorch"])
def test_save_load_keeps_attributes_and_subclass(tmp_path, writer):
    """``torch.save`` writes a tensor with attributes, or a subclass instance, through
    ``_rebuild_from_type_v2`` and a Parameter with attributes through
    ``_rebuild_parameter_with_state``; each library loads the other's file with them, the
    weights-only loader included (a subclass needs ``weights_only=False``)."""
    src = {"torch": torch, "jtorch": jtorch}[writer]
    t = src.tensor([1.0, 2.0])
    t.tag = "x"
    p = src.nn.Parameter(src.ones(1))
    p.w = 3
    path = str(tmp_path / "attrs.pt")
    src.save({"t": t, "p": p}, path)
    for lib in (torch, jtorch):
        got = lib.load(path)
        assert (type(got["t"]), got["t"].tag, got["t"].tolist()) == (lib.Tensor, "x", [1.0, 2.0])
        assert (type(got["p"]), got["p"].w) == (lib.nn.Parameter, 3)
    cls = _tensor_subclass(src)
    sub = src.tensor([3.0]).as_subclass(cls)
    sub.z = 5
    src.save(sub, path)
    again = src.load(path, weights_only=False)
    assert (type(again), again.z, again.tolist()) == (cls, 5, [3.0])
