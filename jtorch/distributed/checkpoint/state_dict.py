"""torch.distributed.checkpoint.state_dict: model and optimizer state dicts of DDP/FSDP models
by plain parameter names, full (gathered) or sharded.

With ``StateDictOptions(full_state_dict=True)`` every ``DTensor`` (an FSDP parameter chunk) is
all-gathered into the whole tensor, and wrapper prefixes (``module.`` of DDP,
``_fsdp_wrapped_module.`` of FSDP1, ``_orig_mod.`` of jtorch.compile) are dropped, so the
result loads into the plain model and saves in PyTorch's format (``jtorch.save``). With
``cpu_offload=True`` too, only rank 0 gets it (other ranks get ``{}``), as in PyTorch. Every
rank must call these functions (the gathering is collective).

Optimizer state dicts are keyed by parameter names (``{"state": {name: {...}},
"param_groups": [{..., "params": [names]}]}``); state tensors shaped like a parameter's chunk
are gathered like the parameter.
"""

from __future__ import annotations

import dataclasses

from ..._ops.creation import place, tensor, zeros_like
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...nn.modules.module import Module
from ..c10d import get_rank, is_initialized
from ..collectives import array
from ..tensor._dtensor import DTensor, gather_rows, shard_rows

__all__ = ["StateDictOptions", "get_model_state_dict", "get_optimizer_state_dict",
           "get_state_dict", "set_model_state_dict", "set_optimizer_state_dict"]

_PREFIXES = ("_fsdp_wrapped_module.", "_checkpoint_wrapped_module.", "_orig_mod.")


@dataclasses.dataclass
class StateDictOptions:
    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False
    dsd_fqn_modifiers: str = "_fqn_modifiers"


def plain_name(key: str, skip_ddp_prefix: bool = True) -> str:
    """``key`` without the wrappers' prefixes."""
    for p in _PREFIXES:
        key = key.replace(p, "")
    if skip_ddp_prefix and key.startswith("module."):
        key = key[len("module."):]
    return key


def _row_sharded(t):
    return isinstance(t, DTensor) and t._is_row_sharded()


def gather_full(values, shapes_rows):
    """Full arrays of DTensor chunks ``values`` (grouped per process group, one all-gather
    each); other values unchanged."""
    out = list(values)
    by_group = {}
    for i, (v, rows) in enumerate(zip(values, shapes_rows)):
        if rows is not None:
            by_group.setdefault(id(v[1]), (v[1], []))[1].append(i)
    for group, idx in by_group.values():
        fulls = gather_rows(group, [values[i][0] for i in idx], [shapes_rows[i] for i in idx])
        for i, f in zip(idx, fulls):
            out[i] = f
    return out


def full_state_dict(module: Module, rank0_only: bool = False) -> dict:
    """``module``'s state dict with every DTensor gathered, by plain names (see the module
    docstring)."""
    sd = module.state_dict(keep_vars=True)
    keys = list(sd)
    items, rows = [], []
    for k in keys:
        t = sd[k]
        if _row_sharded(t):
            items.append((array(t), t._dt_group))
            rows.append(t.global_shape[0])
        else:
            items.append(t)
            rows.append(None)
    fulls = gather_full(items, rows)
    if rank0_only and is_initialized() and get_rank() != 0:
        return {}
    return {plain_name(k): place(f, sd[k].device) if r is not None else sd[k].detach()
            for k, f, r in zip(keys, fulls, rows)}


def load_full_state_dict(module: Module, state_dict: dict, strict: bool = True):
    """Loads a full state dict (by plain names) into ``module``: each DTensor takes its rows."""
    own = module.state_dict(keep_vars=True)
    by_plain = {plain_name(k): k for k in own}
    missing = [k for k in by_plain if k not in state_dict]
    unexpected = [k for k in state_dict if k not in by_plain]
    if strict and (missing or unexpected):
        raise RuntimeError(f"Error(s) in loading state_dict for {type(module).__name__}: "
                           f"Missing key(s): {missing}. Unexpected key(s): {unexpected}.")
    with no_grad():
        for plain, key in by_plain.items():
            if plain not in state_dict:
                continue
            t = own[key]
            value = array(state_dict[plain])
            if _row_sharded(t):
                group = t._dt_group
                value = shard_rows(value, group.size(), group.rank())
            t.copy_(place(value, t.device))
    return missing, unexpected


def get_model_state_dict(model, *, submodules=None, options=None) -> dict:
    """``model``'s state dict by plain names: full (gathered) or with DTensor chunks."""
    options = options or StateDictOptions()
    if options.full_state_dict:
        return full_state_dict(model, rank0_only=options.cpu_offload)
    return {plain_name(k): v for k, v in model.state_dict().items()}


