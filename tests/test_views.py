"""View semantics against PyTorch: storage sharing (writes through a view reach the base and
sibling views, writes to the base reach the views), strides / storage offsets / contiguity,
version counters, read-only expanded views, and autograd through in-place writes on views."""

import re

import numpy as np
import pytest
import torch
from helpers import assert_close, parity, raises_like, rand

import jtorch


def pair(shape, dtype=np.float32):
    a = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    # torch.tensor of an empty NumPy array may get stride 0; start from canonical strides
    return torch.tensor(a).clone(memory_format=torch.contiguous_format), jtorch.tensor(a)


def geom(j, t, msg=""):
    """Shape, strides, storage offset and contiguity as PyTorch reports them."""
    assert tuple(j.shape) == tuple(t.shape), msg
    assert tuple(j.stride()) == tuple(t.stride()), f"{msg}: stride {j.stride()} != {t.stride()}"
    assert j.storage_offset() == t.storage_offset(), \
        f"{msg}: storage_offset {j.storage_offset()} != {t.storage_offset()}"
    assert j.is_contiguous() == t.is_contiguous(), f"{msg}: is_contiguous"


# (id, base shape, fn(T, base) -> a view of base)
VIEWS = [
    ("view", (2, 3, 4), lambda T, x: x.view(6, 4)),
    ("view_infer", (2, 3, 4), lambda T, x: x.view(-1)),
    ("view_as", (2, 3, 4), lambda T, x: x.view_as(T.zeros(4, 6))),
    ("reshape", (2, 3, 4), lambda T, x: x.reshape(3, 8)),
    ("reshape_as", (2, 3, 4), lambda T, x: x.reshape_as(T.zeros(24))),
    ("flatten", (2, 3, 4), lambda T, x: x.flatten(1)),
    ("unflatten", (2, 12), lambda T, x: x.unflatten(1, (3, -1))),
    ("ravel", (2, 3, 4), lambda T, x: x.ravel()),
    ("squeeze", (1, 3, 1, 4), lambda T, x: x.squeeze()),
    ("squeeze_dim", (1, 3, 1, 4), lambda T, x: x.squeeze(2)),
    ("squeeze_dims", (1, 3, 1, 4), lambda T, x: x.squeeze((0, 2))),
    ("unsqueeze", (3, 4), lambda T, x: x.unsqueeze(1)),
    ("unsqueeze_end", (3, 4), lambda T, x: x.unsqueeze(-1)),
    ("permute", (2, 3, 4), lambda T, x: x.permute(2, 0, 1)),
    ("transpose", (2, 3, 4), lambda T, x: x.transpose(0, 2)),
    ("swapaxes", (2, 3, 4), lambda T, x: x.swapaxes(-1, 1)),
    ("swapdims", (2, 3, 4), lambda T, x: T.swapdims(x, 0, 1)),
    ("t", (3, 4), lambda T, x: x.t()),
    ("t_1d", (4,), lambda T, x: x.t()),
    ("T", (3, 4), lambda T, x: x.T),
    ("mT", (2, 3, 4), lambda T, x: x.mT),
    ("mH", (2, 3, 4), lambda T, x: x.mH),
    ("H", (3, 4), lambda T, x: x.H),
    ("adjoint", (2, 3, 4), lambda T, x: x.adjoint()),
    ("movedim", (2, 3, 4), lambda T, x: x.movedim((0, 1), (2, 0))),
    ("moveaxis", (2, 3, 4), lambda T, x: T.moveaxis(x, -1, 0)),
    ("narrow", (4, 5), lambda T, x: x.narrow(1, 1, 3)),
    ("narrow_neg", (4, 5), lambda T, x: x.narrow(-2, -3, 2)),
    ("select", (2, 3, 4), lambda T, x: x.select(1, 2)),
    ("select_neg", (2, 3, 4), lambda T, x: x.select(-1, -2)),
    ("diagonal", (3, 4), lambda T, x: x.diagonal()),
    ("diagonal_off", (2, 3, 4), lambda T, x: x.diagonal(1, 2, 0)),
    ("diagonal_negoff", (2, 3, 4), lambda T, x: x.diagonal(-1, 1, 2)),
    ("split", (5, 4), lambda T, x: x.split(2)[1]),
    ("split_last", (5, 4), lambda T, x: x.split(2)[2]),
    ("split_sizes", (5, 4), lambda T, x: x.split([1, 3], 1)[1]),
    ("chunk", (6, 4), lambda T, x: x.chunk(3, -1)[1]),
    ("unbind", (3, 4), lambda T, x: x.unbind(1)[2]),
    ("tensor_split", (7, 2), lambda T, x: x.tensor_split(3)[2]),
    ("tensor_split_idx", (2, 7), lambda T, x: x.tensor_split([2, 5], 1)[1]),
    ("hsplit", (2, 6), lambda T, x: x.hsplit(3)[1]),
    ("vsplit", (6, 2), lambda T, x: x.vsplit([4])[1]),
    ("dsplit", (2, 2, 4), lambda T, x: x.dsplit(2)[1]),
    ("unfold", (3, 6), lambda T, x: x.unfold(1, 2, 2)),
    ("unfold_step", (7, 2), lambda T, x: x.unfold(0, 2, 3)),
    ("atleast_3d", (3, 4), lambda T, x: T.atleast_3d(x)),
    ("as_strided", (3, 4), lambda T, x: x.t().as_strided((2, 3), (1, 2), 1)),
    ("kw_transpose", (2, 3, 4), lambda T, x: T.transpose(x, dim0=0, dim1=2)),
    ("kw_diagonal", (2, 3, 4), lambda T, x: x.diagonal(offset=1, dim1=2, dim2=0)),
    ("kw_unbind", (2, 3, 4), lambda T, x: x.unbind(dim=1)[1]),
    ("kw_unsqueeze", (2, 3), lambda T, x: x.unsqueeze(dim=-2)),
    ("kw_split", (2, 5), lambda T, x: T.split(x, split_size_or_sections=2, dim=1)[2]),
    ("kw_squeeze", (2, 1, 3), lambda T, x: x.squeeze(dim=1)),
    ("as_strided_of_view", (3, 4), lambda T, x: T.as_strided(x.select(0, 1), (2,), (2,))),
    ("expand_same", (2, 3), lambda T, x: x.expand(2, 3)),
    ("expand_new_size1", (2, 3), lambda T, x: x.expand(1, 2, 3)),
    ("broadcast_row", (1, 3), lambda T, x: T.broadcast_to(x, (4, 3)).select(0, 2)),
    ("flatten_nc_viewable", (2, 3, 4), lambda T, x: x.transpose(0, 1).flatten(2)),
    ("reshape_nc_viewable", (2, 3, 4), lambda T, x: x.transpose(0, 1).reshape(3, 2, 2, 2)),
]

