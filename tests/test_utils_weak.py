"""torch.utils.weak and torch.utils.set_module on jtorch against PyTorch: identity-keyed weak
dictionaries of tensors (entries go with their keys), weak references, and their errors."""

from __future__ import annotations

import gc
import importlib

import pytest
import torch

import jtorch


def _facts(T):
    W = importlib.import_module(T.__name__ + ".utils.weak")
    d = W.WeakIdKeyDictionary()
    a, b = T.zeros(2), T.zeros(2)   # equal values, different objects: two keys
    d[a] = 1
    d[b] = 2
    d.setdefault(b, 5)
    before = (len(d), d[a], d[b], b in d, T.zeros(2) in d, d.get(T.ones(1), "absent"),
              W.WeakTensorKeyDictionary is W.WeakIdKeyDictionary)
    del a
    gc.collect()
    after = (len(d), list(d.values()), len(d.copy()), d.pop(b), len(d),
             W.TensorWeakRef(b)() is b, W.WeakIdRef(b) == W.WeakIdRef(b),
             hash(W.WeakIdRef(b)) == id(b))
    c = T.ones(1)
    r = W.TensorWeakRef(c)
    del c
    gc.collect()

    def fn():
        return None

    T.utils.set_module(fn, "my.module")
    return before, after, r(), fn.__module__


def test_weak_dictionaries_and_refs_as_torch():
    assert _facts(jtorch) == _facts(torch)


def test_errors_as_torch():
    for T in (torch, jtorch):
        W = importlib.import_module(T.__name__ + ".utils.weak")
        with pytest.raises(TypeError, match="The mod argument should be a string"):
            T.utils.set_module(len, 3)
        with pytest.raises(AssertionError, match="expected torch.Tensor"):
            W.TensorWeakRef([1])
        with pytest.raises(KeyError):
            W.WeakIdKeyDictionary()[T.zeros(1)]
