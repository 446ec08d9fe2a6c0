"""torch.nn.attention.flex_attention against PyTorch 2.13 on the CPU.

Forward values and the log-sum-exp come from PyTorch's public ``flex_attention`` (its eager
CPU path, an unfused reference). PyTorch refuses backward on the CPU through the public
function, so reference gradients come from its flex-attention operator itself
(``torch._higher_order_ops.flex_attention``), whose autograd runs PyTorch's dense backward;
tensors a score_mod captures are passed to it as buffers, as torch.compile does. The block
masks' tensors (partial/full, kv/q) are compared entry for entry.
"""

import math
import warnings
from typing import NamedTuple

import numpy as np
import pytest
import torch
import torch.nn.attention.flex_attention as tf
from helpers import assert_close, raises_like
from torch._higher_order_ops.flex_attention import flex_attention as torch_flex_op

import jtorch
import jtorch.nn.attention.flex_attention as jf
from jtorch._core import warn_once

pytestmark = [
    pytest.mark.filterwarnings("ignore:flex_attention called without torch.compile"),
    pytest.mark.filterwarnings("ignore:return_lse is deprecated"),
]

B, H, L, E = 2, 2, 24, 8
DOC = np.array([0] * 7 + [1] * 11 + [2] * 12)   # document of each position (30 of them)
LIBS = ((torch, tf), (jtorch, jf))
BLOCK_TENSORS = ("kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices",
                 "q_num_blocks", "q_indices", "full_q_num_blocks", "full_q_indices")


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def window(b, h, q_idx, kv_idx):
    return q_idx - kv_idx <= 5


def late_rows(b, h, q_idx, kv_idx):
    # rows 0..2 of every head 1 attend to nothing
    return (q_idx >= 3) | (h == 0)


def documents(T):
    doc = T.tensor(DOC)

    def document(b, h, q_idx, kv_idx):
        return (doc[q_idx] == doc[kv_idx]) & (q_idx >= kv_idx)
    return document


def padded(T):
    # batch 1 pads its last 5 keys (a 2-D tensor indexed with b and kv_idx, as transformers
    # does); the mask is made for H=None and broadcast over the heads
    keep = T.tensor(np.arange(L)[None, :] < np.array([[L], [L - 5]]))
    return T.nn.attention.flex_attention.and_masks(causal, lambda b, h, q, kv: keep[b, kv])


def rel_bias(score, b, h, q_idx, kv_idx, bias):
    """A learned relative-position bias per head, and soft-capping."""
    return 4.0 * (score / 4.0).tanh() + bias[h, q_idx - kv_idx + L - 1]


class Case(NamedTuple):
    mask: object = None          # T -> mask_mod, or None
    score: bool = False          # rel_bias with a captured (H, 2L-1) table
    hkv: int = H                 # key/value heads (GQA when < H)
    block: int = 8
    heads: object = H            # the block mask's H (None: broadcast)


CASES = {
    "plain": Case(),
    "causal": Case(lambda T: causal),
    "sliding window": Case(lambda T: jf_or_tf(T).and_masks(causal, window), block=16),
    "document": Case(documents),
    "relative bias": Case(lambda T: causal, score=True),
    "score_mod only": Case(score=True),
    "gqa": Case(lambda T: causal, hkv=1),
    "padding, H=None": Case(padded, heads=None),
    "empty rows": Case(lambda T: late_rows, score=True),
}


def jf_or_tf(T):
    return tf if T is torch else jf


def _inputs(T, dtype, hkv, grad):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((B, H, L, E)), rng.standard_normal((B, hkv, L, E)),
              rng.standard_normal((B, hkv, L, E)), rng.standard_normal((H, 2 * L - 1))]
    return [T.tensor(a, dtype=getattr(T, dtype), requires_grad=grad) for a in arrays]


