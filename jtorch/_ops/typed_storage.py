"""PyTorch's typed storages: ``Tensor.storage()`` (a :class:`TypedStorage`),
``Tensor.storage_type()``, the legacy classes ``torch.FloatStorage``... (and their
``torch.cuda`` forms), ``torch.Storage`` and ``torch.is_storage``.

As in PyTorch, a typed storage is an :class:`UntypedStorage` (tensor_storage.py: the bytes of
the tensor that owns the storage) with a dtype: its elements are those bytes read as the dtype,
its ``data_ptr()`` and ``nbytes()`` are the untyped storage's, so two views of one base have one
storage (same ``data_ptr``, the size of the whole base). Every public method warns once per
process, with PyTorch's text, that TypedStorage is deprecated
(``_reset_warn_typed_storage_removal`` re-arms it, as ``torch.storage``'s does).

Writes (``s[i] = v``, slice assignment, ``fill_``, ``copy_``) write the new bytes into the
storage's owner tensor, so the tensor and its views see them, as in PyTorch; like PyTorch's,
they record no autograd history and leave the tensor's ``_version`` unchanged.

Differences from PyTorch:
    - The owner's array is replaced by a write (jtorch's arrays are immutable), so
      ``data_ptr()`` changes after one.
    - ``resize_`` works only on a storage made by a constructor (``torch.FloatStorage(3)``)
      that no tensor views; a tensor's storage cannot be resized apart from the tensor.
    - Sized constructors give zeros (PyTorch's memory is uninitialised).
    - Shared memory, pinning, ``from_buffer`` and ``Tensor.set_`` with a storage are not
      implemented (NotImplementedError naming the API).
"""

from __future__ import annotations

import collections.abc
import copy
import numbers
import warnings

import numpy as np

from .._core import dtypes
from .._core.device import device as Device
from .._core.errors import missing_attribute
from .._core.views import has_live_views
from ._registry import export
from .creation import empty, register_storage_constructor, tensor
from .tensor_storage import UntypedStorage, resize_ as _resize_tensor, untyped_storage

# ------------------------------------------------------------------ the deprecation warning
_always_warn_typed_storage_removal = False


def _get_always_warn_typed_storage_removal():
    return _always_warn_typed_storage_removal


def _set_always_warn_typed_storage_removal(always_warn):
    global _always_warn_typed_storage_removal
    if not isinstance(always_warn, bool):
        raise AssertionError(f"always_warn must be bool, got {type(always_warn).__name__}")
    _always_warn_typed_storage_removal = always_warn


def _warn_typed_storage_removal(stacklevel=2):
    """PyTorch's warning, once per process (every time after
    ``_set_always_warn_typed_storage_removal(True)``), attributed to the caller's line."""
    if _always_warn_typed_storage_removal or not _warn_typed_storage_removal.__dict__.get(
            "has_warned", False):
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                      "UntypedStorage will be the only storage class. This should only matter "
                      "to you if you are using storages directly.  To access UntypedStorage "
                      "directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=stacklevel + 1)
        _warn_typed_storage_removal.__dict__["has_warned"] = True


def _reset_warn_typed_storage_removal():
    _warn_typed_storage_removal.__dict__["has_warned"] = False


def _isint(x):
    return isinstance(x, numbers.Integral)   # (bools too, as PyTorch's)


def _device_of_module(module):
    return "cuda" if module.rsplit(".", 1)[-1] == "cuda" else "cpu"


_storage_of = UntypedStorage._of_new_owner   # a new storage holding a tensor's elements


