"""FSDP2: ``fully_shard(module)`` shards the module's parameters (and so their gradients and
the optimizer state built from them) over a mesh.

Over processes (a 1-D mesh of ranks), each parameter becomes a ``DTensor`` holding this rank's
chunk of rows (jtorch/distributed/tensor/_dtensor.py). A forward pre-hook all-gathers the
module's chunks (one program for the module's parameters) into full parameters that the
forward uses; a forward hook puts the chunks back (``reshard_after_forward``). When backward
accumulates a full parameter's gradient, a hook averages it over the ranks and keeps this
rank's chunk (a ``psum`` and a slice: a reduce-scatter) in the chunk's ``.grad``; the first
such gradient puts the chunks back (with ``reshard_after_forward=False`` too: backward uses
the full parameters its graph holds), so the next forward gathers the values the optimizer
step wrote. The optimizer, built on ``model.parameters()`` after ``fully_shard``, updates the
chunks. Under ``jtorch.compile`` these collectives are traced into the step's SPMD program.

Over one process's devices (a local mesh), parameters are laid out over the devices along dim
0 with ``jax.sharding`` and each forward's batch is split over them; XLA's SPMD partitioner
does the gathering and reduce-scattering.

Differences from PyTorch: the chunks are padded to equal sizes (``DTensor`` notes); the
full parameters stay referenced by the autograd graph until backward (jtorch frees no storage
between forward and backward); each parameter's gradient is reduce-scattered by itself as it
arrives (no grouping, no prefetch: ``set_modules_to_*_prefetch`` do nothing); mixed precision
(``mp_policy``), CPU offload, ``shard_placement_fn`` and 2-D (HSDP) meshes are not
implemented; a module none of whose parameters gets a gradient in a backward keeps its
full parameters registered after it (PyTorch reshards every module at the end of backward;
the values are the same, no gradient having changed them); ``reshard_after_forward=None``
means True (PyTorch makes it False on the root); an int other than 1 or the mesh size
(resharding to a smaller world) is not implemented.
"""

from __future__ import annotations

import dataclasses
import functools

import jax.numpy as jnp

from ..._core.device import jax_devices
from ..._core.errors import not_implemented
from ..._ops.creation import place
from ...nn.modules.module import Module
from ...nn.parameter import Parameter
from .. import _programs
from .._local_mesh import map_tensors, shard_batch, shard_dim0
from ..c10d import default_group, is_initialized
from ..collectives import array, mine_body, reduce_body
from ..device_mesh import DeviceMesh, init_device_mesh
from ..process_group import ReduceOp
from ..tensor._dtensor import DTensor, chunk_rows, gather_rows, shard_rows
from ..tensor.placement_types import Replicate, Shard

__all__ = ["CPUOffloadPolicy", "FSDPModule", "MixedPrecisionPolicy", "OffloadPolicy",
           "UnshardHandle", "fully_shard", "register_fsdp_forward_method"]

_AVG = ReduceOp.AVG


@dataclasses.dataclass(frozen=True)
class MixedPrecisionPolicy:
    param_dtype: object = None
    reduce_dtype: object = None
    output_dtype: object = None
    cast_forward_inputs: bool = True


@dataclasses.dataclass
class OffloadPolicy:
    """No offloading (the default)."""


@dataclasses.dataclass
class CPUOffloadPolicy(OffloadPolicy):
    pin_memory: bool = True


class UnshardHandle:
    """What ``unshard(async_op=True)`` returns; ``wait()`` returns at once (the all-gather
    already ran)."""

    def wait(self) -> None:
        pass


class _Managed:
    """One sharded parameter: where it is registered, its chunk and its full shape."""

    def __init__(self, owner, name, sharded, rows):
        self.owner, self.name, self.sharded, self.rows = owner, name, sharded, rows
        self.pending = None    # gradient accumulated while gradient sync is off (full)


