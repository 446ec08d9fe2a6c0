"""``torch._C._special``: torch.special's functions as PyTorch's bindings name them
(``special_<name>``; see jtorch/_C/_prefixed.py)."""

from __future__ import annotations

from .. import special as _special
from ._prefixed import prefixed_names

__getattr__, __dir__ = prefixed_names(_special, "special_", __name__)
