"""FSDP1: ``FullyShardedDataParallel(module)`` wraps a module and shards its parameters over a
process group as one flat parameter.

The parameters of ``module`` that no nested ``FullyShardedDataParallel`` manages are flattened
(in ``named_parameters`` order) into one 1-D vector, zero-padded to a multiple of the group's
size, and each rank keeps its chunk as ``_flat_param`` of the wrapped module (what
``fsdp_model.parameters()`` yields, as PyTorch's ``use_orig_params=False``); the original
parameters are removed from their modules. Each forward all-gathers the flat parameter (one
program) and sets the modules' attributes to views of it; the chunk goes back in place after
the forward. Backward's gradient of the full flat parameter is averaged over the ranks and this
rank's chunk kept in ``_flat_param.grad`` (a reduce-scatter; NO_SHARD: an all-reduce of the
whole vector). This reuses FSDP2's machinery (jtorch/distributed/fsdp/_fully_shard.py).
"""

from __future__ import annotations

import contextlib
import warnings

import jax.numpy as jnp

from ..._core.device import device as _device, jax_devices
from ..._core.errors import not_implemented
from ..._ops.creation import place
from ...autograd.grad_mode import no_grad
from ...nn.modules.module import Module
from ...nn.parameter import Parameter
from ..c10d import default_group
from ..collectives import array, broadcast
from ..tensor._dtensor import shard_rows
from ._fully_shard import _Managed, _owned_params, _ShardedGroup
from .api import (
    BackwardPrefetch,
    FullStateDictConfig,
    ShardingStrategy,
    StateDictSettings,
    StateDictType,
)

__all__ = ["FullyShardedDataParallel"]

_WRAPPED = "_fsdp_wrapped_module"
_FLAT = "_flat_param"
_NO_ACCELERATOR = "FSDP needs a non-CPU accelerator device, but no accelerator device is detected."
_CPU_SYNC = ("The module has CPU parameters or buffers when `sync_module_states=True`, which "
             "requires them to be on GPU. Please specify the `device_id` argument or move the "
             "module to GPU before passing it to FSDP.")
_API = "torch.distributed.fsdp.FullyShardedDataParallel"


class _FlatGroup(_ShardedGroup):
    """The flat parameter of one wrapper: ``views`` are ``(owner, name, shape, offset)`` of the
    original parameters inside the full flat vector."""

    def __init__(self, wrapper, group, managed, views):
        super().__init__(wrapper, group, True, managed)
        self.views = views

    def unshard(self):
        was = self.unsharded
        super().unshard()
        if not was:
            full = self.managed[0].owner._parameters[_FLAT]
            for owner, name, shape, offset in self.views:
                numel = 1
                for s in shape:
                    numel *= s
                setattr(owner, name, full[offset:offset + numel].view(shape))

    def install_params(self):
        """Puts the original parameters (full values, detached) back into their modules, in
        their original order, and takes the flat parameter out (for the full state dict)."""
        self.managed[0].owner._parameters.pop(_FLAT)
        for owner, name, _, _ in self.views:
            owner._parameters[name] = Parameter(getattr(owner, name).detach(), False)
        for owner in {id(o): o for o, _, _, _ in self.views}.values():
            order = owner._fsdp_param_order
            items = sorted(owner._parameters.items(), key=lambda kv: order.index(kv[0]))
            owner._parameters.clear()
            owner._parameters.update(items)

    def remove_params(self):
        """Undoes ``install_params`` (``reshard`` then puts the flat parameter back)."""
        for owner, name, _, _ in self.views:
            owner._parameters.pop(name, None)