def _block_mask(T, case):
    if case.mask is None:
        return None
    return jf_or_tf(T).create_block_mask(case.mask(T), B, case.heads, L, L, device="cpu",
                                         BLOCK_SIZE=case.block)


def _torch_op(q, k, v, case, bias, block_mask, scale=1 / math.sqrt(E)):
    """PyTorch's flex-attention operator (what its public function runs): output, lse."""
    options = tf._apply_kernel_options(q.detach(), k.detach(), v.detach(), True, None)
    op_bm = (block_mask or tf._create_empty_block_mask(q, k)).as_tuple()
    mod, buffers = (rel_bias, (bias,)) if case.score else (tf._identity, ())
    out, lse_log2, _ = torch_flex_op(q, k, v, mod, op_bm, scale, options, buffers)
    return out, lse_log2 * math.log(2)


def _torch_reference(case, dtype):
    """PyTorch's output, lse and gradients."""
    q, k, v, bias = _inputs(torch, dtype, case.hkv, grad=True)
    out, lse = _torch_op(q, k, v, case, bias, _block_mask(torch, case))
    rng = np.random.default_rng(1)
    go, gl = (torch.tensor(rng.standard_normal(t.shape), dtype=t.dtype) for t in (out, lse))
    # rows that attend to nothing have lse -inf, which no gradient can reach
    ((out * go).sum() + (lse.masked_fill(lse.isinf(), 0) * gl).sum()).backward()
    grads = [q.grad, k.grad, v.grad] + ([bias.grad] if case.score else [])
    return out.detach(), lse.detach(), grads, (go.numpy(), gl.numpy())


def test_reference_is_the_public_function():
    # the tests compare with PyTorch's operator, which its public function calls (through
    # torch.compile, which takes about a second per new mod: so once here)
    case = Case(documents, score=True, hkv=1)
    q, k, v, bias = _inputs(torch, "float64", case.hkv, grad=False)
    bm = _block_mask(torch, case)
    out, lse = tf.flex_attention(q, k, v, lambda *a: rel_bias(*a, bias), bm, enable_gqa=True,
                                 return_lse=True)
    op_out, op_lse = _torch_op(q, k, v, case, bias, bm)
    torch.testing.assert_close(op_out, out, atol=1e-12, rtol=1e-12)
    torch.testing.assert_close(op_lse, lse, atol=1e-12, rtol=1e-12)


def _jtorch_run(case, dtype, cotangents):
    q, k, v, bias = _inputs(jtorch, dtype, case.hkv, grad=True)
    bm = _block_mask(jtorch, case)
    score_mod = (lambda *a: rel_bias(*a, bias)) if case.score else None
    out, aux = jf.flex_attention(q, k, v, score_mod, bm, enable_gqa=True,
                                 return_aux=jf.AuxRequest(lse=True))
    go, gl = (jtorch.tensor(c) for c in cotangents)
    lse = aux.lse
    ((out * go).sum() + (lse.masked_fill(lse.isinf(), 0) * gl).sum()).backward()
    grads = [q.grad, k.grad, v.grad] + ([bias.grad] if case.score else [])
    return out, lse, grads


# every case in float64; in float32 the cases that exercise different ops
RUNS = [(name, "float64") for name in CASES] + [
    (name, "float32") for name in ("plain", "relative bias", "empty rows")]


@pytest.mark.parametrize("name, dtype", RUNS)
def test_forward_and_gradients(name, dtype):
    case = CASES[name]
    tol = 1e-10 if dtype == "float64" else 2e-5
    t_out, t_lse, t_grads, cotangents = _torch_reference(case, dtype)
    j_out, j_lse, j_grads = _jtorch_run(case, dtype, cotangents)
    assert_close(j_out, t_out, atol=tol, rtol=tol, msg="output")
    assert_close(j_lse, t_lse, atol=tol, rtol=tol, msg="lse")
    for i, (jg, tg) in enumerate(zip(j_grads, t_grads)):
        assert_close(jg, tg, atol=tol * 10, rtol=tol * 10, msg=f"grad {'qkvb'[i]}")


