"""torch.distributed.elastic.multiprocessing: ``errors`` (``record``, ``ChildFailedError``);
``start_processes`` and the process contexts are jtorch.multiprocessing's."""

from . import errors as errors

__all__ = ["errors"]
