"""torch.backends.mkl: not linked by jtorch (see jtorch/backends/_not_linked.py)."""

from __future__ import annotations

from ._not_linked import is_available as is_available

__all__ = ["is_available"]
