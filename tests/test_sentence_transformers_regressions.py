"""Regressions found by running sentence-transformers unchanged under jtorch
(scripts/real_drivers/sentence_transformers_tiny.py, docs/real-programs.md): each test is a
small stand-in for what the library did, in plain torch-API code, run in jtorch and in real
PyTorch."""

import numpy as np
import torch

import jtorch


def _rand_context_replay(T):
    """sentence-transformers' gradcache ``RandContext``: snapshot the CPU and device RNG
    states, draw (dropout), then replay the draw inside ``fork_rng`` with the states restored;
    the caller's stream afterwards continues as if the replay never happened."""
    from importlib import import_module
    checkpoint = import_module(T.__name__ + ".utils.checkpoint")
    T.manual_seed(0)
    x = T.ones(4, 8, requires_grad=True)
    nested = {"features": [x, T.zeros(2)], "n": 3}
    cpu_state = T.get_rng_state()
    devices, states = checkpoint.get_device_states(x, nested)
    first = T.nn.functional.dropout(x, 0.5, training=True)
    T.manual_seed(0)
    T.rand(5)  # move the stream; the replay restores the snapshot
    with T.random.fork_rng(devices=devices, enabled=True):
        T.set_rng_state(cpu_state)
        checkpoint.set_device_states(devices, states)
        again = T.nn.functional.dropout(x, 0.5, training=True)
    again.sum().backward()
    return devices, states, first, again, x.grad


def test_get_and_set_device_states_replay():
    # cross_encoder/losses imports get_device_states and set_device_states from
    # torch.utils.checkpoint at import time (ImportError at import sentence_transformers)
    from jtorch.utils.checkpoint import get_device_states, set_device_states  # noqa: F401
    got = _rand_context_replay(jtorch)
    want = _rand_context_replay(torch)
    # CPU tensors only: no device ids, no states (PyTorch's answer)
    assert got[0] == want[0] == [] and got[1] == want[1] == []
    for result in (got, want):
        _, _, first, again, grad = result
        # the replayed mask is the first one; x is ones, so d(sum)/dx is the output itself
        np.testing.assert_array_equal(first.detach().numpy(), again.detach().numpy())
        np.testing.assert_array_equal(grad.numpy(), again.detach().numpy())
    # set_device_states takes device_type by keyword, as in PyTorch
    jtorch.utils.checkpoint.set_device_states([], [], device_type="cuda")
    torch.utils.checkpoint.set_device_states([], [], device_type="cuda")