def test_empty_rows_give_zero():
    q, k, v, _ = _inputs(jtorch, "float32", H, grad=True)
    bm = jf.create_block_mask(late_rows, B, H, L, L, device="cpu", BLOCK_SIZE=8)
    out, lse = jf.flex_attention(q, k, v, block_mask=bm, return_lse=True)
    assert (out[:, 1, :3] == 0).all() and lse[:, 1, :3].isneginf().all()
    assert lse[:, 0].isfinite().all()
    out.sum().backward()
    assert all(t.grad.isfinite().all() for t in (q, k, v))


def test_low_precision_computes_in_float32():
    case = CASES["causal"]
    q, k, v, _ = _inputs(torch, "bfloat16", H, grad=False)
    t_out, t_lse = _torch_op(q, k, v, case, None, _block_mask(torch, case))
    j_out, j_lse = jf.flex_attention(*_inputs(jtorch, "bfloat16", H, grad=False)[:3],
                                     block_mask=_block_mask(jtorch, case), return_lse=True)
    assert str(j_out.dtype) == str(t_out.dtype) and str(j_lse.dtype) == "torch.float32"
    assert_close(j_out.float(), t_out.float(), atol=1e-2, rtol=1e-2)
    assert_close(j_lse, t_lse, atol=1e-5, rtol=1e-5)


def test_scale_and_aux():
    (t_q, t_k, t_v, _), (j_q, j_k, j_v, _) = (_inputs(T, "float64", H, False) for T, _ in LIBS)
    t_out, t_aux = tf.flex_attention(t_q, t_k, t_v, scale=0.3, return_aux=tf.AuxRequest())
    j_out, j_aux = jf.flex_attention(j_q, j_k, j_v, scale=0.3, return_aux=jf.AuxRequest())
    assert_close(j_out, t_out, atol=1e-10, rtol=1e-10)
    assert t_aux == tf.AuxOutput(None, None) and j_aux == jf.AuxOutput(None, None)
    # max_scores: PyTorch computes it on GPUs only; here against its dense definition
    bm = jf.create_block_mask(causal, None, None, L, L, device="cpu", BLOCK_SIZE=8)
    _, aux = jf.flex_attention(j_q, j_k, j_v, block_mask=bm, scale=0.3,
                               return_aux=jf.AuxRequest(lse=True, max_scores=True))
    scores = (t_q @ t_k.transpose(-2, -1) * 0.3).masked_fill(
        ~tf.create_mask(causal, None, None, L, L, device="cpu"), -math.inf)
    assert_close(aux.max_scores, scores.amax(-1), atol=1e-10, rtol=1e-10)
    assert_close(aux.lse, scores.logsumexp(-1), atol=1e-10, rtol=1e-10)
    assert not aux.max_scores.requires_grad


MASKS = {"causal": lambda T: causal, "window": lambda T: jf_or_tf(T).and_masks(causal, window),
         "document": documents,
         "or": lambda T: jf_or_tf(T).or_masks(window, late_rows),
         "noop": lambda T: jf_or_tf(T).noop_mask}


@pytest.mark.parametrize("name", list(MASKS))
def test_create_mask_and_block_mask(name):
    got = {}
    for T, F in LIBS:
        mod = MASKS[name](T)
        dense = F.create_mask(mod, B, H, L, 30, device="cpu")
        no_bh = F.create_mask(mod, None, None, L, 30, device="cpu")
        masks = [F.create_block_mask(mod, B, H, L, 30, device="cpu", BLOCK_SIZE=8),
                 F.create_block_mask(mod, B, H, L, 30, device="cpu", BLOCK_SIZE=(16, 4)),
                 F.create_block_mask(mod, B, H, L, 30, device="cpu", BLOCK_SIZE=8,
                                     separate_full_blocks=False)]
        got[T] = dense, no_bh, masks
    (t_dense, t_no_bh, t_masks), (j_dense, j_no_bh, j_masks) = got[torch], got[jtorch]
    assert_close(j_dense, t_dense)
    assert_close(j_no_bh, t_no_bh)
    for tm, jm in zip(t_masks, j_masks):
        assert jm.shape == tm.shape and jm.seq_lengths == tm.seq_lengths
        assert jm.BLOCK_SIZE == tm.BLOCK_SIZE and jm.sparsity() == tm.sparsity()
        assert_close(jm.to_dense(), tm.to_dense())
        for a in BLOCK_TENSORS:
            if getattr(tm, a) is None:
                assert getattr(jm, a) is None, a
            else:
                assert_close(getattr(jm, a), getattr(tm, a), msg=a)
        assert str(jm) == str(tm)


