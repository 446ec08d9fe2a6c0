"""torch.autograd.Function: user-defined forward/backward, recorded as one Python node."""

from __future__ import annotations

import functools
import inspect
import warnings

from .._core import dtypes
from .._core.graph import FREED, Node, _modified_error, _node_class
from .grad_mode import state as grad_state


class FunctionCtx:
    """The ``ctx`` passed to forward/backward (also reachable from the output's grad_fn)."""

    def __init__(self):
        self._saved = ()
        self._saved_versions = ()
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

    def _record_saved_versions(self):
        from .._tensor import Tensor

        for i, t in enumerate(self._saved):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{i} is of type {type(t).__name__}")
        self._saved_versions = tuple(None if t is None else t._version for t in self._saved)


class PyNode(Node):
    """A grad_fn whose backward is Python code (autograd.Function, device copies...).

    ``edges`` has one entry per tensor argument (``arg_pos`` gives their positions among all
    ``n_args`` arguments); ``out_meta`` one per output: (shape, dtype, device) or None.
    """

    def __init__(self, backward_fn, edges, arg_pos, n_args, in_shapes, out_meta, ctx=None):
        self.backward_fn = backward_fn
        self.edges = edges
        self.diff = tuple(i for i, e in enumerate(edges) if e is not None)
        self.arg_pos = arg_pos
        self.n_args = n_args
        self.in_shapes = in_shapes
        self.out_meta = out_meta
        self.out_float = (True,) * len(out_meta)
        self.ctx = ctx

    def __getattr__(self, name):   # PyTorch's grad_fn of a Function is its ctx
        ctx = self.__dict__.get("ctx")
        if ctx is None:
            raise AttributeError(name)
        return getattr(ctx, name)

    def apply(self, cts, create_graph):
        from .._ops.creation import zeros
        from .._tensor import Tensor

        materialize = self.ctx is None or self.ctx.materialize_grads
        grads = []
        for c, meta in zip(cts, self.out_meta):
            if meta is None:
                c = None
            elif c is None and materialize:
                c = zeros(meta[0], dtype=meta[1], device=meta[2])
            elif c is not None and not isinstance(c, Tensor):
                c = Tensor._make(c, meta[2])
            grads.append(c)
        res = self.backward_fn(*grads)
        res = res if isinstance(res, tuple) else (res,)
        return [self._check_grad(res, i, create_graph) for i in self.diff]

    def _check_grad(self, res, i, create_graph):
        """PyTorch's checks on a gradient returned by backward: counts, types, shapes."""
        from .._tensor import Tensor

        n = self.n_args
        if len(res) < n or any(g is not None for g in res[n:]):
            raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                               f"gradients (expected {n}, got {len(res)})")
        pos = set(self.arg_pos)
        for j, g in enumerate(res[:n]):
            if g is not None and j not in pos:
                raise RuntimeError(f"function {self.name()} returned a gradient different than "
                                   f"None at position {j + 1}, but the corresponding forward "
                                   "input was not a Variable")
        j = self.arg_pos[i]
        g = res[j]
        if g is None:
            return None
        if not isinstance(g, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
        shape, dtype = self.in_shapes[i]
        if tuple(g.shape) != shape:
            if not _expandable(shape, tuple(g.shape)):
                raise RuntimeError(f"Function {self.name()} returned an invalid gradient at "
                                   f"index {j} - got {list(g.shape)} but expected shape "
                                   f"compatible with {list(shape)}")
            g = _sum_to(g, shape)
        if g.dtype != dtype:
            g = g.to(dtype)
        return g if create_graph else g._value

    def release(self):
        if self.ctx is not None:
            self.ctx._freed = True
            self.ctx._saved = ()


def _expandable(shape, target):
    if len(shape) > len(target):
        return False
    return all(s == t or s == 1 for s, t in zip(reversed(shape), reversed(target)))


def _sum_to(g, shape):
    lead = g.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape)
                                      if s == 1 and g.shape[lead + i] != 1)
    if dims:
        g = g.sum(dim=dims, keepdim=True)
    return g.view(shape)


