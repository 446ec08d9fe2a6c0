"""Helpers of the layers that come in 1d, 2d and 3d variants (convolutions, pooling, padding)."""

from __future__ import annotations

from collections.abc import Iterable


def as_tuple(value, n):
    """``value`` as an ``n``-tuple: an iterable (not a string) as it is, anything else repeated
    ``n`` times (PyTorch's ``torch.nn.modules.utils._ntuple``)."""
    if isinstance(value, Iterable) and not isinstance(value, str):
        return tuple(value)
    return (value,) * n


def ndim_variants(base, name, functionals=None, dims=(1, 2, 3)):
    """The classes ``name.format(n)`` for n in ``dims``: subclasses of ``base`` with
    ``_spatial_dims = n`` and, given ``functionals`` (one per n), the functional their
    forward calls (``base`` is then a :class:`CallsFunctional`)."""
    classes = []
    for i, n in enumerate(dims):
        namespace = {"_spatial_dims": n, "__module__": base.__module__,
                     "__doc__": f"``torch.nn.{name.format(n)}``."}
        family = {} if functionals is None else {"functional": functionals[i]}
        classes.append(type(name.format(n), (base,), namespace, **family))
    return classes
