"""``torch._C._functorch``: the queries of PyTorch's functorch wrapper layers that libraries
make (tensordict imports ``is_batchedtensor``, ``get_unwrapped``, ``_add_batch_dim`` and
``_remove_batch_dim``). jtorch's transforms run on JAX tracers, not on wrapper tensors: a
per-example tensor inside vmap (a batch tracer) is a BatchedTensor, and no tensor is a
grad/functional wrapper; ``_add_batch_dim`` works while a vmap makes its inputs
(jtorch/func/_vmap.py)."""

from __future__ import annotations

from .._core.errors import not_implemented
from ..func._vmap import _add_batch_dim, _remove_batch_dim

__all__ = ["_add_batch_dim", "_remove_batch_dim", "get_unwrapped", "is_batchedtensor",
           "is_functionaltensor", "is_functorch_wrapped_tensor", "is_gradtrackingtensor",
           "is_legacy_batchedtensor", "maybe_current_level", "maybe_get_bdim",
           "maybe_get_level"]

try:   # vmap's tracer class (not public in jax.interpreters.batching)
    from jax._src.interpreters.batching import BatchTracer
except ImportError:  # pragma: no cover - another JAX: no tensor counts as batched
    class BatchTracer:
        pass


def is_batchedtensor(tensor):
    """Whether ``tensor`` is a per-example tensor inside ``torch.func.vmap`` (its array a JAX
    batch tracer of the innermost transform), as PyTorch's BatchedTensors are."""
    return isinstance(getattr(tensor, "_value", None), BatchTracer)


def _false(tensor):
    """False: jtorch has no grad-tracking or functional wrapper tensors."""
    return False


is_functorch_wrapped_tensor = is_gradtrackingtensor = is_functionaltensor = _false
is_legacy_batchedtensor = _false


def maybe_get_level(tensor):
    """-1: the tensor is not a functorch wrapper."""
    return -1


maybe_get_bdim = maybe_get_level


def maybe_current_level():
    """None: no functorch level (jtorch's transforms keep no dynamic layer stack)."""
    return None


def get_unwrapped(tensor):
    if is_batchedtensor(tensor):   # the batched tensor exists only inside the JAX trace
        raise not_implemented("torch._C._functorch.get_unwrapped of a vmapped tensor")
    raise RuntimeError("No wrappers present!")
