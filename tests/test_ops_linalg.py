"""Parity of the linear-algebra ops with PyTorch: matrix products (matmul family, einsum,
tensordot, add+product ops) and torch.linalg decompositions/solvers. Values, dtypes, gradients
(through gauge-invariant functions of decompositions) and the jitted forward/backward."""

import itertools
import warnings

import numpy as np
import pytest
import torch
from helpers import NoGrad, NonContig, parity, raises_like, rand

import jtorch

F32, F64 = np.float32, np.float64
NAN = float("nan")
P = pytest.param
_SEEDS = itertools.count(100)


def rnd(*shape, **kw):
    """helpers.rand with a fresh fixed seed per call (the cases are built at import)."""
    kw.setdefault("seed", next(_SEEDS))
    return rand(*shape, **kw)


def ints(*shape, dtype=np.int64):
    return rnd(*shape, dtype=dtype, low=-3, high=4)


def spd(*shape, dtype=F64):
    """Symmetric positive definite (well conditioned), batched."""
    x = rnd(*shape, dtype=F64)
    n = shape[-1]
    return (x @ np.swapaxes(x, -1, -2) + n * np.eye(n)).astype(dtype)


def wc(*shape, dtype=F64):
    """Well-conditioned square matrices (diagonally dominated)."""
    return (rnd(*shape, dtype=F64) + 4 * np.eye(shape[-1])).astype(dtype)


def distinct_sym(*shape, dtype=F64):
    """Symmetric with well separated eigenvalues (eigh gradients are well defined)."""
    n = shape[-1]
    q, _ = np.linalg.qr(rnd(*shape, dtype=F64))
    w = np.arange(1, n + 1, dtype=F64) * 1.5
    return (q * w[..., None, :] @ np.swapaxes(q, -1, -2)).astype(dtype)


def tol(dt, f32=1e-4):
    return {"atol": f32, "rtol": f32} if dt == F32 else {}


CASES = []


def case(name, fn, *args, **kw):
    CASES.append(P(fn, args, kw, id=name))


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


# ================================================================== products
MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3,)),
    ((3,), (5, 3, 2)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)),
    ((4, 1, 2, 3), (5, 3, 2)), ((1, 2, 3), (6, 3, 2)), ((0, 2, 3), (3, 4)), ((2, 0), (0, 3)),
    ((1,), (5, 1, 2)),
]
MATMUL_SHAPES_F32 = [MATMUL_SHAPES[i] for i in (0, 1, 2, 6, 9, 11)]
# float64: every variant (each new shape or flag is a compile: float32 gets fewer, below)
for dt in (F64,):
    n = np.dtype(dt).name
    for sa, sb in MATMUL_SHAPES:
        case(f"matmul-{n}-{sa}-{sb}", lambda T, a, b: T.matmul(a, b),
             rnd(*sa, dtype=dt), rnd(*sb, dtype=dt))
    case(f"matmul-op-{n}", lambda T, a, b: (a @ b, b.T @ a.T, T.linalg.matmul(a, b)),
         rnd(2, 3, dtype=dt), rnd(3, 4, dtype=dt))
    case(f"matmul-noncontig-{n}", lambda T, a, b: T.matmul(a, b),
         NonContig(rnd(5, 2, 3, dtype=dt)), NonContig(rnd(3, 4, dtype=dt)))
    case(f"matmul-nograd-{n}", lambda T, a, b: a.matmul(b), rnd(3, 2, 3, dtype=dt),
         NoGrad(rnd(3, 2, dtype=dt)))
    case(f"mm-{n}", lambda T, a, b: (T.mm(a, b), a.mm(b)), rnd(2, 3, dtype=dt),
         NonContig(rnd(3, 4, dtype=dt)))
    case(f"bmm-{n}", lambda T, a, b: (T.bmm(a, b), a.bmm(b)), rnd(2, 3, 4, dtype=dt),
         rnd(2, 4, 5, dtype=dt))
    case(f"bmm-empty-{n}", lambda T, a, b: T.bmm(a, b), rnd(0, 3, 4, dtype=dt),
         rnd(0, 4, 5, dtype=dt))
    case(f"mv-{n}", lambda T, a, b: (T.mv(a, b), a.mv(b)), NonContig(rnd(2, 3, dtype=dt)),
         rnd(3, dtype=dt))
    case(f"dot-vdot-{n}", lambda T, a, b: (T.dot(a, b), a.vdot(b), T.vdot(a, b)),
         rnd(4, dtype=dt), rnd(4, dtype=dt))
    case(f"dot-empty-{n}", lambda T, a, b: T.dot(a, b), rnd(0, dtype=dt), rnd(0, dtype=dt))
    case(f"inner-{n}", lambda T, a, b: (T.inner(a, b), a.inner(b[0])), rnd(2, 3, dtype=dt),
         rnd(4, 3, dtype=dt))
    case(f"inner-0d-{n}", lambda T, a, b: T.inner(a, b), rnd(dtype=dt), rnd(2, 3, dtype=F64))
    case(f"outer-{n}", lambda T, a, b: (T.outer(a, b), a.ger(b), T.ger(a, b)),
         rnd(3, dtype=dt), rnd(2, dtype=dt))
    case(f"outer-promote-{n}", lambda T, a, b: T.outer(a, b), rnd(3, dtype=dt),
         rnd(2, dtype=F64))
    case(f"kron-{n}", lambda T, a, b: (T.kron(a, b), a.kron(b[0])), rnd(2, 3, dtype=dt),
         rnd(2, 2, 1, dtype=dt))
    case(f"tensordot-{n}", lambda T, a, b: (T.tensordot(a, b), T.tensordot(a, b[0], 1),
                                           T.tensordot(a, b, ([1, 0], [0, 1])),
                                           T.tensordot(a, b, dims=[[-1], [1]]),
                                           T.tensordot(a, b, 0)),
         rnd(3, 3, dtype=dt), rnd(3, 3, dtype=dt))
    case(f"multi_dot-{n}", lambda T, a, b, c: (T.linalg.multi_dot([a, b, c]),
                                              T.linalg.multi_dot([b, c]),
                                              T.linalg.multi_dot([a[0], b, c[:, 0]]),
                                              T.chain_matmul(b, c, c.T)),
         rnd(2, 3, dtype=dt), rnd(3, 4, dtype=dt), NonContig(rnd(4, 2, dtype=dt)))
    case(f"vecdot-{n}", lambda T, a, b: (T.linalg.vecdot(a, b), T.linalg.vecdot(a, b, dim=0)),
         rnd(3, 3, dtype=dt), NonContig(rnd(3, 1, dtype=dt)))
    case(f"cross-{n}", lambda T, a, b: (T.linalg.cross(a, b), T.linalg.cross(a, b[:1]),
                                       T.cross(a, b, dim=-1), a.cross(b, 1)),
         rnd(4, 3, dtype=dt), rnd(4, 3, dtype=dt))
    case(f"cross-dim0-{n}", lambda T, a, b: (T.cross(a, b), T.linalg.cross(a, b, dim=0)),
         NonContig(rnd(3, 2, dtype=dt)), rnd(3, 2, dtype=dt))
    # einsum: string forms, list of operands, ellipsis, implicit output, sublist form
    case(f"einsum-{n}", lambda T, a, b: (T.einsum("ij,jk->ik", a, b), T.einsum("ij,jk", [a, b]),
                                        T.einsum("i j , j k -> k i", a, b),
                                        T.einsum("ij->", a), T.einsum("ii", b[:, :3]),
                                        T.einsum("ij,ij->i", a, a), T.einsum(a, [0, 1], b,
                                                                             [1, 2], [0, 2])),
         rnd(2, 3, dtype=dt), rnd(3, 4, dtype=dt))
    case(f"einsum-ellipsis-{n}", lambda T, a, b: (T.einsum("...ij,...jk", a, b),
                                                 T.einsum("b...i,i->...", a, b[0, :, 0]),
                                                 T.einsum("Ab,b...->A...", a[0], b[0])),
         rnd(5, 2, 3, dtype=dt), NonContig(rnd(1, 3, 4, dtype=dt)))
    case(f"einsum-broadcast-1-{n}", lambda T, a, b: T.einsum("ij,jk->ik", a, b),
         rnd(2, 1, dtype=dt), rnd(3, 4, dtype=dt))
    case(f"einsum-three-{n}", lambda T, a, b, c: T.einsum("ij,jk,kl->il", a, b, c),
         rnd(2, 3, dtype=dt), rnd(3, 4, dtype=dt), rnd(4, 2, dtype=dt))
    # add + product
    case(f"addmm-{n}", lambda T, i, a, b: (T.addmm(i, a, b), T.addmm(i, a, b, beta=0.5, alpha=2),
                                          i.addmm(a, b, alpha=-1)),
         rnd(2, 4, dtype=dt), rnd(2, 3, dtype=dt), NonContig(rnd(3, 4, dtype=dt)))
    case(f"addmm-bcast-{n}", lambda T, i, a, b: T.addmm(i, a, b, beta=2), rnd(4, dtype=dt),
         rnd(2, 3, dtype=dt), rnd(3, 4, dtype=dt))
    case(f"addmv-{n}", lambda T, i, a, b: (T.addmv(i, a, b), i.addmv(a, b, beta=3, alpha=0.5),
                                          T.addmv(i[:1], a, b)),
         rnd(2, dtype=dt), rnd(2, 3, dtype=dt), rnd(3, dtype=dt))
    case(f"addr-{n}", lambda T, i, a, b: (T.addr(i, a, b), i.addr(a, b, beta=0.5, alpha=2),
                                         T.addr(i[0], a, b)),
         rnd(2, 3, dtype=dt), rnd(2, dtype=dt), rnd(3, dtype=dt))
    case(f"baddbmm-{n}", lambda T, i, a, b: (T.baddbmm(i, a, b), i.baddbmm(a, b, alpha=2),
                                            T.baddbmm(i[0], a, b, beta=0.5)),
         rnd(2, 3, 5, dtype=dt), rnd(2, 3, 4, dtype=dt), rnd(2, 4, 5, dtype=dt))
    case(f"addbmm-{n}", lambda T, i, a, b: (T.addbmm(i, a, b), i.addbmm(a, b, beta=2, alpha=3),
                                           T.addbmm(i[0], a, b)),
         rnd(3, 5, dtype=dt), rnd(2, 3, 4, dtype=dt), rnd(2, 4, 5, dtype=dt))

