"""Regressions found by running fastai unchanged under jtorch (scripts/real_drivers/
fastai_learners.py, docs/real-programs.md): each test is a small stand-in for what the library
did, in plain torch-API code, run in jtorch and in real PyTorch."""

import importlib
import importlib.util
import io
import itertools
import pickle
import types

import numpy as np
import pytest
import torch

import jtorch


def _subclasses(T):
    """fastai's TensorBase in miniature: ``__torch_function__`` lets a call through as plain
    Tensor when ``func`` was registered for the argument types (``register_func``), and logs
    the functions it sees."""
    seen = []

    class Base(T.Tensor):
        opt = {}

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            for oks in cls.opt.get(func, ()):
                if all(isinstance(a, ok) for a, ok in zip(args, oks) if ok):
                    types = (T.Tensor,)
            return super().__torch_function__(func, types, args, kwargs or {})

    class Image(Base):
        pass

    class Flow(Base):
        pass

    class Mask(Base):
        pass

    return Base, Image, Flow, Mask, seen


def _rand(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


def test_grid_sample_reaches_torch_function_as_itself():
    # fastai's aug_transforms: TensorImage.register_func(F.grid_sample, TensorImageBase,
    # TensorFlowField); jtorch passed the inner torch.grid_sampler_2d (TypeError: Multiple
    # dispatch failed for 'torch.grid_sampler_2d')
    out = {}
    for T in (jtorch, torch):
        Base, Image, Flow, _, seen = _subclasses(T)
        Base.opt[T.nn.functional.grid_sample] = [(Image, Flow)]
        x = T.tensor(_rand(1, 2, 5, 5)).as_subclass(Image).requires_grad_()
        g = T.tensor(_rand(1, 4, 3, 2, seed=1)).as_subclass(Flow)
        y = T.nn.functional.grid_sample(x, g, align_corners=False)
        assert seen[-1] is T.nn.functional.grid_sample
        assert type(y) is Image
        (y * y).sum().backward()
        out[T] = (y.detach().as_subclass(T.Tensor).numpy(), x.grad.numpy())
    for a, b in zip(out[jtorch], out[torch]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("form", ["varargs", "list"])
def test_einsum_reaches_torch_function_as_itself(form):
    # fastai: TensorMask.register_func(torch.einsum, str, TensorImageBase, TensorMask);
    # jtorch passed (equation, (operands,)) to the inner op, which no registration matched
    out = {}
    for T in (jtorch, torch):
        Base, Image, _, Mask, seen = _subclasses(T)
        Base.opt[T.einsum] = [(str, Image, Mask)]
        a = T.tensor(_rand(2, 3)).as_subclass(Image).requires_grad_()
        m = T.tensor(_rand(3, 2, seed=1)).as_subclass(Mask)
        y = T.einsum("ij,jk->ik", a, m) if form == "varargs" else \
            T.einsum("ij,jk->ik", [a, m])
        assert seen[-1] is T.einsum
        assert type(y) is Image
        y.sum().backward()
        out[T] = (y.detach().as_subclass(T.Tensor).numpy(), a.grad.numpy())
    for a, b in zip(out[jtorch], out[torch]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_eq_operator_passes_tensor_eq_and_declines_to_identity():
    # fastai registers Tensor.__eq__ for (TensorMask, TensorImageBase); jtorch passed torch.eq
    # (TypeError). PyTorch passes Tensor.__eq__ for ==, Tensor.ne for !=, and a comparison no
    # handler takes is NotImplemented, so Python falls back to identity
    res = {}
    for T in (jtorch, torch):
        Base, Image, _, Mask, seen = _subclasses(T)
        Base.opt[T.Tensor.__eq__] = [(Mask, Image)]
        m = T.tensor([[0.0, 1.0], [1.0, 0.0]]).as_subclass(Mask)
        i = T.tensor([[0.0, 2.0], [1.0, 1.0]]).as_subclass(Image)
        eq = m == i
        assert seen[-1] is T.Tensor.__eq__
        ne = i != m
        assert seen[-1] is T.Tensor.ne
        res[T] = (type(eq).__name__, eq.as_subclass(T.Tensor).tolist(), ne, i == i)
        assert type(res[T][3]).__name__ == "Image"
        res[T] = res[T][:3] + (res[T][3].as_subclass(T.Tensor).tolist(),)
    assert res[jtorch] == res[torch]
    assert res[torch][2] is True


class _FakeLoader:
    """fastai's _FakeLoader: not a DataLoader, only the attributes PyTorch's iterators read
    (fastai.data.load builds _SingleProcessDataLoaderIter(fake_loader))."""

    _IterableDataset_len_called, _auto_collation, drop_last, in_order = None, False, False, True
    generator, prefetch_factor = None, 2

    def __init__(self, T, batches):
        self._dataset_kind = T.utils.data.dataloader._DatasetKind.Iterable
        self._index_sampler = itertools.count()
        self.dataset, self.batches = self, batches
        self.pin_memory, self.num_workers, self.timeout = False, 0, 0
        self.persistent_workers, self.pin_memory_device = False, ""

    @staticmethod
    def collate_fn(x):
        return x

    def __iter__(self):
        return iter(self.batches)


def test_dataloader_iterator_of_a_duck_typed_loader():
    # AttributeError: '_FakeLoader' object has no attribute '_host_ok'
    got = {}
    for T in (jtorch, torch):
        batches = [T.arange(3.0) + k for k in range(3)]
        it = T.utils.data.dataloader._SingleProcessDataLoaderIter(_FakeLoader(T, batches))
        got[T] = [b.tolist() for b in it]
    assert got[jtorch] == got[torch] == [[0.0, 1.0, 2.0], [1.0, 2.0, 3.0], [2.0, 3.0, 4.0]]


def _scale(k):
    def fn(x):
        return x * k       # a closure: plain pickle cannot save it
    fn.scale_k = k
    return fn


class _ScalePickler(pickle.Pickler):
    """A pickle module's own Pickler, as cloudpickle's: what plain pickle cannot save (here a
    closure made by ``_scale``) it saves through ``reducer_override``."""

    def reducer_override(self, obj):
        k = getattr(obj, "scale_k", None)
        return (_scale, (k,)) if k is not None and callable(obj) else NotImplemented


# a pickle module (as torch.save's pickle_module= takes it) whose Pickler is _ScalePickler
_SCALE_PICKLE = types.SimpleNamespace(Pickler=_ScalePickler, Unpickler=pickle.Unpickler,
                                      load=pickle.load, loads=pickle.loads,
                                      __name__="scale_pickle")
# cloudpickle itself (fastai's), where installed: it is no test dependency
_MODULES = [_SCALE_PICKLE] + ([importlib.import_module("cloudpickle")]
                              if importlib.util.find_spec("cloudpickle") else [])


@pytest.mark.parametrize("pickle_module", _MODULES, ids=lambda m: m.__name__)
def test_save_with_a_pickle_module(tmp_path, pickle_module):
    # fastai's Learner.export: torch.save(learn, f, pickle_module=cloudpickle)
    # (jtorch: NotImplementedError: jtorch.save supports only the standard pickle module)
    obj = {"w": jtorch.tensor(_rand(2, 3)), "fn": _scale(3.0), "n": 4}
    path = tmp_path / "export.pkl"
    with pytest.raises((pickle.PicklingError, AttributeError)):
        jtorch.save(obj, io.BytesIO())
    jtorch.save(obj, path, pickle_module=pickle_module, pickle_protocol=2)
    want = {"w": torch.tensor(_rand(2, 3)), "fn": _scale(3.0), "n": 4}
    torch.save(want, tmp_path / "torch.pkl", pickle_module=pickle_module, pickle_protocol=2)
    for load, lib in ((jtorch.load, jtorch), (torch.load, torch)):
        for f in (path, tmp_path / "torch.pkl"):
            back = load(f, weights_only=False)
            assert isinstance(back["w"], lib.Tensor) and back["n"] == 4
            np.testing.assert_array_equal(back["w"].numpy(), _rand(2, 3))
            np.testing.assert_array_equal(back["fn"](back["w"]).numpy(), _rand(2, 3) * 3.0)
