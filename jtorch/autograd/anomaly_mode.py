"""torch.autograd.anomaly_mode: ``detect_anomaly`` and ``set_detect_anomaly`` (PyTorch's), and
the flag functions PyTorch publishes as ``torch.is_anomaly_enabled``,
``torch.is_anomaly_check_nan_enabled`` and ``torch.set_anomaly_enabled``.

In anomaly mode every graph node made in the forward pass keeps the stack of the call that
made it (in ``grad_fn.metadata["traceback_"]``, as PyTorch); when its backward fails, a
UserWarning "Error detected in SqrtBackward0. Traceback of forward call that caused the
error: ..." shows that stack before the error propagates. With ``check_nan`` (the default) a
backward node that returns a gradient holding NaN raises "Function 'SqrtBackward0' returned
nan values in its 0th output." (the index among the node's ``next_functions``). The engine
reads the flags once per backward, so with the mode off nothing is checked or recorded.

Differences from PyTorch:
    - The recorded stack leaves out the innermost frames inside jtorch (PyTorch's are C++, so
      they are not in its stack either); PyTorch's " (Triggered internally at ...)" suffix of
      the warning, a C++ source location, is not there.
    - With ``create_graph=True`` PyTorch also warns "Previous calculation was induced by ..."
      for the node whose backward made the failing node; jtorch warns for the failing node only.
    - Gradients computed inside a ``jtorch.compile`` trace are abstract, so they are not
      checked for NaN.
"""

from __future__ import annotations

import warnings

from .._core.state import ANOMALY

__all__ = ["detect_anomaly", "set_detect_anomaly"]


def is_anomaly_enabled():
    """``torch.is_anomaly_enabled()``: whether anomaly mode is on."""
    return ANOMALY.enabled


def is_anomaly_check_nan_enabled():
    """``torch.is_anomaly_check_nan_enabled()``: whether anomaly mode checks for NaN."""
    return ANOMALY.check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    """``torch.set_anomaly_enabled(enabled, check_nan=True)``: set the process-wide flags."""
    ANOMALY.enabled = bool(enabled)
    ANOMALY.check_nan = bool(check_nan)


class detect_anomaly:  # noqa: N801 - PyTorch's name
    """Context-manager that enables anomaly detection for the autograd engine (see the module
    docstring); warns, as PyTorch, that the mode is for debugging.

    Args:
        check_nan: raise when a backward computation returns NaN. Default ``True``.

    Example:
        >>> with torch.autograd.detect_anomaly():
        ...     x = torch.tensor([-1.0], requires_grad=True)
        ...     x.sqrt().sum().backward()
        RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan=True) -> None:
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:  # noqa: N801 - PyTorch's name
    """Context-manager (or function) that sets anomaly detection on or off; see
    :class:`detect_anomaly`.

    Args:
        mode: enable (``True``) or disable (``False``) anomaly detection.
        check_nan: raise when a backward computation returns NaN. Default ``True``.
    """

    def __init__(self, mode, check_nan=True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)
