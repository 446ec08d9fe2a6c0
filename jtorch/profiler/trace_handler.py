"""``torch.profiler.tensorboard_trace_handler``: write each profiling cycle's trace to a
directory TensorBoard's profiler plugin reads."""

from __future__ import annotations

import gzip
import os
import shutil
import socket
import time

__all__ = ["tensorboard_trace_handler"]


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False, use_python_export: bool = False):
    """An ``on_trace_ready`` handler writing the cycle's Chrome trace to
    ``dir_name/<worker_name>.<time_ns>.pt.trace.json`` (``.gz`` with ``use_gzip``), the file
    name PyTorch writes; ``worker_name`` defaults to ``<hostname>_<pid>``. The profiler also
    writes JAX's own trace of each cycle into ``dir_name`` (``plugins/profile/<run>/``, the
    layout TensorBoard's profile plugin reads: XLA's device kernels, and every op and
    ``record_function`` range as a TraceAnnotation).

    Args:
        dir_name (str): the directory (created when missing).
        worker_name (str, optional): unique per worker in a distributed run.
        use_gzip (bool): write the trace gzip-compressed.
        use_python_export (bool): accepted (jtorch's export is always Python).

    Returns:
        A callable taking the profiler.

    Example:
        >>> with profile(schedule=schedule(wait=1, warmup=1, active=2),
        ...              on_trace_ready=tensorboard_trace_handler("./log")) as prof:
        ...     for batch in data:
        ...         train_step(batch)
        ...         prof.step()
    """

    def handler_fn(prof) -> None:
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = os.path.join(dir_name, f"{worker_name}.{time.time_ns()}.pt.trace.json")
        if not use_gzip:
            prof.export_chrome_trace(file_name)
            return
        prof.export_chrome_trace(file_name)
        with open(file_name, "rb") as f_in, gzip.open(file_name + ".gz", "wb") as f_out:
            shutil.copyfileobj(f_in, f_out)
        os.remove(file_name)

    handler_fn.jax_trace_dir = dir_name   # profile runs jax.profiler's trace into it
    return handler_fn
