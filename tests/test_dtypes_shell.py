"""PyTorch's "shell" dtypes: the float8 formats and uint16/32/64. PyTorch stores, converts,
copies, views and compares them but computes little with them, and refuses to promote them
with other dtypes; jtorch matches that (and JAX computes where PyTorch's CPU kernels are
missing, see docs/differences.md). Every expected value is PyTorch 2.13's."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch

FLOAT8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
          "float8_e8m0fnu"]
WIDE_UNSIGNED = ["uint16", "uint32", "uint64"]
OTHERS = ["bool", "uint8", "int8", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64"]
# finite and special values, overflow, subnormals, ties and signs
VALUES = [1.5, -2.25, 300.0, 1e-3, 0.3, 0.0, -0.0, 1000.0, -1e5, 3e-5, 2.0 ** -9, 2.0 ** -17,
          float("inf"), float("-inf"), float("nan"), 0.1875, 0.625, 2.5, 3.5, 57344.0, 6e4, 1e38,
          2.0 ** -127, 1e-40]


def _bits(t):
    """The raw bytes of a float8 tensor, as uint8 values; every NaN as "nan" (NaN payloads and
    signs may differ: docs/differences.md)."""
    raw = t.view(torch.uint8 if isinstance(t, torch.Tensor) else jtorch.uint8).tolist()
    nan = t.float().isnan().tolist()
    return ["nan" if n else b for b, n in zip(raw, nan)]


@pytest.mark.parametrize("name", FLOAT8 + WIDE_UNSIGNED)
def test_dtype_object(name):
    t, j = getattr(torch, name), getattr(jtorch, name)
    assert repr(j) == repr(t) and str(j) == str(t)
    for attr in ("is_floating_point", "is_complex", "is_signed", "itemsize", "abbr"):
        assert getattr(j, attr) == getattr(t, attr), attr
    assert str(j.to_real()) == str(t.to_real())
    assert pickle.loads(pickle.dumps(j)) is j
    info_t = torch.finfo(t) if t.is_floating_point else torch.iinfo(t)
    info_j = jtorch.finfo(j) if j.is_floating_point else jtorch.iinfo(j)
    assert repr(info_j) == repr(info_t)
    assert info_j.bits == info_t.bits


@pytest.mark.parametrize("name", FLOAT8 + WIDE_UNSIGNED)
def test_promotion_is_refused_as_pytorch_refuses_it(name):
    for other in OTHERS + FLOAT8 + WIDE_UNSIGNED:
        for a, b in ((name, other), (other, name)):
            ta, tb, ja, jb = (getattr(torch, a), getattr(torch, b), getattr(jtorch, a),
                              getattr(jtorch, b))
            try:
                expected = str(torch.promote_types(ta, tb))
            except RuntimeError:
                raises_like(lambda ta=ta, tb=tb: torch.promote_types(ta, tb),
                            lambda ja=ja, jb=jb: jtorch.promote_types(ja, jb))
                continue
            assert str(jtorch.promote_types(ja, jb)) == expected, (a, b)
            assert jtorch.can_cast(ja, jb) == torch.can_cast(ta, tb), (a, b)


@pytest.mark.parametrize("name", FLOAT8)
def test_float8_conversion_bits_and_back(name):
    """float32 -> float8 rounds as c10 does (bit for bit, NaN and overflow included), and back;
    from float64 and bfloat16 sources too."""
    src = np.array(VALUES, dtype=np.float32)
    for source in ("float32", "float64", "bfloat16"):
        t = torch.from_numpy(src).to(getattr(torch, source)).to(getattr(torch, name))
        j = jtorch.from_numpy(src).to(getattr(jtorch, source)).to(getattr(jtorch, name))
        assert _bits(j) == _bits(t), source
        back_t, back_j = t.to(torch.float32).numpy(), j.to(jtorch.float32).numpy()
        np.testing.assert_array_equal(back_j, back_t)


@pytest.mark.parametrize("name", FLOAT8)
def test_float8_storage_ops(name):
    """What PyTorch's CPU build does with float8 tensors: view as bytes, cat, index, reshape,
    clone, comparisons, printing and the legacy type string."""
    src = np.array([1.5, -2.25, 300.0, 1e-3, 0.3, 4.0], dtype=np.float32)
    t = torch.from_numpy(src).to(getattr(torch, name))
    j = jtorch.from_numpy(src).to(getattr(jtorch, name))
    pairs = [
        (lambda x, T: x.view(T.uint8), "view"),
        (lambda x, T: T.cat([x, x[1:]]), "cat"),
        (lambda x, T: x.reshape(2, 3).t().contiguous(), "reshape"),
        (lambda x, T: x[[0, 2]], "index"),
        (lambda x, T: x.clone(), "clone"),
    ]
    for fn, what in pairs:
        a, b = fn(t, torch), fn(j, jtorch)
        assert str(b.dtype) == str(a.dtype), what
        assert b.reshape(-1).view(jtorch.uint8).tolist() == \
            a.reshape(-1).view(torch.uint8).tolist(), what
    assert (j == j).tolist() == (t == t).tolist()
    assert repr(j) == repr(t)
    assert j.type() == t.type()
    assert j.element_size() == t.element_size() and j.is_floating_point()
    z_t, z_j = torch.zeros(3, dtype=getattr(torch, name)), jtorch.zeros(3, dtype=getattr(jtorch,
                                                                                           name))
    if name != "float8_e8m0fnu":   # e8m0 has no zero (docs/differences.md)
        assert _bits(z_j) == _bits(z_t)


@pytest.mark.parametrize("name", WIDE_UNSIGNED)
def test_wide_unsigned_creation_and_conversion(name):
    t, j = getattr(torch, name), getattr(jtorch, name)
    for v in (-1, -70000, 2 ** 16, 2 ** 32, 2 ** 63, 2 ** 64 - 1, -2 ** 63, 65535):
        try:
            expected = torch.tensor([v], dtype=t).tolist()
        except (RuntimeError, ValueError, OverflowError):
            raises_like(lambda v=v: torch.tensor([v], dtype=t),
                        lambda v=v: jtorch.tensor([v], dtype=j))
            continue
        assert jtorch.tensor([v], dtype=j).tolist() == expected, v
    x = np.array([1, 2, 65535], dtype=name)
    assert jtorch.from_numpy(x).dtype is j
    assert jtorch.from_numpy(x).numpy().dtype == torch.from_numpy(x).numpy().dtype
    assert repr(jtorch.from_numpy(x)) == repr(torch.from_numpy(x))
    assert jtorch.from_numpy(x).float().tolist() == torch.from_numpy(x).float().tolist()
    assert jtorch.tensor([5]).to(j).tolist() == torch.tensor([5]).to(t).tolist()
    assert jtorch.from_numpy(x).type() == torch.from_numpy(x).type()


def test_checkpoints_with_shell_dtypes_load_both_ways(tmp_path):
    """PyTorch saves these dtypes as bytes (``UntypedStorage``) rebuilt by
    ``_rebuild_tensor_v3``; a file either library writes loads in the other, weights-only."""
    src = np.array([1.5, -2.0, 448.0, 0.3], dtype=np.float32)

    def make(T):
        x = T.from_numpy(src).to(T.float8_e4m3fn)
        return {"x": x, "view": x[1:], "e5m2": T.from_numpy(src).to(T.float8_e5m2),
                "u16": T.tensor([7, 65535], dtype=T.uint16),
                "u64": T.tensor([2 ** 63 + 5], dtype=T.uint64), "f": T.ones(2)}

    def same(a, b):
        assert set(a) == set(b)
        for k in a:
            assert str(a[k].dtype) == str(b[k].dtype) and a[k].shape == b[k].shape, k
            assert a[k].view(-1).to(a[k].dtype).tolist() == b[k].view(-1).tolist() \
                if not a[k].is_floating_point() else \
                a[k].float().tolist() == b[k].float().tolist(), k

    torch.save(make(torch), tmp_path / "t.pt")
    jtorch.save(make(jtorch), tmp_path / "j.pt")
    same(jtorch.load(tmp_path / "t.pt"), torch.load(tmp_path / "t.pt"))
    same(torch.load(tmp_path / "j.pt"), torch.load(tmp_path / "t.pt"))
    buf = io.BytesIO()
    jtorch.save(make(jtorch), buf)
    buf.seek(0)
    same(jtorch.load(buf), torch.load(tmp_path / "t.pt"))
