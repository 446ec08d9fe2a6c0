"""torch.distributed.elastic: the pieces jtorch's launcher uses (``multiprocessing.errors``:
``record`` and ``ChildFailedError``). Elastic rendezvous, agents and timers are not
implemented (see docs/distributed.md)."""

from . import multiprocessing as multiprocessing

__all__ = ["multiprocessing"]
