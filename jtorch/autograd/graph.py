"""torch.autograd.graph: the graph's node type and the hooks on gradients and saved tensors.

The engine itself lives in the core (``jtorch/_core/graph.py``); this module is its public face.
"""

from .._core.errors import missing_function
from .._core.graph import GradientEdge as GradientEdge, Node as Node, edge_of
from .._core.hooks import RemovableHandle as RemovableHandle, increment_version as increment_version

_API = "torch.autograd.graph."
saved_tensors_hooks = missing_function(_API + "saved_tensors_hooks")
save_on_cpu = missing_function(_API + "save_on_cpu")
disable_saved_tensors_hooks = missing_function(_API + "disable_saved_tensors_hooks")
register_multi_grad_hook = missing_function(_API + "register_multi_grad_hook")
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
