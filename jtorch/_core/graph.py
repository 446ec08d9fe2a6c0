"""The tape: Node (a grad_fn), AccumulateGrad (a leaf's sink) and the reverse walk.

A Node remembers the Kernel that produced it, the values it was called with and one edge per
input slot. Its backward is the kernel's cached jitted vjp; with create_graph=True the same vjp
runs through the dispatcher as an op of its own, so higher derivatives come for free.

Saved values are immutable jax arrays, so an in-place write can never corrupt a backward; the
(tensor, version) pairs in ``Node.saved`` only reproduce PyTorch's errors for the tensors
PyTorch's derivative formulas save (OpDef ``saves``).
"""

from __future__ import annotations

import itertools
import re
import threading
import weakref
from collections import namedtuple

import jax
import jax.numpy as jnp
from jax.interpreters import partial_eval as pe

from . import anomaly, dtypes, fused_backward, saved_attrs, saved_hooks
from .device import device_of
from .hooks import _RETAINED, _add_hook
from .kernel import OpDef
from .state import ANOMALY, STATE, grad_mode
from .tensor_base import MetaStorage, TensorBase

# eager jnp ops take JAX's slow un-jitted path; gradient sums use one cached jitted add
_jitted_add = jax.jit(jnp.add)


def add_arrays(a, b):
    """The sum of two gradients' arrays (of one shape: a meta tensor's storage is its own
    sum)."""
    if type(a) is MetaStorage:
        return a
    return _jitted_add(a, b)

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed). Saved intermediate values of the graph are freed "
         "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
         "backward through the graph a second time or if you need to access saved tensors after "
         "calling backward.")

_CLASSES: dict[tuple, type] = {}
_CPP_NODES = {"CopySlices", "DelayedError", "Error", "GraphRoot", "Identity"}  # name() prefixed


