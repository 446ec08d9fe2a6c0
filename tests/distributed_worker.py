"""One rank of the two-process distributed tests (tests/test_distributed_pair.py starts two).

``python tests/distributed_worker.py RANK TORCH_PORT JTORCH_PORT OUT_DIR TORCH_PORT2`` joins
two process groups of two ranks on 127.0.0.1: real torch's gloo (the reference) and jtorch's
(JAX's multi-process runtime), runs every check of CHECKS with both libraries from identical
inputs (then initializes both again with the init methods and stores of REINIT_MODES), and
writes ``{check: {"torch": result, "jtorch": result}}`` to ``OUT_DIR/rank<RANK>.json``
(a result is ``{"ok": value}`` or ``{"err": [exception type, first line]}``). Finally rank 1
dies without a word and rank 0 records how its next jtorch collective failed
(``OUT_DIR/dead_peer.json``). ``DIST_CHECKS=name,name`` in the environment runs only those
checks (``reinit`` names reinit_checks) for debugging one check by hand.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
import warnings
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as tdist
import torch.distributed._functional_collectives as tfuncol
import torch.distributed.checkpoint.state_dict as tstate
import torch.distributed.fsdp as tfsdp
import torch.distributed.tensor as tdtensor
import torch.nn.functional as tF

import jtorch
import jtorch.distributed as jdist
import jtorch.distributed._functional_collectives as jfuncol
import jtorch.distributed.checkpoint.state_dict as jstate
import jtorch.distributed.fsdp as jfsdp
import jtorch.distributed.tensor as jdtensor
import jtorch.nn.functional as jF

LIBS = {"torch": (torch, tdist, tF), "jtorch": (jtorch, jdist, jF)}
F_OF = {torch: tF, jtorch: jF}
FSDP = {torch: (tfsdp, tstate), jtorch: (jfsdp, jstate)}
DTENSOR = {torch: tdtensor, jtorch: jdtensor}
FUNCOL = {torch: tfuncol, jtorch: jfuncol}
WORLD = 2
OUT_DIR = [None]  # where the checkpoint check saves (set by main)


def _plain(x):
    """A JSON value of ``x`` (tensors as nested lists, exact for floats)."""
    if hasattr(x, "tolist") and hasattr(x, "dtype"):
        if x.dtype in (torch.bfloat16, jtorch.bfloat16):
            x = x.float()
        return x.tolist()
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    return x


def _data(rank, shape, dtype, seed=0):
    rng = np.random.default_rng(100 * seed + rank)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype == "int64":
        return rng.integers(-5, 6, shape).astype(np.int64)
    return rng.standard_normal(shape).astype(np.float64)


def _tensor(T, rank, shape, dtype, seed=0):
    return T.tensor(_data(rank, shape, dtype, seed), dtype=getattr(T, dtype))


# ------------------------------------------------------------------ collectives
def all_reduce_check(op, dtype):
    def check(T, D, F, rank):
        base = _tensor(T, rank, (3, 5), dtype)
        view = base[1:]  # written through to base
        D.all_reduce(view, op=getattr(D.ReduceOp, op))
        return base
    return check


def broadcast(T, D, F, rank):
    t = _tensor(T, rank, (4, 3), "float32")
    D.broadcast(t, src=1)
    return t


def all_gather(T, D, F, rank):
    t = _tensor(T, rank, (2, 3), "float64")
    out = [T.zeros(2, 3, dtype=T.float64) for _ in range(WORLD)]
    D.all_gather(out, t)
    return out


def all_gather_into_tensor(T, D, F, rank):
    t = _tensor(T, rank, (2, 3), "float32")
    out = T.zeros(4, 3)  # gloo takes the concatenated form only (NCCL also a stacked one)
    D.all_gather_into_tensor(out, t)
    return out


def reduce_scatter_tensor(T, D, F, rank):
    t = _tensor(T, rank, (4, 3), "float32")
    out = T.zeros(2, 3)
    D.reduce_scatter_tensor(out, t)
    return out


def all_to_all_single(T, D, F, rank):
    t = _tensor(T, rank, (4, 2), "int64")
    out = T.zeros(4, 2, dtype=T.int64)
    D.all_to_all_single(out, t)
    split_in = [1, 3] if rank == 0 else [2, 2]
    split_out = [1, 2] if rank == 0 else [3, 2]
    out2 = T.zeros(sum(split_out), 2, dtype=T.int64)
    D.all_to_all_single(out2, t, output_split_sizes=split_out, input_split_sizes=split_in)
    return [out, out2]


def scatter(T, D, F, rank):
    out = T.zeros(3)
    parts = [_tensor(T, 9, (3,), "float32", seed=i) for i in range(WORLD)] if rank == 0 else None
    D.scatter(out, parts, src=0)
    return out


def gather(T, D, F, rank):
    t = _tensor(T, rank, (2, 2), "float64")
    dst = [T.zeros(2, 2, dtype=T.float64) for _ in range(WORLD)] if rank == 1 else None
    D.gather(t, dst, dst=1)
    return [t, dst]


def reduce(T, D, F, rank):
    """The destination's result (gloo leaves partial sums in the other ranks' tensors)."""
    a, b = _tensor(T, rank, (3,), "float32"), _tensor(T, rank, (3,), "int64")
    D.reduce(a, dst=0)
    D.reduce(b, dst=1, op=D.ReduceOp.MAX)
    return a if rank == 0 else b


def object_collectives(T, D, F, rank):
    objs = [None, None]
    D.all_gather_object(objs, {"rank": rank, "s": "x" * (rank + 1)})
    lst = [rank, "a", (1, 2)] if rank == 0 else [None, None, None]
    D.broadcast_object_list(lst, src=0)
    got = [None, None] if rank == 0 else None
    D.gather_object([rank, 7], got, dst=0)
    return [objs, lst, got]


def barrier_and_queries(T, D, F, rank):
    D.barrier()
    return [D.is_initialized(), D.get_rank(), D.get_world_size(), str(D.get_backend()),
            D.is_available()]


def new_group(T, D, F, rank):
    both = D.new_group([0, 1])
    only1 = D.new_group([1])
    t = _tensor(T, rank, (3,), "float32")
    D.all_reduce(t, group=both)
    u = _tensor(T, rank, (2,), "float32", seed=3)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        res = D.all_reduce(u, group=only1)
    return [t, u, res is None, D.get_rank(only1), D.get_world_size(both),
            D.get_process_group_ranks(both)]


def async_work(T, D, F, rank):
    t = _tensor(T, rank, (4,), "float32")
    work = D.all_reduce(t, async_op=True)
    waited = work.wait()
    fut = work.get_future().wait()
    return [t, waited, work.is_completed(), fut]


def send_recv(T, D, F, rank):
    """Rank 0 sends to rank 1, then rank 1 sends back (blocking send/recv), then a
    batch_isend_irecv exchange."""
    t = _tensor(T, rank, (3,), "float32")
    if rank == 0:
        D.send(t, dst=1)
        D.recv(t, src=1)
    else:
        D.recv(t, src=0)
        t.mul_(2)
        D.send(t, dst=0)
    got = T.zeros(2)
    ops = [D.P2POp(D.isend, T.full((2,), float(rank + 1)), 1 - rank),
           D.P2POp(D.irecv, got, 1 - rank)]
    for work in D.batch_isend_irecv(ops):
        work.wait()
    return [t, got]


def all_to_all_list(T, D, F, rank):
    """Equal sizes (gloo's alltoall takes no others; NCCL's does, and so does jtorch's)."""
    ins = [_tensor(T, rank, (2, 2), "float32", seed=j) for j in range(WORLD)]
    outs = [T.zeros(2, 2) for _ in range(WORLD)]
    D.all_to_all(outs, ins)
    return outs


def reduce_scatter_list(T, D, F, rank):
    out = T.zeros(2, 2)
    D.reduce_scatter(out, [_tensor(T, rank, (2, 2), "float32", seed=j) for j in range(WORLD)])
    return out


def dtensor(T, D, F, rank):
    """init_device_mesh over the ranks; distribute_tensor of rank 0's values, sharded on
    dim 0 (rows divisible by 2: jtorch pads uneven chunks) and replicated."""
    dt = DTENSOR[T]
    mesh = dt.init_device_mesh("cpu", (WORLD,))
    t = _tensor(T, rank, (4, 3), "float32")
    sharded = dt.distribute_tensor(t, mesh, [dt.Shard(0)])
    replicated = dt.distribute_tensor(t, mesh, [dt.Replicate()])
    return [sharded.to_local(), sharded.full_tensor(), replicated.to_local(),
            mesh.get_local_rank(), mesh.size()]


def functional_collectives(T, D, F, rank):
    """torch.distributed._functional_collectives: new tensors, the argument unchanged."""
    fc, group = FUNCOL[T], D.group.WORLD
    t = _tensor(T, rank, (4, 4), "float32")
    mesh = DTENSOR[T].init_device_mesh("cpu", (WORLD,))
    return [fc.wait_tensor(fc.all_reduce(t, "sum", group)), fc.all_reduce(t, "max", mesh),
            fc.all_gather_tensor(t, 0, group), fc.all_gather_tensor(t, 1, group),
            fc.reduce_scatter_tensor(t, "sum", 0, group),
            fc.reduce_scatter_tensor(t, "avg", 1, group), fc.broadcast(t, 1, group),
            fc.all_to_all_single(t, [1, 3] if rank == 0 else [3, 1],
                                 [1, 3] if rank == 0 else [3, 1], group), t]


def local_shape_and_offset(T, D, F, rank):
    """This rank's shard of a global shape, without a DTensor (transformers' sharded loading):
    uneven, even and empty chunks, replicated dims."""
    dt = DTENSOR[T]
    utils = importlib.import_module(f"{T.__name__}.distributed.tensor._utils")
    mesh = dt.init_device_mesh("cpu", (WORLD,))
    out = []
    for shape, placement in (((5, 3), dt.Shard(0)), ((4, 3), dt.Shard(1)), ((1, 2), dt.Shard(0)),
                             ((4, 6), dt.Replicate()), ((3, 4, 5), dt.Shard(-1))):
        shape_, offset = utils.compute_local_shape_and_global_offset(shape, mesh, [placement])
        out.append([list(shape_), list(offset)])
    return out


def collective_checks():
    checks = {}
    for dtype in ("float32", "float64", "bfloat16", "int64", "bool"):
        for op in ("SUM", "AVG", "MIN", "MAX", "PRODUCT"):
            checks[f"all_reduce_{op}_{dtype}"] = all_reduce_check(op, dtype)
    for fn in (broadcast, all_gather, all_gather_into_tensor, reduce_scatter_tensor,
               all_to_all_single, scatter, gather, reduce, object_collectives,
               barrier_and_queries, new_group, async_work, send_recv, all_to_all_list,
               reduce_scatter_list, dtensor, functional_collectives, local_shape_and_offset):
        checks[fn.__name__] = fn
    return checks


# ------------------------------------------------------------------ DDP
def _mlp(T, rank):
    """Linear(6, 8) - Tanh - Linear(8, 3); rank 1 starts from different weights (DDP copies
    rank 0's at construction)."""
    model = T.nn.Sequential(T.nn.Linear(6, 8), T.nn.Tanh(), T.nn.Linear(8, 3))
    rng = np.random.default_rng(7 + 50 * rank)
    with T.no_grad():
        for p in model.parameters():
            p.copy_(T.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=T.float32))
    return model


