"""torch.distributed.tensor.experimental: ``implicit_replication``. ``local_map``,
``context_parallel`` and ``register_sharding`` raise NotImplementedError."""

import contextlib

from ..._core.errors import missing_names

__all__ = ["implicit_replication"]


@contextlib.contextmanager
def implicit_replication():
    """Lets ops mix ``DTensor`` and plain tensors, the plain ones taken as replicated. jtorch's
    ``DTensor`` ops already run on its local values (see ``_dtensor.py``), so there is nothing
    to switch on."""
    yield


__getattr__ = missing_names("torch.distributed.tensor.experimental",
                            ("context_parallel", "local_map", "register_sharding"))
