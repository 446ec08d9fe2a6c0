"""Attention: ``F.scaled_dot_product_attention`` and ``F.multi_head_attention_forward``.

Each is ONE op: the whole computation (in-projection, masks, softmax, dropout, attention,
out-projection) is one jitted kernel whose backward is one vjp. Dropout draws one key per call
from ``jtorch._random.next_key`` and passes it to the kernel as an array.

Semantics follow PyTorch's math backend:
    - ``scaled_dot_product_attention``: boolean ``attn_mask`` True = attend, float masks are
      added; a row whose every score is ``-inf`` gives zeros (PyTorch's ``_safe_softmax``), with
      zero gradient; ``is_causal`` is the top-left aligned lower triangle.
    - ``multi_head_attention_forward``: boolean masks True = do NOT attend (PyTorch's MHA
      convention); with ``need_weights=True`` the plain softmax runs, so fully masked rows give
      NaN as in PyTorch; with ``need_weights=False`` the SDPA path (zeros) runs.
"""

from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp

from .._core.generator import keep_mask, next_key, wrap
from .._core.tensor_base import Size, TensorBase
from ._registry import export, op
from ._util import check_broadcast, cpp_name, type_name, wrap_dim
from .sdp_backends import check_viable


# ------------------------------------------------------------------------------ shared helpers
def safe_softmax(x):
    """Softmax over the last dim; rows that are all ``-inf`` give 0 (and a zero gradient)."""
    dead = jnp.all(x == -jnp.inf, axis=-1, keepdims=True)
    p = jax.nn.softmax(jnp.where(dead, jnp.zeros((), x.dtype), x), axis=-1)
    return jnp.where(dead, jnp.zeros((), p.dtype), p)


def dropout_weights(w, key, p, salt=0):
    """Inverted dropout of attention weights with probability ``p`` (static)."""
    if p >= 1.0:
        return jnp.zeros_like(w)
    keep = keep_mask(jax.random.fold_in(wrap(key), salt), 1.0 - p, w.shape, w.dtype)
    return jnp.where(keep, w / jnp.asarray(1.0 - p, w.dtype), jnp.zeros((), w.dtype))


def bool_to_bias(mask, dtype):
    """PyTorch's ``_canonical_mask``: a bool mask (True = masked) becomes 0 / -inf."""
    if mask is None or mask.dtype != jnp.bool_:
        return None if mask is None else mask.astype(dtype)
    return jnp.where(mask, jnp.asarray(-jnp.inf, dtype), jnp.zeros((), dtype))


def _work_dtype(dt):
    return jnp.float32 if dt in (jnp.float16, jnp.bfloat16) else dt


# ------------------------------------------------------------------------------ sdpa
def _check_sdpa(q, k, v, mask, dropout_p, is_causal, gqa):
    if q.dtype != k.dtype or q.dtype != v.dtype:
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{cpp_name(q)} key.dtype: {cpp_name(k)} and value.dtype: {cpp_name(v)} "
            "instead.")
    if min(q.ndim, k.ndim, v.ndim) < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {q.ndim} key.dim: {k.ndim} and value.dim: {v.ndim} instead.")
    if not jnp.issubdtype(q.dtype, jnp.floating):
        raise RuntimeError("expected scalar type Float but found "
                           f"{type_name(q)}")
    if mask is not None and mask.dtype not in (jnp.bool_, jnp.float32, q.dtype):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {cpp_name(mask)} and  query.dtype: {cpp_name(q)} instead.")
    if is_causal and mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    if not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if gqa:
        wrap_dim(-3, q.ndim)
        hq = q.shape[-3]
        if hq % k.shape[-3] or hq % v.shape[-3]:
            raise RuntimeError("Number of heads in key and value must divide the number of "
                               "heads in ")


