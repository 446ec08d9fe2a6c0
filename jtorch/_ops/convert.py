"""Tensor.to / .type / .cuda: dtype casts (an op, so gradients flow back through the cast) and
device copies (a Python node whose backward copies the gradient back).

Float -> integer casts follow PyTorch on x86 CPUs, not JAX's saturating casts: truncation
toward zero; values outside int32 (int64 for an int64 target) and NaN become the most negative
value; 8- and 16-bit targets wrap from int32 (``-1.0 -> uint8`` is 255). Out-of-range casts are
undefined behaviour in C++, so PyTorch on other CPUs or GPUs may differ.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtypes
from .._core.device import canonical, device as Device, is_concrete_array, to_jax
from .._core.dispatch import register_device_copy
from .._core.python_node import record_python_node
from .._core.state import STATE
from .._core.tensor_base import TensorBase, host_value, keep_host_copy, keeps_host_copy
from ._registry import op
from .meta import copy_out, meta_tensor


def _float_to_int(x, np_dt):
    wide = np.dtype(np.int64 if np_dt == np.int64 else np.int32)
    bits = wide.itemsize * 8
    with np.errstate(over="ignore"):  # float16: the bounds round to -inf/inf, still right
        lo = np.asarray(-(2.0 ** (bits - 1)), x.dtype)
        hi = np.asarray(2.0 ** (bits - 1), x.dtype)
    bad = ~(x >= lo) | (x >= hi)  # NaN fails x >= lo
    y = jnp.where(bad, jnp.iinfo(wide).min, x.astype(wide))
    return y.astype(np_dt)  # integer narrowing wraps


def _to_e8m0(x):
    """c10's float -> Float8_e8m0fnu: the float32 value's exponent, rounded to nearest (ties to
    even) by its mantissa; the sign is dropped, zero becomes the smallest value (2**-127) and
    NaN, infinities and overflow become NaN (ml_dtypes gives NaN for zero and negatives)."""
    bits = jax.lax.bitcast_convert_type(x.astype(jnp.float32), jnp.uint32)
    exponent = (bits >> 23) & 0xFF
    guard = (bits & 0x400000) != 0
    rest = (bits & 0x3FFFFF) != 0
    up = guard & (rest | (exponent > 0)) & (exponent != 0xFF)
    return jax.lax.bitcast_convert_type((exponent + up).astype(jnp.uint8), jnp.float8_e8m0fnu)


@op("_to_dtype", method=False, out=False, grad_name="ToCopyBackward0", saves=False)
def _to_dtype(input, dtype):
    src = dtypes.from_np(input.dtype)
    if src.category == dtypes.COMPLEX and dtype.category < dtypes.COMPLEX:
        if dtype.category == dtypes.BOOL:
            return input != 0
        warnings.warn("Casting complex values to real discards the imaginary part",
                      UserWarning, stacklevel=2)
        input = jnp.real(input)
        src = src.to_real()
    if src.category == dtypes.FLOAT and dtype.category == dtypes.INT:
        return _float_to_int(input, dtype.np)
    if dtype is dtypes.float8_e8m0fnu and src is not dtype:
        return _to_e8m0(input)
    if dtype is dtypes.float8_e4m3fn and src is not dtype:
        # PyTorch's CPU conversion saturates: beyond +-448 (infinities too) gives +-448
        input = jnp.clip(input, -448, 448)
    return input.astype(dtype.np)


_SIGS = (" * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
         "bool copy = False, *, torch.memory_format memory_format = None)\n"
         " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
         "torch.memory_format memory_format = None)\n"
         " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
         "torch.memory_format memory_format = None)\n")


def _tname(x):
    if isinstance(x, TensorBase):
        return "Tensor"
    if isinstance(x, dtypes.dtype):
        return "torch.dtype"
    if isinstance(x, Device):
        return "torch.device"
    return type(x).__name__


def _bad_to(args, kwargs):
    got = [_tname(a) for a in args] + [f"{k}={_tname(v)}" for k, v in kwargs.items()]
    return TypeError(f"to() received an invalid combination of arguments - got "
                     f"({', '.join(got)}), but expected one of:\n{_SIGS}")


def _is_dtype(x):
    return isinstance(x, dtypes.dtype) or any(x is p for p in (float, int, bool, complex))


def _is_device(x):
    return isinstance(x, (str, Device)) or type(x) is int


def _parse(args, kwargs):
    """PyTorch's three signatures of Tensor.to: (device, dtype, non_blocking, copy),
    (dtype, non_blocking, copy) and (tensor, non_blocking, copy); memory_format keyword."""
    dtype, device, vals = parse_to_values(args, kwargs)
    return dtype, device, vals.get("copy", False)


def parse_to_values(args, kwargs):
    """(dtype, device, the arguments by name) of a Tensor.to call (see ``_parse``)."""
    if len(args) > 4:
        raise TypeError(f"to() takes from 0 to 4 positional arguments but {len(args)} were "
                        "given")
    allowed = {"non_blocking", "copy", "memory_format"}
    first = args[0] if args else None
    if isinstance(first, TensorBase):
        form, names = "tensor", ("tensor", "non_blocking", "copy")
    elif args and _is_dtype(first):
        form, names = "dtype", ("dtype", "non_blocking", "copy")
    else:
        form, names = "device", ("device", "dtype", "non_blocking", "copy")
        allowed |= {"device", "dtype"}
    if len(args) > len(names) or set(kwargs) - allowed:
        raise _bad_to(args, kwargs)
    vals = dict(zip(names, args))
    for k, v in kwargs.items():
        if k in vals:
            raise _bad_to(args, kwargs)
        vals[k] = v
    dtype, device = vals.get("dtype"), vals.get("device")
    ok = (all(type(vals.get(k, False)) is bool for k in ("non_blocking", "copy"))
          and (dtype is None or _is_dtype(dtype))
          and (device is None or _is_device(device))
          and (vals.get("memory_format") is None
               or type(vals["memory_format"]).__name__ == "memory_format"))
    if not ok:
        raise _bad_to(args, kwargs)
    if form == "tensor":
        dtype, device = first.dtype, first.device
    if dtype is not None:
        dtype = dtypes.to_dtype(dtype)
    if device is not None:
        device = Device(device)
    return dtype, device, vals


def to(t, *args, **kwargs):
    """Tensor.to(dtype | device | other tensor, non_blocking=False, copy=False): ``t`` itself
    when nothing changes and ``copy`` is False."""
    dtype, device, copy = _parse(args, kwargs)
    target = None if device is None else canonical(device)  # raises before any work
    out = t
    if dtype is not None and dtype is not t.dtype:
        out = _to_dtype(out, dtype)
    if target is not None and target != t.device:
        out = to_device(out, target)
    if out is t and copy:
        out = _to_dtype(t, t.dtype)
    return out


def to_device(t, device):
    """Copy ``t`` to ``device``; the gradient is copied back to t's device."""
    if device.type == "meta":   # (only the shape and the dtype go)
        out = meta_tensor(tuple(t.shape), t.dtype.np)
    elif t.is_meta:
        raise copy_out()
    else:
        out = TensorBase._make(jax.device_put(t._value, to_jax(device)), device)
        src = t._array
        if t._device.type == "cpu" and t._base is None and t._sparse is None and \
                is_concrete_array(src) and keeps_host_copy(src.dtype, src.size) and \
                next(iter(src.devices())).platform == "cpu":   # (reading it copies nothing)
            keep_host_copy(out, host_value(t))   # (targets and indices from the host)
    if STATE.grad_enabled and t._requires_grad:
        src = t._device

        def backward(g):
            return to_device(g, src)

        record_python_node([out], [t], backward, name="ToCopyBackward0")
    return out


