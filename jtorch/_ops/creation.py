"""Factory functions: tensor, as_tensor, zeros, ones, full, empty, eye, arange, linspace... and
the in-place fillers ``fill_``/``zero_``.

Every path states its dtype explicitly (JAX's 64-bit mode is on), so nothing silently becomes
float64: Python floats make the default dtype, Python ints int64, as in PyTorch. Every factory
takes PyTorch's keywords (``out=``, ``dtype=``, ``layout=`` (strided only), ``device=``,
``requires_grad=``, ``pin_memory=`` (a no-op)).

Differences from PyTorch:
    - ``empty``/``empty_like``/``empty_strided`` return zeros; ``empty_strided`` returns a
      contiguous tensor (its ``stride()`` is the contiguous one, not the requested one).
    - ``tensor``/``as_tensor``/``from_numpy`` copy: a JAX array never shares NumPy's memory.
"""

from __future__ import annotations

import math
import operator
import sys
import warnings
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtypes, torch_function
from .._core.device import (
    default_device,
    device as Device,
    from_jax,
    host_cpu,
    to_host,
    to_jax,
)
from .._core.dispatch import dispatch
from .._core.generator import _concrete
from .._core.tensor_base import MetaStorage, TensorBase, keep_host_copy, keeps_host_copy
from .._core.views import assign_out, inplace_call
from .._core.warn_once import warn_once
from ._registry import export, op
from ._util import check_broadcast
from .meta import meta_tensor

_PY_SCALARS = (bool, int, float, complex)
_BIG = 1 << 16  # above this many elements, fill on the device instead of on the host


# ------------------------------------------------------------------------------ placement
def factory_device(device):
    """The device a factory given ``device`` (None, a name, an index or a device) makes its
    tensor on: None is the default device (``with torch.device(...)`` blocks included)."""
    if device is None:
        return default_device()
    return device if isinstance(device, Device) else Device(device)


def place(arr, device=None, requires_grad=False):
    """Wrap a jax/NumPy array (or a factory's MetaStorage) as a leaf Tensor on ``device`` (a
    name, index or device); on the meta device only its shape and dtype are kept."""
    dev = factory_device(device)
    if dev.type == "meta":
        return meta_tensor(arr.shape if hasattr(arr, "shape") else np.shape(arr),
                           arr.dtype if hasattr(arr, "dtype") else np.asarray(arr).dtype,
                           requires_grad)
    host = None
    if dev.type != "cpu" or dev.index:
        jdev = to_jax(dev)
        if isinstance(arr, (np.ndarray, np.generic)) and keeps_host_copy(arr.dtype, arr.size):
            host = np.array(arr)   # kept as the tensor's host copy (the caller's may change)
        arr = (jax.device_put(arr, jdev) if isinstance(arr, jax.core.Tracer)
               else _concrete(jax.device_put, arr if host is None else host, jdev))
        dev = from_jax(jdev)
    else:
        dev = host_cpu()  # a tensor on cpu:0 reports plain cpu, as PyTorch's
        if isinstance(arr, (np.ndarray, np.generic)):  # host data stays a constant, even in
            # a trace; copied first (device_put may alias the host buffer), nothing compiled
            arr = _concrete(to_host, np.array(arr))
        elif not isinstance(arr, jax.Array):
            arr = to_host(_concrete(jnp.asarray, arr))   # (to_host keeps it concrete)
        else:
            arr = to_host(arr)   # (made on JAX's default device: a GPU's, on a GPU machine)
    if requires_grad and dtypes.from_np(arr.dtype).category < dtypes.FLOAT:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    t = TensorBase._make(arr, dev)
    if requires_grad:
        t._requires_grad = True
    if host is not None:
        keep_host_copy(t, host)
    return t


def check_layout(layout):
    name = getattr(layout, "name", layout)
    if layout is not None and name != "strided":
        raise NotImplementedError(f"jtorch does not implement layout=torch.{name} yet "
                                  "(only torch.strided)")


def out_dtype(dtype, out, default):
    """The result dtype of a factory: ``dtype``, else out's, else ``default``."""
    if out is not None:
        if dtype is not None and dtypes.to_dtype(dtype) is not out.dtype:
            raise RuntimeError(f"dtype {dtypes.to_dtype(dtype).scalar_name} does not match dtype "
                               f"of out parameter ({out.dtype.scalar_name})")
        return out.dtype
    return dtypes.to_dtype(dtype) if dtype is not None else default


