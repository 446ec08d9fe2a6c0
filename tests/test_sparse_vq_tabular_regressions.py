"""Regressions found by running entmax, vector-quantize-pytorch, performer-pytorch and
pytorch-tabnet unchanged under jtorch (scripts/real_drivers/sparse_vq_tabular.py,
docs/real-programs.md): each test is a small stand-in for what the library did, in plain
torch-API code, run in jtorch and in real PyTorch."""

import sys

import numpy as np
import pytest
import torch
import torch.distributed as tdist
import torch.distributed.nn as tdist_nn
from distributed_launch import free_ports

import jtorch
import jtorch.distributed as jdist


def test_torch_distributed_nn_imports():
    # vector_quantize_pytorch.lookup_free_quantization: `from torch.distributed import nn as
    # dist_nn` (ImportError at `import vector_quantize_pytorch`)
    from jtorch.distributed import nn as dist_nn
    from jtorch.distributed.nn import functional
    for name in tdist_nn.functional.__dict__:
        if name in ("all_gather", "all_reduce", "all_to_all", "all_to_all_single", "broadcast",
                    "gather", "reduce", "reduce_scatter", "scatter"):
            assert callable(getattr(dist_nn, name)) and callable(getattr(functional, name))
    with pytest.raises(NotImplementedError, match="torch.distributed.nn.functional.scatter"):
        dist_nn.scatter([jtorch.ones(2)])


def test_torch_distributed_nn_before_init():
    errors = []
    for T, nn in ((torch, tdist_nn), (jtorch, jtorch.distributed.nn)):
        with pytest.warns(FutureWarning, match="all_reduce is deprecated"), \
                pytest.raises(Exception) as info:
            nn.all_reduce(T.ones(2))
        errors.append((type(info.value).__name__, str(info.value)))
    assert errors[1] == errors[0]


def _collectives_with_grads(T, D, x, w):
    fn = __import__(f"{T.__name__}.distributed.nn", fromlist=["_"])
    out = []
    for op in (lambda t: fn.all_reduce(t * 2), lambda t: fn.all_reduce(t, op=D.ReduceOp.MAX),
               lambda t: fn.broadcast(t.exp(), 0), lambda t: fn.reduce(t.sin(), 0),
               lambda t: T.cat(fn.all_gather(t * t))):
        t = T.tensor(x, requires_grad=True)
        y = op(t)
        (y * T.tensor(w)).sum().backward()
        out.append((y.detach().numpy().copy(), t.grad.numpy().copy()))
    return out


@pytest.mark.distributed
def test_torch_distributed_nn_autograd_world_of_one():
    """all_reduce/broadcast/reduce/all_gather return new tensors and pass gradients back,
    against PyTorch's gloo world of one."""
    ports = free_ports(2)
    excepthook = sys.excepthook
    x = np.array([[0.5, -1.0, 2.0], [3.0, 0.25, -0.75]], dtype=np.float32)
    w = np.array([[1.0, 2.0, -1.0], [0.5, -3.0, 4.0]], dtype=np.float32)
    results = []
    try:
        for T, D, port in ((torch, tdist, ports[0]), (jtorch, jdist, ports[1])):
            D.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0,
                                 world_size=1)
            try:
                with pytest.warns(FutureWarning):
                    results.append(_collectives_with_grads(T, D, x, w))
            finally:
                D.destroy_process_group()
    finally:
        sys.excepthook = excepthook
    for (want_y, want_g), (got_y, got_g) in zip(*results, strict=True):
        np.testing.assert_allclose(got_y, want_y, rtol=1e-6)
        np.testing.assert_allclose(got_g, want_g, rtol=1e-6)


def test_cuda_initialized_flag():
    # performer_pytorch.reversible reads torch.cuda._initialized to decide whether to save
    # CUDA's RNG state (AttributeError in PerformerLM(reversible=True))
    assert jtorch.cuda._initialized == jtorch.cuda.is_initialized()
    if not jtorch.cuda.is_available():
        assert jtorch.cuda._initialized is torch.cuda._initialized is False
    with pytest.raises(AttributeError, match="no attribute '_not_a_name'"):
        jtorch.cuda._not_a_name  # noqa: B018


BMM_DTYPE_CASES = [
    ("bmm", (1, 3, 4), (1, 4, 5)), ("bmm", (1, 24, 8), (1, 8, 16)), ("bmm", (1, 10, 4), (1, 4, 10)),
    ("bmm", (1, 10, 4), (1, 4, 9)), ("bmm", (7, 8, 8), (7, 8, 8)), ("bmm", (7, 5, 8), (7, 8, 5)),
    ("matmul", (2, 3, 4), (2, 4, 5)), ("matmul", (2, 24, 8), (2, 8, 16)),
    ("baddbmm", (1, 20, 20), (1, 20, 20)),
    ("einsum", "bid,bjd->bij", (1, 24, 8), (1, 16, 8)),
    ("einsum", "bid,bjd->bij", (1, 3, 4), (1, 5, 4)),
    ("einsum", "ij,jk->ik", (3, 4), (4, 5)), ("einsum", "ij,jk->ik", (30, 4), (4, 5)),
    ("einsum", "bij,bjk->bik", (2, 8, 8), (2, 8, 8)), ("einsum", "i,i->", (500,), (500,)),
]


@pytest.mark.parametrize("case", BMM_DTYPE_CASES, ids=str)
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32")])
def test_bmm_dtype_mismatch_message(case, dtypes):
    # vector_quantize_pytorch's cdist under set_default_dtype(float64) with its float32 affine
    # statistics: einsum('b i d, b j d -> b i j') of (1, 24, 8) float32 and (1, 16, 8) float64;
    # PyTorch's CPU bmm names batch2's dtype first once rows * contraction * columns >= 400
    kind, *shapes = case
    errors = []
    for T in (torch, jtorch):
        da, db = (getattr(T, d) for d in dtypes)
        if kind == "einsum":
            eq, sa, sb = shapes
            call = lambda T=T, eq=eq, sa=sa, sb=sb, da=da, db=db: T.einsum(
                eq, T.ones(sa, dtype=da), T.ones(sb, dtype=db))
        elif kind == "baddbmm":
            sa, sb = shapes
            call = lambda T=T, sa=sa, sb=sb, da=da, db=db: T.baddbmm(
                T.ones(sa[0], sa[1], sb[2], dtype=da), T.ones(sa, dtype=da), T.ones(sb, dtype=db))
        else:
            sa, sb = shapes
            call = lambda T=T, sa=sa, sb=sb, da=da, db=db, kind=kind: getattr(T, kind)(
                T.ones(sa, dtype=da), T.ones(sb, dtype=db))
        with pytest.raises(RuntimeError) as info:
            call()
        errors.append(str(info.value))
    assert errors[1] == errors[0]