# float32: the matmul dispatch paths and each op once
for sa, sb in MATMUL_SHAPES_F32:
    case(f"matmul-float32-{sa}-{sb}", lambda T, a, b: T.matmul(a, b), rnd(*sa), rnd(*sb))
case("family-float32", lambda T, a, b: (
    a @ b, T.mm(a, b), T.bmm(a[None], b[None]), T.mv(a, b[:, 0]), T.dot(a[0], b[:, 0]),
    T.vdot(a[0], b[:, 1]), T.inner(a, b.T), T.outer(a[0], b[0]), T.kron(a, a),
    T.tensordot(a, b, 1), T.linalg.multi_dot([a, b, b.T]), T.linalg.vecdot(a, b.T),
    T.linalg.cross(a, b.T), T.cross(a.T, b, dim=0)),
    rnd(2, 3), NonContig(rnd(3, 2)), atol=1e-5, rtol=1e-5)
case("einsum-float32", lambda T, a, b: (T.einsum("...ij,jk", a, b), T.einsum("bij->j", a),
                                        T.einsum("bij,jk->bk", a, b)),
     rnd(2, 2, 3), rnd(3, 4))
case("add-products-float32", lambda T, i, a, b, v: (
    T.addmm(i, a, b, beta=0.5, alpha=2), T.addmv(i[0], a, b[:, 0]), T.addr(i, a[:, 0], v),
    T.baddbmm(i, a[None], b[None], alpha=2), T.addbmm(i, a[None], b[None], beta=2)),
    rnd(3, 3), rnd(3, 3), NonContig(rnd(3, 3)), rnd(3))

# integers (PyTorch's CPU matmul supports them), half precision and bool where PyTorch has them
for it in (np.int64, np.int32, np.uint8):
    n = np.dtype(it).name
    case(f"matmul-int-{n}", lambda T, a, b, c: (a @ b, T.mm(a, b), T.matmul(c, b), T.bmm(
        c, b[None].expand(3, 3, 2)), T.dot(a[0], b[:, 0]), T.mv(a, b[:, 1]),
        T.einsum("ij,jk", a, b), T.tensordot(a, b, 1), T.inner(a, b.T), T.outer(a[0], b[0]),
        T.kron(a, b), T.linalg.multi_dot([a, b, b.T]), T.matrix_power(c[:, 0], 3),
        T.einsum("ij->j", a), T.einsum("ij->ji", a)),
         ints(2, 3, dtype=it), ints(3, 2, dtype=it), ints(3, 2, 3, dtype=it))
case("add-products-int", lambda T, i, a, b, v: (
    T.addmm(i, a, b, beta=2, alpha=3), T.addmm(i, a, b, beta=1.5, alpha=2.7),
    T.addmv(i[0], a, b[:, 0], beta=-0.5), T.baddbmm(i, a[None], b[None], alpha=2.5),
    T.addbmm(i, a[None], b[None], beta=0.7), T.addr(i, a[:, 0], v, beta=2, alpha=-1),
    T.linalg.cross(a, b)),
    ints(3, 3), ints(3, 3), ints(3, 3), ints(3))
case("products-bool", lambda T, a, b, c: (T.outer(a, b), T.kron(a, b), T.addr(c, a, b),
                                          T.addr(c, a, b, beta=0), T.addr(c, a, b, alpha=False),
                                          T.einsum("i,j->ij", a, b), T.einsum("ij->ji", c)),
     rnd(3, dtype=np.bool_), rnd(2, dtype=np.bool_), rnd(3, 2, dtype=np.bool_))
case("products-mixed-promote", lambda T, a, b, c: (T.kron(a, c), T.outer(a, b), T.inner(b[0], c)),
     ints(3), rnd(2, dtype=F32), rnd(3, 2, dtype=F64))
