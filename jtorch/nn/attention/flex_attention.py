"""torch.nn.attention.flex_attention: attention with a user ``score_mod`` and ``mask_mod``.

``flex_attention(q, k, v, score_mod, block_mask)`` computes PyTorch's FlexAttention densely:
the full ``(B, H, L, S)`` score matrix, ``score_mod`` applied to it, the entries the block mask
forbids set to ``-inf``, softmax, and the product with ``value``. It is built from jtorch tensor
ops, so autograd reaches query, key, value and every tensor a ``score_mod`` or ``mask_mod``
captures (a relative-position bias table), and it traces under ``jtorch.compile`` like any
other code. :class:`BlockMask` keeps PyTorch's block-sparse format (``kv_num_blocks``,
``kv_indices``, the full-block and transposed ``q_*`` tensors, the same values as PyTorch's);
the attention reads it as a dense mask.

A ``score_mod`` or ``mask_mod`` is called ONCE with broadcasting index tensors, not once per
element under ``vmap`` as in PyTorch: ``b`` of shape ``(B, 1, 1, 1)``, ``h`` ``(1, H, 1, 1)``,
``q_idx`` ``(1, 1, L, 1)`` and ``kv_idx`` ``(1, 1, 1, S)`` (int64), with ``score`` of shape
``(B, H, L, S)``. The usual mods (causal, sliding window, prefix LM, document masks that index
a tensor with ``q_idx``, ALiBi, soft-capping, a bias table indexed by ``q_idx - kv_idx``) are
elementwise expressions and give the same result; a mod that branches in Python on its
arguments' values, or calls ``.item()`` on them, does not work.

Differences from PyTorch (docs/differences.md has them in full): dense, so memory O(B * H *
L * S) and no speed-up from sparsity; the mods are called once, broadcasting; an entry is kept
where its block is full, or partial and ``mask_mod`` allows it (PyTorch's GPU kernel's rule);
backward and ``AuxRequest(max_scores=True)`` work on the CPU too; no "called without
torch.compile()" warning; ``kernel_options`` are checked and change nothing;
``create_block_mask(compute_dq_write_order=True)`` raises NotImplementedError.
"""

from __future__ import annotations

import math
from typing import NamedTuple, TypedDict

from ..._core.dtypes import float32, float64, int32
from ..._core.warn_once import warn_once
from ..._ops.compare import where
from ..._ops.creation import zeros
from ..._ops.linalg import matmul
from ..._tensor import Tensor

# the `X as X` names are PyTorch's private ones that programs (transformers) import from here
from ._flex_masks import (
    _DEFAULT_SPARSE_BLOCK_SIZE as _DEFAULT_SPARSE_BLOCK_SIZE,
    _LARGE_SPARSE_BLOCK_SIZE,
    BlockMask,
    _index_grids,
    _mask_mod_signature as _mask_mod_signature,
    _score_mod_signature as _score_mod_signature,
    _sliced_mask_mod_error,
    and_masks,
    create_block_mask,
    create_mask,
    noop_mask,
    or_masks,
)

__all__ = [
    "BlockMask",
    "flex_attention",
    "AuxOutput",
    "AuxRequest",
    "FlexKernelOptions",
    "create_block_mask",
    "create_mask",
    "or_masks",
    "and_masks",
    "noop_mask",
]

# PyTorch's switch to run its mods eagerly for debugging; jtorch always runs them eagerly
_FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = False


class FlexKernelOptions(TypedDict, total=False):
    """Options of PyTorch's FlexAttention kernels (block sizes, warps, ``BACKEND``...). jtorch
    checks ``BACKEND`` as PyTorch does; the options do not change what jtorch computes."""

    num_warps: int
    num_stages: int
    BLOCK_M: int
    BLOCK_N: int
    BLOCK_M1: int
    BLOCK_N1: int
    BLOCK_M2: int
    BLOCK_N2: int
    PRESCALE_QK: bool
    ROWS_GUARANTEED_SAFE: bool
    BLOCKS_ARE_CONTIGUOUS: bool
    WRITE_DQ: bool
    FORCE_USE_FLEX_ATTENTION: bool
    USE_TMA: bool
    kpack: int
    matrix_instr_nonkdim: int
    waves_per_eu: int
    BACKEND: str


_BACKENDS = ("AUTO", "TRITON", "FLASH", "TRITON_DECODE")


class AuxRequest(NamedTuple):
    """Which auxiliary outputs :func:`flex_attention` returns (each a bool)."""

    lse: bool = False
    max_scores: bool = False


class AuxOutput(NamedTuple):
    """Auxiliary outputs of :func:`flex_attention`: a tensor where requested, else None."""

    lse: Tensor | None = None
    max_scores: Tensor | None = None