# ------------------------------------------------------------------ TypedStorage
class TypedStorage:
    """``torch.TypedStorage``: an :class:`UntypedStorage` read as elements of ``dtype``.

    Made by ``Tensor.storage()``, the legacy classes (``torch.FloatStorage(3)``,
    ``torch.FloatStorage([1, 2])``, ``torch.FloatStorage(wrap_storage=untyped)``) or
    ``TypedStorage(size_or_data, dtype=..., device=...)`` / ``TypedStorage(wrap_storage=...,
    dtype=...)``."""

    is_sparse = False
    dtype: dtypes.dtype

    @property
    def _dtype(self):
        return self.dtype

    def __new__(cls, *args, wrap_storage=None, dtype=None, device=None, _internal=False):
        if not _internal:
            _warn_typed_storage_removal()
        if cls is _LegacyStorage:
            raise RuntimeError("Only child classes of _LegacyStorage can be instantiated")
        if cls is TypedStorage:
            return super().__new__(cls)
        msg = (f"{cls}.__new__ received an invalid combination of arguments. Expected one "
               "of:\n * no arguments\n * (int size)\n * (Sequence data)\n"
               " * (*, UntypedStorage wrap_storage)")
        if device is not None:
            raise RuntimeError(msg + "\nKeyword argument 'device' cannot be specified")
        if dtype is not None:
            raise RuntimeError(msg + "\nKeyword argument 'dtype' cannot be specified")
        cls_device = _device_of_module(cls.__module__)
        if wrap_storage is None:
            if len(args) > 1:
                raise RuntimeError(msg + "\nToo many positional arguments")
            if len(args) == 1 and not _isint(args[0]) and \
                    not isinstance(args[0], collections.abc.Sequence):
                raise TypeError(msg + f"\nArgument type not recognized: {type(args[0])}")
            return TypedStorage(*args, dtype=cls._dtype, device=cls_device, _internal=True)
        if args:
            raise RuntimeError(msg + "\nNo positional arguments should be given when using "
                               "'wrap_storage'")
        if not isinstance(wrap_storage, UntypedStorage):
            raise TypeError(msg + "\nArgument 'wrap_storage' must be UntypedStorage, but got "
                            f"{type(wrap_storage)}")
        if wrap_storage.device.type != cls_device:
            raise RuntimeError(msg + f"\nDevice of 'wrap_storage' must be {cls_device}, but got "
                               f"{wrap_storage.device.type}")
        return TypedStorage(wrap_storage=wrap_storage, dtype=cls._dtype, _internal=True)

    def __init__(self, *args, device=None, dtype=None, wrap_storage=None, _internal=False):
        if not _internal:
            _warn_typed_storage_removal()
        msg = ("TypedStorage.__init__ received an invalid combination of arguments. Expected "
               "one of:\n * (*, torch.device device, torch.dtype dtype)\n"
               " * (int size, *, torch.device device, torch.dtype dtype)\n"
               " * (Sequence data, *, torch.device device, torch.dtype dtype)\n"
               " * (*, UntypedStorage wrap_storage, torch.dtype dtype)")
        if wrap_storage is not None:
            if args:
                raise RuntimeError(msg + "\nNo positional arguments should be given when using "
                                   "'wrap_storage'")
            if dtype is None:
                raise RuntimeError(msg + "\nArgument 'dtype' must be specified")
            if not isinstance(dtype, dtypes.dtype):
                raise TypeError(msg + f"\nArgument 'dtype' must be torch.dtype, not "
                                f"{type(dtype)}")
            if device is not None:
                raise RuntimeError(msg + "\nArgument 'device' should not be specified when "
                                   "'wrap_storage' is given")
            self.dtype = dtype
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError(msg + "\nArgument 'wrap_storage' must be UntypedStorage, but "
                                f"got {type(wrap_storage)}")
            self._untyped_storage = wrap_storage
            return
        self.dtype = dtypes.get_default_dtype() if dtype is None else dtype
        device = Device("cpu" if device is None else device)
        if len(args) > 1:
            raise RuntimeError(msg + "\nToo many positional arguments")
        if not args:
            owner = empty(0, dtype=self.dtype, device=device)
        elif _isint(args[0]):
            owner = empty(int(args[0]), dtype=self.dtype, device=device)
        elif isinstance(args[0], collections.abc.Sequence):
            owner = tensor(args[0], dtype=self.dtype, device=device)
        else:
            raise TypeError(msg + f"\nArgument type not recognized: {type(args[0])}")
        self._untyped_storage = _storage_of(owner)

    # ---------------------------------------------------------------- what it is
    @property
    def is_cuda(self):
        _warn_typed_storage_removal()
        return self._untyped_storage.device.type == "cuda"

    @property
    def is_hpu(self):
        _warn_typed_storage_removal()
        return False

    @property
    def device(self):
        _warn_typed_storage_removal()
        return self._untyped_storage.device

    def untyped(self):
        """Return the internal :class:`torch.UntypedStorage`."""
        _warn_typed_storage_removal()
        return self._untyped_storage

    def _new_wrapped_storage(self, untyped):
        if type(untyped) is not UntypedStorage:
            raise AssertionError(f"expected UntypedStorage, got {type(untyped).__name__}")
        return TypedStorage(wrap_storage=untyped, dtype=self.dtype, _internal=True)

    def element_size(self):
        _warn_typed_storage_removal()
        return self._element_size()

    def _element_size(self):
        return self.dtype.itemsize

    def size(self):
        _warn_typed_storage_removal()
        return self._size()

    def _size(self):
        return self._untyped_storage.nbytes() // self._element_size()

    def __len__(self):
        _warn_typed_storage_removal()
        return self._size()

    def nbytes(self):
        _warn_typed_storage_removal()
        return self._nbytes()

    def _nbytes(self):
        return self._untyped_storage.nbytes()

    def data_ptr(self):
        _warn_typed_storage_removal()
        return self._data_ptr()

    def _data_ptr(self):
        return self._untyped_storage.data_ptr()

    def get_device(self):
        _warn_typed_storage_removal()
        return self._untyped_storage.get_device()

    def is_shared(self):
        _warn_typed_storage_removal()
        return self._untyped_storage.is_shared()

    def is_pinned(self, device=None):
        _warn_typed_storage_removal()
        return self._untyped_storage.is_pinned()

    def resizable(self):
        _warn_typed_storage_removal()
        return True

    def pickle_storage_type(self):
        _warn_typed_storage_removal()
        return self._pickle_storage_type()

    def _pickle_storage_type(self):
        cls = _LEGACY.get((self.dtype, "cpu"))
        if cls is None:
            raise KeyError(f"dtype {self.dtype} is not recognized")
        return cls.__name__

    def _get_legacy_storage_class(self):
        return _LEGACY.get((self.dtype, self._untyped_storage.device.type))

    def type(self, dtype=None, non_blocking=False):
        """The name of the legacy class (``'torch.FloatStorage'``); casting by a type name is
        not implemented in jtorch."""
        _warn_typed_storage_removal()
        if dtype is not None:
            raise missing_attribute("torch.TypedStorage.type(dtype)")
        legacy = self._get_legacy_storage_class()
        if legacy is not None:
            return f"{legacy.__module__}.{legacy.__name__}"
        return "torch.storage.TypedStorage"

    # ---------------------------------------------------------------- reading
    def _elements(self):
        """The elements, as a NumPy array of the dtype (a copy)."""
        data = self._untyped_storage._bytes()
        size = self._size()
        return data[: size * self._element_size()].view(self.dtype.np)

    def __array__(self, dtype=None, copy=None):
        data = self._elements()
        return data if dtype is None else data.astype(dtype)

    def _as_tensor(self):
        """A new 1-d tensor holding the elements (on the storage's device)."""
        return tensor(self._elements(), dtype=self.dtype, device=self._untyped_storage.device)

    def _maybe_wrap_index(self, idx, is_stop=False):
        if idx is None:
            return self._size() if is_stop else 0
        if type(idx) is not int:
            raise TypeError(f"can't index a {type(self)} with {type(idx)}")
        n = self._size()
        if (idx > n if is_stop else idx >= n) or idx < -n:
            raise IndexError(f"index {idx} out of range for storage of size {n}")
        return idx if is_stop and idx > 0 else idx % n

    def __getitem__(self, idx):
        _warn_typed_storage_removal()
        return self._getitem(idx)

    def _getitem(self, idx):
        if self._untyped_storage.device.type == "meta":
            raise NotImplementedError("Not available for 'meta' device type")
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not isinstance(idx, int):
            raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
        return self._elements()[self._maybe_wrap_index(idx)].item()

    def __iter__(self):
        _warn_typed_storage_removal()
        return iter(self._elements().tolist())

    def tolist(self):
        """Return a list containing the elements of this storage."""
        _warn_typed_storage_removal()
        return self._elements().tolist()

    def __str__(self):
        _warn_typed_storage_removal()
        values = self._elements().tolist()
        info = (f"[torch.storage.TypedStorage(dtype={self.dtype}, "
                f"device={self._untyped_storage.device}) of size {len(values)}]")
        return " " + "\n ".join(str(v) for v in values) + "\n" + info

    def __repr__(self):
        _warn_typed_storage_removal()
        return str(self)

    def __sizeof__(self):
        _warn_typed_storage_removal()
        return super().__sizeof__() + self._nbytes()

    # ---------------------------------------------------------------- writing (into the owner)
    def __setitem__(self, idx, value):
        _warn_typed_storage_removal()
        return self._setitem(idx, value)

    def _setitem(self, idx, value):
        if not isinstance(idx, (int, slice)):
            raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
        if is_storage(value):
            raise RuntimeError(f"cannot set item with value type {type(value)}")
        values = self._as_tensor()
        values[idx] = value   # PyTorch's indexing rules and errors
        self._write_elements(values)

    def _write_elements(self, values):
        data = self._untyped_storage._bytes().copy()
        new = np.ascontiguousarray(np.asarray(values._value)).reshape(-1).view(np.uint8)
        data[: new.size] = new
        self._untyped_storage._write_bytes(data)

    def fill_(self, value):
        _warn_typed_storage_removal()
        self._setitem(slice(0, self._size()), value)
        return self

    def copy_(self, source, non_blocking=None):
        _warn_typed_storage_removal()
        if isinstance(source, TypedStorage):
            source = source._untyped_storage
        self._untyped_storage.copy_(source, non_blocking)
        return self

    def resize_(self, size):
        _warn_typed_storage_removal()
        self._resize_(size)

    def _resize_(self, size):
        untyped = self._untyped_storage
        owner = untyped._owner
        if not untyped._made_by_constructor or has_live_views(owner) or \
                owner.dtype is not self.dtype:
            raise NotImplementedError("jtorch does not implement torch.TypedStorage.resize_ of "
                                      "a tensor's storage (only of a storage made by a "
                                      "constructor, such as torch.FloatStorage(3), that no "
                                      "tensor views)")
        _resize_tensor(owner, int(size))

    # ---------------------------------------------------------------- copies and casts
    def clone(self):
        """Return a copy of this storage."""
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(self._untyped_storage.clone())

    def __copy__(self):
        _warn_typed_storage_removal()
        return self._new_wrapped_storage(copy.copy(self._untyped_storage))

    def __deepcopy__(self, memo):
        _warn_typed_storage_removal()
        return self._deepcopy(memo)

    def _deepcopy(self, memo):
        return self._new_wrapped_storage(copy.deepcopy(self._untyped_storage, memo))

    def cpu(self):
        """Return a CPU copy of this storage if it's not already on the CPU."""
        _warn_typed_storage_removal()
        if self._untyped_storage.device.type == "cpu":
            return self._new_wrapped_storage(self._untyped_storage)
        return self._new_wrapped_storage(_storage_of(self._as_tensor().cpu()))

    def cuda(self, device=None, non_blocking=False):
        _warn_typed_storage_removal()
        if self._untyped_storage.device.type == "cuda" and device is None:
            return self._new_wrapped_storage(self._untyped_storage)
        return self._new_wrapped_storage(_storage_of(self._as_tensor().cuda(device)))

    def to(self, *, device, non_blocking=False):
        _warn_typed_storage_removal()
        device = Device(device)
        if device == self._untyped_storage.device:
            return self._new_wrapped_storage(self._untyped_storage)
        return self._new_wrapped_storage(_storage_of(self._as_tensor().to(device)))

    def _to(self, dtype):
        if not isinstance(dtype, dtypes.dtype):
            raise TypeError(f"Argument 'dtype' must be torch.dtype, not {type(dtype)}")
        return _typed(_storage_of(self._as_tensor().to(dtype)))

    def double(self):
        """Casts this storage to double type."""
        _warn_typed_storage_removal()
        return self._to(dtypes.float64)

    def float(self):
        """Casts this storage to float type."""
        _warn_typed_storage_removal()
        return self._to(dtypes.float32)

    def half(self):
        """Casts this storage to half type."""
        _warn_typed_storage_removal()
        return self._to(dtypes.float16)

    def long(self):
        """Casts this storage to long type."""
        _warn_typed_storage_removal()
        return self._to(dtypes.int64)

    def int(self):
        """Casts this storage to int type."""
        _warn_typed_storage_removal()
        return self._to(dtypes.int32)

    def short(self):
        """Casts this storage to short type."""
        _warn_typed_storage_removal()
        return self._to(dtypes.int16)

    def char(self):
        """Casts this storage to char type."""
        _warn_typed_storage_removal()
        return self._to(dtypes.int8)

    def byte(self):
        """Casts this storage to byte type."""
        _warn_typed_storage_removal()
        return self._to(dtypes.uint8)

    def bool(self):
        """Casts this storage to bool type."""
        _warn_typed_storage_removal()
        return self._to(dtypes.bool_)

    def bfloat16(self):
        """Casts this storage to bfloat16 type."""
        _warn_typed_storage_removal()
        return self._to(dtypes.bfloat16)

    def complex_double(self):
        """Casts this storage to complex double type."""
        _warn_typed_storage_removal()
        return self._to(dtypes.complex128)

    def complex_float(self):
        """Casts this storage to complex float type."""
        _warn_typed_storage_removal()
        return self._to(dtypes.complex64)

    def float8_e5m2(self):
        _warn_typed_storage_removal()
        return self._to(dtypes.float8_e5m2)

    def float8_e4m3fn(self):
        _warn_typed_storage_removal()
        return self._to(dtypes.float8_e4m3fn)

    def float8_e5m2fnuz(self):
        _warn_typed_storage_removal()
        return self._to(dtypes.float8_e5m2fnuz)

    def float8_e4m3fnuz(self):
        _warn_typed_storage_removal()
        return self._to(dtypes.float8_e4m3fnuz)

    @classmethod
    def from_file(cls, filename, shared, size):
        """The first ``size`` elements of the file (read into memory; ``shared=True`` is not
        supported), on a legacy class."""
        _warn_typed_storage_removal()
        if cls is TypedStorage:
            raise RuntimeError("from_file can only be called on derived classes")
        untyped = UntypedStorage.from_file(filename, shared, size * cls._dtype.itemsize)
        return cls(wrap_storage=untyped)

    def __reduce__(self):
        raise NotImplementedError("jtorch does not implement pickling a torch.TypedStorage "
                                  "(torch.save writes one)")

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise missing_attribute(f"torch.TypedStorage.{name}")


