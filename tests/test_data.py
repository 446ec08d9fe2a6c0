"""jtorch.utils.data (single process) against real torch.utils.data: datasets, samplers,
collation, DataLoader arguments and lengths."""

import collections
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as TD
from helpers import raises_like

import jtorch
import jtorch.utils.data as JD

Point = collections.namedtuple("Point", "x y")


def canon(x):
    """A library-neutral form of a batch: tensors -> (dtype name, shape, values)."""
    if isinstance(x, (torch.Tensor, jtorch.Tensor)):
        arr = np.asarray(x.detach().numpy() if isinstance(x, torch.Tensor) else x.numpy())
        return ("T", str(x.dtype).split(".")[-1], tuple(x.shape), arr.tolist())
    if isinstance(x, dict):
        return ("dict", type(x).__name__, {k: canon(v) for k, v in x.items()})
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return ("nt", type(x).__name__, [canon(v) for v in x])
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [canon(v) for v in x])
    if isinstance(x, np.ndarray):
        return ("np", str(x.dtype), x.tolist())
    return x


class ListDS:
    """A map-style dataset over a list, built as a subclass of each library's Dataset."""

    @staticmethod
    def make(lib, samples):
        class _DS(lib.utils.data.Dataset):
            def __len__(self):
                return len(samples)

            def __getitem__(self, i):
                return samples[i]
        return _DS()


def _samples(lib, kind):
    rng = np.random.default_rng(0)
    n = 7
    if kind == "tensor_pair":
        x = rng.standard_normal((n, 3)).astype(np.float32)
        return [(lib.tensor(x[i]), lib.tensor(i)) for i in range(n)]
    if kind == "numpy":
        x = rng.standard_normal((n, 2, 2))
        return [(x[i], x[i].astype(np.float32), np.int32(i), np.float32(i / 2), np.bool_(i % 2))
                for i in range(n)]
    if kind == "python":
        return [(float(i) / 3, i, bool(i % 2), f"s{i}", b"b") for i in range(n)]
    if kind == "dict":
        return [{"a": lib.tensor([i, i + 1]), "b": float(i), "c": {"d": [i, i * 2]}}
                for i in range(n)]
    if kind == "namedtuple":
        return [Point(lib.ones(2, dtype=lib.float64) * i, i) for i in range(n)]
    if kind == "list":
        return [[i, [float(i), lib.tensor(i, dtype=lib.int32)]] for i in range(n)]
    if kind == "uint8_img":
        x = rng.integers(0, 255, (n, 4, 4), dtype=np.uint8)
        return [x[i] for i in range(n)]
    raise AssertionError(kind)


KINDS = ["tensor_pair", "numpy", "python", "dict", "namedtuple", "list", "uint8_img"]


