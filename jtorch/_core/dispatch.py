"""THE seam: unwrap -> cached jitted kernel (promotion inside) -> wrap -> record one node.

Per call this does one pass over the arguments to build a hashable key and a list of jit
arguments, one dict lookup, one jitted call and, when a gradient is needed, one Node. Nothing
here traces per call: kernels and their vjps are compiled once per (op, static arguments) and
jax.jit caches them per shapes/dtypes. Dtype promotion happens inside the traced kernel, where
dtypes are static, so it costs nothing at run time.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from . import dtypes
from .state import STATE
from .tensor_base import TensorBase


class _Marker:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


ARR = _Marker("ARR")          # an array slot that takes part in promotion
ARR_N = _Marker("ARR_N")      # an array slot outside promotion (indices, masks)
SCALAR = _Marker("SCALAR")    # a Python number in a tensor parameter: a dynamic 0-d value
_FLOAT = _Marker("FLOAT")     # tags static floats/bools so 1, 1.0 and True get distinct keys
_BOOL = _Marker("BOOL")
_SLICE = _Marker("SLICE")

_NUMBER = (bool, int, float, complex)


def _slot(a, tparam, vals, tens):
    """Template for one argument; appends its dynamic parts to vals/tens."""
    if isinstance(a, TensorBase):
        vals.append(a._value)
        tens.append(a)
        return ARR if tparam else ARR_N
    t = type(a)
    if t is int or t is float or t is bool or t is complex:
        if tparam:
            vals.append(a)
            tens.append(None)
            return SCALAR
        if t is float:
            return (_FLOAT, a)
        return (_BOOL, a) if t is bool else a
    if a is None or t is str:
        return a
    if t is list or t is tuple:
        return tuple([_slot(e, tparam, vals, tens) for e in a])
    if t is slice:
        return (_SLICE, _slot(a.start, False, vals, tens), _slot(a.stop, False, vals, tens),
                _slot(a.step, False, vals, tens))
    if isinstance(a, (jax.Array, _np_ndarray)) and not isinstance(a, _np_generic):
        vals.append(a)
        tens.append(None)
        return ARR if tparam else ARR_N
    if isinstance(a, _np_generic):
        return _slot(a.item(), tparam, vals, tens)
    return a


def _fill(t, it):
    """Rebuilds an argument from its template, taking dynamic values from the iterator."""
    if t is ARR or t is ARR_N or t is SCALAR:
        return next(it)
    if type(t) is tuple:
        if t and (t[0] is _FLOAT or t[0] is _BOOL):
            return t[1]
        if t and t[0] is _SLICE:
            return slice(_fill(t[1], it), _fill(t[2], it), _fill(t[3], it))
        return tuple(_fill(e, it) for e in t)
    return t


def _markers(t, out):
    """The slot markers of a template in order."""
    if t is ARR or t is ARR_N or t is SCALAR:
        out.append(t)
    elif type(t) is tuple:
        if t and (t[0] is _FLOAT or t[0] is _BOOL):
            return out
        for e in t:
            _markers(e, out)
    return out


def _category(x):
    dt = x.dtype
    return dtypes.from_np(dt).category


def promote_values(vals, promotable, scalar_slots, mode):
    """PyTorch's result dtype of the promotable values (inside a trace: dtypes are static)."""
    dims, zeros, scats = [], [], []
    for i in promotable:
        v = vals[i]
        if i in scalar_slots:
            scats.append(dtypes.scalar_category(v) if isinstance(v, _NUMBER) else _category(v))
        elif jnp.ndim(v) == 0:
            zeros.append(dtypes.from_np(v.dtype))
        else:
            dims.append(dtypes.from_np(v.dtype))
    if not (dims or zeros or scats):
        return None
    out = dtypes.result_type_from(dims, zeros, scats)
    if mode == "float" and out.category < dtypes.FLOAT:
        out = dtypes.get_default_dtype()
    return out


