"""torch.distributed's errors and a one-process group, in this test process (no workers):
calls before init_process_group, a second init, a rank outside the world, init after the
JAX backend started; a world of one against torch's gloo world of one, FSDP2's
``fully_shard`` over it against torch's (training steps, ``reshard_after_forward``'s
errors)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import torch
import torch.distributed as tdist
import torch.distributed.fsdp as tfsdp
from distributed_launch import free_ports
from distributed_local_worker import _mlp

import jtorch
import jtorch.distributed as jdist
import jtorch.distributed.fsdp as jfsdp

pytestmark = pytest.mark.distributed


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


CALLS_BEFORE_INIT = {
    "get_rank": lambda T, D: D.get_rank(),
    "get_world_size": lambda T, D: D.get_world_size(),
    "get_backend": lambda T, D: D.get_backend(),
    "all_reduce": lambda T, D: D.all_reduce(T.ones(2)),
    "broadcast": lambda T, D: D.broadcast(T.ones(2), src=0),
    "barrier": lambda T, D: D.barrier(),
    "new_group": lambda T, D: D.new_group([0]),
    "all_gather_object": lambda T, D: D.all_gather_object([None], 1),
}


@pytest.mark.parametrize("call", list(CALLS_BEFORE_INIT))
def test_before_init_process_group(call):
    fn = CALLS_BEFORE_INIT[call]
    assert not jdist.is_initialized() and not tdist.is_initialized()
    assert _error(lambda: fn(jtorch, jdist)) == _error(lambda: fn(torch, tdist))


@pytest.fixture
def world_of_one():
    """Both libraries' default groups over one process (tcp:// on a free port each); the
    excepthook init_process_group installs (``[rank0]:`` prefixes) is put back after."""
    ports = free_ports(2)
    excepthook = sys.excepthook
    tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{ports[0]}", rank=0,
                             world_size=1)
    try:
        jdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{ports[1]}", rank=0,
                                 world_size=1)
        try:
            yield ports
        finally:
            jdist.destroy_process_group()
    finally:
        tdist.destroy_process_group()
        sys.excepthook = excepthook


def test_world_of_one(world_of_one):
    out = {}
    for name, T, D in (("torch", torch, tdist), ("jtorch", jtorch, jdist)):
        t = T.arange(6.0).reshape(2, 3)
        D.all_reduce(t[1], op=D.ReduceOp.MAX)
        gathered = [T.zeros(2, 3)]
        D.all_gather(gathered, t)
        objs = [None]
        D.all_gather_object(objs, {"a": 1})
        work = D.broadcast(t, src=0, async_op=True)
        out[name] = (t.tolist(), gathered[0].tolist(), objs, work.wait(), D.get_rank(),
                     D.get_world_size(), str(D.get_backend()), D.is_initialized())
    assert out["jtorch"] == out["torch"]


def test_distributed_c10d_module_before_and_in_a_world_of_one(world_of_one):
    # libraries import the process-group API from the module PyTorch defines it in
    # (`from torch.distributed.distributed_c10d import _get_default_group, ProcessGroup`), and
    # DeviceMesh/init_device_mesh from torch.distributed itself
    import torch.distributed.distributed_c10d as tc10d

    import jtorch.distributed.device_mesh as jmesh
    import jtorch.distributed.distributed_c10d as jc10d

    assert jc10d.__all__ == [n for n in jdist.__all__ if n in tc10d.__all__]
    assert jc10d.ProcessGroup is jdist.ProcessGroup and jc10d.all_reduce is jdist.all_reduce
    assert jdist.DeviceMesh is jmesh.DeviceMesh and "init_device_mesh" in jdist.__all__
    assert jdist.init_device_mesh is jmesh.init_device_mesh
    out = {}
    for name, T, C in (("torch", tdist, tc10d), ("jtorch", jdist, jc10d)):
        pg = C._get_default_group()
        out[name] = (isinstance(pg, T.ProcessGroup), pg.rank(), pg.size(),
                     C._rank_not_in_group(pg), C._rank_not_in_group(None),
                     C._rank_not_in_group(T.GroupMember.NON_GROUP_MEMBER),
                     C.get_global_rank(pg, 0))
    assert out["jtorch"] == out["torch"]
    with pytest.raises(NotImplementedError, match="torch.distributed.distributed_c10d._world"):
        jc10d._world


def test_distributed_c10d_default_group_before_init():
    import torch.distributed.distributed_c10d as tc10d

    import jtorch.distributed.distributed_c10d as jc10d

    assert _error(jc10d._get_default_group) == _error(tc10d._get_default_group)


def _mlp_with_unused(T):
    """distributed_local_worker's seeded MLP with an ``unused`` parameter that gets no
    gradient: a backward that reaches only some of an FSDP module's parameters."""
    model = _mlp(T)
    model[2].register_parameter("unused", T.nn.Parameter(T.zeros(3)))
    return model


