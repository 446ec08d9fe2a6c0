"""torch.autograd.graph: the graph's node type and the hooks on gradients and saved tensors.

The engine itself lives in the core (``jtorch/_core/graph.py``); this module is its public face.
"""

import functools
import threading

from .._core.errors import missing_function
from .._core.graph import (
    GradientEdge as GradientEdge,
    Node as Node,
    current_graph_task_id,
    edge_of,
    will_engine_execute_node,
)
from .._core.hooks import RemovableHandle as RemovableHandle, increment_version as increment_version

_API = "torch.autograd.graph."
saved_tensors_hooks = missing_function(_API + "saved_tensors_hooks")
save_on_cpu = missing_function(_API + "save_on_cpu")
disable_saved_tensors_hooks = missing_function(_API + "disable_saved_tensors_hooks")
allow_mutation_on_saved_tensors = missing_function(_API + "allow_mutation_on_saved_tensors")


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