# ------------------------------------------------------------------------- the attention
def _validate(query, key, value, enable_gqa, block_mask):
    if query.device != key.device or query.device != value.device:
        raise ValueError(
            "Expected query, key, and value to have the same device type, but got "
            f"query.device: {query.device}, key.device: {key.device}, and value.device: "
            f"{value.device} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise ValueError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.dim()}, key.dim: {key.dim()} and value.dim: {value.dim()} "
            "instead.")
    if query.size(-1) != key.size(-1):
        raise ValueError(
            "Expect query and key/value to have the same embedding dimension but got "
            f"E={query.size(-1)} and E={key.size(-1)}.")
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        raise NotImplementedError("NYI: query, key, and value must be 4D tensors")
    Hq, Hkv = query.size(1), key.size(1)
    if not enable_gqa and Hq != Hkv:
        raise ValueError(
            "Expect query and key/value to have the same number of heads but got "
            f"Hq={Hq} and Hkv={Hkv}. Try setting enable_gqa=True for GQA.")
    if enable_gqa and Hq % Hkv != 0:
        raise ValueError(
            "Expect number of query heads to be a multiple of kv heads for GQA but got "
            f"Hq={Hq} and Hkv={Hkv}.")
    if query.size(0) != key.size(0):
        if block_mask is None:
            raise ValueError(
                "Expect query and key/value to have the same batch size, or non-none "
                f"block_mask, but got block_mask=None, Bq={query.size(0)}, and "
                f"Bkv={key.size(0)}.")
        if block_mask.kv_num_blocks.size(0) != query.size(0):
            raise ValueError(
                "Expect query and key/value to have the same batch size, or block_mask and "
                f"query to have the same batch size, but got Bq={query.size(0)}, "
                f"Bkv={key.size(0)}, B_block_mask={block_mask.kv_num_blocks.size(0)}.")


def _validate_block_mask(query, key, block_mask):
    if block_mask.mask_mod is _sliced_mask_mod_error:
        raise RuntimeError("Cannot use mask_mod from a sliced BlockMask")
    if block_mask.BLOCK_SIZE == (_LARGE_SPARSE_BLOCK_SIZE, _LARGE_SPARSE_BLOCK_SIZE):
        return  # the no-op mask of one block
    L, S = query.size(-2), key.size(-2)
    mq, mkv = block_mask.shape[-2], block_mask.shape[-1]
    head = (f"block_mask was created for block_mask.shape={block_mask.shape} but got "
            f"q_len={L} and kv_len={S}. ")
    if L > mq or S > mkv:
        raise ValueError(head + "As the block mask was created for a smaller length than "
                         "you're using it for, you likely need to create a new block mask.")
    if (L < mq and S <= mkv) or (L <= mq and S < mkv):
        raise ValueError(
            head + "As the block mask was created for a larger length than you're using it "
            "for, you can either 1. create a new block mask with the correct length, or 2. "
            "'adjust' the existing block mask to the correct length by calling "
            "block_mask._adjust(q_len, kv_len). This essentially 'crops' the block mask to "
            "the upper left corner, which does not work for all mask_mods!")
    if query.device != block_mask.kv_num_blocks.device:
        raise RuntimeError(
            "Expect q/k/v and block_mask to be on the same device but got "
            f"{query.device} and {block_mask.kv_num_blocks.device}.")


def _check_kernel_options(kernel_options, return_aux):
    options = dict(kernel_options or {})
    if "BACKEND" in options and options.get("FORCE_USE_FLEX_ATTENTION", False):
        raise RuntimeError(
            "BACKEND cannot be combined with legacy FORCE_USE_FLEX_ATTENTION. BACKEND "
            "supersedes the legacy knob; please drop FORCE_USE_FLEX_ATTENTION and only "
            "specify the desired BACKEND.")
    if "BACKEND" in options and options["BACKEND"] not in _BACKENDS:
        raise ValueError(
            f"Invalid BACKEND value '{options['BACKEND']}'. Must be one of {_BACKENDS}")
    for internal in ("OUTPUT_LOGSUMEXP", "OUTPUT_MAX"):
        if internal in options:
            raise AssertionError(f"{internal} must not be in kernel_options")
    if options.get("BACKEND") == "FLASH" and return_aux is not None and return_aux.max_scores:
        raise NotImplementedError(
            "Returning max scores is not supported with BACKEND='FLASH'. Use "
            "return_aux=AuxRequest(lse=True) or omit max_scores.")


