"""Picklable datasets and functions for the DataLoader worker tests (importable by spawn
workers). Everything here is JAX-free unless its name says otherwise, so it also runs in
forked workers."""

from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import contextmanager

import numpy as np

import jtorch
from jtorch.utils.data import Dataset, IterableDataset, get_worker_info


class ArrayDataset(Dataset):
    """Sample i: (float32 vector, int label); optional per-sample delay."""

    def __init__(self, n=40, delay=0.0):
        self.x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
        self.delay = delay

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        if self.delay:
            time.sleep(self.delay * (1 + (i % 3)))
        return self.x[i], int(i)


class InfoDataset(Dataset):
    """Returns (index, worker id, num_workers, seed, pid, what worker_init_fn recorded)."""

    def __len__(self):
        return 12

    def __getitem__(self, i):
        info = get_worker_info()
        return (i, info.id, info.num_workers, info.seed % 1000003, os.getpid(),
                os.environ.get("JT_INIT", "none"), info.dataset is self)


def record_init(worker_id):
    os.environ["JT_INIT"] = f"init{worker_id}"


class FailingDataset(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        if i == 5:
            raise ValueError(f"bad sample {i}")
        return i


class KeyFailDataset(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return {"a": 1}["missing"]


class DyingDataset(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        if i == 3:
            os._exit(1)
        return i


class SlowDataset(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(30)
        return i


class RangeIterable(IterableDataset):
    """range(start, end), sharded over workers as in PyTorch's IterableDataset docs."""

    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            lo, hi = self.start, self.end
        else:
            per = int(np.ceil((self.end - self.start) / info.num_workers))
            lo = self.start + info.id * per
            hi = min(lo + per, self.end)
        return iter(range(lo, hi))


class JtorchOpsDataset(Dataset):
    """Calls jtorch ops in __getitem__ (safe only in spawn workers or the main process)."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return jtorch.full((2,), float(i)) * 2, jtorch.tensor(i)


@contextmanager
def time_limit(seconds):
    """Fails (instead of hanging) when the block runs longer than ``seconds``."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _alarm(signum, frame):
        raise TimeoutError(f"test exceeded {seconds} s (possible DataLoader hang)")

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def mnist_dir():
    """Where the real MNIST files are: $JTORCH_MNIST, ../shared/data/mnist beside the repo,
    or /work/shared/data/mnist (a clone elsewhere on this machine); None when absent."""
    from pathlib import Path

    for cand in (os.environ.get("JTORCH_MNIST"),
                 Path(__file__).resolve().parents[2] / "shared" / "data" / "mnist",
                 Path("/work/shared/data/mnist")):
        if cand and (Path(cand) / "t10k-labels-idx1-ubyte.gz").exists():
            return Path(cand)
    return None