# einsum of mixed dtypes: a pair with no label to sum (or one of size 1 in either operand)
# is multiplied with promotion (x-transformers' ScaledSinusoidalEmbedding: int64 positions
# times float32 frequencies); a pair to reduce by bmm must match (EINSUM_ERRORS)
case("einsum-mixed-promote", lambda T, a, b, c: (
    T.einsum("i,j->ij", T.arange(4), b), T.einsum("i,j->ij", b, a), T.einsum("i,i->i", a, b),
    T.einsum("ij,jk->ik", b[:, None], c[:1]), T.einsum("i,j,k->ijk", a, b, b[:3]),
    T.einsum("i,i,i->", a, b, b), T.einsum("...i,...i->...", a[:1], b)),
    ints(4), rnd(4, dtype=F32), rnd(3, 4, dtype=F64))
# addr promotes in the forward; PyTorch's own backward fails on mixed dtypes
case("addr-mixed-promote", lambda T, a, b, c: (T.addr(c, a, b), T.addr(b, a, b)),
     ints(3), rnd(2, dtype=F32), rnd(3, 2, dtype=F64), grad=False)
case("matmul-half", lambda T, a, b: (a @ b, T.mm(a, b), T.einsum("ij,jk", a, b)),
     rnd(2, 3, dtype=np.float16), rnd(3, 4, dtype=np.float16), grad=False, atol=1e-2, rtol=1e-2)
case("matmul-complex", lambda T, a, b: (a @ b, T.vdot(a[0], b[:, 0]), T.dot(a[0], b[:, 0]),
                                        T.inner(a, b.T), T.linalg.vecdot(a, b.T)),
     rnd(2, 3, dtype=np.complex128), rnd(3, 2, dtype=np.complex128), grad=False)


@pytest.mark.parametrize("fn,args,kw", CASES)
def test_products(fn, args, kw):
    parity(fn, *args, **kw)


def test_beta_zero_ignores_nan():
    nan = np.full((2, 3), NAN, F32)
    parity(lambda T, i, a, b: T.addmm(i, a, b, beta=0), nan, rnd(2, 4), rnd(4, 3))
    parity(lambda T, i, a, b: T.addr(i, a, b, beta=0, alpha=2), nan, rnd(2), rnd(3))
    parity(lambda T, i, a, b: T.addmv(i, a, b, beta=0), nan[0, :2], rnd(2, 3), rnd(3))
    parity(lambda T, i, a, b: T.baddbmm(i, a, b, beta=0), nan[None], rnd(1, 2, 4), rnd(1, 4, 3))
    parity(lambda T, i, a, b: T.addbmm(i, a, b, beta=0), nan, rnd(2, 2, 4), rnd(2, 4, 3))


@pytest.mark.parametrize("name", ["addmm_", "addmv_", "addr_", "baddbmm_", "addbmm_"])
def test_inplace_and_out(name):
    shapes = {"addmm_": ((2, 3), (2, 4), (4, 3)), "addmv_": ((2,), (2, 3), (3,)),
              "addr_": ((2, 3), (2,), (3,)), "baddbmm_": ((2, 2, 3), (2, 2, 4), (2, 4, 3)),
              "addbmm_": ((2, 3), (2, 2, 4), (2, 4, 3))}[name]
    arrs = [rnd(*s) for s in shapes]
    ts = [torch.tensor(a) for a in arrs]
    js = [jtorch.tensor(a) for a in arrs]
    getattr(ts[0], name)(ts[1], ts[2], beta=0.5, alpha=2)
    getattr(js[0], name)(js[1], js[2], beta=0.5, alpha=2)
    np.testing.assert_allclose(js[0].numpy(), ts[0].numpy(), rtol=1e-5, atol=1e-5)
    fn = name[:-1]
    t_out, j_out = torch.empty(0), jtorch.empty(0)
    getattr(torch, fn)(*ts, out=t_out)
    r = getattr(jtorch, fn)(*js, out=j_out)
    assert r is j_out
    np.testing.assert_allclose(j_out.numpy(), t_out.numpy(), rtol=1e-5, atol=1e-5)


def test_out_forms():
    a, b = rnd(2, 3), rnd(3, 4)
    for fn, args in (("matmul", (a, b)), ("mm", (a, b)), ("kron", (a, b)),
                     ("outer", (a[0], b[0])), ("dot", (a[0], b[:, 0])),
                     ("inner", (a, b.T))):
        t_out, j_out = torch.empty(0), jtorch.empty(0)
        getattr(torch, fn)(*[torch.tensor(x) for x in args], out=t_out)
        getattr(jtorch, fn)(*[jtorch.tensor(x) for x in args], out=j_out)
        np.testing.assert_allclose(j_out.numpy(), t_out.numpy(), rtol=1e-5, atol=1e-6)
    t_out, j_out = torch.empty(0), jtorch.empty(0)
    torch.linalg.multi_dot([torch.tensor(a), torch.tensor(b)], out=t_out)
    jtorch.linalg.multi_dot([jtorch.tensor(a), jtorch.tensor(b)], out=j_out)
    np.testing.assert_allclose(j_out.numpy(), t_out.numpy(), rtol=1e-5, atol=1e-6)


def test_rmatmul_and_grad_fn():
    a = jtorch.tensor(rnd(2, 3), requires_grad=True)
    b = np.ones((4, 2), F32)
    out = a.__rmatmul__(jtorch.tensor(b))
    np.testing.assert_allclose(out.detach().numpy(), b @ a.detach().numpy(), rtol=1e-6)
    assert type(jtorch.mm(a, a.T).grad_fn).__name__ == "MmBackward0"
    assert type(jtorch.bmm(a[None], a.T[None]).grad_fn).__name__ == "BmmBackward0"


# ================================================================== product errors
def f(*s):
    return rnd(*s)


def d(*s):
    return rnd(*s, dtype=F64)


def i(*s):
    return ints(*s)


def b(*s):
    return rnd(*s, dtype=np.bool_)


