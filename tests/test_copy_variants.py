"""The ``torch.*_copy`` functions: values, dtypes, shapes and gradients of each against PyTorch,
that the result is a new contiguous tensor (not a view), ``out=`` (a tensor, or a list for the
list-returning ones) and errors."""

import numpy as np
import pytest
import torch
from helpers import assert_close, parity, raises_like, rand

import jtorch

CASES = [
    ("alias_copy", (3, 4), ()),
    ("as_strided_copy", (3, 4), ((2, 2), (1, 2), 1)),
    ("diagonal_copy", (3, 4, 5), (1, 0, 2)),
    ("expand_copy", (3, 1), ((2, 3, 4),)),
    ("permute_copy", (2, 3, 4), ((2, 0, 1),)),
    ("select_copy", (3, 4), (1, -1)),
    ("slice_copy", (5, 4), (0, 1, 4, 2)),
    ("slice_copy", (5, 4), (1, -3)),
    ("slice_copy", (5, 4), ()),
    ("split_copy", (5, 4), (2,)),
    ("split_copy", (5, 4), (3, 1)),
    ("split_with_sizes_copy", (5, 4), ((1, 3), 1)),
    ("split_with_sizes_copy", (5, 4), ((2, 3),)),
    ("squeeze_copy", (1, 3, 1, 2), ()),
    ("squeeze_copy", (1, 3, 1, 2), (2,)),
    ("squeeze_copy", (1, 3, 1, 2), ([0, 2],)),
    ("t_copy", (3, 4), ()),
    ("t_copy", (3,), ()),
    ("transpose_copy", (2, 3, 4), (0, 2)),
    ("unbind_copy", (3, 4), (1,)),
    ("unbind_copy", (3, 4), ()),
    ("unfold_copy", (7, 3), (0, 2, 2)),
    ("unsqueeze_copy", (3, 4), (-1,)),
    ("view_copy", (3, 4), ((2, 6),)),
    ("view_copy", (3, 4), ((-1,),)),
]


@pytest.mark.parametrize("name,shape,args", CASES, ids=[f"{c[0]}-{i}" for i, c in
                                                         enumerate(CASES)])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_values_and_grads(name, shape, args, dt):
    out = parity(lambda T, x: getattr(T, name)(x, *args), rand(*shape, dtype=dt))
    t_out = getattr(torch, name)(torch.tensor(rand(*shape, dtype=dt)), *args)
    if isinstance(t_out, (list, tuple)):
        assert type(out) is type(t_out)
        outs, t_outs = out, t_out
    else:
        outs, t_outs = [out], [t_out]
    for o, t in zip(outs, t_outs):
        assert o._base is None                      # a new tensor, not a view
        assert o.is_contiguous()
        assert o.stride() == t.stride()


def test_int_and_complex_inputs():
    x = np.arange(12, dtype=np.int64).reshape(3, 4)
    parity(lambda T, x: T.t_copy(x), x)
    parity(lambda T, x: T.view_copy(x, T.int32), x.astype(np.float32))
    parity(lambda T, x: T.view_copy(x, T.float16), x.astype(np.float32))
    z = (rand(3, 2) + 1j * rand(3, 2)).astype(np.complex64)
    parity(lambda T, z: T.view_as_real_copy(z), z, grad=False)
    parity(lambda T, x: T.view_as_complex_copy(x), rand(3, 2), grad=False)


def test_writes_do_not_reach_input():
    x = jtorch.arange(6.0).reshape(2, 3)
    y = jtorch.t_copy(x)
    y.add_(1)
    assert_close(x, torch.arange(6.0).reshape(2, 3))
    d = jtorch.detach_copy(x.clone().requires_grad_())
    assert not d.requires_grad and d.grad_fn is None
    assert jtorch.detach_copy(x)._base is None


