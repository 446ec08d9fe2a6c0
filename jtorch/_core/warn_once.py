"""PyTorch's ``TORCH_WARN_ONCE``: a warning given once per process, or every time while
``torch.set_warn_always(True)`` is on. Every once-only warning of jtorch goes through
:func:`warn_once`, so one switch and one record of what was shown serve them all."""

from __future__ import annotations

import warnings

_SHOWN: set[str] = set()   # the keys of the once-only warnings given so far
_ALWAYS = [False]          # torch.set_warn_always


def set_always(on):
    """``torch.set_warn_always``: give once-only warnings every time."""
    _ALWAYS[0] = bool(on)


def is_always():
    """``torch.is_warn_always_enabled``."""
    return _ALWAYS[0]


def warn_once(key, message, category=UserWarning, stacklevel=2):
    """Warn ``message`` (a string, or a function that builds it only when it is shown) the
    first time ``key`` is seen in this process (every time under :func:`set_always`).
    ``stacklevel`` counts as ``warnings.warn``'s does, from the caller."""
    if _ALWAYS[0] or key not in _SHOWN:
        _SHOWN.add(key)
        warnings.warn(message() if callable(message) else message, category,
                      stacklevel=stacklevel + 1)


def forget(key):
    """Show ``key``'s warning again at its next occasion (tests of the warning itself)."""
    _SHOWN.discard(key)
