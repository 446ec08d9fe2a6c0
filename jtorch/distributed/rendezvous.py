"""Rendezvous: how the processes of a job find each other (``init_method`` URLs).

Each handler gives the store, this process's rank, the world size and the address of JAX's
coordinator (``host:port``, hosted by rank 0):

- ``env://``: ``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR``, ``MASTER_PORT`` from the environment
  (``rank``/``world_size`` arguments take precedence). The coordinator listens on
  ``MASTER_ADDR:MASTER_PORT``, except under PyTorch's ``torchrun``, whose agent already holds
  ``MASTER_PORT`` for its own store (``TORCHELASTIC_USE_AGENT_STORE=True``): then it is
  ``MASTER_PORT + 1``.
- ``tcp://host:port``: the coordinator listens there.
- ``file:///path``: a ``FileStore`` on a shared file system; rank 0 picks a free port on its
  host and publishes the coordinator's address in the file.
"""

from __future__ import annotations

import numbers
import os
import socket
from urllib.parse import urlparse, urlunparse

from .store import FileStore, TCPStore

__all__ = ["register_rendezvous_handler", "rendezvous"]

_HANDLERS = {}


def register_rendezvous_handler(scheme, handler):
    """Registers ``handler(url, **kwargs)`` for URLs of ``scheme``; it yields
    ``(store, rank, world_size)`` (jtorch: plus the coordinator address)."""
    if scheme in _HANDLERS:
        raise RuntimeError(f"Rendezvous handler for {scheme}:// already registered")
    _HANDLERS[scheme] = handler


def _query_to_dict(query):
    return {k: v for k, _, v in (p.partition("=") for p in query.split("&") if p)}


def _error(scheme, msg):
    return ValueError(f"Error initializing torch.distributed using {scheme}:// rendezvous: "
                      + msg)


def _rank_and_world_size(scheme, query):
    """``(rank, world_size)`` from a tcp:// or file:// url's query (both required)."""
    if "rank" not in query:
        raise _error(scheme, "rank parameter missing")
    if "world_size" not in query:
        raise _error(scheme, "world size parameter missing")
    return int(query["rank"]), int(query["world_size"])


def rendezvous(url: str, rank: int = -1, world_size: int = -1, **kwargs):
    """Yields ``(store, rank, world_size, coordinator)`` for ``url``."""
    if not isinstance(url, (str, bytes)):
        raise RuntimeError(f"`url` must be a string. {type(url)}: {url}")
    if not isinstance(rank, numbers.Integral):
        raise RuntimeError(f"`rank` must be an integer. {rank}")
    if not isinstance(world_size, numbers.Integral):
        raise RuntimeError(f"`world_size` must be an integer. {world_size}")
    result = urlparse(url)
    if rank != -1 or world_size != -1:
        query = _query_to_dict(result.query)
        if "rank" in query or "world_size" in query:
            raise AssertionError(f"The url: {url} has node-specific arguments(rank, "
                                 f"world_size) already.")
        if rank != -1:
            query["rank"] = str(rank)
        if world_size != -1:
            query["world_size"] = str(world_size)
        result = result._replace(query="&".join(f"{k}={v}" for k, v in query.items()))
        url = urlunparse(result)
    if result.scheme not in _HANDLERS:
        raise RuntimeError(f"No rendezvous handler for {result.scheme}://")
    return _HANDLERS[result.scheme](url, **kwargs)


def under_torchrun() -> bool:
    """Whether PyTorch's torchrun agent holds MASTER_PORT for its own store."""
    return os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True"


def _env_handler(url, **kwargs):
    query = _query_to_dict(urlparse(url).query)

    def env(var):
        value = os.environ.get(var)
        if not value:
            raise _error("env", f"environment variable {var} expected, but not set")
        return value

    rank = int(query["rank"]) if "rank" in query else int(env("RANK"))
    world_size = int(query["world_size"]) if "world_size" in query else int(env("WORLD_SIZE"))
    addr = env("MASTER_ADDR")
    port = int(env("MASTER_PORT"))
    if not 0 <= port < 2**16:
        raise ValueError(f"port must have value from 0 to 65535 but was {port}.")
    coordinator_port = port + 1 if under_torchrun() else port
    store = TCPStore(addr, coordinator_port, world_size, rank == 0)
    yield store, rank, world_size, f"{addr}:{coordinator_port}"
    raise RuntimeError("Unable to perform re-rendezvous using env:// method")


def _tcp_handler(url, **kwargs):
    result = urlparse(url)
    if result.port is None:
        raise _error("tcp", "port number missing")
    rank, world_size = _rank_and_world_size("tcp", _query_to_dict(result.query))
    store = TCPStore(result.hostname, result.port, world_size, rank == 0)
    yield store, rank, world_size, f"{result.hostname}:{result.port}"
    raise RuntimeError("Unable to perform re-rendezvous using tcp:// method")


def _file_handler(url, timeout=None, **kwargs):
    result = urlparse(url)
    if not result.path:
        raise _error("file", "path missing")
    rank, world_size = _rank_and_world_size("file", _query_to_dict(result.query))
    store = FileStore(result.path, world_size)
    if timeout is not None:
        store.set_timeout(timeout)
    yield store, rank, world_size, coordinator_from_store(store, rank)
    raise RuntimeError("Unable to perform rerendezvous using file:// method")


def free_port(host: str = "") -> int:
    """A TCP port nobody listens on now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def coordinator_from_store(store, rank: int) -> str:
    """Rank 0 publishes ``host:port`` for JAX's coordinator in ``store``; every rank reads it.
    The host is ``MASTER_ADDR`` if set, else this host's name."""
    key = "jtorch/coordinator"
    if rank == 0:
        host = os.environ.get("MASTER_ADDR") or socket.gethostname()
        store.set(key, f"{host}:{free_port()}")
    return store.get(key).decode()


register_rendezvous_handler("env", _env_handler)
register_rendezvous_handler("tcp", _tcp_handler)
register_rendezvous_handler("file", _file_handler)
