"""Typed storages against PyTorch: Tensor.storage() (a TypedStorage), Tensor.storage_type(), the
legacy classes (torch.FloatStorage...), torch.is_storage, writes through a storage, the
deprecation warning, and saving storages."""

import copy
import io
import warnings

import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch
from jtorch._ops import typed_storage as jt_storage

# every public TypedStorage method warns (once per process); the warning is checked on its own
pytestmark = pytest.mark.filterwarnings("ignore:TypedStorage is deprecated:UserWarning")

LEGACY = ["FloatStorage", "DoubleStorage", "HalfStorage", "BFloat16Storage", "LongStorage",
          "IntStorage", "ShortStorage", "CharStorage", "ByteStorage", "BoolStorage",
          "ComplexFloatStorage", "ComplexDoubleStorage"]


def both(fn):
    """``fn(torch)`` and ``fn(jtorch)``, the second's reprs spelled as PyTorch's."""
    t, j = fn(torch), fn(jtorch)
    assert repr(j).replace("jtorch", "torch") == repr(t)
    return t


# ------------------------------------------------------------------ what a storage is
def test_storage_of_a_tensor_and_of_its_views():
    def run(T):
        x = T.arange(6.0).reshape(2, 3)
        s, v = x.storage(), x[1]
        return [type(s).__name__, s.dtype, str(s.device), len(s), s.size(), s.nbytes(),
                s.element_size(), s.is_shared(), s.is_pinned(), s.get_device(), s.is_cuda,
                s.is_sparse, s.resizable(), s.data_ptr() == x.data_ptr(),
                v.storage().data_ptr() == s.data_ptr(), v.storage().size(),
                v.data_ptr() - s.data_ptr(), x.t().storage().data_ptr() == s.data_ptr(),
                x.clone().storage().data_ptr() == s.data_ptr(),
                s.untyped() is x.untyped_storage(), s._untyped_storage is x.untyped_storage(),
                x.storage() is s, s.type(), s.pickle_storage_type()]
    both(run)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int32",
                                   "int16", "int8", "uint8", "bool", "complex64", "complex128",
                                   "uint16", "float8_e4m3fn"])
def test_storage_type_and_legacy_classes(dtype):
    def run(T):
        x = T.ones(3, dtype=getattr(T, dtype))
        s = x.storage()
        return [x.storage_type(), s.dtype, s.size(), s.nbytes(), s.type(),
                [isinstance(s, getattr(T, name)) for name in LEGACY],
                isinstance(s, T.TypedStorage), isinstance(s, T.StorageBase),
                T.is_storage(s)]
    both(run)


def test_legacy_class_attributes():
    def run(T):
        return [[(c.__module__, c.__name__, c.dtype, issubclass(c, T.TypedStorage))
                 for c in (getattr(T, name) for name in LEGACY)],
                T.Storage, T.cuda.FloatStorage, T.cuda.HalfStorage.dtype,
                isinstance(T.ones(2).untyped_storage(), T.StorageBase),
                isinstance(T.ones(2).storage(), T.StorageBase), T.StorageBase.__module__]
    both(run)
    raises_like(lambda: torch.StorageBase(3), lambda: jtorch.StorageBase(3))
    assert not hasattr(torch.TypedStorage, "dtype") and not hasattr(jtorch.TypedStorage, "dtype")


def test_is_storage():
    def run(T):
        x = T.ones(2)
        return [T.is_storage(x.storage()), T.is_storage(x.untyped_storage()),
                T.is_storage(T.FloatStorage(2)), T.is_storage(x), T.is_storage([1.0]),
                T.is_storage(T.FloatStorage)]
    both(run)


# ------------------------------------------------------------------ reading
@pytest.mark.parametrize("name", LEGACY)
def test_elements_of_each_legacy_class(name):
    def run(T):
        s = getattr(T, name)([1.5, 0, -2, 3] if "Byte" not in name and "Bool" not in name
                             else [1, 0, 255, 3])
        return [s.tolist(), list(s), s[0], s[-1], type(s[1]).__name__, len(s), s.nbytes(),
                s.element_size(), s.dtype, type(s).__name__, s.type(), str(s)]
    both(run)


def test_reading_errors():
    for idx in (6, -7, slice(1, 3), 1.0, True, [0]):
        raises_like(lambda i=idx: torch.arange(6.0).storage()[i],
                    lambda i=idx: jtorch.arange(6.0).storage()[i])


