"""What PyTorch Geometric (scripts/real_drivers/pyg_models.py) needed from jtorch, against
PyTorch: ``torch.__config__``, ``torch.jit._overload``/``_overload_method``,
``torch._tensor_str._tensor_str``/``_str_intern``, the aten-only operators its
``__torch_dispatch__`` tables name (``aten.alias``, ``slice``, ``index``, ``_to_copy``,
``_pin_memory``; values and gradients), ``Tensor._coalesced_``, and the NotImplementedError
of ``Tensor._make_wrapper_subclass``."""

import numpy as np
import pytest
import torch
from helpers import assert_close, parity, rand

import jtorch

LIBS = (torch, jtorch)


def test_config_show_names_the_build_settings():
    for T in LIBS:
        text = T.__config__.show()
        assert text.startswith("PyTorch built with:\n") and "Build settings: " in text
        assert "USE_MKL=" in text and "TORCH_VERSION=2.13.0" in text
        assert "at::get_num_threads() : " in T.__config__.parallel_info()
    # PyTorch Geometric's check: jtorch links no MKL
    assert "USE_MKL=OFF" in jtorch.__config__.show()


@jtorch.jit._overload
def _declared(x: int) -> int: ...


@jtorch.jit._overload
def _declared(x: float) -> float:  # noqa: F811 - TorchScript's overload declarations
    pass


def _declared(x):  # noqa: F811
    return x * 2


def test_overload_declarations_as_pytorch():
    assert _declared(3) == 6
    for T in LIBS:
        def bad(x: int) -> int:
            return x

        with pytest.raises(RuntimeError, match="Only `pass` statement or `...` can be the "
                                               "body of overload declaration"):
            T.jit._overload(bad)

        class Holder:
            @T.jit._overload_method
            def f(self, x: int) -> int: ...

            def f(self, x):  # noqa: F811
                return x + 1

        assert Holder().f(1) == 2


def test_tensor_str_private_helpers_as_pytorch():
    for value in (np.arange(3000, dtype=np.float32), np.array([[1.5, 2], [3, 4]], np.float32),
                  np.array([], np.int64), np.array([7, -3], np.int64)):
        for indent in (0, 7):
            assert jtorch._tensor_str._tensor_str(jtorch.tensor(value), indent) == \
                torch._tensor_str._tensor_str(torch.tensor(value), indent)
    assert jtorch._tensor_str._str_intern(jtorch.tensor([1, 2]), tensor_contents="ab") == \
        torch._tensor_str._str_intern(torch.tensor([1, 2]), tensor_contents="ab")


@pytest.mark.parametrize("dim,start,end,step", [(0, 1, None, 1), (2, -3, 100, 2),
                                                 (-1, None, 2, 1), (1, 5, 9, 1)])
def test_aten_slice(dim, start, end, step):
    parity(lambda T, x: T.ops.aten.slice.Tensor(x, dim, start, end, step), rand(2, 3, 4))


@pytest.mark.parametrize("nones", [(None, "i"), ("i", None, "j"), ("i",)])
def test_aten_index(nones):
    idx = {"i": np.array([1, 0, 1]), "j": np.array([3, 0, 2])}

    def fn(T, x):
        return T.ops.aten.index.Tensor(x, [None if k is None else T.tensor(idx[k])
                                           for k in nones])
    parity(fn, rand(2, 3, 4))


def test_aten_alias_and_to_copy():
    parity(lambda T, x: T.ops.aten.alias.default(x) * 2, rand(3, 2))
    parity(lambda T, x: T.ops.aten._to_copy.default(x, dtype=T.float64), rand(3, 2))
    parity(lambda T, x: T.ops.aten._to_copy.default(x, pin_memory=True), rand(3))
    for T in LIBS:
        x = T.ones(2)
        a = T.ops.aten.alias.default(x)
        a.add_(1)                       # an alias: the write shows in x
        assert x.tolist() == [2.0, 2.0]
        c = T.ops.aten._to_copy.default(x)
        c.add_(1)                       # a copy: it does not
        assert x.tolist() == [2.0, 2.0] and c.tolist() == [3.0, 3.0]
        with pytest.raises(RuntimeError, match="slice step must be positive"):
            T.ops.aten.slice.Tensor(x, 0, 0, 2, 0)


def test_aten_private_names_pyg_dispatch_tables_read():
    for T in LIBS:
        assert hasattr(T.ops.aten, "_sparse_addmm")
        assert hasattr(T.ops.aten._sparse_mm_reduce_impl, "default")
    with pytest.raises(NotImplementedError, match=r"torch\.ops\.aten\._sparse_addmm"):
        jtorch.ops.aten._sparse_addmm.default(jtorch.ones(2, 2), jtorch.ones(2, 2),
                                              jtorch.ones(2, 2))
    # an aten name jtorch has no op for still reads as absent
    assert not hasattr(jtorch.ops.aten, "_softmax_backward_data")


def test_coalesced_flag_as_pytorch():
    got = []
    for T in LIBS:
        s = T.sparse_coo_tensor(T.tensor([[1, 0], [0, 1]]), T.tensor([1.0, 2.0]), (2, 2))
        assert not s.is_coalesced()
        assert s._coalesced_(True) is s and s.is_coalesced()
        got.append(s.indices().tolist())
        with pytest.raises(NotImplementedError, match="Could not run 'aten::_coalesced_' with "
                                                      "arguments from the 'CPU' backend"):
            T.ones(2)._coalesced_(True)
    assert got[0] == got[1]


