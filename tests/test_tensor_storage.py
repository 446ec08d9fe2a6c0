"""Tensor.new, data_ptr, is_set_to, dim_order, output_nr, resize_, apply_/map_, pin_memory,
get_device and the unsafe splits against PyTorch."""

import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch


def _same(j, t):
    assert tuple(j.shape) == tuple(t.shape)
    assert str(j.dtype) == str(t.dtype)
    np.testing.assert_array_equal(j.numpy(), t.numpy())


@pytest.mark.parametrize("args", [(), (2, 3), ("size",), ("data",), ("kw_size",)])
@pytest.mark.parametrize("dtype", ["float64", "int64", "bool"])
def test_new(args, dtype):
    def make(T):
        x = T.zeros(2, dtype=getattr(T, dtype))
        if args == ("size",):
            return x.new(T.Size([3, 1]))
        if args == ("data",):
            return x.new([[1, 0], [2, 3]])
        if args == ("kw_size",):
            return x.new(size=(2, 2), device="cpu")
        return x.new(*args)
    j, t = make(jtorch), make(torch)
    assert tuple(j.shape) == tuple(t.shape) and str(j.dtype) == str(t.dtype)
    if args == ("data",):
        _same(j, t)


def test_new_of_a_tensor_aliases_it_and_errors():
    for T in (torch, jtorch):
        x = T.arange(3.)
        y = x.new(x)
        y[0] = 7.0
        assert x[0].item() == 7.0 and y.data_ptr() == x.data_ptr()
    raises_like(lambda: torch.zeros(2).new(2, dtype=torch.int64),
                lambda: jtorch.zeros(2).new(2, dtype=jtorch.int64))
    raises_like(lambda: torch.zeros(2).new(torch.zeros(2, dtype=torch.int64)),
                lambda: jtorch.zeros(2).new(jtorch.zeros(2, dtype=jtorch.int64)))


def _pointers(T):
    x = T.arange(24.).reshape(2, 3, 4)
    out = [x[1].data_ptr() - x.data_ptr(), x[:, 1, 2:].data_ptr() - x.data_ptr(),
           x.permute(2, 0, 1).data_ptr() == x.data_ptr(),
           x.clone().data_ptr() == x.data_ptr(), x.const_data_ptr() == x.data_ptr()]
    v = x[1]
    before = x.data_ptr(), v.data_ptr()
    x.unsqueeze_(0)            # the storage moves to a new owner in jtorch: the address stays
    out += [x.data_ptr() == before[0], v.data_ptr() == before[1]]
    y = T.zeros(3, dtype=T.int16)
    out.append(y[2:].data_ptr() - y.data_ptr())
    return out


def test_data_ptr_relations():
    assert _pointers(jtorch) == _pointers(torch)


def _set_to(T):
    x = T.zeros(3, 4)
    return [x.is_set_to(x), x.is_set_to(x[:]), x.is_set_to(x.view(3, 4)), x.is_set_to(x.t()),
            x.is_set_to(x.clone()), x[1:].is_set_to(x[1:]), x[1:].is_set_to(x[:2])]


def test_is_set_to():
    assert _set_to(jtorch) == _set_to(torch)


@pytest.mark.parametrize("make", [
    lambda T: T.zeros(2, 3, 4), lambda T: T.zeros(2, 3).t(),
    lambda T: T.zeros(2, 3, 4).permute(2, 0, 1), lambda T: T.zeros(2, 3, 4).transpose(0, 2),
    lambda T: T.zeros(())])
def test_dim_order(make):
    assert make(jtorch).dim_order() == make(torch).dim_order()


def test_output_nr():
    for T in (torch, jtorch):
        a = T.ones(3, 2, requires_grad=True)
        outs = T.unbind(a * 2)
        assert [o.output_nr for o in outs] == [0, 1, 2], T
        assert a.output_nr == 0 and (a * 2).output_nr == 0


def _resized(T):
    x = T.tensor([[0., 1, 2], [3, 4, 5]])
    v0 = x._version
    x.resize_(4)
    small = x.clone()
    x.resize_(2, 2)
    y = T.zeros(5).resize_as_(T.zeros(1, 3))
    return [small, x.clone(), y, x._version - v0]


def test_resize_keeps_the_first_elements():
    j, t = _resized(jtorch), _resized(torch)
    for a, b in zip(j[:3], t[:3]):
        _same(a, b)
    assert j[3] == t[3]
    grown = jtorch.arange(3.).resize_(5)
    np.testing.assert_array_equal(grown[:3].numpy(), [0, 1, 2])   # (the rest: torch's is
    assert tuple(grown.shape) == (5,)                             # uninitialized memory)
    raises_like(lambda: torch.zeros(2, requires_grad=True).resize_(3),
                lambda: jtorch.zeros(2, requires_grad=True).resize_(3))