def finish(arr, device, requires_grad, out, layout=None):
    """Place a factory's array (or write it into ``out``)."""
    check_layout(layout)
    if out is None:
        return place(arr, device, requires_grad)

    assign_out(out, place(arr, out.device))
    return out


# ------------------------------------------------------------------------------ tensor()
def _is_seq(x):
    if isinstance(x, (list, tuple, range)):
        return True
    if isinstance(x, np.ndarray):
        return x.ndim > 0
    return isinstance(x, Sequence) and not isinstance(x, (str, bytes, TensorBase))


def _scalar_dtype(x):
    t = type(x)
    if t is float:
        return dtypes.get_default_dtype()
    if t is int:
        return dtypes.int64
    if t is bool:
        return dtypes.bool_
    if t is complex:
        return dtypes.default_complex()
    if isinstance(x, TensorBase):
        return x.dtype
    if isinstance(x, (np.ndarray, np.generic, jax.Array)):
        return dtypes.from_np(x.dtype)
    for pt in _PY_SCALARS:
        if isinstance(x, pt):
            return _scalar_dtype(pt(x))
    if isinstance(x, (str, bytes)):
        raise ValueError(f"too many dimensions '{type(x).__name__}'")
    raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")


def _infer(x, found):
    """PyTorch's dtype for nested data (promotion over every element; empty -> default);
    adds "tensor" to ``found`` when a Tensor or JAX array occurs, "ndarray" for an array."""
    if isinstance(x, np.ndarray):
        found.add("ndarray")
        if x.ndim:
            return dtypes.from_np(x.dtype)
    if not _is_seq(x):
        if isinstance(x, (TensorBase, jax.Array)):
            found.add("tensor")
        return _scalar_dtype(x)
    if len(x) == 0:
        return dtypes.get_default_dtype()
    types = set(map(type, x))
    if types <= {bool, int, float, complex}:  # fast path: plain Python numbers
        cat = max(dtypes.scalar_category(t()) for t in types)
        return dtypes.default_for_category(cat)
    dt = None
    for e in x:
        d = _infer(e, found)
        dt = d if dt is None or dt is d else dtypes.promote_types(dt, d)
    return dt


def _sizes(x):
    sizes = []
    while _is_seq(x):
        if isinstance(x, np.ndarray):
            return sizes + list(x.shape)
        sizes.append(len(x))
        if not sizes[-1]:
            break
        x = x[0]
    return sizes


def _flatten(x, sizes, dim, out):
    """Collect the leaves of nested data, checking its shape with PyTorch's errors."""
    if dim == len(sizes):
        if _is_seq(x):
            raise TypeError(f"'{type(x).__name__}' object cannot be interpreted as an integer")
        if isinstance(x, TensorBase):
            if x.numel() != 1:
                raise ValueError("only one element tensors can be converted to Python scalars")
            x = x._value.reshape(())
        out.append(x)
        return
    if not _is_seq(x):
        raise TypeError("not a sequence")
    n = len(x)
    if n != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {n})")
    for e in x:
        _flatten(e, sizes, dim + 1, out)


def _bounds(dt):
    """The Python-number range PyTorch converts to integer dtype ``dt`` without an error."""
    info = np.iinfo(dt.np)
    if dt in (dtypes.uint8, dtypes.uint16, dtypes.uint32):   # -x wraps as C's unsigned does
        return -int(info.max), int(info.max)
    return int(info.min), int(info.max)


def convert_scalars(nat, dt):
    """NumPy array ``nat`` of Python numbers -> dtype ``dt``, with PyTorch's overflow errors."""
    kind = nat.dtype.kind
    if dt is dtypes.uint64 and kind in "iuO":   # Python ints up to 2**64 - 1, none negative
        if nat.size and (min(nat.flat) if kind == "O" else nat.min()) < 0:
            raise OverflowError("can't convert negative int to unsigned")
        return nat.astype(np.uint64)
    if kind == "O" or (kind == "u" and nat.dtype.itemsize == 8):
        raise ValueError("Overflow when unpacking long long")
    if kind == "c" and dt.category < dtypes.COMPLEX:
        raise TypeError("must be real number, not complex")
    if dt.category == dtypes.INT and dt is not dtypes.int64 or (dt is dtypes.int64 and kind == "f"):
        lo, hi = _bounds(dt)
        bad = nat.size and (not np.all(np.isfinite(nat)) or nat.min() < lo or nat.max() > hi)
        if bad:
            raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")
    with np.errstate(over="ignore", invalid="ignore"):
        return nat.astype(dt.np)


