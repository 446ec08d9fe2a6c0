"""torch.utils.weak: weak references and dictionaries keyed by object identity (a Tensor's
``__eq__`` is elementwise and its hash its id, so ``weakref.WeakKeyDictionary`` does not suit
tensors): ``WeakIdRef``, ``WeakIdKeyDictionary`` (``WeakTensorKeyDictionary``),
``TensorWeakRef``."""

from __future__ import annotations

import weakref
from collections.abc import MutableMapping
from weakref import ref

from .._tensor import Tensor

__all__ = ["TensorWeakRef", "WeakIdKeyDictionary", "WeakIdRef", "WeakTensorKeyDictionary",
           "WeakRef"]

WeakRef = ref


class WeakIdRef(weakref.ref):
    """A weak reference hashed by its referent's id and equal to another only while both
    referents are alive and the same object (a dead one equals only itself)."""

    __slots__ = ["_id"]

    def __init__(self, key, callback=None):
        self._id = id(key)
        super().__init__(key, callback)

    def __hash__(self):
        return self._id

    def __eq__(self, other):
        a, b = self(), other()
        if a is not None and b is not None:
            return a is b
        return self is other


class WeakIdKeyDictionary(MutableMapping):
    """A mapping whose keys are held weakly and compared by identity; an entry goes when its
    key is collected."""

    def __init__(self, dict=None, ref_type=WeakIdRef):  # noqa: A002 - PyTorch's name
        self.data = {}
        self.ref_type = ref_type

        def remove(k, selfref=ref(self)):
            owner = selfref()
            if owner is not None:
                owner.data.pop(k, None)

        self._remove = remove
        if dict is not None:
            self.update(dict)

    def __getitem__(self, key):
        return self.data[self.ref_type(key)]

    def __setitem__(self, key, value):
        self.data[self.ref_type(key, self._remove)] = value

    def __delitem__(self, key):
        del self.data[self.ref_type(key)]

    def __contains__(self, key):
        try:
            wr = self.ref_type(key)
        except TypeError:
            return False
        return wr in self.data

    def __iter__(self):
        for wr in list(self.data):
            obj = wr()
            if obj is not None:
                yield obj

    def __len__(self):
        return sum(1 for wr in list(self.data) if wr() is not None)

    def __repr__(self):
        return f"<{self.__class__.__name__} at {id(self):#x}>"

    def copy(self):
        return WeakIdKeyDictionary(dict(self.items()), self.ref_type)

    __copy__ = copy

    def get(self, key, default=None):
        return self.data.get(self.ref_type(key), default)

    def setdefault(self, key, default=None):
        return self.data.setdefault(self.ref_type(key, self._remove), default)

    def pop(self, key, *args):
        return self.data.pop(self.ref_type(key), *args)


WeakTensorKeyDictionary = WeakIdKeyDictionary


class TensorWeakRef:
    """A weak reference to a Tensor: calling it gives the tensor, or None once collected."""

    def __init__(self, tensor):
        if not isinstance(tensor, Tensor):
            raise AssertionError(f"expected torch.Tensor, got {type(tensor)}.")
        self.ref = weakref.ref(tensor)

    def __call__(self):
        return self.ref()
