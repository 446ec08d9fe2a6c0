"""DataLoader: batching, sampling, and real worker processes, with PyTorch's semantics.

Differences from PyTorch (see docs/data.md):
    - ``multiprocessing_context=None`` picks ``fork`` only when every piece of code the workers
      run is jtorch's own JAX-free data code (jtorch datasets and ``jtorch.vision``
      transforms, the default collate, no ``worker_init_fn``), else ``spawn``: JAX deadlocks
      in a process forked after it started, so user code calling jtorch ops in a forked worker
      would hang. Pass ``"fork"`` explicitly for JAX-free user datasets.
    - So a script that iterates a DataLoader with ``spawn`` workers on its top level, without
      ``if __name__ == "__main__":``, gets one RuntimeError saying so before any worker
      starts (PyTorch on Linux forks, and such a script works there); see ``_main_guard.py``.
    - ``pin_memory`` / ``pin_memory_device`` are accepted and do nothing (no CUDA host memory);
      as in PyTorch, iterating warns when ``pin_memory`` is set and there is no accelerator.
    - Workers ship batches as pickled NumPy payloads; each tensor leaf reaches the device in
      one transfer in the main process (no shared-memory tensors).
"""

from __future__ import annotations

import atexit
import functools
import itertools
import math
import multiprocessing as mp
import os
import queue
import time
import warnings
from collections.abc import Callable
from typing import Any, Generic

from ... import accelerator
from ..._core.errors import not_implemented
from ...distributed import c10d
from . import _main_guard as main_guard, _worker as worker
from ._collate import default_collate, default_convert
from .dataset import IterableDataset, T_co, _seed_from
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

get_worker_info = worker.get_worker_info
_collate_fn_t = Callable[[list], Any]
_worker_init_fn_t = Callable[[int], None]
_EXITING = [False]


@atexit.register
def _mark_exit():
    _EXITING[0] = True


class _DatasetKind:
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        return _make_fetcher(kind, auto_collation, collate_fn, drop_last, dataset)


class _InfiniteConstantSampler(Sampler):
    def __iter__(self):
        while True:
            yield None


# ------------------------------------------------------------------------------ fetchers
class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.auto_collation = dataset, auto_collation
        self.collate_fn, self.drop_last = collate_fn, drop_last

    def __call__(self, index):
        d = self.dataset
        if not self.auto_collation:
            return self.collate_fn(d[index])
        fast = getattr(d, "_jtorch_fetch_batch", None)
        if fast is not None and self.collate_fn is default_collate and worker.host_mode():
            out = fast(index)
            if out is not NotImplemented:
                if worker.get_worker_info() is None:
                    out = [worker.to_device(t._array) for t in out]
                return out
        getitems = getattr(d, "__getitems__", None)
        data = getitems(index) if callable(getitems) else [d[i] for i in index]
        return self.collate_fn(data)

    fetch = __call__  # PyTorch's name (torch.utils.data._utils.fetch)


class _IterFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.dataset_iter = dataset, iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.ended = False

    def __call__(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)

    fetch = __call__


def _make_fetcher(kind, auto_collation, collate_fn, drop_last, dataset):
    cls = _MapFetcher if kind == _DatasetKind.Map else _IterFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)


