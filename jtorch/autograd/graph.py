"""torch.autograd.graph: the graph's node type and the hooks on gradients and saved tensors.

The engine itself lives in the core (``jtorch/_core/graph.py``); this module is its public face.
"""

from .._core.graph import Node as Node
from .._core.hooks import RemovableHandle as RemovableHandle
from .._core.hooks import allow_mutation_on_saved_tensors as allow_mutation_on_saved_tensors
from .._core.hooks import disable_saved_tensors_hooks as disable_saved_tensors_hooks
from .._core.hooks import get_gradient_edge as get_gradient_edge
from .._core.hooks import increment_version as increment_version
from .._core.hooks import register_multi_grad_hook as register_multi_grad_hook
from .._core.hooks import save_on_cpu as save_on_cpu
from .._core.hooks import saved_tensors_hooks as saved_tensors_hooks
