"""torch.distributed.rpc as a PyTorch built without RPC has it: ``is_available()`` is False
and every other name (``init_rpc``, ``rpc_sync``, ``RRef``, ``api``...) raises
NotImplementedError naming it (an AttributeError too, so ``hasattr`` is False, which libraries
such as PyTorch Geometric test before they use RPC). jtorch's processes talk through JAX's
collectives (docs/distributed.md), not PyTorch's TensorPipe RPC."""

from __future__ import annotations

from .._core.errors import missing_attribute

__all__ = ["is_available"]


def is_available():
    """False: jtorch has no RPC framework."""
    return False


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(f"module 'jtorch.distributed.rpc' has no attribute '{name}'")
    raise missing_attribute(f"torch.distributed.rpc.{name}")