def _batch(T, rank, step):
    rng = np.random.default_rng(1000 + 10 * step + rank)
    x = T.tensor(rng.standard_normal((5, 6)), dtype=T.float32)
    y = T.tensor(rng.standard_normal((5, 3)), dtype=T.float32)
    return x, y


def _steps(T, F, model, opt, rank, steps):
    """``steps`` training steps on this rank's batches; the losses."""
    losses = []
    for step in range(steps):
        x, y = _batch(T, rank, step)
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def _train(T, D, F, rank, opt_name, steps):
    model = T.nn.parallel.DistributedDataParallel(_mlp(T, rank))
    if opt_name == "sgd":
        opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    else:
        opt = T.optim.Adam(model.parameters(), lr=0.01)
    losses = _steps(T, F, model, opt, rank, steps)
    return [losses, [p.detach() for p in model.parameters()]]


def ddp_sgd_momentum(T, D, F, rank):
    return _train(T, D, F, rank, "sgd", 20)


def ddp_adam(T, D, F, rank):
    return _train(T, D, F, rank, "adam", 20)


def ddp_no_sync(T, D, F, rank):
    model = T.nn.parallel.DistributedDataParallel(_mlp(T, rank))
    x0, y0 = _batch(T, rank, 0)
    x1, y1 = _batch(T, rank, 1)
    with model.no_sync():
        F.mse_loss(model(x0), y0).backward()
    local = [p.grad.clone() for p in model.parameters()]
    F.mse_loss(model(x1), y1).backward()
    return [local, [p.grad for p in model.parameters()]]


