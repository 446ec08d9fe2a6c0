"""torch.multiprocessing: Python's ``multiprocessing`` plus ``spawn``/``start_processes``.

Everything of :mod:`multiprocessing` is here (``Process``, ``Queue``, ``Pool``,
``get_context``, ``set_start_method``...). Tensors cross process boundaries by pickling
(jtorch tensors are JAX arrays: there is no shared-memory storage, so the sharing strategies
are names only). ``spawn(fn, args, nprocs)`` runs ``fn(i, *args)`` in ``nprocs`` fresh
processes, the pattern of PyTorch's DDP tutorial (each process sets ``MASTER_ADDR``/
``MASTER_PORT`` and calls ``init_process_group(rank=i, world_size=nprocs)``).
"""

import multiprocessing
import sys
from multiprocessing import *  # noqa: F403

from .._core.errors import torch_name_fallback
from .spawn import (
    ProcessContext as ProcessContext,
    ProcessException as ProcessException,
    ProcessExitedException as ProcessExitedException,
    ProcessRaisedException as ProcessRaisedException,
    spawn as spawn,
    start_processes as start_processes,
)

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException",
           "ProcessRaisedException", "get_all_sharing_strategies", "get_sharing_strategy",
           "set_sharing_strategy", "spawn", "start_processes"] + multiprocessing.__all__

if sys.platform in ("darwin", "win32"):
    _all_sharing_strategies = {"file_system"}
else:
    _all_sharing_strategies = {"file_descriptor", "file_system"}
_sharing_strategy = ["file_system" if sys.platform in ("darwin", "win32")
                     else "file_descriptor"]


def set_sharing_strategy(new_strategy):
    """Sets the strategy for sharing CPU tensors (a name only in jtorch)."""
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of "
                             f"{_all_sharing_strategies}")
    _sharing_strategy[0] = new_strategy


def get_sharing_strategy():
    return _sharing_strategy[0]


def get_all_sharing_strategies():
    return _all_sharing_strategies

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.multiprocessing")