def test_a_storage_of_a_dtype_view_reads_the_bytes_as_its_dtype():
    def run(T):
        x = T.tensor([1.0, -2.5], dtype=T.float64)
        v = x.view(T.int32)
        s = v.storage()
        return [s.dtype, s.size(), s.nbytes(), v.storage_type(), s.tolist(),
                s.data_ptr() == x.storage().data_ptr(),
                T.TypedStorage(wrap_storage=x.untyped_storage(), dtype=T.int16).tolist(),
                T.TypedStorage(wrap_storage=T.ones(3, dtype=T.uint8).untyped_storage(),
                               dtype=T.int32).tolist()]
    both(run)


def test_repr_and_iteration():
    def run(T):
        s = T.tensor([[1, 2], [3, 4]]).storage()
        return [repr(s), str(T.TypedStorage(0)), list(iter(s)), [2 * v for v in s]]
    both(run)


# ------------------------------------------------------------------ writing
def test_writes_reach_the_tensor_and_its_views():
    def run(T):
        x = T.arange(6.0).reshape(2, 3)
        v = x[1]
        s = x.storage()
        log = []
        s[0] = 5
        log.append((x.tolist(), v.tolist(), x._version))
        s[4] = -1.5
        log.append((x.tolist(), v.tolist()))
        s[1:3] = 7
        log.append(x.tolist())
        s[-1] = 9
        log.append(v.tolist())
        s.fill_(2)
        log.append((x.tolist(), v.tolist(), x._version))
        r = s.copy_(T.FloatStorage([1, 2, 3, 4, 5, 6]))
        log.append((x.tolist(), v.tolist(), r is s, x._version))
        s.copy_(T.arange(10.0, 16.0).untyped_storage())
        log.append(x.tolist())
        return log
    both(run)


def test_writes_through_views_storage_and_dtype_views():
    def run(T):
        x = T.zeros(2, 3)
        x[1].storage()[3] = 4.0                      # a view's storage is the whole base's
        y = T.tensor([1.0, 2.0], dtype=T.float64)
        y.view(T.int32).storage()[1] = 0             # the high word of y[0]
        b = T.tensor([True, False])
        b.storage()[1] = True
        return [x.tolist(), y.tolist(), b.tolist()]
    both(run)


def test_writes_record_no_autograd_history():
    def run(T):
        w = T.ones(3, requires_grad=True)
        w.storage()[0] = 3.0                         # PyTorch allows it on a leaf
        (w * 2).sum().backward()
        return [w.tolist(), w.is_leaf, w.grad_fn, w.grad.tolist(), w._version]
    both(run)


def test_writing_errors():
    cases = [lambda T, s: s.__setitem__(10, 1.0),
             lambda T, s: s.__setitem__(1.0, 1.0),
             lambda T, s: s.__setitem__([1], 1.0),
             lambda T, s: s.__setitem__(0, T.FloatStorage([1])),
             lambda T, s: s.copy_(T.FloatStorage([1, 2])),
             lambda T, s: s.copy_(T.DoubleStorage([1, 2, 3, 4, 5, 6])),
             lambda T, s: s.copy_(T.ones(6))]
    for case in cases:
        raises_like(lambda c=case: c(torch, torch.arange(6.0).storage()),
                    lambda c=case: c(jtorch, jtorch.arange(6.0).storage()))


def test_resize_of_a_constructed_storage():
    def run(T):
        s = T.FloatStorage([1, 2])
        out = s.resize_(4)
        log = [out, s.size(), s.nbytes(), s.tolist()[:2]]
        s.resize_(1)
        return log + [s.tolist()]
    both(run)
    with pytest.raises(NotImplementedError, match=r"torch\.TypedStorage\.resize_"):
        jtorch.ones(3).storage().resize_(5)          # PyTorch resizes the tensor's storage
    s = jtorch.FloatStorage([1, 2])
    t = jtorch.FloatTensor(s)                         # a tensor viewing it
    with pytest.raises(NotImplementedError, match=r"torch\.TypedStorage\.resize_"):
        s.resize_(3)
    assert t.tolist() == [1.0, 2.0]