# chains of views: (id, base shape, [step(T, x), ...]); strides are checked at every step
CHAIN_STEPS = [
    ("view_of_view_of_transpose", (2, 3, 4),
     [lambda T, x: x.transpose(0, 2), lambda T, x: x.select(0, 1), lambda T, x: x.t(),
      lambda T, x: x.unsqueeze(0), lambda T, x: x.view(1, 6)]),
    ("narrow_transpose_unfold", (4, 6),
     [lambda T, x: x.view(6, 4), lambda T, x: x.narrow(0, 1, 4), lambda T, x: x.t(),
      lambda T, x: x.unfold(1, 2, 2)]),
    ("permute_diagonal", (3, 3, 2),
     [lambda T, x: x.permute(1, 2, 0), lambda T, x: x.diagonal(0, 0, 2),
      lambda T, x: x.select(0, 1)]),
    ("split_squeeze_movedim", (2, 3, 4),
     [lambda T, x: x.split(1, 0)[1], lambda T, x: x.squeeze(0), lambda T, x: x.movedim(0, 1)]),
    ("chunk_unbind", (4, 6),
     [lambda T, x: x.chunk(2, 1)[1], lambda T, x: x.unbind(0)[3], lambda T, x: x.unsqueeze(1)]),
    ("mT_narrow_unflatten", (2, 4, 6),
     [lambda T, x: x.mT, lambda T, x: x.narrow(1, 1, 2), lambda T, x: x.unflatten(2, (2, 2))]),
    ("diagonal_of_unfold", (6, 6),
     [lambda T, x: x.unfold(0, 3, 3), lambda T, x: x.diagonal(0, 1, 2)]),
    ("expand_select", (1, 4),
     [lambda T, x: x.expand(3, 4), lambda T, x: x.select(0, 1), lambda T, x: x.view(2, 2)]),
    ("tensor_split_T", (5, 4),
     [lambda T, x: x.tensor_split([1, 3])[1], lambda T, x: x.T, lambda T, x: x.squeeze()]),
    ("swap_flatten_split", (2, 3, 4),
     [lambda T, x: x.swapaxes(1, 2), lambda T, x: x.flatten(0, 1),
      lambda T, x: x.split(3, 1)[0]]),
    ("view_of_view_nc", (4, 6),
     [lambda T, x: x.t(), lambda T, x: x.view(3, 2, 4), lambda T, x: x.select(1, 1),
      lambda T, x: x.narrow(1, 1, 2)]),
    ("squeeze_unsqueeze", (1, 4),
     [lambda T, x: x.squeeze(), lambda T, x: x.unsqueeze(-1), lambda T, x: x.unsqueeze(0),
      lambda T, x: x.mT]),
    ("reshape_view_chain", (2, 3, 4),
     [lambda T, x: x.permute(1, 0, 2), lambda T, x: x.reshape(3, 2, 2, 2),
      lambda T, x: x.movedim(-1, 0), lambda T, x: x.flatten(2)]),
]


