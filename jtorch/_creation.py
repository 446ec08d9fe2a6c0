"""Factory functions: tensor, as_tensor, from_numpy, zeros, ones, full, empty, arange...

Every path states its dtype explicitly (JAX's 64-bit mode is on), so nothing silently
becomes float64: Python floats make the default dtype, Python ints int64, as in PyTorch.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np

from . import _dtype as D
from ._device import default_device, to_jax
from ._device import device as Device
from ._tensor import Tensor


def _dev(device):
    if device is None:
        return default_device()
    return device if isinstance(device, Device) else Device(device)


def place(arr, device=None, requires_grad=False):
    """Wrap a jax/NumPy array as a leaf Tensor on ``device``."""
    dev = _dev(device)
    if dev.type != "cpu" or dev.index:
        arr = jax.device_put(arr, to_jax(dev))
        from ._device import from_jax

        dev = from_jax(to_jax(dev))
    elif not isinstance(arr, jax.Array):
        arr = jnp.asarray(arr)
    t = Tensor._make(arr, dev)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _infer_dtype(data):
    """PyTorch's dtype for nested Python data: the highest category found."""
    cat, dt = -1, None
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, Tensor):
            d = x.dtype
            c = d.category
            if c > cat or (c == cat and dt is not None and d.itemsize > dt.itemsize):
                cat, dt = c, d
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, np.ndarray) or isinstance(x, np.generic):
            d = D.from_np(x.dtype)
            if d.category > cat:
                cat, dt = d.category, d
        else:
            c = D.scalar_category(x)
            if c > cat:
                cat, dt = c, None
    if dt is not None:
        return dt
    return D.default_for_category(max(cat, 0)) if cat >= 0 else D.get_default_dtype()


def _to_numpy_data(data):
    if isinstance(data, Tensor):
        return np.asarray(data._value)
    if isinstance(data, (list, tuple)):
        return [_to_numpy_data(x) for x in data]
    return data


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Constructs a tensor with no autograd history by copying ``data``."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "torch.tensor(sourceTensor).", UserWarning, stacklevel=2)
        dt = D.to_dtype(dtype) if dtype is not None else data.dtype
        return place(data._value.astype(dt.np), device or data.device, requires_grad)
    if isinstance(data, jax.Array):
        dt = D.to_dtype(dtype) if dtype is not None else D.from_np(data.dtype)
        return place(data.astype(dt.np), device, requires_grad)
    if isinstance(data, np.ndarray):
        dt = D.to_dtype(dtype) if dtype is not None else D.from_np(data.dtype)
    else:
        dt = D.to_dtype(dtype) if dtype is not None else _infer_dtype(data)
        data = _to_numpy_data(data)
    try:
        arr = np.asarray(data, dtype=dt.np)
    except ValueError as e:
        raise ValueError(f"expected sequence of equal lengths ({e})") from None
    return place(arr, device, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but returns ``data`` itself when it already matches."""
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if (dtype or device) else data
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    t = as_tensor(obj, dtype=dtype, device=device)
    return t.requires_grad_(True) if requires_grad else t


def from_numpy(ndarray):
    """A tensor with the array's dtype (a copy: JAX arrays cannot share NumPy memory)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    return place(np.asarray(ndarray, dtype=D.from_np(ndarray.dtype).np))


def _size(size):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    out = []
    for s in size:
        s = int(s)
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{[int(x) for x in size]}")
        out.append(s)
    return tuple(out)


def _filled(size, value, dtype, device, requires_grad):
    dt = D.to_dtype(dtype) if dtype is not None else D.get_default_dtype()
    return place(np.full(_size(size), value, dtype=dt.np), device, requires_grad)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
    """A tensor filled with 0."""
    return _out(_filled(size, 0, dtype, device, requires_grad), out)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, memory_format=None):
    """A tensor filled with 1."""
    return _out(_filled(size, 1, dtype, device, requires_grad), out)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
    """An 'uninitialised' tensor (jtorch fills it with zeros)."""
    return _out(_filled(size, 0, dtype, device, requires_grad), out)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """A tensor filled with ``fill_value``; its dtype is inferred from the value."""
    if dtype is None:
        if isinstance(fill_value, Tensor):
            dtype = fill_value.dtype
            fill_value = fill_value.item()
        else:
            dtype = D.default_for_category(D.scalar_category(fill_value))
    return _out(_filled(_size(tuple(size) if not isinstance(size, int) else (size,)),
                        fill_value, dtype, device, requires_grad), out)


def _like(fn, t, dtype, device, requires_grad, *args):
    return fn(*args, t.shape, dtype=dtype or t.dtype, device=device or t.device,
              requires_grad=requires_grad) if args else fn(
        t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    return _like(zeros, input, dtype, device, requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    return _like(ones, input, dtype, device, requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    return _like(empty, input, dtype, device, requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    return full(input.shape, fill_value, dtype=dtype or input.dtype,
                device=device or input.device, requires_grad=requires_grad)


def _out(t, out):
    if out is None:
        return t
    from ._views import assign_out

    assign_out(out, t)
    return out