def _np_array(data):
    try:
        return np.array(data)
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None


_PACKAGE = __name__.split(".")[0]


def _caller_level():
    """The ``stacklevel`` of the first frame outside jtorch (where PyTorch's warning points:
    the line that called ``torch.tensor``, ``torch.FloatTensor``...)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == _PACKAGE:
        frame, level = frame.f_back, level + 1
    return level


def _from_data(data, dt):
    """Nested Python/NumPy data (no top-level Tensor/ndarray) -> array of dtype ``dt``."""
    found = set()
    inferred = _infer(data, found)
    if "ndarray" in found:
        warn_once("list of ndarrays", "Creating a tensor from a list of numpy.ndarrays is "
                  "extremely slow. Please consider converting the list to a single "
                  "numpy.ndarray with numpy.array() before converting to a tensor.",
                  stacklevel=_caller_level())
    dt = dt or inferred
    sizes = _sizes(data)
    if 0 in sizes:
        return np.zeros(sizes, dt.np)
    if "tensor" not in found:  # let NumPy build it, checking the shape PyTorch sees
        try:
            nat = _np_array(data)
        except ValueError as e:
            if "Overflow" in str(e):
                raise
            nat = None
        if nat is not None and list(nat.shape) == sizes and nat.dtype.kind in "biufcO":
            if inferred.category <= dtypes.INT and nat.dtype.kind in "fO":  # ints beyond int64
                raise ValueError("Overflow when unpacking long long")
            return convert_scalars(nat, dt)
    leaves = []
    _flatten(data, sizes, 0, leaves)
    if any(isinstance(v, jax.core.Tracer) for v in leaves):
        return jnp.stack([jnp.asarray(v).astype(dt.np) for v in leaves]).reshape(sizes)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.array([np.asarray(v).astype(dt.np) for v in leaves], dt.np).reshape(sizes)


def to_array(data, dtype=None):
    """Any data ``torch.tensor`` accepts -> a NumPy or JAX array of PyTorch's dtype."""
    dt = dtypes.to_dtype(dtype) if dtype is not None else None
    if isinstance(data, TensorBase):
        return data._value.astype((dt or data.dtype).np)
    if isinstance(data, (np.ndarray, np.generic, jax.Array)):
        d = dt or dtypes.from_np(data.dtype)
        return data.astype(d.np) if isinstance(data, jax.Array) else np.asarray(data, d.np)
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if isinstance(data, _PY_SCALARS):
        return convert_scalars(_np_array(data), dt or _scalar_dtype(data))
    if _is_seq(data):
        return _from_data(data, dt)
    if hasattr(data, "__array__"):
        arr = np.asarray(data)
        return arr.astype((dt or dtypes.from_np(arr.dtype)).np)
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


# ``torch.tensor(storage)`` of a TypedStorage: a tensor sharing it (typed_storage.py registers
# its class and how: ``{TypedStorage: fn(storage, dtype)}``)
_FROM_STORAGE: dict = {}


def register_storage_constructor(cls, fn):
    _FROM_STORAGE[cls] = fn


