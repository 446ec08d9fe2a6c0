"""torch.signal: signal-processing helpers (``torch.signal.windows``)."""

from . import windows as windows

__all__ = ["windows"]