def ddp_state_dict(T, D, F, rank):
    model = T.nn.parallel.DistributedDataParallel(_mlp(T, rank))
    sd = model.state_dict()
    return [list(sd.keys()), list(sd.values()), type(model.module).__name__]


def _with_unused(T, rank):
    class WithUnused(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.net, self.unused = _mlp(T, rank), T.nn.Linear(3, 3)

        def forward(self, x):
            return self.net(x)

    model = WithUnused()
    with T.no_grad():  # the same values in both libraries
        for p in model.unused.parameters():
            p.copy_(T.full(tuple(p.shape), 0.25))
    return model


def ddp_unused_parameter(T, D, F, rank):
    model = T.nn.parallel.DistributedDataParallel(_with_unused(T, rank))
    x, y = _batch(T, rank, 0)
    F.mse_loss(model(x), y).backward()
    try:
        model(x)
    except RuntimeError as e:
        return ["RuntimeError", str(e)]
    return "no error"


def ddp_find_unused_parameters(T, D, F, rank):
    """find_unused_parameters=True: two steps run; the unused parameter keeps no gradient."""
    model = T.nn.parallel.DistributedDataParallel(_with_unused(T, rank),
                                                  find_unused_parameters=True)
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    losses = _steps(T, F, model, opt, rank, 2)
    return [losses, [p.grad is None for p in model.parameters()],
            [p.detach() for p in model.parameters()]]


def ddp_batchnorm_buffers(T, D, F, rank):
    """BatchNorm1d's running statistics: rank 0's are broadcast before every forward
    (broadcast_buffers=True); each rank's batch statistics differ."""
    net = T.nn.Sequential(T.nn.Linear(6, 4), T.nn.BatchNorm1d(4), T.nn.Linear(4, 3))
    rng = np.random.default_rng(11 + rank)
    with T.no_grad():
        for p in net.parameters():
            p.copy_(T.tensor(rng.standard_normal(tuple(p.shape)), dtype=T.float32))
    model = T.nn.parallel.DistributedDataParallel(net)
    losses = _steps(T, F, model, T.optim.SGD(model.parameters(), lr=0.05), rank, 3)
    return [losses, list(model.state_dict().values())]


def ddp_compiled_step(T, D, F, rank):
    """jtorch: the whole step (forward, backward, all-reduce, SGD) under jtorch.compile; torch:
    the same step eagerly."""
    model = T.nn.parallel.DistributedDataParallel(_mlp(T, rank))
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    def step(x, y):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss

    if T is jtorch:
        step = jtorch.compile(step, fullgraph=True)  # a failed trace raises
    losses = [step(*_batch(T, rank, i)).item() for i in range(4)]
    return [losses, [p.detach() for p in model.parameters()]]


def ddp_checkpoint(T, D, F, rank):
    """Rank 0 saves the DDP model's module state dict after 3 steps; after a barrier both
    ranks load it into a model that started from other weights and train on (DDP, 3 steps)."""
    model = T.nn.parallel.DistributedDataParallel(_mlp(T, rank))
    _steps(T, F, model, T.optim.SGD(model.parameters(), lr=0.1), rank, 3)
    path = os.path.join(OUT_DIR[0], f"checkpoint_{T.__name__}.pt")
    if rank == 0:
        T.save(model.module.state_dict(), path)
    D.barrier()
    fresh = _mlp(T, 5)
    fresh.load_state_dict(T.load(path))
    loaded = list(fresh.state_dict().values())
    resumed = T.nn.parallel.DistributedDataParallel(fresh)
    losses = _steps(T, F, resumed, T.optim.SGD(resumed.parameters(), lr=0.1), rank, 3)
    return [loaded, losses, [p.detach() for p in resumed.parameters()]]


def fsdp_fully_shard(T, D, F, rank, reshard_after_forward=None):
    """FSDP2 over the two ranks (each layer, then the root), SGD with momentum, then the full
    state dict gathered on every rank."""
    fsdp, state = FSDP[T]
    model = _mlp(T, 0)  # FSDP does not broadcast: every rank starts from the same weights
    for m in (model[0], model[2], model):
        fsdp.fully_shard(m, reshard_after_forward=reshard_after_forward)
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = _steps(T, F, model, opt, rank, 4)
    sd = state.get_model_state_dict(model, options=state.StateDictOptions(full_state_dict=True))
    return [losses, list(sd), list(sd.values())]


def _fsdp1(T, rank, opt_name, steps, **kw):
    """FSDP1 over the two ranks, the first layer wrapped by itself, then the whole model; from
    rank 0's weights of _mlp (so that the losses equal DDP's, which broadcasts them), the
    optimizer of _train; then the flat gradients of a no_sync() backward and a synchronized
    one, the full state dict (on every rank and rank 0 only), the flat parameters' names and
    shapes."""
    fsdp, _ = FSDP[T]
    wrap = fsdp.FullyShardedDataParallel
    net = _mlp(T, 0)
    net[0] = wrap(net[0], device_id=T.device("cpu"), **kw)
    model = wrap(net, device_id=T.device("cpu"), **kw)
    if opt_name == "sgd":
        opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    else:
        opt = T.optim.Adam(model.parameters(), lr=0.01)
    F = F_OF[T]
    losses = _steps(T, F, model, opt, rank, steps)
    opt.zero_grad()
    x0, y0 = _batch(T, rank, 0)
    x1, y1 = _batch(T, rank, 1)
    with model.no_sync():   # accumulated locally, reduced with the next backward
        F.mse_loss(model(x0), y0).backward()
    F.mse_loss(model(x1), y1).backward()
    grads = [p.grad for p in model.parameters()]
    sd = model.state_dict()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)   # torch: state_dict_type is deprecated
        with wrap.state_dict_type(model, fsdp.StateDictType.FULL_STATE_DICT,
                                  fsdp.FullStateDictConfig(rank0_only=True)):
            rank0 = model.state_dict()
    return [losses, list(sd), list(sd.values()), list(rank0), list(rank0.values()),
            [[n, list(p.shape)] for n, p in model.named_parameters()],
            type(model.module).__name__, grads]


