"""Regressions found by running pytorch-ignite and torch-pruning unchanged under jtorch
(scripts/real_drivers/ignite_pruning.py, docs/real-programs.md): each test is a small stand-in
for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import numpy as np
import pytest
import torch

import jtorch


def test_distributed_optim_imports():
    # ignite.handlers.checkpoint imports torch.distributed.optim.ZeroRedundancyOptimizer at
    # module level for an isinstance check (ModuleNotFoundError at `import ignite`)
    from torch.distributed import optim as want

    from jtorch.distributed import optim as got
    assert sorted(got.__all__) == sorted(want.__all__)
    zero = got.ZeroRedundancyOptimizer
    assert issubclass(zero, jtorch.optim.Optimizer)
    assert issubclass(want.ZeroRedundancyOptimizer, torch.optim.Optimizer)
    assert not isinstance(jtorch.optim.SGD([jtorch.zeros(1, requires_grad=True)], lr=0.1), zero)
    with pytest.raises(NotImplementedError, match="ZeroRedundancyOptimizer"):
        zero([jtorch.zeros(1, requires_grad=True)], jtorch.optim.SGD, lr=0.1)


INDICES = [
    (slice(None), slice(1, -1)), (slice(None), slice(-3, None)),
    (slice(None), slice(None), slice(None, None, 2)), slice(1, 3),
    (slice(None), slice(10, None)), (slice(None), slice(-100, 2)), (Ellipsis, slice(1, None)),
    (slice(None), slice(1, 4, 2)), (None, slice(1, 3)), (slice(1, 2), slice(2, 4)),
    (slice(None), 2), (slice(None), -2), (Ellipsis, 1), (1, -2), (slice(None), None),
]
SAVED = ("_saved_start", "_saved_end", "_saved_step", "_saved_dim", "_saved_index",
         "_saved_self_sym_sizes")


def _saved(node):
    return {n: tuple(getattr(node, n)) if n.endswith("sizes") else getattr(node, n)
            for n in SAVED if hasattr(node, n)}


@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_basic_index_node_saves_pytorchs_arguments(index):
    # torch-pruning's DependencyGraph reads grad_fn._saved_start/_end/_step/_dim of a
    # SliceBackward0 to map channel indices through a slice (jtorch raised
    # NotImplementedError from hasattr: the slice became an element-wise op in its graph)
    x = np.random.default_rng(0).standard_normal((2, 6, 5)).astype(np.float32)
    results = []
    for T in (jtorch, torch):
        t = T.tensor(x, requires_grad=True)
        y = t[index]
        node = y.grad_fn
        (y * T.arange(y.numel(), dtype=T.float32).reshape(y.shape)).sum().backward()
        results.append((node.name(), _saved(node), y.detach().numpy(), t.grad.numpy()))
    (gname, gsaved, gy, ggrad), (wname, wsaved, wy, wgrad) = results
    assert gname == wname
    if index != (slice(1, 2), slice(2, 4)):   # PyTorch: two slice nodes, jtorch: one
        assert gsaved == wsaved
    else:
        assert {k: gsaved[k] for k in ("_saved_start", "_saved_end", "_saved_dim")} == \
            {k: wsaved[k] for k in ("_saved_start", "_saved_end", "_saved_dim")}
    np.testing.assert_array_equal(gy, wy)
    np.testing.assert_array_equal(ggrad, wgrad)


@pytest.mark.parametrize("args", [(1, 1, 3), (1, -3, 2), (2, 1, 4)])
def test_narrow_node_saves_normalised_start(args):
    x = np.arange(60, dtype=np.float32).reshape(2, 6, 5)
    got, want = (_saved(T.tensor(x, requires_grad=True).narrow(*args).grad_fn)
                 for T in (jtorch, torch))
    assert got == want


def test_unsaved_argument_is_an_attribute_error():
    # hasattr(grad_fn, "_saved_dim") on a full sum's SumBackward0: PyTorch's AttributeError
    # (jtorch raised NotImplementedError, which hasattr does not catch)
    for T in (jtorch, torch):
        t = T.ones(2, 3, requires_grad=True)
        assert not hasattr(t.sum().grad_fn, "_saved_dim"), T.__name__
        assert not hasattr((t * 2).grad_fn, "_saved_start"), T.__name__
    node = jtorch.ones(2, 3, requires_grad=True).sum().grad_fn
    with pytest.raises(NotImplementedError, match="SumBackward0._saved_dim"):
        node._saved_dim  # noqa: B018 - still names what jtorch lacks


def _walk_slices(T):
    """The slice nodes a torch-pruning-style walk of next_functions finds, with their saved
    arguments, from a small conv graph with a channel slice."""
    T.manual_seed(0)
    conv = T.nn.Conv2d(3, 8, 1)
    with T.no_grad():
        conv.weight.copy_(T.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3, 1, 1)))
        conv.bias.fill_(0.25)
    out = conv(T.ones(1, 3, 4, 4))[:, 2:6].relu().sum()
    seen, stack, found = set(), [out.grad_fn], []
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if "slice" in fn.name().lower() and hasattr(fn, "_saved_start"):
            found.append((fn.name(), fn._saved_start, fn._saved_end, fn._saved_step,
                          fn._saved_dim))
        stack.extend(f for f, _ in fn.next_functions)
    return found, out.item()


def test_graph_walk_finds_the_slice():
    got, want = _walk_slices(jtorch), _walk_slices(torch)
    assert got[0] == want[0] == [("SliceBackward0", 2, 6, 1, 1)]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
