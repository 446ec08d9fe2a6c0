"""torch.distributed.elastic.multiprocessing.errors: ``@record`` and ``ChildFailedError``.

``@record`` on a worker's entry function writes an uncaught exception's traceback to the file
named by ``TORCHELASTIC_ERROR_FILE`` (set by jtorchrun and torchrun) before re-raising it, so
the launcher reports the worker's own traceback. ``ChildFailedError`` is what the launcher
raises when a worker failed; its message is torchrun's failure summary.
"""

from __future__ import annotations

import functools
import json
import os
import time
import traceback

__all__ = ["ChildFailedError", "ErrorHandler", "ProcessFailure", "record"]

_RULE = "=" * 54
_THIN = "-" * 54


class ErrorHandler:
    """Writes an exception to ``TORCHELASTIC_ERROR_FILE`` (a no-op when it is not set)."""

    def initialize(self) -> None:
        pass

    def record_exception(self, e: BaseException) -> None:
        path = os.environ.get("TORCHELASTIC_ERROR_FILE")
        if not path:
            return
        data = {"message": {"message": f"{type(e).__name__}: {e}", "extraInfo": {
            "py_callstack": "".join(traceback.format_exception(type(e), e, e.__traceback__)),
            "timestamp": str(int(time.time()))}}}
        with open(path, "w") as f:
            json.dump(data, f)


def record(fn=None, error_handler: ErrorHandler | None = None):
    """Decorates a worker's main function: an exception it raises is written to the error
    file, then re-raised."""
    handler = error_handler or ErrorHandler()

    def wrap(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            handler.initialize()
            try:
                return f(*args, **kwargs)
            except SystemExit as se:
                if se.code in (0, None):
                    raise
                handler.record_exception(se)
                raise
            except Exception as e:
                handler.record_exception(e)
                raise

        return wrapper

    return wrap(fn) if fn is not None else wrap


class ProcessFailure(dict):
    """One failed worker: ``time``, ``host``, ``rank``, ``local_rank``, ``exitcode``, ``pid``,
    ``error_file``, ``traceback``."""


class ChildFailedError(Exception):
    """Raised by the launcher when a worker failed. ``failures`` maps each failed global rank
    to its :class:`ProcessFailure`; the message is torchrun's summary, root cause first."""

    def __init__(self, name: str, failures: dict):
        self.name = name
        self.failures = {r: ProcessFailure(f) for r, f in failures.items()}
        super().__init__(self.format_msg())

    def get_first_failure(self):
        rank = min(self.failures, key=lambda r: self.failures[r]["time"])
        return rank, self.failures[rank]

    def format_msg(self) -> str:
        root_rank, root = self.get_first_failure()
        others = [_entry(i, f) for i, (r, f) in enumerate(self.failures.items()) if r != root_rank]
        return "\n".join([
            _RULE, f"{self.name} FAILED", _THIN, "Failures:",
            "\n".join(others) if others else "  <NO_OTHER_FAILURES>", _THIN,
            "Root Cause (first observed failure):", _entry(0, root), _RULE])


def _entry(i, f):
    tb = str(f["traceback"]).replace("\n", "\n  ")
    return (f"[{i}]:\n  time      : {f['time']}\n  host      : {f['host']}\n"
            f"  rank      : {f['rank']} (local_rank: {f['local_rank']})\n"
            f"  exitcode  : {f['exitcode']} (pid: {f['pid']})\n"
            f"  error_file: {f['error_file']}\n  traceback : {tb}")