def cuda(t, device=None, non_blocking=False, memory_format=None):
    """Tensor.cuda: ``device`` is None (the current CUDA device), an index or a CUDA device."""
    if device is None:
        device = Device("cuda")
    elif type(device) is int:
        if device < 0:
            raise RuntimeError("Device index must not be negative")
        device = Device(device)
        if device.type != "cuda":
            raise AssertionError("Torch not compiled with CUDA enabled")
    else:
        device = Device(device)
        if device.type != "cuda":
            raise RuntimeError("Invalid device, must be cuda device")
    return to(t, device, non_blocking=non_blocking)


_LEGACY = {dtypes.ALL[i].scalar_name + "Tensor": dtypes.ALL[i] for i in range(len(dtypes.ALL))}


def type_(t, dtype=None, non_blocking=False):
    """Tensor.type(): without an argument PyTorch's type string ('torch.FloatTensor'); with
    a dtype or such a string, the cast tensor (``t`` itself when the type is unchanged). A
    ``torch.sparse.*`` type changes only the dtype, as in PyTorch: a sparse tensor stays sparse
    and a dense one dense."""
    if dtype is None:
        return dtypes.legacy_type_name(t.dtype, t.device, t.is_sparse)
    if isinstance(dtype, dtypes.dtype):
        return to(t, dtype, non_blocking)
    if isinstance(dtype, type):
        mod = dtype.__module__
        name = dtype.__name__ if mod == "builtins" else f"{mod}.{dtype.__name__}"
        dtype = "torch.Tensor" if name == "jtorch._tensor.Tensor" else name.replace(
            "jtorch.", "torch.", 1)
    if not isinstance(dtype, str):
        raise TypeError("dtype must be a type, str, or dtype object")
    if dtype == "torch.Tensor":  # torch.Tensor is the default tensor type (nflows' LeakyReLU)
        return to(t, dtypes.get_default_dtype(), non_blocking)
    cuda_type = dtype.startswith("torch.cuda.")
    key = dtype[len("torch.cuda."):] if cuda_type else dtype[len("torch."):]
    key = key.removeprefix("sparse.")
    if not dtype.startswith("torch.") or key not in _LEGACY:
        raise ValueError(f"invalid type: '{dtype}'")
    out = to(t, _LEGACY[key], non_blocking)
    return cuda(out) if cuda_type else (out.cpu() if t.device.type == "cuda" else out)


register_device_copy(to_device)
