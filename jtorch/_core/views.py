"""Views over immutable arrays, and in-place writes (``x.add_(y)``, ``out=``, writes through
views).

A jax.Array cannot be written to. A view (see strides.py for its link fields) reads its base's
storage: reading one after its base changed re-derives it (``refresh``: the view chain run on
the base, one cached jitted call). An in-place op computes its result out of place, then
``assign`` rebinds the tensor; for a view, the new values are scattered into the base through an
index map computed by running the same chain over ``arange(base.numel())`` inside the jitted
kernel (constant-folded by XLA), so one mechanism serves every view op and dtype, and it is
differentiable (PyTorch's ``CopySlices``).
"""

from __future__ import annotations

import copy
import gc
import re

import jax
import jax.numpy as jnp

from . import dtypes, saved_hooks, torch_function
from .autocast import without_autocast
from .dispatch import _tensor_like_call, dispatch
from .graph import register_assign, rename_node
from .kernel import OpDef
from .state import STATE, grad_mode
from .strides import contiguous_strides, strides
from .tensor_base import TensorBase, instance_dict, register_view_refresh, storage_root


def _compose(chain, x):
    for kernel, idx in chain:
        x = kernel.body(x)
        if idx is not None:
            x = x[idx]
    return x


def _view_chain(input, chain):
    return _compose(chain, input)


def _view_write(base, value, chain):
    kinds = _link_kinds(base, chain)
    if "resize" in kinds:
        return _view_write_resized(base, value, chain, kinds)
    if "parts" in kinds and "bitcast" in kinds:
        raise NotImplementedError("jtorch does not implement writing through a view(dtype) "
                                  "view of a view_as_real or view_as_complex view")
    if "parts" in kinds:
        return _view_write_by_parts(base, value, chain)
    # the positions move through the links that rearrange elements (a bitcast moves none)
    moving = tuple(link for link, kind in zip(chain, kinds) if kind == "plain")
    idx = _compose(moving, jnp.arange(base.size).reshape(base.shape))
    value = jnp.broadcast_to(jnp.asarray(value), idx.shape)
    if "bitcast" in kinds and jnp.bool_ not in (value.dtype, base.dtype):
        value = jax.lax.bitcast_convert_type(value, base.dtype)   # the view's bits are the base's
    value = jnp.asarray(value, base.dtype)
    return base.ravel().at[idx.ravel()].set(value.ravel()).reshape(base.shape)


def _view_write_resized(base, value, chain, kinds):
    """``_view_write`` through a ``view(dtype)`` to another element size (schedulefree swaps
    tensors by XOR through ``x.view(torch.uint8)``): ``value`` is written into that link's
    whole result through the links after it, whose bytes are read back in the dtype before
    it (the same bitcast the other way) and written into the base through the links before
    it."""
    i = len(kinds) - 1 - kinds[::-1].index("resize")
    before = _compose(chain[:i], base)
    resized = _compose(chain[i:i + 1], before)
    if i + 1 < len(chain):
        resized = _view_write(resized, value, chain[i + 1:])
    else:
        resized = jnp.broadcast_to(jnp.asarray(value).astype(resized.dtype), resized.shape)
    if before.dtype.itemsize > resized.dtype.itemsize:   # (..., n * r) -> (..., n)
        r = before.dtype.itemsize // resized.dtype.itemsize
        back = jax.lax.bitcast_convert_type(resized.reshape(resized.shape[:-1] + (-1, r)),
                                            before.dtype)
    else:   # (..., n) -> (..., n * r)
        back = jax.lax.bitcast_convert_type(resized, before.dtype)
        back = back.reshape(resized.shape[:-1] + (-1,))
    return _view_write(base, back, chain[:i]) if i else back


def _link_kinds(base, chain):
    """Per link of ``chain``, decided from dtypes alone at trace time: ``"plain"`` (elements
    rearranged), ``"parts"`` (complex elements read as real pairs or back: ``view_as_real``,
    ``view_as_complex``), ``"bitcast"`` (``view(dtype)`` to a dtype of the same size) or
    ``"resize"`` (``view(dtype)`` to another element size)."""
    kinds = []
    x = jax.ShapeDtypeStruct(base.shape, base.dtype)
    for kernel, idx in chain:
        y = jax.eval_shape(kernel.body, x)
        y = y if idx is None else y[idx]
        if jnp.iscomplexobj(y) != jnp.iscomplexobj(x):   # (view(dtype) refuses complex)
            kinds.append("parts")
        elif y.dtype != x.dtype:
            kinds.append("bitcast" if y.dtype.itemsize == x.dtype.itemsize else "resize")
        else:
            kinds.append("plain")
        x = y
    return kinds


