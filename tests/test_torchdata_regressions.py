"""Regressions found by running torchdata 0.11 unchanged under jtorch
(scripts/real_drivers/torchdata_pipelines.py, docs/real-programs.md): torchdata's
StatefulDataLoader re-implements the DataLoader on torch.utils.data's internals. Each test is a
small stand-in for what the library did, in jtorch and in real PyTorch."""

import importlib
import sys

import pytest
import torch

import jtorch
from jtorch.utils.data import _utils as jt_utils, dataloader as jt_dl

TD = ("torch.utils.data._utils.worker", "torch.utils.data._utils.fetch",
      "torch.utils.data._utils.pin_memory", "torch.utils.data._utils.signal_handling",
      "torch.utils.data._utils.collate", "torch.utils.data.graph_settings",
      "torch.utils.data.datapipes.datapipe", "torch._utils")


@pytest.mark.parametrize("name", TD)
def test_private_data_modules_import(name):
    # `import torch.utils.data._utils.worker` etc. failed (ModuleNotFoundError) at import
    # torchdata.stateful_dataloader; torch._utils at import torchdata.nodes
    mod = importlib.import_module(name.replace("torch", "jtorch", 1))
    assert importlib.import_module(name) is not None and mod is not None
    assert sys.modules[name.replace("torch", "jtorch", 1)] is mod


def test_worker_info_is_read_from_utils_worker():
    # torchdata's worker loop sets torch.utils.data._utils.worker._worker_info; the dataset
    # reads it back through torch.utils.data.get_worker_info()
    info = jt_utils.worker.WorkerInfo(id=1, num_workers=2, seed=5, dataset=None)
    jt_utils.worker._worker_info = info
    try:
        assert jtorch.utils.data.get_worker_info() is info
    finally:
        jt_utils.worker._worker_info = None
    assert jtorch.utils.data.get_worker_info() is None


@pytest.mark.parametrize(("base_seed", "worker_id"), [(0, 0), (123456789012345, 3),
                                                      (2**63 - 1, 1)])
def test_generate_state(base_seed, worker_id):
    # the NumPy seed of each worker (torchdata seeds np.random with it)
    from torch.utils.data._utils.worker import _generate_state
    assert jt_utils.worker._generate_state(base_seed, worker_id) == \
        _generate_state(base_seed, worker_id)


class _Squares:
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return i * i


class _Count:
    def __iter__(self):
        return iter(range(7))


@pytest.mark.parametrize("drop_last", [False, True])
def test_create_fetcher(drop_last):
    # _DatasetKind.create_fetcher(...).fetch(index), and .dataset/.dataset_iter/.ended on the
    # iterable fetcher (torchdata's state_dict reads them: AttributeError)
    from torch.utils.data import _DatasetKind as TK, default_collate as tcol
    JK = jtorch.utils.data._DatasetKind
    jf = JK.create_fetcher(JK.Map, _Squares(), True, lambda b: b, drop_last)
    tf = TK.create_fetcher(TK.Map, _Squares(), True, lambda b: b, drop_last)
    assert jf.fetch([1, 3]) == tf.fetch([1, 3])
    ds_j, ds_t = _Count(), _Count()
    jf = JK.create_fetcher(JK.Iterable, ds_j, True, jtorch.utils.data.default_collate, drop_last)
    tf = TK.create_fetcher(TK.Iterable, ds_t, True, tcol, drop_last)
    assert jf.dataset is ds_j and tf.dataset is ds_t
    for _ in range(2):
        assert jf.fetch([None] * 3).tolist() == tf.fetch([None] * 3).tolist()
    assert jf.ended == tf.ended
    for f in (jf, tf):
        if drop_last:
            with pytest.raises(StopIteration):
                f.fetch([None] * 3)
        else:
            assert f.fetch([None] * 3).tolist() == [6]
        assert f.ended


def test_base_iter_attributes():
    # _BaseDataLoaderIter fields a subclass reads: _shared_seed, _world_size, _rank,
    # _pin_memory, _pin_memory_device
    jit = iter(jtorch.utils.data.DataLoader(list(range(4)), batch_size=2))
    tit = iter(torch.utils.data.DataLoader(list(range(4)), batch_size=2))
    for name in ("_shared_seed", "_world_size", "_rank", "_pin_memory", "_pin_memory_device"):
        assert getattr(jit, name) == getattr(tit, name), name


def test_resume_iteration_seed():
    from torch.utils.data._utils.worker import _ResumeIteration
    assert jt_utils.worker._ResumeIteration(7).seed == _ResumeIteration(7).seed == 7
    assert jt_utils.worker._ResumeIteration().seed is _ResumeIteration().seed is None


def test_set_vital_is_deprecated():
    # StatefulDataLoader.__init__ calls torch.set_vital (AttributeError); PyTorch 2.13 warns
    for T in (jtorch, torch):
        with pytest.warns(UserWarning, match="'set_vital' is deprecated"):
            assert T.set_vital("Dataloader", "enabled", "True") is None


def test_check_worker_number_rationality():
    many = jt_dl.cpu_count() + 1
    assert many - 1 == torch._utils.cpu_count()
    for T in (jtorch, torch):
        with pytest.warns(UserWarning, match=f"create {many} worker processes"):
            T.utils.data.DataLoader(list(range(3)), num_workers=many)
        T.utils.data.DataLoader(list(range(3)), num_workers=1).check_worker_number_rationality()


def test_datapipe_stand_ins():
    from jtorch.utils.data import IterDataPipe, graph_settings
    assert not isinstance(jtorch.utils.data.TensorDataset(jtorch.ones(2)), IterDataPipe)
    with pytest.raises(NotImplementedError, match="graph_settings.apply_random_seed"):
        graph_settings.apply_random_seed(None, None)


def test_signal_handling_pids():
    sh = jt_utils.signal_handling
    sh._set_worker_pids(12345, (1, 2))
    with pytest.raises(RuntimeError, match="only once"):
        sh._set_worker_pids(12345, (1, 2))
    sh._remove_worker_pids(12345)
    with pytest.raises(RuntimeError, match="Cannot find worker information"):
        sh._remove_worker_pids(12345)


def test_own_worker_loop_is_told_spawn_not_none():
    # StatefulDataLoader takes a None multiprocessing_context as torch.multiprocessing's
    # default (fork on Linux), and its forked workers hung at their first JAX op; jtorch's
    # getter gives the context workers start in: spawn for a loop that is not jtorch's own
    import multiprocessing as mp

    class Squares(jtorch.utils.data.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return jtorch.tensor(i) ** 2

    class OwnLoop(jtorch.utils.data.DataLoader):
        def _get_iterator(self):
            return super()._get_iterator()

    assert OwnLoop(Squares(), num_workers=2).multiprocessing_context.get_start_method() == \
        "spawn"
    assert jtorch.utils.data.DataLoader(Squares(), num_workers=2) \
        .multiprocessing_context.get_start_method() == "spawn"   # user code runs jtorch ops
    assert jtorch.utils.data.DataLoader(Squares()).multiprocessing_context is None
    fork = mp.get_context("fork")
    given = jtorch.utils.data.DataLoader(Squares(), num_workers=2, multiprocessing_context=fork)
    assert given.multiprocessing_context is fork
    assert torch.utils.data.DataLoader(list(range(4)), num_workers=2) \
        .multiprocessing_context is None   # PyTorch's: None, meaning its default (fork)