TypedStorage.__module__ = "torch.storage"


def _typed(untyped):
    return TypedStorage(wrap_storage=untyped, dtype=untyped._owner.dtype, _internal=True)


# ------------------------------------------------------------------ the legacy classes
class _LegacyStorageMeta(type):
    """The class of ``torch.FloatStorage`` & co.: ``isinstance`` compares the dtype and device
    type of a TypedStorage; ``FloatStorage.dtype`` warns as PyTorch's class property."""

    _dtype: dtypes.dtype

    @property
    def dtype(cls):
        _warn_typed_storage_removal(stacklevel=2)
        return cls._dtype

    def __instancecheck__(cls, instance):
        if type(instance) is TypedStorage:
            return (_device_of_module(cls.__module__) == instance._untyped_storage.device.type
                    and cls._dtype == instance.dtype)
        return False


_LegacyStorageMeta.__module__ = "torch.storage"


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    pass


_LegacyStorage.__module__ = "torch.storage"

_LEGACY: dict = {}   # (dtype, device type) -> legacy class


def _legacy_storage(scalar_name, dtype, cuda):
    cls = _LegacyStorageMeta(scalar_name + "Storage", (_LegacyStorage,), {
        "_dtype": dtype, "__module__": "torch.cuda" if cuda else "torch",
        "__doc__": f"The legacy storage class of {dtype} on "
                   f"{'a CUDA device' if cuda else 'the CPU'}: calling it makes a TypedStorage."})
    _LEGACY[(dtype, "cuda" if cuda else "cpu")] = cls
    return cls