def _compose(steps):
    def f(T, x):
        for s in steps:
            x = s(T, x)
        return x
    return f


CHAINS = [(name, shape, _compose(steps)) for name, shape, steps in CHAIN_STEPS]


def _compare_all(tb, jb, tv, jv, ts, js, msg):
    assert_close(jb, tb, msg=msg + ": base")
    assert_close(jv, tv, msg=msg + ": view")
    assert_close(js, ts, msg=msg + ": sibling")
    assert jb._version == tb._version, f"{msg}: base version {jb._version} != {tb._version}"
    assert jv._version == tv._version, f"{msg}: view version {jv._version} != {tv._version}"
    geom(jv, tv, msg)


@pytest.mark.parametrize("name,shape,fn", VIEWS + CHAINS, ids=[v[0] for v in VIEWS + CHAINS])
def test_write_through(name, shape, fn):
    tb, jb = pair(shape)
    tv, jv = fn(torch, tb), fn(jtorch, jb)
    geom(jv, tv, name)
    assert (jv._base is jb) == (tv._base is tb), "is a view of the base like torch"
    ts, js = tb.t() if tb.ndim == 2 else tb.view(-1), jb.t() if jb.ndim == 2 else jb.view(-1)
    tv.mul_(2), jv.mul_(2)
    _compare_all(tb, jb, tv, jv, ts, js, f"{name} after view.mul_")
    tv.add_(1), jv.add_(1)
    _compare_all(tb, jb, tv, jv, ts, js, f"{name} after view.add_")
    tb.sub_(3), jb.sub_(3)
    _compare_all(tb, jb, tv, jv, ts, js, f"{name} after base.sub_")
    ts.div_(2), js.div_(2)
    _compare_all(tb, jb, tv, jv, ts, js, f"{name} after sibling.div_")


@pytest.mark.parametrize("name,shape,steps", CHAIN_STEPS, ids=[c[0] for c in CHAIN_STEPS])
def test_chain_geometry_at_every_step(name, shape, steps):
    t, j = pair(shape)
    for i, step in enumerate(steps):
        t, j = step(torch, t), step(jtorch, j)
        geom(j, t, f"{name} step {i}")


