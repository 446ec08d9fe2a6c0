"""The tensor collectives of ``torch.distributed``: ``all_reduce``, ``broadcast``, ``reduce``,
``all_gather``, ``all_gather_into_tensor``, ``reduce_scatter``, ``reduce_scatter_tensor``,
``all_to_all``, ``all_to_all_single``, ``scatter``, ``gather``, ``barrier``,
``monitored_barrier``.

Each runs as one XLA program over the group's mesh (jtorch/distributed/_programs.py) and
writes its result into the given tensors in place (views write through to their base), as
PyTorch does; with ``async_op=True`` it returns a finished :class:`Work`, else None. Calls
on a rank outside ``group`` warn and do nothing. Results equal PyTorch's gloo bit for bit
(two ranks: a sum is ``a + b`` either way; broadcast, gather and scatter move bits).

Differences from PyTorch: bool tensors reduce as logical or (SUM, MAX, BOR), and (PRODUCT,
MIN, BAND) or xor (BXOR), as gloo does; ranks that run different collectives, or the same
one with different shapes, all raise a ``RuntimeError`` naming both calls (PyTorch does this
only with ``TORCH_DISTRIBUTED_DEBUG=DETAIL``).
"""

from __future__ import annotations

import functools
import inspect
import operator
import time
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtypes as _dtypes
from .._ops.creation import place
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import _programs
from ._runtime import RUNTIME
from .c10d import default_group
from .process_group import AXIS, Backend, GroupMember, ReduceOp
from .work import Work

__all__ = [
    "all_gather", "all_gather_into_tensor", "all_reduce", "all_to_all", "all_to_all_single",
    "barrier", "broadcast", "gather", "monitored_barrier", "reduce", "reduce_scatter",
    "reduce_scatter_tensor", "scatter", "supports_complex",
]

_R = ReduceOp.RedOpType


# ------------------------------------------------------------------ arguments
def _invalid_argument(name, expected, got):
    """PyTorch's TypeError for collective argument ``name`` not of type ``expected``."""
    return TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                     f"{expected}\n             but got {got}")


def check_single_tensor(param, name):
    if not isinstance(param, Tensor):
        raise _invalid_argument(name, "torch.Tensor", f"{type(param)} instead.")


def check_tensor_list(param, name):
    if not isinstance(param, list):
        raise _invalid_argument(name, "List[torch.Tensor]", f"{type(param)} instead.")
    if not all(isinstance(p, Tensor) for p in param):
        raise _invalid_argument(name, "List[torch.Tensor]", f"{type(param)} with elements of "
                                f"type {[type(p) for p in param]}.")


def resolve_group(group, op_name):
    """The group to run on, or None (after PyTorch's warning) on a rank outside it."""
    if group is not None and group == GroupMember.NON_GROUP_MEMBER:
        rank = -1 if GroupMember.WORLD is None else GroupMember.WORLD.rank()
        warnings.warn(f"Running {op_name} on global rank {rank} which does not belong to the "
                      f"given group.", stacklevel=3)
        return None
    return default_group() if group is None else group


