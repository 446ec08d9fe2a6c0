"""Automatic mixed precision: autocast's per-op casts (CPU bfloat16, checked op by op against
torch.autocast("cpu")), its API, and GradScaler step by step against torch.amp.GradScaler."""

import copy
import pickle
import warnings

import helpers
import jax
import numpy as np
import pytest
import torch
from helpers import NoGrad, assert_close, parity, raises_like

import jtorch
from jtorch._core import autocast as _policy
from jtorch._ops._registry import OPS

R = np.random.default_rng(0)
BF = {"atol": 3e-2, "rtol": 3e-2}   # a few bfloat16 ulps


@pytest.fixture(autouse=True)
def _reset_autocast():
    yield
    for lib in (torch, jtorch):
        lib.set_autocast_enabled("cpu", False)
        lib.set_autocast_dtype("cpu", lib.bfloat16)


def r(*s, lo=-1.0, hi=1.0):
    return R.uniform(lo, hi, s).astype(np.float32)


def spd(n):
    a = r(n, n)
    return (a @ a.T + n * np.eye(n)).astype(np.float32)


def i64(*s, hi=3):
    return R.integers(0, hi, s).astype(np.int64)


def F(T):
    return T.nn.functional


def _pool_unpool(T, x, d):
    pool = F(T).max_pool2d if d == 2 else F(T).max_pool3d
    unpool = F(T).max_unpool2d if d == 2 else F(T).max_unpool3d
    return unpool(*pool(x.detach(), 2, return_indices=True), 2) * x.sum()


