"""torch.autograd.graph: the graph's node type and the hooks on gradients and saved tensors.

The engine itself lives in the core (``jtorch/_core/graph.py``); this module is its public face.
"""

import contextlib
import functools
import threading

from .._core import saved_hooks
from .._core.graph import (
    GradientEdge as GradientEdge,
    Node as Node,
    current_graph_task_id,
    edge_of,
    will_engine_execute_node,
)
from .._core.hooks import RemovableHandle as RemovableHandle, increment_version as increment_version
from .._core.tensor_base import TensorBase


class saved_tensors_hooks:  # noqa: N801 - PyTorch's name
    """Context manager that sets a pair of pack / unpack hooks for saved tensors.

    Inside it, every tensor a recorded operation saves for backward (including those saved
    with ``ctx.save_for_backward``) is passed to ``pack_hook`` at forward time and its result
    stored instead; ``unpack_hook(packed)`` is called when backward needs the tensor and must
    return a tensor with the original's value, size and device. When nested, only the
    innermost pair applies.

    Args:
        pack_hook: ``pack_hook(tensor) -> Any``, run with grad mode off; it must not modify
            ``tensor`` in place.
        unpack_hook: ``unpack_hook(packed) -> Tensor``.

    Example::

        >>> a = torch.ones(5, requires_grad=True)
        >>> with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 4, lambda t: t / 4):
        ...     y = a * a
        >>> y.sum().backward()
        >>> a.grad
        tensor([2., 2., 2., 2., 2.])

    Differences from PyTorch: which tensors a built-in op saves follows jtorch's gradient
    formula (the vjp of the op's forward): the inputs it reads. Where PyTorch saves an output
    (``exp``, ``tanh``, ``relu``), jtorch packs the input. A region JAX differentiates as a
    whole (a ``jtorch.compile``\'d module, ``torch.cond``) raises inside the block; see
    docs/differences.md.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        saved_hooks.push(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        saved_hooks.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - PyTorch's name
    """Context manager under which tensors saved by the forward pass are stored on the CPU,
    then moved back to their device for backward (trading device memory for transfers).

    Args:
        pin_memory (bool): accepted and ignored (pinned host memory only speeds up CUDA's
            copies; JAX manages its own transfers). Default ``False``.
        device_type (str): the device type PyTorch checks for pinning (``"cuda"``); unused.

    Example::

        >>> a = torch.randn(5, requires_grad=True)
        >>> with torch.autograd.graph.save_on_cpu():
        ...     y = (a * a).sum()
        >>> y.backward()
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        # one pair of functions for every instance: a jtorch.compile'd step guards on the
        # hooks' identity, so a new save_on_cpu() per step does not compile it again
        super().__init__(_pack_to_cpu, _unpack_from_cpu)


def _pack_to_cpu(tensor):
    return (tensor.device, tensor.cpu())


def _unpack_from_cpu(packed):
    device, tensor = packed
    return tensor.to(device)


class _AllowMutationOnSavedContext:
    """The state of one ``allow_mutation_on_saved_tensors`` block: ``original`` maps each
    handle a pack returned to the value saved (cleared when the block ends)."""

    def __init__(self):
        self.original = {}

    def clear(self):
        self.original.clear()


_mutation_allowed = [False]   # one block at a time in the process, as PyTorch's global flag
_OUTSIDE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
            "in which the graph was originally recorded.")


class _Handle:
    __slots__ = ("__weakref__",)


