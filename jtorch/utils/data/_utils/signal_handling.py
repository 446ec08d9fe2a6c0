"""``torch.utils.data._utils.signal_handling``: the main process notices a DataLoader worker
that died (SIGCHLD) and raises, naming its pid and exit code or signal, as PyTorch's C hooks
do; here in Python with ``os.waitid(..., WNOWAIT)``, which leaves the child to be joined."""

import os
import signal
import threading

__all__ = []

_worker_pids = {}   # id(iterator) -> tuple of worker pids
_SIGCHLD_handler_set = False


def _set_worker_signal_handlers():
    """In a worker: PyTorch installs C handlers printing SIGBUS/SIGSEGV/SIGFPE errors; Python's
    default behaviour (the worker dies, the main process reports its signal) is kept."""


def _set_worker_pids(key, pids):
    if key in _worker_pids:
        raise RuntimeError("_set_worker_pids should be called only once for each "
                           "_BaseDataLoaderIter.")
    _worker_pids[key] = tuple(pids)


def _remove_worker_pids(key):
    if _worker_pids.pop(key, None) is None:
        raise RuntimeError(f"Cannot find worker information for _BaseDataLoaderIter with id {key}")


def _error_if_any_worker_fails():
    """Raises RuntimeError if a registered worker exited with an error or was killed."""
    for pids in list(_worker_pids.values()):
        for pid in pids:
            try:
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                continue
            if info is None:
                continue
            if info.si_code == os.CLD_EXITED and info.si_status != 0:
                raise RuntimeError(f"DataLoader worker (pid {pid}) exited unexpectedly with "
                                   f"exit code {info.si_status}. Details are lost due to "
                                   "multiprocessing. Rerunning with num_workers=0 may give "
                                   "better error trace.")
            if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED):
                name = signal.Signals(info.si_status).name
                raise RuntimeError(f"DataLoader worker (pid {pid}) is killed by signal: "
                                   f"{signal.strsignal(info.si_status) or name}. ")


def _set_SIGCHLD_handler():
    """Chains a SIGCHLD handler that checks the registered workers (once per process)."""
    global _SIGCHLD_handler_set
    if _SIGCHLD_handler_set or not hasattr(signal, "SIGCHLD"):
        return
    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGCHLD)
    previous = previous if callable(previous) else None

    def handler(signum, frame):
        _error_if_any_worker_fails()
        if previous is not None:
            previous(signum, frame)

    signal.signal(signal.SIGCHLD, handler)
    _SIGCHLD_handler_set = True