# (jtorch op name, fn(T, *tensors), float32 inputs, cast them to bfloat16 first?): the ops
# that lower run on float32 inputs, the fp32 ones on bfloat16 inputs (where a cast shows)
CASES = [
    # ---- CPU lower_precision_fp
    ("conv1d", lambda T, x, w, b: F(T).conv1d(x, w, b), [r(2, 3, 8), r(4, 3, 3), r(4)], 0),
    ("conv2d", lambda T, x, w, b: F(T).conv2d(x, w, b, padding=1),
     [r(2, 3, 6, 6), r(4, 3, 3, 3), r(4)], 0),
    ("conv3d", lambda T, x, w, b: F(T).conv3d(x, w, b),
     [r(1, 2, 4, 4, 4), r(3, 2, 2, 2, 2), r(3)], 0),
    ("conv_transpose1d", lambda T, x, w, b: F(T).conv_transpose1d(x, w, b),
     [r(2, 3, 8), r(3, 4, 3), r(4)], 0),
    ("conv_transpose2d", lambda T, x, w, b: F(T).conv_transpose2d(x, w, b, stride=2),
     [r(1, 3, 4, 4), r(3, 2, 3, 3), r(2)], 0),
    ("conv_transpose3d", lambda T, x, w, b: F(T).conv_transpose3d(x, w, b),
     [r(1, 2, 3, 3, 3), r(2, 3, 2, 2, 2), r(3)], 0),
    ("conv_tbc", lambda T, x, w, b: T.conv_tbc(x, w, b, 1), [r(6, 2, 3), r(3, 3, 4), r(4)], 0),
    ("bmm", lambda T, a, b: T.bmm(a, b), [r(2, 3, 4), r(2, 4, 5)], 0),
    ("mm", lambda T, a, b: T.mm(a, b), [r(3, 4), r(4, 5)], 0),
    ("matmul", lambda T, a, b: a @ b, [r(2, 3, 4), r(4, 5)], 0),
    ("matmul", lambda T, a, b: T.matmul(a, b), [r(4), r(4)], 0),
    ("baddbmm", lambda T, i, a, b: T.baddbmm(i, a, b, beta=0.5),
     [r(2, 3, 5), r(2, 3, 4), r(2, 4, 5)], 0),
    ("addmm", lambda T, i, a, b: T.addmm(i, a, b), [r(5), r(3, 4), r(4, 5)], 0),
    ("addbmm", lambda T, i, a, b: T.addbmm(i, a, b), [r(3, 5), r(2, 3, 4), r(2, 4, 5)], 0),
    ("linear", lambda T, x, w, b: F(T).linear(x, w, b), [r(2, 3, 4), r(5, 4), r(5)], 0),
    ("prelu", lambda T, x, w: F(T).prelu(x, w), [r(2, 3, 4), r(3)], 0),
    ("_scaled_dot_product_attention",
     lambda T, q, k, v: F(T).scaled_dot_product_attention(q, k, v),
     [r(1, 2, 3, 4), r(1, 2, 5, 4), r(1, 2, 5, 4)], 0),
    ("linalg.vecdot", lambda T, a, b: T.linalg.vecdot(a, b), [r(3, 4), r(3, 4)], 0),
    ("linalg.multi_dot", lambda T, a, b, c: T.linalg.multi_dot([a, b, c]),
     [r(3, 4), r(4, 5), r(5, 2)], 0),
    ("rnn_tanh_cell", lambda T, x, h, wi, wh, bi, bh: T.rnn_tanh_cell(x, h, wi, wh, bi, bh),
     [r(2, 3), r(2, 4), r(4, 3), r(4, 4), r(4), r(4)], 0),
    ("rnn_relu_cell", lambda T, x, h, wi, wh, bi, bh: T.rnn_relu_cell(x, h, wi, wh, bi, bh),
     [r(2, 3), r(2, 4), r(4, 3), r(4, 4), r(4), r(4)], 0),
    ("_multi_head_attention", lambda T, q, w, b, ow, ob: F(T).multi_head_attention_forward(
        q, q, q, 4, 2, w, b, None, None, False, 0.0, ow, ob, need_weights=True),
     [r(3, 1, 4), r(12, 4), r(12), r(4, 4), r(4)], 0),
    # ---- composites whose PyTorch decomposition autocasts (bmm/mm inside)
    ("einsum", lambda T, a, b: T.einsum("ij,jk->ik", a, b), [r(3, 4), r(4, 5)], 0),
    ("einsum", lambda T, a, b: T.einsum("i,i", a, b), [r(4), r(4)], 0),
    ("einsum", lambda T, a, b: T.einsum("i,i->i", a, b), [r(4), r(4)], 0),
    ("einsum", lambda T, a, b: T.einsum("i,j->ij", a, b), [r(4), r(3)], 0),
    ("einsum", lambda T, a: T.einsum("ii", a), [r(3, 3)], 0),
    ("einsum", lambda T, a, b, c: T.einsum("ij,jk,kl->il", a, b, c),
     [r(3, 4), r(4, 5), r(5, 2)], 0),
    ("tensordot", lambda T, a, b: T.tensordot(a, b, dims=1), [r(3, 4), r(4, 5)], 0),
    ("tensordot", lambda T, a, b: T.tensordot(a, b, dims=0), [r(3), r(2)], 0),
    ("tensordot", lambda T, a, b: T.tensordot(a, b, dims=2), [r(3, 4), r(3, 4)], 0),
    ("tensordot", lambda T, a, b: T.tensordot(a, b, dims=([0], [0])), [r(4), r(4)], 0),
    ("inner", lambda T, a, b: T.inner(a, b), [r(3, 4), r(5, 4)], 0),
    ("inner", lambda T, a, b: T.inner(a, b), [r(4), r(4)], 0),
    ("inner", lambda T, a, b: T.inner(a, b), [r(4), r(3, 4)], 0),
    ("linalg.matrix_power", lambda T, a: T.linalg.matrix_power(a, 3), [r(3, 3)], 0),
    ("linalg.matrix_power", lambda T, a: T.linalg.matrix_power(a, 1), [r(3, 3)], 0),
    ("linalg.matrix_power", lambda T, a: T.linalg.matrix_power(a, 0), [r(3, 3)], 0),
    ("linalg.matrix_power", lambda T, a: T.linalg.matrix_power(a, -1), [spd(3)], 1),
    ("linalg.matrix_power", lambda T, a: T.linalg.matrix_power(a, -2), [spd(3)], 0),
    ("hstack", lambda T, a, b: T.hstack([a, b.to(T.bfloat16)]), [r(2, 3), r(2, 3)], 0),
    ("vstack", lambda T, a, b: T.vstack([a, b.to(T.bfloat16)]), [r(2, 3), r(2, 3)], 0),
    ("dstack", lambda T, a, b: T.dstack([a, b.to(T.bfloat16)]), [r(2, 3), r(2, 3)], 0),
    ("column_stack", lambda T, a, b: T.column_stack([a, b.to(T.bfloat16)]), [r(3), r(3)], 0),
    # ---- not on the CPU lists: run in their inputs' dtype
    ("mv", lambda T, a, b: T.mv(a, b), [r(3, 4), r(4)], 0),
    ("addmv", lambda T, i, a, b: T.addmv(i, a, b), [r(3), r(3, 4), r(4)], 0),
    ("dot", lambda T, a, b: T.dot(a, b), [r(4), r(4)], 0),
    ("bilinear", lambda T, a, b, w, c: F(T).bilinear(a, b, w, c),
     [r(3, 4), r(3, 5), r(2, 4, 5), r(2)], 0),
    ("lstm_cell", lambda T, x, h, c, wi, wh, bi, bh: T.lstm_cell(x, (h, c), wi, wh, bi, bh)[0],
     [r(2, 3), r(2, 4), r(2, 4), r(16, 3), r(16, 4), r(16), r(16)], 0),
    ("gru_cell", lambda T, x, h, wi, wh, bi, bh: T.gru_cell(x, h, wi, wh, bi, bh),
     [r(2, 3), r(2, 4), r(12, 3), r(12, 4), r(12), r(12)], 0),
    ("layer_norm", lambda T, x, w, b: F(T).layer_norm(x, (4,), w, b), [r(3, 4), r(4), r(4)], 1),
    ("softmax", lambda T, x: T.softmax(x, -1), [r(3, 4)], 1),
    ("sum", lambda T, x: T.sum(x, 1), [r(3, 4)], 1),
    ("exp", lambda T, x: T.exp(x), [r(3, 4)], 0),
    ("avg_pool2d", lambda T, x: F(T).avg_pool2d(x, 2), [r(1, 2, 4, 4)], 0),
    ("max_pool3d", lambda T, x: F(T).max_pool3d(x, 2, return_indices=True)[0],
     [r(1, 2, 4, 4, 4)], 0),
    ("constant_pad_nd", lambda T, x: F(T).pad(x, (1, 1)), [r(2, 3)], 0),
    ("gaussian_nll_loss", lambda T, a, b, v: F(T).gaussian_nll_loss(a, b, v),
     [r(3, 4), r(3, 4), r(3, 4, lo=0.1)], 0),
    ("linalg.det", lambda T, x: T.linalg.det(x), [spd(3)], 0),
    # ---- CPU fp32
    ("cdist", lambda T, a, b: T.cdist(a, b), [r(3, 4), r(5, 4)], 1),
    ("fft.fft", lambda T, x: T.fft.fft(x), [r(3, 8)], 1),
    ("fft.ifft", lambda T, x: T.fft.ifft(x), [r(3, 8)], 1),
    ("fft.fft2", lambda T, x: T.fft.fft2(x), [r(4, 8)], 1),
    ("fft.ifft2", lambda T, x: T.fft.ifft2(x), [r(4, 8)], 1),
    ("fft.fftn", lambda T, x: T.fft.fftn(x), [r(2, 4, 8)], 1),
    ("fft.ifftn", lambda T, x: T.fft.ifftn(x), [r(2, 4, 8)], 1),
    ("fft.rfft", lambda T, x: T.fft.rfft(x), [r(3, 8)], 1),
    ("fft.irfft", lambda T, x: T.fft.irfft(x), [r(3, 8)], 1),
    ("fft.rfft2", lambda T, x: T.fft.rfft2(x), [r(4, 8)], 1),
    ("fft.irfft2", lambda T, x: T.fft.irfft2(x), [r(4, 8)], 1),
    ("fft.rfftn", lambda T, x: T.fft.rfftn(x), [r(2, 4, 8)], 1),
    ("fft.irfftn", lambda T, x: T.fft.irfftn(x), [r(2, 4, 8)], 1),
    ("fft.hfft", lambda T, x: T.fft.hfft(x), [r(3, 8)], 1),
    ("fft.ihfft", lambda T, x: T.fft.ihfft(x), [r(3, 8)], 1),
    ("prod", lambda T, x: T.prod(x, 1), [r(3, 4)], 1),
    ("quantile", lambda T, x, q: T.quantile(x, q, dim=1),
     [r(3, 4), NoGrad(np.array([0.25, 0.5], np.float32))], 1),
    ("nanquantile", lambda T, x: T.nanquantile(x, 0.3, dim=1), [r(3, 4)], 1),
    ("trace", lambda T, x: T.trace(x), [r(3, 3)], 1),
    ("polar", lambda T, a, b: T.polar(a, b), [r(3, lo=0.5), r(3)], 0),
    ("view_as_complex", lambda T, x: T.view_as_real(T.view_as_complex(x) * 2), [r(3, 2)], 1),
    ("cholesky", lambda T, x: T.cholesky(x), [spd(3)], 1),
    ("cholesky_solve", lambda T, b, x: T.cholesky_solve(b, x),
     [r(3, 2), np.linalg.cholesky(spd(3)).astype(np.float32)], 1),
    ("linalg.inv", lambda T, x: T.linalg.inv(x), [spd(3)], 1),
    ("linalg.inv_ex", lambda T, x: T.linalg.inv_ex(x)[0], [spd(3)], 1),
    ("cholesky_inverse", lambda T, x: T.cholesky_inverse(x),
     [np.linalg.cholesky(spd(3)).astype(np.float32)], 1),
    ("linalg.cholesky_ex", lambda T, x: T.linalg.cholesky_ex(x)[0], [spd(3)], 1),
    ("linalg.eig", lambda T, x: T.linalg.eig(x)[0].abs(), [spd(3)], 1),
    ("linalg.eigvals", lambda T, x: T.linalg.eigvals(x).real, [spd(3)], 1),
    ("geqrf", lambda T, x: T.geqrf(x.detach())[1], [r(4, 3)], 1),   # (no derivative)
    ("linalg.householder_product", lambda T, a, t: T.linalg.householder_product(a, t),
     [r(4, 3), r(2, lo=0.5)], 1),
    ("ormqr", lambda T, a, t, c: T.ormqr(a, t, c), [r(4, 3), r(3, lo=0.5), r(4, 2)], 1),
    ("linalg.pinv", lambda T, x: T.pinverse(x), [r(3, 4)], 1),
    ("linalg.solve", lambda T, a, b: T.linalg.solve(a, b), [spd(3), r(3, 2)], 1),
    ("linalg.cholesky", lambda T, x: T.linalg.cholesky(x), [spd(3)], 1),
    ("linalg.svdvals", lambda T, x: T.linalg.svdvals(x), [r(3, 4)], 1),
    ("linalg.eigvalsh", lambda T, x: T.linalg.eigvalsh(x), [spd(3)], 1),
    ("linalg.eigh", lambda T, x: T.linalg.eigh(x)[0], [spd(3)], 1),
    ("linalg.cond", lambda T, x: T.linalg.cond(x), [spd(3)], 1),
    ("linalg.matrix_rank", lambda T, x: T.linalg.matrix_rank(x), [r(3, 4)], 1),
    ("linalg.tensorinv", lambda T, x: T.linalg.tensorinv(x, ind=1), [spd(4)], 1),
    ("linalg.tensorsolve", lambda T, a, b: T.linalg.tensorsolve(a, b), [spd(4), r(4)], 1),
    ("linalg.qr", lambda T, x: T.linalg.qr(x)[1].abs(), [r(4, 3)], 1),
    ("qr", lambda T, x: T.qr(x)[1].abs(), [r(4, 3)], 1),
    ("linalg.svd", lambda T, x: T.linalg.svd(x)[1], [r(4, 3)], 1),
    ("svd", lambda T, x: T.svd(x)[1], [r(4, 3)], 1),
    ("linalg.lstsq", lambda T, a, b: T.linalg.lstsq(a, b)[0], [r(4, 3), r(4, 2)], 1),
    ("triangular_solve", lambda T, b, a: T.triangular_solve(b, a)[0],
     [r(3, 2), np.triu(spd(3))], 1),
    ("avg_pool3d", lambda T, x: F(T).avg_pool3d(x, 2), [r(1, 2, 4, 4, 4)], 1),
    ("max_pool3d", lambda T, x: F(T).max_pool3d(x, 2), [r(1, 2, 4, 4, 4)], 1),
    ("adaptive_avg_pool3d", lambda T, x: F(T).adaptive_avg_pool3d(x, 2), [r(1, 2, 4, 4, 4)], 1),
    ("adaptive_max_pool3d", lambda T, x: F(T).adaptive_max_pool3d(x, 2), [r(1, 2, 4, 4, 4)], 1),
    ("fractional_max_pool2d", lambda T, x, u: F(T).fractional_max_pool2d(
        x, 2, 3, _random_samples=u), [r(1, 2, 6, 6), NoGrad(r(1, 2, 2, lo=0.0))], 1),
    ("fractional_max_pool3d", lambda T, x, u: F(T).fractional_max_pool3d(
        x, 2, 2, _random_samples=u), [r(1, 2, 4, 4, 4), NoGrad(r(1, 2, 3, lo=0.0))], 1),
    ("stft", lambda T, x, w: T.stft(x, 8, window=w, return_complex=True).abs(),
     [r(2, 20), r(8)], 1),
    ("max_unpool2d", lambda T, x: _pool_unpool(T, x, 2), [r(1, 2, 4, 4)], 1),
    ("max_unpool3d", lambda T, x: _pool_unpool(T, x, 3), [r(1, 1, 4, 4, 4)], 1),
    ("grid_sampler_2d", lambda T, x, g: F(T).grid_sample(x, g, align_corners=False),
     [r(1, 2, 4, 4), r(1, 3, 3, 2)], 1),
    ("grid_sampler_3d", lambda T, x, g: F(T).grid_sample(x, g, align_corners=False),
     [r(1, 2, 3, 3, 3), r(1, 2, 2, 2, 3)], 1),
    ("pad", lambda T, x: F(T).pad(x, (1, 2), mode="reflect"), [r(2, 3, 5)], 1),
    ("pad", lambda T, x: F(T).pad(x, (1, 2, 1, 1), mode="reflect"), [r(1, 2, 4, 5)], 1),
    ("pad", lambda T, x: F(T).pad(x, (1, 1, 1, 1, 1, 1), mode="reflect"), [r(1, 1, 3, 4, 5)], 1),
    ("pad", lambda T, x: F(T).pad(x, (1, 2), mode="replicate"), [r(2, 3, 5)], 1),
    ("pad", lambda T, x: F(T).pad(x, (1, 2, 1, 1), mode="replicate"), [r(1, 2, 4, 5)], 1),
    ("pad", lambda T, x: F(T).pad(x, (1, 1, 1, 1, 1, 1), mode="replicate"),
     [r(1, 1, 3, 4, 5)], 1),
    ("pad", lambda T, x: F(T).pad(x, (1, 1, 1, 1), mode="circular"), [r(1, 2, 4, 5)], 1),
    ("mse_loss", lambda T, a, b: F(T).mse_loss(a, b), [r(3, 4), r(3, 4)], 1),
    ("l1_loss", lambda T, a, b: F(T).l1_loss(a, b), [r(3, 4), r(3, 4)], 1),
    ("smooth_l1_loss", lambda T, a, b: F(T).smooth_l1_loss(a, b), [r(3, 4), r(3, 4)], 1),
    ("huber_loss", lambda T, a, b: F(T).huber_loss(a, b), [r(3, 4), r(3, 4)], 1),
    ("cross_entropy", lambda T, a, t: F(T).cross_entropy(a, t), [r(3, 4), i64(3, hi=4)], 1),
    ("nll_loss", lambda T, a, t, w: F(T).nll_loss(a, t, w),
     [r(3, 4), i64(3, hi=4), NoGrad(r(4, lo=0.5))], 1),
    ("kl_div", lambda T, a, b: F(T).kl_div(a, b, reduction="batchmean"),
     [r(3, 4), r(3, 4, lo=0.1)], 1),
    ("binary_cross_entropy", lambda T, a, b: F(T).binary_cross_entropy(a, b),
     [r(3, 4, lo=0.1, hi=0.9), r(3, 4, lo=0.0)], 1),
    ("binary_cross_entropy_with_logits",
     lambda T, a, b: F(T).binary_cross_entropy_with_logits(a, b), [r(3, 4), r(3, 4, lo=0.0)], 1),
    ("cosine_embedding_loss", lambda T, a, b, y: F(T).cosine_embedding_loss(a, b, y),
     [r(3, 4), r(3, 4), np.array([1, -1, 1])], 1),
    ("hinge_embedding_loss", lambda T, a, y: F(T).hinge_embedding_loss(a, y),
     [r(3, 4), np.sign(r(3, 4)).astype(np.float32)], 1),
    ("poisson_nll_loss", lambda T, a, b: F(T).poisson_nll_loss(a, b), [r(3, 4), r(3, 4, lo=0.0)],
     1),
    ("margin_ranking_loss", lambda T, a, b, y: F(T).margin_ranking_loss(a, b, y),
     [r(4), r(4), np.sign(r(4)).astype(np.float32)], 1),
    ("soft_margin_loss", lambda T, a, y: F(T).soft_margin_loss(a, y),
     [r(3, 4), NoGrad(np.sign(r(3, 4)).astype(np.float32))], 1),
    ("triplet_margin_loss", lambda T, a, p, n: F(T).triplet_margin_loss(a, p, n),
     [r(3, 4), r(3, 4), r(3, 4)], 1),
    ("multi_margin_loss", lambda T, a, t: F(T).multi_margin_loss(a, t), [r(3, 4), i64(3, hi=4)],
     1),
    ("multilabel_margin_loss", lambda T, a, t: F(T).multilabel_margin_loss(a, t),
     [r(3, 4), np.array([[1, 2, -1, 0], [0, -1, 0, 0], [3, 0, -1, 1]])], 1),
    ("ctc_loss", lambda T, lp, t: F(T).ctc_loss(lp.log_softmax(2), t, [5, 5], [2, 3]),
     [r(5, 2, 4), np.array([[1, 2, 0], [1, 3, 2]])], 1),
    # ---- CPU promote
    ("cat", lambda T, a, b: T.cat([a, b.to(T.bfloat16)]), [r(2, 3), r(2, 3)], 0),
    ("stack", lambda T, a, b: T.stack([a, b.to(T.bfloat16)]), [r(2, 3), r(2, 3)], 0),
    ("index_copy", lambda T, a, b: a.index_copy(0, T.tensor([2, 0]), b.to(T.bfloat16)),
     [r(3, 4), r(2, 4)], 0),
]


