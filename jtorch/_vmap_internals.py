"""``torch._vmap_internals``: PyTorch's legacy vmap, which libraries still import for batched
gradients (pytorch-minimize maps ``autograd.grad`` over the rows of an identity with ``_vmap``
to build Hessians and Jacobians). Here it runs on ``torch.func.vmap``; its own checks (flat int
``out_dims``, outputs that are Tensors or tuples of Tensors, ``None`` outputs only with
``allow_none_pass_through``) are kept with PyTorch's messages."""

from __future__ import annotations

import functools
import warnings

from ._ops.creation import zeros as _zeros
from ._tensor import Tensor
from .func._vmap import _get_name, vmap as _func_vmap

__all__ = ["vmap"]


def _check_out_dims_is_int_or_int_tuple(out_dims, func):
    if isinstance(out_dims, int):
        return
    if not isinstance(out_dims, tuple) or not all(isinstance(d, int) for d in out_dims):
        raise ValueError(f"vmap({_get_name(func)}, ..., out_dims={out_dims}): `out_dims` must "
                         "be an int or a tuple of int representing where in the outputs the "
                         "vmapped dimension should appear.")


def _validate_outputs(outputs, func, allow_none):
    if isinstance(outputs, Tensor):
        return
    name = _get_name(func)
    if not isinstance(outputs, tuple):
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                         f"{type(outputs)} as the return.")
    for idx, output in enumerate(outputs):
        if not (isinstance(output, Tensor) or (allow_none and output is None)):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{type(output)} for return {idx}.")


def _vmap(func, in_dims=0, out_dims=0, allow_none_pass_through=False):
    """The legacy vmap without its deprecation warning (``allow_none_pass_through`` lets
    ``func`` return ``None`` in a tuple, as ``autograd.grad(..., allow_unused=True)`` does)."""

    @functools.wraps(func)
    def wrapped(*args):
        _check_out_dims_is_int_or_int_tuple(out_dims, func)
        nones = []   # the positions of None outputs: torch.func.vmap maps Tensors only

        def checked(*inner):
            outputs = func(*inner)
            _validate_outputs(outputs, func, allow_none_pass_through)
            if isinstance(outputs, Tensor) or not allow_none_pass_through:
                return outputs
            nones[:] = [i for i, out in enumerate(outputs) if out is None]
            # a stand-in with a dimension for every out_dim, dropped again below
            rank = max(out_dims) if isinstance(out_dims, tuple) and out_dims else out_dims
            return tuple(_zeros((1,) * max(rank, 0)) if out is None else out for out in outputs)

        outputs = _func_vmap(checked, in_dims, out_dims)(*args)
        if not nones:
            return outputs
        return tuple(None if i in nones else out for i, out in enumerate(outputs))

    return wrapped


def vmap(func, in_dims=0, out_dims=0):
    """Deprecated: PyTorch points to ``torch.vmap``."""
    warnings.warn("Please use `torch.vmap` instead of `torch._vmap_internals.vmap`.",
                  FutureWarning, stacklevel=2)
    return _vmap(func, in_dims, out_dims)