BFloat16Storage = _legacy_storage("BFloat16", dtypes.bfloat16, False)
BoolStorage = _legacy_storage("Bool", dtypes.bool_, False)
ByteStorage = _legacy_storage("Byte", dtypes.uint8, False)
CharStorage = _legacy_storage("Char", dtypes.int8, False)
ComplexDoubleStorage = _legacy_storage("ComplexDouble", dtypes.complex128, False)
ComplexFloatStorage = _legacy_storage("ComplexFloat", dtypes.complex64, False)
DoubleStorage = _legacy_storage("Double", dtypes.float64, False)
FloatStorage = _legacy_storage("Float", dtypes.float32, False)
HalfStorage = _legacy_storage("Half", dtypes.float16, False)
IntStorage = _legacy_storage("Int", dtypes.int32, False)
LongStorage = _legacy_storage("Long", dtypes.int64, False)
ShortStorage = _legacy_storage("Short", dtypes.int16, False)
CPU_STORAGES = (BFloat16Storage, BoolStorage, ByteStorage, CharStorage, ComplexDoubleStorage,
                ComplexFloatStorage, DoubleStorage, FloatStorage, HalfStorage, IntStorage,
                LongStorage, ShortStorage)
for _s in CPU_STORAGES:
    export(_s.__name__)(_s)