def _attend(query, key, value, score_mod, block_mask, scale):
    """(out, post-mod scores, rows that are all -inf): PyTorch's math, in float32 (float64
    for float64 queries) up to the product with value, which runs in the query's dtype."""
    groups = query.size(1) // key.size(1)
    if groups != 1:
        key = key.repeat_interleave(groups, dim=1)
        value = value.repeat_interleave(groups, dim=1)
    Bq, Bkv = query.size(0), key.size(0)
    if not (Bq == Bkv or (Bq > 1 and Bkv == 1)):
        raise RuntimeError(f"Bq and Bkv must broadcast. Got Bq={Bq} and Bkv={Bkv}")
    if Bkv != Bq:
        key = key.expand(Bq, *key.shape[1:])
        value = value.expand(Bq, *value.shape[1:])
    precision = float64 if query.dtype == float64 else float32
    scores = matmul(query.to(precision), key.to(precision).transpose(-2, -1))
    scores = (scores * scale).to(precision)
    B, H, L, S = scores.shape
    b, h, m, n = _index_grids(B, H, L, S, scores.device)
    if score_mod is not None:
        scores = score_mod(scores, b, h, m, n)
    if block_mask is not None:
        scores = where(block_mask._allowed(b, h, m, n), scores, float("-inf"))
    # rows with nothing to attend: probabilities and output 0, lse -inf; softmax and
    # logsumexp see zeros there so that no NaN reaches the gradients
    empty = scores.isneginf().all(dim=-1, keepdim=True)
    safe = where(empty, 0.0, scores)
    probs = where(empty, 0.0, safe.softmax(dim=-1))
    out = matmul(probs.to(query.dtype), value.to(query.dtype))
    return out, scores, safe, empty


def flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None,
                   enable_gqa=False, return_lse=False, kernel_options=None, *,
                   return_aux=None):
    r"""Scaled dot product attention with a user score modification and block mask.

    ``score_mod(score, b, h, q_idx, kv_idx)`` changes each scaled score ``q . k * scale``;
    entries ``block_mask`` forbids get ``-inf``; a row with nothing left gives 0 (lse
    ``-inf``). See the module's docstring for how the mods are called.

    Args:
        query: ``(B, Hq, L, E)``; key: ``(B, Hkv, S, E)``; value: ``(B, Hkv, S, Ev)``.
        score_mod: modifies the scores (default: none).
        block_mask: a :class:`BlockMask` of shape ``(B or 1, Hq or 1, L, S)`` (default: none).
        scale: default ``1/sqrt(E)``.
        enable_gqa: share each key/value head among ``Hq // Hkv`` query heads.
        return_lse: deprecated, use ``return_aux=AuxRequest(lse=True)``.
        kernel_options: PyTorch's kernel options; checked, no effect here.
        return_aux: an :class:`AuxRequest`.

    Returns:
        The output ``(B, Hq, L, Ev)`` in the query's dtype; with ``return_aux``, also an
        :class:`AuxOutput` (``lse``, ``max_scores``: ``(B, Hq, L)``, natural log, float32 or
        float64); with ``return_lse``, ``(output, lse)``.

    Example:
        >>> q = k = v = torch.randn(1, 2, 8, 4)
        >>> causal = create_block_mask(lambda b, h, i, j: i >= j, None, None, 8, 8)
        >>> flex_attention(q, k, v, block_mask=causal).shape
        torch.Size([1, 2, 8, 4])
    """
    _validate(query, key, value, enable_gqa, block_mask)
    if block_mask is not None:
        _validate_block_mask(query, key, block_mask)
    if scale is None:
        scale = 1.0 / math.sqrt(query.size(-1))
    if return_lse and return_aux is not None:
        raise ValueError(
            "Cannot specify both return_lse and return_aux. return_lse is deprecated, please "
            "use return_aux=AuxRequest(lse=True) instead.")
    if return_lse:
        warn_once("deprecated_return_lse",
                  "return_lse is deprecated and will be removed in v2.10. Please use "
                  "return_aux=AuxRequest(lse=True) instead.", FutureWarning)
    _check_kernel_options(kernel_options, return_aux)
    out, scores, safe, empty = _attend(query, key, value, score_mod, block_mask, scale)
    want_lse = return_lse or (return_aux is not None and return_aux.lse)
    lse = where(empty.squeeze(-1), float("-inf"), safe.logsumexp(dim=-1)) if want_lse else None
    if return_aux is not None:
        # PyTorch's max_scores has no gradient
        max_scores = scores.detach().amax(dim=-1) if return_aux.max_scores else None
        return out, AuxOutput(lse=lse, max_scores=max_scores)
    return (out, lse) if return_lse else out


def _create_empty_block_mask(query, key):
    """PyTorch's stand-in for no block mask: one block covering everything."""
    device = query.device
    return BlockMask.from_kv_blocks(
        kv_num_blocks=zeros(1, 1, 1, dtype=int32, device=device) + 1,
        kv_indices=zeros(1, 1, 1, 1, dtype=int32, device=device),
        BLOCK_SIZE=_LARGE_SPARSE_BLOCK_SIZE, seq_lengths=(1, 1))