class Node:
    """A grad_fn: one recorded op call. ``type(node).__name__`` is PyTorch's name."""

    _pre_hooks = None     # {output index: {id: hook}}: tensor hooks of non-leaf outputs
    _hooks = None         # node post hooks: hook(grad_inputs, grad_outputs)
    _node_pre_hooks = None  # node pre hooks: hook(grad_outputs)
    _meta = None
    saved_out = None      # [(weakref to output, index, version)] for OpDef saves="output"
    saved = None          # [(tensor, version)] inputs PyTorch saves; None: nothing to free
    saved_slots = None    # the input slot of each entry of ``saved``
    packed = None         # under saved_tensors_hooks: (unpack hook, {slot: packed}, {slot:
    #                       what the slot held}); those slots of vals are None (saved_hooks.py)
    freed = False
    index_args = None     # a basic-index view's (input shape, index), for its _saved_* names
    kernel = None
    edges = ()
    diff = ()
    out_float = (True,)

    def __init__(self, kernel, vals, edges, diff, out_float, saved):
        self.kernel = kernel
        self.vals = vals
        self.edges = edges          # per slot: (node, index) or None
        self.diff = diff            # slot indices that get gradients
        self.out_float = out_float  # per output: whether it carries a gradient
        self.saved = saved

    @staticmethod
    def create(kernel, vals, tens, diff, out):
        outs = out if isinstance(out, (tuple, list)) else (out,)
        out_float = tuple(dtypes.from_np(o.dtype).category >= dtypes.FLOAT for o in outs)
        edges = [None if t is None or i not in diff else edge_of(t) for i, t in enumerate(tens)]
        saved = slots = None
        saves = kernel.opdef.saves
        if saves == "output":
            saved = []   # the outputs are registered by save_outputs once they are wrapped
        elif saves.__class__ is tuple:   # only these parameters' tensors (where: condition)
            slots = tuple(i for i in _param_slots(kernel, saves) if tens[i] is not None)
            saved = [(tens[i], tens[i]._version) for i in slots]
        elif saves:
            # "others": bilinear ops (mul, matmul) need input j only for the others' grads
            slots = tuple(i for i, t in enumerate(tens)
                          if t is not None and (saves is True or any(j != i for j in diff)))
            saved = [(tens[i], tens[i]._version) for i in slots]
        node = _node_class(kernel.grad_name)(kernel, tuple(vals), edges, diff, out_float,
                                                   saved)
        node.saved_slots = slots
        if saves == "output":
            node.saved_out = []
        if STATE.saved_hooks:   # inside saved_tensors_hooks: pack what the backward reads
            saved_hooks.pack_node(node, tens, outs)
        if ANOMALY.enabled:
            anomaly.store_stack(node)
        return node

    def save_outputs(self, tensors):
        """Record the versions of the outputs PyTorch's formula saves (exp, tanh, relu...)."""
        self.saved_out = [(SavedOutputRef(t), i, t._version) for i, t in enumerate(tensors)
                          if self.out_float[i]]

    def name(self):
        n = type(self).__name__
        return "torch::autograd::" + n if n in _CPP_NODES else n

    @property
    def next_functions(self):
        """One (node, index) per input, (None, 0) where no gradient flows; index and mask
        tensors are not inputs here, as in PyTorch."""
        return tuple((e[0], e[1]) if e is not None else (None, 0)
                     for e in (self.edges[i] for i in _listed_slots(self)))

    @property
    def metadata(self):
        if self._meta is None:
            self._meta = {}
        return self._meta

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` after the node ran; may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = {}
        return _add_hook(self._hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` before the node runs; may return new grad_outputs."""
        if self._node_pre_hooks is None:
            self._node_pre_hooks = {}
        return _add_hook(self._node_pre_hooks, fn)

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def __getattr__(self, name):
        """PyTorch's ``_saved_<name>`` / ``_raw_saved_<name>`` (jtorch/_core/saved_attrs.py)."""
        if name.startswith(("_saved_", "_raw_saved_")):
            return saved_attrs.saved_attribute(self, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _check_saved(self):
        if self.freed:
            raise RuntimeError(FREED)
        for t, v in self.saved or ():
            if t._version != v:
                raise _modified_error(t, v)
        for ref, i, v in self.saved_out or ():
            t = ref()
            if t is not None and t._version != v:
                raise _modified_error(t, v, (self, i))

    def apply(self, cts, create_graph):
        """Gradients for self.diff's slots, given the cotangents of the outputs."""
        self._check_saved()
        cts = tuple(c for c, f in zip(cts, self.out_float) if f)
        vals = self.vals if self.packed is None else saved_hooks.unpack_node(self)
        if create_graph:
            return _apply_with_graph(self, vals, cts)
        cts = tuple(None if c is None else _arr(c) for c in cts)
        return self.kernel.vjp(self.diff)(vals, cts)

    def release(self):
        if self.saved is not None:
            self.vals = self.packed = None
            self.freed = True


# PyTorch's Tensor overloads of these wrap a Python number into a tensor input of the node;
# every other op takes numbers as plain Scalar arguments, which next_functions does not list
_WRAPS_NUMBERS = frozenset({"add", "sub", "mul", "div"})


def _param_slots(kernel, names):
    """The dynamic slots of ``kernel``'s call that hold the parameters ``names`` (found once
    per kernel from its CallSpec)."""
    slots = kernel.saved_params
    if slots is None:
        slot_of = kernel.spec.bind_by_name(kernel.opdef.params, range(len(kernel.spec.slots)))
        slots = kernel.saved_params = tuple(slot_of[p] for p in names
                                            if isinstance(slot_of.get(p), int))
    return slots


def _listed_slots(node):
    """The slots PyTorch lists as a node's inputs: all but index/mask tensors and, except for
    add/sub/mul/div, Python numbers (found once per kernel from its CallSpec), those of the
    op's ``listed_first`` parameters first."""
    kernel = node.kernel
    if kernel is None:
        return range(len(node.edges))
    if kernel.listed is None:
        spec, opdef = kernel.spec, kernel.opdef
        listed = spec.listed_slots(opdef.name in _WRAPS_NUMBERS)
        if opdef.listed_first:  # each parameter's slot: bind the slot numbers as the values
            slot_of = spec.bind_by_name(opdef.params, range(len(spec.slots)))
            first = [slot_of.get(p) for p in opdef.listed_first]
            first = [i for i in first if i in listed]
            listed = (*first, *(i for i in listed if i not in first))
        kernel.listed = listed
    return kernel.listed


def edge_of(t):
    """The graph edge gradients for tensor ``t`` flow into: (grad_fn, output index), or a leaf's
    AccumulateGrad (made on first use)."""
    node = t.grad_fn   # a stale view is re-derived first: its history follows its base's
    if node is not None:
        return (node, t._out_idx)
    acc = t._acc
    if acc is None:
        acc = t._acc = AccumulateGrad(t)
    return (acc, 0)


class SavedOutputRef(weakref.ref):
    """A node's weak reference to an output whose version its formula checks (a weakref type
    of its own, so that torch.utils.swap_tensors can tell it from a user's weakrefs, which
    PyTorch refuses to swap under)."""

    __slots__ = ()


class GradientEdge(namedtuple("GradientEdge", ("node", "output_nr", "ownership_token"),
                              defaults=(None,))):
    """torch.autograd.graph.GradientEdge: the edge gradients for a tensor flow into, as it was
    when the edge was taken (autograd.grad and backward accept it in ``inputs``). ``_device``:
    that tensor's device, the device of the gradient autograd.grad returns for it (None for an
    edge made by hand, ``GradientEdge(node, 0)``, as TorchJD makes them: the outputs')."""

    _device = None


def input_edge(t):
    """The (node, output index) of an ``inputs`` entry: a tensor's current edge, or a
    GradientEdge's own."""
    return (t.node, t.output_nr) if type(t) is GradientEdge else edge_of(t)


def _arr(c):
    return c._value if isinstance(c, TensorBase) else c


def _node_class(name, base=None):
    """A Node subclass named ``name`` (PyTorch's grad_fn class names), made once."""
    base = base or Node
    cls = _CLASSES.get((name, base))
    if cls is None:
        cls = _CLASSES[(name, base)] = type(name, (base,), {})
    return cls


def rename_node(node, name):
    """Give ``node`` the grad_fn class name ``name`` (an in-place view op's node, made by its
    out-of-place op: ``TBackward1`` for ``t_``)."""
    node.__class__ = _node_class(name, type(node).__mro__[1])


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: adds incoming gradients into ``variable.grad``.
    The leaf's tensor hooks live on the leaf (``_hooks``) and run before this node."""

    def __init__(self, variable):
        self.variable = variable

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def accumulate(self, g, create_graph):
        t = self.variable
        g = g if isinstance(g, TensorBase) else TensorBase._make(g, t._device)
        if g.dtype != t.dtype:
            g = g.to(t.dtype)
        if t._grad is None:
            if not create_graph or not g._requires_grad:
                g = TensorBase._make(g._value, t._device)   # a fresh tensor, as PyTorch's clone
            t._grad = g
        elif create_graph:
            t._grad = t._grad + g
        else:  # in place, so .grad keeps its identity as in PyTorch
            gt = t._grad
            if gt._base is None:
                gt._array = add_arrays(gt._array, g._value)
                gt._version_counter += 1
            else:
                _assign(gt, TensorBase._make(add_arrays(gt._value, g._value), t._device))
        if t._post_hooks:
            for h in list(t._post_hooks.values()):
                h(t)


def _modified_error(t, v, output_of=None):
    where = ""
    node, idx = output_of if output_of is not None else (t._node, t._out_idx)
    if node is not None:
        where = f", which is output {idx} of {re.sub(r'Backward[0-9]*$', '', node.name())},"
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{dtypes.legacy_type_name(t.dtype, t._device)} {list(t.shape)}]{where} "
        f"is at version {t._version}; "
        f"expected version {v} instead. Hint: enable anomaly detection to find the operation "
        "that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, "
        "check_nan=False).")