PRODUCT_ERRORS = [
    ("mm", (f(2, 3), f(4, 5))), ("mm", (f(2, 3), d(3, 5))), ("mm", (f(3), f(3, 2))),
    ("mm", (f(2, 3), f(3))), ("mm", (f(2, 3), f(3, 5).astype(np.float16))),
    ("mm", (i(2, 3).astype(np.int16), i(3, 5).astype(np.int8))), ("mm", (b(2, 3), b(3, 2))),
    ("matmul", (f(3), f(4))), ("matmul", (f(2, 3), f(4))), ("matmul", (f(3), f(4, 2))),
    ("matmul", (f(2, 3), f(4, 2))), ("matmul", (f(5, 2, 3), f(4, 2))),
    ("matmul", (f(5, 2, 3), f(4, 3, 2))), ("matmul", (f(2, 3), d(3, 2))),
    ("matmul", (f(3), d(3))), ("matmul", (f(5, 2, 3), d(3, 2))), ("matmul", (f(2, 3), d(3))),
    ("matmul", (f(), f(3))), ("matmul", (f(3), f())), ("matmul", (i(2, 3), f(3, 2))),
    ("matmul", (b(3), b(3, 2))), ("matmul", (f(5, 2, 3), f(4))), ("matmul", (f(3), f(5, 4, 2))),
    ("matmul", (f(5, 2, 3), f(5, 4, 2))), ("matmul", (f(2, 3), f(5, 4, 2))),
    ("matmul", (f(5, 2, 3), d(5, 3, 2))), ("matmul", (f(3), f(5, 1, 2))),
    ("matmul", (f(3), f(0, 4, 2))), ("matmul", (f(5, 2, 3), i(3))),
    ("bmm", (f(2, 3, 4), f(3, 4, 5))), ("bmm", (f(2, 3, 4), f(2, 5, 5))),
    ("bmm", (f(3, 4), f(2, 4, 5))), ("bmm", (f(2, 3, 4), f(4, 5))),
    ("bmm", (d(2, 3, 4), f(2, 4, 5))), ("bmm", (b(2, 2, 3), b(2, 3, 2))),
    ("mv", (f(2, 3), f(4))), ("mv", (f(2, 3), d(3))), ("mv", (f(3), f(3))),
    ("mv", (f(2, 3), f(3, 1))), ("mv", (i(2, 3), f(3))), ("mv", (b(2, 3), b(3))),
    ("dot", (f(2, 3), f(2, 3))), ("dot", (f(3), d(3))), ("dot", (f(3), f(4))),
    ("dot", (f(), f())), ("dot", (b(3), b(3))), ("dot", (f(3).astype(np.int32), i(3))),
    ("vdot", (f(3), d(4))), ("vdot", (f(2, 3), f(2, 3))), ("vdot", (b(3), b(3))),
    ("inner", (f(2, 3), f(4))), ("inner", (f(2, 3), d(3))), ("inner", (b(3), b(3))),
    ("inner", (b(2, 3), b(3))),
    ("outer", (f(3, 1), f(2))), ("outer", (f(3), f(2, 1))), ("ger", (f(3, 1), f(2))),
    ("outer", (f(), f(3))),
    ("addmm", (f(3), f(2, 3), f(3, 2))), ("addmm", (d(2, 2), f(2, 3), f(3, 2))),
    ("addmm", (f(2, 2), d(2, 3), f(3, 2))), ("addmm", (f(2, 2), f(2, 3), d(3, 2))),
    ("addmm", (f(2, 2), f(2, 3), f(4, 2))), ("addmm", (f(2, 2), f(3), f(4, 2))),
    ("addmm", (f(2, 2), f(2, 3), f(3))), ("addmm", (f(2, 2, 2), f(2, 3), f(3, 2))),
    ("addmm", (b(2, 2), b(2, 3), b(3, 2))),
    ("addmv", (f(2), f(2, 3), f(4))), ("addmv", (d(2), f(2, 3), f(3))),
    ("addmv", (f(2), f(2, 3), d(3))), ("addmv", (f(3), f(2, 3), f(3))),
    ("addmv", (f(2, 1), f(2, 3), f(3))), ("addmv", (f(2), f(3), f(3))),
    ("addmv", (b(2), b(2, 3), b(3))),
    ("addr", (f(2, 3), f(2), f(4))), ("addr", (f(2, 3), f(2, 1), f(3))),
    ("addr", (f(2, 3), f(), f(3))), ("addr", (f(2, 2, 3), f(2), f(3))),
    ("baddbmm", (f(2, 3, 5), f(2, 3, 4), f(3, 4, 5))), ("baddbmm", (d(2, 3, 5), f(2, 3, 4),
                                                                 f(2, 4, 5))),
    ("baddbmm", (f(2, 3, 5), f(2, 3, 4), d(2, 4, 5))), ("baddbmm", (f(2, 3, 5), f(3, 4),
                                                                 f(2, 4, 5))),
    ("baddbmm", (f(2, 3, 5), f(2, 3, 4), f(2, 4))), ("baddbmm", (f(2, 2, 5), f(2, 3, 4),
                                                              f(2, 4, 5))),
    ("baddbmm", (b(2, 3, 5), b(2, 3, 4), b(2, 4, 5))),
    ("addbmm", (f(3, 5), f(2, 3, 4), f(3, 4, 5))), ("addbmm", (f(3, 5), f(2, 3, 4),
                                                            f(2, 5, 5))),
    ("addbmm", (f(3, 5), f(3, 4), f(2, 4, 5))), ("addbmm", (f(3, 5), f(2, 3, 4), f(4, 5))),
    ("addbmm", (d(3, 5), f(2, 3, 4), f(2, 4, 5))), ("addbmm", (f(3, 5), d(2, 3, 4),
                                                            f(2, 4, 5))),
    ("addbmm", (b(3, 5), b(2, 3, 4), b(2, 4, 5))),
    ("cross", (f(4, 2), f(4, 2))),
    ("cross", (f(2, 3), f(3))), ("cross", (f(1, 3), f(3, 2))),
]
KW_ERRORS = [
    ("tensordot", (f(2, 3), f(4, 5)), {"dims": 1}), ("tensordot", (f(2, 3), d(3, 5)), {"dims": 1}),
    ("tensordot", (f(2, 3), f(4, 5)), {"dims": ([1], [0])}),
    ("tensordot", (f(2, 3), f(4, 5)), {"dims": ([1, 0], [0])}),
    ("tensordot", (f(2, 3), f(4, 5)), {"dims": -1}),
    ("tensordot", (f(2, 3), f(3, 5)), {"dims": 3}),
    ("tensordot", (f(2, 3), f(3, 5)), {"dims": ([1], [5])}),
    ("tensordot", (b(2, 3), b(3, 5)), {"dims": 1}), ("tensordot", (b(3), b(3)), {"dims": 1}),
    ("addr", (i(2, 3), i(2), i(3)), {"alpha": 1.5}), ("addr", (i(2, 3), i(2), i(3)),
                                                      {"beta": 0.5}),
    ("addr", (f(2, 3), f(2), f(3)), {"alpha": True}),
    ("addr", (b(2, 3), b(2), b(3)), {"alpha": 1.5}),
]
LINALG_PRODUCT_ERRORS = [
    ("multi_dot", [f(2, 3)]), ("multi_dot", [f(2, 3), d(3, 2)]), ("multi_dot", []),
    ("multi_dot", [f(2, 3, 3), f(3, 3)]), ("multi_dot", [f(2, 3), f(4, 3)]),
    ("multi_dot", [f(2, 3), f(3, 4), f(3, 5)]), ("multi_dot", [f(2, 3), f(3, 4, 5)]),
    ("multi_dot", [f(2, 3), f(3, 4), f(4, 5), d(5, 2)]), ("multi_dot", [i(2, 3), f(3, 4)]),
    ("multi_dot", [b(2, 3), b(3, 4)]),
    ("vecdot", (f(2, 3), d(3))), ("vecdot", (f(2, 3), f(4))), ("vecdot", (i(2, 3), i(3))),
    ("vecdot", (f(2, 3), i(3))), ("vecdot", (i(2, 3), f(3))),
    ("cross", (f(2, 3), d(3))), ("cross", (f(2, 3), f(3, 3))), ("cross", (f(3, 2), f(3, 2))),
    ("cross", (f(2, 3), d(2, 3))), ("cross", (i(2, 3), f(2, 3))), ("cross", (f(2, 3), f(4, 3))),
    ("cross", (b(3), b(3))),
]
EINSUM_ERRORS = [
    ("ij,jk", (f(2, 3), f(4, 5))), ("ij,jk", (f(2, 3), d(3, 5))), ("ij,jk", (f(2, 3),)),
    ("ijk,jk", (f(2, 3), f(3, 5))), ("i->j", (f(2),)), ("ii->i", (f(2, 3),)),
    ("ij,jk->ikk", (f(2, 3), f(3, 5))), ("i.j", (f(2, 3),)), ("ij", (f(2, 3), f(3))),
    ("ij,jk->iK", (f(2, 3), f(3, 5))), ("i1", (f(2, 3),)), ("ij..k,jk", (f(2, 3), f(3, 5))),
    ("...i...", (f(2, 3),)), ("ij...,jk", (f(2), f(3, 5))), ("i...,j...->...", (f(2, 3),
                                                                               f(4, 2))),
    ("ij-->ij", (f(2, 3),)), ("ij->i-j", (f(2, 3),)), ("ij,jk", (b(2, 3), b(3, 5))),
    ("i,i", (i(2).astype(np.int32), d(2))), ("i,i->", (i(3), f(3))), ("ij,jk", (f(2, 3),
                                                                               i(3, 2))),
    ("i,i,i->", (f(3), f(3), i(3))), ("...i,...i->i", (i(2, 3), f(2, 3))),
]


