"""torch.cuda.random: the CUDA generator's seeding and state functions, the same functions
``torch.cuda`` exports (torchattacks' APGD, FAB and Square call
``torch.cuda.random.manual_seed``); without a GPU the seeding does nothing, as in PyTorch."""

from __future__ import annotations

from . import (
    get_rng_state,
    get_rng_state_all,
    initial_seed,
    manual_seed,
    manual_seed_all,
    seed,
    seed_all,
    set_rng_state,
    set_rng_state_all,
)

__all__ = ["get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all",
           "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed"]
