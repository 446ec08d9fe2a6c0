"""THE seam: unwrap -> cached jitted kernel (promotion inside) -> wrap -> record one node.

``dispatch(opdef, args, kwargs)`` is the only code that unwraps tensors, checks devices, reads
grad mode and records autograd nodes. Per call it does one pass over the arguments to build the
call's key (see kernel.py) and the list of dynamic values, one dict lookup for the kernel, one
jitted call and, when a gradient is needed, one Node. Nothing here traces per call: kernels and
their vjps are compiled once per (op, key) and jax.jit caches them per shapes/dtypes. Dtype
promotion happens inside the traced kernel, where dtypes are static, so it costs nothing at run
time.
"""

from __future__ import annotations

import threading

import jax
from jax.errors import ConcretizationTypeError, TracerIntegerConversionError

from . import torch_function
from .autocast import ACTIVE as _AUTOCAST, autocast_key
from .device import placed_on, to_jax
from .graph import Node, register_dispatch
from .kernel import PROMOTED, UNPROMOTED, template
from .program_budget import BUDGET
from .state import STATE
from .strides import attach_view
from .tensor_base import ShapeOnlyStorage, TensorBase
from .torch_function import ACTIVE as _TORCH_FUNCTION
from .xla_options import at_top_level

# The one optional observer of op calls: None (the hot path pays one check), or a callable
# ``observer(opdef, args, kwargs, run)`` that returns the op's result by calling
# ``run(opdef, args, kwargs)`` once. Higher layers install one with :func:`set_observer`: the
# profiler (jtorch.autograd.profiler) and the test suite's op recorder (which parity tests
# exercised which ops: scripts/gen_ops_md.py). Every thread's ops are observed; ops that run
# inside an observed op on its thread (a device copy of an operand) are not observed apart.
OBSERVER = None


# Handlers of the storages without values, ``handler(opdef, args, kwargs)`` by the storage's
# class: they run an op one of whose tensors is sparse or on the meta device (its _array a
# ShapeOnlyStorage, which a kernel refuses with a TypeError), or raise PyTorch's error.
# Registered once each, by jtorch/_ops/sparse.py and jtorch/_ops/meta.py.
_STORAGE_HANDLERS = {}


def register_storage_handler(storage_class, handler):
    _STORAGE_HANDLERS[storage_class] = handler


class _Observing(threading.local):
    on = False   # this thread is inside an observed op


_OBSERVING = _Observing()


def set_observer(observer):
    """Install ``observer`` (or None) as the op observer; returns the previous one."""
    global OBSERVER
    prev, OBSERVER = OBSERVER, observer
    return prev


def _observed(opdef, args, kwargs):
    observer = OBSERVER
    _OBSERVING.on = True
    try:
        if observer is None:   # another thread removed it since dispatch looked
            return dispatch(opdef, args, kwargs)
        return observer(opdef, args, kwargs, dispatch)
    finally:
        _OBSERVING.on = False