def _sgd_losses(T, model, steps, seed):
    """``steps`` SGD steps (lr 0.1, MSE) on batches drawn from ``seed + step``; the losses."""
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for step in range(steps):
        rng = np.random.default_rng(seed + step)
        x = T.tensor(rng.standard_normal((8, 6)), dtype=T.float32)
        y = T.tensor(rng.standard_normal((8, 4)), dtype=T.float32)
        opt.zero_grad()
        loss = T.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def _fsdp_steps(T, fsdp, model, wrap, reshard_after_forward, steps=3):
    """``steps`` SGD steps after ``fully_shard`` on the root ("root") or on each layer then
    the root ("layers"); the losses and the parameters' final values."""
    for m in ((model[0], model[2], model) if wrap == "layers" else (model,)):
        fsdp.fully_shard(m, reshard_after_forward=reshard_after_forward)
    losses = _sgd_losses(T, model, steps, seed=500)
    return losses, [np.array(p.full_tensor().tolist()) for p in model.parameters()]


@pytest.mark.parametrize("wrap", ["root", "layers"])
@pytest.mark.parametrize("reshard_after_forward", [True, False, 1])
def test_fully_shard_world_of_one_trains_like_torch(world_of_one, wrap, reshard_after_forward):
    """With ``reshard_after_forward=False`` the full parameters must be put back after
    backward: the next forward gathers the chunks SGD updated, not the stale full values."""
    got = _fsdp_steps(jtorch, jfsdp, _mlp_with_unused(jtorch), wrap, reshard_after_forward)
    ref = _fsdp_steps(torch, tfsdp, _mlp_with_unused(torch), wrap, reshard_after_forward)
    np.testing.assert_allclose(got[0], ref[0], rtol=0, atol=1e-6)
    for g, r in zip(got[1], ref[1], strict=True):
        np.testing.assert_allclose(g, r, rtol=0, atol=1e-6)


@pytest.mark.parametrize("value", [3, 0, "yes", 1.0])
def test_fully_shard_bad_reshard_after_forward_raises_torchs_error(world_of_one, value):
    def shard(T, fsdp):
        return lambda: fsdp.fully_shard(T.nn.Linear(2, 2), reshard_after_forward=value)

    assert _error(shard(jtorch, jfsdp)) == _error(shard(torch, tfsdp))


def test_set_reshard_after_forward_takes_a_bool(world_of_one):
    def setter(T, fsdp):
        return lambda: fsdp.fully_shard(T.nn.Linear(2, 2)).set_reshard_after_forward(1)

    assert _error(setter(jtorch, jfsdp)) == _error(setter(torch, tfsdp))


def test_second_init_raises_torchs_error(world_of_one):
    def again(D, port):
        return lambda: D.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                                            rank=0, world_size=1)

    assert _error(again(jdist, world_of_one[1])) == _error(again(tdist, world_of_one[0]))


ENV = "env://"
TCP = "tcp://127.0.0.1:1"  # never contacted: each case fails before
BAD_INITS = {
    "env_without_rank": ({}, {"init_method": ENV}),
    "env_without_world_size": ({"RANK": "0"}, {"init_method": ENV}),
    "env_without_master_addr": ({"RANK": "0", "WORLD_SIZE": "2"}, {"init_method": ENV}),
    "env_without_master_port": ({"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1"},
                                {"init_method": ENV}),
    "tcp_without_rank": ({}, {"init_method": TCP, "world_size": 2}),
    "timeout_not_timedelta": ({}, {"init_method": TCP, "rank": 0, "world_size": 1,
                                   "timeout": 30}),
}


@pytest.mark.parametrize("case", list(BAD_INITS))
def test_bad_init_process_group_raises_torchs_error(case, monkeypatch):
    """Missing environment variables, a missing rank, a timeout that is not a timedelta:
    torch's errors, raised before any process is contacted."""
    env, kwargs = BAD_INITS[case]
    for var in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    kwargs = {"backend": "gloo", **kwargs}
    expected = _error(lambda: tdist.init_process_group(**kwargs))
    assert _error(lambda: jdist.init_process_group(**kwargs)) == expected
    assert not jdist.is_initialized() and not tdist.is_initialized()