def test_write_to_base_after_several_views():
    tb, jb = pair((3, 4))
    tvs = [tb.t(), tb.select(0, 1), tb.view(2, 6), tb.diagonal(), tb.split(2, 1)[1]]
    jvs = [jb.t(), jb.select(0, 1), jb.view(2, 6), jb.diagonal(), jb.split(2, 1)[1]]
    tb.mul_(-1), jb.mul_(-1)
    tvs[2].add_(100), jvs[2].add_(100)
    for t, j in zip(tvs, jvs):
        assert_close(j, t)
    assert jb._version == tb._version


def test_version_counter_shared():
    tb, jb = pair((2, 3))
    tv, jv = tb.t(), jb.t()
    tw, jw = tb.unsqueeze(0), jb.unsqueeze(0)
    for op in [lambda v: v.add_(1), lambda v: v.mul_(2)]:
        op(tv), op(jv)
        assert (jb._version, jv._version, jw._version) == \
               (tb._version, tv._version, tw._version)
    tw.sub_(1), jw.sub_(1)
    assert (jb._version, jv._version, jw._version) == (tb._version, tv._version, tw._version)


def test_expand_is_read_only():
    for f in [lambda T, x: x.expand(3, 4), lambda T, x: x.expand_as(T.zeros(2, 3, 4)),
              lambda T, x: T.broadcast_to(x, (2, 4)),
              lambda T, x: T.broadcast_tensors(x, T.zeros(5, 1))[0],
              lambda T, x: x.expand(3, 4).unsqueeze(0),
              lambda T, x: T.meshgrid(x.view(-1), T.zeros(2), indexing="ij")[0]]:
        tb, jb = pair((1, 4))
        raises_like(lambda f=f, tb=tb: f(torch, tb).add_(1),
                    lambda f=f, jb=jb: f(jtorch, jb).add_(1))
        tv, jv = f(torch, tb), f(jtorch, jb)
        geom(jv, tv)
        tb.mul_(3), jb.mul_(3)  # writes to the base are seen by the expanded view
        assert_close(jv, tv)


def test_view_of_noncontiguous_raises_and_reshape_copies():
    tb, jb = pair((2, 3, 4))
    raises_like(lambda: tb.transpose(0, 1).view(-1), lambda: jb.transpose(0, 1).view(-1))
    raises_like(lambda: tb.permute(2, 0, 1).view(8, 3), lambda: jb.permute(2, 0, 1).view(8, 3))
    raises_like(lambda: tb.mT.view_as(tb), lambda: jb.mT.view_as(jb))
    tr, jr = tb.transpose(0, 1).reshape(-1), jb.transpose(0, 1).reshape(-1)
    assert (jr._base is None) == (tr._base is None)
    tr.mul_(0), jr.mul_(0)  # a copy: the base does not change
    assert_close(jb, tb)
    assert_close(jr, tr)


def test_contiguous():
    tb, jb = pair((2, 3))
    assert jb.contiguous() is jb
    tc, jc = tb.t().contiguous(), jb.t().contiguous()
    geom(jc, tc)
    assert jc._base is None
    tc.add_(5), jc.add_(5)
    assert_close(jb, tb)
    tv, jv = tb.select(1, 1), jb.select(1, 1)
    assert (jv.contiguous() is jv) == (tv.contiguous() is tv)


def test_empty_and_size1_contiguity():
    for f in [lambda x: x.t(), lambda x: x.unsqueeze(1), lambda x: x.narrow(0, 0, 0),
              lambda x: x.select(1, 0).unsqueeze(0), lambda x: x.diagonal()]:
        for shape in [(0, 3), (3, 1), (1, 3), (2, 0)]:
            tb, jb = pair(shape)
            try:
                tv = f(tb)
            except (RuntimeError, IndexError):
                continue
            geom(f(jb), tv, f"shape {shape}")