def set_model_state_dict(model, model_state_dict, *, options=None):
    """Loads a state dict from :func:`get_model_state_dict` (full or sharded)."""
    options = options or StateDictOptions()
    full = any(not isinstance(v, DTensor) for v in model_state_dict.values())
    if full:
        return load_full_state_dict(model, model_state_dict, strict=options.strict)
    own = model.state_dict()
    return model.load_state_dict({k: model_state_dict[plain_name(k)] for k in own
                                  if plain_name(k) in model_state_dict}, strict=options.strict)


def _names(model):
    return {id(p): plain_name(n) for n, p in model.named_parameters()}


def _init_optim_state(optim) -> None:
    """Creates an optimizer's lazily made state (``exp_avg``, ``step``...) as PyTorch does: one
    ``step()`` with zero gradients and every group's ``lr`` at 0, then ``zero_grad()``. Does
    nothing when the optimizer has state already or any parameter has a gradient (a stateless
    optimizer such as plain SGD keeps no state). Private in PyTorch too; pytorch/examples'
    FSDP2 checkpointer calls it before loading a full optimizer state dict into its shards."""
    if optim.state:
        return
    params = [p for group in optim.param_groups for p in group["params"]]
    if any(p.grad is not None for p in params):
        return
    for p in params:
        if p.requires_grad:
            p.grad = zeros_like(p)
    lrs = []
    for group in optim.param_groups:
        if "lr" in group:
            lrs.append(group["lr"])
            group["lr"] = tensor(0.0) if isinstance(group["lr"], Tensor) else 0.0
    optim.step(closure=None)
    for group in optim.param_groups:
        if "lr" in group:
            group["lr"] = lrs.pop(0)
    optim.zero_grad(set_to_none=True)


def _stepped_optimizer(model, optimizers):
    """``(optimizer, {id(param): plain name}, its parameters in state-dict order)``, the
    optimizer's lazy state made first (:func:`_init_optim_state`), as PyTorch's get and set
    do."""
    opt = optimizers[0] if isinstance(optimizers, (list, tuple)) else optimizers
    _init_optim_state(opt)
    return opt, _names(model), [p for g in opt.param_groups for p in g["params"]]


def get_optimizer_state_dict(model, optimizers, *, submodules=None, options=None) -> dict:
    """``optimizers``' state by parameter names; with ``full_state_dict`` the state tensors
    of DTensor parameters are gathered. An optimizer that has not stepped yet gets its state
    first (:func:`_init_optim_state`), as in PyTorch."""
    options = options or StateDictOptions()
    opt, names, params = _stepped_optimizer(model, optimizers)
    sd = opt.state_dict()
    state = {}
    for i, per in sd["state"].items():
        p = params[i]
        entries = {}
        for k, v in per.items():
            if options.full_state_dict and _row_sharded(p) and getattr(v, "shape", None) == \
                    p.shape:
                (full,) = gather_rows(p._dt_group, [array(v)], [p.global_shape[0]])
                v = place(full, v.device)
            entries[k] = v
        state[names[id(p)]] = entries
    groups = []
    start = 0
    for g in sd["param_groups"]:
        n = len(g["params"])
        groups.append({**g, "params": [names[id(p)] for p in params[start:start + n]]})
        start += n
    if options.full_state_dict and options.cpu_offload and is_initialized() and get_rank():
        return {}
    return {"state": state, "param_groups": groups}


def set_optimizer_state_dict(model, optimizers, optim_state_dict, *, options=None) -> None:
    """Loads an optimizer state dict from :func:`get_optimizer_state_dict` (full ones are
    split into each rank's chunks), into state made first as PyTorch does
    (:func:`_init_optim_state`)."""
    opt, names, params = _stepped_optimizer(model, optimizers)
    index = {names[id(p)]: i for i, p in enumerate(params)}
    state = {}
    for name, per in optim_state_dict["state"].items():
        p = params[index[name]]
        entries = {}
        for k, v in per.items():
            if _row_sharded(p) and getattr(v, "shape", None) == p.global_shape:
                group = p._dt_group
                v = place(shard_rows(array(v), group.size(), group.rank()), v.device)
            entries[k] = v
        state[index[name]] = entries
    groups = [{**g, "params": [index[n] for n in g["params"]]}
              for g in optim_state_dict["param_groups"]]
    opt.load_state_dict({"state": state, "param_groups": groups})


def get_state_dict(model, optimizers, *, submodules=None, options=None):
    """``(get_model_state_dict(...), get_optimizer_state_dict(...))``."""
    return (get_model_state_dict(model, options=options),
            get_optimizer_state_dict(model, optimizers, options=options))