# ------------------------------------------------------------------ making storages
def test_construction():
    def run(T):
        return [T.FloatStorage(3).size(), T.FloatStorage(3).dtype, T.FloatStorage().size(),
                T.LongStorage([1, 2, 3]).tolist(), T.DoubleStorage((1, 2)).tolist(),
                T.FloatStorage([[1, 2], [3, 4]]).tolist(),
                T.FloatStorage(wrap_storage=T.ones(2).untyped_storage()).tolist(),
                T.TypedStorage(3).dtype, T.TypedStorage(2, dtype=T.int64).size(),
                T.TypedStorage([1, 2], dtype=T.int64).tolist(),
                T.TypedStorage(3, dtype=T.float64, device="cpu").nbytes(),
                T.TypedStorage().size(), str(T.TypedStorage(1).device),
                type(T.FloatStorage(1)).__name__, isinstance(T.FloatStorage(1), T.FloatStorage)]
    both(run)
    assert jtorch.FloatStorage(3).tolist() == [0.0, 0.0, 0.0]   # (PyTorch's: uninitialised)


def test_construction_errors():
    cases = [lambda T: T.FloatStorage(2, 3), lambda T: T.FloatStorage("ab"),
             lambda T: T.FloatStorage(3.0), lambda T: T.FloatStorage(device="cpu"),
             lambda T: T.FloatStorage(dtype=T.float32),
             lambda T: T.FloatStorage(wrap_storage=T.ones(2)),
             lambda T: T.FloatStorage(2, wrap_storage=T.ones(2).untyped_storage()),
             lambda T: T.TypedStorage(wrap_storage=T.ones(2).untyped_storage()),
             lambda T: T.TypedStorage(wrap_storage=T.ones(2).untyped_storage(), dtype="x"),
             lambda T: T.TypedStorage(wrap_storage=T.ones(2).untyped_storage(),
                                      dtype=T.float32, device="cpu"),
             lambda T: T.TypedStorage(1, 2), lambda T: T.TypedStorage(2.5),
             lambda T: T.storage._LegacyStorage(2) if T is torch
             else jt_storage._LegacyStorage(2),
             lambda T: T.TypedStorage.from_file("x", False, 2)]
    for case in cases:
        raises_like(lambda c=case: c(torch), lambda c=case: c(jtorch))


def test_from_file(tmp_path):
    path = tmp_path / "floats.bin"
    path.write_bytes(np.arange(5, dtype=np.float32).tobytes())

    def run(T):
        s = T.FloatStorage.from_file(str(path), False, 4)
        return [type(s).__name__, s.dtype, s.tolist()]
    both(run)


# ------------------------------------------------------------------ copies and casts
def test_copies_and_casts():
    def run(T):
        s = T.arange(4.0).storage()
        s2 = T.FloatStorage([1.5, -2, 0])
        cpu, clone = s.cpu(), s.clone()
        shallow, deep = copy.copy(s), copy.deepcopy(s)
        return [cpu.data_ptr() == s.data_ptr(), cpu is s, type(cpu).__name__,
                clone.data_ptr() == s.data_ptr(), clone.tolist(),
                shallow.data_ptr() == s.data_ptr(), shallow.tolist(),
                deep.data_ptr() == s.data_ptr(), deep.tolist(),
                s.to(device="cpu").data_ptr() == s.data_ptr(),
                [(c.dtype, c.tolist(), type(c).__name__) for c in
                 (s2.double(), s2.float(), s2.half(), s2.bfloat16(), s2.long(), s2.int(),
                  s2.short(), s2.char(), s2.byte(), s2.bool(), s2.complex_float(),
                  s2.complex_double())],
                s2.float() is s2, s2.float().data_ptr() == s2.data_ptr()]
    both(run)
    raises_like(lambda: torch.FloatStorage(1)._to("x"), lambda: jtorch.FloatStorage(1)._to("x"))


def test_untyped_storage_clone_copy_and_copy_():
    def run(T):
        x = T.arange(4.0)
        u = x.untyped_storage()
        c, shallow = u.clone(), copy.copy(u)
        u.copy_(T.tensor([9.0, 8, 7, 6]).untyped_storage())
        return [c.data_ptr() == u.data_ptr(), shallow.data_ptr() == u.data_ptr(), c.nbytes(),
                T.TypedStorage(wrap_storage=c, dtype=T.float32).tolist(), x.tolist(),
                u.get_device(), x._version, T.FloatStorage(True).size()]
    both(run)