# the cases also run forward+backward under jax.jit (the others' kernels are the same
# mechanism; test_under_jit_same_kernels covers a traced region too)
JIT_CASES = {"mm", "linear", "einsum", "pad", "mse_loss", "cross_entropy", "cat", "max_pool3d"}


def _low(T, xs):
    return [x.to(T.bfloat16) if x.is_floating_point() else x for x in xs]


def _ids():
    seen = {}
    out = []
    for c in CASES:
        seen[c[0]] = seen.get(c[0], -1) + 1
        out.append(f"{c[0]}-{seen[c[0]]}")
    return out


@pytest.mark.parametrize("case", CASES, ids=_ids())
def test_cpu_op_matches_torch(case):
    """Output dtype and values, and the gradients (dtype and values) of the inputs, under
    autocast("cpu", bfloat16)."""
    name, fn, args, low = case
    if name not in OPS and name != "pad":
        pytest.skip(f"jtorch has no op {name}")

    def under(T, *xs):
        with T.autocast("cpu", dtype=T.bfloat16):
            return fn(T, *xs)

    def under_low(T, *xs):
        with T.autocast("cpu", dtype=T.bfloat16):
            return fn(T, *_low(T, xs))

    seen, helpers.PARITY_OPS = helpers.PARITY_OPS, set()
    try:
        parity(under_low if low else under, *args, jit=name in JIT_CASES, **BF)
        ran = helpers.PARITY_OPS
    finally:
        helpers.PARITY_OPS = seen | helpers.PARITY_OPS
    assert name in ran, f"the case does not dispatch {name}: {sorted(ran)}"