def _repeat_heads(x, hq):
    """GQA: repeat each key/value head ``hq // heads`` times (repeat_interleave on dim -3)."""
    return jnp.repeat(x, hq // x.shape[-3], axis=-3)


def attend(q, k, v, bias, key, dropout_p, is_causal, scale, safe=True, salt=0, mha=False):
    """softmax(q k^T * scale + bias) v with PyTorch's checks; returns (output, weights).

    The scale multiplies q and k by sqrt(scale) each (PyTorch's SDPA math backend) or, with
    ``mha``, q alone (``multi_head_attention_forward``'s need_weights path)."""
    batch = q.shape[:-2]
    check_broadcast(batch, k.shape[:-2])
    bk = jnp.broadcast_shapes(batch, k.shape[:-2])
    if k.shape[-1] != q.shape[-1]:
        n = math.prod(bk)
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{n}, {q.shape[-1]}] but got: [{n}, {k.shape[-1]}].")
    if v.shape[-2] != k.shape[-2]:
        n = math.prod(jnp.broadcast_shapes(bk, v.shape[:-2]))
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{n}, {k.shape[-2]}] but got: [{n}, {v.shape[-2]}].")
    L, S = q.shape[-2], k.shape[-2]
    sc = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    odt = q.dtype
    wdt = _work_dtype(odt)
    q, k, v = q.astype(wdt), k.astype(wdt), v.astype(wdt)
    if mha:
        s = jnp.matmul(q * jnp.asarray(sc, wdt), jnp.swapaxes(k, -1, -2))
    else:
        root = jnp.asarray(math.sqrt(sc), wdt)
        s = jnp.matmul(q * root, jnp.swapaxes(k * root, -1, -2))
    if is_causal:
        s = jnp.where(jnp.tril(jnp.ones((L, S), bool)), s, jnp.asarray(-jnp.inf, wdt))
    if bias is not None:
        check_broadcast(s.shape, bias.shape)
        full = jnp.broadcast_shapes(s.shape, bias.shape)
        if full != s.shape:
            raise RuntimeError(f"output with shape {list(s.shape)} doesn't match the broadcast "
                               f"shape {list(full)}")
        if bias.dtype == jnp.bool_:
            s = jnp.where(bias, s, jnp.asarray(-jnp.inf, wdt))
        else:
            s = s + bias.astype(wdt)
    w = safe_softmax(s) if safe else jax.nn.softmax(s, axis=-1)
    if dropout_p > 0.0:
        w = dropout_weights(w, key, dropout_p, salt)
    return jnp.matmul(w, v).astype(odt), w.astype(odt)


@op("_scaled_dot_product_attention", method=False, out=False,
    tensors=("query", "key", "value", "attn_mask"), grad_name="UnsafeViewBackward0")
