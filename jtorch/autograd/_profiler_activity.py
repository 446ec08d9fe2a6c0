"""``ProfilerActivity`` and ``kineto_available``: published by ``torch.autograd`` and
``torch.profiler`` alike (the same objects, as in PyTorch)."""

from __future__ import annotations

import enum

__all__ = ["ProfilerActivity", "kineto_available"]


class ProfilerActivity(enum.Enum):
    """The activity groups a profiler may collect (PyTorch's values)."""

    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5

    def __int__(self):
        return self.value


def kineto_available():
    """True: the ``torch.profiler`` API is available (jtorch's own, not Kineto)."""
    return True
