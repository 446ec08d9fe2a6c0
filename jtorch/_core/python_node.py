"""Graph nodes whose backward is Python code: ``autograd.Function``, device copies, and
regions JAX differentiated as a whole (compiled modules, checkpointed segments)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from . import anomaly, saved_hooks
from .device import of_array, to_jax
from .graph import Node, _node_class, edge_of
from .kernel import conj_complex
from .state import ANOMALY, STATE
from .tensor_base import TensorBase


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
        materialize = self.ctx is None or self.ctx.materialize_grads
        grads = []
        for c, meta in zip(cts, self.out_meta):
            if meta is None:
                c = None
            elif c is None and materialize:
                c = TensorBase._make(jnp.zeros(meta[0], meta[1].np, device=to_jax(meta[2])),
                                     meta[2])
            elif c is not None and not isinstance(c, TensorBase):
                c = TensorBase._make(c, meta[2])
            grads.append(c)
        res = self.backward_fn(*grads)
        res = res if isinstance(res, tuple) else (res,)
        return [self._check_grad(res, i, create_graph) for i in self.diff]

    def _check_grad(self, res, i, create_graph):
        """PyTorch's checks on a gradient returned by backward: counts, types, shapes."""
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
        if not isinstance(g, TensorBase):
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
            self.ctx._packed = None


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


def record_python_node(outputs, inputs, backward_fn, ctx=None, name="PyBackward", attach=None):
    """Attach a PyNode to the TensorBases among ``outputs`` (those indexed by ``attach`` when
    given); ``backward_fn(*output_grads)`` returns one gradient per entry of ``inputs``."""
    pos = tuple(i for i, t in enumerate(inputs) if isinstance(t, TensorBase))
    edges = [edge_of(inputs[i]) if inputs[i]._requires_grad else None for i in pos]
    if all(e is None for e in edges):
        return None
    out_meta = tuple((tuple(o.shape), o.dtype, o._device) if isinstance(o, TensorBase) else None
                     for o in outputs)
    in_shapes = tuple((tuple(inputs[i].shape), inputs[i].dtype) for i in pos)
    node = _node_class(name, PyNode)(backward_fn, edges, pos, len(inputs), in_shapes,
                                     out_meta, ctx)
    if ANOMALY.enabled:
        anomaly.store_stack(node)
    for i, o in enumerate(outputs):
        if isinstance(o, TensorBase) and (attach is None or i in attach):
            o._node, o._out_idx, o._requires_grad = node, i, True
    return node


def record_pullback(outs, pullback, inputs, name):
    """Wrap ``outs`` (arrays from a ``jax.vjp``) as TensorBases joined to the tape by one node
    ``name`` whose backward is ``pullback``; its gradients (flattened, in order) go to
    ``inputs``. Floating and complex outputs carry grad. Used where a whole region was
    differentiated by JAX at once (compiled modules, checkpointed segments inside a compiled
    step). The outputs live where the region ran: on its arrays' device, or (traced arrays
    have none) on its inputs' device; each gradient on its input's device."""
    if STATE.saved_hooks and STATE.grad_enabled and any(x._requires_grad for x in inputs):
        saved_hooks.refuse_opaque(name)   # its saved values are inside pullback
    device = of_array(outs[0], inputs[0]._device if inputs else None) if outs else None
    wrapped = [TensorBase._make(o, device) for o in outs]

    def backward(*grads):
        # PyTorch's gradient of a complex tensor is the conjugate of JAX's cotangent
        # (kernel.conj_complex): conjugated on the way in and out
        cts = [conj_complex(g._value) if g is not None else jnp.zeros(o.shape, o.dtype)
               for g, o in zip(grads, outs)]
        flat = jax.tree_util.tree_leaves(pullback(cts))
        return tuple(TensorBase._make(conj_complex(g), x._device) for g, x in zip(flat, inputs))

    record_python_node(wrapped, list(inputs), backward, name=name,
                   attach={i for i, o in enumerate(wrapped)
                           if o.dtype.is_floating_point or o.dtype.is_complex})
    return wrapped
