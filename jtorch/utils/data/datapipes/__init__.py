"""``torch.utils.data.datapipes``: jtorch has no DataPipes (deprecated in PyTorch); the
classes are stand-ins raising NotImplementedError when made, so ``isinstance`` checks work."""

from . import datapipe, iter  # noqa: A004 (PyTorch's submodule name)

__all__ = ["datapipe", "iter"]