def test_cpu_policy_is_covered():
    """Every op of the CPU policy that jtorch has is exercised by a case above."""
    names = {c[0] for c in CASES}
    names.add("_rnn")   # test_rnn_modules
    missing = [n for n in _policy.POLICIES["cpu"] if n in OPS and n not in names]
    assert not missing, missing


def _torch_rnn_autocast(module, x):
    """PyTorch's recurrent module under CPU autocast. Its bfloat16 LSTM is a oneDNN kernel that
    CPUs without AVX-512 lack ("could not create a primitive descriptor"); there the same
    computation, weights and input cast to bfloat16, runs on ATen's own LSTM."""
    try:
        with torch.autocast("cpu"):
            return module(x)
    except RuntimeError as e:
        if "primitive descriptor" not in str(e):
            raise
    low = {k: v.bfloat16() for k, v in module.named_parameters()}
    with torch.backends.mkldnn.flags(enabled=False), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # oneDNN's TF32 note, Intel GPUs only
        return torch.func.functional_call(module, low, (x.bfloat16(),))


def test_rnn_modules():
    """nn.LSTM (and nn.RNN) autocast on CPU (oneDNN kernels); nn.GRU does not."""
    x = r(3, 2, 3)
    for cls in ("LSTM", "GRU"):   # (nn.RNN takes LSTM's path: the same rule)
        tm = getattr(torch.nn, cls)(3, 4)
        jm = getattr(jtorch.nn, cls)(3, 4)
        jm.load_state_dict({k: jtorch.tensor(v.detach().numpy()) for k, v in
                            tm.state_dict().items()})
        to, th = _torch_rnn_autocast(tm, torch.tensor(x))
        with jtorch.autocast("cpu"):
            jo, jh = jm(jtorch.tensor(x))
        assert_close(jo, to, msg=cls, **BF)
        assert_close(jh, th, msg=cls, **BF)
        (to.float().sum()).backward()
        (jo.float().sum()).backward()
        for (n, tp), jp in zip(tm.named_parameters(), jm.parameters()):
            assert_close(jp.grad, tp.grad, msg=f"{cls}.{n}", atol=0.1, rtol=0.05)