def test_score_mod_mask():
    def cut(score, b, h, q_idx, kv_idx):
        return torch_or_jtorch(score).where(q_idx >= kv_idx, score, -math.inf)

    def torch_or_jtorch(x):
        return torch if isinstance(x, torch.Tensor) else jtorch
    t, j = (F.create_mask(cut, B, H, L, L, device="cpu") for _, F in LIBS)
    assert_close(j, t)


def test_slicing_adjust_and_from_kv_blocks():
    t_bm, j_bm = (F.create_block_mask(causal, B, H, L, L, device="cpu", BLOCK_SIZE=8)
                  for _, F in LIBS)
    for pick in (lambda m: m[1], lambda m: m[:, 1:, m.kv_num_blocks.new_tensor([1])],
                 lambda m: m._adjust(16, 20)):
        tm, jm = pick(t_bm), pick(j_bm)
        assert jm.shape == tm.shape
        for a in BLOCK_TENSORS:
            if getattr(tm, a) is None:
                assert getattr(jm, a) is None, a
            else:
                assert_close(getattr(jm, a), getattr(tm, a), msg=a)
    q = jtorch.zeros(1, H, L, E)
    raises_like(lambda: tf.flex_attention(*(torch.zeros(1, H, L, E),) * 3, block_mask=t_bm[0]),
                lambda: jf.flex_attention(q, q, q, block_mask=j_bm[0]))


def test_from_kv_blocks_masks_by_block():
    # only the diagonal blocks, with no mask_mod: block-diagonal attention (as PyTorch's GPU
    # kernel reads the blocks)
    num = jtorch.ones(1, 1, 3, dtype=jtorch.int32)
    idx = jtorch.arange(3, dtype=jtorch.int32).reshape(1, 1, 3, 1).expand(1, 1, 3, 3)
    bm = jf.BlockMask.from_kv_blocks(num, idx.contiguous(), BLOCK_SIZE=8)
    q, k, v, _ = _inputs(jtorch, "float64", H, grad=False)
    got = jf.flex_attention(q, k, v, block_mask=bm)
    block = (jtorch.arange(L) // 8)
    want = jtorch.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=block[:, None] == block[None, :])
    assert_close(got, want, atol=1e-10, rtol=1e-10)


def test_names_and_types():
    assert set(jf.__all__) == set(tf.__all__)
    assert jf._DEFAULT_SPARSE_BLOCK_SIZE == tf._DEFAULT_SPARSE_BLOCK_SIZE == 128
    assert jf.AuxRequest._fields == tf.AuxRequest._fields and jf.AuxRequest() == (False, False)
    assert jf.AuxOutput._fields == tf.AuxOutput._fields and jf.AuxOutput() == (None, None)
    assert set(jf.FlexKernelOptions.__annotations__) == set(tf.FlexKernelOptions.__annotations__)
    assert jf.FlexKernelOptions.__total__ is False
    assert jtorch.nn.attention.flex_attention is jf
    b = jtorch.arange(2)
    assert jf.noop_mask(b, b, b, b).dtype == jtorch.bool and jf.noop_mask(b, b, b, b).item()