def test_inplace_on_view_of_leaf_requiring_grad_raises():
    x = rand(2, 3)
    t = torch.tensor(x, requires_grad=True)
    j = jtorch.tensor(x, requires_grad=True)
    raises_like(lambda: t.t().mul_(2), lambda: j.t().mul_(2))
    raises_like(lambda: t.select(0, 1).add_(1), lambda: j.select(0, 1).add_(1))
    with torch.no_grad(), jtorch.no_grad():
        t.t().mul_(2), j.t().mul_(2)
    assert_close(j, t)


# ------------------------------------------------------------------------------ autograd
def ag_select(T, x, y):
    a = x * 1
    v = a.transpose(0, 1).select(0, 1)
    v.mul_(y)
    return a, v * 2


def ag_tensor_split(T, x, y):
    a = x.clone()
    p = a.tensor_split(2, 1)[1]
    p.mul_(y.unsqueeze(1))
    return a


def ag_diagonal(T, x, y):
    a = x * 2
    a.diagonal().add_(y)
    return a.sum(0)


def ag_sibling(T, x, y):
    a = x * 1
    s = a.view(-1)
    a.t().narrow(0, 1, 2).mul_(y)
    return s, a


def ag_base_write_then_view(T, x, y):
    a = x * 1
    v = a.unsqueeze(0).permute(2, 0, 1)
    a.mul_(y.unsqueeze(1))
    return v


def ag_chain(T, x, y):
    a = x.reshape(3, 2, 2) * 1
    v = a.permute(2, 0, 1).narrow(0, 1, 1).squeeze(0).unsqueeze(-1)
    v.mul_(y.unsqueeze(-1).unsqueeze(-1))
    v.add_(1)
    return a


def ag_two_writes(T, x, y):
    a = x * 1
    r0, r2 = a.select(0, 0), a.select(0, 2)
    r0.mul_(y.sum())
    r2.add_(r0)
    r0.mul_(r2.sum())
    return a, a.select(0, 1)


def ag_unfold(T, x, y):
    a = x * 1
    w = a.narrow(1, 0, 2).unfold(1, 1, 1)
    w.mul_(y.view(3, 1, 1))
    return a


def ag_split_no_grad_base(T, x, y):
    a = x.detach() * 1  # pieces of split may be written when they do not require grad
    with T.no_grad():
        a.split(2, 1)[1].mul_(y.unsqueeze(1))
    return a * x


def ag_view_of_nonleaf_expand_read(T, x, y):
    a = x * 1
    e = a.select(1, 0).unsqueeze(1).expand(3, 4)
    a.add_(y.unsqueeze(1))
    return e


AUTOGRAD = [ag_select, ag_tensor_split, ag_diagonal, ag_sibling, ag_base_write_then_view,
            ag_chain, ag_two_writes, ag_unfold, ag_split_no_grad_base,
            ag_view_of_nonleaf_expand_read]


@pytest.mark.parametrize("fn", AUTOGRAD, ids=[f.__name__ for f in AUTOGRAD])
def test_autograd_through_inplace_on_views(fn):
    parity(fn, rand(3, 4), rand(3))


@pytest.mark.parametrize("fn", [ag_select, ag_tensor_split, ag_diagonal, ag_chain])
def test_base_grad_fn_is_copyslices(fn):
    x, y = rand(3, 4), rand(3)
    outs = [fn(T, T.tensor(x, requires_grad=True), T.tensor(y, requires_grad=True))
            for T in (torch, jtorch)]
    t, j = (o[0] if isinstance(o, tuple) else o for o in outs)
    if fn is ag_diagonal:
        t, j = t.grad_fn.next_functions[0][0], j.grad_fn.next_functions[0][0]
        assert type(j).__name__ == type(t).__name__ == "CopySlices"
    else:
        assert type(j.grad_fn).__name__ == type(t.grad_fn).__name__ == "CopySlices"


