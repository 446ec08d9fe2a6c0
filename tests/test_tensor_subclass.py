"""Tensor subclasses as PyTorch makes them: ``Tensor.as_subclass`` (an alias in the graph) and
``Tensor._make_subclass`` (a new leaf, how Parameter-like classes are built), with PyTorch's
values, gradients and errors; a class-level read of a Tensor name jtorch lacks names it."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch


def _classes(lib):
    class Marked(lib.Tensor):
        pass

    class Sub(Marked):
        pass

    return Marked, Sub


def test_as_subclass_is_an_alias_in_the_graph_as_torch():
    seen = {}
    for lib in (torch, jtorch):
        marked, sub = _classes(lib)
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = x.as_subclass(marked)
        z = y.as_subclass(sub)
        (z * z).sum().backward()
        base = lib.zeros(3)
        alias = base.as_subclass(marked)
        alias.add_(1.5)        # writes through the alias reach the base...
        base.mul_(2.0)         # ...and the other way round
        seen[lib] = {"types": (type(y) is marked, type(z) is sub, isinstance(z, lib.Tensor)),
                     "graph": (y.grad_fn.name(), y.requires_grad, y.is_leaf, y._is_view(),
                               y._base is x),
                     "grad": x.grad.numpy(), "base": base.numpy(),
                     "alias": alias.detach().numpy(),
                     "plain": type(lib.nn.Parameter(lib.ones(2)).as_subclass(lib.Tensor))
                     is lib.Tensor}
    t, j = seen[torch], seen[jtorch]
    for k in ("types", "graph", "plain"):
        assert j[k] == t[k], k
    for k in ("grad", "base", "alias"):
        np.testing.assert_array_equal(j[k], t[k])


def test_make_subclass_makes_a_leaf_of_the_class_as_torch():
    seen = {}
    for lib in (torch, jtorch):
        marked, _ = _classes(lib)
        w = lib.tensor([0.5, 2.0], requires_grad=True)
        y = w * 3
        p = lib.Tensor._make_subclass(marked, y, True)
        q = lib.Tensor._make_subclass(marked, y)
        (p * p).sum().backward()
        seen[lib] = {"p": (type(p) is marked, p.is_leaf, p.requires_grad, p.grad_fn is None),
                     "q": (type(q) is marked, q.requires_grad), "values": p.detach().numpy(),
                     "grad": p.grad.numpy(), "w_grad": w.grad,
                     "plain": type(lib.Tensor._make_subclass(lib.Tensor, y)) is lib.Tensor}
    t, j = seen[torch], seen[jtorch]
    assert j["p"] == t["p"] and j["q"] == t["q"] and j["plain"] == t["plain"]
    assert t["w_grad"] is None and j["w_grad"] is None   # detached from y's graph
    np.testing.assert_array_equal(j["values"], t["values"])
    np.testing.assert_array_equal(j["grad"], t["grad"])


def test_subclass_errors_match_torch():
    for args in (lambda lib: (lib.randn(2), int), lambda lib: (lib.randn(2), 3)):
        raises_like(lambda a=args: torch.Tensor.as_subclass(*a(torch)),
                    lambda a=args: jtorch.Tensor.as_subclass(*a(jtorch)))
    marked = {lib: _classes(lib)[0] for lib in (torch, jtorch)}
    raises_like(lambda: torch.Tensor._make_subclass(marked[torch], 3),
                lambda: jtorch.Tensor._make_subclass(marked[jtorch], 3))
    raises_like(lambda: torch.Tensor._make_subclass(int, torch.ones(1)),
                lambda: jtorch.Tensor._make_subclass(int, jtorch.ones(1)))
    raises_like(lambda: torch.Tensor._make_subclass(marked[torch], torch.ones(1).long(), True),
                lambda: jtorch.Tensor._make_subclass(marked[jtorch], jtorch.ones(1).long(),
                                                     True))


def test_class_level_reads_of_missing_tensor_names_name_them():
    """``torch.Tensor.<name>`` read on the class, for a name jtorch lacks: NotImplementedError
    naming it (an AttributeError too, so hasattr is False); unknown names: AttributeError."""
    assert hasattr(torch.Tensor, "int_repr")
    with pytest.raises(NotImplementedError, match=r"torch\.Tensor\.int_repr"):
        jtorch.Tensor.int_repr  # noqa: B018 - the read raises
    assert not hasattr(jtorch.Tensor, "int_repr")
    assert not hasattr(jtorch.nn.Parameter, "int_repr")
    raises_like(lambda: torch.Tensor.no_such_name, lambda: jtorch.Tensor.no_such_name)