def _apply_with_graph(node, vals, cts):
    """Run a node's vjp (of saved values ``vals``) as an op through the dispatcher, so the
    result is differentiable. Saved inputs the vjp does not read (an add's, a mul's own
    factor) enter as constants, so a gradient requires grad exactly when PyTorch's would."""
    opdef, used = _backward_op(node.kernel, node.diff, vals, cts)
    dev = next((c._device for c in cts if isinstance(c, TensorBase)), None)
    cts = [c if c is None or isinstance(c, TensorBase) else _as_tensor(c, dev) for c in cts]
    args = []
    for v, e, u in zip(vals, node.edges, used):
        if not hasattr(v, "dtype"):
            args.append(v)
        elif e is None or not u:
            args.append(_as_tensor(v, dev))
        else:
            args.append(_tensor_at_edge(v, e, dev))
    return tuple(_dispatch(opdef, (tuple(args), tuple(cts)), {}))


def _tensor_at_edge(v, edge, device=None):
    """A tensor holding saved value ``v`` whose gradient flows into ``edge``."""
    t = _as_tensor(v, device)
    t._requires_grad = True
    node, idx = edge
    if isinstance(node, AccumulateGrad):
        t._acc = node
    else:
        t._node, t._out_idx = node, idx
    return t


def _backward_op(kernel, diff, vals, cts):
    """The vjp of ``kernel`` as an op, and which saved values it reads (found once per
    kernel, diff and pattern of missing cotangents, by dead-code elimination of its jaxpr)."""
    key = (diff, tuple(c is None for c in cts))
    hit = kernel.backward_ops.get(key)
    if hit is None:
        vjp = kernel.make_vjp(diff)

        def backward_body(vals, cts):
            return tuple(vjp(vals, cts))

        def spec(x):
            x = _arr(x)
            return jax.ShapeDtypeStruct(x.shape, x.dtype) if hasattr(x, "dtype") else x

        jaxpr = jax.make_jaxpr(backward_body)(tuple(spec(v) for v in vals),
                                              tuple(None if c is None else spec(c)
                                                    for c in cts)).jaxpr
        used = pe.dce_jaxpr(jaxpr, [True] * len(jaxpr.outvars))[1][:len(vals)]
        op = OpDef(kernel.opdef.name + "_backward", backward_body, tensors=("vals", "cts"),
                   grad_name=kernel.grad_name[:-1] + "Backward0", saves=True)
        hit = kernel.backward_ops[key] = (op, tuple(used))
    return hit


