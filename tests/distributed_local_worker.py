"""One process over 4 CPU devices (tests/test_distributed_local.py starts it with
``XLA_FLAGS=--xla_force_host_platform_device_count=4``): ``DataParallel`` and FSDP2's
``fully_shard`` over a local mesh train the same MLP as one device and as real torch, from the
same weights and data.

``python tests/distributed_local_worker.py OUT_FILE`` writes
``{run: {"losses": [...], "params": [...], ...}}`` as JSON.
"""

from __future__ import annotations

import functools
import json
import sys

import jax
import numpy as np
import torch
import torch.nn.functional as tF

import jtorch
import jtorch.nn.functional as jF
from jtorch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict
from jtorch.distributed.fsdp import fully_shard

STEPS = 5


def _mlp(T):
    model = T.nn.Sequential(T.nn.Linear(6, 8), T.nn.Tanh(), T.nn.Linear(8, 4))
    rng = np.random.default_rng(3)
    with T.no_grad():
        for p in model.parameters():
            p.copy_(T.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=T.float32))
    return model


def _train(T, F, model, opt):
    losses = []
    for step in range(STEPS):
        rng = np.random.default_rng(500 + step)
        x = T.tensor(rng.standard_normal((8, 6)), dtype=T.float32)
        y = T.tensor(rng.standard_normal((8, 4)), dtype=T.float32)
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def _run(T, F, wrap, state_dict=None):
    model = _mlp(T)
    outer = wrap(model)
    opt = T.optim.SGD(outer.parameters(), lr=0.1, momentum=0.9)
    losses = _train(T, F, outer, opt)
    params = [p.detach().tolist() for p in model.parameters()]
    out = {"losses": losses, "params": params}
    if state_dict is not None:
        sd = state_dict(outer)
        out["state_dict_keys"] = list(sd)
        out["state_dict"] = [v.tolist() for v in sd.values()]
    return out


def _shardings(model):
    """How many devices each parameter lives on, and whether it is split."""
    out = []
    for p in model.parameters():
        s = p.__jax_array__().sharding
        out.append([len(s.device_set), not s.is_fully_replicated])
    return out


def main():
    results = {"devices": len(jax.devices())}
    results["torch"] = _run(torch, tF, lambda m: m)
    results["one_device"] = _run(jtorch, jF, lambda m: m)
    dp = {}

    def data_parallel(m):
        dp["module"] = jtorch.nn.DataParallel(m)
        return dp["module"]

    results["data_parallel"] = _run(jtorch, jF, data_parallel)
    results["data_parallel"]["device_ids"] = dp["module"].device_ids

    def fsdp(m, reshard_after_forward=None):
        for layer in (m[0], m[2]):
            fully_shard(layer, reshard_after_forward=reshard_after_forward)
        fully_shard(m, reshard_after_forward=reshard_after_forward)
        results["fsdp_shardings"] = _shardings(m)
        return m

    results["fsdp"] = _run(jtorch, jF, fsdp, state_dict=lambda m: get_model_state_dict(
        m, options=StateDictOptions(full_state_dict=True)))
    for value in (False, 4):
        results[f"fsdp_reshard_after_forward_{value}"] = _run(
            jtorch, jF, functools.partial(fsdp, reshard_after_forward=value))
    for value in (2, 3):   # resharding to 2 of the 4 devices; 3 does not divide 4
        try:
            fully_shard(_mlp(jtorch), reshard_after_forward=value)
            results[f"fsdp_reshard_after_forward_{value}"] = None
        except (NotImplementedError, ValueError) as e:
            results[f"fsdp_reshard_after_forward_{value}"] = [type(e).__name__, str(e)]
    results["torch_state_dict_keys"] = list(_mlp(torch).state_dict())
    with open(sys.argv[1], "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