def _view_write_by_parts(base, value, chain):
    """``_view_write`` for a chain that reinterprets complex elements as real pairs: positions
    count real parts (a complex element at position ``p`` is the reals ``2p`` and ``2p + 1``),
    carried through the chain as float64 (a complex position holds its two real positions as
    its real and imaginary parts, exact below 2**53), and the values are scattered into the
    base seen as reals."""
    n = base.size
    if jnp.iscomplexobj(base):
        first = jnp.arange(n, dtype=jnp.float64) * 2
        pos = jax.lax.complex(first, first + 1).reshape(base.shape)
        flat = jnp.stack([base.real, base.imag], axis=-1).ravel()
    else:
        pos = jnp.arange(n, dtype=jnp.float64).reshape(base.shape)
        flat = base.ravel()
    pos = _compose(chain, pos)
    value = jnp.broadcast_to(jnp.asarray(value), pos.shape)
    if jnp.iscomplexobj(pos):
        flat = flat.at[pos.real.astype(jnp.int64).ravel()].set(
            value.real.astype(flat.dtype).ravel())
        flat = flat.at[pos.imag.astype(jnp.int64).ravel()].set(
            value.imag.astype(flat.dtype).ravel())
    else:
        flat = flat.at[pos.astype(jnp.int64).ravel()].set(value.astype(flat.dtype).ravel())
    if jnp.iscomplexobj(base):
        pairs = flat.reshape(base.shape + (2,))
        return jax.lax.complex(pairs[..., 0], pairs[..., 1])
    return flat.reshape(base.shape)


VIEW_CHAIN = OpDef("as_strided", _view_chain, grad_name="AsStridedBackward0", saves=False)
VIEW_WRITE = OpDef("copy_slices", _view_write, tensors=("base", "value"),
                   grad_name="CopySlices", saves=False)


def refresh(v):
    """Re-derive view ``v`` from its base, which was written to since ``v`` was read."""
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


def swap_array(t, array):
    """Give base tensor ``t`` the array ``array`` that stands for the same values (a compiled
    trace's stand-in, the value put back after it, a compiled program's pass-through output):
    its views re-derive, but its autograd version stays, so a node that saved ``t`` does not
    see it as modified in place (PyTorch's torch.compile leaves the parameters it does not
    write untouched)."""
    t._array = array
    t._version_counter += 1
    t._data_writes += 1


def storage_alias(t, value=None):
    """A new tensor viewing t's storage with t's shape and strides (``data_ptr()`` equal), no
    autograd history: what a custom Function returns for an input or a view of one."""
    a = TensorBase._make(t._value if value is None else value, t._device)
    base = storage_root(t)
    a._base = base
    base._has_views = True
    a._chain = t._chain
    a._layout = t._layout if t._base is not None else strides(t)
    a._base_version = base._version_counter
    a._overlap = t._overlap
    return a


def detached_alias(t, share_version=False):
    """``t.detach()`` / ``t.data``: shares t's storage, carries no autograd history (under a
    JAX transform, e.g. torch.func.grad, no derivative either: stop_gradient on a tracer)."""
    v = t._value
    a = storage_alias(t, jax.lax.stop_gradient(v) if isinstance(v, jax.core.Tracer) else v)
    a._detached = a._detach_alias = True
    if not share_version:
        a._data_alias = True
    return a