def _collective(**checks):
    """Decorator for a collective: checks its tensor arguments (``name=check_single_tensor``
    or ``name=check_tensor_list``, in PyTorch's order; an optional argument left None is not
    checked), then resolves ``group``, returning None on a rank outside it (after PyTorch's
    warning) as every collective does; the body gets the resolved group."""

    def decorate(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def collective(*args, **kwargs):
            try:
                call = signature.bind(*args, **kwargs)
            except TypeError:
                return fn(*args, **kwargs)   # a malformed call: Python's own error for it
            call.apply_defaults()
            given = call.arguments
            for name, check in checks.items():
                if given[name] is not None or signature.parameters[name].default is not None:
                    check(given[name], name)
            given["group"] = resolve_group(given["group"], fn.__name__)
            if given["group"] is None:
                return None
            return fn(*call.args, **call.kwargs)

        return collective

    return decorate


def group_rank(group, global_rank, group_rank_arg, what):
    """A root given as a global rank (``src``/``dst``) or a group rank (``group_src``...)."""
    if global_rank is not None and group_rank_arg is not None:
        raise ValueError(f"Can't specify both {what} and group_{what}")
    if group_rank_arg is not None:
        return group_rank_arg
    global_rank = 0 if global_rank is None else global_rank
    if global_rank not in group.ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return group.ranks.index(global_rank)


def _op(op):
    if isinstance(op, ReduceOp):
        return op.op
    if isinstance(op, _R):
        return op
    raise TypeError(f"(): incompatible function arguments. The reduction must be a "
                    f"torch.distributed.ReduceOp; invoked with: {op!r}")


def supports_complex(op) -> bool:
    return _op(op) not in (_R.MAX, _R.MIN, _R.PRODUCT, _R.BAND, _R.BOR, _R.BXOR)


def _check_reduction(t, op, name="all_reduce"):
    op = _op(op)
    if op == _R.PREMUL_SUM:
        raise TypeError("(): incompatible function arguments: ReduceOp.PREMUL_SUM is NCCL's "
                        "and needs torch.distributed._make_nccl_premul_sum")
    if t.is_complex() and not supports_complex(op):
        raise ValueError(f"{name} does not support {op} on complex tensors")
    category = t.dtype.category
    if op in (_R.BAND, _R.BOR, _R.BXOR) and category not in (_dtypes.INT, _dtypes.BOOL):
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if op == _R.AVG and category in (_dtypes.INT, _dtypes.BOOL):
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{t.dtype.scalar_name}")
    return op


def array(t):
    """The jax array holding ``t``'s value (a view's values)."""
    return t.__jax_array__()


def write(t, value):
    """Writes array ``value`` into tensor ``t`` in place (through a view into its base)."""
    with no_grad():
        t.copy_(place(value, t.device))


def _done(async_op, outputs):
    return Work(outputs) if async_op else None


def _run_into(target, async_op, group, kind, key, body, arrays, extra=0):
    """Runs the one-output collective program ``body`` (see ``_programs.run``), writes its
    result into ``target`` in place and returns what the collective returns."""
    (out,) = _programs.run(group, kind, key, body, arrays, extra=extra)
    write(target, out)
    return _done(async_op, [target])


# ------------------------------------------------------------------ program bodies
def reduce_body(x, op, n):
    """``x`` reduced over the ranks with ``op`` (inside a program)."""
    if x.dtype == jnp.bool_:
        if op == _R.BXOR:
            return (jax.lax.psum(x.astype(jnp.int32), AXIS) % 2).astype(jnp.bool_)
        u = x.astype(jnp.uint8)
        r = jax.lax.pmin(u, AXIS) if op in (_R.MIN, _R.PRODUCT, _R.BAND) else \
            jax.lax.pmax(u, AXIS)
        return r.astype(jnp.bool_)
    if op == _R.SUM:
        return jax.lax.psum(x, AXIS)
    if op == _R.AVG:
        return (jax.lax.psum(x, AXIS) / n).astype(x.dtype)
    if op == _R.MIN:
        return jax.lax.pmin(x, AXIS)
    if op == _R.MAX:
        return jax.lax.pmax(x, AXIS)
    fn = {_R.PRODUCT: operator.mul, _R.BAND: jnp.bitwise_and, _R.BOR: jnp.bitwise_or,
          _R.BXOR: jnp.bitwise_xor}[op]
    every = jax.lax.all_gather(x, AXIS)
    return functools.reduce(fn, [every[i] for i in range(n)])


def select_body(x, root):
    """Rank ``root``'s ``x``, bit for bit, on every rank."""
    return jax.lax.all_gather(x, AXIS)[root]


def mine_body(x):
    """This rank's row of ``x`` (one row per rank along dim 0)."""
    return jax.lax.dynamic_index_in_dim(x, jax.lax.axis_index(AXIS), 0, keepdims=False)


# ------------------------------------------------------------------ collectives
@_collective(tensor=check_single_tensor)
def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduces ``tensor`` over all ranks of ``group`` with ``op``; every rank gets the result
    in ``tensor`` (in place)."""
    op = _check_reduction(tensor, op)
    n = group.size()
    return _run_into(tensor, async_op, group, "ALLREDUCE", ("all_reduce", op),
                     lambda x: (reduce_body(x, op, n),), [array(tensor)], extra=int(op))


@_collective(tensors=lambda tensors, _: check_tensor_list(tensors, "tensor"))  # (as PyTorch)
def all_reduce_coalesced(tensors, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """``all_reduce`` of each tensor of ``tensors``, in one program."""
    ops = [_check_reduction(t, op) for t in tensors]
    n = group.size()
    outs = _programs.run(group, "ALLREDUCE_COALESCED", ("all_reduce_coalesced", ops[0]),
                         lambda *xs: tuple(reduce_body(x, ops[0], n) for x in xs),
                         [array(t) for t in tensors], extra=int(ops[0]))
    for t, v in zip(tensors, outs):
        write(t, v)
    return _done(async_op, tensors)


@_collective(tensor=check_single_tensor)
def broadcast(tensor, src=None, group=None, async_op: bool = False, group_src=None):
    """Copies rank ``src``'s ``tensor`` into every other rank's ``tensor``."""
    root = group_rank(group, src, group_src, "src")
    if not 0 <= root < group.size():
        raise RuntimeError(f"ProcessGroupGloo::broadcast: invalid root rank: {root}")
    return _run_into(tensor, async_op, group, "BROADCAST", ("broadcast", root),
                     lambda x: (select_body(x, root),), [array(tensor)], extra=root)


@_collective(tensor=check_single_tensor)
def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op: bool = False,
           group_dst=None):
    """Reduces ``tensor`` over all ranks with ``op``; only rank ``dst`` gets the result."""
    root = group_rank(group, dst, group_dst, "dst")
    if not 0 <= root < group.size():
        raise RuntimeError(f"ProcessGroupGloo::reduce: invalid root rank: {root}")
    op = _check_reduction(tensor, op, "reduce")
    n = group.size()
    (out,) = _programs.run(group, "REDUCE", ("reduce", op, root),
                           lambda x: (reduce_body(x, op, n),), [array(tensor)],
                           extra=int(op) * 1024 + root)
    if group.rank() == root:
        write(tensor, out)
    return _done(async_op, [tensor])


@_collective(tensor_list=check_tensor_list, tensor=check_single_tensor)
def all_gather(tensor_list, tensor, group=None, async_op: bool = False):
    """Gathers every rank's ``tensor`` into ``tensor_list`` (one tensor per rank) on every
    rank."""
    if len(tensor_list) != group.size():
        raise RuntimeError(f"ProcessGroupGloo::allgather: invalid output tensor list at index "
                           f"0; expected length {group.size()}, got {len(tensor_list)}")
    for t in tensor_list:
        if t.shape != tensor.shape or t.dtype != tensor.dtype:
            raise RuntimeError("ProcessGroupGloo::allgather: invalid tensor type or size at "
                               "output tensor list index 0")
    (every,) = _programs.run(group, "ALLGATHER", ("all_gather",),
                             lambda x: (jax.lax.all_gather(x, AXIS),), [array(tensor)])
    for i, t in enumerate(tensor_list):
        write(t, every[i])
    return _done(async_op, [tensor_list])


@_collective(input_tensor=check_single_tensor, output_tensor=check_single_tensor)
def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op: bool = False):
    """Gathers every rank's ``input_tensor`` into ``output_tensor``: concatenated along dim 0
    (``world_size * input.size(0)`` rows) or stacked (a new leading dim of
    ``world_size``)."""
    n = group.size()
    shape = tuple(input_tensor.shape)
    stacked = tuple(output_tensor.shape) == (n,) + shape
    if not stacked and (not shape or tuple(output_tensor.shape) != (n * shape[0],) + shape[1:]):
        raise ValueError("output tensor size must be equal to world_size times input tensor "
                         "size")
    if output_tensor.dtype != input_tensor.dtype:
        raise ValueError("output tensor must have the same type as input tensor")
    return _run_into(output_tensor, async_op, group, "_ALLGATHER_BASE",
                     ("all_gather_into_tensor", stacked),
                     lambda x: (jax.lax.all_gather(x, AXIS, tiled=not stacked),),
                     [array(input_tensor)])


def _reduce_scatter(kind, output, rows, op, group, async_op):
    """``rows`` (one row per rank, each of ``output``'s shape) reduced; this rank's row."""
    op = _check_reduction(output, op, "reduce_scatter")
    n = group.size()
    return _run_into(output, async_op, group, kind, (kind, op),
                     lambda x: (mine_body(reduce_body(x, op, n)),), [rows], extra=int(op))


@_collective(output=check_single_tensor, input=check_single_tensor)
def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduces ``input`` over the ranks with ``op`` and gives rank ``i`` the i-th of its
    ``world_size`` equal parts along dim 0 (``input`` concatenated or stacked)."""
    n = group.size()
    if input.numel() != n * output.numel():
        raise ValueError("input tensor must be the same size as output size times world size")
    if output.dtype != input.dtype:
        raise ValueError("input tensor must be the same type as the output tensor.")
    rows = array(input).reshape((n,) + tuple(output.shape))
    return _reduce_scatter("_REDUCE_SCATTER_BASE", output, rows, op, group, async_op)


@_collective(output=check_single_tensor, input_list=check_tensor_list)
def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduces each of ``input_list`` (one tensor per rank) over the ranks; rank ``i`` gets
    the reduction of ``input_list[i]`` in ``output``."""
    if len(input_list) != group.size():
        raise ValueError(f"reduce_scatter: input list must have {group.size()} tensors (one per "
                         f"rank), got {len(input_list)}")
    rows = jnp.stack([array(t).reshape(tuple(output.shape)) for t in input_list])
    return _reduce_scatter("REDUCE_SCATTER", output, rows, op, group, async_op)


@_collective(output=check_single_tensor, input=check_single_tensor)
def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op: bool = False):
    """Rank ``i`` sends its ``j``-th slice of ``input`` (along dim 0) to rank ``j``, which
    places it as its ``i``-th slice of ``output``; slices are equal unless the split sizes
    are given."""
    n = group.size()
    if output_split_sizes is None and input_split_sizes is None:
        if input.shape[0] % n or output.shape != input.shape:
            raise ValueError("Tensor's dim 0 does not divide equally across group size")
        return _run_into(
            output, async_op, group, "ALLTOALL_BASE", ("all_to_all_single",),
            lambda x: (jax.lax.all_to_all(x, AXIS, 0, 0, tiled=True),), [array(input)])
    rows = input.shape[0]
    splits_in = list(input_split_sizes) if input_split_sizes else [rows // n] * n
    every = np.asarray(_exchange_ints(group, splits_in))          # every[j] = rank j's splits
    me = group.rank()
    longest = int(every.sum(axis=1).max())
    x = array(input)
    padded = jnp.concatenate([x, jnp.zeros((longest - rows,) + x.shape[1:], x.dtype)]) \
        if longest > rows else x
    (gathered,) = _programs.run(group, "ALLTOALL_BASE", ("all_to_all_single_uneven",),
                                lambda v: (jax.lax.all_gather(v, AXIS),), [padded])
    pieces = [gathered[j, int(every[j, :me].sum()):int(every[j, :me + 1].sum())]
              for j in range(n)]
    write(output, jnp.concatenate(pieces))
    return _done(async_op, [output])


def _exchange_ints(group, values):
    """Every rank's list of ``len(values)`` ints (a small all-gather)."""
    (out,) = _programs.run(group, "ALLGATHER", ("exchange_ints",),
                           lambda v: (jax.lax.all_gather(v, AXIS),),
                           [jnp.asarray(np.asarray(values, np.int64))])
    return np.asarray(out)


@_collective(output_tensor_list=check_tensor_list, input_tensor_list=check_tensor_list)
def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op: bool = False):
    """Rank ``i`` sends ``input_tensor_list[j]`` to rank ``j``, which stores it in its
    ``output_tensor_list[i]``."""
    n = group.size()
    if len(input_tensor_list) != n or len(output_tensor_list) != n:
        raise ValueError(f"all_to_all: the tensor lists must have {n} tensors (one per rank)")
    sizes = [t.numel() for t in input_tensor_list]
    flat = jnp.concatenate([array(t).reshape(-1) for t in input_tensor_list])
    every = np.asarray(_exchange_ints(group, sizes))
    longest = int(every.sum(axis=1).max())
    padded = jnp.concatenate([flat, jnp.zeros((longest - flat.shape[0],), flat.dtype)]) \
        if longest > flat.shape[0] else flat
    (gathered,) = _programs.run(group, "ALLTOALL", ("all_to_all",),
                                lambda v: (jax.lax.all_gather(v, AXIS),), [padded])
    me = group.rank()
    for j, t in enumerate(output_tensor_list):
        start = int(every[j, :me].sum())
        write(t, gathered[j, start:start + int(every[j, me])].reshape(tuple(t.shape)))
    return _done(async_op, output_tensor_list)


@_collective(tensor=check_single_tensor, scatter_list=check_tensor_list)
def scatter(tensor, scatter_list=None, src=None, group=None, async_op: bool = False,
            group_src=None):
    """Rank ``src`` sends ``scatter_list[i]`` to rank ``i``, which receives it in
    ``tensor``."""
    root = group_rank(group, src, group_src, "src")
    n, me = group.size(), group.rank()
    shape = tuple(tensor.shape)
    if me == root:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        if len(scatter_list) != n:
            raise RuntimeError(f"ProcessGroupGloo::scatter: Incorrect input list size "
                               f"{len(scatter_list)}. Input list size should be {n}, same as "
                               f"size of the process group.")
        stacked = jnp.stack([array(t) for t in scatter_list])
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source "
                             "ranks.")
        stacked = jnp.zeros((n,) + shape, array(tensor).dtype)

    return _run_into(tensor, async_op, group, "SCATTER", ("scatter", root),
                     lambda x: (jax.lax.all_to_all(x, AXIS, 0, 0)[root],), [stacked],
                     extra=root)


