"""torch.testing: ``assert_close`` and ``make_tensor`` (PyTorch's, ported), the deprecated
``assert_allclose``, a stand-in for ``FileCheck`` (a TorchScript IR checker jtorch has no
use for), and jtorch's own ``compare_with_torch``, the gradient-parity checker against real
PyTorch."""

from __future__ import annotations

from .._core.errors import missing_class, torch_name_fallback
from ._comparison import assert_allclose as assert_allclose, assert_close as assert_close
from ._creation import make_tensor as make_tensor
from ._parity import (
    ParityEntry as ParityEntry,
    ParityReport as ParityReport,
    compare_with_torch as compare_with_torch,
)

FileCheck = missing_class("torch.testing.FileCheck")

__all__ = ["assert_close", "assert_allclose", "make_tensor", "FileCheck", "compare_with_torch",
           "ParityEntry", "ParityReport"]

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.testing")