def test_multi_output_views_refuse_inplace_when_differentiable():
    x = rand(4, 3)
    cases = [lambda a: a.split(2)[1], lambda a: a.chunk(2, 1)[0], lambda a: a.unbind(1)[2],
             lambda a: a.split([1, 3])[1].t(), lambda a: a.unbind(0)[1].unsqueeze(0).view(3),
             lambda a: a.split(2)[0].select(0, 1)]
    for f in cases:
        def run(T, f=f):
            a = T.tensor(x, requires_grad=True) * 1
            f(a).mul_(2)

        raises_like(lambda: run(torch), lambda: run(jtorch))
    # allowed: no grad needed, under no_grad, through detach()
    for T in (torch, jtorch):
        a = T.tensor(x) * 1
        a.split(2)[1].mul_(2)
        b = T.tensor(x, requires_grad=True) * 1
        with T.no_grad():
            b.unbind()[0].add_(1)
        b.chunk(2)[0].detach().mul_(3)
        b.hsplit(3)[0].t().mul_(2)  # tensor_split pieces are separate slices: allowed


def test_saved_view_modified_through_sibling_raises_at_backward():
    x, y = rand(3, 4), rand(3)

    def run(T):
        a = T.tensor(x, requires_grad=True) * 1
        r0, r2 = a.select(0, 0), a.select(0, 2)
        r0.mul_(T.tensor(y).sum())
        r2.mul_(r0)  # saves r0 (a view of a), then bumps a's version
        a.sum().backward()

    # Known difference: after an in-place op a view's grad_fn is PyTorch's regenerated
    # AsStridedBackward0 but jtorch keeps the op's node (MulBackward0); the error names it.
    msgs = []
    for T in (torch, jtorch):
        with pytest.raises(RuntimeError) as e:
            run(T)
        msgs.append(re.sub(r"output 0 of \w+,", "output 0 of X,", str(e.value)))
    assert msgs[0] == msgs[1]


def test_modified_view_invalidates_saved_base():
    x = rand(3, 4)

    def run(T):
        a = T.tensor(x, requires_grad=True) * 1
        b = a.exp()  # saves its output... and a.exp's input is a
        c = a * a    # saves a
        a.t().select(0, 1).mul_(2)
        return (b.sum() + c.sum())

    raises_like(lambda: run(torch).backward(), lambda: run(jtorch).backward())


def test_writes_into_a_detached_copy_record_autograd_as_pytorch():
    """``y = x.clone().detach(); y[mask] = token`` (a masked-patch model's input): the alias
    starts its own history with the write (the gradient reaches ``token``), while ``x``'s
    storage takes the values and its history stays as it was."""
    mask = np.array([[True, False, True, False, False], [False, True, True, False, True]])
    rng = np.random.default_rng(0)
    x0, r0, w = (rng.standard_normal(s) for s in ((2, 5, 4), (2, 5, 4), (2, 5, 4)))
    results = {}
    for lib in (torch, jtorch):
        x = lib.tensor(x0, requires_grad=True)
        r = lib.tensor(r0, requires_grad=True)
        token = lib.tensor(rng.standard_normal((1, 1, 4)) * 0 + 0.5, requires_grad=True)
        m = lib.tensor(mask)
        y = x.clone().detach()
        flags = [y.requires_grad]
        y[m] = r[m] * 2
        y[m & lib.tensor([[True] * 5, [False] * 5])] = token
        y[1, 0] = r[0, 0]
        flags.append(y.requires_grad)
        z = x.detach()            # an alias of x itself: x's values change, not its history
        z.add_(r)
        flags += [z.requires_grad, x.grad_fn is None]
        ((y * lib.tensor(w)).sum() + (z * z).sum()).backward()
        results[lib] = (flags, r.grad.numpy(), token.grad.numpy(), x.detach().numpy(),
                        x.grad)
    t, j = results[torch], results[jtorch]
    assert j[0] == t[0] == [False, True, True, True]
    for a, b in zip(j[1:4], t[1:4]):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert j[4] is None and t[4] is None
