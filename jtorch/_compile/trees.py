"""The call's arguments and the program's outputs as pytrees of Tensors: flattening them,
their guard spec, and rebuilding outputs from the program's arrays."""

from __future__ import annotations

import jax

from .._tensor import Tensor
from ..utils import _pytree

# the place of a Tensor in the static part of a flattened output
TENSOR = object()


def is_leaf(x):
    return isinstance(x, Tensor) or x is None


def flatten(args, kwargs):
    return jax.tree_util.tree_flatten((args, kwargs), is_leaf=is_leaf)


def _static(x):
    try:
        hash(x)
        return x
    except TypeError:
        return ("id", id(x))


def spec(leaves):
    """The guard part of the inputs: each tensor's shape, dtype, requires_grad and device, and
    each other value (by identity where it cannot be hashed)."""
    out = []
    for x in leaves:
        if isinstance(x, Tensor):
            v = x._value
            out.append((v.shape, v.dtype, x._requires_grad, x._device))
        else:
            out.append(_static(x))
    return tuple(out)


def flatten_output(out):
    """``(leaves, treedef)`` of an output. A container JAX does not open but
    ``torch.utils._pytree`` has registered (diffusers' ``BaseOutput``, transformers'
    ``ModelOutput``) makes the whole output a torch pytree (its treedef a ``TreeSpec``)."""
    out_leaves, out_tree = jax.tree_util.tree_flatten(out, is_leaf=is_leaf)
    if any(type(o) in _pytree.SUPPORTED_NODES for o in out_leaves):
        return _pytree.tree_flatten(out)
    return out_leaves, out_tree


def split_outputs(out):
    """``(arrays of the output tensors, treedef, static leaves)`` of a traced output."""
    out_leaves, out_tree = flatten_output(out)
    return ([o._value for o in out_leaves if isinstance(o, Tensor)], out_tree,
            [TENSOR if isinstance(o, Tensor) else o for o in out_leaves])


def rebuild(tree, static, tensors):
    """The output from its treedef, static leaves and the output Tensors, in order."""
    it = iter(tensors)
    leaves = [next(it) if s is TENSOR else s for s in static]
    if isinstance(tree, _pytree.TreeSpec):
        return _pytree.tree_unflatten(leaves, tree)
    return jax.tree_util.tree_unflatten(tree, leaves)
