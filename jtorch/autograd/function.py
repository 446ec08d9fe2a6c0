"""torch.autograd.Function: user-defined forward/backward, recorded as one Python node."""

from __future__ import annotations

import contextlib
import functools
import inspect
import warnings

from .._core import dtypes, saved_hooks
from .._core.graph import FREED, _modified_error
from .._core.hooks import increment_version
from .._core.python_node import record_python_node
from .._core.state import STATE, grad_mode, tape_off
from .._core.tensor_base import TensorBase
from .._core.views import storage_alias
from . import forward_ad as _fwad
from .function_transform import apply_under_transform, traced

# jtorch/func/_function_vmap.py registers ``rule(cls, args, kwargs)``: a Function's own vmap
# staticmethod when an input is batched at the innermost torch.func.vmap level (else it
# returns NotImplemented and the forward runs batched)
_VMAP_RULE = [None]


def register_vmap_rule(rule):
    _VMAP_RULE[0] = rule


class FunctionCtx:
    """The ``ctx`` passed to forward/backward (also reachable from the output's grad_fn)."""

    def __init__(self):
        self._saved = ()
        self._saved_versions = ()
        self._packed = None   # under saved_tensors_hooks: (unpack hook, packed per tensor)
        self._freed = False
        self.needs_input_grad = ()
        self._non_diff = ()
        self.materialize_grads = True
        self._dirty = ()

    def save_for_backward(self, *tensors):
        self._saved = tensors

    def save_for_forward(self, *tensors):
        self._saved_forward = tensors

    @property
    def saved_tensors(self):
        if self._freed:
            raise RuntimeError(FREED)
        if self._packed is not None:   # each access unpacks again, as in PyTorch
            unpack, packed = self._packed
            return tuple(None if p is None else saved_hooks.unpack_tensor(unpack, p[0])
                         for p in packed)
        for t, v in zip(self._saved, self._saved_versions):
            if t is not None and t._version != v:
                raise _modified_error(t, v)
        return self._saved

    def mark_non_differentiable(self, *tensors):
        self._non_diff = tensors

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)

    def _record_saved_versions(self, recorded):
        for i, t in enumerate(self._saved):
            if t is not None and not isinstance(t, TensorBase):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{i} is of type {type(t).__name__}")
        if recorded and STATE.saved_hooks and self._saved:
            # inside saved_tensors_hooks: the hooks hold the tensors (no version checks)
            pack = STATE.saved_hooks[-1][0]
            self._packed = (STATE.saved_hooks[-1][1],
                            tuple(None if t is None else (saved_hooks.pack_tensor(pack, t),)
                                  for t in self._saved))
            self._saved = ()
            return
        self._saved_versions = tuple(None if t is None else t._version for t in self._saved)


class _FunctionMeta(type):
    def __init__(cls, name, bases, ns):
        super().__init__(name, bases, ns)
        cls._backward_name = name + "Backward"


class Function(metaclass=_FunctionMeta):
    """Base of user-defined differentiable operations: subclass and define ``forward`` and
    ``backward`` as static methods, then call ``MyFn.apply(*args)``."""

    generate_vmap_rule = False

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd "
                      "functions are all static, so you should invoke them on the class "
                      "itself. Instantiating an autograd function will raise an error in a "
                      "future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method. (Example: https://pytorch.org/docs/stable/"
                           "autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward "
                                  "mode AD.")

    @staticmethod
    def vjp(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward "
                                  "mode AD.")

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError("To use autograd.Function with vmap, you must either "
                                  "override the vmap staticmethod or set "
                                  "generate_vmap_rule=True.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @classmethod
    def _user_backward(cls):
        has_bw, has_vjp = cls.backward is not Function.backward, cls.vjp is not Function.vjp
        if has_bw and has_vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is "
                               "not allowed. You should only implement one of them.")
        return cls.vjp if has_vjp else cls.backward

    @classmethod
    def apply(cls, *args, **kwargs):
        uses_setup = cls.setup_context is not Function.setup_context
        if uses_setup:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        record = STATE.grad_enabled and any(isinstance(a, TensorBase) and a._requires_grad
                                            for a in args)
        if not record and cls.vmap is not Function.vmap and _VMAP_RULE[0] is not None:
            out = _VMAP_RULE[0](cls, args, kwargs)   # its own vmap, inside torch.func.vmap
            if out is not NotImplemented:
                return out
        if uses_setup and not record and STATE.trace is None and traced(args):
            # under a torch.func (JAX) transform: its gradient is this Function's backward
            return apply_under_transform(cls, args, kwargs, FunctionCtx)
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(record and isinstance(a, TensorBase) and a._requires_grad
                                     for a in args)
        # forward-mode AD (PyTorch's): the forward runs without tangents and the outputs'
        # tangents are the user's jvp(ctx, *input tangents) (None for inputs without one)
        tangents = _input_tangents(args)
        no_tangents = _fwad._outside_forward_ad() if tangents else contextlib.nullcontext()
        with tape_off(), no_tangents:   # (under torch.func: JAX differentiates the forward)
            if uses_setup:
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(out, tuple)
        outs = _own_outputs((out,) if single else out, args, ctx._dirty, record)
        if tangents:
            _apply_jvp(cls, ctx, tangents, outs)
        if record:
            attach = {i for i, o in enumerate(outs) if isinstance(o, TensorBase)
                      and o.dtype.category >= dtypes.FLOAT and not _is_in(o, ctx._non_diff)}
            record_python_node(outs, args, functools.partial(cls._user_backward(), ctx), ctx,
                           cls._backward_name, attach)
        ctx._record_saved_versions(record)
        return outs[0] if single else outs


