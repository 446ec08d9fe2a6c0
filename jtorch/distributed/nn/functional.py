"""torch.distributed.nn.functional: collectives that return a new tensor and record autograd
history, as PyTorch's do (its ``autograd.Function`` classes, on jtorch's in-place
collectives in jtorch/distributed/collectives.py).

``all_reduce``'s gradient is the same all-reduce of the incoming gradient; ``broadcast``'s is
the sum of the gradients reduced to ``src`` (zero elsewhere); ``reduce``'s is the gradient
broadcast from ``dst``; ``all_gather``'s is this rank's slice of the summed gradients. Each
warns, as PyTorch does, that it is deprecated in favour of
``torch.distributed._functional_collectives``. ``gather``, ``scatter``, ``reduce_scatter``,
``all_to_all`` and ``all_to_all_single`` are stand-ins that raise NotImplementedError.
"""

from __future__ import annotations

import warnings

from ..._core.errors import missing_function
from ..._ops.shape_copy import stack
from ...autograd.function import Function
from .. import collectives
from ..c10d import get_rank, get_world_size
from ..process_group import ReduceOp, group

__all__ = ["all_gather", "all_reduce", "all_to_all", "all_to_all_single", "broadcast",
           "gather", "reduce", "reduce_scatter", "scatter"]


def _deprecated(name, suggestion):
    warnings.warn(f"torch.distributed.nn.functional.{name} is deprecated, use "
                  f"torch.distributed._functional_collectives.{suggestion} instead.",
                  category=FutureWarning, stacklevel=3)


def broadcast(tensor, src, group=group.WORLD):
    """Rank ``src``'s ``tensor`` on every rank of ``group``, as a new tensor."""
    _deprecated("broadcast", "broadcast")
    return _Broadcast.apply(src, group, tensor)


def reduce(tensor, dst, op=ReduceOp.SUM, group=group.WORLD):
    """``tensor`` reduced with ``op`` over ``group`` on rank ``dst`` (a copy of ``tensor``
    elsewhere), as a new tensor."""
    _deprecated("reduce", "reduce")
    return _Reduce.apply(dst, op, group, tensor)


def all_gather(tensor, group=group.WORLD):
    """Every rank's ``tensor``, as a tuple in rank order."""
    _deprecated("all_gather", "all_gather_single")
    return _AllGather.apply(group, tensor)


def all_reduce(tensor, op=ReduceOp.SUM, group=group.WORLD):
    """``tensor`` reduced with ``op`` over ``group``, as a new tensor (the same on every
    rank)."""
    _deprecated("all_reduce", "all_reduce")
    return _AllReduce.apply(op, group, tensor)


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src, ctx.group, ctx.rank = src, group, get_rank(group=group)
        tensor = tensor.clone()
        collectives.broadcast(tensor, src, group=group)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        gx = _Reduce.apply(ctx.src, ReduceOp.SUM, ctx.group, grad_output)
        if ctx.src != ctx.rank:
            gx.zero_()
        return None, None, gx


class _Reduce(Function):
    @staticmethod
    def forward(ctx, src, op, group, tensor):
        ctx.src, ctx.group = src, group
        tensor = tensor.clone()
        collectives.reduce(tensor, src, op=op, group=group)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, None, _Broadcast.apply(ctx.src, ctx.group, grad_output)


class _AllGather(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        tensor = tensor.contiguous()
        ctx.group = group
        out = [tensor.new_empty(tensor.shape) for _ in range(get_world_size(group=group))]
        collectives.all_gather(out, tensor, group=group)
        return tuple(out)

    @staticmethod
    def backward(ctx, *grad_outputs):
        summed = _AllReduce.apply(ReduceOp.SUM, ctx.group, stack(grad_outputs))
        return None, summed[get_rank(group=ctx.group)]


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        ctx.group, ctx.op = group, op
        tensor = tensor.clone().contiguous()
        collectives.all_reduce(tensor, op=op, group=group)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, _AllReduce.apply(ctx.op, ctx.group, grad_output)


_INSTEAD = "torch.distributed._functional_collectives"
all_to_all = missing_function("torch.distributed.nn.functional.all_to_all", _INSTEAD)
all_to_all_single = missing_function("torch.distributed.nn.functional.all_to_all_single",
                                     _INSTEAD)
gather = missing_function("torch.distributed.nn.functional.gather", _INSTEAD)
reduce_scatter = missing_function("torch.distributed.nn.functional.reduce_scatter", _INSTEAD)
scatter = missing_function("torch.distributed.nn.functional.scatter", _INSTEAD)
