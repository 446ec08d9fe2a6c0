"""Tensor methods about storage and identity that PyTorch programs call: ``data_ptr``,
``untyped_storage``, ``is_set_to``, ``dim_order``, ``output_nr``, ``resize_``/``resize_as_``,
``apply_``/``map_``, ``pin_memory``, ``get_device`` and the ``unsafe_*`` splits (``new``, the
legacy constructor, is in legacy_types.py; typed storages in typed_storage.py).

A storage is the array of the tensor that owns it (``_core/views.py``), so ``data_ptr()`` is the
address of that array's buffer (``jax.Array.unsafe_buffer_pointer``, once the array is
computed) plus the storage offset in bytes: equal for tensors that start at the same element of
the same storage, apart by the offset's bytes within one, and readable through ``ctypes`` as
PyTorch's (safetensors reads tensors so). An in-place write gives the owner a new array, so the
address changes where PyTorch's stays.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtypes
from .._core.device import jax_devices
from .._core.errors import missing_attribute
from .._core.strides import strides
from .._core.tensor_base import Size, TensorBase
from .._core.views import assign, check_inplace, has_live_views
from ._registry import export
from .creation import tensor
from .shape_slice import chunk, split, split_with_sizes


def _storage_owner(t):
    return t if t._base is None else t._base


def _buffer_address(owner):
    """The address of the owner's array buffer, waiting for its value; an array with no single
    host or device buffer (a tracer, a meta or sharded array) has none: 0, as PyTorch's
    data_ptr of a tensor without storage."""
    arr = owner._array
    try:
        arr.block_until_ready()
        return arr.unsafe_buffer_pointer()
    except (AttributeError, ValueError, TypeError, jax.errors.JaxRuntimeError):
        return 0


@export(("data_ptr", "const_data_ptr"), namespace=None, method=True)
def data_ptr(self):
    """The address of the first element: the storage owner's buffer plus the offset in
    bytes."""
    base = _buffer_address(_storage_owner(self))
    return base + strides(self)[1] * self.element_size() if base else 0


class StorageBase:
    """``torch.StorageBase`` (``torch._C.StorageBase``): the base class of
    :class:`UntypedStorage`; it cannot be made itself."""

    def __new__(cls, *args, **kwargs):
        if cls is StorageBase:
            raise RuntimeError("Cannot directly construct StorageBase; subclass it and then "
                               "construct that")
        return super().__new__(cls)


StorageBase.__module__ = "torch._C"
export("StorageBase")(StorageBase)


class UntypedStorage(StorageBase):
    """``Tensor.untyped_storage()``: the bytes of a tensor's storage owner, for the code that
    compares storages (safetensors and transformers find tied weights by ``data_ptr()`` and
    ``nbytes()``), and ``torch.UntypedStorage.from_file`` with slicing and ``torch.asarray``
    of a slice (safetensors' ``load_file`` reads a file so under torch >= 2). A slice is a copy
    of the bytes; ``copy_`` (and the typed storages' writes, typed_storage.py) write new bytes
    into the owner tensor. PyTorch's other storage methods raise NotImplementedError naming
    them."""

    _made_by_constructor = False   # a typed storage's constructor made the owner (resizable)

    def __init__(self, owner):
        self._owner = owner

    @classmethod
    def from_file(cls, filename, shared=False, nbytes=0):
        """The first ``nbytes`` bytes of the file (all of it for 0) as a storage; jtorch reads
        them into memory (PyTorch maps the file), so ``shared=True`` is not supported."""
        if shared:
            raise missing_attribute("torch.UntypedStorage.from_file(shared=True)")
        data = np.fromfile(filename, dtype=np.uint8, count=nbytes if nbytes else -1)
        if nbytes and data.size < nbytes:
            raise RuntimeError(f"unexpected EOF, expected {nbytes} bytes, got {data.size}")
        return cls(tensor(data))

    def untyped(self):
        return self

    def _bytes(self):
        arr = np.ascontiguousarray(np.asarray(self._owner._value))
        return arr.reshape(-1).view(np.uint8)

    def _write_bytes(self, data):
        """Make ``data`` (NumPy bytes, ``nbytes()`` of them) the owner's contents: the owner
        and its views see them; like PyTorch's storage writes, no autograd history is recorded
        and the owner's ``_version`` is unchanged (the write is counted as a ``.data`` one)."""
        owner = self._owner
        values = data.view(owner.dtype.np).reshape(tuple(owner.shape))
        assign(owner, tensor(values, dtype=owner.dtype, device=owner.device))
        owner._data_writes += 1

    def copy_(self, source, non_blocking=None):
        """Copy the bytes of storage ``source`` (of the same ``nbytes()``) into this one."""
        if not isinstance(source, UntypedStorage):
            name = "Tensor" if isinstance(source, TensorBase) else type(source).__name__
            raise TypeError(f"copy_(): argument 'src' (position 1) must be torch.Storage, not "
                            f"{name}")
        if source.nbytes() != self.nbytes():
            raise RuntimeError(f"size does not match, self was {self.nbytes()} bytes but src "
                               f"was {source.nbytes()} bytes")
        self._write_bytes(source._bytes().copy())
        return self

    @classmethod
    def _of_new_owner(cls, t):
        """A storage of its own holding tensor ``t``'s elements: its owner is a new 1-d tensor
        over ``t``'s array (so it is resizable: no other tensor views it)."""
        owner = TensorBase._make(t._value.reshape(-1), t._device)
        owner._untyped_storage = storage = cls(owner)
        storage._made_by_constructor = True
        return storage

    def clone(self):
        """A copy of the storage (in new memory)."""
        return self._of_new_owner(self._owner.detach().clone())

    __copy__ = clone   # (as PyTorch's: a copy of a storage does not share its bytes)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = self.clone()
        return memo[id(self)]

    def __array__(self, dtype=None, copy=None):
        data = self._bytes()
        return data if dtype is None else data.astype(dtype)

    def __getitem__(self, index):
        if not isinstance(index, slice):
            return int(self._bytes()[index])
        return type(self)(tensor(self._bytes()[index]))

    def data_ptr(self):
        return _buffer_address(self._owner)

    def nbytes(self):
        return self._owner.numel() * self._owner.element_size()

    size = nbytes

    def __len__(self):
        return self.nbytes()

    def element_size(self):
        return 1

    @property
    def dtype(self):
        return dtypes.uint8

    @property
    def device(self):
        return self._owner.device

    @property
    def is_cuda(self):
        return self._owner.device.type == "cuda"

    def get_device(self):
        """The device index; None on the CPU, as PyTorch's."""
        return None if self._owner.device.type == "cpu" else self._owner.get_device()

    def is_shared(self):
        return False

    def is_pinned(self, device="cuda"):
        return False

    def tolist(self):
        return self._bytes().tolist()

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise missing_attribute(f"torch.UntypedStorage.{name}")


@export("untyped_storage", namespace=None, method=True)
def untyped_storage(self):
    """The storage owner's :class:`UntypedStorage` (the same object each time)."""
    owner = _storage_owner(self)
    if owner._untyped_storage is None:
        owner._untyped_storage = UntypedStorage(owner)
    return owner._untyped_storage


@export("is_set_to", namespace=None, method=True)
def is_set_to(self, tensor):
    """Whether both tensors view the same storage with the same offset, sizes and strides."""
    return _storage_owner(self) is _storage_owner(tensor) and \
        tuple(self.shape) == tuple(tensor.shape) and strides(self) == strides(tensor)


@export("dim_order", namespace=None, method=True)
def dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory: by stride, largest first (ties keep
    their order)."""
    st = strides(self)[0]
    return tuple(sorted(range(self.ndim), key=lambda d: -st[d]))


@export("output_nr", namespace=None, tensor_property=True)
def output_nr(self):
    """Which output of its grad_fn this tensor is (0 for a leaf)."""
    return self._out_idx if self._node is not None else 0


@export("get_device")
def get_device(input):
    """``torch.get_device(t)``: ``t.get_device()`` (-1 on the CPU)."""
    return input.get_device()


@export("resize_", namespace=None, method=True)
def resize_(self, *sizes, memory_format=None):
    """New sizes for a tensor that owns its storage and has no views: the first elements
    (in row-major order) are kept, new ones are zero (PyTorch leaves them uninitialized)."""
    shape = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, Size)) \
        else tuple(sizes)
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if self._base is not None or has_live_views(self):
        raise NotImplementedError("jtorch does not implement torch.Tensor.resize_ of a view or "
                                  "of a tensor with live views")
    n = int(np.prod(shape, dtype=np.int64))
    flat = self._value.ravel()
    if n <= flat.size:
        flat = flat[:n]
    else:
        flat = jnp.concatenate([flat, jnp.zeros(n - flat.size, flat.dtype)])
    self._array = flat.reshape(shape)
    self._version_counter += 1
    return self


@export("resize_as_", namespace=None, method=True)
def resize_as_(self, the_template, memory_format=None):
    return resize_(self, tuple(the_template.shape))


@export("apply_", namespace=None, method=True)
def apply_(self, callable):
    """Replaces each element ``x`` by ``callable(x)`` (a Python function, run on the host)."""
    return _write_host_result(self, np.vectorize(callable)(self.numpy()))


@export("map_", namespace=None, method=True)
def map_(self, tensor, callable):
    """Replaces each element ``x`` by ``callable(x, y)``, ``y`` the element of ``tensor``
    (broadcast to ``self``'s shape)."""
    other = np.broadcast_to(tensor.numpy(), tuple(self.shape))
    return _write_host_result(self, np.vectorize(callable)(self.numpy(), other))


def _write_host_result(self, values):
    check_inplace(self)
    assign(self, tensor(np.asarray(values).astype(self.dtype.np), device=self.device))
    return self


@export("pin_memory", namespace=None, method=True)
def pin_memory(self, device=None):
    """A copy in page-locked host memory: with an accelerator, a new tensor with the same
    values (jtorch's host arrays need no pinning); without one, PyTorch's error."""
    if not jax_devices("cuda"):
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return TensorBase._make(self._value, self.device)


@export("unsafe_chunk", method=True)
def unsafe_chunk(input, chunks, dim=0):
    """``chunk`` (PyTorch's unsafe form skips the checks of in-place writes to its outputs)."""
    return chunk(input, chunks, dim)


@export("unsafe_split", method=True)
def unsafe_split(tensor, split_size_or_sections, dim=0):
    return split(tensor, split_size_or_sections, dim)


@export("unsafe_split_with_sizes", method=True)
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    return split_with_sizes(input, split_sizes, dim)