@export()
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Constructs a tensor with no autograd history by copying ``data`` (nested lists, tuples,
    NumPy arrays and scalars, 0-d tensors, Python numbers), inferring PyTorch's dtype. A
    ``TypedStorage`` is not copied: the tensor shares it, as in PyTorch."""
    from_storage = _FROM_STORAGE.get(type(data))
    if from_storage is not None:
        t = from_storage(data, dtype)
        t = t if device is None else t.to(device)
        return t.requires_grad_(True) if requires_grad else t
    if isinstance(data, TensorBase):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "torch.tensor(sourceTensor).", UserWarning, stacklevel=2)
        if device is None:
            device = data.device
    return place(to_array(data, dtype), device, requires_grad)


@export()
def as_tensor(data, dtype=None, device=None):
    """Converts ``data`` to a tensor, returning ``data`` itself when it already is one with the
    requested dtype and device (jtorch copies NumPy arrays: no shared memory)."""
    if isinstance(data, TensorBase):
        if dtype is None and device is None:
            return data
        return data.to(device=device, dtype=dtype)
    return place(to_array(data, dtype), device)


@export()
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """Converts ``obj`` to a tensor; a tensor is returned as is unless a copy, another dtype
    or another device is asked for."""
    if isinstance(obj, TensorBase):
        t = obj if dtype is None and device is None else obj.to(device=device, dtype=dtype)
        if copy and t is obj:
            t = place(jnp.array(obj._value, copy=True), obj.device)
        return t.requires_grad_(True) if requires_grad else t
    return place(to_array(obj, dtype), device, requires_grad)


@export()
def from_numpy(ndarray):
    """A tensor with the array's dtype (a copy: JAX arrays cannot share NumPy memory)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    try:
        dt = dtypes.from_np(ndarray.dtype)
    except TypeError:
        raise TypeError(f"can't convert np.ndarray of type {ndarray.dtype.type.__module__}."
                        f"{ndarray.dtype.type.__name__}. The only supported types are: "
                        "float64, float32, float16, complex64, complex128, int64, int32, "
                        "int16, int8, uint8, and bool.") from None
    return place(np.asarray(ndarray, dt.np), host_cpu())  # never the default device


# ------------------------------------------------------------------------------ sizes
def parse_size(args, name, size=None, zeros_msg=False):
    """``*size`` as varargs, one tuple/list/torch.Size, or ``size=``: a tuple of ints."""
    if size is not None:
        args = (size,)
    if not args:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    seq = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    out = []
    for i, s in enumerate(seq):
        try:
            out.append(operator.index(s))
        except TypeError:
            if len(args) == 1 and seq is args:
                raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, "
                                f"not {type(s).__name__}") from None
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got "
                            f"{type(s).__name__}\"") from None
    check_sizes(out, zeros_msg and name)
    return tuple(out)


def check_sizes(size, name=None):
    for s in size:
        if s < 0:
            if name:
                raise RuntimeError(f"{name}: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")


def _tuple_size(size, name):
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    return parse_size((tuple(size),), name)


def _full_array(shape, value, dt, device):
    """An array of ``shape`` filled with ``value`` (built on the device when large; nothing
    but the shape and dtype on the meta device)."""
    dev = factory_device(device)
    if dev.type == "meta":
        return MetaStorage(shape, dt.np)
    if isinstance(value, jax.core.Tracer):
        return jnp.full(shape, value, dt.np)
    if isinstance(value, jax.Array) or math.prod(shape) > _BIG:
        if dev.type == "cpu" and not dev.index:
            return _concrete(jnp.full, shape, value, dt.np)
        with jax.default_device(to_jax(dev)):
            return _concrete(jnp.full, shape, value, dt.np)
    return np.full(shape, value, dt.np)


def _filled(args, kw, value, name, out, dtype, layout, device, requires_grad):
    size = kw.pop("size", None)
    if kw:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")
    shape = parse_size(args, name, size, zeros_msg=name == "zeros")
    dt = out_dtype(dtype, out, dtypes.get_default_dtype())
    return finish(_full_array(shape, value, dt, device), device, requires_grad, out, layout)


@export()
def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, **kw):
    """A tensor filled with 0 (default dtype unless ``dtype``)."""
    return _filled(size, kw, 0, "zeros", out, dtype, layout, device, requires_grad)


@export()
def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, memory_format=None, **kw):
    """A tensor filled with 1."""
    return _filled(size, kw, 1, "ones", out, dtype, layout, device, requires_grad)


@export()
def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, **kw):
    """An 'uninitialised' tensor (jtorch fills it with zeros)."""
    return _filled(size, kw, 0, "empty", out, dtype, layout, device, requires_grad)


def _fill_value(value, name="full"):
    """(value, PyTorch's inferred dtype) of a fill value: a number or a 0-d tensor."""
    if isinstance(value, TensorBase):
        if value.dim() != 0:
            raise TypeError(f"{name}(): argument 'fill_value' (position 2) must be Number, not "
                            "Tensor")
        v = value._value
        return v, dtypes.default_for_category(value.dtype.category)
    if isinstance(value, np.generic):
        value = value.item()
    return value, dtypes.default_for_category(dtypes.scalar_category(value))


def _fill_array(shape, value, dt, device):
    if isinstance(value, jax.Array):
        return _full_array(shape, value, dt, device)
    return _full_array(shape, convert_scalars(np.array(value), dt), dt, device)