def test_dtypes_autocast_leaves_alone():
    """float64 never casts; float16 inputs of a lower op run in bfloat16, of an fp32 op in
    float32; integers are untouched."""
    a = r(3, 3)

    def check(fn):
        with torch.autocast("cpu"):
            t = fn(torch, torch.tensor(a))
        with jtorch.autocast("cpu"):
            j = fn(jtorch, jtorch.tensor(a))
        assert_close(j, t, **BF)

    check(lambda T, x: T.mm(x.double(), x.double()))
    check(lambda T, x: T.mm(x.half(), x.half()))
    check(lambda T, x: F(T).mse_loss(x.half(), x.half()))
    check(lambda T, x: F(T).mse_loss(x.double(), x.double()))
    check(lambda T, x: T.mm(x.long(), x.long()))
    check(lambda T, x: T.cat([x.double(), x.bfloat16()]))
    check(lambda T, x: T.cat([x.int(), x.bfloat16()]))
    check(lambda T, x: T.cat([x, x.half()]))
    raises_like(lambda: check(lambda T, x: T.cat([x.half(), x])),
                lambda: _run_j(lambda T, x: T.cat([x.half(), x]), a))
    raises_like(lambda: check(lambda T, x: T.mm(x.double(), x)),
                lambda: _run_j(lambda T, x: T.mm(x.double(), x), a))
    raises_like(lambda: check(lambda T, x: T.stack([x.half(), x.half()])),
                lambda: _run_j(lambda T, x: T.stack([x.half(), x.half()]), a))


def _run_j(fn, a):
    with jtorch.autocast("cpu"):
        return fn(jtorch, jtorch.tensor(a))


def test_out_and_inplace_forms_do_not_autocast():
    a, b = r(3, 4), r(4, 4)
    def run(T):
        x, y = T.tensor(a), T.tensor(b)
        out = T.empty(3, 4)
        with T.autocast("cpu"):
            T.mm(x, y, out=out)
            z = x.clone().addmm_(x, y)
            w = T.addmm(x, x, y)
        return out, z, w

    t, j = run(torch), run(jtorch)
    assert_close(j[0], t[0])
    assert_close(j[1], t[1])
    assert_close(j[2], t[2], **BF)
    assert j[2].dtype == jtorch.bfloat16


def test_gradient_dtypes():
    """Gradients come back in each leaf's own dtype, as PyTorch's."""
    a, b, c = r(3, 4), r(4, 5), r(3, 5)
    res = []
    for T in (torch, jtorch):
        x = T.tensor(a, requires_grad=True)
        y = T.tensor(b).bfloat16().requires_grad_()
        z = T.tensor(c, dtype=T.float64, requires_grad=True)
        with T.autocast("cpu"):
            h = x @ y
            loss = F(T).mse_loss(h, z.float()) + (h.float() * z).sum()
        loss.backward()
        res.append((h, loss, x.grad, y.grad, z.grad))
    for j, t in zip(res[1], res[0]):
        assert_close(j, t, atol=0.1, rtol=0.05)