def _lib_args(lib, args):
    return [lib.tensor(a) if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("name,args", PRODUCT_ERRORS, ids=lambda x: x if isinstance(x, str)
                         else None)
def test_product_errors(name, args):
    raises_like(lambda: getattr(torch, name)(*_lib_args(torch, args)),
                lambda: getattr(jtorch, name)(*_lib_args(jtorch, args)))


@pytest.mark.parametrize("name,args,kw", KW_ERRORS, ids=lambda x: x if isinstance(x, str)
                         else None)
def test_product_errors_kw(name, args, kw):
    raises_like(lambda: getattr(torch, name)(*_lib_args(torch, args), **kw),
                lambda: getattr(jtorch, name)(*_lib_args(jtorch, args), **kw))


@pytest.mark.parametrize("name,args", LINALG_PRODUCT_ERRORS, ids=lambda x: x
                         if isinstance(x, str) else None)
def test_linalg_product_errors(name, args):
    if name == "multi_dot":
        raises_like(lambda: torch.linalg.multi_dot(_lib_args(torch, args)),
                    lambda: jtorch.linalg.multi_dot(_lib_args(jtorch, args)))
    else:
        raises_like(lambda: getattr(torch.linalg, name)(*_lib_args(torch, args)),
                    lambda: getattr(jtorch.linalg, name)(*_lib_args(jtorch, args)))


@pytest.mark.parametrize("eq,args", EINSUM_ERRORS, ids=lambda x: x if isinstance(x, str)
                         else None)
def test_einsum_errors(eq, args):
    raises_like(lambda: torch.einsum(eq, *_lib_args(torch, args)),
                lambda: jtorch.einsum(eq, *_lib_args(jtorch, args)))


def test_chain_matmul_errors_and_single():
    raises_like(lambda: torch.chain_matmul(), lambda: jtorch.chain_matmul())
    raises_like(lambda: torch.chain_matmul(torch.ones(3), torch.ones(3, 4)),
                lambda: jtorch.chain_matmul(jtorch.ones(3), jtorch.ones(3, 4)))
    parity(lambda T, a: T.chain_matmul(a), rnd(2, 3))


# ================================================================== decompositions and solvers
DCASES = []


def dcase(name, fn, *args, **kw):
    DCASES.append(P(fn, args, kw, id=name))


def usv(u, s, vh):
    """Gauge-invariant reconstruction from the thin factors."""
    k = s.shape[-1]
    return (u[..., :k] * s[..., None, :]) @ vh[..., :k, :]


# float64: the variants of each op (each new shape or flag is a compile: keep them few)
for dt in (F64,):
    n = np.dtype(dt).name
    t = tol(dt)
    dcase(f"inv-{n}", lambda T, a: T.linalg.inv(a),
          wc(2, 3, 3, dtype=dt), **t)
    dcase(f"inv-noncontig-{n}", lambda T, a: T.linalg.inv(a), NonContig(wc(3, 3, dtype=dt)), **t)
    dcase(f"det-{n}", lambda T, a: T.linalg.det(a),
          wc(2, 3, 3, dtype=dt), **t)
    dcase(f"slogdet-logdet-{n}", lambda T, a, p: (T.linalg.slogdet(a), T.logdet(p),
                                                  T.logdet(a)),
          rnd(2, 3, 3, dtype=dt), spd(2, 3, 3, dtype=dt), **t)
    dcase(f"solve-{n}", lambda T, a, b, c: (T.linalg.solve(a, b), T.linalg.solve(a, c[0]),
                                           T.linalg.solve(a, c[0].mT, left=False)),
          wc(2, 3, 3, dtype=dt), rnd(2, 3, dtype=dt), NonContig(rnd(4, 1, 3, 2, dtype=dt)),
          **t)
    dcase(f"svd-{n}", lambda T, a: (usv(*T.linalg.svd(a, full_matrices=False)),
                                    T.linalg.svd(a).S, T.linalg.svdvals(a)),
          rnd(2, 4, 3, dtype=dt), **t)
    dcase(f"svd-wide-full-{n}", lambda T, a: (usv(*T.linalg.svd(a)), T.linalg.svd(a).S),
          NonContig(rnd(2, 3, 5, dtype=dt)), **t)
    dcase(f"torch-svd-{n}", lambda T, a: (lambda r: (r.S, (r.U * r.S[..., None, :]) @ r.V.mT))(
        T.svd(a)), rnd(4, 3, dtype=dt), **t)
    dcase(f"qr-{n}", lambda T, a: (T.linalg.qr(a), T.linalg.qr(a.mT, mode="complete")),
          rnd(2, 4, 3, dtype=dt), **t)
    dcase(f"cholesky-{n}", lambda T, a: (T.linalg.cholesky(a), T.linalg.cholesky(a, upper=True),
                                         a.cholesky(upper=True)),
          spd(2, 3, 3, dtype=dt), **t)
    dcase(f"eigh-{n}", lambda T, a: (lambda w, v: (w, v * v, (v * w[..., None, :]) @ v.mT))(
        *T.linalg.eigh(a)), distinct_sym(2, 3, 3, dtype=dt), **t)
    dcase(f"eigh-upper-{n}", lambda T, a: (T.linalg.eigh(a, UPLO="U").eigenvalues,
                                           T.linalg.eigvalsh(a), T.linalg.eigvalsh(a, "U")),
          distinct_sym(3, 3, dtype=dt), **t)
    dcase(f"pinv-{n}", lambda T, a: (T.linalg.pinv(a), a.pinverse()),
          rnd(2, 4, 3, dtype=dt), **t)
    dcase(f"pinv-tol-{n}", lambda T, a, h: (
        T.linalg.pinv(a, atol=0.5), T.linalg.pinv(a, 0.3), T.linalg.pinv(h, hermitian=True)),
          rnd(4, 3, dtype=dt), distinct_sym(3, 3, dtype=dt), **t)
    dcase(f"matrix_power-{n}", lambda T, a: (T.linalg.matrix_power(a, 0), a.matrix_power(1),
                                             T.linalg.matrix_power(a, 5),
                                             T.linalg.matrix_power(a, -3)),
          wc(2, 3, 3, dtype=dt) / 4, **t)
    dcase(f"matrix_exp-{n}", lambda T, a: T.linalg.matrix_exp(a),
          rnd(2, 3, 3, dtype=dt, low=-1, high=1), **t)
    dcase(f"solve_triangular-{n}", lambda T, a, b: (
        T.linalg.solve_triangular(a, b, upper=True),
        T.linalg.solve_triangular(a, b.mT, upper=True, left=False),
        T.linalg.solve_triangular(a, b, upper=False, unitriangular=True)),
          wc(2, 3, 3, dtype=dt), NonContig(rnd(3, 2, dtype=dt)), **t)
    dcase(f"triangular_solve-{n}", lambda T, b, a: (
        T.triangular_solve(b, a), b.triangular_solve(a, upper=False, transpose=True)),
          rnd(1, 3, 2, dtype=dt), wc(2, 3, 3, dtype=dt), **t)
    dcase(f"cholesky_solve-{n}", lambda T, b, lo, up: (
        T.cholesky_solve(b, lo), b.cholesky_solve(up, upper=True)),
          rnd(3, 2, dtype=dt), np.linalg.cholesky(spd(2, 3, 3)).astype(dt),
          np.swapaxes(np.linalg.cholesky(spd(2, 3, 3)), -1, -2).astype(dt), **t)
    dcase(f"lstsq-{n}", lambda T, a, b: (T.linalg.lstsq(a, b),
                                         T.linalg.lstsq(a, b[..., 0], driver="gelsd"),
                                         T.linalg.lstsq(a.mT, b[..., :3, :]).solution),
          rnd(2, 4, 3, dtype=dt), rnd(2, 4, 2, dtype=dt), **t)
    dcase(f"matrix_rank-{n}", lambda T, a, s: (
        T.linalg.matrix_rank(a), T.linalg.matrix_rank(s, hermitian=True),
        T.linalg.matrix_rank(a, atol=1.0, rtol=0.0), T.linalg.matrix_rank(a, tol=0.5),
        T.linalg.matrix_rank(a @ a.mT)),
          rnd(2, 4, 3, dtype=dt), spd(3, 3, dtype=dt))

# float32: one call per op, looser tolerances
T32 = tol(F32)
for name, fn, args in [
    ("inv", lambda T, a: T.linalg.inv(a), (wc(2, 3, 3, dtype=F32),)),
    ("det", lambda T, a: T.det(a), (wc(2, 3, 3, dtype=F32),)),
    ("slogdet", lambda T, a: T.linalg.slogdet(a), (rnd(2, 3, 3, dtype=F32),)),
    ("solve", lambda T, a, b: T.linalg.solve(a, b), (wc(2, 3, 3, dtype=F32),
                                                      rnd(3, 2, dtype=F32))),
    ("svd", lambda T, a: usv(*T.linalg.svd(a, full_matrices=False)), (rnd(2, 4, 3, dtype=F32),)),
    ("qr", lambda T, a: T.linalg.qr(a), (rnd(2, 4, 3, dtype=F32),)),
    ("cholesky", lambda T, a: T.linalg.cholesky(a), (spd(2, 3, 3, dtype=F32),)),
    ("eigh", lambda T, a: (lambda w, v: (w, v * v))(*T.linalg.eigh(a)),
     (distinct_sym(2, 3, 3, dtype=F32),)),
    ("pinv", lambda T, a: T.linalg.pinv(a), (rnd(2, 4, 3, dtype=F32),)),
    ("matrix_power", lambda T, a: T.linalg.matrix_power(a, 3), (rnd(2, 3, 3, dtype=F32),)),
    ("matrix_exp", lambda T, a: T.linalg.matrix_exp(a), (rnd(3, 3, dtype=F32, low=-1, high=1),)),
    ("solve_triangular", lambda T, a, b: T.linalg.solve_triangular(a, b, upper=True),
     (wc(3, 3, dtype=F32), rnd(3, 2, dtype=F32))),
    ("cholesky_solve", lambda T, b, lo: T.cholesky_solve(b, lo),
     (rnd(3, 2, dtype=F32), np.linalg.cholesky(spd(3, 3)).astype(F32))),
    ("lstsq", lambda T, a, b: T.linalg.lstsq(a, b).solution, (rnd(4, 3, dtype=F32),
                                                               rnd(4, 2, dtype=F32))),
]:
    dcase(f"{name}-float32", fn, *args, **T32)

dcase("cond", lambda T, a: (T.linalg.cond(a), T.linalg.cond(a, -2)), wc(2, 3, 3))
# PyTorch's own backward of the norm-based cond fails (an in-place write): values only
dcase("cond-norms", lambda T, a: (T.linalg.cond(a, "fro"), T.linalg.cond(a, "nuc"),
                                  T.linalg.cond(a, float("inf")), T.linalg.cond(a, -1)),
      wc(2, 3, 3), grad=False)
dcase("cond-float32-singular", lambda T, a, z: (T.linalg.cond(a), T.linalg.cond(z, 1),
                                                T.linalg.cond(z, "fro")),
      rnd(2, 4, 3), NoGrad(np.zeros((3, 3), F32)), **T32)
dcase("vander", lambda T, x, n: (T.linalg.vander(x), T.linalg.vander(x, N=4), T.linalg.vander(n)),
      rnd(2, 3, dtype=F64), ints(3, dtype=np.int32))
dcase("tensorinv-tensorsolve", lambda T, a, b: (
    T.linalg.tensorinv(a.reshape(2, 3, 6), ind=2), T.linalg.tensorsolve(a.reshape(2, 3, 6), b),
    T.linalg.tensorsolve(a.reshape(6, 2, 3), b.reshape(6),
                         dims=(1, 2))),
      wc(6, 6), rnd(2, 3, dtype=F64))

# 0-size batches and 0x0 matrices where PyTorch allows them
dcase("empty", lambda T, a, e: (T.linalg.inv(a), T.linalg.det(a), T.linalg.slogdet(a),
                                T.linalg.svdvals(a), T.linalg.eigvalsh(a), T.linalg.cholesky(a),
                                T.linalg.matrix_exp(a), T.linalg.matrix_power(a, 3),
                                T.linalg.pinv(e), T.linalg.qr(e), T.linalg.inv(e[..., :0]),
                                T.linalg.det(e[:, :0, :0]), T.linalg.matrix_rank(e)),
      rnd(0, 3, 3, dtype=F64), rnd(2, 0, 3, dtype=F64))
# rank-deficient and singular inputs: values (PyTorch's gradients there are convention-bound)
# (a zero row keeps the matrix exactly singular in any LU: with a row that is a multiple of
# another, whether the last pivot is 0 or 1e-16 depends on the CPU's BLAS kernels)
dcase("singular-values", lambda T, a: (T.linalg.det(a), T.linalg.slogdet(a).sign,
                                       T.linalg.matrix_rank(a), T.linalg.pinv(a), T.logdet(-a)),
      np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]]), grad=False)


