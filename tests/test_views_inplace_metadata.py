"""The in-place view ops (unsqueeze_, squeeze_, t_, transpose_, swapaxes_, swapdims_, as_strided_)
against PyTorch: shapes, strides, versions, storage shared with views made before and after,
autograd and errors."""

import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch

OPS = [
    ("unsqueeze_", lambda x: x.unsqueeze_(1)),
    ("squeeze_", lambda x: x.unsqueeze_(0).squeeze_()),
    ("squeeze_dim", lambda x: x.unsqueeze_(-1).squeeze_(-1)),
    ("squeeze_dims", lambda x: x.unsqueeze_(0).unsqueeze_(2).squeeze_((0, 2))),
    ("t_", lambda x: x.t_()),
    ("transpose_", lambda x: x.transpose_(0, 1)),
    ("swapaxes_", lambda x: x.swapaxes_(1, 0)),
    ("swapdims_", lambda x: x.swapdims_(0, -1)),
    ("as_strided_", lambda x: x.as_strided_((3, 2), (1, 3), 0)),
    ("as_strided_offset", lambda x: x.as_strided_((2, 2), (2, 1), 1)),
]


def _geometry(x):
    return tuple(x.shape), tuple(x.stride()), x.storage_offset(), x.is_contiguous(), x._version


def _run(T, op, with_views, owner):
    """What a program sees: the tensor's geometry and values, and those of views made before
    (of the tensor and of a view of it) and after the op, across writes through each. With
    ``owner`` the tensor owns its storage (in jtorch too; ``arange().reshape()`` is a view)."""
    x = T.tensor([[0.0, 1, 2], [3, 4, 5]]) if owner else T.arange(6.).reshape(2, 3)
    before = (x[1], x.t()[::2]) if with_views else ()
    out = op(x)
    seen = [out is x, _geometry(x), x.clone()]
    x[..., 0] = 50.0
    after = x[..., -1]
    for v in before:
        seen += [_geometry(v), v.clone()]
        v.mul_(-1)
    after.add_(100)
    seen += [_geometry(after), after.clone(), x.clone()] + [v.clone() for v in before]
    return seen


def _equal(got, ref):
    for g, r in zip(got, ref):
        if isinstance(r, torch.Tensor):
            np.testing.assert_array_equal(g.numpy(), r.numpy())
        else:
            assert g == r


@pytest.mark.parametrize("owner", [False, True], ids=["of_a_view", "owner"])
@pytest.mark.parametrize("with_views", [False, True], ids=["alone", "with_views"])
@pytest.mark.parametrize("name,op", OPS, ids=[n for n, _ in OPS])
def test_geometry_values_and_shared_storage(name, op, with_views, owner):
    _equal(_run(jtorch, op, with_views, owner), _run(torch, op, with_views, owner))


def _of_a_view(T):
    d = T.arange(12.).reshape(3, 4)
    e = d[1:].view(8)
    e.unsqueeze_(0)
    first = [_geometry(e), e._base is d]
    e[0, 2] = -1.0
    e.t_()
    return first + [_geometry(e), d.clone(), e.clone()]


def test_on_a_view_the_chain_grows():
    _equal(_of_a_view(jtorch), _of_a_view(torch))


def _grads(T):
    a = T.arange(6.).reshape(2, 3).requires_grad_()
    b = a * 2
    early = b[1]                  # a view made before the storage moves
    b.t_()
    names = [type(b.grad_fn).__name__]
    b.unsqueeze_(0)
    names.append(type(b.grad_fn).__name__)
    loss = (b * T.arange(6.).reshape(1, 3, 2)).sum() + (early ** 2).sum()
    loss.backward()
    return names, a.grad


def test_autograd_through_the_moved_storage():
    (jn, jg), (tn, tg) = _grads(jtorch), _grads(torch)
    assert jn == tn
    np.testing.assert_array_equal(jg.numpy(), tg.numpy())


@pytest.mark.parametrize("make", [
    lambda T: T.zeros(2, 3, requires_grad=True).unsqueeze_(0),
    lambda T: T.zeros(2, 3, requires_grad=True).view(6).t_(),
    lambda T: T.zeros(2, 3).transpose_(0, 5),
    lambda T: T.zeros(2, 3, 4).t_(),
    lambda T: T.zeros(2, 3).unsqueeze_(3),
], ids=["leaf", "view_of_leaf", "dim", "t_of_3d", "unsqueeze_dim"])
def test_errors(make):
    raises_like(lambda: make(torch), lambda: make(jtorch))


@pytest.mark.parametrize("call", ["unsqueeze_(0)", "squeeze_()", "squeeze_(0)", "squeeze_((0,))",
                                  "t_()", "transpose_(0, 1)", "swapaxes_(0, 1)",
                                  "swapdims_(1, 0)", "as_strided_((3,), (1,))"])
def test_grad_fn_names(call):
    names = []
    for T in (torch, jtorch):
        b = T.ones(1, 3, requires_grad=True) * 2
        eval(f"b.{call}")
        names.append(type(b.grad_fn).__name__)
    assert names[1] == names[0]
