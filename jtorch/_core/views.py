"""Views over immutable arrays, and in-place writes.

A view is a Tensor with ``_base`` (the tensor that owns the storage) and ``_chain``, the view
steps from the base: ``((Kernel, output index or None), ...)``. Reading a view after its base
changed re-derives it (``refresh``); writing to a view scatters the new values into the base
through an index map computed by running the same chain over ``arange(base.numel())`` inside
the jitted kernel (constant-folded by XLA), so one mechanism serves every view op and dtype.
"""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np

from .._ops._registry import OpDef
from . import dtypes
from .state import STATE, grad_mode
from .tensor_base import TensorBase, register_view_refresh


def _compose(chain, x):
    for kernel, idx in chain:
        x = kernel.py(x)
        if idx is not None:
            x = x[idx]
    return x


def _view_chain(input, chain):
    return _compose(chain, input)


def _view_write(base, value, chain):
    idx = _compose(chain, jnp.arange(base.size).reshape(base.shape))
    value = jnp.broadcast_to(jnp.asarray(value, base.dtype), idx.shape)
    return base.ravel().at[idx.ravel()].set(value.ravel()).reshape(base.shape)


VIEW_CHAIN = OpDef("as_strided", _view_chain, grad_name="AsStridedBackward0", saves=False)
VIEW_WRITE = OpDef("copy_slices", _view_write, tensors=("base", "value"),
                   grad_name="CopySlices", saves=False)


def attach_view(r, src, kernel, idx):
    """Make output ``r`` of view kernel ``kernel`` on ``src`` a view of src's storage."""
    base = src._base if src._base is not None else src
    r._base = base
    r._chain = src._chain + ((kernel, idx),)
    r._base_version = base._version_counter
    if src._detached:
        r._detached = True
        r._data_alias = src._data_alias
    if src._overlap or kernel.opdef.name in ("expand", "broadcast_to", "expand_as"):
        r._overlap = _zero_stride(r)


def _zero_stride(t):
    """PyTorch refuses in-place writes to a tensor with a stride-0 dim of size > 1 (its
    has_internal_overlap); expanding to the same size, or selecting one row, stays writable."""
    if 0 in t._array.shape:
        return False
    st, _ = strides(t)
    return any(s == 0 and n > 1 for s, n in zip(st, t._array.shape))


def refresh(v):
    """Re-derive view ``v`` from its base, which was written to since ``v`` was read."""
    from .dispatch import dispatch

    base = v._base
    record = base._requires_grad and not v._detached
    with grad_mode(record):
        r = dispatch(VIEW_CHAIN, (base,), {"chain": v._chain})
    if record:
        v._node, v._out_idx, v._requires_grad = r._node, 0, True
    elif not v._detached and v._node is not None:
        v._node, v._requires_grad = None, False
    v._array = r._array
    v._base_version = base._version_counter


register_view_refresh(refresh)

def detached_alias(t, share_version=False):
    """``t.detach()`` / ``t.data``: shares t's storage, carries no autograd history (under a
    JAX transform, e.g. torch.func.grad, no derivative either: stop_gradient on a tracer)."""
    v = t._value
    a = TensorBase._make(jax.lax.stop_gradient(v) if isinstance(v, jax.core.Tracer) else v,
                     t._device)
    base = t._base if t._base is not None else t
    a._base = base
    a._chain = t._chain
    a._base_version = base._version_counter
    a._detached = True
    a._overlap = t._overlap
    if not share_version:
        a._data_alias = True
    return a


# ------------------------------------------------------------------------------ in-place
_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half",
               "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "int16": "Short",
               "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
               "complex128": "ComplexDouble"}


def scalar_type_name(d):
    return _TYPE_NAMES[d.name]


def check_inplace(t):
    """PyTorch's refusals of in-place ops on leaves that require grad (and their views)."""
    if not STATE.grad_enabled:
        return
    b = t._base
    if b is not None and not t._detached and t._node is not None and \
            any(i is not None for _, i in t._chain):
        # a view out of split/chunk/unbind (or a view of one) that requires grad
        name = re.sub(r"Backward\d*$", "", t._node.name())
        raise RuntimeError(f"Output {t._out_idx} of {name} is a view and is being modified "
                           "inplace. This view is the output of a function that returns "
                           "multiple views. Such functions do not allow the output views to be "
                           "modified inplace. You should replace the inplace operation by an "
                           "out-of-place one.")
    if b is not None and not t._detached and b._node is None and t._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    if t._node is None and t._requires_grad:   # also x.detach().requires_grad_(), a leaf alias
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def _cast_for(t, res):
    rd, td = res.dtype, t.dtype
    if rd is not td:
        if not dtypes.can_cast(rd, td):
            raise RuntimeError(f"result type {scalar_type_name(rd)} can't be cast to the "
                               f"desired output type {scalar_type_name(td)}")
        res = res.to(td)
    return res




