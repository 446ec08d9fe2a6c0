"""``torch._utils``: the helpers of PyTorch's private utility module that libraries import
(torchdata's ``ExceptionWrapper``). Any other name PyTorch has there raises
NotImplementedError naming it."""

from ._core.errors import missing_names
from .utils.data._worker import ExceptionWrapper
from .utils.data.dataloader import cpu_count

__all__ = ["ExceptionWrapper", "cpu_count"]

__getattr__ = missing_names("torch._utils", ("_rebuild_tensor_v2", "_flatten_dense_tensors",
                                             "_unflatten_dense_tensors", "_get_device_index"))