export("Storage")(FloatStorage)   # PyTorch's torch.Storage (its default tensor type's)
export("TypedStorage")(TypedStorage)

# torch.cuda's (jtorch/cuda/__init__.py re-exports them under their own names)
CudaBFloat16Storage = _legacy_storage("BFloat16", dtypes.bfloat16, True)
CudaBoolStorage = _legacy_storage("Bool", dtypes.bool_, True)
CudaByteStorage = _legacy_storage("Byte", dtypes.uint8, True)
CudaCharStorage = _legacy_storage("Char", dtypes.int8, True)
CudaComplexDoubleStorage = _legacy_storage("ComplexDouble", dtypes.complex128, True)
CudaComplexFloatStorage = _legacy_storage("ComplexFloat", dtypes.complex64, True)
CudaDoubleStorage = _legacy_storage("Double", dtypes.float64, True)
CudaFloatStorage = _legacy_storage("Float", dtypes.float32, True)
CudaHalfStorage = _legacy_storage("Half", dtypes.float16, True)
CudaIntStorage = _legacy_storage("Int", dtypes.int32, True)
CudaLongStorage = _legacy_storage("Long", dtypes.int64, True)
CudaShortStorage = _legacy_storage("Short", dtypes.int16, True)

_STORAGE_CLASSES = frozenset((UntypedStorage, TypedStorage) + CPU_STORAGES)


