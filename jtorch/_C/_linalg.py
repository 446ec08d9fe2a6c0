"""``torch._C._linalg``: torch.linalg's functions as PyTorch's bindings name them
(``linalg_<name>``; see jtorch/_C/_prefixed.py)."""

from __future__ import annotations

from .. import linalg as _linalg
from ._prefixed import prefixed_names

__getattr__, __dir__ = prefixed_names(_linalg, "linalg_", __name__)