class Kernel:
    """One op with its static arguments fixed: a jitted forward and cached jitted vjps."""

    __slots__ = ("opdef", "key", "py", "fwd", "nondiff", "bwd", "_bwd_op", "grad_name")

    def __init__(self, opdef, key):
        self.opdef = opdef
        self.key = key
        targs, tkw = key[0], key[1]
        marks = []
        for a in targs:
            _markers(a, marks)
        for _, v in tkw:
            _markers(v, marks)
        promotable = tuple(i for i, m in enumerate(marks) if m is not ARR_N)
        scalar_slots = frozenset(i for i, m in enumerate(marks) if m is SCALAR)
        self.nondiff = frozenset(i for i, m in enumerate(marks) if m is not ARR) | scalar_slots
        fn, mode = opdef.fn, opdef.promote

        def py(*vals):
            if mode is not None:
                dt = promote_values(vals, promotable, scalar_slots, mode)
                if dt is not None:
                    vals = list(vals)
                    for i in promotable:
                        vals[i] = jnp.asarray(vals[i], dt.np)
            it = iter(vals)
            args = [_fill(a, it) for a in targs]
            kwargs = {k: _fill(v, it) for k, v in tkw}
            return fn(*args, **kwargs)

        if len(key) > 2:  # an autocast kernel: casts its inputs first (jtorch/amp/_policy.py)
            py = _amp_wrap(opdef, py, key, marks)
        self.py = py
        self.grad_name = opdef.grad_name
        if callable(self.grad_name):  # the name depends on static arguments (sum vs sum(dim))
            it = iter(marks)  # tensor slots are passed as their (non-None) markers
            self.grad_name = opdef.grad_name(*[_fill(a, it) for a in targs],
                                             **{k: _fill(v, it) for k, v in tkw})
        # keep_unused: a tensor whose values the body ignores (fill_, *_like, uniform_) still
        # decides the device the kernel runs on; pruned, its output lands on device 0
        self.fwd = jax.jit(py, keep_unused=True)
        self.bwd = {}
        self._bwd_op = {}

    def vjp_fn(self, diff):
        """(vals, cotangents) -> gradients of the slots in ``diff``; jitted, cached per diff."""
        f = self.bwd.get(diff)
        if f is None:
            f = jax.jit(self.make_vjp(diff))
            self.bwd[diff] = f
        return f

    def make_vjp(self, diff):
        py = self.py

        def vjp(vals, cts):
            def f(*d):
                full = list(vals)
                for i, x in zip(diff, d):
                    full[i] = x
                out = py(*full)
                outs = out if isinstance(out, (tuple, list)) else (out,)
                return tuple(o if _inexact(o) else None for o in outs)

            primal, pull = jax.vjp(f, *[vals[i] for i in diff])
            # cts holds one entry per float output only (Node.apply drops integer outputs)
            it = iter(cts)
            cts = tuple(None if p is None else
                        (jnp.zeros_like(p) if c is None else c.astype(p.dtype))
                        for p in primal for c in ((None,) if p is None else (next(it),)))
            return pull(cts)

        return vjp


def _inexact(o):
    return jnp.issubdtype(o.dtype, jnp.inexact)


def get_kernel(opdef, key):
    k = opdef.kernels.get(key)
    if k is None:
        k = Kernel(opdef, key)
        opdef.kernels[key] = k
    return k


# When a set, the names of the ops dispatched are added to it (the test suite uses this to
# report which ops its parity tests exercised: scripts/gen_ops_md.py).
RECORD = None


def dispatch(opdef, args, kwargs):
    """Run one op on jtorch Tensors: the only place that reads grad mode and records nodes."""
    if RECORD is not None:
        RECORD.add(opdef.name)
    if opdef.check is not None:
        opdef.check(*args, **kwargs)
    vals, tens, targs = [], [], []
    tparam = opdef.tensor_pos
    device = None
    for i, a in enumerate(args):
        if isinstance(a, TensorBase):  # the common case, inlined
            b = a._base
            fresh = b is None or a._base_version == b._version_counter
            vals.append(a._array if fresh else a._value)
            tens.append(a)
            targs.append(ARR if i in tparam else ARR_N)
            d = a._device
            if device is None:
                device = d
            elif d is not device and d != device:
                device = _device_conflict(device, d, a, tens, vals)
        else:
            targs.append(_slot(a, i in tparam, vals, tens))
    if kwargs:
        tn = opdef.tensors
        tkw = tuple([(k, _slot(v, k in tn, vals, tens)) for k, v in kwargs.items()])
        key = (tuple(targs), tkw)
        device = _check_devices(tens, vals)
    else:
        key = (tuple(targs), ())
        if device is None or len(tens) != len(args):   # tensors nested in tuples/lists
            device = _check_devices(tens, vals)
    if _AMP[0] is not None:  # autocast is on: the op's key may name its casts
        key = _amp_key(opdef, key, device)
    try:
        kernel = opdef.kernels[key]
    except KeyError:
        kernel = get_kernel(opdef, key)
    except TypeError:
        raise TypeError(f"{opdef.name}(): unsupported argument types "
                        f"{[type(a).__name__ for a in args]}") from None
    trace = STATE.trace
    if trace is not None:   # jtorch.compile is tracing: the inputs must be lifted state
        for t in tens:
            trace.touched(t)
    out = kernel.fwd(*vals)
    if STATE.grad_enabled and opdef.differentiable:
        nd = kernel.nondiff
        diff = tuple([i for i, t in enumerate(tens)
                      if t is not None and t._requires_grad and i not in nd])
        if diff:
            return wrap(out, _record(kernel, vals, tens, diff, out), device, kernel, tens)
    if not opdef.is_view and type(out) is not tuple and type(out) is not list:
        t = TensorBase._make(out, device)
        return t
    return wrap(out, None, device, kernel, tens)