def fsdp1_sgd(T, D, F, rank):
    return _fsdp1(T, rank, "sgd", 10)


def fsdp1_adam(T, D, F, rank):
    return _fsdp1(T, rank, "adam", 10)


def fsdp1_errors(T, D, F, rank):
    """What FSDP1 refuses on a CPU-only machine: no device_id; sync_module_states with CPU
    tensors."""
    wrap = FSDP[T][0].FullyShardedDataParallel
    errors = []
    for kw in ({}, {"device_id": T.device("cpu"), "sync_module_states": True}):
        try:
            wrap(_mlp(T, 0), **kw)
            errors.append("no error")
        except (RuntimeError, ValueError) as e:
            errors.append([type(e).__name__, str(e)])
    return errors


def fsdp1_no_shard(T, D, F, rank):
    fsdp, _ = FSDP[T]
    return _fsdp1(T, rank, "sgd", 3, sharding_strategy=fsdp.ShardingStrategy.NO_SHARD)


def fsdp_no_reshard_after_forward(T, D, F, rank):
    """As fsdp_fully_shard, the full parameters kept from forward to backward: resharded
    after backward, so each forward gathers the chunks the last step updated."""
    return fsdp_fully_shard(T, D, F, rank, reshard_after_forward=False)


DDP_CHECKS = {fn.__name__: fn for fn in (ddp_sgd_momentum, ddp_adam, ddp_no_sync,
                                         ddp_state_dict, ddp_unused_parameter,
                                         ddp_find_unused_parameters,
                                         ddp_batchnorm_buffers, ddp_compiled_step,
                                         ddp_checkpoint,
                                         fsdp_fully_shard, fsdp_no_reshard_after_forward,
                                         fsdp1_sgd, fsdp1_adam, fsdp1_no_shard, fsdp1_errors)}