def _input_tangents(args):
    """The forward-mode tangents of ``args`` (None for each without one), or None when no
    dual level is open or no input has a tangent."""
    if _fwad._Level.current is None:
        return None
    tangents = [_fwad._tangent_of(a) if isinstance(a, TensorBase) else None for a in args]
    return tangents if any(t is not None for t in tangents) else None


def _apply_jvp(cls, ctx, tangents, outs):
    if cls.jvp is Function.jvp:
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")
    with grad_mode(False), _fwad._outside_forward_ad():
        res = cls.jvp(ctx, *tangents)
    res = res if isinstance(res, tuple) else (res,)
    tensor_outs = [o for o in outs if isinstance(o, TensorBase)]
    if len(res) != len(outs) and len(res) != len(tensor_outs):
        raise RuntimeError(f"jvp() should return as many values as there are outputs: "
                           f"{len(outs)} expected but got {len(res)}")
    pairs = zip(outs if len(res) == len(outs) else tensor_outs, res)
    for o, g in pairs:
        if isinstance(o, TensorBase) and isinstance(g, TensorBase):
            _fwad._set_tangent(o, g)


def _is_in(t, seq):
    return any(t is s for s in seq)


def _own_outputs(outs, args, dirty, record):
    """Outputs the Function's node can own: fresh tensors as they are; inputs and views as
    new views of their storage; repeats as new tensors; inputs marked dirty as themselves
    (rebased onto the node)."""
    res, seen = [], []
    for o in outs:
        if not isinstance(o, TensorBase):
            res.append(o)
            continue
        if _is_in(o, dirty):
            if record and o._node is None and o._requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                   "in-place operation.")
            increment_version(o)
        elif (_is_in(o, args) or o._base is not None) and not _is_in(o, seen):
            o = storage_alias(o)   # PyTorch's view of the input (same data_ptr)
            o._custom_fn_view = STATE.grad_enabled
        elif _is_in(o, seen) or o._node is not None:
            o = TensorBase._make(o._value, o._device)
        seen.append(o)
        res.append(o)
    return tuple(res)


def once_differentiable(fn):
    """Marks a backward as not twice differentiable: it runs with grad mode off, and a
    double backward through its results raises."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        recording = STATE.grad_enabled
        with grad_mode(False):
            outputs = fn(ctx, *args)
        if not recording or not any(isinstance(a, TensorBase) and a._requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        leaves = [o.detach().requires_grad_(True) if isinstance(o, TensorBase) else o for o in outs]
        wrapped = [TensorBase._make(o._value, o._device) if isinstance(o, TensorBase) else o
                   for o in leaves]

        def delayed_error(*grads):
            raise RuntimeError("trying to differentiate twice a function that was marked with "
                               "@once_differentiable")

        record_python_node(wrapped, leaves, delayed_error, name="Error")
        return wrapped[0] if single else tuple(wrapped)

    return wrapper


class InplaceFunction(Function):
    """Kept for backward compatibility, as in PyTorch."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace
