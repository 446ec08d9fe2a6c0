"""``torch._utils``: the helpers of PyTorch's private utility module that libraries import
(torchdata's ``ExceptionWrapper``, neuraloperator's ``_flatten_dense_tensors``). Any other
name PyTorch has there raises NotImplementedError naming it."""

from . import accelerator
from ._core.errors import missing_names
from ._device_modules import get_device_module as _get_device_module
from ._ops.shape_copy import cat
from .utils.data._worker import ExceptionWrapper
from .utils.data.dataloader import cpu_count

__all__ = ["ExceptionWrapper", "_flatten_dense_tensors", "_get_available_device_type",
           "_get_device_module", "_unflatten_dense_tensors", "cpu_count"]


def _get_available_device_type():
    """The accelerator's device type ("cuda"), or None on a CPU-only machine (tensordict
    asks)."""
    current = accelerator.current_accelerator()
    return None if current is None else current.type


def _flatten_dense_tensors(tensors):
    """The dense ``tensors`` flattened and concatenated into one contiguous 1-D buffer."""
    tensors = list(tensors)
    if len(tensors) == 1:
        return tensors[0].reshape(-1)
    return cat([t.reshape(-1) for t in tensors])


def _unflatten_dense_tensors(flat, tensors):
    """Views of ``flat`` (from ``_flatten_dense_tensors(tensors)``) shaped as ``tensors``."""
    outputs, offset = [], 0
    for t in tensors:
        n = t.numel()
        outputs.append(flat.narrow(0, offset, n).view_as(t))
        offset += n
    return tuple(outputs)

__getattr__ = missing_names("torch._utils", ("_rebuild_tensor_v2", "_get_device_index"))
