"""``DeviceMesh`` and ``init_device_mesh``: an n-dimensional layout of devices.

Two kinds of mesh, one class:

- **over processes** (a process group is initialized, or the environment names one): the
  mesh holds the global ranks, one device per rank, as in PyTorch. ``get_group(dim)`` is the
  process group of this rank's slice along ``dim`` (created for every slice at
  ``init_device_mesh``, by every rank, as PyTorch does).
- **over this process's devices** (jtorch's single-process mode: no process group and no
  ``RANK``/``WORLD_SIZE`` in the environment): the mesh holds local device indices
  (``jax.local_devices()``, e.g. the GPUs of one host, or N CPU devices with
  ``XLA_FLAGS=--xla_force_host_platform_device_count=N``). ``DataParallel``,
  ``DistributedDataParallel(device_mesh=...)`` and ``fully_shard`` then shard batches and
  parameters over it with ``jax.sharding`` (XLA's SPMD partitioner inserts the
  communication); ``get_group`` raises, there being no process group.

``jax_mesh`` is the equivalent ``jax.sharding.Mesh`` (axis names: ``mesh_dim_names`` or
``dim0``, ``dim1``...).
"""

from __future__ import annotations

import os
from operator import attrgetter

import numpy as np
from jax.sharding import Mesh

from .._core import device as _device
from ._runtime import RUNTIME
from .c10d import default_group, init_process_group, is_initialized, new_group

__all__ = ["DeviceMesh", "init_device_mesh"]

_PLATFORM = {"cpu": "cpu", "cuda": "gpu", "tpu": "tpu"}


class DeviceMesh:
    """An n-dimensional array of devices: global ranks (one device each) or, in a single
    process, indices of this process's devices (see the module docstring).

    Args:
        device_type (str): ``"cpu"``, ``"cuda"`` (or ``"tpu"``).
        mesh: an array-like of ranks (or local device indices).
        mesh_dim_names (tuple of str, optional): a name per dimension.
    """

    def __init__(self, device_type: str, mesh, *, mesh_dim_names=None, _init_backend=True,
                 _local=None):
        self.device_type = device_type
        self._mesh = np.asarray(mesh.tolist() if hasattr(mesh, "tolist") else mesh, np.int64)
        self._mesh_dim_names = tuple(mesh_dim_names) if mesh_dim_names else None
        self.is_local = (not is_initialized()) if _local is None else _local
        self._groups = None
        if not self.is_local and _init_backend:
            self._groups = [self._create_group(d) for d in range(self._mesh.ndim)]

    def _create_group(self, dim):
        """Every rank creates every slice's group along ``dim``; returns this rank's."""
        moved = np.moveaxis(self._mesh, dim, -1).reshape(-1, self._mesh.shape[dim])
        if moved.shape[0] == 1 and moved.shape[1] == default_group().size():
            return default_group()
        me = RUNTIME.rank
        mine = None
        for ranks in moved:
            g = new_group([int(r) for r in ranks])
            if me in ranks:
                mine = g
        return mine

    # ------------------------------------------------------------------ PyTorch's API
    mesh = property(attrgetter("_mesh"))
    mesh_dim_names = property(attrgetter("_mesh_dim_names"))
    ndim = property(attrgetter("_mesh.ndim"))

    @property
    def shape(self) -> tuple:
        return tuple(self._mesh.shape)

    def size(self, mesh_dim=None) -> int:
        return int(self._mesh.size) if mesh_dim is None else int(self._mesh.shape[mesh_dim])

    def _dim(self, mesh_dim):
        if isinstance(mesh_dim, str):
            if not self._mesh_dim_names or mesh_dim not in self._mesh_dim_names:
                raise KeyError(f"Mesh dimension '{mesh_dim}' does not exist. Available mesh "
                               f"dimensions are: mesh_dim_names={self._mesh_dim_names}")
            return self._mesh_dim_names.index(mesh_dim)
        return mesh_dim

    def get_group(self, mesh_dim=None):
        """The process group of this rank's slice along ``mesh_dim``."""
        if self.is_local:
            raise RuntimeError("jtorch: this DeviceMesh spans one process's devices and has no "
                               "process group (its parallelism is jax.sharding over jax_mesh)")
        if self._groups is None:
            raise RuntimeError("DeviceMesh process groups not initialized!")
        if self.ndim > 1 and mesh_dim is None:
            raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions",
                               "Optional kwarg `mesh_dim` needs to be specified when "
                               "device_mesh.ndim > 1.")
        return self._groups[self._dim(mesh_dim or 0)]

    def get_all_groups(self) -> list:
        return [self.get_group(d) for d in range(self.ndim)]

    def get_rank(self) -> int:
        return 0 if self.is_local else RUNTIME.rank

    def get_coordinate(self):
        if self.is_local:
            return None
        where = np.argwhere(self._mesh == RUNTIME.rank)
        return tuple(int(i) for i in where[0]) if len(where) else None

    def get_local_rank(self, mesh_dim=None) -> int:
        if self.ndim > 1 and mesh_dim is None:
            raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions. Optional kwarg "
                               f"`mesh_dim` needs to be specified when device_mesh.ndim > 1.")
        coord = self.get_coordinate()
        return 0 if coord is None else coord[self._dim(mesh_dim or 0)]

    def __getitem__(self, names):
        """The sub-mesh along the named dimensions that contains this rank."""
        names = (names,) if isinstance(names, str) else tuple(names)
        dims = [self._dim(n) for n in names]
        coord = self.get_coordinate() or (0,) * self.ndim
        index = tuple(slice(None) if d in dims else coord[d] for d in range(self.ndim))
        sub = DeviceMesh.__new__(DeviceMesh)
        sub.device_type, sub.is_local = self.device_type, self.is_local
        sub._mesh = self._mesh[index]
        sub._mesh_dim_names = names
        sub._groups = None if self._groups is None else [self._groups[d] for d in dims]
        return sub

    def __repr__(self):
        shape = (f"({', '.join(f'{k}={v}' for k, v in zip(self._mesh_dim_names, self.shape))})"
                 if self._mesh_dim_names else f"{self.shape}")
        return f"DeviceMesh({shape}, '{self.device_type}')"

    def __eq__(self, other):
        return isinstance(other, DeviceMesh) and self.device_type == other.device_type and \
            np.array_equal(self._mesh, other._mesh) and self.is_local == other.is_local

    def __hash__(self):
        return hash((self.device_type, self._mesh.tobytes(), self.is_local))

    # ------------------------------------------------------------------ jtorch
    @property
    def axis_names(self) -> tuple:
        return self._mesh_dim_names or tuple(f"dim{i}" for i in range(self.ndim))

    @property
    def jax_mesh(self) -> Mesh:
        """This mesh as a ``jax.sharding.Mesh`` of JAX devices."""
        if self.is_local:
            devices = _device.jax_devices(self.device_type)
        else:
            devices = RUNTIME.devices(_PLATFORM.get(self.device_type, self.device_type))
        return Mesh(np.vectorize(lambda i: devices[i], otypes=[object])(self._mesh),
                    self.axis_names)