def test_apply_and_map():
    for fn in (lambda T: T.arange(6.).reshape(2, 3)[:, 1:].apply_(lambda v: v * v + 1),
               lambda T: T.arange(4).apply_(lambda v: 3 - v)):
        _same(fn(jtorch), fn(torch))

    def mapped(T):
        x = T.arange(6.).reshape(2, 3)
        x.map_(T.tensor([1., 10., 100.]), lambda a, b: a * b - 1)
        return x

    _same(mapped(jtorch), mapped(torch))


def test_pin_memory_without_an_accelerator_and_get_device():
    raises_like(lambda: torch.zeros(2).pin_memory(), lambda: jtorch.zeros(2).pin_memory())
    assert jtorch.get_device(jtorch.zeros(2)) == torch.get_device(torch.zeros(2)) == -1


@pytest.mark.parametrize("call", ["unsafe_chunk(3, 1)", "unsafe_split(2, 1)",
                                  "unsafe_split_with_sizes([1, 4], 1)"])
def test_unsafe_splits(call):
    j = eval(f"jtorch.arange(10.).reshape(2, 5).{call}")
    t = eval(f"torch.arange(10.).reshape(2, 5).{call}")
    assert len(j) == len(t)
    for a, b in zip(j, t):
        _same(a, b)
    j2 = eval(f"jtorch.{call.replace('(', '(jtorch.arange(10.).reshape(2, 5), ', 1)}")
    t2 = eval(f"torch.{call.replace('(', '(torch.arange(10.).reshape(2, 5), ', 1)}")
    for a, b in zip(j2, t2):
        _same(a, b)


def test_data_ptr_reads_the_values_through_ctypes():
    """safetensors' _tobytes reads a contiguous tensor's bytes at data_ptr() with ctypes."""
    import ctypes

    for T in (torch, jtorch):
        x = T.arange(12, dtype=T.float32).reshape(3, 4)
        x.mul_(2)                           # (a write: jtorch's storage is a new array)
        for t, want in ((x, np.arange(12) * 2.0), (x[1], np.arange(4, 8) * 2.0)):
            raw = ctypes.cast(t.data_ptr(), ctypes.POINTER(ctypes.c_ubyte))
            got = np.ctypeslib.as_array(raw, (t.numel() * 4,)).view(np.float32)
            np.testing.assert_array_equal(got, want.astype(np.float32))


def _storages(T):
    x = T.tensor([[0.0, 1, 2], [3, 4, 5]], dtype=T.float32)
    s, v = x.untyped_storage(), x[1]
    return [s.nbytes(), s.size(), len(s), s.element_size(), str(s.device), s.is_shared(),
            s.data_ptr() == x.data_ptr(), v.untyped_storage().data_ptr() == s.data_ptr(),
            x.untyped_storage() is s, v.untyped_storage() is s, s.tolist(),
            T.zeros(3, dtype=T.int16).untyped_storage().nbytes(),
            x.clone().untyped_storage().data_ptr() == s.data_ptr()]


def test_untyped_storage():
    assert _storages(jtorch) == _storages(torch)
    with pytest.raises(NotImplementedError, match="torch.UntypedStorage.fill_"):
        jtorch.ones(2).untyped_storage().fill_(0)


def test_untyped_storage_from_file_slices_and_asarray(tmp_path):
    """safetensors' load_file under torch >= 2: UntypedStorage.from_file, a byte slice, then
    asarray(..., dtype=uint8).view(dtype).reshape(shape)."""
    values = np.arange(6, dtype=np.float32).reshape(2, 3) * 1.5
    path = tmp_path / "blob.bin"
    path.write_bytes(b"head" + values.tobytes() + b"tail")
    got = []
    for T in (torch, jtorch):
        storage = T.UntypedStorage.from_file(str(path), shared=False, nbytes=32).untyped()
        assert storage.nbytes() == 32 and len(storage) == 32
        piece = storage[4:28]
        t = T.asarray(piece, dtype=T.uint8).view(dtype=T.float32).reshape([2, 3])
        got.append((t.numpy().copy(), storage[0], piece.tolist()[:4]))
    np.testing.assert_array_equal(got[1][0], got[0][0])
    assert got[1][1:] == got[0][1:]
    assert isinstance(jtorch.ones(2).untyped_storage(), jtorch.UntypedStorage)