def _reject_unsupported(process_group, sharding_strategy, cpu_offload, auto_wrap_policy,
                        mixed_precision, ignored_modules, param_init_fn, use_orig_params,
                        ignored_states, device_mesh):
    unsupported = {
        "process_group=(intra, inter) (HYBRID_SHARD)": isinstance(process_group, tuple),
        f"sharding_strategy={sharding_strategy}": sharding_strategy in (
            ShardingStrategy.HYBRID_SHARD, ShardingStrategy._HYBRID_SHARD_ZERO2),
        "cpu_offload=CPUOffload(offload_params=True)": bool(
            getattr(cpu_offload, "offload_params", False)),
        "auto_wrap_policy": auto_wrap_policy is not None,
        "mixed_precision": mixed_precision is not None,
        "ignored_modules": ignored_modules is not None,
        "param_init_fn": param_init_fn is not None,
        "use_orig_params=True": bool(use_orig_params),
        "ignored_states": ignored_states is not None,
    }
    for what, bad in unsupported.items():
        if bad:
            raise not_implemented(f"{_API}({what})",
                                  "wrap each submodule by hand, or fully_shard (FSDP2)")


_BOTH_GROUP_AND_MESH = ("Cannot pass both process_group and device_mesh at the same time. "
                        "Please just pass only one of them.")


def _target_device(module, device_id):
    """PyTorch's rule: ``device_id``, else the parameters' accelerator, else the machine's
    accelerator; CPU only when ``device_id`` says so."""
    if device_id is not None:
        return device_id if isinstance(device_id, _device) else _device(device_id)
    for p in module.parameters():
        if p.device.type != "cpu":
            return p.device
    for kind in ("cuda", "tpu"):
        if jax_devices(kind):
            return _device(kind, 0)
    raise RuntimeError(_NO_ACCELERATOR)


