"""torch.distributed.constants: the default timeouts of process groups."""

from __future__ import annotations

from datetime import timedelta

__all__ = ["default_pg_nccl_timeout", "default_pg_timeout"]

# PyTorch's defaults: 30 minutes for gloo (and other backends), 10 minutes for NCCL
default_pg_timeout = timedelta(minutes=30)
default_pg_nccl_timeout = timedelta(minutes=10)