# ------------------------------------------------------------------------------ in-place view ops
def take_view_metadata(t, make_view, grad_name):
    """``t.unsqueeze_(0)`` and the other in-place view ops: ``t`` takes the shape, strides and
    autograd history of ``make_view()``, the view of ``t`` that the out-of-place op makes;
    the storage stays where it is. A view ``t`` just gets the longer chain. A tensor that
    owns its storage keeps owning it when no view of it was ever made and its new strides
    are the contiguous ones; otherwise its storage moves to a new owner holding its old
    array (the views of it are found among the garbage collector's referrers, once, and
    re-pointed there: their chains start from the old shape) and ``t`` becomes a view of
    that owner. The version counter is bumped, as PyTorch's, and the recorded node is named
    ``grad_name`` (PyTorch's names for the in-place forms)."""
    had_views = t._has_views
    r = make_view()
    base = t._base
    views = _live_views(t, r) if base is None and had_views else ()
    # an owner keeps its storage only where its new strides are the contiguous ones (a
    # storage owner's strides always are): t_ of a matrix makes it a view of a new owner
    if base is None and not views and \
            strides(r) == (contiguous_strides(tuple(r._array.shape)), 0):
        t._has_views = had_views   # (r, made here, is dropped)
        t._array = r._array
        t._version_counter += 1
    else:
        if base is None:
            base = _new_storage_owner(t, views)
        t._base, t._chain, t._layout, t._overlap = base, r._chain, r._layout, r._overlap
        t._array = r._array
        base._version_counter += 1
        t._base_version = base._version_counter
    if r._requires_grad and not t._detached:
        t._node, t._out_idx, t._requires_grad = r._node, r._out_idx, True
        rename_node(r._node, grad_name)
    return t


def has_live_views(t):
    """Whether views of storage owner ``t`` are alive (a garbage-collector scan, only when a
    view of it was ever made)."""
    if t._has_views and not _live_views(t, None):
        t._has_views = False
    return t._has_views


def _live_views(t, r):
    """The views of storage owner ``t`` still alive, ``r`` left out."""
    found = []
    for o in gc.get_referrers(t):
        if isinstance(o, dict) and o.get("_base") is t:   # a view whose __dict__ was made
            o = next((x for x in gc.get_referrers(o) if getattr(x, "__dict__", None) is o),
                     None)
        if isinstance(o, TensorBase) and o._base is t and o is not r:
            found.append(o)
    return found


def _new_storage_owner(t, views):
    if t._requires_grad and t._node is None:
        raise NotImplementedError("jtorch does not implement an in-place view op (unsqueeze_, "
                                  "transpose_...) on a leaf tensor that requires grad and has "
                                  "views; call it on a clone, or before making the views")
    owner = TensorBase._make(t._array, t._device)
    owner._version_counter, owner._data_writes = t._version_counter, t._data_writes
    owner._node, owner._out_idx, owner._requires_grad = t._node, t._out_idx, t._requires_grad
    owner._has_views = True
    for v in views:
        v._base = owner
    t._version_counter = t._data_writes = 0
    return owner


# ------------------------------------------------------------------------------ in-place
def check_inplace(t):
    """PyTorch's refusals of in-place ops on leaves that require grad (and their views)."""
    if not STATE.grad_enabled:
        return
    b = t._base
    if t._custom_fn_view and t._node is not None and not t._detached:
        raise RuntimeError(f"Output {t._out_idx} of {_node_stem(t)} is a view and is being "
                           "modified inplace. This view was created inside a custom Function "
                           "(or because an input was returned as-is) and the autograd logic to "
                           "handle view+inplace would override the custom backward associated "
                           "with the custom Function, leading to incorrect gradients. This "
                           "behavior is forbidden. You can fix this by cloning the output of "
                           "the custom Function.")
    if b is not None and not t._detached and t._node is not None and \
            any(i is not None for _, i in t._chain):
        # a view out of split/chunk/unbind (or a view of one) that requires grad
        raise RuntimeError(f"Output {t._out_idx} of {_node_stem(t)} is a view and is being "
                           "modified inplace. This view is the output of a function that returns "
                           "multiple views. Such functions do not allow the output views to be "
                           "modified inplace. You should replace the inplace operation by an "
                           "out-of-place one.")
    if b is not None and not t._detached and b._node is None and t._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    if t._node is None and t._requires_grad:   # also x.detach().requires_grad_(), a leaf alias
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def _node_stem(t):
    """The name of t's autograd node without "Backward<n>" (PyTorch's error texts)."""
    return re.sub(r"Backward\d*$", "", t._node.name())


def check_inplace_through_view(t):
    """check_inplace for an op that PyTorch runs as a write into a view of ``t`` (``t[0] = v``,
    ``fill_diagonal_``): on a leaf that requires grad its error names the view."""
    if STATE.grad_enabled and t._base is None and t._node is None and t._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    check_inplace(t)


def _cast_for(t, res):
    rd, td = res.dtype, t.dtype
    if rd is not td:
        if not dtypes.can_cast(rd, td):
            raise RuntimeError(f"result type {rd.scalar_name} can't be cast to the "
                               f"desired output type {td.scalar_name}")
        res = res.to(td)
    return res