# ------------------------------------------------------------------------------ DataLoader
class DataLoader(Generic[T_co]):
    """Combines a dataset and a sampler, and iterates over batches (PyTorch's arguments)."""

    __initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory  # accepted; a no-op in jtorch
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None
        self.check_worker_number_rationality()

    def check_worker_number_rationality(self):
        """Warns when ``num_workers`` exceeds the CPUs this process may use, as PyTorch does."""
        if not self.num_workers:
            return
        suggest = cpu_count()
        if suggest is None or self.num_workers > suggest:
            cpuset = ("" if hasattr(os, "sched_getaffinity")
                      else " (`cpuset` is not taken into account)")
            detail = ("DataLoader is not able to compute a suggested max number of worker in "
                      "current system." if suggest is None else
                      f"Our suggested max number of worker in current system is {suggest}{cpuset}, "
                      "which is smaller than what this DataLoader is going to create.")
            warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in "
                          f"total. {detail} Please be aware that excessive worker creation might "
                          "get DataLoader running slow or even freeze, lower the worker number to "
                          "avoid potential slowness/freeze if necessary.", stacklevel=2)

    @property
    def multiprocessing_context(self):
        """The context given, else, with workers, the one they start in (:func:`_choose_context`).
        PyTorch's getter gives None there, which a subclass running its own worker loop
        (torchdata's StatefulDataLoader) takes as ``torch.multiprocessing``'s default, fork: a
        worker forked after JAX started hangs at its first JAX op."""
        ctx = self.__multiprocessing_context
        if ctx is None and self.num_workers > 0:
            return _choose_context(self)[0]
        return ctx

    def _given_multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, ctx):
        if ctx is not None:
            if self.num_workers > 0:
                if isinstance(ctx, str):
                    valid = mp.get_all_start_methods()
                    if ctx not in valid:
                        raise ValueError("multiprocessing_context option should specify a valid "
                                         f"start method in {valid!r}, but got "
                                         f"multiprocessing_context={ctx!r}")
                    ctx = mp.get_context(ctx)
                if not isinstance(ctx, mp.context.BaseContext):
                    raise TypeError("multiprocessing_context option should be a valid context "
                                    "object or a string specifying the start method, but got "
                                    f"multiprocessing_context={ctx}")
            else:
                raise ValueError("multiprocessing_context can only be used with multi-process "
                                 "loading (num_workers > 0), but got "
                                 f"num_workers={self.num_workers}")
        self.__multiprocessing_context = ctx

    def __setattr__(self, attr, val):
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last",
                                           "dataset", "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        if self._dataset_kind == _DatasetKind.Iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = (length // self.batch_size if self.drop_last
                          else math.ceil(length / self.batch_size))
            return length
        return len(self._index_sampler)

    def _fetcher_factory(self):
        return functools.partial(_make_fetcher, self._dataset_kind, self._auto_collation,
                                 self.collate_fn, self.drop_last)

    def _host_ok(self):
        """The default collate consumes what the dataset returns: host tensors are fine."""
        return self.collate_fn is default_collate or self.collate_fn is default_convert


def _sharding_worker_init_fn(worker_init_fn, world_size, rank_id, worker_id):
    """Shards a DataPipe graph across workers in PyTorch; jtorch has no DataPipes."""
    raise not_implemented("torch.utils.data.dataloader._sharding_worker_init_fn")


def cpu_count():
    """The CPUs this process may run on (its affinity set where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count()


def _distributed_settings():
    """(world_size, rank) of the default process group, (1, 0) without one."""
    if c10d.is_available() and c10d.is_initialized():
        return c10d.get_world_size(), c10d.get_rank()
    return 1, 0


def _choose_context(loader):
    """(context, auto_fork): the loader's context, or jtorch's safe default for None: fork
    only where jtorch's own worker loop runs nothing but JAX-free code, else spawn."""
    ctx = loader._given_multiprocessing_context()
    if ctx is not None:
        return ctx, False
    own_loop = type(loader)._get_iterator is DataLoader._get_iterator
    safe = (own_loop and worker.fork_safe(loader.dataset) and loader._host_ok()
            and loader.worker_init_fn is None and "fork" in mp.get_all_start_methods())
    return mp.get_context("fork" if safe else "spawn"), safe


