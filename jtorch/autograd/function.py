"""torch.autograd.Function: user-defined forward/backward, recorded as one Python node."""

from __future__ import annotations

import functools

from .grad_mode import state as grad_state
from .graph import FREED, Node, _node_class


class FunctionCtx:
    """The ``ctx`` passed to forward/backward."""

    def __init__(self):
        self._saved = ()
        self._saved_versions = ()
        self._freed = False
        self.needs_input_grad = ()
        self._non_diff = set()
        self.materialize_grads = True
        self._dirty = ()

    def save_for_backward(self, *tensors):
        self._saved = tensors
        self._saved_versions = tuple(None if t is None else t._version for t in tensors)

    @property
    def saved_tensors(self):
        from .graph import _modified_error

        if self._freed:
            raise RuntimeError(FREED)
        for t, v in zip(self._saved, self._saved_versions):
            if t is not None and t._version != v:
                raise _modified_error(t, v)
        return self._saved

    def mark_non_differentiable(self, *tensors):
        self._non_diff.update(id(t) for t in tensors)

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class PyNode(Node):
    """A grad_fn whose backward is Python code (autograd.Function, device copies...)."""

    def __init__(self, backward_fn, edges, n_out, ctx=None):
        self.backward_fn = backward_fn
        self.edges = edges
        self.diff = tuple(i for i, e in enumerate(edges) if e is not None)
        self.out_float = (True,) * n_out
        self.ctx = ctx
        self.saved = None
        self.freed = False
        self.out_meta = ()

    def apply(self, cts, create_graph):
        from .._creation import zeros
        from .._tensor import Tensor

        if self.freed:
            raise RuntimeError(FREED)
        grads = []
        for c, (shape, dtype, dev) in zip(cts, self.out_meta):
            if c is None and (self.ctx is None or self.ctx.materialize_grads):
                c = zeros(shape, dtype=dtype, device=dev)
            elif c is not None and not isinstance(c, Tensor):
                c = Tensor._make(c, dev)
            grads.append(c)
        res = self.backward_fn(*grads)
        res = res if isinstance(res, tuple) else (res,)
        n = len(self.edges)
        if len(res) < n:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                               f"gradients (expected {n}, got {len(res)})")
        out = []
        for i in self.diff:
            g = res[i]
            if g is not None and not isinstance(g, Tensor):
                raise TypeError(f"function {self.name()} returned a gradient different than "
                                f"None at position {i + 1}, but the corresponding forward "
                                "input was not a Variable")
            out.append(g if create_graph or g is None else g._value)
        return out

    def release(self):
        if self.ctx is not None:
            self.ctx._freed = True
            self.ctx._saved = ()


def _record_python(outputs, inputs, backward_fn, ctx=None, name="PyBackward"):
    """Attach a PyNode to ``outputs`` (Tensors) whose backward maps output grads to inputs."""
    edges = [t._edge() if t is not None and hasattr(t, "_rg") and t._rg else None
             for t in inputs]
    if not any(e is not None for e in edges):
        return None
    node = _node_class(name, PyNode)(backward_fn, edges, len(outputs), ctx)
    node.out_meta = tuple((tuple(o.shape), o.dtype, o._device) for o in outputs)
    for i, o in enumerate(outputs):
        o._node, o._out_idx, o._rg = node, i, True
    return node


class _FunctionMeta(type):
    def __init__(cls, name, bases, ns):
        super().__init__(name, bases, ns)
        cls._backward_name = name + "Backward"


class Function(metaclass=_FunctionMeta):
    """Base of user-defined differentiable operations: subclass and define ``forward`` and
    ``backward`` as static methods, then call ``MyFn.apply(*args)``."""

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

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        from .._tensor import Tensor

        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._rg and grad_state.enabled
                                     for a in args)
        uses_setup = cls.setup_context is not Function.setup_context
        prev = grad_state.enabled
        grad_state.enabled = False
        try:
            if uses_setup:
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        finally:
            grad_state.enabled = prev
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        wrapped = []
        for o in outs:
            if isinstance(o, Tensor):
                w = Tensor._make(o._value, o._device)
                if o._base is not None or any(o is a for a in args):
                    w = o.detach() if o._base is None else Tensor._make(o._value, o._device)
                wrapped.append(w)
            else:
                wrapped.append(o)
        if prev and any(ctx.needs_input_grad):
            diff_outs = [w for w, o in zip(wrapped, outs) if isinstance(w, Tensor)
                         and id(o) not in ctx._non_diff and w.dtype.category >= 2]
            backward = functools.partial(cls.backward, ctx)
            inputs = [a if isinstance(a, Tensor) else None for a in args]
            _record_python(diff_outs, inputs, backward, ctx, cls._backward_name)
        return wrapped[0] if single else tuple(wrapped)


def once_differentiable(fn):
    """Marks a backward as not twice differentiable: it runs with grad mode off."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = grad_state.enabled
        grad_state.enabled = False
        try:
            return fn(ctx, *args)
        finally:
            grad_state.enabled = prev

    return wrapper