def test_tensors_over_a_storage():
    def run(T):
        s = T.FloatStorage([1, 2, 3])
        a, b = T.Tensor(s), T.FloatTensor(s)
        a[0] = 9                                      # both share s
        b[2] = -1
        c = T.tensor(s)                               # shares s too
        c[1] = 0
        return [s.tolist(), a.tolist(), b.tolist(), c.tolist(), c.dtype,
                a.data_ptr() == s.data_ptr(), T.DoubleTensor(T.DoubleStorage([1])).tolist()]
    both(run)
    for make in (lambda T: T.DoubleTensor(T.FloatStorage([1])),
                 lambda T: T.Tensor(T.LongStorage([1])),
                 lambda T: T.tensor(T.LongStorage([1])),
                 lambda T: T.tensor(T.FloatStorage([1]), dtype=T.float64)):
        raises_like(lambda m=make: m(torch), lambda m=make: m(jtorch))

    def grad(T):
        t = T.tensor(T.FloatStorage([1, 2]), requires_grad=True)
        (t * t).sum().backward()
        return [t.requires_grad, t.grad.tolist(), T.tensor(T.LongStorage([3]), dtype=T.int64)]
    both(grad)


# ------------------------------------------------------------------ the deprecation warning
def test_deprecation_warning_once_per_process():
    import torch.storage as torch_storage

    texts = []
    for T, mod in ((torch, torch_storage), (jtorch, jt_storage)):
        mod._reset_warn_typed_storage_removal()
        x = T.ones(2)
        with pytest.warns(UserWarning, match="TypedStorage is deprecated") as rec:
            x.storage()
        assert len(rec) == 1 and rec[0].filename == __file__
        texts.append(str(rec[0].message))
        with warnings.catch_warnings(record=True) as again:
            warnings.simplefilter("always")
            x.storage().size()
            T.FloatStorage(2).tolist()
            x.storage_type()
        assert again == []                           # once per process
        mod._set_always_warn_typed_storage_removal(True)
        try:
            with pytest.warns(UserWarning, match="TypedStorage is deprecated") as rec:
                s = x.storage()
                s.size()
                T.FloatStorage.dtype
            assert len(rec) == 3 and {r.filename for r in rec} == {__file__}
        finally:
            mod._set_always_warn_typed_storage_removal(False)
    assert texts[0] == texts[1]


# ------------------------------------------------------------------ saving
def test_save_and_load_storages_both_ways():
    def make(T):
        t = T.arange(4.0)
        return [t.storage(), t.untyped_storage(), {"s": t.storage(), "t": t[1:]}]

    for saver, loader in ((torch, jtorch), (jtorch, torch), (jtorch, jtorch)):
        for obj in make(saver):
            buf = io.BytesIO()
            saver.save(obj, buf)
            buf.seek(0)
            got = loader.load(buf)
            if isinstance(got, dict):
                s, t = got["s"], got["t"]
                assert type(s).__name__ == "TypedStorage" and s.tolist() == [0.0, 1, 2, 3]
                assert s.data_ptr() == t.untyped_storage().data_ptr() and t.tolist() == [1, 2, 3]
            else:
                assert type(got).__name__ == "TypedStorage"
                want = (torch.arange(4.0).storage() if got.dtype == loader.float32
                        else torch.arange(4.0).untyped_storage())
                assert str(got.dtype) == str(getattr(torch, str(got.dtype).split(".")[1]))
                assert got.tolist() == want.tolist()
    tt, jt = torch.ones(2), jtorch.ones(2)     # one storage saved as two dtypes
    raises_like(lambda: torch.save([tt, tt.untyped_storage()], io.BytesIO()),
                lambda: jtorch.save([jt, jt.untyped_storage()], io.BytesIO()))


def test_loaded_tensors_still_own_their_storage():
    buf = io.BytesIO()
    torch.save({"w": torch.arange(6.0).reshape(2, 3), "v": torch.ones(3)}, buf)
    buf.seek(0)
    got = jtorch.load(buf)
    assert got["w"]._base is None and got["w"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert got["w"].storage().size() == 6


# ------------------------------------------------------------------ not implemented
def test_missing_parts_raise_naming_the_api():
    s = jtorch.ones(2).storage()
    for name in ("share_memory_", "pin_memory", "filename", "from_buffer"):
        with pytest.raises(NotImplementedError, match=rf"torch\.TypedStorage\.{name}"):
            getattr(s, name)
    with pytest.raises(NotImplementedError, match=r"torch\.TypedStorage\.type\(dtype\)"):
        s.type("torch.DoubleStorage")
    with pytest.raises(NotImplementedError, match=r"torch\.Tensor\.set_"):
        jtorch.tensor([]).set_(s)