def _sdpa(query, key, value, attn_mask, rng, dropout_p, is_causal, scale, enable_gqa):
    _check_sdpa(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
    if enable_gqa:
        key, value = _repeat_heads(key, query.shape[-3]), _repeat_heads(value, query.shape[-3])
    return attend(query, key, value, attn_mask, rng, dropout_p, is_causal, scale)[0]


@export("scaled_dot_product_attention", namespace="nn.functional")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``F.scaled_dot_product_attention``: one kernel (math backend semantics), refused when
    ``torch.nn.attention.sdpa_kernel`` has switched off every backend that could run."""
    check_viable(query.device.type)
    dropout_p = float(dropout_p)
    rng = next_key() if dropout_p > 0.0 else None
    return _sdpa(query, key, value, attn_mask, rng, dropout_p, bool(is_causal),
                 None if scale is None else float(scale), bool(enable_gqa))


# ------------------------------------------------------------------------------ MHA
def _proj(x, w, b):
    y = jnp.matmul(x, w.T)
    return y if b is None else y + b


@op("_multi_head_attention", method=False, out=False,
    tensors=("query", "key", "value", "in_proj_weight", "in_proj_bias", "bias_k", "bias_v",
             "out_proj_weight", "out_proj_bias", "q_proj_weight", "k_proj_weight",
             "v_proj_weight", "static_k", "static_v", "key_padding_mask", "attn_mask"),
    grad_name="ViewBackward0")
def _mha(query, key, value, in_proj_weight, in_proj_bias, bias_k, bias_v, out_proj_weight,
         out_proj_bias, q_proj_weight, k_proj_weight, v_proj_weight, static_k, static_v,
         key_padding_mask, attn_mask, rng, num_heads, add_zero_attn, dropout_p, need_weights,
         average_attn_weights, is_causal, batched, batch_first):
    if not batched:
        query, key, value = query[:, None], key[:, None], value[:, None]
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask[None]
    elif batch_first:
        query, key, value = (jnp.swapaxes(x, 0, 1) for x in (query, key, value))
    tgt_len, bsz, embed = query.shape
    head = embed // num_heads
    dt = query.dtype
    kpm = bool_to_bias(key_padding_mask, dt)
    causal = is_causal and kpm is None and not need_weights
    mask = None if causal else bool_to_bias(attn_mask, dt)
    if q_proj_weight is None:
        wq, wk, wv = jnp.split(in_proj_weight, 3)
    else:
        wq, wk, wv = q_proj_weight, k_proj_weight, v_proj_weight
    bq = bk = bv = None
    if in_proj_bias is not None:
        bq, bk, bv = jnp.split(in_proj_bias, 3)
    q, k, v = _proj(query, wq, bq), _proj(key, wk, bk), _proj(value, wv, bv)
    if mask is not None and mask.ndim == 2:
        mask = mask[None]
    if bias_k is not None:
        k = jnp.concatenate([k, jnp.broadcast_to(bias_k, (1, bsz, embed))])
        v = jnp.concatenate([v, jnp.broadcast_to(bias_v, (1, bsz, embed))])
        mask = None if mask is None else jnp.pad(mask, ((0, 0), (0, 0), (0, 1)))
        kpm = None if kpm is None else jnp.pad(kpm, ((0, 0), (0, 1)))
    q = jnp.swapaxes(q.reshape(tgt_len, bsz * num_heads, head), 0, 1)
    k = static_k if static_k is not None else \
        jnp.swapaxes(k.reshape(k.shape[0], bsz * num_heads, head), 0, 1)
    v = static_v if static_v is not None else \
        jnp.swapaxes(v.reshape(v.shape[0], bsz * num_heads, head), 0, 1)
    if add_zero_attn:
        k = jnp.concatenate([k, jnp.zeros((bsz * num_heads, 1, head), k.dtype)], axis=1)
        v = jnp.concatenate([v, jnp.zeros((bsz * num_heads, 1, head), v.dtype)], axis=1)
        mask = None if mask is None else jnp.pad(mask, ((0, 0), (0, 0), (0, 1)))
        kpm = None if kpm is None else jnp.pad(kpm, ((0, 0), (0, 1)))
    src_len = k.shape[1]
    if kpm is not None:
        if kpm.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{kpm.shape[0]}")
        if kpm.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{kpm.shape[1]}")
        kpm = jnp.repeat(kpm[:, None, :], num_heads, axis=0).reshape(bsz * num_heads, 1,
                                                                     src_len)
        mask = kpm if mask is None else mask + kpm
    # (bsz * heads, L, head) -> (bsz, heads, L, head): the same numbers as PyTorch's views
    q4 = q.reshape(bsz, num_heads, tgt_len, head)
    k4 = k.reshape(bsz, num_heads, src_len, head)
    v4 = v.reshape(bsz, num_heads, src_len, head)
    if mask is not None:
        mask = mask[None] if mask.shape[0] == 1 else mask.reshape(bsz, num_heads, -1, src_len)
    out, w = attend(q4, k4, v4, mask, rng, dropout_p, causal, None, safe=not need_weights,
                    mha=need_weights)
    out = jnp.transpose(out, (2, 0, 1, 3)).reshape(tgt_len, bsz, embed)
    out = _proj(out, out_proj_weight, out_proj_bias)
    if average_attn_weights:
        w = w.mean(axis=1)
    if not batched:
        out, w = out[:, 0], w[0]
    elif batch_first:
        out = jnp.swapaxes(out, 0, 1)
    return (out, w) if need_weights else out


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """PyTorch's MHA input checks; True for a batched (3-D) ``query``, False for 2-D."""
    n = query.dim()
    if n not in (2, 3):
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                             f"{n}-D query tensor")
    which = "For batched (3-D) `query`" if n == 3 else "For unbatched (2-D) `query`"
    if key.dim() != n or value.dim() != n:
        raise AssertionError(f"{which}, expected `key` and `value` to be {n}-D but found "
                             f"{key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != n - 1:
        raise AssertionError(f"{which}, expected `key_padding_mask` to be `None` or {n - 1}-D "
                             f"but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None and attn_mask.dim() not in (2, 3):
        raise AssertionError(f"{which}, expected `attn_mask` to be `None`, 2-D or 3-D but "
                             f"found {attn_mask.dim()}-D tensor instead")
    if n == 2 and attn_mask is not None and attn_mask.dim() == 3:
        expected = (num_heads, query.shape[0], key.shape[0])
        if tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{attn_mask.shape}")
    return n == 3


@export("_canonical_mask", namespace="nn.functional")
def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """PyTorch's mask normaliser: bool masks become float 0/-inf masks of ``target_type``."""

    if mask is None:
        return None
    if mask.dtype.is_floating_point:
        float_mask = True
    elif str(mask.dtype) == "torch.bool":
        float_mask = False
    else:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
                      "Use same type for both instead.", stacklevel=3)
    return mask if float_mask else _bool_mask_to_float(mask, target_type)


@op("_bool_mask_to_float", method=False, out=False, differentiable=False, tensors=())
def _bool_mask_to_float(mask, dtype):
    return bool_to_bias(mask, dtype.np)


@export("_none_or_dtype", namespace="nn.functional")
def _none_or_dtype(input):

    if input is None:
        return None
    if isinstance(input, TensorBase):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def check_mask_dtype(mask, name):
    """The dtype check (and mismatch warning) of ``_canonical_mask`` without converting."""
    if mask is not None and not mask.dtype.is_floating_point and str(mask.dtype) != "torch.bool":
        raise AssertionError(f"only bool and floating types of {name} are supported")


@export("multi_head_attention_forward", namespace="nn.functional")
def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False,
                                 _batch_first=False):
    """``F.multi_head_attention_forward``: PyTorch's checks, then one kernel."""

    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    check_mask_dtype(key_padding_mask, "key_padding_mask")
    if (key_padding_mask is not None and attn_mask is not None
            and key_padding_mask.dtype != attn_mask.dtype):
        warnings.warn("Support for mismatched key_padding_mask and attn_mask is deprecated. "
                      "Use same type for both instead.", stacklevel=2)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    causal_only = is_causal and key_padding_mask is None and not need_weights
    if not causal_only:
        check_mask_dtype(attn_mask, "attn_mask")
    tb = (1, 0) if batched and _batch_first else (0, 1)
    tgt_len, bsz, embed_dim = (query.shape[tb[0]], query.shape[tb[1]], query.shape[-1]) \
        if batched else (query.shape[0], 1, query.shape[-1])
    src_len = key.shape[tb[0]] if batched else key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    kshape = _tm_shape(key, batched, _batch_first)
    vshape = _tm_shape(value, batched, _batch_first)
    if use_separate_proj_weight:
        if kshape[:2] != vshape[:2]:
            raise AssertionError(f"key's sequence and batch dims {_size(kshape[:2])} do not "
                                 f"match value's {_size(vshape[:2])}")
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight "
                                     "is None")
    else:
        if kshape != vshape:
            raise AssertionError(f"key shape {_size(kshape)} does not match value shape "
                                 f"{_size(vshape)}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q_proj_weight = k_proj_weight = v_proj_weight = None
    if attn_mask is not None and not causal_only:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    for name, s in (("static_k", static_k), ("static_v", static_v)):
        if s is not None:
            if s.size(0) != bsz * num_heads:
                raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got "
                                     f"{s.size(0)}")
            if s.size(2) != head_dim:
                raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got "
                                     f"{s.size(2)}")
    if not need_weights:  # PyTorch runs scaled_dot_product_attention here
        check_viable(query.device.type)
    p = float(dropout_p) if training else 0.0
    rng = next_key() if p > 0.0 else None
    out = _mha(query, key, value, in_proj_weight, in_proj_bias, bias_k, bias_v,
               out_proj_weight, out_proj_bias, q_proj_weight, k_proj_weight, v_proj_weight,
               static_k, static_v, key_padding_mask, None if causal_only else attn_mask, rng,
               int(num_heads), bool(add_zero_attn), p, bool(need_weights),
               bool(average_attn_weights), bool(is_causal), batched, bool(_batch_first))
    return tuple(out) if need_weights else (out, None)


def _tm_shape(x, batched, batch_first):
    s = tuple(x.shape)
    if not batched:
        return (s[0], 1, s[1])
    return (s[1], s[0], s[2]) if batch_first else s


def _size(shape):

    return Size(shape)