@pytest.mark.parametrize("fn,args,kw", DCASES)
def test_decompositions(fn, args, kw):
    parity(fn, *args, **kw)


def test_aliases():
    """PyTorch's aliases are the same functions (parity runs one spelling of each)."""
    J = jtorch
    for a, b in ((J.det, J.linalg.det), (J.slogdet, J.linalg.slogdet), (J.inverse, J.linalg.inv),
                 (J.matrix_power, J.linalg.matrix_power), (J.matrix_exp, J.linalg.matrix_exp),
                 (J.Tensor.det, J.det), (J.Tensor.inverse, J.inverse),
                 (J.Tensor.matrix_exp, J.matrix_exp), (J.Tensor.slogdet, J.slogdet),
                 (J.Tensor.matrix_power, J.matrix_power), (J.ger, J.outer),
                 (J.Tensor.ger, J.outer), (J.linalg.matmul, J.matmul)):
        assert a is b
    for name in ("det", "slogdet", "inverse", "matrix_exp", "matrix_power", "svd", "qr",
                 "cholesky", "pinverse", "logdet", "triangular_solve", "cholesky_solve", "mm",
                 "bmm", "mv", "dot", "vdot", "inner", "outer", "kron", "cross", "addmm_"):
        assert hasattr(torch.Tensor, name) and hasattr(J.Tensor, name), name