@export()
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """A tensor filled with ``fill_value``; its dtype is inferred from the value (bool -> bool,
    int -> int64, float -> the default dtype, complex -> the default complex dtype)."""
    shape = _tuple_size(size, "full")
    value, inferred = _fill_value(fill_value)
    dt = out_dtype(dtype, out, inferred)
    return finish(_fill_array(shape, value, dt, device), device, requires_grad, out, layout)


@export()
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """An 'uninitialised' (zero) tensor; jtorch returns it contiguous, whatever ``stride``."""
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality "
                           f"of strides ({len(stride)})")
    return empty(tuple(size), dtype=dtype, layout=layout, device=device,
                 requires_grad=requires_grad)


@export()
def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """A 0-d tensor holding ``s``, of the default dtype unless ``dtype``."""
    dt = dtypes.to_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    if isinstance(s, TensorBase):
        s = s.item()
    if isinstance(s, complex) and dt.category < dtypes.COMPLEX:
        raise RuntimeError(f"value cannot be converted to type {_cpp_name(dt)} without overflow")
    return finish(convert_scalars(np.array(s), dt), device, requires_grad, None, layout)


def _cpp_name(dt):
    """The C++ type name PyTorch's scalar-conversion errors print for ``dt``."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16"}.get(dt.name, dt.name)


# ------------------------------------------------------------------------------ *_like
def _like(input, dtype, device):
    return (dtypes.to_dtype(dtype) if dtype is not None else input.dtype,
            device if device is not None else input.device)


# the sparse family's maker of a sparse COO tensor without entries, (shape, sparse_dim,
# dtype, device) -> tensor; registered by jtorch/_ops/sparse.py (which builds on this module)
_EMPTY_SPARSE = []


def register_empty_sparse(fn):
    _EMPTY_SPARSE[:] = [fn]


def _like_filled(input, value, dtype, layout, device, requires_grad):
    dt, dev = _like(input, dtype, device)
    target = input.layout if layout is None else layout
    if getattr(target, "name", None) == "sparse_coo":   # zeros_like/empty_like of a sparse one
        if value != 0:
            raise NotImplementedError("Could not run 'aten::fill_.Scalar' with arguments from "
                                      "the 'SparseCPU' backend.")
        if requires_grad:
            raise NotImplementedError("jtorch does not implement a sparse tensor that requires "
                                      "grad yet (its gradient is sparse)")
        sparse_dim = input.sparse_dim() if input.is_sparse else input.dim()
        return _EMPTY_SPARSE[0](tuple(input.shape), sparse_dim, dt, dev)
    return finish(_fill_array(tuple(input.shape), value, dt, dev), dev, requires_grad, None,
                  layout)


@export()
@torch_function.input_overridable("torch.zeros_like")
def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """A tensor of zeros with ``input``'s shape, dtype and device."""
    return _like_filled(input, 0, dtype, layout, device, requires_grad)


@export()
@torch_function.input_overridable("torch.ones_like")
def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """A tensor of ones with ``input``'s shape, dtype and device."""
    return _like_filled(input, 1, dtype, layout, device, requires_grad)


@export()
@torch_function.input_overridable("torch.empty_like")
def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """An 'uninitialised' (zero) tensor with ``input``'s shape, dtype and device."""
    return _like_filled(input, 0, dtype, layout, device, requires_grad)


@export()
@torch_function.input_overridable("torch.full_like")
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """A tensor filled with ``fill_value`` with ``input``'s shape, dtype and device."""
    return _like_filled(input, _fill_value(fill_value, "full_like")[0], dtype, layout, device,
                        requires_grad)


# ------------------------------------------------------------------------------ Tensor.new_*
def _new(self, dtype, device):
    return (dtype if dtype is not None else self.dtype,
            device if device is not None else self.device)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
    """Tensor.new_tensor: ``tensor(data)`` with this tensor's dtype and device by default."""
    dtype, device = _new(self, dtype, device)
    return tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


def _new_filled(name, value):
    def method(self, *size, dtype=None, layout=None, device=None, requires_grad=False,
               pin_memory=False, **kw):
        dtype, device = _new(self, dtype, device)
        return _filled(size, kw, value, name, None, dtype, layout, device, requires_grad)

    method.__name__ = name
    method.__doc__ = f"Tensor.{name}: filled with {value}, this tensor's dtype and device."
    return method


