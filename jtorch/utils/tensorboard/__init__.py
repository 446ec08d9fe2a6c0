"""``torch.utils.tensorboard``: write TensorBoard event files (scalars, histograms, images,
text, hyperparameters) from jtorch tensors, on the ``tensorboard`` package
(``pip install jtorch[tensorboard]``).

Differences from PyTorch:
    When ``tensorboard`` is not installed, importing this module raises ImportError with
    PyTorch's message for a too-old TensorBoard ("TensorBoard logging requires TensorBoard
    version 1.15 or above"), chained to the ModuleNotFoundError; PyTorch lets the bare
    ``ModuleNotFoundError: No module named 'tensorboard'`` through.
"""

try:
    import tensorboard
except ImportError as error:
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above") from error


def _version_tuple(version: str) -> tuple:
    """``"2.21.0"`` -> ``(2, 21)``: the major and minor numbers of a version string."""
    parts = (version.split(".") + ["0"])[:2]
    return tuple(int("".join(c for c in p if c.isdigit()) or 0) for p in parts)


if _version_tuple(getattr(tensorboard, "__version__", "0")) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

from tensorboard.summary.writer.record_writer import RecordWriter as RecordWriter  # noqa: E402

from .writer import (
    FileWriter as FileWriter,  # noqa: E402
    SummaryWriter as SummaryWriter,  # noqa: E402
)

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
