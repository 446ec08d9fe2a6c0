"""The tape: Node (a grad_fn), AccumulateGrad (a leaf's sink) and the reverse walk.

A Node remembers the Kernel that produced it, the values it was called with and one edge per
input. Its backward is the kernel's cached jitted vjp; with create_graph=True the same vjp runs
through the dispatcher as an op of its own, so higher derivatives come for free.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import _dtype as D
from .._tensor import Tensor
from .grad_mode import state as grad_state

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed). Saved intermediate values of the graph are freed "
         "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
         "backward through the graph a second time or if you need to access saved tensors after "
         "calling backward.")

_CLASSES: dict[tuple, type] = {}


class RemovableHandle:
    """Removes a hook from its dict when ``remove()`` is called (also a context manager)."""

    _next_id = 0

    def __init__(self, hooks_dict):
        self.hooks_dict = hooks_dict
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self):
        self.hooks_dict.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _add_hook(d, hook):
    h = RemovableHandle(d)
    d[h.id] = hook
    return h


class Node:
    """A grad_fn: one recorded op call. ``type(node).__name__`` is PyTorch's name."""

    _pre_hooks = None     # {output index: {id: hook}} tensor hooks of non-leaf outputs
    _hooks = None         # node hooks: hook(grad_inputs, grad_outputs)
    _node_pre_hooks = None
    metadata = None

    def __init__(self, kernel, vals, edges, diff, out_float, saved):
        self.kernel = kernel
        self.vals = vals
        self.edges = edges          # per slot: (node, index) or None
        self.diff = diff            # slot indices that get gradients
        self.out_float = out_float  # per output: whether it carries a gradient
        self.saved = saved          # [(tensor, version)] checked at backward
        self.freed = False

    @staticmethod
    def create(kernel, vals, tens, diff, out):
        outs = out if isinstance(out, (tuple, list)) else (out,)
        out_float = tuple(D.from_np(o.dtype).category >= D.FLOAT for o in outs)
        edges = [None if t is None or i not in diff else t._edge() for i, t in enumerate(tens)]
        saved = None
        saves = kernel.opdef.saves
        if saves:
            # "others": bilinear ops (mul, matmul) need input j only for the others' grads
            saved = [(t, t._version) for i, t in enumerate(tens)
                     if t is not None and (saves is True or any(j != i for j in diff))]
        cls = _node_class(kernel.opdef.grad_name)
        return cls(kernel, tuple(vals), edges, diff, out_float, saved)

    def name(self):
        return type(self).__name__

    @property
    def next_functions(self):
        return tuple((e[0], e[1]) if e is not None else (None, 0) for e in self.edges)

    def register_hook(self, fn):
        if self._hooks is None:
            self._hooks = {}
        return _add_hook(self._hooks, fn)

    def register_prehook(self, fn):
        if self._node_pre_hooks is None:
            self._node_pre_hooks = {}
        return _add_hook(self._node_pre_hooks, fn)

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self))}>"

    def _check_saved(self):
        if self.freed:
            raise RuntimeError(FREED)
        for t, v in self.saved or ():
            if t._version != v:
                raise _modified_error(t, v)

    def apply(self, cts, create_graph):
        """Gradients for self.diff's slots, given the cotangents of the outputs."""
        self._check_saved()
        k = self.kernel
        cts = tuple(c for c, f in zip(cts, self.out_float) if f)
        if create_graph:
            return _apply_with_graph(self, cts)
        cts = tuple(None if c is None else _arr(c) for c in cts)
        return k.vjp_fn(self.diff)(self.vals, cts)

    def release(self):
        if self.saved is not None:
            self.vals = None
            self.freed = True


def _arr(c):

    return c._value if isinstance(c, Tensor) else c


# eager jnp ops take JAX's slow un-jitted path; gradient sums use one cached jitted add
add_arrays = jax.jit(jnp.add)


def _node_class(name, base=None):
    """A Node subclass named ``name`` (PyTorch's grad_fn class names), made once."""
    base = base or Node
    cls = _CLASSES.get((name, base))
    if cls is None:
        cls = _CLASSES[(name, base)] = type(name, (base,), {})
    return cls