# ------------------------------------------------------------------------------- the walk
class _GraphTask:
    """The backward call running on this thread (``current_graph_task_id``,
    ``will_engine_execute_node``), for hooks that coordinate across tensors."""

    __slots__ = ("id", "order", "run", "targets", "_nodes")
    _ids = itertools.count()

    def __init__(self, order, run, targets):
        self.id = next(self._ids)
        self.order, self.run, self.targets, self._nodes = order, run, targets, None

    def will_execute(self, node):
        if self._nodes is None:
            self._nodes = set(self.order)
        return node in self._nodes and (self.run is None or node in self.run
                                         or node in self.targets)


_TASK = threading.local()


def current_graph_task_id():
    """An id of the backward call running on this thread; -1 outside one."""
    task = getattr(_TASK, "task", None)
    return -1 if task is None else task.id


def will_engine_execute_node(node):
    """Whether the backward call running on this thread executes ``node`` (a grad_fn or a
    leaf's AccumulateGrad)."""
    task = getattr(_TASK, "task", None)
    if task is None:
        raise RuntimeError("_get_should_execute_nodes should only be called during the "
                           "backward pass")   # (PyTorch's text names its C++ helper)
    return task.will_execute(node)


def run_backward(roots, grads, retain_graph, create_graph, inputs=None, capture=False,
                 allow_unused=False):
    """Reverse-mode walk from ``roots`` (tensors) seeded with ``grads``.

    Accumulates into leaves' .grad (only ``inputs``' when given), or, with ``capture``
    (autograd.grad), returns the gradients arriving at ``inputs`` and accumulates nothing.
    As in PyTorch, only nodes on a path to an input run when ``inputs`` is given.
    """
    buffers = {}
    root_nodes = []
    for r, g in zip(roots, grads):
        node, idx = edge_of(r)
        _add_to(buffers, node, idx, g, create_graph)
        root_nodes.append(node)
    order = _topo(root_nodes)
    targets, target_nodes, run = {}, (), None
    if inputs is not None:
        for i, t in enumerate(inputs):
            targets.setdefault(input_edge(t), []).append(i)
        target_nodes = {n for n, _ in targets}
        run = _to_run(order, target_nodes, capture)
    retained = {edge_of(t): t for t in list(_RETAINED) if t._node is not None} or None
    results = [None] * len(inputs) if capture else None
    outer = getattr(_TASK, "task", None)   # (a backward run by a hook of another)
    _TASK.task = _GraphTask(order, run, target_nodes)
    try:
        _walk(order, buffers, retain_graph, create_graph, run, targets, target_nodes,
              retained, results, inputs, capture)
    finally:
        _TASK.task = outer
    if not capture:
        return None
    for j, (t, r) in enumerate(zip(inputs, results)):
        if r is None and not allow_unused:
            raise RuntimeError(
                f"The differentiated Tensor at index {j} appears to not have been used in the "
                "graph. Set allow_unused=True if this is the desired behavior.")
        if r is not None and not isinstance(r, TensorBase):
            device = t._device if t._device is not None else roots[0]._device
            results[j] = TensorBase._make(r, device)
    return results


