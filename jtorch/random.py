"""jtorch.random: seeding and RNG state of the default generator (PyTorch's ``torch.random``).

See ``jtorch/_random.py`` for the generator itself and how jtorch's streams differ from
PyTorch's.
"""

from ._core.errors import torch_name_fallback
from ._core.generator import (
           Generator,
           default_generator,
           fork_rng,
           get_rng_state,
           initial_seed,
           manual_seed,
           seed,
           set_rng_state,
)

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed",
           "manual_seed", "seed", "set_rng_state"]

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.random")
