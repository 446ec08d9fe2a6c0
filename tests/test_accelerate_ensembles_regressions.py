"""Regressions found by running accelerate, torchensemble and kmeans-pytorch unchanged under
jtorch (scripts/real_drivers/accelerate_ensembles.py, docs/real-programs.md): each test is a
small stand-in for what the library did, in plain torch-API code, run in jtorch and in real
PyTorch."""

import importlib

import pytest
import torch

import jtorch


def test_shuffler_datapipe_isinstance_check():
    # accelerate's DataLoaderDispatcher (an IterableDataset through Accelerator.prepare) does
    # `from torch.utils.data.datapipes.iter.combinatorics import ShufflerIterDataPipe` and
    # isinstance(dataset, ShufflerIterDataPipe) (ModuleNotFoundError under jtorch)
    for T, prefix in ((torch, "torch"), (jtorch, "jtorch")):
        comb = importlib.import_module(f"{prefix}.utils.data.datapipes.iter.combinatorics")
        it = importlib.import_module(f"{prefix}.utils.data.datapipes.iter")
        for name in ("ShufflerIterDataPipe", "SamplerIterDataPipe"):
            cls = getattr(comb, name)
            assert cls.__name__ == name
            assert cls.__module__ == "torch.utils.data.datapipes.iter.combinatorics"
            assert issubclass(cls, T.utils.data.IterDataPipe)
        assert it.Shuffler is comb.ShufflerIterDataPipe
        assert it.Sampler is comb.SamplerIterDataPipe

        class Stream(T.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(3))

        for ds in (Stream(), T.utils.data.TensorDataset(T.ones(2))):
            assert not isinstance(ds, comb.ShufflerIterDataPipe)
    # jtorch has no DataPipes: making one, or reading another, names the PyTorch API
    from jtorch.utils.data.datapipes import iter as jt_iter
    with pytest.raises(NotImplementedError, match="ShufflerIterDataPipe"):
        jt_iter.Shuffler(range(3))
    with pytest.raises(NotImplementedError, match="datapipes.iter.Mapper"):
        jt_iter.Mapper  # noqa: B018
    with pytest.raises(AttributeError):
        jt_iter.NoSuchPipe  # noqa: B018