def new_full(self, size, fill_value, *, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """Tensor.new_full: ``full(size, fill_value)`` with this tensor's dtype and device."""
    shape = _tuple_size(size, "new_full")
    dtype, device = _new(self, dtype, device)
    value = _fill_value(fill_value, "new_full")[0]
    return finish(_fill_array(shape, value, dtype, device), device, requires_grad, None,
                  layout)


export("new_tensor", namespace=None, method=True)(new_tensor)
export("new_full", namespace=None, method=True)(new_full)
new_zeros = export("new_zeros", namespace=None, method=True)(_new_filled("new_zeros", 0))
new_ones = export("new_ones", namespace=None, method=True)(_new_filled("new_ones", 1))
new_empty = export("new_empty", namespace=None, method=True)(_new_filled("new_empty", 0))


@export("new_empty_strided", namespace=None, method=True)
def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                      requires_grad=False, pin_memory=False):
    """Tensor.new_empty_strided: ``empty_strided`` with this tensor's dtype and device."""
    dtype, device = _new(self, dtype, device)
    return empty_strided(size, stride, dtype=dtype, layout=layout, device=device,
                         requires_grad=requires_grad)


# ------------------------------------------------------------------------------ fill_, zero_
def _fill_check(input, value):
    if isinstance(value, TensorBase) and value.dim() != 0:
        raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.dim()} dimensions.")
    if isinstance(value, complex) and input.dtype.category < dtypes.COMPLEX:
        raise RuntimeError(f"value cannot be converted to type {_cpp_name(input.dtype)} "
                           "without overflow")


def _fill_body(input, value):
    return jnp.full_like(input, value.astype(input.dtype))


# one op per PyTorch grad_fn name: torch.fill / Tensor.fill_ with a number or a 0-d tensor
_FILL = {g: op(f"_{name}", method=False, out=False, tensors=("input", "value"), saves=False,
               grad_name=g, check=_fill_check)(_fill_body)._opdef
         for name, g in (("fill_scalar", "FillBackward0"), ("fill_tensor", "FillBackward1"),
                         ("fill_scalar_", "FillBackward2"), ("fill_tensor_", "FillBackward3"),
                         ("zero_", "ZeroBackward0"))}


@export()
def fill(input, value):
    """A tensor of ``input``'s shape and dtype filled with ``value`` (a number or a 0-d tensor,
    which then receives the gradient)."""

    return dispatch(_FILL["FillBackward1" if isinstance(value, TensorBase) else "FillBackward0"],
                    (input, value), {})


@export("fill_", method=True)
def fill_(input, value):
    """Fills ``input`` with ``value`` (a number or a 0-d tensor) in place."""

    g = "FillBackward3" if isinstance(value, TensorBase) else "FillBackward2"
    return inplace_call(input, _FILL[g], (value,), {})


@export("zero_", method=True)
def zero_(input):
    """Fills ``input`` with zeros in place."""

    return inplace_call(input, _FILL["ZeroBackward0"], (0,), {})


# ------------------------------------------------------------------------------ copy_
def _copy_body(input, src):
    check_broadcast(tuple(input.shape), tuple(src.shape))
    shape = jnp.broadcast_shapes(input.shape, src.shape)
    if shape != input.shape:
        raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the broadcast "
                           f"shape {list(shape)}")
    if jnp.iscomplexobj(src) and not jnp.iscomplexobj(input):
        src = jnp.real(src)
    return jnp.broadcast_to(src.astype(input.dtype), input.shape)


_COPY = op("_copy_from", method=False, out=False, tensors=("input", "src"), saves=False,
           grad_name="CopyBackwards")(_copy_body)._opdef


@export("copy_", method=True)
def copy_(input, src, non_blocking=False):
    """Copies ``src`` into ``input`` in place (broadcast to its shape, cast to its dtype and
    device); the gradient flows to ``src``."""

    if isinstance(src, (bool, int, float, complex)):   # a Python number, as PyTorch takes
        src = tensor(src, device=input.device)
    elif not isinstance(src, TensorBase):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(src).__name__}")
    if src.device != input.device:
        src = src.to(input.device)
    return inplace_call(input, _COPY, (src,), {})


from . import creation_math  # noqa: E402,F401 - eye, arange, linspace, complex, polar