@pytest.mark.parametrize("kind", KINDS)
def test_batches_equal_torch(kind):
    for kw in ({"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None},
               {"batch_size": 7}):
        tl = TD.DataLoader(ListDS.make(torch, _samples(torch, kind)), **kw)
        jl = JD.DataLoader(ListDS.make(jtorch, _samples(jtorch, kind)), **kw)
        assert len(jl) == len(tl)
        assert [canon(b) for b in jl] == [canon(b) for b in tl], (kind, kw)


def test_tensor_dataset_and_wrappers_equal_torch():
    x = np.arange(30, dtype=np.float32).reshape(10, 3)
    y = np.arange(10)

    def build(lib):
        D = lib.utils.data
        td = D.TensorDataset(lib.tensor(x), lib.tensor(y))
        return [td, D.Subset(td, [9, 2, 4, 4, 0]), td + td,
                D.ConcatDataset([td, D.Subset(td, [1])]),
                D.StackDataset(td, td), D.StackDataset(a=td, b=td)]

    for tds, jds in zip(build(torch), build(jtorch)):
        for bs in (1, 4):
            tb = [canon(b) for b in TD.DataLoader(tds, batch_size=bs)]
            jb = [canon(b) for b in JD.DataLoader(jds, batch_size=bs)]
            assert jb == tb
        assert len(jds) == len(tds)
        assert canon(jds[-1]) == canon(tds[-1])


def test_collate_direct_dtypes():
    for kind in KINDS:
        t = TD.default_collate(_samples(torch, kind))
        j = JD.default_collate(_samples(jtorch, kind))
        assert canon(j) == canon(t), kind
    for sample in (np.float32(2.5), np.arange(3), 3, "x", (np.arange(2), 1.5),
                   {"k": np.ones(2, np.float16)}, np.array(["a", "b"])):
        assert canon(JD.default_convert(sample)) == canon(TD.default_convert(sample))


def test_collate_errors():
    raises_like(lambda: TD.default_collate([object(), object()]),
                lambda: JD.default_collate([object(), object()]))
    raises_like(lambda: TD.default_collate([np.array(["a"]), np.array(["b"])]),
                lambda: JD.default_collate([np.array(["a"]), np.array(["b"])]))
    raises_like(lambda: TD.default_collate([[1, 2], [1]]),
                lambda: JD.default_collate([[1, 2], [1]]))
    raises_like(lambda: TD.default_collate([torch.zeros(3), torch.zeros(4)]),
                lambda: JD.default_collate([jtorch.zeros(3), jtorch.zeros(4)]))


def test_collate_keeps_autograd():
    a = jtorch.ones(2, requires_grad=True)
    out = JD.default_collate([a, a * 2])
    out.sum().backward()
    assert out.shape == (2, 2) and a.grad.tolist() == [3.0, 3.0]


def test_custom_collate_fn_and_batch_sampler():
    samples = list(range(10))
    for lib, D in ((torch, TD), (jtorch, JD)):
        ds = ListDS.make(lib, samples)
        out = list(D.DataLoader(ds, batch_sampler=[[3, 1], [0, 9, 8]], collate_fn=lambda b: b))
        assert out == [[3, 1], [0, 9, 8]]
    assert list(JD.DataLoader(ListDS.make(jtorch, samples), batch_size=4,
                              collate_fn=sum)) == [6, 22, 17]


def test_samplers_equal_torch():
    data = list(range(11))
    assert list(JD.SequentialSampler(data)) == list(TD.SequentialSampler(data))
    for bs in (1, 3, 11, 12):
        for dl in (False, True):
            t = TD.BatchSampler(TD.SequentialSampler(data), bs, dl)
            j = JD.BatchSampler(JD.SequentialSampler(data), bs, dl)
            assert list(j) == list(t) and len(j) == len(t)
    for n in (10, 11, 3):
        for reps in (1, 3, 4):
            for dl in (False, True):
                for rank in range(reps):
                    t = TD.DistributedSampler(range(n), reps, rank, shuffle=False, drop_last=dl)
                    j = JD.DistributedSampler(range(n), reps, rank, shuffle=False, drop_last=dl)
                    assert list(j) == list(t) and len(j) == len(t) and j.total_size == t.total_size


def test_distributed_sampler_shuffle():
    parts = [list(JD.DistributedSampler(range(20), 4, r, seed=3)) for r in range(4)]
    assert sorted(sum(parts, [])) == list(range(20))
    assert parts[1] == list(JD.DistributedSampler(range(20), 4, 1, seed=3))
    s = JD.DistributedSampler(range(20), 4, 1, seed=3)
    s.set_epoch(1)
    assert list(s) != parts[1] and len(s) == 5
    raises_like(lambda: TD.DistributedSampler(range(4), 2, 2),
                lambda: JD.DistributedSampler(range(4), 2, 2))


def test_random_samplers():
    data = list(range(50))
    jtorch.manual_seed(1)
    a = list(JD.RandomSampler(data))
    b = list(JD.RandomSampler(data))
    jtorch.manual_seed(1)
    assert list(JD.RandomSampler(data)) == a and sorted(a) == data and a != b
    g = jtorch.Generator().manual_seed(5)
    c = list(JD.RandomSampler(data, generator=g))
    assert list(JD.RandomSampler(data, generator=jtorch.Generator().manual_seed(5))) == c
    r = list(JD.RandomSampler(data, replacement=True, num_samples=70))
    assert len(r) == 70 and all(0 <= i < 50 for i in r)
    r = list(JD.RandomSampler(data, num_samples=120))  # whole permutations then a part
    assert sorted(r[:50]) == data and sorted(r[50:100]) == data and len(r) == 120
    s = list(JD.SubsetRandomSampler([3, 7, 9]))
    assert sorted(s) == [3, 7, 9]
    w = list(JD.WeightedRandomSampler([0.0, 1.0, 0.0, 2.0], 30))
    assert len(w) == 30 and set(w) <= {1, 3}
    w = list(JD.WeightedRandomSampler([1.0, 1.0, 5.0], 3, replacement=False))
    assert sorted(w) == [0, 1, 2]
    for tf, jf in [
        (lambda: TD.RandomSampler(data, replacement=1),
         lambda: JD.RandomSampler(data, replacement=1)),
        (lambda: TD.RandomSampler(data, num_samples=0),
         lambda: JD.RandomSampler(data, num_samples=0)),
        (lambda: TD.WeightedRandomSampler([1.0], 0), lambda: JD.WeightedRandomSampler([1.0], 0)),
        (lambda: TD.WeightedRandomSampler([[1.0]], 1),
         lambda: JD.WeightedRandomSampler([[1.0]], 1)),
        (lambda: TD.BatchSampler(data, 0, False), lambda: JD.BatchSampler(data, 0, False)),
        (lambda: TD.BatchSampler(data, 2, 1), lambda: JD.BatchSampler(data, 2, 1)),
    ]:
        raises_like(tf, jf)


def test_shuffle_every_index_once_and_seeded():
    ds = JD.TensorDataset(jtorch.arange(103))

    def epoch(loader):
        return [int(v) for (b,) in loader for v in b.tolist()]

    jtorch.manual_seed(0)
    loader = JD.DataLoader(ds, batch_size=10, shuffle=True)
    e1, e2 = epoch(loader), epoch(loader)
    assert sorted(e1) == sorted(e2) == list(range(103)) and e1 != e2
    jtorch.manual_seed(0)
    assert epoch(loader) == e1
    g = jtorch.Generator().manual_seed(7)
    e3 = epoch(JD.DataLoader(ds, batch_size=10, shuffle=True, generator=g))
    g.manual_seed(7)
    assert epoch(JD.DataLoader(ds, batch_size=10, shuffle=True, generator=g)) == e3


def test_datasets_and_errors():
    raises_like(lambda: TD.TensorDataset(torch.zeros(3), torch.zeros(4)),
                lambda: JD.TensorDataset(jtorch.zeros(3), jtorch.zeros(4)))
    raises_like(lambda: TD.ConcatDataset([]), lambda: JD.ConcatDataset([]))
    raises_like(lambda: TD.StackDataset(), lambda: JD.StackDataset())
    raises_like(lambda: TD.StackDataset([1], [1, 2]), lambda: JD.StackDataset([1], [1, 2]))
    raises_like(lambda: TD.Dataset()[0], lambda: JD.Dataset()[0])
    cat = JD.ConcatDataset([[1, 2], [3]])
    assert [cat[i] for i in range(-3, 3)] == [1, 2, 3, 1, 2, 3] and cat.cumulative_sizes == [2, 3]
    raises_like(lambda: TD.ConcatDataset([[1, 2], [3]])[-4], lambda: cat[-4])
    jt_chain = JD.ChainDataset([_Iter(3), _Iter(2)])
    assert list(jt_chain) == [0, 1, 2, 0, 1] and len(jt_chain) == 5
    assert list(_Iter(2) + _Iter(1)) == [0, 1, 0]


def test_random_split():
    for lengths in ([3, 7], [0.3, 0.7], [0.25, 0.25, 0.5], [1 / 3] * 3, [0.5, 0.5, 0.0]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = TD.random_split(range(10), lengths)
            j = JD.random_split(range(10), lengths)
        assert [len(s) for s in j] == [len(s) for s in t]
        assert sorted(i for s in j for i in s) == list(range(10))
    g = jtorch.Generator().manual_seed(3)
    a = [list(s) for s in JD.random_split(range(10), [5, 5], generator=g)]
    g.manual_seed(3)
    assert [list(s) for s in JD.random_split(range(10), [5, 5], generator=g)] == a
    raises_like(lambda: TD.random_split(range(10), [3, 3]),
                lambda: JD.random_split(range(10), [3, 3]))
    raises_like(lambda: TD.random_split(range(10), [1.5, -0.5]),
                lambda: JD.random_split(range(10), [1.5, -0.5]))
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        JD.random_split(range(2), [1.0, 0.0])


class _Iter(JD.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


class _TIter(TD.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def test_iterable_dataset_loader():
    for kw in ({"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None}):
        t, j = TD.DataLoader(_TIter(8), **kw), JD.DataLoader(_Iter(8), **kw)
        assert len(j) == len(t)
        assert [canon(b) for b in j] == [canon(b) for b in t]
    loader = JD.DataLoader(_Iter(5), batch_size=None)
    assert len(loader) == 5
    loader.dataset.n = 6  # now yields more than len() reported: PyTorch warns
    with pytest.warns(UserWarning, match="was reported to be 5"):
        list(loader)


def test_loader_argument_errors():
    ds_t, ds_j = list(range(5)), list(range(5))
    cases = [
        {"num_workers": -1}, {"timeout": -1}, {"prefetch_factor": 2},
        {"num_workers": 1, "prefetch_factor": -1}, {"persistent_workers": True},
        {"sampler": [0, 1], "shuffle": True}, {"batch_sampler": [[0]], "batch_size": 2},
        {"batch_sampler": [[0]], "drop_last": True}, {"batch_size": None, "drop_last": True},
        {"num_workers": 1, "multiprocessing_context": "nope"},
        {"multiprocessing_context": "spawn"}, {"num_workers": 1, "multiprocessing_context": 3},
    ]
    for kw in cases:
        raises_like(lambda kw=kw: TD.DataLoader(ds_t, **kw),
                    lambda kw=kw: JD.DataLoader(ds_j, **kw))
    for kw in ({"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}):
        raises_like(lambda kw=kw: TD.DataLoader(_TIter(2), **kw),
                    lambda kw=kw: JD.DataLoader(_Iter(2), **kw))
    tl, jl = TD.DataLoader(ds_t), JD.DataLoader(ds_j)
    raises_like(lambda: setattr(tl, "batch_size", 3), lambda: setattr(jl, "batch_size", 3))
    raises_like(lambda: iter(TD.DataLoader(ds_t, timeout=1)),
                lambda: iter(JD.DataLoader(ds_j, timeout=1)))
    assert JD.get_worker_info() is None
    with warnings.catch_warnings():  # without an accelerator it warns, as PyTorch does
        warnings.filterwarnings("ignore", "'pin_memory' argument is set", UserWarning)
        assert list(JD.DataLoader(ds_j, pin_memory=True, batch_size=5))[0].tolist() == ds_j


def test_loader_lengths_equal_torch():
    for kw in ({}, {"batch_size": 4}, {"batch_size": 4, "drop_last": True}, {"batch_size": None},
               {"sampler": [1, 2, 3]}, {"batch_sampler": [[1], [2, 3]]},
               {"batch_size": 3, "sampler": JD.RandomSampler(range(10), num_samples=7)}):
        tkw = dict(kw)
        if "sampler" in kw and not isinstance(kw["sampler"], list):
            tkw["sampler"] = TD.RandomSampler(range(10), num_samples=7)
        n = len(TD.DataLoader(list(range(10)), **tkw))
        assert len(JD.DataLoader(list(range(10)), **kw)) == n


DATA_CLASSES = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
                "DistributedSampler", "IterableDataset", "RandomSampler", "Sampler",
                "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler",
                "TensorDataset", "WeightedRandomSampler"]


@pytest.mark.parametrize("name", DATA_CLASSES)
def test_data_classes_are_generic_as_torch(name):
    """``Sampler[list[int]]``, ``Dataset[int]``...: libraries subclass them subscripted (timm's
    ``ScheduledBatchSampler(Sampler[List[Tuple[Any, int]]])``)."""
    t_cls, j_cls = getattr(torch.utils.data, name), getattr(jtorch.utils.data, name)
    assert len(j_cls.__parameters__) == len(t_cls.__parameters__)
    assert type(j_cls).__name__ == type(t_cls).__name__   # (IterableDataset: an ABC)
    if j_cls.__parameters__:
        class Sub(j_cls[int]):
            pass
        assert issubclass(Sub, j_cls)