def _walk(order, buffers, retain_graph, create_graph, run, targets, target_nodes, retained,
          results, inputs, capture):
    """run_backward's walk over ``order``: fused into one program when it can, else node by
    node."""
    in_anomaly_mode, check_nan = ANOMALY.enabled, ANOMALY.enabled and ANOMALY.check_nan
    fused = (fused_backward.FUSE_AT > 0 and not create_graph and retained is None
             and not in_anomaly_mode and STATE.trace is None
             and _run_fused(order, buffers, retain_graph, run, targets, results, inputs))
    node = None
    try:
        with grad_mode(create_graph):
            for node in () if fused else order:
                buf = buffers.pop(node, None)
                if buf is None:
                    continue
                if run is not None and node not in run:
                    if node in target_nodes:  # an input that leads to no other: hooks, capture
                        _tensor_pre_hooks(node, buf, retained)
                        _capture(node, buf, targets, results)
                    continue
                if capture:
                    _capture(node, buf, targets, results)
                _tensor_pre_hooks(node, buf, retained)
                if node._node_pre_hooks:
                    for h in list(node._node_pre_hooks.values()):
                        r = h(tuple(_as_tensor(b) for b in buf))
                        if r is not None:
                            buf = list(r)
                if type(node) is AccumulateGrad:
                    if buf[0] is not None:
                        node.accumulate(buf[0], create_graph)
                    if node._hooks:
                        for h in list(node._hooks.values()):
                            h((), (_as_tensor(buf[0]),))
                    continue
                out = node.apply(buf, create_graph)
                if node._hooks:
                    out = _post_hooks(node, out, buf)
                if check_nan:
                    anomaly.check_nan(node, _by_output_index(node, out))
                for slot, g in zip(node.diff, out):
                    e = node.edges[slot]
                    if e is not None and g is not None:
                        _add_to(buffers, e[0], e[1], g, create_graph)
                if not retain_graph:
                    node.release()
    except Exception:
        if in_anomaly_mode and node is not None:
            anomaly.warn_forward_stack(node)
        raise


def _run_fused(order, buffers, retain_graph, run, targets, results, inputs):
    """Run the backward as one XLA program when its structure has been seen often enough
    and its program is compiled (jtorch/_core/fused_backward.py): leaves accumulate, and
    ``results`` (autograd.grad) receive the captured gradients. False when it must run node by
    node."""
    key = fused_backward.structure(order, buffers, AccumulateGrad, run, targets,
                                   0 if inputs is None else len(inputs))
    if key is None:
        return False
    prog = fused_backward.program(key)
    if prog is None or (prog.started and not prog.due()):   # (not yet, or compiling)
        return False
    seeds = [[_arr(g) for g in buf if g is not None] for buf in buffers.values()]
    if any(isinstance(g, jax.core.Tracer) for s in seeds for g in s):
        return False   # inside the user's own jax transformation: it compiles the whole
    for i in prog.runs:
        order[i]._check_saved()
    vals = [order[i].vals for i in prog.runs]
    if not prog.ready:
        prog.prepare(key, seeds, vals)
        if not prog.ready:
            return False
    try:
        grads, captured = prog.fn(seeds, vals)
    except Exception:  # noqa: BLE001 - node by node computes the same, or raises the real error
        fused_backward.refuse(key)
        return False
    fused_backward.settle(key, prog)
    if results is not None:
        results[:] = captured
    with grad_mode(False):
        for i, g in zip(prog.sinks, grads):
            order[i].accumulate(g, False)
    if not retain_graph:
        for i in prog.runs:
            order[i].release()
    return True


