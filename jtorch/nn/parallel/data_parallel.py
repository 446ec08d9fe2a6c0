"""``DataParallel``: one process, the batch split over this process's devices.

The module's parameters and buffers are replicated on every device (once, at construction)
and each forward's tensor inputs are split along ``dim`` over a one-dimensional mesh of the
devices; XLA's SPMD partitioner runs every op on all devices at once and sums the replicated
parameters' gradients over them (``jtorch/distributed/_local_mesh.py``), so training computes
the one-device maths (to rounding). Under ``jtorch.compile`` the whole step is one SPMD
program over the devices: the fast path on one GPU/TPU host.

Differences from PyTorch: the module is not copied per device each forward (its parameters
live replicated on all of them); outputs stay split over the devices instead of being gathered
on ``output_device`` (their values are the same; printing or ``.cpu()`` gathers them); an input
whose batch does not divide evenly over the devices, or that requires grad, is replicated
instead of split. Without an accelerator, PyTorch's DataParallel runs the module unchanged;
jtorch does the same with one CPU device, and splits over the CPU devices when there are
several (``XLA_FLAGS=--xla_force_host_platform_device_count=N``).
"""

from __future__ import annotations

import numpy as np
from jax.sharding import Mesh

from ..._core import device as _device
from ...distributed._local_mesh import map_tensors, replicate_tensor, shard_batch
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]

AXIS = "batch"


def _devices(device_ids):
    """The JAX devices to split over: the accelerator's (GPU, else TPU), else the CPU's."""
    found = (_device.jax_devices("cuda") or _device.jax_devices("tpu")
             or _device.jax_devices("cpu"))
    if device_ids is None:
        return found
    return [found[getattr(d, "index", d) if not isinstance(d, str) else
                  _device.device(d).index or 0] for d in device_ids]


def replicate_module(module, jmesh):
    """Lays every parameter and buffer of ``module`` out on all devices of ``jmesh``."""
    for t in list(module.parameters()) + [b for b in module.buffers() if b is not None]:
        replicate_tensor(t, jmesh)


class DataParallel(Module):
    """Splits each forward's batch over this process's devices (see the module docstring).

    Args:
        module (Module): the module to run.
        device_ids (list, optional): which devices (indices or devices); all by default.
        output_device: accepted for compatibility.
        dim (int): the batch dimension of the inputs (0).
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.dim = dim
        devices = _devices(device_ids)
        self.device_ids = list(range(len(devices))) if len(devices) > 1 else []
        self.output_device = output_device if output_device is not None else \
            (self.device_ids[0] if self.device_ids else None)
        self.mesh = Mesh(np.array(devices), (AXIS,)) if len(devices) > 1 else None
        if self.mesh is not None:
            replicate_module(module, self.mesh)

    def forward(self, *inputs, **kwargs):
        if self.mesh is None:
            return self.module(*inputs, **kwargs)
        inputs = map_tensors(inputs, lambda x: shard_batch(x, self.mesh, AXIS, self.dim))
        kwargs = map_tensors(kwargs, lambda x: shard_batch(x, self.mesh, AXIS, self.dim))
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """``module(*inputs)`` with the batch split over the devices (its parameters are laid out
    on all of them, and stay so)."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return DataParallel(module, device_ids, output_device, dim)(*inputs,
                                                                **(module_kwargs or {}))
