"""torch.cuda.amp.common: ``amp_definitely_not_available`` (thinc asks it at import)."""

from __future__ import annotations

from .. import is_available

__all__ = ["amp_definitely_not_available"]


def amp_definitely_not_available():
    """True when CUDA autocast cannot run here (no CUDA device)."""
    return not is_available()