def test_decomposition_values_with_gauge():
    """Where only the factors' span is unique, check the factorization properties."""
    a = rnd(2, 5, 3, dtype=F64)
    for full in (True, False):
        u, s, vh = jtorch.linalg.svd(jtorch.tensor(a), full_matrices=full)
        m, k = (5, 3) if full else (3, 3)
        assert tuple(u.shape) == (2, 5, m) and tuple(vh.shape) == (2, 3, k)
        np.testing.assert_allclose(u.mT.matmul(u).numpy(), np.broadcast_to(np.eye(m), (2, m, m)),
                                   atol=1e-12)
        np.testing.assert_allclose(usv(u, s, vh).numpy(), a, atol=1e-12)
    u, s, v = jtorch.svd(jtorch.tensor(a), some=False)
    assert tuple(u.shape) == (2, 5, 5) and tuple(v.shape) == (2, 3, 3)
    q, r = jtorch.linalg.qr(jtorch.tensor(a), mode="complete")
    np.testing.assert_allclose(q.matmul(r).numpy(), a, atol=1e-12)
    tq, tr = torch.linalg.qr(torch.tensor(a), mode="complete")
    np.testing.assert_allclose(np.abs(q.numpy()), np.abs(tq.numpy()), atol=1e-12)
    np.testing.assert_allclose(np.abs(r.numpy()), np.abs(tr.numpy()), atol=1e-12)


def test_svd_compute_uv_false():
    parity(lambda T, a: T.svd(a, compute_uv=False), rnd(4, 3, dtype=F64))
    parity(lambda T, a: T.svd(a, some=False, compute_uv=False), rnd(2, 3, 4, dtype=F64))


def test_svd_full_matrices_grad_ignores_completion():
    # PyTorch narrows the gradient of the completing singular vectors away; so does jtorch
    parity(lambda T, a: (lambda u, s, vh: (u[..., :3] * s[..., None, :]) @ vh)(*T.linalg.svd(a)),
           rnd(2, 5, 3, dtype=F64))


@pytest.mark.parametrize("mode", ["r", "complete"])
def test_qr_modes_without_gradient_raise_at_backward(mode):
    a = rnd(4, 3, dtype=F64)
    for lib in (torch, jtorch):
        q, r = lib.linalg.qr(lib.tensor(a).requires_grad_(), mode=mode)
        assert tuple(q.shape) == ((0,) if mode == "r" else (4, 4))
    raises_like(lambda: torch.linalg.qr(torch.tensor(a).requires_grad_(),
                                        mode=mode).R.sum().backward(),
                lambda: jtorch.linalg.qr(jtorch.tensor(a).requires_grad_(),
                                         mode=mode).R.sum().backward())


def test_hermitian_ops_read_one_triangle():
    """cholesky/eigh use only the named triangle of a non-symmetric input; the gradient is the
    symmetric one PyTorch returns."""
    a = spd(3, 3)
    lo = a + np.triu(np.full((3, 3), 0.7), 1)   # garbage above the diagonal
    up = a + np.tril(np.full((3, 3), -0.4), -1)  # garbage below
    parity(lambda T, x: T.linalg.cholesky(x), lo)
    parity(lambda T, x: T.linalg.cholesky(x, upper=True), up)
    parity(lambda T, x: T.linalg.eigvalsh(x), lo)
    parity(lambda T, x: T.linalg.eigvalsh(x, UPLO="U"), up)


def test_namedtuples_and_grad_fn():
    a = jtorch.tensor(spd(3, 3), requires_grad=True)
    assert type(jtorch.linalg.svd(a)).__name__ == "linalg_svd"
    assert jtorch.linalg.svd(a)._fields == ("U", "S", "Vh")
    assert jtorch.svd(a)._fields == ("U", "S", "V")
    assert jtorch.linalg.eigh(a)._fields == ("eigenvalues", "eigenvectors")
    assert jtorch.linalg.qr(a)._fields == ("Q", "R")
    assert jtorch.linalg.slogdet(a)._fields == ("sign", "logabsdet")
    assert jtorch.linalg.lstsq(a, a)._fields == ("solution", "residuals", "rank",
                                                 "singular_values")
    assert jtorch.triangular_solve(a, a)._fields == ("solution", "cloned_coefficient")
    t = torch.tensor(spd(3, 3), requires_grad=True)
    for fn in (lambda L, x: L.linalg.inv(x), lambda L, x: L.linalg.det(x),
               lambda L, x: L.linalg.cholesky(x), lambda L, x: L.linalg.eigh(x)[0],
               lambda L, x: L.linalg.svd(x)[1], lambda L, x: L.linalg.solve(x, x),
               lambda L, x: L.linalg.matrix_exp(x), lambda L, x: L.linalg.pinv(x)):
        assert type(fn(jtorch, a).grad_fn).__name__ == type(fn(torch, t).grad_fn).__name__
    r = jtorch.linalg.matrix_rank(a)
    assert r.dtype == jtorch.int64 and not r.requires_grad


def test_decomposition_out():
    a = spd(2, 3, 3)
    t_out, j_out = torch.empty(0, dtype=torch.float64), jtorch.empty(0, dtype=jtorch.float64)
    torch.linalg.inv(torch.tensor(a), out=t_out)
    jtorch.linalg.inv(jtorch.tensor(a), out=j_out)
    np.testing.assert_allclose(j_out.numpy(), t_out.numpy(), rtol=1e-12)
    tw, tv = torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.float64)
    jw, jv = jtorch.empty(0, dtype=jtorch.float64), jtorch.empty(0, dtype=jtorch.float64)
    torch.linalg.eigh(torch.tensor(a), out=(tw, tv))
    res = jtorch.linalg.eigh(jtorch.tensor(a), out=(jw, jv))
    assert res.eigenvalues is jw
    np.testing.assert_allclose(jw.numpy(), tw.numpy(), rtol=1e-12)