def dispatch(opdef, args, kwargs):
    """Run one op on jtorch Tensors: the only place that reads grad mode and records nodes."""
    if OBSERVER is not None and not _OBSERVING.on:
        return _observed(opdef, args, kwargs)
    if opdef.check is not None:
        try:
            opdef.check(*args, **kwargs)
        except TypeError:   # (free when nothing is raised) NumPy's keywords: dim as axis
            renamed = opdef.torch_kwargs(kwargs)
            if renamed.keys() == kwargs.keys():
                raise
            opdef.check(*args, **renamed)
    vals, tens, targs = [], [], []
    tparam = opdef.tensor_pos
    device = None
    try:   # (free when nothing is raised)
        for i, a in enumerate(args):
            if isinstance(a, TensorBase):  # the common case, inlined
                b = a._base
                fresh = b is None or a._base_version == b._version_counter
                vals.append(a._array if fresh else a._value)
                tens.append(a)
                targs.append(PROMOTED if i in tparam else UNPROMOTED)
                d = a._device
                if device is None:
                    device = d
                elif d is not device and d != device:
                    device = _device_conflict(device, d, a, tens, vals)
            else:
                targs.append(template(a, i in tparam, vals, tens))
        if kwargs:
            tn = opdef.tensors
            tkw = tuple([(k, template(v, k in tn, vals, tens)) for k, v in kwargs.items()])
            key = (tuple(targs), tkw, None)
            device = _check_devices(tens, vals)
        else:
            key = (tuple(targs), (), None)
            if device is None or len(tens) != len(args):   # tensors nested in tuples/lists
                device = _check_devices(tens, vals)
    except torch_function.Foreign:   # an argument defining __torch_function__ (an FX Proxy)
        torch_function.FOREIGN[0] = True
        return _tensor_like_call(opdef, args, kwargs)
    if _TORCH_FUNCTION[0]:   # a Tensor subclass with __torch_function__ exists
        overloaded = torch_function.overloaded(tens)
        if overloaded:
            return _protocol_answer(opdef, overloaded, args, kwargs)
    if _AUTOCAST[0] is not None:  # autocast is on: the key may name the op's casts
        key = autocast_key(opdef, key, device)
    try:
        kernel = opdef.kernel_cache[key]
    except KeyError:
        kernel = opdef.kernel(key)
    except TypeError:   # an unhashable argument: a tensor-like with __torch_function__?
        return _tensor_like_call(opdef, args, kwargs)
    trace = STATE.trace
    if trace is not None:   # jtorch.compile is tracing: the inputs must be lifted state
        for t in tens:
            trace.touched(t)
        forward = kernel.forward
    else:
        if BUDGET.over:   # too many compiled programs mapped (program_budget)
            BUDGET.release()
        # eager at top level (the common case): the top-level jit at once
        forward = kernel.forward_top if at_top_level() else kernel.forward
    try:
        out = forward(*vals)
    except TypeError as e:   # (free when nothing is raised) a sparse or meta operand, or
        # a one-element tensor where the body needs a Python number
        for v in vals:
            if isinstance(v, ShapeOnlyStorage):
                return _STORAGE_HANDLERS[type(v)](opdef, args, kwargs)
        if isinstance(e, (ConcretizationTypeError, TracerIntegerConversionError)):
            as_ints = _index_arguments(opdef, args, kwargs)
            if as_ints is not None:
                return dispatch(opdef, *as_ints)
        raise
    except ValueError:   # (free when nothing is raised) JAX's "incompatible devices"
        if device is None or device.type == "meta" or not _follow_device(vals, tens, device):
            raise
        out = forward(*vals)
    if STATE.grad_enabled:
        if opdef.differentiable:
            nd = kernel.nondiff
            diff = tuple([i for i, t in enumerate(tens)
                          if t is not None and t._requires_grad and i not in nd])
            if diff:
                return wrap(out, Node.create(kernel, vals, tens, diff, out), device, kernel,
                            tens)
    elif STATE.grad_traces:   # torch.no_grad() inside torch.func.grad: constants to it
        out = jax.tree_util.tree_map(_constant_to_grad_traces, out)
    if not opdef.is_view and type(out) is not tuple and type(out) is not list:
        return TensorBase._make(out, device)
    return wrap(out, None, device, kernel, tens)


def _constant_to_grad_traces(x):
    """``x`` without a derivative to the reverse-mode ``torch.func`` transforms running
    (``STATE.grad_traces``), as PyTorch's ``torch.no_grad()`` inside them gives: where one of
    them traces ``x`` outermost, its value one level out (still traced by a forward-mode
    transform around, which PyTorch's no_grad does not stop); where one traces it deeper (a
    ``vmap`` inside ``grad``), ``stop_gradient``, which stops every level."""
    traces = STATE.grad_traces
    trace = getattr(x, "_trace", None)
    while trace is not None and any(trace is t for t in traces):
        x = x.primal
        trace = getattr(x, "_trace", None)
    inner = x
    while trace is not None:
        inner = getattr(inner, "primal", getattr(inner, "val", None))
        trace = getattr(inner, "_trace", None)
        if any(trace is t for t in traces):
            return jax.lax.stop_gradient(x)
    return x


def _as_index(a, tensor_param):
    """``a`` as PyTorch's argument parser reads it for an ``int`` parameter: a one-element
    integer (or bool) tensor is its Python int (``__index__``); for a ``Scalar`` one (``add``'s
    ``alpha``): a 0-d floating tensor without grad is its Python number; anything else
    unchanged."""
    if tensor_param:
        return a
    if isinstance(a, TensorBase):
        if a.is_floating_point() or a.is_complex():
            return a.item() if a.ndim == 0 and not a.requires_grad else a
        if a.numel() == 1:
            return int(a.item())
        return a
    if type(a) is tuple or type(a) is list:
        read = [_as_index(e, False) for e in a]
        return type(a)(read) if any(r is not e for r, e in zip(read, a)) else a
    return a