class FullyShardedDataParallel(Module):
    """Wraps ``module`` and shards its parameters over ``process_group`` (see the module
    docstring). Build the optimizer on the wrapper's ``parameters()`` after wrapping.

    Args:
        module (Module): the module to wrap (nested wrappers, made first, keep their own
            parameters).
        process_group (ProcessGroup, optional): the ranks to shard over (all by default).
        device_mesh (DeviceMesh, optional): instead of ``process_group``: shard over the
            group of the mesh's first dimension, as PyTorch does for the non-hybrid
            strategies (passing both raises PyTorch's ValueError).
        sharding_strategy (ShardingStrategy, optional): ``FULL_SHARD`` (the default),
            ``SHARD_GRAD_OP`` or ``NO_SHARD`` (parameters kept whole, gradients averaged).
        device_id (int or device, optional): the device of the parameters; required on a
            machine without an accelerator (``torch.device("cpu")``), as in PyTorch.
        sync_module_states (bool): broadcast rank 0's parameters and buffers first (GPU
            only: with CPU tensors it raises PyTorch's ValueError).
        backward_prefetch, forward_prefetch, limit_all_gathers: accepted (no effect on the
            values; jtorch does not overlap communication).

    Example::

        >>> model = FSDP(nn.Sequential(nn.Linear(6, 8), nn.Tanh()), device_id="cpu")
        >>> opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        >>> with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT,
        ...                           FullStateDictConfig(rank0_only=True)):
        ...     sd = model.state_dict()   # full tensors on rank 0, {} elsewhere

    Differences from PyTorch: ``auto_wrap_policy``, ``cpu_offload`` with parameter offload,
    ``mixed_precision``, ``ignored_modules``/``ignored_states``, ``param_init_fn``,
    ``use_orig_params=True`` and the hybrid strategies raise
    NotImplementedError; ``SHARD_GRAD_OP`` reshards after forward like ``FULL_SHARD`` (the same
    values; backward uses the full parameters the forward kept); the parameters of one wrapper
    must share a dtype and ``requires_grad``; only ``StateDictType.FULL_STATE_DICT`` is
    implemented, and ``load_state_dict``, ``summon_full_params``, ``clip_grad_norm_`` and the
    optimizer state-dict functions raise NotImplementedError.
    """

    def __init__(self, module, process_group=None, sharding_strategy=None, cpu_offload=None,
                 auto_wrap_policy=None, backward_prefetch=BackwardPrefetch.BACKWARD_PRE,
                 mixed_precision=None, ignored_modules=None, param_init_fn=None,
                 device_id=None, sync_module_states: bool = False,
                 forward_prefetch: bool = False, limit_all_gathers: bool = True,
                 use_orig_params: bool = False, ignored_states=None, device_mesh=None):
        _reject_unsupported(process_group, sharding_strategy, cpu_offload, auto_wrap_policy,
                            mixed_precision, ignored_modules, param_init_fn, use_orig_params,
                            ignored_states, device_mesh)
        super().__init__()
        dev = _target_device(module, device_id)
        if any(p.device != dev for p in module.parameters()):
            module.to(dev)
        if sync_module_states and any(t.device.type == "cpu" for t in
                                      [*module.parameters(), *module.buffers()]):
            raise ValueError(_CPU_SYNC)
        if process_group is not None and device_mesh is not None:
            raise ValueError(_BOTH_GROUP_AND_MESH)
        if device_mesh is not None:   # PyTorch shards over the mesh's first dimension
            group = device_mesh.get_group(mesh_dim=0)
        else:
            group = process_group if process_group is not None else default_group()
        self.sharding_strategy = sharding_strategy or ShardingStrategy.FULL_SHARD
        if group.size() == 1 and self.sharding_strategy != ShardingStrategy.NO_SHARD:
            warnings.warn(f"FSDP is switching to use `NO_SHARD` instead of "
                          f"{self.sharding_strategy} since the world size is 1.", stacklevel=2)
            self.sharding_strategy = ShardingStrategy.NO_SHARD
        self._fsdp_state_dict = StateDictSettings(StateDictType.FULL_STATE_DICT,
                                                  FullStateDictConfig(), None)
        setattr(self, _WRAPPED, module)
        owned = _owned_params(module, ())
        self._fsdp_group = self._flatten(owned, group, dev, sync_module_states) if owned \
            else None
        if sync_module_states:
            with no_grad():
                for b in module.buffers():
                    broadcast(b, group=group, group_src=0)
        self._jtorch_spmd_group = group       # a compiled step runs as SPMD over it

    def _flatten(self, owned, group, dev, sync):
        if len({p.dtype for _, _, p in owned}) > 1 or \
                len({p.requires_grad for _, _, p in owned}) > 1:
            raise not_implemented(f"{_API} of parameters with different dtypes or "
                                  "requires_grad", "wrap them in separate FSDP instances")
        views, offset = [], 0
        for owner, name, p in owned:
            if not hasattr(owner, "_fsdp_param_order"):
                owner._fsdp_param_order = list(owner._parameters)
            views.append((owner, name, tuple(p.shape), offset))
            offset += p.numel()
        full = jnp.concatenate([array(p).reshape(-1) for _, _, p in owned])
        for owner, name, _ in owned:
            del owner._parameters[name]
        n, r = group.size(), group.rank()
        if sync:   # rank 0's values, one broadcast of the whole vector
            flat = place(full, dev)
            broadcast(flat, group=group, group_src=0)
            full = array(flat)
        requires_grad = owned[0][2].requires_grad
        if self.sharding_strategy == ShardingStrategy.NO_SHARD:
            flat = Parameter(place(full, dev), requires_grad)
            rows = None
        else:
            flat = Parameter(place(shard_rows(full, n, r), dev), requires_grad)
            rows = offset
        module = self._modules[_WRAPPED]
        module.register_parameter(_FLAT, flat)   # as PyTorch: on the wrapped module
        return _FlatGroup(self, group, [_Managed(module, _FLAT, flat, rows)], views)

    @property
    def module(self) -> Module:
        """The wrapped module."""
        return self._modules[_WRAPPED]

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            modules = self.__dict__.get("_modules")
            if not modules or _WRAPPED not in modules:
                raise
            return getattr(modules[_WRAPPED], name)

    def __getitem__(self, key):
        return self._modules[_WRAPPED].__getitem__(key)

    def forward(self, *args, **kwargs):
        group = self._fsdp_group
        if group is None:
            return self.module(*args, **kwargs)
        group.unshard()
        try:
            return self.module(*args, **kwargs)
        finally:
            group.reshard()

    def _units(self):
        return [m for m in self.modules() if isinstance(m, FullyShardedDataParallel)
                and m._fsdp_group is not None]

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients accumulate on each rank (full, not reduce-scattered) inside; the first
        backward after it reduce-scatters the accumulated sum."""
        units = self._units()
        for u in units:
            u._fsdp_group.requires_gradient_sync = False
        try:
            yield
        finally:
            for u in units:
                u._fsdp_group.requires_gradient_sync = True

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """The full state dict (``StateDictType.FULL_STATE_DICT``): every rank all-gathers
        the parameters; keys are the wrapped module's own (no ``_fsdp_wrapped_module.``);
        with ``rank0_only`` the other ranks get an empty dict."""
        if getattr(self, "_fsdp_in_state_dict", False):   # a nested wrapper: the root's call
            return super().state_dict(*args, destination=destination, prefix=prefix,
                                      keep_vars=keep_vars)
        settings = self._fsdp_state_dict
        if settings.state_dict_type != StateDictType.FULL_STATE_DICT:
            raise not_implemented(f"{_API}.state_dict with {settings.state_dict_type}",
                                  "StateDictType.FULL_STATE_DICT")
        units = self._units()
        for u in units:
            u._fsdp_in_state_dict = True
            u._fsdp_group.unshard()
            u._fsdp_group.install_params()
        try:
            sd = super().state_dict(*args, destination=destination, prefix=prefix,
                                    keep_vars=False)
        finally:
            for u in units:
                u._fsdp_group.remove_params()
                u._fsdp_group.reshard()
                u._fsdp_in_state_dict = False
        rank0_only = getattr(settings.state_dict_config, "rank0_only", False)
        if self.sharding_strategy == ShardingStrategy.NO_SHARD:
            warnings.warn("When using ``NO_SHARD`` for ``ShardingStrategy``, full_state_dict "
                          "will be returned.", stacklevel=2)
            rank0_only = False
        out = type(sd)()
        if hasattr(sd, "_metadata"):
            out._metadata = type(sd._metadata)(
                (k.replace(_WRAPPED + ".", "").replace(_WRAPPED, ""), v)
                for k, v in sd._metadata.items())
        if rank0_only and units and units[0]._fsdp_group.group.rank() != 0:
            return out
        for k, v in sd.items():
            out[k.replace(_WRAPPED + ".", "")] = v
        return out

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        raise not_implemented(f"{_API}.load_state_dict",
                              "load the full state dict into the module before wrapping it")

    @staticmethod
    def set_state_dict_type(module, state_dict_type, state_dict_config=None,
                            optim_state_dict_config=None) -> StateDictSettings:
        """Sets the state-dict type of every FSDP wrapper in ``module``; returns the previous
        settings (of the first wrapper)."""
        if state_dict_type != StateDictType.FULL_STATE_DICT:
            raise not_implemented(f"{_API}.set_state_dict_type({state_dict_type})",
                                  "StateDictType.FULL_STATE_DICT")
        wrappers = [m for m in module.modules() if isinstance(m, FullyShardedDataParallel)]
        if not wrappers:
            raise AssertionError("No FSDP instance found in the module.")
        prev = wrappers[0]._fsdp_state_dict
        new = StateDictSettings(state_dict_type, state_dict_config or FullStateDictConfig(),
                                optim_state_dict_config)
        for m in wrappers:
            m._fsdp_state_dict = new
        return prev

    @staticmethod
    @contextlib.contextmanager
    def state_dict_type(module, state_dict_type, state_dict_config=None,
                        optim_state_dict_config=None):
        """Within the context, ``module.state_dict()`` gives ``state_dict_type``."""
        prev = FullyShardedDataParallel.set_state_dict_type(
            module, state_dict_type, state_dict_config, optim_state_dict_config)
        try:
            yield
        finally:
            for m in module.modules():
                if isinstance(m, FullyShardedDataParallel):
                    m._fsdp_state_dict = prev


def _missing_method(name, instead=None):
    def method(*args, **kwargs):
        raise not_implemented(f"{_API}.{name}", instead)
    method.__name__ = name
    return staticmethod(method)


for _name in ("summon_full_params", "clip_grad_norm_", "optim_state_dict",
              "optim_state_dict_to_load", "full_optim_state_dict", "sharded_optim_state_dict",
              "shard_full_optim_state_dict", "scatter_full_optim_state_dict",
              "rekey_optim_state_dict", "register_comm_hook"):
    setattr(FullyShardedDataParallel, _name, _missing_method(_name))