# ------------------------------------------------------------------------------ iterators
class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._shared_seed = None  # a DataPipe's shared seed in PyTorch (jtorch has no DataPipes)
        self._pg = None
        self._world_size, self._rank = _distributed_settings()
        self._pin_memory = loader.pin_memory and accelerator.is_available()
        self._pin_memory_device = None  # jtorch has no pinned memory
        self._profile_name = f"enumerate(DataLoader)#{self.__class__.__name__}.__next__"
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        # DataLoader's own helpers, called unbound: a loader may be any object with
        # DataLoader's attributes, as PyTorch's iterators read (fastai's _FakeLoader)
        self._host_ok = DataLoader._host_ok(loader)
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = _seed_from(loader.generator) & 0x7FFF_FFFF_FFFF_FFFF
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn("pin_memory_device is deprecated, the current accelerator will be used "
                          f"as the device,ignore pin_memory_device='{loader.pin_memory_device}'.",
                          stacklevel=2)
        if loader.pin_memory and not accelerator.is_available():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=2)

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if (self._dataset_kind == _DatasetKind.Iterable
                and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            msg = (f"Length of IterableDataset {self._dataset} was reported to be "
                   f"{self._IterableDataset_len_called}(when accessing len(dataloader)), but "
                   f"{self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly "
                        "configuring the IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data."
                        "IterableDataset for examples.")
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled", self.__class__.__name__)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        if self._timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        if self._num_workers != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires num_workers == 0")
        self._fetcher = DataLoader._fetcher_factory(loader)(self._dataset)

    def _next_data(self):
        index = self._next_index()
        with worker.host_fetch(self._host_ok):
            return self._fetcher(index)


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        if self._prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for "
                                 "MultiProcessingDataLoaderIter")
        ctx, quiet_fork = _choose_context(loader)
        self._start_method = ctx.get_start_method()
        forked = self._start_method == "fork"
        if not forked:  # a spawned worker re-runs the script: is its DataLoader loop guarded?
            main_guard.exit_if_bootstrapping()
            main_guard.check_entry_point(self._start_method)
        worker.prepare_host(self._dataset)
        self._shutdown = False
        self._result_queue = ctx.Queue()
        self._done_event = ctx.Event()
        self._index_queues, self._workers = [], []

        factory = DataLoader._fetcher_factory(loader)
        for i in range(self._num_workers):
            iq = ctx.Queue()
            iq.cancel_join_thread()
            w = ctx.Process(target=worker.worker_loop, daemon=True, args=(
                factory, self._dataset, iq, self._result_queue, self._done_event,
                self._base_seed + i, loader.worker_init_fn, i, self._num_workers, forked,
                os.getpid()))
            with warnings.catch_warnings():
                if quiet_fork:  # our own JAX-free fork: JAX's generic warning does not apply
                    warnings.filterwarnings("ignore", "os.fork", RuntimeWarning)
                w.start()
            self._index_queues.append(iq)
            self._workers.append(w)
        self._epoch = 0
        self._reset(loader, first_iter=True)

    @property
    def worker_pids(self):
        return [w.pid for w in self._workers]

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:  # persistent workers: drain the last epoch, restart the fetchers
            self._epoch += 1
            for q in self._index_queues:
                q.put(worker._ResumeIteration(self._epoch))
            pending = self._num_workers
            while pending > 0:
                idx, _ = self._get_data()
                if isinstance(idx, worker._ResumeIteration) and idx.seed == self._epoch:
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _get_data(self):
        """One (idx, data) from the result queue; raises on dead workers and on timeout."""
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            wait = worker.MP_STATUS_CHECK_INTERVAL
            if deadline is not None:
                wait = min(wait, max(deadline - time.monotonic(), 0.0))
            try:
                return self._result_queue.get(timeout=wait)
            except queue.Empty:
                dead = [w for i, w in enumerate(self._workers)
                        if self._workers_status[i] and not w.is_alive()]
                if dead:
                    pids = ", ".join(str(w.pid) for w in dead)
                    self._shutdown_workers()
                    main_guard.raise_if_unguarded_exit(dead, self._start_method)
                    raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited "
                                       "unexpectedly") from None
                if deadline is not None and time.monotonic() >= deadline:
                    raise RuntimeError(
                        f"DataLoader timed out after {self._timeout} seconds") from None

    def _next_data(self):
        while True:
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info:
                    if len(info) == 2 or self._workers_status[info[0]]:
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)
            if self._shutdown or self._tasks_outstanding <= 0:
                raise AssertionError("Invalid iterator state: shutdown or no outstanding tasks "
                                     "when fetching next data")
            idx, data = self._get_data()
            if isinstance(idx, worker._ResumeIteration):
                continue
            self._tasks_outstanding -= 1
            if isinstance(data, worker._IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    worker_id = self._task_info.pop(idx)[0]
                    return self._process_data(data, worker_id)
                self._task_info[idx] += (data,)
            else:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

    def _try_put_index(self):
        max_tasks = self._prefetch_factor * self._num_workers
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            wid = next(self._worker_queue_idx_cycle)
            if self._workers_status[wid]:
                if self._in_order:
                    break
                if self._workers_num_tasks[wid] < max_tasks // sum(self._workers_status):
                    break
        else:
            return
        self._index_queues[wid].put((self._send_idx, index))
        self._task_info[self._send_idx] = (wid,)
        self._workers_num_tasks[wid] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data, worker_id):
        self._workers_num_tasks[worker_id] -= 1
        self._try_put_index()
        if isinstance(data, worker.ExceptionWrapper):
            data.reraise()
        return worker.load_payload(data)

    def _mark_worker_as_unavailable(self, worker_id):
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self):
        if getattr(self, "_shutdown", True):
            return
        self._shutdown = True
        try:
            self._done_event.set()
            for q in self._index_queues:
                q.put(None)
            if _EXITING[0]:
                for w in self._workers:
                    w.terminate()
            for w in self._workers:
                w.join(timeout=2 * worker.MP_STATUS_CHECK_INTERVAL)
                if w.is_alive():
                    w.kill()
                    w.join()
        finally:
            for q in self._index_queues:
                q.close()
            self._result_queue.cancel_join_thread()
            self._result_queue.close()

    def __del__(self):
        self._shutdown_workers()
