"""Module parity: build the same layer in PyTorch and jtorch, copy PyTorch's weights across,
and compare outputs, input gradients, parameter gradients and buffers.

``module_parity(lambda T: T.nn.Linear(3, 4), rand(2, 3))`` builds ``make(torch)`` and
``make(jtorch)``, checks they have the same parameter and buffer names and shapes, copies every
PyTorch parameter and buffer into the jtorch module, runs both in train (or eval) mode, compares
the outputs, then backpropagates one random cotangent and compares the gradients of every float
input and every parameter, and finally the buffers (BatchNorm's running stats).
"""

from __future__ import annotations

import numpy as np
import torch
from helpers import _convert, _leaves, _np, _outputs, assert_close

import jtorch


def _owner(module, dotted):
    *path, leaf = dotted.split(".")
    for part in path:
        module = getattr(module, part)
    return module, leaf


def copy_weights(tm, jm):
    """Copy every parameter and buffer of torch module ``tm`` into jtorch module ``jm``."""
    tp = dict(tm.named_parameters(remove_duplicate=False))
    jp = dict(jm.named_parameters(remove_duplicate=False))
    assert sorted(jp) == sorted(tp), f"parameters: jtorch {sorted(jp)} != torch {sorted(tp)}"
    tb = dict(tm.named_buffers(remove_duplicate=False))
    jb = dict(jm.named_buffers(remove_duplicate=False))
    assert sorted(jb) == sorted(tb), f"buffers: jtorch {sorted(jb)} != torch {sorted(tb)}"
    with jtorch.no_grad():
        for name, t in list(tp.items()) + list(tb.items()):
            j = (jp if name in jp else jb)[name]
            assert tuple(j.shape) == tuple(t.shape), f"{name}: shape {tuple(j.shape)} != " \
                                                      f"{tuple(t.shape)}"
            assert str(j.dtype) == str(t.dtype), f"{name}: dtype {j.dtype} != {t.dtype}"
            j.copy_(jtorch.tensor(_np(t)))


def module_parity(make, *inputs, train=True, grad=True, atol=None, rtol=None, grad_atol=None,
                  grad_rtol=None, double=False, call=None, cotangent_seed=0):
    """Compare ``make(torch)`` and ``make(jtorch)`` on ``inputs`` (NumPy arrays or markers).

    ``double=True`` converts both modules to float64. ``call(module, *inputs)`` replaces
    ``module(*inputs)`` (for keyword arguments or several outputs). Returns the jtorch module
    and output.
    """
    tm, jm = make(torch), make(jtorch)
    if double:
        tm, jm = tm.double(), jm.double()
    copy_weights(tm, jm)
    tm.train(train)
    jm.train(train)
    call = call or (lambda m, *a: m(*a))
    t_args = [_convert(torch, a, grad) for a in inputs]
    j_args = [_convert(jtorch, a, grad) for a in inputs]
    t_out = call(tm, *[a for a, _ in t_args])
    j_out = call(jm, *[a for a, _ in j_args])
    assert_close(j_out, t_out, atol, rtol, True, "output")
    if grad:
        outs_t = [o for o in _outputs(t_out) if isinstance(o, torch.Tensor) and o.requires_grad]
        outs_j = [o for o in _outputs(j_out) if isinstance(o, jtorch.Tensor) and o.requires_grad]
        assert len(outs_t) == len(outs_j), \
            f"{len(outs_j)} jtorch outputs require grad, torch has {len(outs_t)}"
        if outs_t:
            rng = np.random.default_rng(cotangent_seed)
            cts = [rng.uniform(-1, 1, tuple(o.shape)) for o in outs_t]
            torch.autograd.backward(outs_t, [torch.tensor(c, dtype=o.dtype)
                                             for c, o in zip(cts, outs_t)])
            jtorch.autograd.backward(outs_j, [jtorch.tensor(c, dtype=o.dtype)
                                              for c, o in zip(cts, outs_j)])
            ga, gr = grad_atol or atol, grad_rtol or rtol
            for i, (tl, jl) in enumerate(zip(_leaves([lv for _, lv in t_args]),
                                             _leaves([lv for _, lv in j_args]))):
                if tl.grad is None:
                    assert jl.grad is None, f"input grad[{i}] should be None"
                    continue
                assert jl.grad is not None, f"input grad[{i}] is None in jtorch"
                assert_close(jl.grad, tl.grad, ga, gr, True, f"input grad[{i}]")
            jp = dict(jm.named_parameters())
            for name, tp in tm.named_parameters():
                if tp.grad is None:
                    assert jp[name].grad is None, f"{name}.grad should be None"
                    continue
                assert jp[name].grad is not None, f"{name}.grad is None in jtorch"
                assert_close(jp[name].grad, tp.grad, ga, gr, True, f"{name}.grad")
    jb = dict(jm.named_buffers())
    for name, tb in tm.named_buffers():
        assert_close(jb[name], tb, atol, rtol, True, f"buffer {name}")
    return jm, j_out
