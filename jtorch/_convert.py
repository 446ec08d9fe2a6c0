"""Tensor.to / .type: dtype casts (an op, so gradients flow back through the cast) and
device copies (a Python node whose backward copies the gradient back)."""

from __future__ import annotations

import jax

from . import _dtype as D
from ._device import device as Device
from ._device import to_jax
from ._ops._registry import op
from ._tensor import Tensor


@op("_to_dtype", method=False, out=False, grad_name="ToCopyBackward0", saves=False)
def _to_dtype(input, dtype):
    return input.astype(dtype.np)


def _parse(args, kwargs):
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments: {sorted(kwargs)}")
    for a in args:
        if isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, D.dtype) or a in (float, int, bool, complex):
            dtype = D.to_dtype(a)
        elif isinstance(a, (str, Device, int)):
            device = Device(a) if not isinstance(a, int) else Device("cuda", a)
        elif isinstance(a, bool):
            copy = copy or False
        elif a is not None:
            raise TypeError(f"to() received an invalid combination of arguments - got "
                            f"({type(a).__name__})")
    if device is not None and not isinstance(device, Device):
        device = Device(device)
    return dtype, device, copy


def to(t, *args, **kwargs):
    """Tensor.to(dtype | device | other tensor, non_blocking=False, copy=False)."""
    dtype, device, copy = _parse(args, dict(kwargs))
    out = t
    if dtype is not None and dtype is not t.dtype:
        out = _to_dtype(out, dtype)
    if device is not None and not _same_device(device, t._device):
        out = to_device(out, device)
    if out is t and copy:
        from ._ops.shape import clone

        out = clone(t)
    return out


def _same_device(want, have):
    if want.type != have.type:
        return False
    if want.type == "cpu":
        return (want.index or 0) == (have.index or 0)
    return want.index is None or want.index == (have.index or 0)


def to_device(t, device):
    """Copy ``t`` to ``device``; the gradient is copied back to t's device."""
    from .autograd.function import _record_python
    from .autograd.grad_mode import state

    jdev = to_jax(device)
    norm = Device(device.type, jdev.id) if device.type != "cpu" else device
    if device.type == "cpu" and jdev.id == 0:
        norm = Device("cpu")
    out = Tensor._make(jax.device_put(t._value, jdev), norm)
    if state.enabled and t._rg:
        src = t._device

        def backward(g):
            return to_device(g, src)

        _record_python([out], [t], backward, name="ToCopyBackward0")
    return out


_LEGACY = {"torch.FloatTensor": D.float32, "torch.DoubleTensor": D.float64,
           "torch.HalfTensor": D.float16, "torch.BFloat16Tensor": D.bfloat16,
           "torch.LongTensor": D.int64, "torch.IntTensor": D.int32,
           "torch.ShortTensor": D.int16, "torch.CharTensor": D.int8,
           "torch.ByteTensor": D.uint8, "torch.BoolTensor": D.bool_}


def type_(t, dtype=None):
    """Tensor.type(): without an argument, PyTorch's type string; else a cast."""
    from ._tensor_str import type_name

    if dtype is None:
        return type_name(t)
    if isinstance(dtype, str):
        if dtype not in _LEGACY:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _LEGACY[dtype]
    return to(t, D.to_dtype(dtype))
