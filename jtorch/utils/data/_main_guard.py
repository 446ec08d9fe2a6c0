"""One short error, before any worker starts, for DataLoader workers started from the unguarded
top level of a script.

jtorch starts a DataLoader's workers with ``spawn`` unless every piece of code they run is known
to be JAX-free (see ``_worker.py``): a process forked after JAX started its threads hangs at its
first JAX call. A ``spawn`` (or ``forkserver``) worker re-runs the main script's top level to
find the classes it unpickles (it imports the script as ``__mp_main__``). Where the DataLoader
loop itself is on that top level, not under ``if __name__ == "__main__":``, every worker would
re-run the script up to the loop and try to start workers of its own, which Python refuses
with a long traceback per worker. PyTorch on Linux forks its workers, so such a script works
there.

So the main process checks first (:func:`check_entry_point`): when the statement of the main
script that is running now is not inside an ``if`` on ``__name__``, it raises
:func:`unguarded_error` naming the line, and starts no worker. A worker that gets there anyway
(a script whose source cannot be read, an unusual guard) exits silently with
:data:`UNGUARDED_EXIT_CODE` (:func:`exit_if_bootstrapping`), and the main process raises the
same error (:func:`raise_if_unguarded_exit`).
"""

from __future__ import annotations

import ast
import multiprocessing.process
import os
import sys

__all__ = ["UNGUARDED_EXIT_CODE", "check_entry_point", "exit_if_bootstrapping",
           "raise_if_unguarded_exit", "unguarded_error"]

# a worker that re-ran an unguarded script up to its DataLoader loop exits with this code
UNGUARDED_EXIT_CODE = 87
# names whose use in an ``if`` test makes it an entry-point guard (``__name__``, or a check of
# the process: ``multiprocessing.parent_process() is None``, ``current_process().name``)
_GUARD_NAMES = frozenset({"__name__", "parent_process", "current_process"})


def unguarded_error(start_method, where=None):
    """The RuntimeError that says what to change (``where``: ``"train.py, line 12"``)."""
    at = f" ({where})" if where else ""
    return RuntimeError(
        f"DataLoader workers cannot be started from the top level of the main script{at}: "
        f"jtorch starts them with {start_method!r} (JAX hangs in forked processes), and each "
        "worker re-runs the script's top level. Put the code that iterates the DataLoader under "
        '`if __name__ == "__main__":` (or pass num_workers=0).')


def _module_frame(main):
    """The running frame of the main script's top-level code, or None."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals is vars(main) and frame.f_code.co_name == "<module>":
            return frame
        frame = frame.f_back
    return None


def _is_guard(test):
    return any(isinstance(n, ast.Name) and n.id in _GUARD_NAMES
               or isinstance(n, ast.Attribute) and n.attr in _GUARD_NAMES
               for n in ast.walk(test))


def _guarded(source, line):
    """True when line ``line`` of ``source`` is inside an ``if`` on ``__name__`` (or unknown)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return True
    return any(isinstance(node, ast.If) and node.lineno <= line <= node.end_lineno
               and _is_guard(node.test) for node in ast.walk(tree))


def check_entry_point(start_method):
    """Raises :func:`unguarded_error` when workers started now with ``start_method`` would re-run
    the main script's top level up to this very DataLoader loop."""
    if start_method == "fork":
        return
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    frame = _module_frame(main) if path else None
    if frame is None:  # no script (``-c``, a REPL) or the loop is not under the script's run
        return
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError):
        return
    if not _guarded(source, frame.f_lineno):
        raise unguarded_error(start_method, f"{os.path.basename(path)}, line {frame.f_lineno}")


def exit_if_bootstrapping():
    """In a ``spawn`` worker that is still re-running the main script: exit now, silently (the
    main process raises :func:`unguarded_error` on seeing :data:`UNGUARDED_EXIT_CODE`)."""
    # ``_inheriting`` is what multiprocessing itself checks before refusing to start a process
    if getattr(multiprocessing.process.current_process(), "_inheriting", False):
        os._exit(UNGUARDED_EXIT_CODE)  # unflushed output of the re-run script is dropped


def raise_if_unguarded_exit(dead_workers, start_method):
    """Raises :func:`unguarded_error` when every dead worker exited from
    :func:`exit_if_bootstrapping`."""
    if dead_workers and all(w.exitcode == UNGUARDED_EXIT_CODE for w in dead_workers):
        raise unguarded_error(start_method) from None
