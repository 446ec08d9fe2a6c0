"""torch.distributed._functional_collectives: collectives that return a new tensor instead of
writing into their argument (``all_reduce(t, "sum", group)``), and ``wait_tensor``.

Each runs jtorch's in-place collective (jtorch/distributed/collectives.py) on a copy. jtorch's
collectives finish before they return, so ``wait_tensor`` returns its argument. ``group`` is
a ``ProcessGroup``, a one-dimensional ``DeviceMesh`` or a ``(mesh, mesh_dim)`` pair; rank
lists and group names raise NotImplementedError. As in PyTorch, these forms record no
autograd history; the ``*_autograd``, ``*_coalesced`` and ``*_inplace`` variants and
``permute_tensor`` are stand-ins that raise NotImplementedError.
"""

from __future__ import annotations

from .._core.errors import missing_class, missing_function, not_implemented
from .._ops.shape_copy import cat
from .._ops.shape_slice import chunk
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import collectives
from .device_mesh import DeviceMesh
from .process_group import ProcessGroup, ReduceOp

__all__ = ["all_gather_tensor", "all_reduce", "all_to_all_single", "broadcast",
           "reduce_scatter_tensor", "wait_tensor"]

_OPS = {"sum": ReduceOp.SUM, "avg": ReduceOp.AVG, "product": ReduceOp.PRODUCT,
        "min": ReduceOp.MIN, "max": ReduceOp.MAX, "band": ReduceOp.BAND,
        "bor": ReduceOp.BOR, "bxor": ReduceOp.BXOR}


def _group(group):
    if isinstance(group, ProcessGroup):
        return group
    if isinstance(group, DeviceMesh):
        return group.get_group()
    if isinstance(group, tuple) and len(group) == 2 and isinstance(group[0], DeviceMesh):
        return group[0].get_group(group[1])
    raise not_implemented("torch.distributed._functional_collectives with a group given as "
                          f"{type(group).__name__} (pass a ProcessGroup or a DeviceMesh)")


def _op(reduce_op):
    name = reduce_op.lower() if isinstance(reduce_op, str) else reduce_op
    if name not in _OPS:
        raise ValueError(f"Unrecognized reduce_op {reduce_op!r}")
    return _OPS[name]


def wait_tensor(tensor: Tensor) -> Tensor:
    """``tensor``: jtorch's collectives are complete when they return."""
    return tensor


def all_reduce(self: Tensor, reduceOp: str, group, tag: str = "") -> Tensor:  # noqa: N803
    """``self`` reduced over ``group`` with ``reduceOp`` ("sum", "avg", "max", ...), as a
    new tensor."""
    with no_grad():
        out = self.clone()
        collectives.all_reduce(out, _op(reduceOp), group=_group(group))
    return out


def all_gather_tensor(self: Tensor, gather_dim: int, group, tag: str = "") -> Tensor:
    """Every rank's ``self`` concatenated along ``gather_dim``."""
    pg = _group(group)
    n = pg.size()
    with no_grad():
        rows = self.contiguous()
        out = rows.new_empty((n * rows.shape[0],) + tuple(rows.shape[1:]))
        collectives.all_gather_into_tensor(out, rows, group=pg)
        return out if gather_dim == 0 else cat(chunk(out, n, 0), gather_dim)


def reduce_scatter_tensor(self: Tensor, reduceOp: str, scatter_dim: int, group,  # noqa: N803
                          tag: str = "") -> Tensor:
    """``self`` reduced over ``group``; this rank's part of it along ``scatter_dim``."""
    pg = _group(group)
    n = pg.size()
    if self.size(scatter_dim) % n != 0:
        raise AssertionError(f"input dimension 0 ({self.size(scatter_dim)} must be a multiple "
                             f"of group_size {n})")
    with no_grad():
        rows = self if scatter_dim == 0 else cat(chunk(self, n, scatter_dim), 0)
        rows = rows.contiguous()
        out = rows.new_empty((rows.shape[0] // n,) + tuple(rows.shape[1:]))
        collectives.reduce_scatter_tensor(out, rows, _op(reduceOp), group=pg)
    return out


def all_to_all_single(self: Tensor, output_split_sizes, input_split_sizes, group,
                      tag: str = "") -> Tensor:
    """Rank ``i`` sends its ``j``-th slice of ``self`` (along dim 0) to rank ``j``; the
    slices received, concatenated."""
    pg = _group(group)
    rows = (sum(output_split_sizes) if output_split_sizes is not None else self.shape[0])
    with no_grad():
        out = self.new_empty((rows,) + tuple(self.shape[1:]))
        collectives.all_to_all_single(out, self.contiguous(), output_split_sizes,
                                      input_split_sizes, group=pg)
    return out


def broadcast(self: Tensor, src: int, group, tag: str = "") -> Tensor:
    """Rank ``src``'s ``self`` on every rank, as a new tensor."""
    with no_grad():
        out = self.clone()
        collectives.broadcast(out, src, group=_group(group))
    return out


# the rest of PyTorch's module: stand-ins that raise NotImplementedError when called or made
# (libraries import them at module level)
AsyncCollectiveTensor = missing_class(
    "torch.distributed._functional_collectives.AsyncCollectiveTensor")
for _name in ("all_gather_into_tensor_coalesced", "all_gather_tensor_autograd",
              "all_gather_tensor_inplace", "all_reduce_coalesced", "all_reduce_inplace",
              "all_to_all_single_autograd", "permute_tensor", "reduce_scatter_tensor_autograd",
              "reduce_scatter_tensor_coalesced", "reduce_scatter_tensor_inplace"):
    globals()[_name] = missing_function(f"torch.distributed._functional_collectives.{_name}")
del _name
