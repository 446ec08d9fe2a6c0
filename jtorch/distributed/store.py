"""torch.distributed's key-value stores: ``Store``, ``HashStore``, ``FileStore``, ``TCPStore``
and ``PrefixStore``.

A store holds bytes under string keys for the processes of a job: ``set``/``get`` (``get``
blocks until the key exists or the timeout passes), ``add`` (an atomic counter), ``wait``,
``check``, ``compare_set``, ``delete_key``, ``num_keys``, ``append``, ``multi_get``/``multi_set``.

- ``HashStore``: one process (threads), in memory.
- ``FileStore(path)``: processes sharing a file system; an append-only log file guarded by a
  file lock.
- ``TCPStore``: the JAX coordinator's key-value store. Rank 0 hosts JAX's coordinator at
  ``host_name:port``; the store connects when ``init_process_group(store=...)`` starts the
  runtime (JAX needs every process's rank to connect, which a ``TCPStore`` is not told).

Differences from PyTorch: a ``TCPStore`` cannot be used before ``init_process_group``
(PyTorch's connects at construction); ``compare_set`` on a ``TCPStore`` is made atomic with a
lock key (JAX's store has no compare-and-set).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import threading
import time
from datetime import timedelta

from ._errors import DistStoreError
from ._runtime import RUNTIME

__all__ = ["FileStore", "HashStore", "PrefixStore", "Store", "TCPStore"]


def _bytes(value) -> bytes:
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, (list, tuple)):  # PyTorch accepts a list of byte values
        return bytes(value)
    raise TypeError(f"set(): incompatible function arguments: value must be str or bytes, "
                    f"got {type(value).__name__}")


def _seconds(timeout) -> float:
    return timeout.total_seconds() if isinstance(timeout, timedelta) else float(timeout)


class Store:
    """The store interface (PyTorch's ``torch.distributed.Store``). Subclasses implement
    ``_set``, ``_try_get`` (bytes or None), ``_add``, ``_delete`` and ``_keys``; blocking reads
    poll ``_try_get`` unless a subclass has a blocking read of its own."""

    def __init__(self):
        self._timeout = timedelta(seconds=300)

    # ------------------------------------------------------------------ the interface
    @property
    def timeout(self) -> timedelta:
        return self._timeout

    def set_timeout(self, timeout: timedelta) -> None:
        self._timeout = timeout

    def set(self, key: str, value) -> None:
        self._set(key, _bytes(value))

    def get(self, key: str) -> bytes:
        return self._get(key, _seconds(self._timeout))

    def add(self, key: str, value: int) -> int:
        return self._add(key, int(value))

    def append(self, key: str, value) -> None:
        with self._locked():
            self._set(key, (self._try_get(key) or b"") + _bytes(value))

    def compare_set(self, key: str, expected_value, desired_value) -> bytes:
        """Sets ``key`` to ``desired_value`` if it holds ``expected_value`` (or is missing and
        ``expected_value`` is empty); returns the value it holds afterwards."""
        expected, desired = _bytes(expected_value), _bytes(desired_value)
        with self._locked():
            current = self._try_get(key)
            if (current is None and expected == b"") or current == expected:
                self._set(key, desired)
                return desired
            return expected if current is None else current

    def wait(self, keys, timeout=None) -> None:
        seconds = _seconds(self._timeout if timeout is None else timeout)
        for k in keys:
            self._get(k, seconds)

    def check(self, keys) -> bool:
        return all(self._try_get(k) is not None for k in keys)

    def delete_key(self, key: str) -> bool:
        return self._delete(key)

    def num_keys(self) -> int:
        return len(self._keys())

    def multi_get(self, keys) -> list:
        return [self.get(k) for k in keys]

    def multi_set(self, keys, values) -> None:
        for k, v in zip(keys, values):
            self.set(k, v)

    def has_extended_api(self) -> bool:
        return True

    # ------------------------------------------------------------------ for subclasses
    def _get(self, key, seconds):
        deadline = time.monotonic() + seconds
        delay = 0.001
        while True:
            v = self._try_get(key)
            if v is not None:
                return v
            if time.monotonic() >= deadline:
                raise DistStoreError(f"wait timeout after {int(seconds * 1000)}ms, keys: /{key}")
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def _locked(self):
        raise NotImplementedError

    def _set(self, key, value):
        raise NotImplementedError

    def _try_get(self, key):
        raise NotImplementedError

    def _add(self, key, amount):
        with self._locked():
            value = int(self._try_get(key) or b"0") + amount
            self._set(key, str(value).encode())
            return value

    def _delete(self, key):
        raise NotImplementedError

    def _keys(self):
        raise NotImplementedError


class HashStore(Store):
    """An in-memory store for the threads of one process."""

    def __init__(self):
        super().__init__()
        self._data = {}
        self._lock = threading.RLock()

    def _locked(self):
        return self._lock

    def _set(self, key, value):
        with self._lock:
            self._data[key] = value

    def _try_get(self, key):
        with self._lock:
            return self._data.get(key)

    def _delete(self, key):
        with self._lock:
            return self._data.pop(key, None) is not None

    def _keys(self):
        with self._lock:
            return list(self._data)


class _FileLock:
    def __init__(self, path):
        self._path = path

    def __enter__(self):
        self._f = open(self._path, "a+b")
        fcntl.flock(self._f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self._f, fcntl.LOCK_UN)
        self._f.close()
        return False


class FileStore(Store):
    """A store in a file that processes on the same file system share.

    Args:
        file_name (str): the file (created if missing).
        world_size (int, optional): how many processes use the file; the last one to close
            it deletes it (``-1``: nobody deletes it).
    """

    def __init__(self, file_name: str, world_size: int = -1):
        super().__init__()
        self.path = file_name
        self.world_size = world_size
        with _FileLock(self.path):
            pass
        self._add("__jtorch_users__", 1)

    def _locked(self):
        return _FileLock(self.path)

    def _read(self):
        data = {}
        with open(self.path, "rb") as f:
            for line in f:
                rec = json.loads(line)
                if rec["v"] is None:
                    data.pop(rec["k"], None)
                else:
                    data[rec["k"]] = base64.b64decode(rec["v"])
        return data

    def _write(self, key, value):
        rec = {"k": key, "v": None if value is None else base64.b64encode(value).decode()}
        with open(self.path, "ab") as f:
            f.write(json.dumps(rec).encode() + b"\n")

    def _set(self, key, value):
        with _FileLock(self.path):
            self._write(key, value)

    def _try_get(self, key):
        with _FileLock(self.path):
            return self._read().get(key)

    def _add(self, key, amount):
        with _FileLock(self.path):
            value = int(self._read().get(key, b"0")) + amount
            self._write(key, str(value).encode())
            return value

    def append(self, key, value):
        with _FileLock(self.path):
            self._write(key, self._read().get(key, b"") + _bytes(value))

    def compare_set(self, key, expected_value, desired_value):
        expected, desired = _bytes(expected_value), _bytes(desired_value)
        with _FileLock(self.path):
            current = self._read().get(key)
            if (current is None and expected == b"") or current == expected:
                self._write(key, desired)
                return desired
            return expected if current is None else current

    def _delete(self, key):
        with _FileLock(self.path):
            present = key in self._read()
            if present:
                self._write(key, None)
            return present

    def _keys(self):
        with _FileLock(self.path):
            return [k for k in self._read() if k != "__jtorch_users__"]

    def __del__(self):
        try:
            if self._add("__jtorch_users__", -1) == 0 and self.world_size > 0:
                os.remove(self.path)
        except (OSError, ValueError, TypeError):
            pass


class _CoordinatorStore(Store):
    """The JAX coordinator's key-value store (needs the multi-process runtime running)."""

    _ROOT = "jtorch/store/"

    def _locked(self):
        return _KVLock(self._ROOT + "__lock__")

    def _set(self, key, value):
        RUNTIME.kv_set(self._ROOT + key, value)

    def _try_get(self, key):
        try:
            return RUNTIME.client().key_value_try_get_bytes(self._ROOT + key)
        except Exception:  # JAX raises NOT_FOUND as its own error type
            return None

    def _get(self, key, seconds):
        try:
            return RUNTIME.client().blocking_key_value_get_bytes(self._ROOT + key,
                                                                 max(1, int(seconds * 1000)))
        except Exception as e:
            raise DistStoreError(f"wait timeout after {int(seconds * 1000)}ms, keys: /{key}") \
                from e

    def _delete(self, key):
        present = self._try_get(key) is not None
        if present:
            RUNTIME.client().key_value_delete(self._ROOT + key)
        return present

    def _keys(self):
        items = RUNTIME.client().key_value_dir_get_bytes(self._ROOT)
        return [k[len(self._ROOT):] for k, _ in items if not k.endswith("__lock__")]


class _KVLock:
    """A mutex over JAX's key-value store: an atomic counter that is 1 for its holder."""

    def __init__(self, key):
        self._key = key

    def __enter__(self):
        client = RUNTIME.client()
        while client.key_value_increment(self._key, 1) != 1:
            client.key_value_increment(self._key, -1)
            time.sleep(0.002)
        return self

    def __exit__(self, *exc):
        RUNTIME.client().key_value_increment(self._key, -1)
        return False


class TCPStore(_CoordinatorStore):
    """The store served by rank 0 at ``host_name:port``: JAX's coordinator there.

    Args:
        host_name (str): the host of rank 0.
        port (int): the port of JAX's coordinator.
        world_size (int, optional): the number of processes.
        is_master (bool): whether this process is rank 0 (hosts the coordinator).
        timeout (timedelta): how long ``get``/``wait`` wait (300 s).

    Differences from PyTorch: it connects when ``init_process_group(store=store, rank=...,
    world_size=...)`` starts the runtime; using it before raises a ``RuntimeError``.
    """

    def __init__(self, host_name: str, port: int, world_size: int | None = None,
                 is_master: bool = False, timeout: timedelta = timedelta(seconds=300),
                 wait_for_workers: bool = True, multi_tenant: bool = False,
                 master_listen_fd=None, use_libuv: bool = True):
        super().__init__()
        if not 0 <= int(port) < 2**16:
            raise ValueError(f"port must have value from 0 to 65535 but was {port}.")
        self.host = host_name
        self.port = int(port)
        self.world_size = world_size
        self.is_master = is_master
        self.libUvBackend = use_libuv
        self._timeout = timeout

    def _check(self):
        if not RUNTIME.multi_process:
            raise RuntimeError(
                "jtorch's TCPStore is the JAX coordinator's key-value store: it connects when "
                "init_process_group(store=store, rank=rank, world_size=world_size) starts the "
                "runtime, and cannot be used before")

    def _set(self, key, value):
        self._check()
        super()._set(key, value)

    def _try_get(self, key):
        self._check()
        return super()._try_get(key)

    def _get(self, key, seconds):
        self._check()
        return super()._get(key, seconds)


class PrefixStore(Store):
    """A view of ``store`` whose keys are prefixed with ``prefix + "/"``."""

    def __init__(self, prefix: str, store: Store):
        super().__init__()
        self.prefix = prefix
        self.underlying_store = store
        self._timeout = store.timeout

    def _k(self, key):
        return f"{self.prefix}/{key}"

    def set(self, key, value):
        self.underlying_store.set(self._k(key), value)

    def get(self, key):
        return self.underlying_store.get(self._k(key))

    def add(self, key, value):
        return self.underlying_store.add(self._k(key), value)

    def append(self, key, value):
        self.underlying_store.append(self._k(key), value)

    def compare_set(self, key, expected_value, desired_value):
        return self.underlying_store.compare_set(self._k(key), expected_value, desired_value)

    def wait(self, keys, timeout=None):
        self.underlying_store.wait([self._k(k) for k in keys], timeout)

    def check(self, keys):
        return self.underlying_store.check([self._k(k) for k in keys])

    def delete_key(self, key):
        return self.underlying_store.delete_key(self._k(key))

    def num_keys(self):
        return self.underlying_store.num_keys()

    def set_timeout(self, timeout):
        self._timeout = timeout
        self.underlying_store.set_timeout(timeout)