# ------------------------------------------------------------------ init_method / store
def _init_kwargs(lib, mode, rank, out_dir, ports):
    D = LIBS[lib][1]
    if mode == "init_method_file":
        return {"init_method": f"file://{out_dir}/init_{lib}"}
    if mode == "store_file":
        return {"store": D.FileStore(os.path.join(out_dir, f"store_{lib}"), WORLD)}
    return {"store": D.TCPStore("127.0.0.1", ports[lib], WORLD, rank == 0)}


REINIT_MODES = ("init_method_file", "store_file", "store_tcp")


def reinit_checks(rank, out_dir, ports):
    """After destroy_process_group, init_process_group again in each of REINIT_MODES (both
    libraries), then an all_reduce and a barrier. jtorch's JAX runtime, started by the first
    init, is reused: what runs anew is the rendezvous (the file, the store) and the group."""
    results = {}
    for mode in REINIT_MODES:
        results[mode] = {}
        for lib in LIBS:
            D = LIBS[lib][1]
            D.destroy_process_group()
            D.init_process_group("gloo", rank=rank, world_size=WORLD,
                                 timeout=timedelta(seconds=60),
                                 **_init_kwargs(lib, mode, rank, out_dir, ports))
            results[mode][lib] = _run(lambda T, D, F, r: [
                all_reduce_check("SUM", "float32")(T, D, F, r), D.barrier(), D.get_rank(),
                D.get_world_size(), str(D.get_backend())], lib, rank)
    return results