class _ShardedGroup:
    """The parameters one ``fully_shard`` call (or one FSDP1 wrapper) sharded over the ranks of
    a process group."""

    def __init__(self, module, group, reshard_after_forward, managed):
        self.module, self.group = module, group
        self.reshard_after_forward = reshard_after_forward
        self.managed = managed
        self.requires_gradient_sync = True
        self.unsharded = False

    def unshard(self):
        if self.unsharded:
            return
        m = self.managed
        fulls = gather_rows(self.group, [array(x.sharded) for x in m],
                            [x.rows if x.rows is not None else x.sharded.shape[0] for x in m])
        for x, full in zip(m, fulls):
            if x.rows is None:
                full = array(x.sharded)
            p = Parameter(place(full, x.sharded.device), x.sharded.requires_grad)
            if p.requires_grad:
                p.register_post_accumulate_grad_hook(functools.partial(self._grad_ready, x))
            x.owner._parameters[x.name] = p     # as PyTorch's FSDP2: no registration hooks
        self.unsharded = True

    def reshard(self):
        for x in self.managed:
            x.owner._parameters[x.name] = x.sharded
        self.unsharded = False

    def _grad_ready(self, x, full_param):
        if self.unsharded:  # reshard after backward (the graph holds the full parameters)
            self.reshard()
        grad = array(full_param.grad)
        full_param.grad = None
        if x.pending is not None:
            grad = grad + x.pending
            x.pending = None
        if not self.requires_gradient_sync:
            x.pending = grad
            return
        n = self.group.size()
        if x.rows is None:   # replicated (0-d): averaged
            (chunk,) = _programs.run(self.group, "ALLREDUCE", ("fsdp_avg",),
                                     lambda g: (reduce_body(g, _AVG, n),), [grad], check=False)
        else:
            c = chunk_rows(x.rows, n)
            rows = grad
            if n * c > rows.shape[0]:   # zero rows up to n equal chunks
                rows = jnp.concatenate([rows, jnp.zeros((n * c - rows.shape[0],) +
                                                        rows.shape[1:], rows.dtype)])
            (chunk,) = _programs.run(
                self.group, "_REDUCE_SCATTER_BASE", ("fsdp_reduce_scatter",),
                lambda g: (mine_body(reduce_body(g.reshape((n, c) + g.shape[1:]), _AVG, n)),),
                [rows], check=False)
        new = place(chunk, x.sharded.device)
        x.sharded.grad = new if x.sharded.grad is None else x.sharded.grad + new


class FSDPModule:
    """The methods a ``fully_shard``ed module gains (its class becomes ``FSDP<Class>``)."""

    def _fsdp_groups(self, recurse=True):
        mods = self.modules() if recurse else [self]
        return [g for m in mods for g in [getattr(m, "_fsdp_group", None)] if g is not None]

    def reshard(self) -> None:
        """Puts this module's parameter chunks back in place of the full parameters."""
        for g in self._fsdp_groups(recurse=False):
            g.reshard()

    def unshard(self, async_op: bool = False):
        """All-gathers this module's full parameters (done when this returns)."""
        for g in self._fsdp_groups(recurse=False):
            g.unshard()
        return UnshardHandle() if async_op else None

    def set_requires_gradient_sync(self, requires_gradient_sync: bool, *,
                                   recurse: bool = True) -> None:
        """With False, backward accumulates full gradients locally (no reduce-scatter); the
        next backward with True reduce-scatters the sum (gradient accumulation)."""
        for g in self._fsdp_groups(recurse):
            g.requires_gradient_sync = requires_gradient_sync

    def set_reshard_after_forward(self, reshard_after_forward: bool, recurse: bool = True):
        if not isinstance(reshard_after_forward, bool):
            raise ValueError(f"reshard_after_forward should be a bool, got "
                             f"{type(reshard_after_forward)}")
        for g in self._fsdp_groups(recurse):
            g.reshard_after_forward = reshard_after_forward

    def set_reshard_after_backward(self, reshard_after_backward: bool, *,
                                   recurse: bool = True) -> None:
        pass

    def set_is_last_backward(self, is_last_backward: bool) -> None:
        pass

    def set_modules_to_forward_prefetch(self, modules) -> None:
        pass

    def set_modules_to_backward_prefetch(self, modules) -> None:
        pass

    def reset_iter_state(self) -> None:
        for g in self._fsdp_groups():
            g.reshard()