def test_mlp_forward_backward():
    x, y = r(8, 6), i64(8, hi=3)
    tm = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    jm = jtorch.nn.Sequential(jtorch.nn.Linear(6, 16), jtorch.nn.ReLU(),
                              jtorch.nn.Linear(16, 3))
    jm.load_state_dict({k: jtorch.tensor(v.detach().numpy()) for k, v in
                        tm.state_dict().items()})
    outs = []
    for T, m in ((torch, tm), (jtorch, jm)):
        with T.autocast("cpu", dtype=T.bfloat16):
            logits = m(T.tensor(x))
            loss = F(T).cross_entropy(logits, T.tensor(y))
        loss.backward()
        outs.append((logits, loss, *[p.grad for p in m.parameters()]))
    for i, (j, t) in enumerate(zip(outs[1], outs[0])):
        assert_close(j, t, atol=0.05, rtol=0.05, msg=str(i))


def test_under_jit_same_kernels():
    """A traced forward/backward under autocast gives the eager results."""
    a, b = r(3, 4), r(4, 5)

    def f(xa, xb):
        x = jtorch.Tensor._make(xa).requires_grad_()
        with jtorch.autocast("cpu"):
            h = jtorch.tanh(jtorch.mm(x, jtorch.Tensor._make(xb)))
            loss = F(jtorch).mse_loss(h, jtorch.zeros(3, 5))
        loss.backward()
        return h._value, loss._value, x.grad._value

    traced = jax.jit(f)(a, b)
    eager = f(jax.numpy.asarray(a), jax.numpy.asarray(b))
    for t, e in zip(traced, eager):
        assert t.dtype == e.dtype
        # one XLA program may skip some intermediate bfloat16 roundings of the eager kernels
        np.testing.assert_allclose(np.asarray(t, np.float32), np.asarray(e, np.float32),
                                   **BF)
    assert traced[0].dtype == jax.numpy.bfloat16


def test_cpu_float16_autocast():
    a, b = r(3, 4), r(4, 5)
    parity(lambda T, x, y: _in(T, T.float16, lambda: (T.mm(x, y), F(T).mse_loss(x, x))), a, b,
           **BF)


def _in(T, dtype, fn):
    with T.autocast("cpu", dtype=dtype):
        return fn()