def _index_arguments(opdef, args, kwargs):
    """``(args, kwargs)`` with one-element integer tensors given to the op's non-tensor
    parameters read as Python ints (0-d floating ones as numbers), or None when there are
    none. A kernel traces such a tensor as a dynamic value, which fails (a concretization
    error) where the body needs the number itself (``kthvalue``'s ``k``, ``roll``'s
    ``shifts``, ``add``'s ``alpha``); PyTorch's parser takes its value."""
    tparam = opdef.tensor_pos
    new_args = tuple(_as_index(a, i in tparam) for i, a in enumerate(args))
    new_kwargs = {k: _as_index(v, k in opdef.tensors) for k, v in kwargs.items()}
    changed = any(a is not b for a, b in zip(args, new_args)) or \
        any(new_kwargs[k] is not v for k, v in kwargs.items())
    return (new_args, new_kwargs) if changed else None


def _tensor_like_call(opdef, args, kwargs):
    """A call with arguments that are not Tensors but define ``__torch_function__`` (an FX
    Proxy, a TensorDict) answered by the protocol, or the TypeError of an unknown argument."""
    duck = torch_function.tensor_likes(args, kwargs)
    if duck:
        return _protocol_answer(opdef, duck, args, kwargs)
    raise TypeError(f"{opdef.name}(): unsupported argument types "
                    f"{[type(a).__name__ for a in args]}") from None


def _protocol_answer(opdef, overloaded, args, kwargs):
    """The answer of the ``overloaded`` arguments' ``__torch_function__`` to a call of
    ``opdef``, given its public function and the arguments as PyTorch's hands them on."""
    fn = _public_function(opdef)
    args, kwargs = torch_function.handed_on(fn, args, kwargs)
    return torch_function.handle(fn, overloaded, args, kwargs, "torch." + opdef.name)


def _public_function(opdef):
    """The function ``__torch_function__`` is given for ``opdef``: the one publishing it, or
    for an op that is a piece of a public function, a function running it."""
    if opdef.public is None:
        def run(*args, **kwargs):
            return dispatch(opdef, args, kwargs)
        run.__name__ = run.__qualname__ = opdef.name
        opdef.public = run
    return opdef.public


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
            if "meta" in (a.type, b.type):   # (PyTorch's meta kernels word it so)
                raise RuntimeError(f"Tensor on device {b} is not on the expected device {a}!")
            raise RuntimeError("Expected all tensors to be on the same device, but found at "
                               f"least two devices, {common} and {d}!")
        tens[i] = moved = _device_copy(x, common)
        vals[i] = moved._array
    return common


def _follow_device(vals, tens, device):
    """Moves the arrays among an op's arguments that are not tensors (a random op's key)
    and are committed to another device than the op's tensors onto theirs (a key that a
    compiled program on a GPU gave back, read by an op on CPU tensors). Returns whether any
    moved."""
    target = to_jax(device)
    moved = False
    for i, (v, t) in enumerate(zip(vals, tens)):
        if t is None and (m := placed_on(v, target)) is not v:
            vals[i] = m
            moved = True
    return moved


def wrap(out, node, device, kernel, tens):
    """Wrap kernel outputs as Tensors; float outputs of a recorded node get it as grad_fn."""
    opdef = kernel.opdef
    if isinstance(out, (tuple, list)):
        res = tuple(_wrap1(o, node, i, device) for i, o in enumerate(out))
        if opdef.is_view:
            for i, r in enumerate(res):
                attach_view(r, tens[0], kernel, i)
        if node is not None and node.saved_out is not None:
            node.save_outputs(res)  # saves="output": PyTorch's formula reads the outputs
        return opdef.returns(*res) if opdef.returns else res
    r = _wrap1(out, node, 0, device)
    if opdef.is_view:
        attach_view(r, tens[0], kernel, None)
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


# ------------------------------------------------------------------ registered from above
def _device_copy(t, device):  # replaced by jtorch/_ops/convert.py at import
    raise RuntimeError("jtorch: device copies are not available before jtorch._ops is imported")


def register_device_copy(fn):
    """jtorch/_ops/convert.py registers the differentiable device copy (``to_device``)."""
    global _device_copy
    _device_copy = fn


register_dispatch(dispatch)
