"""What runs inside a DataLoader worker process, and the host-side plumbing around it.

Design (see docs/data.md): JAX is multithreaded, and a process forked after JAX started its
thread pools deadlocks on its first JAX call (device_put, any jitted kernel). So a worker never
needs JAX for jtorch's own data path:

- **Host mode.** While a worker (or the single-process loader with the default collate)
  fetches samples, jtorch's datasets and ``jtorch.vision`` transforms build *host tensors*:
  ordinary ``Tensor`` objects whose value is a NumPy array, made without touching JAX.
- **Payloads.** A worker pickles each collated batch with :class:`_PayloadPickler`, which turns
  every Tensor into its NumPy value. The main process unpickles it, making each tensor leaf with
  ONE ``jax.device_put`` of the already stacked array.
- **Default start method.** ``fork`` only when every piece of code the workers run is known to
  be JAX-free (jtorch's datasets and transforms, the default collate, no ``worker_init_fn``);
  otherwise ``spawn``, whose workers start a fresh interpreter where JAX is safe.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import queue
import random
import signal
import sys
import traceback

import numpy as np

from ..._core.device import to_host
from ..._core.generator import manual_seed
from ..._tensor import Tensor

MP_STATUS_CHECK_INTERVAL = 0.5  # seconds between liveness checks while waiting on a queue
HAS_NUMPY = True

# ------------------------------------------------------------------------------ host mode
_HOST = [False]


def host_mode():
    """True while jtorch's data pipeline may build NumPy-backed host tensors."""
    return _HOST[0]


@contextlib.contextmanager
def host_fetch(enabled=True):
    """Builds host tensors inside the block (nested-safe)."""
    old = _HOST[0]
    _HOST[0] = enabled
    try:
        yield
    finally:
        _HOST[0] = old


def host_tensor(arr):
    """A Tensor whose value is the NumPy array ``arr`` (no JAX call)."""
    return Tensor._make(np.asarray(arr))


def is_host(t):
    return isinstance(t._array, np.ndarray)


def host_value(t):
    """A tensor's value as NumPy (no JAX call for host tensors)."""
    v = t._value
    return v if isinstance(v, np.ndarray) else np.asarray(v)


def to_device(arr):
    """One transfer: a NumPy array becomes a jtorch CPU tensor (the array is not reused)."""
    arr = np.asarray(arr)
    if not arr.flags.c_contiguous:  # (np.ascontiguousarray would make 0-d arrays 1-d)
        arr = arr.copy(order="C")
    return Tensor._make(to_host(arr))


# ------------------------------------------------------------------------------ worker info
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker: id, num_workers, seed, dataset."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        items = [f"{k}={getattr(self, k)}" for k in self.__keys]
        return f"{self.__class__.__name__}({', '.join(items)})"


_worker_info = None


def get_worker_info():
    """Information about the current DataLoader worker process; ``None`` in the main process."""
    return _worker_info


# ------------------------------------------------------------------------------ errors
class ExceptionWrapper:
    """An exception and its formatted traceback, to re-raise in the main process."""

    def __init__(self, exc_info=None, where="in background"):
        exc_info = exc_info or sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def __reduce__(self):  # an unpicklable exception class degrades to RuntimeError
        try:
            pickle.dumps(self.exc_type)
            tp = self.exc_type
        except (pickle.PicklingError, AttributeError, TypeError):
            tp = RuntimeError
        return (_rebuild_wrapper, (tp, self.exc_msg, self.where))

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            raise KeyError(_KeyErrorMessage(msg))
        try:
            exc = self.exc_type(msg)
        except Exception:  # noqa: BLE001 - the type's constructor takes other arguments
            raise RuntimeError(msg) from None
        raise exc


class _KeyErrorMessage(str):
    def __repr__(self):  # KeyError shows repr(arg): keep the traceback readable
        return str(self)


def _rebuild_wrapper(tp, msg, where):
    w = ExceptionWrapper.__new__(ExceptionWrapper)
    w.exc_type, w.exc_msg, w.where = tp, msg, where
    return w


