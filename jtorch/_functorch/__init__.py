"""torch._functorch: what the ``functorch`` package (shipped with PyTorch, not part of jtorch)
imports when a program runs under jtorch: its deprecated transforms (``deprecated``), the
``make_functional`` family, and ``make_fx``'s name."""

import sys

from ..func import _core as eager_transforms, _vmap as vmap

# ``torch._functorch.vmap`` is jtorch's vmap module itself, so that a library replacing its
# hooks there (tensordict's ``_process_batched_inputs``) reaches the vmap that runs; likewise
# ``torch._functorch.eager_transforms`` is the module whose ``_wrap_tensor_for_grad`` makes the
# inputs of grad, vjp and jacrev (PyPose replaces it)
sys.modules[__name__ + ".vmap"] = vmap
sys.modules[__name__ + ".eager_transforms"] = eager_transforms