class AccumulateGrad:
    """The sink of a leaf that requires grad: adds incoming gradients into ``variable.grad``."""

    _hooks = None
    _node_pre_hooks = None
    _pre_hooks = None
    metadata = None
    out_float = (True,)
    edges = ()

    def __init__(self, variable):
        self.variable = variable

    def name(self):
        return "torch::autograd::AccumulateGrad"

    @property
    def next_functions(self):
        return ()

    def register_hook(self, fn):
        if self._hooks is None:
            self._hooks = {}
        return _add_hook(self._hooks, fn)

    def register_prehook(self, fn):
        if self._node_pre_hooks is None:
            self._node_pre_hooks = {}
        return _add_hook(self._node_pre_hooks, fn)

    def __repr__(self):
        return f"<AccumulateGrad object at {hex(id(self))}>"

    def accumulate(self, g, create_graph):

        t = self.variable
        g = g if isinstance(g, Tensor) else Tensor._make(g, t._device)
        if t._hooks:
            for h in list(t._hooks.values()):
                r = h(g)
                if r is not None:
                    g = r
        if g.dtype != t.dtype:
            g = g.to(t.dtype)
        if t._grad is None:
            if not create_graph:
                g = g.detach() if g._rg else g
                if g._base is not None:
                    g = Tensor._make(g._value, g._device)
            t._grad = g
        elif create_graph or t._grad._rg:
            t._grad = t._grad + g
        else:  # in place, so .grad keeps its identity as in PyTorch
            gt = t._grad
            if gt._base is None:
                gt._v = add_arrays(gt._v, g._value)
                gt._vc += 1
            else:
                from .._views import assign

                assign(gt, Tensor._make(add_arrays(gt._value, g._value), t._device))
        if t._post_hooks:
            for h in list(t._post_hooks.values()):
                h(t)


def _modified_error(t, v):
    from .._tensor_str import type_name

    shape = list(t.shape)
    where = ""
    if t._node is not None:
        where = f", which is output {t._out_idx} of {t._node.name()},"
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{type_name(t)} {shape}]{where} is at version {t._version}; expected "
        f"version {v} instead. Hint: enable anomaly detection to find the operation that "
        "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).")


def _apply_with_graph(node, cts):
    """Run a node's vjp as an op through the dispatcher, so the result is differentiable."""
    from .._dispatch import dispatch

    k = node.kernel
    opdef = _backward_opdef(k, node.diff)
    args = []
    for v, e in zip(node.vals, node.edges):
        if e is None or not hasattr(v, "dtype"):
            args.append(v if not hasattr(v, "dtype") else Tensor._make(v))
        else:
            args.append(_tensor_at_edge(v, e))
    cts = [c if c is None or isinstance(c, Tensor) else Tensor._make(c) for c in cts]
    return tuple(dispatch(opdef, (tuple(args), tuple(cts)), {}))


def _tensor_at_edge(v, edge):

    t = Tensor._make(v)
    t._rg = True
    node, idx = edge
    if isinstance(node, AccumulateGrad):
        t._acc = node
    else:
        t._node, t._out_idx = node, idx
    return t


def _backward_opdef(kernel, diff):
    from .._ops._registry import OpDef

    op = kernel._bwd_op.get(diff)
    if op is None:
        vjp = kernel.make_vjp(diff)

        def backward_body(vals, cts):
            return tuple(vjp(vals, cts))

        op = OpDef(kernel.opdef.name + "_backward", backward_body, tensors=("vals", "cts"),
                   grad_name=kernel.opdef.grad_name[:-1] + "Backward0", saves=True)
        kernel._bwd_op[diff] = op
    return op