# ------------------------------------------------------------------------------ payloads
def _rebuild_tensor(arr, requires_grad):
    t = to_device(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


class _PayloadPickler(pickle.Pickler):
    """Pickles a batch with every Tensor as its NumPy value (no JAX call for host tensors)."""

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return (_rebuild_tensor, (host_value(obj), bool(obj._requires_grad)))
        return NotImplemented


def dump_payload(obj):
    buf = io.BytesIO()
    _PayloadPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buf.getvalue()


def load_payload(data):
    return pickle.loads(data)


# ------------------------------------------------------------------------------ fork safety
def prepare_host(dataset):
    """Before workers fork: let jtorch datasets cache their NumPy copies in the parent."""
    seen = set()
    stack = [dataset]
    while stack:
        d = stack.pop()
        if id(d) in seen:
            continue
        seen.add(id(d))
        prep = getattr(type(d), "_jtorch_prepare_host", None)
        if prep is not None:
            prep(d)
        stack.extend(getattr(d, "_jtorch_children", lambda: ())())


def fork_safe(obj):
    """True when ``obj`` (a dataset or transform) is jtorch code known to make no JAX call."""
    check = getattr(type(obj), "_jtorch_fork_safe", None)
    return bool(check is not None and check(obj))


class _ResumeIteration:
    """Sent to persistent workers at a new epoch; echoed back as an acknowledgement. ``seed``
    is PyTorch's field (a DataPipe's shared seed); jtorch's loader sends its epoch number."""

    def __init__(self, seed=None):
        self.seed = seed


class ManagerWatchdog:
    """In a worker: ``is_alive()`` turns False once the process that started it has exited."""

    def __init__(self):
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self):
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


def _generate_state(base_seed, worker_id):
    """The NumPy seed PyTorch gives worker ``worker_id``: four 32-bit words of NumPy's
    SeedSequence hash of ``(worker_id, base_seed)`` (PyTorch re-implements that algorithm)."""
    entropy = [worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]
    return [int(w) for w in np.random.SeedSequence(entropy, pool_size=4).generate_state(4)]


class _IterableDatasetStopIteration:
    def __init__(self, worker_id):
        self.worker_id = worker_id


# ------------------------------------------------------------------------------ the loop
def _seed_worker(seed, forked):
    random.seed(seed)
    ss = np.random.SeedSequence([seed & 0xFFFFFFFF, seed >> 32])
    np.random.seed(ss.generate_state(4))
    if not forked:  # a fresh interpreter: jtorch's generator is safe to seed
        manual_seed(seed)


def worker_loop(fetcher_factory, dataset, index_queue, result_queue, done_event, seed,
                init_fn, worker_id, num_workers, forked, parent_pid):
    """A worker: fetch + collate the index lists it is sent, put pickled payloads back."""
    global _worker_info

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process handles Ctrl-C
    _HOST[0] = True
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    where = f"in DataLoader worker process {worker_id}"
    init_error = None
    fetcher = None
    try:
        _seed_worker(seed, forked)
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = fetcher_factory(dataset)
    except Exception:  # noqa: BLE001 - re-raised in the main process at the first batch
        init_error = ExceptionWrapper(where=where)
    exhausted = False
    while os.getppid() == parent_pid:
        try:
            task = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
        except queue.Empty:
            continue
        if task is None:  # shutdown
            break
        if isinstance(task, _ResumeIteration):
            exhausted = False
            if init_error is None:
                fetcher = fetcher_factory(dataset)
            result_queue.put((task, None))
            continue
        if done_event.is_set() or exhausted:
            continue
        idx, index = task
        if init_error is not None:
            data, init_error = init_error, None
        else:
            try:
                data = dump_payload(fetcher(index))
            except StopIteration:
                data = _IterableDatasetStopIteration(worker_id)
                exhausted = True
            except Exception:  # noqa: BLE001 - shipped to the main process and re-raised
                data = ExceptionWrapper(where=where)
        result_queue.put((idx, data))
        del data
    if done_event.is_set():
        result_queue.cancel_join_thread()
    result_queue.close()