@pytest.mark.parametrize("device_id", ["cpu", "cpu:0"])
def test_cpu_device_id_raises_torchs_error(device_id):
    """A process group binds to an accelerator only: ``device_id`` on the CPU is refused, as
    pytorch/examples' FSDP2 example finds when it passes ``device("cpu")`` without GPUs."""
    errors = []
    for T, D in ((torch, tdist), (jtorch, jdist)):
        (port,) = free_ports(1)
        errors.append(_error(lambda T=T, D=D, port=port: D.init_process_group(
            "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1,
            device_id=T.device(device_id))))
        assert not D.is_initialized()
    assert errors[1] == errors[0]


def test_rank_outside_the_world():
    (port,) = free_ports(1)
    with pytest.raises(RuntimeError, match=r"rank < size\. 3 vs 2"):  # gloo's enforce text
        jdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=3,
                                 world_size=2)
    assert not jdist.is_initialized()


def test_init_while_a_tensor_exists_says_what_to_do():
    t = jtorch.ones(1)  # JAX's backend runs in this process, and holds t
    (port,) = free_ports(1)
    with pytest.raises(RuntimeError, match="must run before this process makes tensors"):
        jdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0,
                                 world_size=2)
    assert not jdist.is_initialized()
    assert t.tolist() == [1.0]  # still there



FSDP1_UNSUPPORTED = {
    "auto_wrap_policy": lambda: lambda *args, **kwargs: True,
    "mixed_precision": lambda: jfsdp.MixedPrecision(param_dtype=jtorch.bfloat16),
    "cpu_offload": lambda: jfsdp.CPUOffload(offload_params=True),
    "use_orig_params": lambda: True,
    "ignored_modules": lambda: [],
    "param_init_fn": lambda: print,
    "sharding_strategy": lambda: jfsdp.ShardingStrategy.HYBRID_SHARD,
}


@pytest.mark.parametrize("option", list(FSDP1_UNSUPPORTED))
def test_fsdp1_unsupported_option_raises_naming_it(option):
    """FSDP1's options jtorch does not implement raise NotImplementedError naming the option
    (checked before anything else, so no process group is needed)."""
    with pytest.raises(NotImplementedError, match=f"FullyShardedDataParallel.*{option}"):
        jfsdp.FullyShardedDataParallel(jtorch.nn.Linear(2, 2),
                                       **{option: FSDP1_UNSUPPORTED[option]()})


def _fsdp1_on_mesh_steps(T, dist, fsdp, steps=3):
    """FSDP1 given ``device_mesh=`` (a one-rank mesh), ``steps`` SGD steps; the losses and
    the full state dict."""
    model = fsdp.FullyShardedDataParallel(
        _mlp_with_unused(T), device_id=T.device("cpu"),
        device_mesh=dist.device_mesh.init_device_mesh("cpu", (1,)))
    losses = _sgd_losses(T, model, steps, seed=600)
    return losses, {k: np.array(v.tolist()) for k, v in model.state_dict().items()}


def test_fsdp1_on_a_device_mesh_trains_like_torch(world_of_one):
    """In a world of one, both switch to NO_SHARD with PyTorch's warnings (torch gives the
    state_dict one from its pre- and its post-hook: the same messages, compared as a set)."""
    with pytest.warns(UserWarning) as got_warnings:
        got = _fsdp1_on_mesh_steps(jtorch, jdist, jfsdp)
    with pytest.warns(UserWarning) as ref_warnings:
        ref = _fsdp1_on_mesh_steps(torch, tdist, tfsdp)
    assert {str(w.message) for w in got_warnings} == {str(w.message) for w in ref_warnings}
    np.testing.assert_allclose(got[0], ref[0], rtol=0, atol=1e-6)
    assert list(got[1]) == list(ref[1])
    for k in ref[1]:
        np.testing.assert_allclose(got[1][k], ref[1][k], rtol=0, atol=1e-6, err_msg=k)


def test_fsdp1_process_group_and_device_mesh_raise_torchs_error(world_of_one):
    def wrap(T, dist, fsdp):
        mesh = dist.device_mesh.init_device_mesh("cpu", (1,))
        return lambda: fsdp.FullyShardedDataParallel(
            T.nn.Linear(2, 2), device_id=T.device("cpu"), device_mesh=mesh,
            process_group=dist.group.WORLD)

    assert _error(wrap(jtorch, jdist, jfsdp)) == _error(wrap(torch, tdist, tfsdp))
