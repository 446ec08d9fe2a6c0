"""torch._functorch: what the ``functorch`` package (shipped with PyTorch, not part of jtorch)
imports when a program runs under jtorch: its deprecated transforms (``deprecated``), the
``make_functional`` family, and ``make_fx``'s name."""

import sys

from ..func import _vmap as vmap

# ``torch._functorch.vmap`` is jtorch's vmap module itself, so that a library replacing its
# hooks there (tensordict's ``_process_batched_inputs``) reaches the vmap that runs
sys.modules[__name__ + ".vmap"] = vmap