def _snapshot_hooks(ctx):
    """A saved_tensors_hooks pair keeping the value each saved tensor has now: jtorch's
    arrays are immutable (an in-place write rebinds the tensor to a new array), so a new
    tensor on the current array is that value, whatever writes come later (PyTorch clones a
    saved tensor when it is about to be modified instead)."""
    def pack(t):
        handle = _Handle()
        ctx.original[handle] = TensorBase._make(t._value, t._device)
        return handle

    def unpack(handle):
        if not _mutation_allowed[0] or handle not in ctx.original:
            raise AssertionError(_OUTSIDE)
        return ctx.original[handle]

    return pack, unpack


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Context manager under which mutating tensors saved for backward is allowed: the
    backward uses the values they had when they were saved, instead of raising the usual
    "modified by an inplace operation" error. Run the forward and the backward inside the
    same block; it yields an ``_AllowMutationOnSavedContext``, cleared on exit.

    Example::

        >>> with torch.autograd.graph.allow_mutation_on_saved_tensors():
        ...     a = torch.ones(2, 3, requires_grad=True)
        ...     b = a.clone()
        ...     out = (b**2).sum()
        ...     _ = b.sin_()
        ...     out.sum().backward()
        >>> a.grad
        tensor([[2., 2., 2.],
                [2., 2., 2.]])

    Implemented as a ``saved_tensors_hooks`` pair (as PyTorch's is), so a
    ``saved_tensors_hooks`` block inside it takes over the tensors saved there.
    """
    ctx = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(*_snapshot_hooks(ctx)):
        try:
            if _mutation_allowed[0]:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _mutation_allowed[0] = True
            yield ctx
        finally:
            ctx.clear()
            _mutation_allowed[0] = False


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Context manager that disables saved tensors hooks: entering
    :class:`saved_tensors_hooks` inside it (or entering it while hooks are active) raises
    ``RuntimeError(error_message)``.

    Example::

        >>> message = "saved tensors default hooks are disabled"
        >>> with torch.autograd.graph.disable_saved_tensors_hooks(message):
        ...     with torch.autograd.graph.save_on_cpu():
        ...         pass
        Traceback (most recent call last):
        ...
        RuntimeError: saved tensors default hooks are disabled
    """
    prev = None
    try:
        prev = saved_hooks.disabled_message()
        saved_hooks.disable(error_message)
        yield
    finally:
        if prev is None:
            saved_hooks.enable()
        else:
            saved_hooks.disable(prev)


def get_gradient_edge(tensor):
    """The GradientEdge gradients for ``tensor`` flow into now: ``autograd.grad(loss,
    get_gradient_edge(t))`` is ``autograd.grad(loss, t)``, also after ``t`` is modified in
    place (the edge keeps the node it had)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    node, output_nr = edge_of(tensor)
    edge = GradientEdge(node, output_nr)
    edge._device = tensor._device
    return edge


class _MultiHandle(RemovableHandle):
    """The handle of a multi-grad hook: removes the hook from every tensor."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __getstate__(self):
        return self.handles

    def __setstate__(self, state):
        self.handles = state


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Calls ``fn`` once per backward: with ``mode="all"``, ``fn(grads)`` after the gradients of
    every tensor of ``tensors`` that this backward reaches are computed (None for the others);
    with ``mode="any"``, ``fn(grad)`` with the first of them."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of {('all', 'any')} but got {mode}")
    lock = threading.Lock()
    if mode == "any":
        ran = {}

        @functools.wraps(fn)
        def first_only(grad):
            task = current_graph_task_id()
            with lock:
                seen, ran[task] = ran.get(task, False), True
            if not seen:
                fn(grad)

        return _MultiHandle(tuple(t.register_hook(first_only) for t in tensors
                                  if t.requires_grad))
    nodes = [edge_of(t)[0] for t in tensors]
    count, buffer, expected = {}, {}, [None]

    def hook_of(i):
        def hook(grad):
            task = current_graph_task_id()
            with lock:
                done = count.get(task, 0)
                count[task] = done + 1
                if done == 0:   # this backward's first: how many of the tensors it reaches
                    expected[0] = sum(map(will_engine_execute_node, nodes))
                    buffer[task] = [None] * len(nodes)
            buffer[task][i] = grad
            if done == expected[0] - 1:
                grads = buffer.pop(task)
                del count[task]
                fn(grads)
        return hook

    return _MultiHandle(tuple(t.register_hook(hook_of(i)) for i, t in enumerate(tensors)))