def test_make_wrapper_subclass_is_not_implemented():
    assert not hasattr(jtorch.Tensor, "_make_wrapper_subclass")
    with pytest.raises(NotImplementedError, match=r"_make_wrapper_subclass.*__torch_dispatch"):
        jtorch.Tensor._make_wrapper_subclass(jtorch.Tensor, (2,))
    assert_close(jtorch.ones(1), torch.ones(1))


@pytest.mark.parametrize("n", [3, 7, 37, 100])
def test_mean_divides_as_pytorch(n):
    # PyTorch Geometric's homophily: the mean of 3 ones and 4 zeros is 3/7 rounded once;
    # XLA made jnp.mean's division by the count a product with 1/7, one step above. Integer
    # values make every sum exact, so the means must be equal bit for bit
    x = np.random.default_rng(n).integers(-8, 9, (16, n)).astype(np.float32)
    g = rand(16, seed=n)
    for dim in (1, None):
        expected = torch.tensor(x).mean(dim)
        eager = jtorch.tensor(x).mean(dim)
        compiled = jtorch.compile(lambda t, dim=dim: t.mean(dim))(jtorch.tensor(x))
        assert np.array_equal(eager.numpy(), expected.numpy())
        assert np.array_equal(compiled.numpy(), expected.numpy())
    t, j = torch.tensor(x, requires_grad=True), jtorch.tensor(x, requires_grad=True)
    t.mean(1).backward(torch.tensor(g))
    j.mean(1).backward(jtorch.tensor(g))
    assert np.array_equal(j.grad.numpy(), t.grad.numpy())
    parity(lambda T, a: a.mean((0, 2), keepdim=True), rand(3, 5, 7))
    parity(lambda T, a: a.mean(-1, dtype=T.float64), rand(4, 7))


def test_loss_mean_reduction_divides_as_pytorch():
    a = np.random.default_rng(1).integers(-4, 5, (7, 3)).astype(np.float32)
    b = np.random.default_rng(2).integers(-4, 5, (7, 3)).astype(np.float32)
    for name in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"):
        got = getattr(jtorch.nn.functional, name)(jtorch.tensor(a), jtorch.tensor(b))
        expected = getattr(torch.nn.functional, name)(torch.tensor(a), torch.tensor(b))
        assert got.item() == expected.item(), name
    parity(lambda T, x, y: T.nn.functional.mse_loss(x, y), rand(5, 7), rand(5, 7))


# ---- torch.segment_reduce (PyTorch Geometric's utils.segment, aggregations given ptr)
_SEG_X = np.array([[1, 2], [3, 4], [5, -6], [7, 8], [9, 10], [3, 4]], np.float32)


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod", "amax", "amin"])
@pytest.mark.parametrize("initial", [None, 0, 2.5, 4.0])
def test_segment_reduce_values_and_gradients(reduce, initial):
    # an empty segment, ties with initial (4.0) and between elements (the two [3, 4] rows)
    def fn(T, x):
        a = T._segment_reduce(x, reduce, offsets=T.tensor([0, 2, 2, 5]), initial=initial)
        b = T.segment_reduce(x, reduce, lengths=T.tensor([2, 0, 4]), initial=initial)
        return a, b
    parity(fn, _SEG_X)


def test_segment_reduce_axes_and_rows_of_segments():
    parity(lambda T, y: T._segment_reduce(y, "max", lengths=T.tensor([[2, 4], [3, 3]]),
                                          axis=1), rand(2, 6, seed=3))
    parity(lambda T, y: T._segment_reduce(y, "mean", offsets=T.tensor([1, 3, 5])),
           rand(6, 2, 3, seed=4))
    parity(lambda T, y: T._segment_reduce(y, "sum", lengths=T.tensor([1, 1]), unsafe=True),
           rand(6, 2, seed=5))


def test_segment_reduce_errors_as_pytorch():
    for T in LIBS:
        x = T.tensor(_SEG_X)
        for kw, exc, text in (
                ({"indices": T.tensor([0])}, RuntimeError, "indices based reduction"),
                ({}, RuntimeError, "Either lengths or offsets must be defined"),
                ({"lengths": T.tensor([2, 5])}, RuntimeError, "sum to data.size"),
                ({"lengths": T.tensor([-1, 7])}, RuntimeError, "lengths contains negative"),
                ({"offsets": T.tensor([0, 3, 2, 6])}, RuntimeError, "segment_length >= 0"),
                ({"offsets": T.tensor([0, 1, 6]), "axis": 1}, RuntimeError,
                 "Expected axis to be the last dimension of offsets but got 1"),
                ({"lengths": T.tensor([2.0, 4.0])}, NotImplementedError, "not implemented for "
                                                                         "'Float'")):
            with pytest.raises(exc, match=text):
                T._segment_reduce(x, "sum", **kw)
        with pytest.raises(RuntimeError, match="must be either sum, prod, mean, amax or amin"):
            T._segment_reduce(x, "bad", lengths=T.tensor([6]))
        with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
            T._segment_reduce(T.tensor([1, 2, 3]), "sum", lengths=T.tensor([3]))


def test_distributed_rpc_is_a_build_without_rpc():
    """``torch.distributed.rpc`` as PyTorch built without RPC has it (jtorch has no RPC
    framework): ``is_available()`` False, and PyTorch's RPC names raise NotImplementedError
    naming them while ``hasattr`` stays False (PyTorch Geometric tests ``rpc.api`` so)."""
    import jtorch.distributed.rpc as rpc

    assert rpc.is_available() is False
    assert jtorch.distributed.rpc is rpc
    assert not hasattr(rpc, "api")
    for name in ("init_rpc", "rpc_sync", "RRef"):
        assert hasattr(torch.distributed.rpc, name)   # PyTorch's names, read as jtorch names
        with pytest.raises(NotImplementedError, match=f"torch.distributed.rpc.{name}"):
            getattr(rpc, name)