def _check_devices(tens, vals):
    dev = None
    for t in tens:
        if t is not None:
            d = t._device
            if dev is None:
                dev = d
            elif d is not dev and d != dev:
                dev = _device_conflict(dev, d, t, tens, vals)
    return dev


def _device_conflict(a, b, t, tens, vals):
    """PyTorch's TensorIterator rule: the common device is the first one that is not the CPU
    (jtorch's extra host devices cpu:1, cpu:2... count as not the CPU); CPU tensors may join
    it only when 0-d, and are then copied there (through a differentiable copy, so their
    gradient comes back to the CPU). Returns the common device or raises PyTorch's error."""
    common = next((x._device for x in tens
                   if x is not None and (x._device.type != "cpu" or x._device.index)), a)
    for i, x in enumerate(tens):
        if x is None or x._device == common:
            continue
        d = x._device
        if d.type != "cpu" or d.index or x.ndim != 0:
            raise RuntimeError("Expected all tensors to be on the same device, but found at "
                               f"least two devices, {common} and {d}!")
        from .._ops.convert import to_device

        tens[i] = moved = to_device(x, common)
        vals[i] = moved._array
    return common


def _record(kernel, vals, tens, diff, out):
    return _Node.create(kernel, vals, tens, diff, out)


def wrap(out, node, device, kernel, tens):
    """Wrap kernel outputs as Tensors; float outputs of a recorded node get it as grad_fn."""
    opdef = kernel.opdef
    if isinstance(out, (tuple, list)):
        res = tuple(_wrap1(o, node, i, device) for i, o in enumerate(out))
        if opdef.is_view:
            for i, r in enumerate(res):
                _make_view(r, tens, kernel, i)
        if node is not None and node.saved_out is not None:
            node.save_outputs(res)  # saves="output": PyTorch's formula reads the outputs
        return opdef.returns(*res) if opdef.returns else res
    r = _wrap1(out, node, 0, device)
    if opdef.is_view:
        _make_view(r, tens, kernel, None)
    if node is not None and node.saved_out is not None:
        node.save_outputs((r,))
    return r


def _wrap1(o, node, i, device):
    t = TensorBase._make(o, device)
    if node is not None and node.out_float[i]:
        t._node = node
        t._out_idx = i
        t._requires_grad = True
    return t


def _make_view(r, tens, kernel, idx):
    from .views import attach_view

    attach_view(r, tens[0], kernel, idx)


def dispatch_out(opdef, args, kwargs, out):
    """The ``out=`` form: compute, then write into ``out`` (resizing it as PyTorch does)."""
    from .views import assign_out

    res = dispatch(opdef, args, kwargs) if _AMP[0] is None else \
        _amp_off(dispatch, opdef, args, kwargs)   # out= forms do not autocast (PyTorch)
    if isinstance(out, (tuple, list)):
        for o, r in zip(out, res):
            assign_out(o, r)
        return opdef.returns(*out) if opdef.returns else tuple(out)
    assign_out(out, res)
    return out


def inplace_call(t, opdef, args, kwargs):
    """``Tensor.<op>_``: compute out of place, then rebind ``t`` (writing through views)."""
    from .views import assign, check_inplace

    check_inplace(t)
    res = dispatch(opdef, (t, *args), kwargs) if _AMP[0] is None else \
        _amp_off(dispatch, opdef, (t, *args), kwargs)   # in-place forms do not autocast
    node = res._node
    if node is not None and node.saved:
        # the node keeps t's pre-write array itself, so t's own write does not invalidate it
        node.saved = [(s, v) for s, v in node.saved if s is not t]
    assign(t, res)
    if node is not None and node.saved_out is not None:
        node.save_outputs((t,))  # t itself is now the saved output (exp_, relu_...)
    return t


import numpy as _np  # noqa: E402

from .autocast import ACTIVE as _AMP  # noqa: E402
from .autocast import amp_key as _amp_key  # noqa: E402
from .autocast import amp_wrap as _amp_wrap  # noqa: E402
from .autocast import without_autocast as _amp_off  # noqa: E402
from .graph import Node as _Node  # noqa: E402

_np_ndarray = _np.ndarray
_np_generic = _np.generic
