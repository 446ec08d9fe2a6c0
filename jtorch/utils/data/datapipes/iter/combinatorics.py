"""``torch.utils.data.datapipes.iter.combinatorics``: stand-ins for PyTorch's sampling and
shuffling DataPipes (NotImplementedError when made). DataLoader wrappers import them to test
``isinstance(dataset, ShufflerIterDataPipe)`` (accelerate's ``DataLoaderDispatcher``), which
is False for every jtorch dataset."""

from ....._core.errors import missing_class
from ..datapipe import IterDataPipe

__all__ = ["SamplerIterDataPipe", "ShufflerIterDataPipe"]

SamplerIterDataPipe = missing_class(
    "torch.utils.data.datapipes.iter.combinatorics.SamplerIterDataPipe", bases=(IterDataPipe,))
ShufflerIterDataPipe = missing_class(
    "torch.utils.data.datapipes.iter.combinatorics.ShufflerIterDataPipe", bases=(IterDataPipe,))
