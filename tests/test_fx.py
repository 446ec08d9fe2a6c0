"""torch.fx on jtorch: ``wrap`` as in PyTorch (libraries call it at import), the rest of FX
named as not implemented."""

from __future__ import annotations

import pytest
import torch
from helpers import raises_like

import jtorch


def _helper(x):
    return x + 1


def test_wrap_returns_its_argument_as_torch():
    for lib in (torch, jtorch):
        # (at a module's top level, as libraries call it: exec'd as a module body)
        namespace = {"wrap": lib.fx.wrap, "helper": _helper}
        exec("a = wrap(helper)\nb = wrap('helper')", namespace)
        assert namespace["a"] is _helper and namespace["b"] == "helper"


def test_wrap_errors_match_torch():
    raises_like(lambda: exec("torch.fx.wrap(3)", {"torch": torch}),
                lambda: exec("torch.fx.wrap(3)", {"torch": jtorch}))
    raises_like(lambda: torch.fx.wrap(_helper), lambda: jtorch.fx.wrap(_helper))


def test_the_rest_of_fx_is_named_as_not_implemented():
    for name in ("symbolic_trace", "GraphModule", "Tracer", "Graph", "Interpreter"):
        assert hasattr(torch.fx, name)
        with pytest.raises(NotImplementedError, match=f"torch.fx.{name}"):
            getattr(jtorch.fx, name)