def _pre_forward(group, module, args, kwargs):
    group.unshard()
    return None


def _post_forward(group, module, args, output):
    if group.reshard_after_forward:
        group.reshard()
    return None


def _shard_inputs(jmesh, axis, module, args, kwargs):
    return (map_tensors(args, lambda t: shard_batch(t, jmesh, axis)),
            map_tensors(kwargs, lambda t: shard_batch(t, jmesh, axis)))


def _owned_params(module, ignored):
    """(owner module, name, parameter) of ``module``'s parameters that no nested
    ``fully_shard`` manages, each once."""
    nested = {id(p) for m in module.modules() if m is not module
              for g in [getattr(m, "_fsdp_group", None) or getattr(m, "_fsdp_local", None)]
              if g is not None for p in m.parameters()}
    seen, out = set(), []
    for m in module.modules():
        for name, p in list(m._parameters.items()):
            if p is None or id(p) in seen or id(p) in nested or p in ignored:
                continue
            seen.add(id(p))
            out.append((m, name, p))
    return out


def _as_fsdp_class(module):
    cls = type(module)
    if not issubclass(cls, FSDPModule):
        module.__class__ = type(f"FSDP{cls.__name__}", (FSDPModule, cls), {})


def fully_shard(module, *, mesh: DeviceMesh | None = None, reshard_after_forward=None,
                shard_placement_fn=None, mp_policy=MixedPrecisionPolicy(),
                offload_policy=OffloadPolicy(), ignored_params=None, dp_mesh_dims=None):
    """Shards ``module``'s parameters over ``mesh`` (see the module docstring); returns the
    module, whose class becomes ``FSDP<Class>`` (an :class:`FSDPModule`). Call it on the
    layers first, then on the root, then build the optimizer.

    Args:
        module (Module): the module (or a list of modules: each is sharded).
        mesh (DeviceMesh, optional): a 1-D mesh (all ranks by default; in a single process
            without a process group, all of its devices).
        reshard_after_forward (bool or int, optional): put the chunks back after forward
            (None: True; an int: 1 means False, the mesh size True, others raise
            NotImplementedError).
        ignored_params (set, optional): parameters to leave whole and unsynchronized.
    """
    if isinstance(module, (list, tuple)):
        for m in module:
            fully_shard(m, mesh=mesh, reshard_after_forward=reshard_after_forward,
                        shard_placement_fn=shard_placement_fn, mp_policy=mp_policy,
                        offload_policy=offload_policy, ignored_params=ignored_params)
        return module
    if not isinstance(module, Module):
        raise ValueError(f"fully_shard does not support containers that do not implement "
                         f"forward: {module}")
    if mp_policy != MixedPrecisionPolicy():
        raise not_implemented("torch.distributed.fsdp.fully_shard(mp_policy=...)",
                              "torch.autocast around the forward")
    if isinstance(offload_policy, CPUOffloadPolicy):
        raise not_implemented("torch.distributed.fsdp.fully_shard(offload_policy="
                              "CPUOffloadPolicy())")
    if shard_placement_fn is not None or dp_mesh_dims is not None:
        raise not_implemented("torch.distributed.fsdp.fully_shard(shard_placement_fn=...)")
    if mesh is None:
        mesh = _default_mesh()
    if mesh.ndim != 1:
        raise not_implemented("torch.distributed.fsdp.fully_shard over a 2-D mesh (HSDP)")
    shard_module(module, mesh, _resharding(reshard_after_forward, mesh.size()),
                 set(ignored_params or ()))
    _as_fsdp_class(module)
    return module


