"""``torch.utils.data.datapipes.datapipe``: stand-in DataPipe classes (NotImplementedError when
made; ``isinstance(x, IterDataPipe)`` is False for every jtorch dataset)."""

from ...._core.errors import missing_class
from .. import IterDataPipe, MapDataPipe

__all__ = ["IterDataPipe", "MapDataPipe"]

_IterDataPipeSerializationWrapper = missing_class(
    "torch.utils.data.datapipes.datapipe._IterDataPipeSerializationWrapper")
_MapDataPipeSerializationWrapper = missing_class(
    "torch.utils.data.datapipes.datapipe._MapDataPipeSerializationWrapper")
