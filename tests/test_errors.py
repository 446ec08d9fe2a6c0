"""Errors and warnings: same exception type and first line of message as PyTorch."""

import warnings

import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch

LIBS = (torch, jtorch)


def err(fn):
    """``fn(T)`` must raise the same way with T = torch and T = jtorch."""
    raises_like(lambda: fn(torch), lambda: fn(jtorch))


def rg(T, *shape):
    return T.ones(*shape, requires_grad=True)


def _mul_then_modify_input(T):
    x, w = rg(T, 3), rg(T, 3)
    y = x * 1
    z = y * w
    y.add_(1)
    z.sum().backward()


def _exp_then_modify_output(T):
    y = rg(T, 3).exp()
    y.add_(1)
    y.sum().backward()


def _modify_view_base(T):
    x, w = rg(T, 3), rg(T, 3)
    y = x * 1
    z = y * w
    y[0].mul_(2)
    z.sum().backward()


def _matmul_saved_then_modified(T):
    a, b = rg(T, 2, 3), rg(T, 3, 2)
    h = a * 2
    out = h @ b
    h.mul_(3)
    out.sum().backward()


def _freed(T):
    z = (rg(T, 3) * rg(T, 3)).sum()
    z.backward()
    z.backward()


def _freed_grad(T):
    x = rg(T, 3)
    z = (x * x).sum()
    T.autograd.grad(z, x)
    T.autograd.grad(z, x)


@pytest.mark.parametrize("fn", [_freed, _freed_grad, _mul_then_modify_input, _modify_view_base,
                                _matmul_saved_then_modified, _exp_then_modify_output],
                         ids=lambda f: f.__name__)
def test_backward_graph_errors(fn):
    err(fn)


CASES = {
    "inplace_on_leaf": lambda T: rg(T, 3).add_(1),
    "inplace_on_leaf_view": lambda T: rg(T, 2, 3)[0].mul_(2),
    "inplace_on_detached_leaf": lambda T: T.ones(3).detach().requires_grad_().add_(1),
    "inplace_on_view_made_leaf": lambda T: T.ones(2, 3)[0].requires_grad_().add_(1),
    "nonscalar_backward": lambda T: (rg(T, 3) * 2).backward(),
    "no_grad_backward": lambda T: (T.ones(3) * 2).sum().backward(),
    "no_grad_backward_2nd_root": lambda T: T.autograd.backward([rg(T, 1).sum(), T.ones(1)]),
    "int_output_backward": lambda T: T.autograd.backward(
        [rg(T, 3).sum(), T.tensor(3)]),
    "mm_shapes": lambda T: T.mm(T.ones(2, 3), T.ones(4, 5)),
    "matmul_shapes": lambda T: T.ones(2, 3) @ T.ones(4, 5),
    "matmul_fn_shapes": lambda T: T.matmul(T.ones(2, 3), T.ones(4, 5)),
    "broadcast": lambda T: T.ones(2, 3) + T.ones(2, 4),
    "broadcast_mul_grad": lambda T: rg(T, 2, 3) * rg(T, 2, 4),
    "index_out_of_range": lambda T: T.ones(3)[5],
    "requires_grad_int": lambda T: T.tensor([1, 2, 3]).requires_grad_(),
    "requires_grad_int_setter": lambda T: setattr(T.tensor([1, 2]), "requires_grad", True),
    "requires_grad_int_factory": lambda T: T.tensor([1, 2], requires_grad=True),
    "unused_input": lambda T: T.autograd.grad((rg(T, 3) * 2).sum(), [rg(T, 3)]),
    "unused_second_input": lambda T: _unused_second(T),
    "input_without_grad": lambda T: T.autograd.grad((rg(T, 3) * 2).sum(), [T.ones(3)]),
    "nonleaf_requires_grad_false": lambda T: setattr(rg(T, 3) * 2, "requires_grad", False),
    "nonleaf_requires_grad_false_": lambda T: (rg(T, 3) * 2).requires_grad_(False),
    "numpy_requires_grad": lambda T: rg(T, 3).numpy(),
    "hook_no_grad": lambda T: T.ones(3).register_hook(lambda g: g),
    "retain_grad_no_grad": lambda T: T.ones(3).retain_grad(),
    "post_hook_nonleaf": lambda T: (rg(T, 3) * 2).register_post_accumulate_grad_hook(print),
    "backward_inputs_empty": lambda T: (rg(T, 3) * 2).sum().backward(inputs=[]),
    "backward_inputs_no_grad": lambda T: (rg(T, 3) * 2).sum().backward(inputs=[T.ones(3)]),
    "grad_inputs_empty": lambda T: T.autograd.grad((rg(T, 3) * 2).sum(), []),
    "grad_output_shape": lambda T: _grad_output(T, T.ones(2)),
    "grad_output_complex": lambda T: _grad_output(T, T.ones(3, dtype=T.complex64)),
    "grad_output_type": lambda T: _grad_output(T, 2.0),
    "too_few_grads": lambda T: T.autograd.backward([rg(T, 3) * 2, rg(T, 3) * 3],
                                                   [T.ones(3)]),
    "materialize_with_allow_unused_false": lambda T: T.autograd.grad(
        (rg(T, 3) * 2).sum(), rg(T, 3), materialize_grads=True, allow_unused=False),
    "detach_view_inplace": lambda T: (rg(T, 2, 3) * 1)[0].detach_(),
    "out_with_grad": lambda T: T.add(rg(T, 3), 1, out=T.empty(3)),
    "grad_assign_shape": lambda T: setattr(rg(T, 3), "grad", T.ones(2)),
    "grad_assign_dtype": lambda T: setattr(rg(T, 3), "grad", T.ones(3, dtype=T.float64)),
    "grad_assign_type": lambda T: setattr(rg(T, 3), "grad", 3),
    "item_of_many": lambda T: rg(T, 3).item(),
}


def _unused_second(T):
    x, y = rg(T, 3), rg(T, 3)
    T.autograd.grad((x * 2).sum(), [x, y])


def _grad_output(T, g):
    x = rg(T, 3)
    T.autograd.grad(x * 2, x, g)


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_messages(name):
    err(CASES[name])


def test_nonleaf_grad_warning_text():
    for T in LIBS:
        y = rg(T, 2) * 2
        with pytest.warns(UserWarning) as rec:
            y.grad
        assert str(rec[0].message).startswith(
            "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
            ".grad attribute won't be populated during autograd.backward(). If you indeed want "
            "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
            "non-leaf Tensor.")


def test_leaf_grad_reads_silently():
    x = rg(jtorch, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.grad is None


def test_second_backward_with_retain_graph_works():
    res = []
    for T in LIBS:
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        z = (x * x).exp().sum()
        z.backward(retain_graph=True)
        z.backward()
        res.append(x.grad.numpy())
    np.testing.assert_allclose(res[1], res[0], rtol=1e-5)