def _record_python(outputs, inputs, backward_fn, ctx=None, name="PyBackward", attach=None):
    """Attach a PyNode to the Tensors among ``outputs`` (those indexed by ``attach`` when
    given); ``backward_fn(*output_grads)`` returns one gradient per entry of ``inputs``."""
    from .._tensor import Tensor

    pos = tuple(i for i, t in enumerate(inputs) if isinstance(t, Tensor))
    edges = [inputs[i]._edge() if inputs[i]._requires_grad else None for i in pos]
    if all(e is None for e in edges):
        return None
    out_meta = tuple((tuple(o.shape), o.dtype, o._device) if isinstance(o, Tensor) else None
                     for o in outputs)
    in_shapes = tuple((tuple(inputs[i].shape), inputs[i].dtype) for i in pos)
    node = _node_class(name, PyNode)(backward_fn, edges, pos, len(inputs), in_shapes,
                                     out_meta, ctx)
    for i, o in enumerate(outputs):
        if isinstance(o, Tensor) and (attach is None or i in attach):
            o._node, o._out_idx, o._requires_grad = node, i, True
    return node


def record_pullback(outs, pullback, inputs, name):
    """Wrap ``outs`` (arrays from a ``jax.vjp``) as Tensors joined to the tape by one node
    ``name`` whose backward is ``pullback``; its gradients (flattened, in order) go to
    ``inputs``. Float outputs carry grad. Used where a whole region was differentiated by JAX
    at once (compiled modules, checkpointed segments inside a compiled step)."""
    import jax

    from .._tensor import Tensor

    wrapped = [Tensor._make(o) for o in outs]

    def backward(*grads):
        cts = [g._value if g is not None else jax.numpy.zeros(o.shape, o.dtype)
               for g, o in zip(grads, outs)]
        flat = jax.tree_util.tree_leaves(pullback(cts))
        return tuple(Tensor._make(g) for g in flat[:len(inputs)])

    _record_python(wrapped, list(inputs), backward, name=name,
                   attach={i for i, o in enumerate(wrapped) if o.dtype.is_floating_point})
    return wrapped


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
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("jtorch does not implement forward-mode AD "
                                  "(torch.autograd.Function.jvp) yet")

    @classmethod
    def _user_backward(cls):
        has_bw, has_vjp = cls.backward is not Function.backward, cls.vjp is not Function.vjp
        if has_bw and has_vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is "
                               "not allowed. You should only implement one of them.")
        return cls.vjp if has_vjp else cls.backward

    @classmethod
    def apply(cls, *args, **kwargs):
        from .._tensor import Tensor

        uses_setup = cls.setup_context is not Function.setup_context
        if uses_setup:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        ctx = FunctionCtx()
        record = grad_state.enabled and any(isinstance(a, Tensor) and a._requires_grad
                                            for a in args)
        ctx.needs_input_grad = tuple(record and isinstance(a, Tensor) and a._requires_grad
                                     for a in args)
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
        outs = _own_outputs((out,) if single else out, args, ctx._dirty, record)
        if record:
            attach = {i for i, o in enumerate(outs) if isinstance(o, Tensor)
                      and o.dtype.category >= dtypes.FLOAT and not _is_in(o, ctx._non_diff)}
            _record_python(outs, args, functools.partial(cls._user_backward(), ctx), ctx,
                           cls._backward_name, attach)
        ctx._record_saved_versions()
        return outs[0] if single else outs


def _is_in(t, seq):
    return any(t is s for s in seq)


def _own_outputs(outs, args, dirty, record):
    """Outputs the Function's node can own: fresh tensors as they are; inputs, views and
    repeats as new tensors; inputs marked dirty as themselves (rebased onto the node)."""
    from .._core.hooks import increment_version
    from .._tensor import Tensor

    res, seen = [], []
    for o in outs:
        if not isinstance(o, Tensor):
            res.append(o)
            continue
        if _is_in(o, dirty):
            if record and o._node is None and o._requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                   "in-place operation.")
            increment_version(o)
        elif _is_in(o, args) or _is_in(o, seen) or o._base is not None or o._node is not None:
            o = Tensor._make(o._value, o._device)
        seen.append(o)
        res.append(o)
    return tuple(res)


def once_differentiable(fn):
    """Marks a backward as not twice differentiable: it runs with grad mode off, and a
    double backward through its results raises."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        from .._tensor import Tensor

        prev = grad_state.enabled
        grad_state.enabled = False
        try:
            outputs = fn(ctx, *args)
        finally:
            grad_state.enabled = prev
        if not prev or not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        leaves = [o.detach().requires_grad_(True) if isinstance(o, Tensor) else o for o in outs]
        wrapped = [Tensor._make(o._value, o._device) if isinstance(o, Tensor) else o
                   for o in leaves]

        def delayed_error(*grads):
            raise RuntimeError("trying to differentiate twice a function that was marked with "
                               "@once_differentiable")

        _record_python(wrapped, leaves, delayed_error, name="Error")
        return wrapped[0] if single else tuple(wrapped)

    return wrapper


class InplaceFunction(Function):
    """Kept for backward compatibility, as in PyTorch."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace
