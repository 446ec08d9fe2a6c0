"""torch.distributed._composable: the older home of FSDP2 (``_composable.fsdp``, the same
objects as ``torch.distributed.fsdp``). Its ``checkpoint``, ``replicate`` and ``contract``
raise NotImplementedError."""

from ..._core.errors import missing_names
from . import fsdp as fsdp

__all__ = ["fsdp"]

__getattr__ = missing_names("torch.distributed._composable",
                            ("checkpoint", "contract", "replicate"))