def assign(t, res, *, resize=False):
    """Rebind tensor ``t`` to the values (and autograd history) of ``res``, in place."""
    if t._overlap:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    if res._array.shape != t._array.shape and not resize:
        raise RuntimeError(f"output with shape {list(t._array.shape)} doesn't match the "
                           f"broadcast shape {list(res._array.shape)}")
    res = _cast_for(t, res)
    if STATE.trace is not None:
        STATE.trace.touched(t)
    record = res._node is not None
    base = t._base
    if base is None:
        t._array = res._value
        t._version_counter += 1
        if t._sparse is not None:   # a sparse tensor (s += s2): its indices and values too
            t._sparse, t._requires_grad = res._sparse, res._requires_grad
    else:
        if not t._chain:
            base._array = res._value
        else:
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
    if record:   # a detach()ed alias too: its own history starts here (its base's does not)
        t._node, t._out_idx, t._requires_grad = res._node, res._out_idx, True
    if _FORWARD_GRAD_ASSIGN[0] is not None:   # a forward AD level is open
        _FORWARD_GRAD_ASSIGN[0](t, res)


# torch.autograd.forward_ad registers ``hook(t, res)`` while a level is open: an in-place
# write passes the result's tangent on (None otherwise)
_FORWARD_GRAD_ASSIGN = [None]


def register_forward_grad_assign(hook):
    _FORWARD_GRAD_ASSIGN[0] = hook


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

register_assign(assign)


# ------------------------------------------------------------------ the in-place and out= forms
def inplace_call(t, opdef, args, kwargs):
    """``Tensor.<op>_``: compute out of place, then rebind ``t`` (writing through views)."""
    check_inplace(t)
    if torch_function.ACTIVE[0] and type(t) is not torch_function.PLAIN[0] and \
            torch_function.takes_part(type(t)) and not torch_function.is_disabled():
        # an in-place op on a subclass's instance is answered by its method's
        # __torch_function__ (Tensor.add_); the op itself runs without the protocol
        with torch_function.DisableTorchFunctionSubclass():
            return inplace_call(t, opdef, args, kwargs)
    if STATE.saved_hooks:   # the node packs t's value before the write, not t
        with saved_hooks.writing(t):
            res = without_autocast(dispatch, opdef, (t, *args), kwargs)
    else:
        res = without_autocast(dispatch, opdef, (t, *args), kwargs)  # PyTorch: no autocast
    node = res._node
    if node is not None and node.saved:
        # the node keeps t's pre-write array itself, so t's own write does not invalidate it
        node.saved = [(s, v) for s, v in node.saved if s is not t]
    assign(t, res)
    if node is not None and node.saved_out is not None:
        node.save_outputs((t,))  # t itself is now the saved output (exp_, relu_...)
    return t


def dispatch_out(opdef, args, kwargs, out):
    """The ``out=`` form: compute, then write into ``out`` (resizing it as PyTorch does)."""
    if not isinstance(out, (TensorBase, tuple, list)):   # a TensorDict: its __torch_function__
        return _tensor_like_call(opdef, args, {**kwargs, "out": out})
    res = without_autocast(dispatch, opdef, args, kwargs)  # out= forms do not autocast
    if isinstance(out, (tuple, list)):
        for o, r in zip(out, res):
            assign_out(o, r)
        return opdef.returns(*out) if opdef.returns else tuple(out)
    assign_out(out, res)
    return out


# fields of a tensor that a deep copy does not carry over (storage links, graph, hooks)
_NOT_COPIED = frozenset({"_array", "_device", "_base", "_chain", "_base_version", "_layout",
                         "_node", "_acc", "_hooks", "_grad", "_version_counter", "_detached",
                         "_overlap", "_post_hooks", "_untyped_storage", "_has_views"})


def deepcopy_tensor(t, memo):
    if not t.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                           "the deepcopy protocol at the moment.  If you were attempting to "
                           "deepcopy a module, this may be because of a torch.nn.utils.weight_"
                           "norm usage, see https://github.com/pytorch/pytorch/pull/103001")
    new = TensorBase._make(t._value, t._device)
    new.__class__ = type(t)
    fields = instance_dict(new)
    for k, v in list(instance_dict(t).items()):   # (a deep copy may add a field to t)
        if k not in _NOT_COPIED:
            fields[k] = copy.deepcopy(v, memo)
    if t._grad is not None:
        new._grad = deepcopy_tensor(t._grad, memo)
    memo[id(t)] = new
    return new