@export()
def is_storage(obj, /):
    """True if ``obj`` is a storage: an :class:`UntypedStorage` or a :class:`TypedStorage`."""
    return type(obj) in _STORAGE_CLASSES


# ------------------------------------------------------------------ Tensor's methods
@export("storage", namespace=None, method=True)
def storage(self):
    """The tensor's :class:`TypedStorage` (deprecated in PyTorch, which warns: use
    ``untyped_storage()``)."""
    _warn_typed_storage_removal(stacklevel=2)
    return _typed_storage(self)


def _typed_storage(self):
    return TypedStorage(wrap_storage=untyped_storage(self), dtype=self.dtype, _internal=True)


@export("storage_type", namespace=None, method=True)
def storage_type(self):
    """The legacy storage class of the tensor's dtype and device (``torch.FloatStorage``),
    None where there is none (uint16...)."""
    _warn_typed_storage_removal()
    return _typed_storage(self)._get_legacy_storage_class()


def storage_tensor(dtype, storage, *, legacy=True):
    """``torch.FloatTensor(storage)``, the legacy constructor of a ``dtype`` tensor over a
    storage (``legacy=False``: ``torch.tensor(storage)``, its message): a 1-d tensor sharing it
    (writes to either show in the other)."""
    if isinstance(storage, TypedStorage):
        untyped, dt = storage._untyped_storage, storage.dtype
    else:
        untyped, dt = storage, dtype
    if dt is not dtype:
        got = f"type {dt.scalar_name} for argument 1 'storage'" if legacy else dt.scalar_name
        raise RuntimeError(f"Expected a Storage of type {dtype.scalar_name} or an "
                           f"UntypedStorage, but got {got}")
    flat = untyped._owner.view(-1)
    if flat.dtype is not dt:
        if untyped.nbytes() % dt.itemsize:
            raise NotImplementedError("jtorch does not implement a tensor over a storage whose "
                                      "bytes are not a whole number of elements")
        flat = flat.view(dt)
    return flat


register_storage_constructor(TypedStorage, lambda storage, dtype: storage_tensor(
    dtypes.get_default_dtype() if dtype is None else dtype, storage, legacy=False))
