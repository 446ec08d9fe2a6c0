"""``torch.utils.data.datapipes.iter``: PyTorch's iterable DataPipes by their functional names.
jtorch has none (PyTorch deprecated DataPipes): ``Sampler`` and ``Shuffler`` are the stand-in
classes of :mod:`.combinatorics`; reading any other raises NotImplementedError naming it."""

from ....._core.errors import missing_names
from . import combinatorics
from .combinatorics import SamplerIterDataPipe as Sampler, ShufflerIterDataPipe as Shuffler

__all__ = ["Sampler", "Shuffler", "combinatorics"]

__getattr__ = missing_names("torch.utils.data.datapipes.iter", (
    "Batcher", "Collator", "Concater", "Demultiplexer", "FileLister", "FileOpener", "Filter",
    "Forker", "Grouper", "IterableWrapper", "Mapper", "Multiplexer", "RoutedDecoder",
    "ShardingFilter", "StreamReader", "UnBatcher", "Zipper"))
