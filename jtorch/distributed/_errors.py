"""torch.distributed's error types, and turning a failed JAX collective into one of them.

PyTorch raises ``DistError`` (a ``RuntimeError``) and its subclasses from the c10d layer:
``DistBackendError`` when a collective fails (a peer died, a connection broke),
``DistNetworkError`` when a connection cannot be made, ``DistStoreError`` when a store
operation times out. jtorch raises the same types with messages that say what happened and
what to do.
"""

from __future__ import annotations

__all__ = ["DistBackendError", "DistError", "DistNetworkError", "DistStoreError"]


class DistError(RuntimeError):
    """The base of torch.distributed's errors."""


class DistBackendError(DistError):
    """A collective failed in the communication backend (a peer process died, a connection
    was closed, the processes ran different collectives)."""


class DistNetworkError(DistError):
    """A network connection (to the coordinator or a peer) could not be made."""


class DistStoreError(DistError):
    """A store operation failed or timed out."""


# what JAX's CPU (gloo) and GPU collectives say when a peer is gone
_PEER_GONE = ("Connection closed by peer", "Connection reset by peer", "Read error",
              "Write error", "Broken pipe", "Gloo", "gloo", "heartbeat", "UNAVAILABLE",
              "NCCL", "nccl", "unhealthy")


def is_backend_failure(err: BaseException) -> bool:
    """Whether ``err`` (raised by a JAX computation) is a failure of the collectives backend
    rather than of the computation itself."""
    text = str(err)
    return any(s in text for s in _PEER_GONE)


def backend_failure(what: str, rank: int, err: BaseException) -> DistBackendError:
    """The DistBackendError raised when collective ``what`` failed on ``rank``."""
    detail = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return DistBackendError(
        f"jtorch.distributed: {what} failed on rank {rank}: {detail}\n"
        "A peer process most likely died or closed its connection (see that rank's log for "
        "its own error). The process group cannot be used any more: let this process exit "
        "(its launcher stops the others).")
