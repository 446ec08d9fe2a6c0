"""``torch.utils.data._utils``: the DataLoader's worker, fetch, collate, pin-memory and
signal-handling helpers, which libraries that re-implement the DataLoader (torchdata's
StatefulDataLoader) import. ``worker`` and ``collate`` are jtorch's own modules (so that
``_utils.worker._worker_info``, which such a worker loop sets, is what ``get_worker_info``
reads)."""

import atexit
import sys

from .. import _collate as collate, _worker as worker
from .._worker import MP_STATUS_CHECK_INTERVAL, ExceptionWrapper

sys.modules[f"{__name__}.worker"] = worker
sys.modules[f"{__name__}.collate"] = collate

from . import fetch, pin_memory, signal_handling  # noqa: E402

__all__ = ["HAS_NUMPY", "IS_WINDOWS", "MP_STATUS_CHECK_INTERVAL", "ExceptionWrapper", "collate",
           "fetch", "pin_memory", "python_exit_status", "signal_handling", "worker"]

IS_WINDOWS = sys.platform == "win32"
HAS_NUMPY = True  # jtorch requires NumPy
python_exit_status = False  # set once the interpreter starts shutting down


@atexit.register
def _set_python_exit_flag():
    global python_exit_status
    python_exit_status = True