# ------------------------------------------------------------------------------- the walk
def run_backward(roots, grads, retain_graph, create_graph, inputs=None, capture=False,
                 allow_unused=False):
    """Reverse-mode walk from ``roots`` (tensors) seeded with ``grads``.

    Accumulates into leaves' .grad (only ``inputs``' when given), or, with ``capture``,
    returns the gradients arriving at ``inputs`` and accumulates nothing.
    """

    buffers = {}
    root_nodes = []
    for r, g in zip(roots, grads):
        node, idx = r._edge()
        _add_to(buffers, node, idx, g, create_graph)
        root_nodes.append(node)

    targets = None
    if inputs is not None:
        targets = {}
        for i, t in enumerate(inputs):
            targets.setdefault(t._edge() if t._rg else (None, None), []).append(i)

    order = _topo(root_nodes)
    needed = _needed(order, targets) if targets is not None else None
    results = [None] * len(inputs) if capture else None
    prev = grad_state.enabled
    grad_state.enabled = create_graph
    try:
        for node in order:
            if needed is not None and node not in needed:
                continue
            buf = buffers.pop(node, None)
            if buf is None:
                continue
            if node._pre_hooks:
                _run_tensor_hooks(node, buf)
            if node._node_pre_hooks:
                for h in list(node._node_pre_hooks.values()):
                    r = h(tuple(_as_tensor(b) for b in buf))
                    if r is not None:
                        buf = list(r)
            if targets is not None:
                for idx in range(len(buf)):
                    hit = targets.get((node, idx))
                    if hit is not None and capture:
                        for j in hit:
                            results[j] = buf[idx]
                if isinstance(node, AccumulateGrad) and capture:
                    continue
            if isinstance(node, AccumulateGrad):
                if targets is None or (node, 0) in targets:
                    node.accumulate(buf[0], create_graph)
                continue
            out = node.apply(buf, create_graph)
            if node._hooks:
                for h in list(node._hooks.values()):
                    r = h(tuple(_as_tensor(g) for g in out), tuple(_as_tensor(b) for b in buf))
                    if r is not None:
                        out = r
            for slot, g in zip(node.diff, out):
                e = node.edges[slot]
                if e is not None and g is not None:
                    _add_to(buffers, e[0], e[1], g, create_graph)
            if not retain_graph:
                node.release()
    finally:
        grad_state.enabled = prev
    if capture:
        for j, (t, r) in enumerate(zip(inputs, results)):
            if r is None and not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior.")
            if r is not None and not isinstance(r, Tensor):
                results[j] = Tensor._make(r, t._device)
        return results
    return None


def _as_tensor(g):

    if g is None or isinstance(g, Tensor):
        return g
    return Tensor._make(g)


def _add_to(buffers, node, idx, g, create_graph):
    buf = buffers.get(node)
    if buf is None:
        buf = [None] * len(node.out_float)
        buffers[node] = buf
    cur = buf[idx]
    if cur is None:
        buf[idx] = g
    elif create_graph:
        buf[idx] = _as_tensor(cur) + _as_tensor(g)
    else:
        buf[idx] = add_arrays(_arr(cur), _arr(g))


def _run_tensor_hooks(node, buf):
    for idx, hooks in node._pre_hooks.items():
        if buf[idx] is None:
            continue
        g = _as_tensor(buf[idx])
        for h in list(hooks.values()):
            r = h(g)
            if r is not None:
                g = r
        buf[idx] = g


def _topo(roots):
    """Nodes reachable from roots, each after every node that feeds it a gradient."""
    seen = set()
    post = []
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(root.edges))]
        while stack:
            node, it = stack[-1]
            for e in it:
                if e is not None and e[0] not in seen:
                    seen.add(e[0])
                    stack.append((e[0], iter(e[0].edges)))
                    break
            else:
                stack.pop()
                post.append(node)
    post.reverse()
    return post


def _needed(order, targets):
    """Nodes on a path to a target edge: the walk skips everything else."""
    target_nodes = {n for n, _ in targets}
    needed = set()
    for node in reversed(order):
        if node in target_nodes or any(e is not None and e[0] in needed for e in node.edges):
            needed.add(node)
    return needed


# ------------------------------------------------------------------------------- tensor hooks
def register_tensor_hook(t, hook):
    if not t._rg:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t._node is None:
        if t._hooks is None:
            t._hooks = {}
        return _add_hook(t._hooks, hook)
    node = t._node
    if node._pre_hooks is None:
        node._pre_hooks = {}
    return _add_hook(node._pre_hooks.setdefault(t._out_idx, {}), hook)


def register_post_accumulate_hook(t, hook):
    if t._node is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if t._post_hooks is None:
        t._post_hooks = {}
    return _add_hook(t._post_hooks, hook)


def retain_grad(t):
    import weakref

    if not t._rg:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if t._node is None or t._retains:
        return
    ref = weakref.ref(t)

    def hook(g):
        x = ref()
        if x is not None:
            g = g.detach() if not grad_state.enabled else g
            x._grad = g if x._grad is None else x._grad + g

    t._retains = True
    register_tensor_hook(t, hook)


def zeros_like_array(a):
    return jnp.zeros_like(a)
