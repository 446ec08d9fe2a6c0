"""torch.fx on jtorch: ``wrap`` as in PyTorch (libraries call it at import), the rest of FX
named as not implemented."""

from __future__ import annotations

import pytest
import torch
from helpers import raises_like

import jtorch


def _helper(x):
    return x + 1


def _forget_wraps_in(namespace):
    table = torch.fx._symbolic_trace._wrapped_fns_to_patch
    for key in [k for k in table if k[0] == id(namespace)]:
        del table[key]


def test_wrap_returns_its_argument_as_torch():
    for lib in (torch, jtorch):
        # (at a module's top level, as libraries call it: exec'd as a module body)
        namespace = {"wrap": lib.fx.wrap, "helper": _helper}
        try:
            exec("a = wrap(helper)\nb = wrap('helper')", namespace)
            assert namespace["a"] is _helper and namespace["b"] == "helper"
        finally:
            # PyTorch keeps each wrap in a process-wide table that every later FX trace
            # (torch.compile's included) reads back by name from this namespace, where
            # `_helper` is not: a later torch.compile in this worker failed with KeyError
            _forget_wraps_in(namespace)


def test_wrap_errors_match_torch():
    raises_like(lambda: exec("torch.fx.wrap(3)", {"torch": torch}),
                lambda: exec("torch.fx.wrap(3)", {"torch": jtorch}))
    raises_like(lambda: torch.fx.wrap(_helper), lambda: jtorch.fx.wrap(_helper))


def test_the_rest_of_fx_is_named_as_not_implemented():
    """A function raises when read; a class reads as a stand-in that raises when made (so
    ``isinstance(m, torch.fx.GraphModule)`` works and is False)."""
    assert hasattr(torch.fx, "symbolic_trace")
    with pytest.raises(NotImplementedError, match="torch.fx.symbolic_trace"):
        jtorch.fx.symbolic_trace  # noqa: B018 - the attribute read raises
    for name in ("GraphModule", "Tracer", "Graph", "Interpreter"):
        assert isinstance(getattr(torch.fx, name), type)
        stand_in = getattr(jtorch.fx, name)
        assert not isinstance(jtorch.nn.Linear(1, 1), stand_in)
        with pytest.raises(NotImplementedError, match=f"torch.fx.{name}"):
            stand_in()