def _by_output_index(node, out):
    """(PyTorch's output index, gradient) of a node's gradients: the index among the inputs
    ``next_functions`` lists."""
    listed = list(_listed_slots(node))
    return [(listed.index(slot), g) for slot, g in zip(node.diff, out) if slot in listed]


def _to_run(order, target_nodes, capture):
    """The nodes to execute: those with an edge to a node that reaches a target (plus, for
    backward(inputs=...), the targets themselves)."""
    reach, run = set(), set()
    for node in reversed(order):
        below = any(e is not None and e[0] in reach for e in node.edges)
        if below or node in target_nodes:
            reach.add(node)
            if below or not capture:
                run.add(node)
    return run


def _capture(node, buf, targets, results):
    if results is None:
        return
    for idx, g in enumerate(buf):
        for j in targets.get((node, idx), ()):
            results[j] = g


def _as_tensor(g, device=None):

    if g is None or isinstance(g, TensorBase):
        return g
    return TensorBase._make(g, device or device_of(g))


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


def _tensor_pre_hooks(node, buf, retained):
    """Run the tensor hooks of the node's outputs (a leaf's hooks for AccumulateGrad), then
    store retained gradients; updates ``buf`` in place."""
    if type(node) is AccumulateGrad:
        hooks = node.variable._hooks
        by_idx = {0: hooks} if hooks else None
    else:
        by_idx = node._pre_hooks
    if by_idx:
        for idx, hooks in by_idx.items():
            if buf[idx] is None or not hooks:
                continue
            g = _as_tensor(buf[idx])
            for h in list(hooks.values()):
                r = h(g)
                if r is not None:
                    g = r
            buf[idx] = g
    if retained:
        for idx, g in enumerate(buf):
            t = retained.get((node, idx))
            if t is not None and g is not None:
                _retain(t, g)


def _retain(t, g):
    if STATE.grad_enabled:   # create_graph: keep the graph, as PyTorch's clone
        g = _as_tensor(g, t._device).clone()
    else:
        g = TensorBase._make(_arr(g), t._device)
    t._grad = g if t._grad is None else t._grad + g


def _post_hooks(node, out, buf):
    """Node hooks see (and may replace) one gradient per listed input (next_functions)."""
    by_slot = dict(zip(node.diff, out))
    listed = list(_listed_slots(node))
    grad_inputs = tuple(_as_tensor(by_slot.get(i)) for i in listed)
    grad_outputs = tuple(_as_tensor(b) for b in buf)
    for h in list(node._hooks.values()):
        r = h(grad_inputs, grad_outputs)
        if r is not None:
            grad_inputs = tuple(r)
    by_slot.update(zip(listed, grad_inputs))
    return [by_slot[slot] for slot in node.diff]


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


# ------------------------------------------------------------------ registered from above
def _dispatch(opdef, args, kwargs):  # replaced by jtorch/_core/dispatch.py at import
    raise RuntimeError("jtorch: the dispatcher is not loaded")


def _assign(t, res):  # replaced by jtorch/_core/views.py at import
    raise RuntimeError("jtorch: in-place writes are not loaded")


def register_dispatch(fn):
    """The dispatcher registers itself: a create_graph backward runs each node's vjp as an op."""
    global _dispatch
    _dispatch = fn


def register_assign(fn):
    """views.py registers ``assign``: gradients accumulate in place into a ``.grad`` that is a
    view."""
    global _assign
    _assign = fn
