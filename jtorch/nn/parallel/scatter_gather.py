"""``torch.nn.parallel.scatter_gather``: split tensors (in nested tuples, lists, dicts and
namedtuples) into one chunk per device, and gather per-device outputs back into one.

``scatter`` chunks each tensor with ``Tensor.chunk(len(target_gpus), dim)`` and moves chunk
``i`` to device ``target_gpus[i]`` (an index of the accelerator or a device), as PyTorch's
``Scatter``; ``gather`` concatenates along ``dim`` on ``target_device`` (``"cpu"`` or -1 for
the host), unsqueezing 0-d outputs when ``dim`` is 0. Both are differentiable (chunk, ``to``
and ``cat``). Difference from PyTorch: CPU tensors are accepted (jtorch's ``DataParallel``
splits over CPU devices too), where PyTorch's ``Gather`` asserts they are on a GPU.
"""

from __future__ import annotations

import warnings

from ..._core import device as _device
from ..._ops.shape_copy import cat
from ..._tensor import Tensor

__all__ = ["scatter", "scatter_kwargs", "gather"]


def _is_namedtuple(obj) -> bool:
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def _target(d):
    if d == "cpu" or d == -1:
        return _device.host_cpu()
    return _device.accelerator(d) if isinstance(d, int) else _device.device(d)


def scatter(inputs, target_gpus, dim=0):
    """Slice tensors into approximately equal chunks, one per device of ``target_gpus``;
    objects that are not tensors are repeated by reference. A single tensor gives a tuple of
    chunks, anything else a list (one entry per device), as in PyTorch."""
    def scatter_map(obj):
        if isinstance(obj, Tensor):
            chunks = obj.chunk(len(target_gpus), dim)
            return tuple(c.to(_target(d)) for c, d in zip(chunks, target_gpus))
        if _is_namedtuple(obj):
            return [type(obj)(*args) for args in zip(*map(scatter_map, obj))]
        if isinstance(obj, tuple) and len(obj) > 0:
            return list(zip(*map(scatter_map, obj)))
        if isinstance(obj, list) and len(obj) > 0:
            return [list(i) for i in zip(*map(scatter_map, obj))]
        if isinstance(obj, dict) and len(obj) > 0:
            return [type(obj)(i) for i in zip(*map(scatter_map, obj.items()))]
        return [obj for _ in target_gpus]

    return scatter_map(inputs)


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """``scatter`` of positional and keyword arguments, padded to the same number of
    devices."""
    scattered_inputs = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(scattered_inputs) < len(scattered_kwargs):
        scattered_inputs.extend(() for _ in range(len(scattered_kwargs) - len(scattered_inputs)))
    elif len(scattered_kwargs) < len(inputs):
        scattered_kwargs.extend({} for _ in range(len(scattered_inputs) - len(scattered_kwargs)))
    return tuple(scattered_inputs), tuple(scattered_kwargs)


def gather(outputs, target_device, dim=0):
    """Gather the per-device ``outputs`` (tensors, or matching containers of them) into one,
    concatenated along ``dim`` on ``target_device``."""
    def gather_map(outputs):
        out = outputs[0]
        if isinstance(out, Tensor):
            parts = list(outputs)
            if dim == 0 and all(t.dim() == 0 for t in parts):
                warnings.warn("Was asked to gather along dimension 0, but all input tensors "
                              "were scalars; will instead unsqueeze and return a vector.",
                              stacklevel=2)
                parts = [t.view(1) for t in parts]
            target = _target(target_device)
            return cat([t.to(target) for t in parts], dim)
        if out is None:
            return None
        if isinstance(out, dict):
            if not all(len(out) == len(d) for d in outputs):
                raise ValueError("All dicts must have the same number of keys")
            return type(out)((k, gather_map([d[k] for d in outputs])) for k in out)
        if _is_namedtuple(out):
            return type(out)._make(map(gather_map, zip(*outputs)))
        return type(out)(map(gather_map, zip(*outputs)))

    return gather_map(outputs)