# ------------------------------------------------------------------------------- the API
def _state_log(T):
    x = T.tensor(r(2, 2))
    log = []

    @T.autocast("cpu")
    def deco():
        return T.mm(x, x).dtype

    with T.autocast("cpu"):
        log.append((T.is_autocast_enabled("cpu"), T.is_autocast_enabled(),
                    T.get_autocast_dtype("cpu"), T.mm(x, x).dtype))
        with T.autocast("cpu", enabled=False):
            log.append((T.is_autocast_enabled("cpu"), T.mm(x, x).dtype))
            log.append(deco())
        with T.autocast("cpu", dtype=T.float16):
            log.append((T.get_autocast_dtype("cpu"), T.mm(x, x).dtype))
        log.append((T.get_autocast_dtype("cpu"), T.mm(x, x).dtype))
    log.append((T.is_autocast_enabled("cpu"), T.mm(x, x).dtype, deco()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with T.cpu.amp.autocast():
            log.append(T.mm(x, x).dtype)
        log.append((T.is_autocast_cpu_enabled(), T.get_autocast_cpu_dtype(),
                    T.get_autocast_gpu_dtype()))
    T.set_autocast_enabled("cpu", True)
    log.append((T.mm(x, x).dtype, T.is_autocast_enabled("cpu")))
    T.set_autocast_dtype("cpu", T.float16)
    log.append((T.mm(x, x).dtype, T.get_autocast_dtype("cpu")))
    T.set_autocast_enabled("cpu", False)
    T.set_autocast_dtype("cpu", T.bfloat16)
    log.append((T.mm(x, x).dtype, T.is_autocast_cache_enabled(),
                T.amp.is_autocast_available("cpu"), T.amp.is_autocast_available("cuda"),
                T.get_autocast_dtype("cuda")))
    return [str(v) for v in log]


def test_state_nesting_and_decorator():
    assert _state_log(jtorch) == _state_log(torch)


def test_cuda_amp_submodules_as_torch():
    """torch.cuda.amp's submodules, which libraries reach as attributes (thinc asks
    ``torch.cuda.amp.common.amp_definitely_not_available()`` at import)."""
    def facts(T):
        amp = T.cuda.amp
        return (amp.common.amp_definitely_not_available(),
                amp.autocast.__module__.split(".", 1)[1],
                amp.GradScaler.__module__.split(".", 1)[1],
                amp.autocast_mode.autocast is amp.autocast,
                amp.grad_scaler.GradScaler is amp.GradScaler, sorted(amp.__all__))

    assert facts(jtorch) == facts(torch)
    for T in (torch, jtorch):
        amp = T.cpu.amp
        assert amp.autocast_mode.autocast is amp.autocast
        assert amp.grad_scaler.GradScaler is amp.GradScaler
        assert amp.GradScaler.__module__.endswith("cpu.amp.grad_scaler")


def test_warnings_and_errors():
    for T in (torch, jtorch):
        with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not "
                                             "supported. Disabling autocast."):
            ac = T.autocast("cpu", dtype=T.float32)
        assert ac._enabled is False
        with pytest.warns(UserWarning, match="CUDA is not available"):
            assert T.autocast("cuda")._enabled is False
        with pytest.warns(FutureWarning, match=r"torch.cpu.amp.autocast\(args...\)` is "
                                               "deprecated"):
            assert T.cpu.amp.autocast().fast_dtype == T.bfloat16
        with pytest.warns(FutureWarning, match=r"torch.cuda.amp.autocast\(args...\)` is "
                                               "deprecated"), \
                pytest.warns(UserWarning, match="CUDA is not available"):
            assert T.cuda.amp.autocast().fast_dtype == T.float16
        with pytest.warns(DeprecationWarning, match="is_autocast_cpu_enabled"):
            T.is_autocast_cpu_enabled()
    raises_like(lambda: torch.autocast(1), lambda: jtorch.autocast(1))
    raises_like(lambda: torch.autocast("foo"), lambda: jtorch.autocast("foo"))
    raises_like(lambda: torch.autocast("cpu")(3), lambda: jtorch.autocast("cpu")(3))
    raises_like(lambda: torch.is_autocast_enabled(1), lambda: jtorch.is_autocast_enabled(1))
    raises_like(lambda: torch.autocast(torch.device("cpu")),
                lambda: jtorch.autocast(jtorch.device("cpu")))


def _low_polar(T):
    a = T.tensor(r(3, lo=0.5)).bfloat16()
    with T.autocast("cpu"):
        return T.polar(a, a)


@pytest.mark.xfail(strict=True, raises=RuntimeError,
                   reason="jtorch checks polar's input dtypes eagerly, before autocast's cast "
                          "(inside the kernel); PyTorch casts first (docs/amp.md)")
def test_polar_bfloat16_inputs():
    assert_close(_low_polar(jtorch), _low_polar(torch))


def test_custom_fwd_bwd():
    class MyMM:
        @staticmethod
        def make(T):
            class Fn(T.autograd.Function):
                @staticmethod
                @T.amp.custom_fwd(device_type="cpu", cast_inputs=T.float32)
                def forward(ctx, a, b):
                    ctx.save_for_backward(a, b)
                    return a.mm(b)

                @staticmethod
                @T.amp.custom_bwd(device_type="cpu")
                def backward(ctx, g):
                    a, b = ctx.saved_tensors
                    return g.mm(b.t()), a.t().mm(g)
            return Fn

    parity(lambda T, a, b: _in(T, T.bfloat16, lambda: MyMM.make(T).apply(a, b)), r(3, 4),
           r(4, 2), jit=False)


# ------------------------------------------------------------------------------- GradScaler
def _scaler_run(T, scaler_kw, xs, unscale_clip=False, opt="sgd"):
    """Steps of a tiny model; returns per step (scale, tracker, found_inf, step ran,
    params) and the scaler."""
    torch.manual_seed(0)
    w0 = np.array([[0.5, -0.25, 1.0], [0.75, 0.1, -0.5]], np.float32)
    w = T.tensor(w0, requires_grad=True)
    b = T.tensor(np.array([0.1, -0.2], np.float32), requires_grad=True)
    o = (T.optim.SGD([w, b], lr=0.1, momentum=0.9) if opt == "sgd"
         else T.optim.Adam([w, b], lr=0.01))
    s = T.amp.GradScaler("cpu", **scaler_kw)
    log = []
    for x in xs:
        o.zero_grad()
        loss = (T.tensor(x) @ w.t() + b).pow(2).sum()
        s.scale(loss).backward()
        if unscale_clip:
            s.unscale_(o)
            T.nn.utils.clip_grad_norm_([w, b], 1.0)
        before = w.detach().clone()
        ret = s.step(o)
        found = sum(float(v) for v in s._found_inf_per_device(o).values())
        s.update()
        ran = not bool((w.detach() == before).all())
        log.append((s.get_scale(), s._get_growth_tracker(), found, ran, ret,
                    w.detach().numpy().copy(), b.detach().numpy().copy()))
    return log, s, o


def _steps():
    ok = np.array([[1.0, 2.0, -1.0]], np.float32)
    inf = np.array([[np.inf, 1.0, 0.0]], np.float32)
    nan = np.array([[np.nan, 1.0, 0.0]], np.float32)
    big = np.array([[3e18, 1.0, 0.0]], np.float32)   # finite loss, overflowing scaled grads
    return [ok, inf, ok, ok, ok, nan, ok, big, ok, ok, ok, ok, ok]


@pytest.mark.parametrize("kw,clip,opt", [
    ({"init_scale": 2.0 ** 10, "growth_interval": 2}, False, "sgd"),
    ({"init_scale": 8.0, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 3},
     True, "adam"),
    ({"init_scale": 3e38, "growth_interval": 1}, False, "sgd"),   # growth stops at fp32 max
])
def test_grad_scaler_sequence(kw, clip, opt):
    t_log, ts, _ = _scaler_run(torch, kw, _steps(), clip, opt)
    j_log, js, _ = _scaler_run(jtorch, kw, _steps(), clip, opt)
    for i, (t, j) in enumerate(zip(t_log, j_log)):
        assert j[:5] == t[:5], f"step {i}: {j[:5]} != torch {t[:5]}"
        np.testing.assert_allclose(j[5], t[5], rtol=1e-5, atol=1e-6, err_msg=f"step {i}")
        np.testing.assert_allclose(j[6], t[6], rtol=1e-5, atol=1e-6, err_msg=f"step {i}")
    assert js.state_dict() == ts.state_dict()


def test_grad_scaler_unscale_values_and_state_dict():
    a = r(2, 3) * 1000
    res = []
    for T in (torch, jtorch):
        p = T.tensor(a, requires_grad=True)
        q = T.tensor(a[0], dtype=T.float64, requires_grad=True)
        o = T.optim.SGD([p, q], lr=0.1)
        s = T.amp.GradScaler("cpu", init_scale=3.0)
        s.scale([(p * p).sum(), ((q * q).sum(),)])[0].backward()
        s.scale({"a": (q * 3).sum()}.values())
        (s.scale(q).sum()).backward()
        s.unscale_(o)
        res.append((p.grad.clone(), q.grad.clone(), s.state_dict()))
        sd = s.state_dict()
        s2 = T.amp.GradScaler("cpu", init_scale=5.0, growth_interval=7)
        s2.load_state_dict(sd)
        res.append(s2.state_dict())
        s2.scale(p)
        s2.update(new_scale=4.0)
        s2.update(new_scale=T.tensor(6.0))
        res.append(s2.state_dict())
    n = len(res) // 2
    for j, t in zip(res[n:], res[:n]):
        assert_close(j[:2] if isinstance(j, tuple) else j, t[:2] if isinstance(t, tuple) else t)
    assert res[n][2] == res[0][2]


def test_grad_scaler_errors_and_disabled():
    def make(T):
        p = T.tensor(r(3), requires_grad=True)
        o = T.optim.SGD([p], lr=0.1)
        return p, o, T.amp.GradScaler("cpu")

    def twice(T):
        p, o, s = make(T)
        s.scale(p.sum()).backward()
        s.unscale_(o)
        s.unscale_(o)

    def after_step(T):
        p, o, s = make(T)
        s.scale(p.sum()).backward()
        s.step(o)
        s.unscale_(o)

    def step_twice(T):
        p, o, s = make(T)
        s.scale(p.sum()).backward()
        s.step(o)
        s.step(o)

    def no_scale(T):
        p, o, s = make(T)
        s.update()

    def closure(T):
        p, o, s = make(T)
        s.scale(p.sum())
        s.step(o, closure=lambda: 0)

    def fp16(T):
        p = T.tensor(r(3)).half().requires_grad_()
        o = T.optim.SGD([p], lr=0.1)
        s = T.amp.GradScaler("cpu")
        s.scale(p.float().sum()).backward()
        s.unscale_(o)

    def bad_new_scale(T):
        p, o, s = make(T)
        s.scale(p.sum())
        s.update(T.tensor([1.0, 2.0]))

    def empty_load(T):
        T.amp.GradScaler("cpu").load_state_dict({})

    def factors(T):
        T.amp.GradScaler("cpu", growth_factor=1.0)

    def pickle_mid(T):
        p, o, s = make(T)
        s.scale(p.sum()).backward()
        s.step(o)
        pickle.dumps(s)

    def bad_outputs(T):
        T.amp.GradScaler("cpu").scale([3])

    for f in (twice, after_step, step_twice, no_scale, closure, fp16, bad_new_scale,
              empty_load, factors, pickle_mid, bad_outputs):
        raises_like(lambda f=f: f(torch), lambda f=f: f(jtorch))
    for T in (torch, jtorch):
        p = T.tensor(r(3), requires_grad=True)
        o = T.optim.SGD([p], lr=0.1)
        s = T.amp.GradScaler("cpu", enabled=False)
        loss = p.sum()
        assert s.scale(loss) is loss
        loss.backward()
        assert s.step(o) is None
        s.update()
        assert (s.get_scale(), s.state_dict(), s.is_enabled(), s._get_growth_tracker()) == \
            (1.0, {}, False, 0)
        s2 = copy.deepcopy(T.amp.GradScaler("cpu", init_scale=4.0))
        s3 = pickle.loads(pickle.dumps(s2))
        assert s3.get_scale() == 4.0
        with pytest.warns(FutureWarning, match="torch.cpu.amp.GradScaler"):
            assert T.cpu.amp.GradScaler().is_enabled()
        with pytest.warns(UserWarning, match="CUDA is not available.  Disabling"):
            assert not T.amp.GradScaler().is_enabled()
        s4 = T.amp.GradScaler("cpu")
        s4.set_growth_factor(4.0)
        s4.set_backoff_factor(0.125)
        s4.set_growth_interval(5)
        assert (s4.get_growth_factor(), s4.get_backoff_factor(), s4.get_growth_interval(),
                s4.get_scale()) == (4.0, 0.125, 5, 65536.0)


def test_grad_scaler_step_under_jit():
    """Inside a trace the skip is a select: a step with inf grads leaves the parameters."""
    def run(x):
        p = jtorch.Tensor._make(jax.numpy.asarray([1.0, -2.0], jax.numpy.float32))
        p.requires_grad_()
        o = jtorch.optim.SGD([p], lr=0.5)
        s = jtorch.amp.GradScaler("cpu", init_scale=4.0)
        s.scale((p * jtorch.Tensor._make(x)).sum()).backward()
        s.step(o)
        s.update()
        return p._value, s._scale._value, p.grad._value

    for x in ([1.0, 2.0], [np.inf, 2.0]):
        xa = jax.numpy.asarray(x, jax.numpy.float32)
        traced = jax.jit(run)(xa)
        eager = run(xa)
        for t, e in zip(traced, eager):
            np.testing.assert_allclose(np.asarray(t), np.asarray(e))


def test_cuda_policy_mechanics():
    """The CUDA table's kinds (no GPU here: it is applied to CPU tensors by setting the state
    the dispatcher reads). Expected dtypes are PyTorch's CUDA Autocast Op Reference."""
    x = jtorch.tensor(r(3, 3))
    h = x.half()
    prev = _policy.ACTIVE[0]
    _policy.ACTIVE[0] = {"cpu": (_policy.POLICIES["cuda"], np.dtype(np.float16))}
    try:
        got = [jtorch.mm(x, x).dtype, jtorch.mv(x, x[0]).dtype, jtorch.exp(h).dtype,
               jtorch.softmax(h, 0).dtype, jtorch.softmax(h, 0, dtype=jtorch.float16).dtype,
               jtorch.sum(h).dtype, F(jtorch).layer_norm(h, (3,)).dtype,
               jtorch.addcmul(x, h, h).dtype, jtorch.cat([h, h]).dtype, jtorch.add(h, h).dtype,
               jtorch.mm(x.double(), x.double()).dtype]
        with pytest.raises(RuntimeError, match="binary_cross_entropy and torch.nn.BCELoss are "
                                               "unsafe to autocast"):
            F(jtorch).binary_cross_entropy(x.sigmoid(), x.sigmoid())
    finally:
        _policy.ACTIVE[0] = prev
    D = jtorch
    assert got == [D.float16, D.float16, D.float32, D.float32, D.float16, D.float32, D.float32,
                   D.float32, D.float16, D.float16, D.float64]