@_collective(tensor=check_single_tensor, gather_list=check_tensor_list)
def gather(tensor, gather_list=None, dst=None, group=None, async_op: bool = False,
           group_dst=None):
    """Rank ``dst`` receives every rank's ``tensor`` in ``gather_list``."""
    root = group_rank(group, dst, group_dst, "dst")
    me = group.rank()
    if me == root:
        if not gather_list or len(gather_list) != group.size():
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    (every,) = _programs.run(group, "GATHER", ("gather", root),
                             lambda x: (jax.lax.all_gather(x, AXIS),), [array(tensor)],
                             extra=root)
    if me == root:
        for i, t in enumerate(gather_list):
            write(t, every[i])
    return _done(async_op, [gather_list] if gather_list else [])


@_collective()
def barrier(group=None, async_op: bool = False, device_ids=None):
    """Blocks until every rank of ``group`` reached this call."""
    _programs.run(group, "BARRIER", ("barrier",),
                  lambda x: (jax.lax.psum(x, AXIS),), [jnp.zeros((1,), jnp.int32)])
    return _done(async_op, [])


@_collective()
def monitored_barrier(group=None, timeout=None, wait_all_ranks: bool = False):
    """A barrier that names the ranks that did not reach it within ``timeout``: rank 0 waits
    for each of the others (through the coordinator's store), then releases them."""
    if group._get_backend_name() not in (Backend.GLOO, Backend.UNDEFINED):
        raise ValueError("monitored_barrier is only implemented for GLOO backend.")
    seconds = (timeout or group.timeout).total_seconds()
    group.seq += 1
    if group.size() == 1:
        return None
    base = f"jtorch/monitored_barrier/{group.name()}/{group.seq}"
    me = group.rank()
    if me != 0:
        RUNTIME.kv_set(f"{base}/{me}", b"1")
        RUNTIME.kv_get(f"{base}/release", seconds)
        return None
    missing = []
    deadline = time.monotonic() + seconds
    for r in range(1, group.size()):
        try:
            RUNTIME.kv_get(f"{base}/{r}", max(0.001, deadline - time.monotonic()))
        except RuntimeError:
            missing.append(group.ranks[r])
            if not wait_all_ranks:
                break
    if missing:
        ms = int(seconds * 1000)
        if wait_all_ranks:
            raise RuntimeError(f"Ranks {', '.join(map(str, missing))} failed to pass "
                               f"monitoredBarrier in {ms} ms")
        raise RuntimeError(f"Rank {missing[0]} failed to pass monitoredBarrier in {ms} ms")
    RUNTIME.kv_set(f"{base}/release", b"1")
    return None