# ------------------------------------------------------------------ driver
def _run(fn, lib, rank):
    T, D, F = LIBS[lib]
    try:
        return {"ok": _plain(fn(T, D, F, rank))}
    except Exception as e:  # recorded and compared with the other library's
        return {"err": [type(e).__name__, (str(e).strip().splitlines() or [""])[0]]}


def main():
    rank, torch_port, jtorch_port, out_dir, torch_port2 = (
        int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
    OUT_DIR[0] = out_dir
    results = {"before_init": {
        lib: _run(lambda T, D, F, r: D.get_rank(), lib, rank) for lib in LIBS}}
    timeout = timedelta(seconds=60)
    tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{torch_port}", rank=rank,
                             world_size=WORLD, timeout=timeout)
    jdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{jtorch_port}", rank=rank,
                             world_size=WORLD, timeout=timeout)
    only = os.environ.get("DIST_CHECKS")
    for name, fn in {**collective_checks(), **DDP_CHECKS}.items():
        if only and name not in only.split(","):
            continue
        results[name] = {lib: _run(fn, lib, rank) for lib in LIBS}
    # jtorch only (gloo aborts the process on mismatched sizes): every rank raises
    results["mismatched_shapes"] = _run(lambda T, D, F, r: D.all_reduce(T.ones(2 + r)),
                                        "jtorch", rank)
    results["after_mismatch"] = _run(all_reduce_check("SUM", "float32"), "jtorch", rank)
    if not only or "reinit" in only.split(","):
        results.update(reinit_checks(rank, out_dir, {"torch": torch_port2,
                                                     "jtorch": jtorch_port}))
    tdist.barrier()
    jdist.barrier()
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump(results, f)
    tdist.destroy_process_group()
    if rank == 1:  # a dead peer: gone without a word
        os._exit(0)
    time.sleep(1.0)
    start = time.monotonic()
    dead = _run(lambda T, D, F, r: D.all_reduce(T.ones(3)), "jtorch", rank)
    dead["seconds"] = time.monotonic() - start
    with open(os.path.join(out_dir, "dead_peer.json"), "w") as f:
        json.dump(dead, f)
    # a normal exit: the failed collective marked this process failed, so it leaves without
    # waiting for the dead peer in JAX's shutdown barrier (exit status 1)


if __name__ == "__main__":
    main()
