"""torch.distributed.autograd as a PyTorch built without distributed autograd has it:
``is_available()`` is False, ``context`` exists (entering it raises NotImplementedError) and
every other name (``backward``, ``get_gradients``, ``DistAutogradContext``...) raises
NotImplementedError naming it (an AttributeError too, so ``hasattr`` is False). Libraries such
as TorchOpt import it unconditionally and test ``is_available()`` before they use it; like
``torch.distributed.rpc`` (its companion), jtorch has no RPC framework."""

from __future__ import annotations

from .._core.errors import missing_attribute, not_implemented

__all__ = ["context", "is_available"]


def is_available():
    """False: jtorch has no distributed autograd (it needs ``torch.distributed.rpc``)."""
    return False


class context:
    """``with torch.distributed.autograd.context() as context_id:``: raises
    NotImplementedError on entry (jtorch has no distributed autograd)."""

    def __enter__(self):
        raise not_implemented("torch.distributed.autograd.context")

    def __exit__(self, exc_type, exc_value, traceback):
        return None


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(f"module 'jtorch.distributed.autograd' has no attribute '{name}'")
    raise missing_attribute(f"torch.distributed.autograd.{name}")