def _launched() -> bool:
    return "RANK" in os.environ and "WORLD_SIZE" in os.environ


def init_device_mesh(device_type: str, mesh_shape, *, mesh_dim_names=None,
                     backend_override=None) -> DeviceMesh:
    """A ``DeviceMesh`` of shape ``mesh_shape``.

    Over processes when a process group is initialized (or the environment names one: then it
    is initialized here, as PyTorch does): the mesh holds ranks ``0..world_size-1``. Otherwise
    (jtorch's single-process mode) it holds this process's first ``prod(mesh_shape)`` devices
    of ``device_type``.
    """
    mesh_shape = tuple(int(s) for s in mesh_shape)
    if mesh_dim_names is not None:
        if len(set(mesh_dim_names)) != len(mesh_dim_names):
            raise RuntimeError(f"Each mesh_dim_name must be unique. Found repeated mesh_dim_name "
                               f"in mesh_dim_names {mesh_dim_names}")
        if len(mesh_shape) != len(mesh_dim_names):
            raise RuntimeError(f"mesh_shape and mesh_dim_names should have same length! Found "
                               f"len(mesh_dim_names): {len(mesh_dim_names)} and "
                               f"len(mesh_shape):{len(mesh_shape)}.")
    if device_type and not device_type.isalpha():
        raise RuntimeError(f"Device type with index is not supported but got {device_type}. ",
                           "If you maintained a 'torch.device' object, it's recommended to pass "
                           "in 'device.type'.")
    n = int(np.prod(mesh_shape))
    if not is_initialized() and _launched():
        init_process_group()
    if is_initialized():
        world = default_group().size()
        if n != world:
            raise RuntimeError(f"Mesh should not be bigger than default world size {world}, but "
                               f"found {n} ranks!" if n > world else
                               f"mesh_shape {mesh_shape} has {n} ranks but the world size is "
                               f"{world}")
        return DeviceMesh(device_type, np.arange(n).reshape(mesh_shape),
                          mesh_dim_names=mesh_dim_names, _local=False)
    available = len(_device.jax_devices(device_type)) if device_type in _PLATFORM else 0
    if n > available:
        raise RuntimeError(f"jtorch: init_device_mesh({device_type!r}, {mesh_shape}) in a single "
                           f"process needs {n} {device_type} devices but this process has "
                           f"{available} (for CPU devices set XLA_FLAGS="
                           f"--xla_force_host_platform_device_count={n} before starting)")
    return DeviceMesh(device_type, np.arange(n).reshape(mesh_shape),
                      mesh_dim_names=mesh_dim_names, _local=True)