def test_errors():
    def both(make):
        return (lambda: make(torch, tf)), (lambda: make(jtorch, jf))

    def qkv(T, hq=H, hkv=H, eq=E, ek=E, dims=4, dtype="float32"):
        shape = (B, hq, L, eq)[4 - dims:], (B, hkv, L, ek)[4 - dims:]
        return (T.zeros(*shape[0], dtype=getattr(T, dtype)),
                T.zeros(*shape[1], dtype=getattr(T, dtype)),
                T.zeros(*shape[1], dtype=getattr(T, dtype)))

    raises_like(*both(lambda T, F: F.flex_attention(*qkv(T, hkv=1))))
    raises_like(*both(lambda T, F: F.flex_attention(*qkv(T, hq=3, hkv=2), enable_gqa=True)))
    raises_like(*both(lambda T, F: F.flex_attention(*qkv(T, ek=4))))
    raises_like(*both(lambda T, F: F.flex_attention(*qkv(T, dims=3))))
    raises_like(*both(lambda T, F: F.flex_attention(*qkv(T), return_lse=True,
                                                    return_aux=F.AuxRequest(lse=True))))
    raises_like(*both(lambda T, F: F.flex_attention(*qkv(T), kernel_options={"BACKEND": "X"})))
    raises_like(*both(lambda T, F: F.flex_attention(
        *qkv(T), block_mask=F.create_block_mask(causal, B, H, 2 * L, L, device="cpu"))))
    raises_like(*both(lambda T, F: F.flex_attention(
        *qkv(T), block_mask=F.create_block_mask(causal, B, H, L, L - 8, device="cpu"))))
    raises_like(*both(lambda T, F: F.or_masks(causal, 3)))
    raises_like(*both(lambda T, F: F.and_masks(None)))
    raises_like(*both(lambda T, F: F.create_block_mask(rel_bias, B, H, L, L, device="cpu")))
    raises_like(*both(lambda T, F: F.create_mask(lambda b, h: b, B, H, L, L, device="cpu")))
    with pytest.raises(NotImplementedError, match="compute_dq_write_order"):
        jf.create_block_mask(causal, B, H, L, L, compute_dq_write_order=True)


def test_warnings_as_pytorch():
    with pytest.warns(DeprecationWarning, match="_compile flag on create_block_mask"):
        jf.create_block_mask(causal, B, H, L, L, device="cpu", _compile=True)
    warn_once.forget("deprecated_return_lse")  # shown once per process
    q = _inputs(jtorch, "float32", H, grad=False)[0]
    with warnings.catch_warnings(record=True) as log:
        warnings.simplefilter("always")
        jf.flex_attention(q, q, q, return_lse=True)
        jf.flex_attention(q, q, q, return_lse=True)   # once per process, as PyTorch
        jf.flex_attention(q, q, q)
    assert [(w.category, str(w.message)[:26]) for w in log] == [
        (FutureWarning, "return_lse is deprecated a")]


def test_compiled_matches_eager():
    q, k, v, bias = _inputs(jtorch, "float32", H, grad=True)

    def step(q, k, v):
        bm = jf.create_block_mask(documents(jtorch), B, 1, L, L, device="cpu", BLOCK_SIZE=8)
        out = jf.flex_attention(q, k, v, lambda *a: rel_bias(*a, bias), bm)
        return (out * out).sum()

    eager = step(q, k, v)
    eager.backward()
    want = [t.grad.clone() for t in (q, k, v, bias)]
    for t in (q, k, v, bias):
        t.grad = None
    compiled = jtorch.compile(step)
    for _ in range(2):
        got = compiled(q, k, v)
        got.backward()
        assert_close(got, eager, atol=1e-5, rtol=1e-5)
        for g, w in zip((q.grad, k.grad, v.grad, bias.grad), want):
            assert_close(g, w, atol=1e-5, rtol=1e-5)
        for t in (q, k, v, bias):
            t.grad = None