def test_detach_and_alias_grad():
    x = jtorch.ones(2, 3, requires_grad=True)
    assert not jtorch.detach_copy(x).requires_grad
    a = jtorch.alias_copy(x)
    assert a.requires_grad and a.grad_fn is not None
    (a * 2).sum().backward()
    assert_close(x.grad, torch.full((2, 3), 2.0))


def test_out_tensor():
    for T in (torch, jtorch):
        x = T.arange(12.0).reshape(3, 4)
        o = T.empty(0)
        r = T.transpose_copy(x, 0, 1, out=o)
        assert r is o and tuple(o.shape) == (4, 3)
        np.testing.assert_array_equal(o.tolist(), np.arange(12.0).reshape(3, 4).T)
    # PyTorch records no history through these out= forms (no error for a grad input)
    xg = jtorch.ones(2, 2, requires_grad=True)
    o = jtorch.empty(0)
    jtorch.t_copy(xg, out=o)
    assert not o.requires_grad


def test_out_dtype_must_match():
    raises_like(lambda: torch.select_copy(torch.ones(3, 4), 0, 1,
                                          out=torch.empty(2, dtype=torch.float64)),
                lambda: jtorch.select_copy(jtorch.ones(3, 4), 0, 1,
                                           out=jtorch.empty(2, dtype=jtorch.float64)))


def test_out_list():
    for T in (torch, jtorch):
        x = T.arange(12.0).reshape(4, 3)
        outs = [T.empty(2, 3), T.empty(2, 3, dtype=T.float64)]
        assert T.split_copy(x, 2, out=outs) is None
        np.testing.assert_array_equal(outs[1].tolist(), np.arange(6.0, 12.0).reshape(2, 3))
        outs = [T.empty(3) for _ in range(4)]
        assert T.unbind_copy(x, 0, out=outs) is None
        np.testing.assert_array_equal(outs[2].tolist(), [6.0, 7.0, 8.0])

    def bad(T, name, *args, out):
        return lambda: getattr(T, name)(T.arange(12.0).reshape(4, 3), *args, out=out(T))

    raises_like(bad(torch, "split_copy", 2, out=lambda T: [T.empty(2, 3)]),
                bad(jtorch, "split_copy", 2, out=lambda T: [T.empty(2, 3)]))
    raises_like(bad(torch, "unbind_copy", 0, out=lambda T: [T.empty(3)] * 3),
                bad(jtorch, "unbind_copy", 0, out=lambda T: [T.empty(3)] * 3))
    raises_like(bad(torch, "split_copy", 2, out=lambda T: [T.empty(2, 2), T.empty(2, 3)]),
                bad(jtorch, "split_copy", 2, out=lambda T: [T.empty(2, 2), T.empty(2, 3)]))


@pytest.mark.parametrize("call", [
    lambda T: T.slice_copy(T.ones(3, 4), 0, 0, 3, 0),
    lambda T: T.slice_copy(T.ones(3, 4), 0, 0, 3, -1),
    lambda T: T.slice_copy(T.tensor(1.0), 0),
    lambda T: T.t_copy(T.ones(2, 3, 4)),
    lambda T: T.select_copy(T.ones(3, 4), 0, 5),
    lambda T: T.permute_copy(T.ones(3, 4), [0, 0]),
    lambda T: T.expand_copy(T.ones(3, 2), [3, 4]),
    lambda T: T.view_copy(T.ones(3, 4), [5]),
    lambda T: T.diagonal_copy(T.ones(3, 4), 0, 0, 0),
    lambda T: T.unsqueeze_copy(T.ones(3, 4), 3),
])
def test_errors(call):
    raises_like(lambda: call(torch), lambda: call(jtorch))


def test_under_compile():
    def step(x):
        return jtorch.transpose_copy(jtorch.slice_copy(x, 1, 1, None, 2), 0, 1) * 2

    f = jtorch.compile(step)
    x = jtorch.arange(12.0).reshape(3, 4)
    for _ in range(2):
        assert_close(f(x), torch.arange(12.0).reshape(3, 4)[:, 1::2].t() * 2)
