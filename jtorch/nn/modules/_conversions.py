"""Module conversions (mixed into nn.Module): ``to``, ``cuda``, ``cpu``, ``float``... replace
each parameter's data in place, so the Parameter objects (and the optimizers that hold them)
stay the same; buffers are replaced."""

from __future__ import annotations

import warnings

from ..._core import dtypes
from ..._core.state import structure_changed
from ..._ops.convert import _parse as parse_to_arguments
from ..._ops.creation import empty_like
from ...autograd import no_grad


def _floating_to(dtype):
    """The Module method casting floating-point parameters and buffers to ``dtype``."""

    def convert(self):
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    convert.__doc__ = f"Casts floating-point parameters and buffers to {dtype}."
    return convert


class ConversionsMixin:
    """Module.to and the conversions built on ``_apply``."""

    def _apply(self, fn, recurse=True):
        """Replace every parameter's data (and grad's) by ``fn(tensor)`` in place, keeping
        the Parameter objects (so optimizers built earlier still hold them), and every
        buffer by ``fn(buffer)``."""
        structure_changed()
        if recurse:
            for m in self.children():
                m._apply(fn)
        for p in self._parameters.values():
            if p is None:
                continue
            with no_grad():
                new = fn(p)
            if new is not p:
                p.data = new
            g = p._grad
            if g is not None:
                with no_grad():
                    new_g = fn(g)
                if new_g is not g:
                    g.data = new_g
        for k, b in self._buffers.items():
            if b is not None:
                self._buffers[k] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers: ``to(device, dtype, non_blocking)``,
        ``to(dtype)``, ``to(tensor)``; a dtype applies to floating/complex tensors only."""
        dtype, device, _ = parse_to_arguments(args, kwargs)   # non_blocking: copies are synchronous
        if dtype is not None:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, "
                                f"but got desired dtype={dtype}")
            if dtype.is_complex:
                warnings.warn(
                    "Complex modules are a new feature under active development whose design "
                    "may change, and some modules might not work as expected when using "
                    "complex tensors as parameters or buffers. Please file an issue at "
                    "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml if "
                    "a complex module does not work as expected.", stacklevel=2)

        def convert(t):
            dt = dtype if t.is_floating_point() or t.is_complex() else None
            try:
                return t.to(device=device, dtype=dt)
            except NotImplementedError as e:   # (PyTorch's hint for a model on meta)
                if str(e) != "Cannot copy out of meta tensor; no data!":
                    raise
                raise NotImplementedError(
                    f"{e} Please use torch.nn.Module.to_empty() instead of torch.nn.Module.to() "
                    "when moving module from meta to a different device.") from None

        return self._apply(convert)

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def _unsupported_device(self, device=None):
        raise NotImplementedError("jtorch does not implement torch.nn.Module.xpu/ipu/mtia "
                                  "(no such devices) yet")

    xpu = ipu = mtia = _unsupported_device

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    float = _floating_to(dtypes.float32)
    double = _floating_to(dtypes.float64)
    half = _floating_to(dtypes.float16)
    bfloat16 = _floating_to(dtypes.bfloat16)

    def to_empty(self, *, device, recurse=True):
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)