# ================================================================== decomposition errors
h = np.float16
DECOMP_ERRORS = [
    ("linalg.inv", (f(2, 3),)), ("linalg.inv", (f(3),)), ("linalg.inv", (i(3, 3),)),
    ("inverse", (f(2, 3),)), ("linalg.inv", (f(3, 3).astype(h),)), ("linalg.inv", (i(2, 3),)),
    ("linalg.det", (f(2, 3),)), ("linalg.det", (i(3, 3),)), ("linalg.det", (f(3),)),
    ("det", (f(2, 3),)), ("linalg.det", (f(3, 3).astype(h),)),
    ("linalg.slogdet", (f(2, 3),)), ("linalg.slogdet", (i(3, 3),)),
    ("linalg.slogdet", (f(3, 3).astype(h),)), ("logdet", (f(2, 3),)), ("logdet", (i(3, 3),)),
    ("logdet", (f(3),)), ("logdet", (f(3, 3).astype(h),)),
    ("linalg.solve", (f(3, 3), f(4))), ("linalg.solve", (f(3, 3), d(3))),
    ("linalg.solve", (f(2, 3), f(2))), ("linalg.solve", (f(2, 3, 3), f(4, 3))),
    ("linalg.solve", (i(3, 3), i(3))), ("linalg.solve", (f(3, 3), i(3))),
    ("linalg.solve", (f(3), f(3))), ("linalg.solve", (f(3, 3), f())),
    ("linalg.solve", (f(4, 2, 3, 3), f(2, 3))), ("linalg.solve", (f(3, 3).astype(h),
                                                                 f(3).astype(h))),
    ("linalg.svd", (i(3, 3),)), ("linalg.svd", (f(3),)), ("svd", (f(3),)),
    ("linalg.svdvals", (f(3),)), ("linalg.svd", (f(3, 3).astype(h),)),
    ("linalg.qr", (f(3),)), ("linalg.qr", (i(3, 3),)), ("linalg.qr", (f(3, 3).astype(h),)),
    ("linalg.cholesky", (f(2, 3),)), ("linalg.cholesky", (i(3, 3),)), ("cholesky", (f(2, 3),)),
    ("linalg.cholesky", (f(3, 3).astype(h),)),
    ("linalg.eigh", (f(2, 3),)), ("linalg.eigh", (i(3, 3),)), ("linalg.eigvalsh", (f(2, 3),)),
    ("linalg.eigh", (f(3),)), ("linalg.eigh", (f(3, 3).astype(h),)),
    ("linalg.pinv", (f(3),)), ("linalg.pinv", (i(3, 3),)), ("linalg.pinv", (f(3, 3).astype(h),)),
    ("linalg.matrix_rank", (f(3),)), ("linalg.matrix_rank", (i(3, 3),)),
    ("linalg.matrix_power", (f(2, 3), 2)), ("linalg.matrix_power", (i(3, 3), -1)),
    ("linalg.matrix_power", (f(3), 2)), ("linalg.matrix_power", (b(3, 3), 2)),
    ("linalg.matrix_power", (f(3, 3), 2.0)), ("linalg.matrix_exp", (f(2, 3),)),
    ("matrix_exp", (i(3, 3),)),
    ("linalg.solve_triangular", (f(3, 3), f(3))), ("linalg.solve_triangular", (f(3, 3), f(4, 2))),
    ("linalg.solve_triangular", (i(3, 3), i(3, 2))), ("linalg.solve_triangular", (f(2, 3),
                                                                                 f(3, 2))),
    ("linalg.solve_triangular", (f(3), f(3, 2))),
    ("triangular_solve", (f(3, 2), f(2, 3))), ("triangular_solve", (f(3, 2), d(3, 3))),
    ("triangular_solve", (f(3), f(3, 3))), ("triangular_solve", (f(3, 2).astype(h),
                                                                 f(3, 3).astype(h))),
    ("cholesky_solve", (f(3, 2), f(4, 4))), ("cholesky_solve", (f(3, 2), d(3, 3))),
    ("cholesky_solve", (f(3), f(3, 3))), ("cholesky_solve", (i(3, 2), i(3, 3))),
    ("linalg.lstsq", (i(3, 3), i(3, 2))), ("linalg.lstsq", (f(3, 3), d(3, 2))),
    ("linalg.lstsq", (f(3, 3), f(4, 2))), ("linalg.lstsq", (f(2, 3, 3), f(3, 2))),
]
DECOMP_KW_ERRORS = [
    ("linalg.qr", (f(3, 3),), {"mode": "x"}), ("linalg.eigh", (f(3, 3),), {"UPLO": "X"}),
    ("linalg.solve", (f(3, 3), f(3)), {"left": False}),
    ("linalg.solve_triangular", (f(3, 3), f(3, 2)), {"upper": True, "left": False}),
    ("linalg.lstsq", (f(3, 3), f(3, 2)), {"driver": "x"}),
    ("linalg.pinv", (f(3, 4),), {"hermitian": True}),
]


def _fn(lib, name):
    mod = lib
    for part in name.split("."):
        mod = getattr(mod, part)
    return mod


@pytest.mark.parametrize("name,args", DECOMP_ERRORS, ids=lambda x: x if isinstance(x, str)
                         else None)
def test_decomposition_errors(name, args):
    kw = {"upper": True} if name == "linalg.solve_triangular" else {}
    raises_like(lambda: _fn(torch, name)(*_lib_args(torch, args), **kw),
                lambda: _fn(jtorch, name)(*_lib_args(jtorch, args), **kw))


@pytest.mark.parametrize("name,args,kw", DECOMP_KW_ERRORS, ids=lambda x: x
                         if isinstance(x, str) else None)
def test_decomposition_errors_kw(name, args, kw):
    raises_like(lambda: _fn(torch, name)(*_lib_args(torch, args), **kw),
                lambda: _fn(jtorch, name)(*_lib_args(jtorch, args), **kw))


@pytest.mark.parametrize("name", ["ldl_factor"])
def test_not_implemented_linalg(name):
    with pytest.raises(NotImplementedError, match=f"torch.linalg.{name}"):
        getattr(jtorch.linalg, name)(jtorch.eye(3))


def test_det_grad_at_singular_input():
    """Documented difference: at an exactly singular matrix jtorch's det gradient is the
    adjugate (the derivative); PyTorch 2.13 returns zeros for this rank-2 input (a zero row:
    exactly singular in any LU, whatever the CPU's BLAS kernels round)."""
    a = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]])
    cof = np.array([[(-1) ** (r + c) * np.linalg.det(np.delete(np.delete(a, r, 0), c, 1))
                     for c in range(3)] for r in range(3)])
    x = jtorch.tensor(a, requires_grad=True)
    jtorch.linalg.det(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), cof, atol=1e-12)
    t = torch.tensor(a, requires_grad=True)
    torch.linalg.det(t).backward()
    assert not t.grad.abs().sum()


def test_singular_input_does_not_raise():
    """Documented difference: PyTorch raises LinAlgError for singular / non-PD input from the
    values; jtorch's compiled kernels return inf/NaN instead (jit cannot raise on values)."""
    z = np.zeros((3, 3))
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.inv(torch.tensor(z))
    assert not np.isfinite(jtorch.linalg.inv(jtorch.tensor(z)).numpy()).all()
    assert np.isnan(jtorch.linalg.cholesky(jtorch.tensor(-np.eye(3))).numpy()).any()
    assert issubclass(jtorch.linalg.LinAlgError, RuntimeError)