def assign(t, res, *, resize=False):
    """Rebind tensor ``t`` to the values (and autograd history) of ``res``, in place."""
    if t._overlap:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    if res._array.shape != t._array.shape and not resize:
        raise RuntimeError(f"output with shape {list(t._array.shape)} doesn't match the broadcast "
                           f"shape {list(res._array.shape)}")
    res = _cast_for(t, res)
    if STATE.trace is not None:
        STATE.trace.touched(t)
    record = res._node is not None
    base = t._base
    if base is None:
        t._array = res._value
        t._version_counter += 1
    else:
        if not t._chain:
            base._array = res._value
        else:
            from .dispatch import dispatch

            with grad_mode(STATE.grad_enabled and not t._detached):
                nb = dispatch(VIEW_WRITE, (base, res), {"chain": t._chain})
            base._array = nb._array
            if nb._node is not None:
                base._node, base._out_idx, base._requires_grad = nb._node, 0, True
        if t._data_alias:
            base._data_writes += 1  # a write through .data does not bump the owner's version
        base._version_counter += 1
        t._array = res._value
        t._base_version = base._version_counter
    if record and not t._detached:
        t._node, t._out_idx, t._requires_grad = res._node, res._out_idx, True


def assign_out(o, r):
    """Write result ``r`` into ``out=`` tensor ``o``, resizing it as PyTorch does."""
    if r._node is not None:
        name = r._node.kernel.opdef.name.rsplit(".", 1)[-1]
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    if o._array.shape != r._array.shape:
        if o._base is not None:
            raise RuntimeError(f"output with shape {list(o._array.shape)} doesn't match the "
                               f"broadcast shape {list(r._array.shape)}")
        assign(o, r, resize=True)
        return
    assign(o, r)


def deepcopy_tensor(t, memo):
    import copy

    if not t.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                           "the deepcopy protocol at the moment.  If you were attempting to "
                           "deepcopy a module, this may be because of a torch.nn.utils.weight_"
                           "norm usage, see https://github.com/pytorch/pytorch/pull/103001")
    new = TensorBase._make(t._value, t._device)
    if type(t) is not TensorBase:
        new.__class__ = type(t)
    for k, v in t.__dict__.items():
        if k not in ("_array", "_device", "_base", "_chain", "_base_version", "_node", "_acc",
                     "_hooks", "_grad", "_version_counter", "_detached", "_overlap",
                     "_post_hooks"):
            new.__dict__[k] = copy.deepcopy(v, memo)
    if t._grad is not None:
        new._grad = deepcopy_tensor(t._grad, memo)
    memo[id(t)] = new
    return new


# ------------------------------------------------------------------------------ strides
def contiguous_strides(shape):
    s, acc = [], 1
    for d in reversed(shape):
        s.append(acc)
        acc *= max(d, 1)
    return tuple(reversed(s))


def strides(t):
    """(strides, storage offset) of ``t`` as PyTorch reports them."""
    from .dispatch import _fill

    if t._base is None:
        return contiguous_strides(t._array.shape), 0
    b = t._base
    shape, st, off = tuple(b._array.shape), contiguous_strides(b._array.shape), 0
    x = b._array
    for kernel, idx in t._chain:
        out = kernel.py(x)
        out = out if idx is None else out[idx]
        rule = kernel.opdef.stride_rule
        targs, tkw = kernel.key
        it = iter([None] * 64)
        args = [_fill(a, it) for a in targs]
        kwargs = {k: _fill(v, it) for k, v in tkw}
        if rule is None:
            raise NotImplementedError(f"jtorch: stride() of a view made by "
                                      f"{kernel.opdef.name} is not implemented")
        st, off = rule(shape, st, off, tuple(out.shape), idx, *args[1:], **kwargs)
        shape, x = tuple(out.shape), out
    return tuple(st), off


def is_contiguous(t):
    if t._base is None or 0 in t._array.shape:
        return True
    st, _ = strides(t)
    expected = 1
    for size, s in zip(reversed(t._array.shape), reversed(st)):
        if size == 1:
            continue
        if s != expected:
            return False
        expected *= size
    return True


def view_strides(old_shape, old_strides, new_shape):
    """PyTorch's computeStride: strides for viewing (old_shape, old_strides) as new_shape,
    or None when that view is impossible without a copy."""
    numel = int(np.prod(old_shape, dtype=np.int64))
    if numel == 0:
        return contiguous_strides(new_shape) if old_shape != tuple(new_shape) else old_strides
    if not old_shape:  # a 0-d tensor views as anything of one element
        return (1,) * len(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = old_strides[-1] if old_strides else 1
    tensor_numel, view_numel = 1, 1
    for d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[d]
        if d == 0 or (old_shape[d - 1] != 1 and old_strides[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base = old_strides[d - 1]
                tensor_numel, view_numel = 1, 1
    if view_d != -1:
        return None
    return tuple(new_strides)

