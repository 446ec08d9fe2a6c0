"""torch.distributed.checkpoint.state_dict's optimizer-state initialisation against PyTorch's, in
one process (no process group needed): the private ``_init_optim_state`` that pytorch/examples'
FSDP2 checkpointer imports, and the state ``get_optimizer_state_dict`` returns for an optimizer
that has not stepped yet. Sharded and full state dicts across processes are checked in
test_distributed_pair.py and test_distributed_local.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.distributed.checkpoint.state_dict as tstate
from nn_helpers import copy_weights

import jtorch
import jtorch.distributed.checkpoint.state_dict as jstate

OPTIMIZERS = {
    "adam": lambda T, ps: T.optim.Adam(ps, lr=0.1),
    "adamw_tensor_lr": lambda T, ps: T.optim.AdamW(ps, lr=T.tensor(0.1)),
    "sgd_momentum": lambda T, ps: T.optim.SGD(ps, lr=0.1, momentum=0.9),
    "sgd": lambda T, ps: T.optim.SGD(ps, lr=0.1),
    "rmsprop": lambda T, ps: T.optim.RMSprop(ps, lr=0.1),
}


def _both(make):
    torch.manual_seed(0)
    tm = torch.nn.Linear(3, 2)
    jm = jtorch.nn.Linear(3, 2)
    copy_weights(tm, jm)
    return (tm, make(torch, tm.parameters())), (jm, make(jtorch, jm.parameters()))


def _state(opt):
    """The optimizer's state dict as nested lists of floats (tensors as NumPy values)."""
    sd = opt.state_dict()
    state = {i: {k: np.asarray(v.detach().numpy() if hasattr(v, "detach") else v).tolist()
                 for k, v in per.items()} for i, per in sd["state"].items()}
    groups = [{k: (float(v) if hasattr(v, "item") else v) for k, v in g.items()}
              for g in sd["param_groups"]]
    return state, groups


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_init_optim_state_equals_pytorchs(name):
    (tm, topt), (jm, jopt) = _both(OPTIMIZERS[name])
    tstate._init_optim_state(topt)
    jstate._init_optim_state(jopt)
    assert _state(jopt) == _state(topt)
    assert type(jopt.param_groups[0]["lr"]).__name__ == type(topt.param_groups[0]["lr"]).__name__
    for jp, tp in zip(jm.parameters(), tm.parameters()):
        assert jp.grad is None and tp.grad is None
        np.testing.assert_array_equal(jp.detach().numpy(), tp.detach().numpy())


def test_init_optim_state_leaves_an_optimizer_with_gradients_or_state_alone():
    (tm, topt), (jm, jopt) = _both(OPTIMIZERS["adam"])
    for m in (tm, jm):
        m.weight.grad = m.weight.detach() * 0 + 1
    tstate._init_optim_state(topt)
    jstate._init_optim_state(jopt)
    assert _state(jopt) == _state(topt) == ({}, _state(topt)[1])
    for opt, lib in ((topt, tstate), (jopt, jstate)):
        opt.step()
        before = _state(opt)
        lib._init_optim_state(opt)
        assert _state(opt) == before
    assert _state(jopt) == _state(topt)


def test_get_optimizer_state_dict_of_a_fresh_optimizer_equals_pytorchs():
    (tm, topt), (jm, jopt) = _both(OPTIMIZERS["adam"])
    ref = tstate.get_optimizer_state_dict(tm, topt)
    got = jstate.get_optimizer_state_dict(jm, jopt)
    assert {n: {k: np.asarray(v).tolist() for k, v in per.items()}
            for n, per in got["state"].items()} == \
        {n: {k: np.asarray(v).tolist() for k, v in per.items()} for n, per in ref["state"].items()}
    assert [g["params"] for g in got["param_groups"]] == [g["params"] for g in ref["param_groups"]]