def _resharding(reshard_after_forward, world):
    """``reshard_after_forward`` as a bool: None means True; an int is the world size to
    reshard to (1: False, ``world``: True, PyTorch's errors for one that does not divide it)."""
    x = reshard_after_forward
    if x is None or isinstance(x, bool):
        return x is not False
    if not isinstance(x, int):
        raise ValueError("reshard_after_forward should be a bool or an int representing the "
                         f"group size to reshard to, not {x}")
    if x < 1 or x > world or world % x:
        raise ValueError("If passing reshard_after_forward as an int, it should be a "
                         f"factor of {world}, not {x}")
    if x in (1, world):
        return x == world
    raise not_implemented(f"torch.distributed.fsdp.fully_shard(reshard_after_forward={x}) "
                          f"(resharding to {x} of the {world} ranks after forward)",
                          "reshard_after_forward=True or False")


def shard_module(module, mesh, reshard_after_forward=True, ignored=(), replicate=False):
    """Shards the parameters of ``module`` that no nested FSDP manages over ``mesh`` and
    installs the hooks (see the module docstring); with ``replicate`` they stay whole and
    their gradients are averaged (FSDP1's NO_SHARD)."""
    owned = _owned_params(module, ignored)
    if any(p.is_meta for _, _, p in owned):
        raise not_implemented("fully_shard of parameters on the meta device",
                              "module.to_empty(device=...) and its initialisation before "
                              "fully_shard")
    if mesh.is_local:
        jmesh = mesh.jax_mesh
        axis = mesh.axis_names[0]
        if not replicate:
            for _, _, p in owned:
                shard_dim0(p, jmesh, axis)
        module._fsdp_local = mesh
        module.register_forward_pre_hook(functools.partial(_shard_inputs, jmesh, axis),
                                         with_kwargs=True)
        return None
    group = mesh.get_group()
    n, r = group.size(), group.rank()
    managed = []
    for owner, name, p in owned:
        full = array(p)
        if p.dim() == 0 or replicate:
            sharded = DTensor(place(full, p.device), mesh, (Replicate(),), p.shape,
                              group=group, requires_grad=p.requires_grad)
            managed.append(_Managed(owner, name, sharded, None))
        else:
            sharded = DTensor(place(shard_rows(full, n, r), p.device), mesh, (Shard(0),),
                              p.shape, group=group, requires_grad=p.requires_grad)
            managed.append(_Managed(owner, name, sharded, p.shape[0]))
        owner.register_parameter(name, sharded)
    fsdp = _ShardedGroup(module, group, reshard_after_forward, managed)
    module._fsdp_group = fsdp
    module._jtorch_spmd_group = group       # a compiled step runs as SPMD over it
    module.register_forward_pre_hook(functools.partial(_pre_forward, fsdp), with_kwargs=True)
    module.register_forward_hook(functools.partial(_post_forward, fsdp))
    return fsdp


def _default_mesh():
    """All ranks; in a single process without a process group, all of its devices (of the
    accelerator if there is one)."""
    kind = "cuda" if jax_devices("cuda") else "cpu"
    if is_initialized():
        return init_device_mesh(kind, (default_group().size(),))
    return init_device_mesh(kind, (len(jax_devices(kind)),))


def register_fsdp_forward_method(module, method_name: str) -> None:
    """Makes ``module.<method_name>`` all-gather and reshard like ``forward``."""
    group = getattr(module, "_fsdp_group", None)
    if group is None:
        return
    method = getattr(module, method_name)

    @functools.wraps(method)
    def wrapped(*args, **kwargs):
        group.unshard()
        try:
            return method(*args, **kwargs)
        finally:
            if group.reshard_after_forward:
                group.reshard()

    setattr(module, method_name, wrapped)
