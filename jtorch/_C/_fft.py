"""``torch._C._fft``: torch.fft's functions as PyTorch's bindings name them
(``fft_<name>``; see jtorch/_C/_prefixed.py)."""

from __future__ import annotations

from .. import fft as _fft
from ._prefixed import prefixed_names

__getattr__, __dir__ = prefixed_names(_fft, "fft_", __name__)
