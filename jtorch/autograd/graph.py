"""torch.autograd.graph: the graph's node type and the hooks on gradients and saved tensors.

The engine itself lives in the core (``jtorch/_core/graph.py``); this module is its public face.
"""

from .._core.errors import missing_function
from .._core.graph import Node as Node
from .._core.hooks import RemovableHandle as RemovableHandle, increment_version as increment_version

_API = "torch.autograd.graph."
saved_tensors_hooks = missing_function(_API + "saved_tensors_hooks")
save_on_cpu = missing_function(_API + "save_on_cpu")
disable_saved_tensors_hooks = missing_function(_API + "disable_saved_tensors_hooks")
register_multi_grad_hook = missing_function(_API + "register_multi_grad_hook")
allow_mutation_on_saved_tensors = missing_function(_API + "allow_mutation_on_saved_tensors")
get_gradient_edge = missing_function(_API + "get_gradient_edge")
