"""The names programs reach for around compilation and PyTorch's internals: ``torch._dynamo``
(its config, hints and errors), ``torch.compiler``'s hints, ``torch.types`` and
``torch._softmax_backward_data``; against PyTorch 2.13."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch._dynamo
import torch.types
from helpers import raises_like

import jtorch
import jtorch._dynamo
import jtorch.types

CONFIG = ["suppress_errors", "cache_size_limit", "recompile_limit",
          "accumulated_cache_size_limit", "accumulated_recompile_limit", "capture_scalar_outputs",
          "capture_dynamic_output_shape_ops", "automatic_dynamic_shapes",
          "assume_static_by_default", "optimize_ddp", "verbose", "force_parameter_static_shapes",
          "error_on_recompile"]


def test_dynamo_config_defaults_and_settable():
    for name in CONFIG:
        assert getattr(jtorch._dynamo.config, name) == getattr(torch._dynamo.config, name), name
    old = jtorch._dynamo.config.cache_size_limit
    try:
        jtorch._dynamo.config.cache_size_limit = 64
        assert jtorch._dynamo.config.cache_size_limit == 64
    finally:
        jtorch._dynamo.config.cache_size_limit = old


def test_dynamo_hints_return_what_pytorch_returns():
    for T in (torch, jtorch):
        x = T.ones(3, 2)
        assert T._dynamo.mark_static_address(x) is None
        assert T._dynamo.mark_dynamic(x, 0) is None
        assert T._dynamo.maybe_mark_dynamic(x, 1) is None
        assert T._dynamo.mark_static(x, 0) is None

        def fn(a):
            return a * 2

        assert T._dynamo.allow_in_graph(fn) is fn
        assert T.compiler.allow_in_graph(fn) is fn
        assert T.compiler.is_exporting() is False
        assert T.compiler.is_compiling() is False
        assert T.compiler.cudagraph_mark_step_begin() is None
    assert issubclass(jtorch._dynamo.exc.Unsupported, jtorch.compiler.CompileError)
    with pytest.raises(NotImplementedError, match=r"torch\._dynamo\.optimize"):
        jtorch._dynamo.optimize


def test_optimized_module_class_is_what_compile_returns():
    """Libraries unwrap a compiled model by ``isinstance(m,
    torch._dynamo.eval_frame.OptimizedModule)`` (accelerate, transformers' Trainer)."""
    for T in (torch, jtorch):
        model = T.nn.Linear(2, 2)
        compiled = T.compile(model)
        assert isinstance(compiled, T._dynamo.eval_frame.OptimizedModule)
        assert compiled._orig_mod is model
        assert not isinstance(model, T._dynamo.eval_frame.OptimizedModule)


def test_join_is_a_stand_in():
    from torch.distributed.algorithms.join import Join as TorchJoin

    from jtorch.distributed.algorithms import Join

    assert Join.__name__ == TorchJoin.__name__
    with pytest.raises(NotImplementedError, match=r"torch\.distributed\.algorithms\.join\.Join"):
        Join([])


def test_hints_inside_compiled_functions():
    """Inside a compiled function the hints run, ``is_compiling`` is True and an
    ``assume_constant_result`` function is part of the program; results equal eager."""
    def scale():
        return 3.0

    const = jtorch.compiler.assume_constant_result(scale)
    seen = []

    def step(x):
        jtorch._dynamo.mark_dynamic(x, 0)
        seen.append(jtorch.compiler.is_compiling())
        return (x * const()).sum()

    x = jtorch.arange(6.0)
    assert jtorch.compile(step)(x).item() == step(x).item() == 45.0
    assert seen[0] is True and seen[-1] is False


def test_transform_getitem_to_index_under_vmap():
    """transformers' mask functions index with the vmapped position tensors inside this
    context: the same mask as PyTorch's."""
    from torch._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex as TT

    from jtorch._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex as JT

    docs = [0, 0, 1, 1, 1, 2]
    got = {}
    for T, mode in ((torch, TT), (jtorch, JT)):
        doc = T.tensor(docs)

        def mask(q, kv, doc=doc):
            return (doc[q] == doc[kv]) & (kv <= q)

        idx = T.arange(len(docs))
        with mode():
            got[T] = T.vmap(T.vmap(mask, in_dims=(None, 0)), in_dims=(0, None))(idx, idx)
    assert got[jtorch].tolist() == got[torch].tolist()


def test_types_module_names():
    public = {n for n in dir(torch.types) if not n.startswith("__")}
    ours = {n for n in dir(jtorch.types) if not n.startswith("__")}
    # PyTorch's symbolic-shape classes and typing helpers it re-exports are not aliases
    assert public - ours <= {"SymBool", "SymFloat", "SymInt", "DispatchKey", "Self", "TypeAlias",
                             "TYPE_CHECKING", "IO", "Sequence", "Union", "Any", "_qscheme",
                             "_TensorOrTensorsOrGradEdge", "annotations", "builtins", "os"}
    assert jtorch.types._dtype is jtorch.dtype and jtorch.types._device is jtorch.device
    assert jtorch.types._size.__args__[0] is jtorch.Size
    assert jtorch.types.py_sym_types == ()


@pytest.mark.parametrize("dim,dtype", [(1, "float64"), (0, "float64"), (-1, "float32")])
def test_softmax_backward_data(dim, dtype):
    rng = np.random.default_rng(3)
    g, o = rng.standard_normal((3, 4)), rng.random((3, 4))
    out = {}
    for T in (torch, jtorch):
        gt = T.tensor(g, dtype=getattr(T, dtype), requires_grad=True)
        ot = T.tensor(o, dtype=getattr(T, dtype), requires_grad=True)
        r = T._softmax_backward_data(gt, ot, dim, getattr(T, dtype))
        r.pow(2).sum().backward()
        out[T] = (r, gt.grad, ot.grad)
    for a, b in zip(out[torch], out[jtorch]):
        assert str(b.dtype) == str(a.dtype)
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-6, atol=1e-7)
    with warnings.catch_warnings():
        raises_like(lambda: torch._softmax_backward_data(torch.ones(2).float(),
                                                         torch.ones(2).double(), 0, torch.float64),
                    lambda: jtorch._softmax_backward_data(jtorch.ones(2).float(),
                                                          jtorch.ones(2).double(), 0,
                                                          jtorch.float64))
