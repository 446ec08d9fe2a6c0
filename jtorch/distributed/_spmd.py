"""A compiled DDP/FSDP training step as one SPMD program per process.

``jtorch.compile`` builds its program with :func:`program`. When the compiled function's state
holds a module that names a process group (``DistributedDataParallel``, a ``fully_shard``ed
module: they set ``_jtorch_spmd_group``), the traced step runs inside a ``shard_map`` over that
group's mesh (one device per rank): every rank runs the same XLA program on its own data, and
the collectives the step meets (DDP's gradient all-reduce, FSDP's all-gathers and
reduce-scatters, ``dist.all_reduce``...) are traced into it as ``jax.lax`` collectives instead
of running eagerly.

Each array goes in and out as this process's block of a replicated global array
(``PartitionSpec()`` with ``check_vma=False``): the block is the local value itself, and no
gradient is summed implicitly (all values are per-device; DDP averages explicitly). Python
numbers (the optimizers' hyperparameters) stay arguments of the outer ``jax.jit``, so their
weak types, and the dtypes of the updates, are those of the single-process program.
"""

from __future__ import annotations

import contextlib
import threading

import jax
from jax.sharding import NamedSharding, PartitionSpec

from .._core import xla_options

__all__ = ["active_for", "as_global", "platform_of", "program"]

_REPLICATED = PartitionSpec()
_STATE = threading.local()
_PLATFORM = {"cpu": "cpu", "gpu": "gpu", "cuda": "gpu", "rocm": "gpu", "tpu": "tpu"}


def active_for(group) -> bool:
    """Whether this thread is tracing an SPMD program over ``group``."""
    return getattr(_STATE, "group", None) is group


@contextlib.contextmanager
def _active(group):
    prev = getattr(_STATE, "group", None)
    _STATE.group = group
    try:
        yield
    finally:
        _STATE.group = prev


def spmd_group(modules):
    """The process group named by one of ``modules`` (None if none names one)."""
    for m in modules:
        g = getattr(m, "_jtorch_spmd_group", None)
        if g is not None:
            return g
    return None


def program(pure, modules, donate_argnums=()):
    """``jax.jit(pure, donate_argnums=...)`` (with jtorch's compiler options), or its SPMD form
    over the process group one of ``modules`` names."""
    group = spmd_group(modules)
    if group is None:
        return xla_options.jit(pure, donate_argnums=donate_argnums)
    return SpmdProgram(pure, group, donate_argnums)


class SpmdProgram:
    """``pure`` run by every rank of ``group`` as one ``jax.jit(shard_map(...))`` program;
    called, and returning, like ``jax.jit(pure)`` on this process's arrays."""

    def __init__(self, pure, group, donate_argnums):
        self.pure, self.group, self.donate = pure, group, set(donate_argnums)
        self._jitted = {}

    def __call__(self, *args):
        out = self._call(lambda jitted, *a: jitted(*a), args)
        return jax.tree_util.tree_map(lambda a: a.addressable_data(0), out)

    def eval_shape(self, *args):
        """Trace a call without compiling or running it: its outputs' shapes and dtypes."""
        return self._call(jax.eval_shape, args)

    def _call(self, run, args):
        parts = [jax.tree_util.tree_flatten(a) for a in args]
        kinds = []                      # per leaf: 0 donated array, 1 kept array, 2 other
        donated, kept, others = [], [], []
        for i, (leaves, _) in enumerate(parts):
            for x in leaves:
                if isinstance(x, jax.Array):
                    (donated if i in self.donate else kept).append(x)
                    kinds.append(0 if i in self.donate else 1)
                else:
                    others.append(x)
                    kinds.append(2)
        mesh = self.group.mesh(platform_of(donated[0] if donated else kept[0]))
        device = mesh.devices[self.group.rank()]
        key = (tuple(kinds), tuple(t for _, t in parts), mesh)
        jitted = self._jitted.get(key)
        if jitted is None:
            jitted = self._jitted[key] = self._build(mesh, kinds, [t for _, t in parts])
        return run(jitted, [as_global(a, mesh, device) for a in donated],
                   [as_global(a, mesh, device) for a in kept], others)

    def _build(self, mesh, kinds, trees):
        pure, group = self.pure, self.group

        def outer(donated, kept, others):
            def inner(donated, kept):
                its = (iter(donated), iter(kept), iter(others))
                leaves = [next(its[k]) for k in kinds]
                args, pos = [], 0
                for tree in trees:
                    n = tree.num_leaves
                    args.append(jax.tree_util.tree_unflatten(tree, leaves[pos:pos + n]))
                    pos += n
                with _active(group):
                    return pure(*args)

            return jax.shard_map(inner, mesh=mesh, in_specs=_REPLICATED, out_specs=_REPLICATED,
                                 check_vma=False)(donated, kept)

        return jax.jit(outer, donate_argnums=(0,))


def platform_of(arr) -> str:
    """The platform (cpu, gpu, tpu) of the device holding ``arr``."""
    dev = next(iter(arr.devices()))
    return _PLATFORM.get(dev.platform, dev.platform)


def as_global(arr, mesh, device):
    """``arr`` (this process's array) as this process's block of a replicated global array
    over ``mesh`` (moved to ``device``, this rank's device of the mesh, if elsewhere)."""
    if next(iter(arr.devices())) != device:
        arr = jax.device_put(arr, device)
    return jax.make_array_from_single_device_arrays(arr.shape, NamedSharding(mesh, _REPLICATED),
                                                    [arr])
