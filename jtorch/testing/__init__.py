"""torch.testing: ``assert_close`` and ``make_tensor`` (PyTorch's, ported), the deprecated
``assert_allclose``, and a stand-in for ``FileCheck`` (a TorchScript IR checker jtorch has no
use for)."""

from __future__ import annotations

from .._core.errors import missing_class, torch_name_fallback
from ._comparison import assert_allclose as assert_allclose, assert_close as assert_close
from ._creation import make_tensor as make_tensor

FileCheck = missing_class("torch.testing.FileCheck")

__all__ = ["assert_close", "assert_allclose", "make_tensor", "FileCheck"]

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.testing")
