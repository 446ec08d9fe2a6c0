"""The masks of torch.nn.attention.flex_attention (re-exported there): the mask mods
(``noop_mask``, ``or_masks``, ``and_masks``), ``create_mask`` (a dense boolean mask) and
:class:`BlockMask` with ``create_block_mask``, in PyTorch's block-sparse format
(``kv_num_blocks``, ``kv_indices``, the full-block and transposed ``q_*`` tensors, the same values
as PyTorch's). flex_attention.py's docstring says how the mods are called."""

from __future__ import annotations

import inspect
import math
import operator
import warnings
from collections.abc import Callable
from enum import Enum

import jax
import numpy as np

from ... import accelerator
from ..._core.dtypes import bool_, int32
from ..._core.errors import not_implemented
from ..._ops.compare import where
from ..._ops.creation import tensor, zeros
from ..._ops.selection import argsort
from ..._tensor import Tensor
from .. import functional as F

_score_mod_signature = Callable[[Tensor, Tensor, Tensor, Tensor, Tensor], Tensor]
_mask_mod_signature = Callable[[Tensor, Tensor, Tensor, Tensor], Tensor]

_DEFAULT_SPARSE_BLOCK_SIZE = 128
_LARGE_SPARSE_BLOCK_SIZE = 1 << 30

# ------------------------------------------------------------------------------- the mods
class _ModificationType(Enum):
    SCORE_MOD = 1
    MASK_MOD = 2
    UNKNOWN = 3


def _get_mod_type(fn) -> _ModificationType:
    """A score_mod takes 5 positional arguments, a mask_mod 4 (PyTorch's rule)."""
    if hasattr(fn, "__code__"):
        n = fn.__code__.co_argcount - len(getattr(fn, "__defaults__", None) or ())
    else:
        n = sum(1 for p in inspect.signature(fn).parameters.values()
                if p.default is inspect.Parameter.empty)
    if n not in (4, 5):
        raise AssertionError(f"Expected 4 or 5 positional args, got {n}")
    return _ModificationType.SCORE_MOD if n == 5 else _ModificationType.MASK_MOD


def _identity(score, batch, head, token_q, token_kv):
    return score


def noop_mask(batch, head, token_q, token_kv):
    """Returns a noop mask_mod"""
    return batch.new_ones(size=(), dtype=bool_, device=batch.device)


def _sliced_mask_mod_error(batch, head, token_q, token_kv):
    raise RuntimeError(
        "Cannot use mask_mod from a sliced BlockMask. When you slice a BlockMask using [], "
        "the mask_mod attribute is reset. You must set it from the original BlockMask's "
        "mask_mod.")


def _fold_masks(name, mask_mods, start, combine):
    """The mask_mod ``name`` that folds ``mask_mods``' masks with ``combine``, from the bool
    scalar ``start(b)``."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def fold(b, h, q_idx, kv_idx):
        result = start(b)
        for mask in mask_mods:
            result = combine(result, mask(b, h, q_idx, kv_idx))
        return result

    fold.__name__ = name
    return fold


def or_masks(*mask_mods):
    """Returns a mask_mod that's the union of provided mask_mods"""
    return _fold_masks("or_mask", mask_mods, lambda b: b.new_zeros((), dtype=bool_),
                       operator.or_)


def and_masks(*mask_mods):
    """Returns a mask_mod that's the intersection of provided mask_mods"""
    return _fold_masks("and_mask", mask_mods, lambda b: b.new_ones((), dtype=bool_),
                       operator.and_)


def _index_grids(B, H, Q_LEN, KV_LEN, device):
    """The broadcasting (b, h, q_idx, kv_idx) a mod is called with, int64 as PyTorch's
    (constants: made from NumPy, they cost no kernel, also under a trace)."""
    return tuple(tensor(np.arange(n, dtype=np.int64).reshape(shape), device=device)
                 for n, shape in ((B, (B, 1, 1, 1)), (H, (1, H, 1, 1)),
                                  (Q_LEN, (1, 1, Q_LEN, 1)), (KV_LEN, (1, 1, 1, KV_LEN))))


def _default_device(device):
    return device if device is not None else (accelerator.current_accelerator() or "cpu")


def create_mask(mod_fn, B, H, Q_LEN, KV_LEN, device=None):
    """The dense mask ``(B, H, Q_LEN, KV_LEN)`` of a mask_mod (its values), or of a score_mod
    (True where the modified score of a zero score is not ``-inf``). ``B`` or ``H`` None is 1.
    """
    device = _default_device(device)
    B, H = 1 if B is None else B, 1 if H is None else H
    b, h, m, n = _index_grids(B, H, Q_LEN, KV_LEN, device)
    if _get_mod_type(mod_fn) == _ModificationType.SCORE_MOD:
        out = mod_fn(zeros(B, H, Q_LEN, KV_LEN, device=device), b, h, m, n)
        return ~out.isneginf().expand(B, H, Q_LEN, KV_LEN).contiguous()
    mask = mod_fn(b, h, m, n)
    if not isinstance(mask, Tensor):
        raise TypeError(f"mask_mod must return a Tensor, got {type(mask).__name__}")
    return mask.expand(B, H, Q_LEN, KV_LEN).contiguous()


# ------------------------------------------------------------- the block-sparse format
def _ordered_to_dense(num_blocks_in_row, col_indices, num_cols):
    """Rows of (count, column list) -> a dense int32 ``(..., rows, num_cols)`` 0/1 mask;
    entries past a row's count (and columns past ``num_cols``) are dropped."""
    entries = tensor(np.arange(col_indices.shape[-1]), device=col_indices.device)
    valid = (entries < num_blocks_in_row.unsqueeze(-1)) & (col_indices < num_cols)
    sink = where(valid, col_indices.long(), num_cols)  # one column past the end
    dense = zeros(*col_indices.shape[:-1], num_cols + 1, dtype=int32,
                  device=col_indices.device)
    return dense.scatter(-1, sink, 1)[..., :num_cols].contiguous()


def _dense_to_ordered(dense_mask):
    dense_mask = dense_mask.to(dtype=int32)
    num_blocks_in_row = dense_mask.sum(dim=-1).to(int32)
    col_indices = argsort(dense_mask, dim=-1, descending=True, stable=True).to(int32)
    return num_blocks_in_row, col_indices


def _transpose_ordered(num_blocks_in_row, col_indices):
    dense = _ordered_to_dense(num_blocks_in_row, col_indices, col_indices.shape[-1])
    return _dense_to_ordered(dense.transpose(-2, -1))


def _adjust_num_blocks_and_indices(num_blocks, indices, new_num_rows, new_num_cols):
    indices = indices[:, :, :new_num_rows, :new_num_cols]
    num_blocks = num_blocks[:, :, :new_num_rows]
    num_blocks = where(num_blocks < new_num_cols, num_blocks, new_num_cols)
    num_blocks = (indices < num_blocks[:, :, :, None]).sum(dim=-1).to(int32)
    return num_blocks, indices


class BlockMask:
    """PyTorch's block-sparse attention mask: for each (batch, head) and each row of
    ``BLOCK_SIZE[0]`` queries, the blocks of ``BLOCK_SIZE[1]`` keys that may attend.

    ``kv_num_blocks`` / ``kv_indices`` list the partial blocks of each row (where
    ``mask_mod`` decides per entry), ``full_kv_num_blocks`` / ``full_kv_indices`` the full
    ones (every entry kept), and ``q_*`` the same transposed. Make one with
    :func:`create_block_mask` or :meth:`from_kv_blocks`.

    Attributes: ``seq_lengths`` (Q_LEN, KV_LEN), ``BLOCK_SIZE`` (Q, KV), ``mask_mod``,
    ``shape`` (``(B, H, Q_LEN, KV_LEN)``), and the block tensors above (int32).
    """

    _TENSOR_ATTRS = ["kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices",
                     "q_num_blocks", "q_indices", "full_q_num_blocks", "full_q_indices",
                     "dq_write_order", "dq_write_order_full", "dq_kv_order"]

    def __init__(self, seq_lengths, kv_num_blocks, kv_indices, full_kv_num_blocks,
                 full_kv_indices, q_num_blocks, q_indices, full_q_num_blocks, full_q_indices,
                 BLOCK_SIZE=(_DEFAULT_SPARSE_BLOCK_SIZE, _DEFAULT_SPARSE_BLOCK_SIZE),
                 mask_mod=noop_mask, *, dq_write_order=None, dq_write_order_full=None,
                 dq_kv_order=None, dq_kv_order_spt=None):
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise AssertionError(
                "full_kv_num_blocks and full_kv_indices must be both provided or omitted")
        if (full_q_num_blocks is None) != (full_q_indices is None):
            raise AssertionError(
                "full_q_num_blocks and full_q_indices must be both provided or omitted")
        if dq_write_order_full is not None and dq_write_order is None:
            raise ValueError("dq_write_order_full requires dq_write_order")
        self.seq_lengths = tuple(seq_lengths)
        self.kv_num_blocks = kv_num_blocks
        self.kv_indices = kv_indices
        self.full_kv_num_blocks = full_kv_num_blocks
        self.full_kv_indices = full_kv_indices
        self.q_num_blocks = q_num_blocks
        self.q_indices = q_indices
        self.full_q_num_blocks = full_q_num_blocks
        self.full_q_indices = full_q_indices
        self.dq_write_order = dq_write_order
        self.dq_write_order_full = dq_write_order_full
        self.dq_kv_order = dq_kv_order
        self.dq_kv_order_spt = dq_kv_order_spt
        self.BLOCK_SIZE = (BLOCK_SIZE,) * 2 if isinstance(BLOCK_SIZE, int) else tuple(BLOCK_SIZE)
        self.mask_mod = mask_mod
        self._dense = None   # (source tensors, their versions, dense blocks): _dense_blocks

    @classmethod
    def from_kv_blocks(cls, kv_num_blocks, kv_indices, full_kv_num_blocks=None,
                       full_kv_indices=None, BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE,
                       mask_mod=None, seq_lengths=None, compute_q_blocks=True, *,
                       dq_write_order=None, dq_write_order_full=None, dq_kv_order=None):
        """A BlockMask from its (kv_num_blocks, kv_indices) and optional full-block pair; the
        ``q_*`` tensors are derived (``compute_q_blocks``). ``seq_lengths`` defaults to the
        block counts times ``BLOCK_SIZE``, ``mask_mod`` to :func:`noop_mask`."""
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise AssertionError(
                "full_kv_num_blocks and full_kv_indices must be both provided or omitted")
        q_num_blocks = q_indices = full_q_num_blocks = full_q_indices = None
        if compute_q_blocks:
            q_num_blocks, q_indices = _transpose_ordered(kv_num_blocks, kv_indices)
            if full_kv_num_blocks is not None:
                full_q_num_blocks, full_q_indices = _transpose_ordered(
                    full_kv_num_blocks, full_kv_indices)
        if isinstance(BLOCK_SIZE, int):
            BLOCK_SIZE = (BLOCK_SIZE, BLOCK_SIZE)
        if seq_lengths is None:
            seq_lengths = (kv_indices.shape[-2] * BLOCK_SIZE[0],
                           kv_indices.shape[-1] * BLOCK_SIZE[1])
        if dq_kv_order is not None and not isinstance(dq_kv_order, (bool, Tensor)):
            raise ValueError("dq_kv_order must be a bool, Tensor, or None")
        return cls(seq_lengths, kv_num_blocks, kv_indices, full_kv_num_blocks,
                   full_kv_indices, q_num_blocks, q_indices, full_q_num_blocks,
                   full_q_indices, BLOCK_SIZE=BLOCK_SIZE,
                   mask_mod=mask_mod if mask_mod is not None else noop_mask,
                   dq_write_order=dq_write_order, dq_write_order_full=dq_write_order_full,
                   dq_kv_order=dq_kv_order if isinstance(dq_kv_order, Tensor) else None,
                   dq_kv_order_spt=dq_kv_order if isinstance(dq_kv_order, bool) else None)

    # ---------------------------------------------------------------- the dense form
    def _dense_blocks(self):
        """(partial, full or None): the bool ``(B, H, rows, cols)`` block masks over
        ``seq_lengths``, kept while the block tensors stay the same objects and versions
        (and not kept when made from tracers, which must not outlive their trace)."""
        key = self._dense_key()
        if self._dense is not None and self._dense[1] == key[1] and all(
                a is b for a, b in zip(self._dense[0], key[0])):
            return self._dense[2]
        num_cols = -(-self.seq_lengths[1] // self.BLOCK_SIZE[1])
        partial = _ordered_to_dense(self.kv_num_blocks, self.kv_indices, num_cols) > 0
        full = None
        if self.full_kv_num_blocks is not None:
            full = _ordered_to_dense(self.full_kv_num_blocks, self.full_kv_indices,
                                     num_cols) > 0
        if not isinstance(partial.__jax_array__(), jax.core.Tracer):
            self._keep_dense(partial, full)
        return partial, full

    def _dense_key(self):
        sources = (self.kv_num_blocks, self.kv_indices, self.full_kv_num_blocks,
                   self.full_kv_indices)
        return sources, tuple(getattr(t, "_version", None) for t in sources)

    def _keep_dense(self, partial, full):
        self._dense = (*self._dense_key(), (partial, full))

    def _allowed(self, b, h, m, n):
        """The bool mask of the entries attention keeps, broadcast from ``(B, H, L, S)``:
        a full block's entries, and a partial block's where ``mask_mod`` allows them."""
        partial, full = self._dense_blocks()
        qb = tensor(np.arange(m.shape[2])[:, None] // self.BLOCK_SIZE[0], device=m.device)
        kb = tensor(np.arange(n.shape[3])[None, :] // self.BLOCK_SIZE[1], device=n.device)
        allowed = partial[:, :, qb, kb]
        if self.mask_mod is not noop_mask:
            allowed = allowed & self.mask_mod(b, h, m, n)
        if full is not None:
            allowed = allowed | full[:, :, qb, kb]
        return allowed

    def to_dense(self):
        """The block-level mask, int32 ``(B, H, rows, cols)``: 1 where a block is computed."""
        dense = _ordered_to_dense(self.kv_num_blocks, self.kv_indices,
                                  self.kv_indices.shape[-1])
        if self.full_kv_num_blocks is not None:
            dense = dense | _ordered_to_dense(self.full_kv_num_blocks, self.full_kv_indices,
                                              self.full_kv_indices.shape[-1])
        return dense

    # ---------------------------------------------------------------- PyTorch's API
    def as_tuple(self, flatten=True):
        """The attributes as a tuple (PyTorch's order)."""
        head = self.seq_lengths if flatten else (self.seq_lengths,)
        tail = self.BLOCK_SIZE if flatten else (self.BLOCK_SIZE,)
        return (*head, *(getattr(self, a) for a in self._TENSOR_ATTRS),
                self.dq_kv_order_spt, *tail, self.mask_mod)

    @property
    def shape(self):
        *batch_dims, _, _ = self.kv_indices.shape
        return tuple(batch_dims) + tuple(self.seq_lengths)

    def numel(self):
        """Returns the number of elements (not accounting for sparsity) in the mask."""
        return math.prod(self.shape)

    def sparsity(self):
        """Computes the percentage of blocks that are sparse (i.e. not computed)"""
        computed = self.kv_num_blocks.sum()
        if self.full_kv_num_blocks is not None:
            computed = computed + self.full_kv_num_blocks.sum()
        computed_size = computed.item() * self.BLOCK_SIZE[0] * self.BLOCK_SIZE[1]
        return 100 * (1 - computed_size / self.numel())

    def _check_no_dq_order(self, what):
        if self.dq_kv_order is not None:
            raise NotImplementedError(
                f"{what} BlockMask with tensor dq_kv_order is not supported yet. Construct a "
                "new BlockMask with matching precomputed dq_write_order metadata.")
        if self.dq_write_order is not None:
            raise not_implemented(
                "torch.nn.attention.flex_attention.BlockMask with dq_write_order")

    def __getitem__(self, index):
        """The BlockMask of the given batch/head/query-block index; its mask_mod is reset to
        one that raises (as PyTorch's)."""
        self._check_no_dq_order("Slicing")
        index = (index,) if not isinstance(index, tuple) else index
        padded = (*index, slice(None), slice(None), slice(None))[:3]
        index = tuple(
            (slice(i + n, i + n + 1) if -n <= i < 0 else slice(i, i + 1))
            if isinstance(i, int) else i
            for i, n in zip(padded, self.kv_num_blocks.shape[:3]))
        full = (None, None)
        if self.full_kv_num_blocks is not None:
            full = (self.full_kv_num_blocks[index], self.full_kv_indices[index])
        return BlockMask.from_kv_blocks(
            self.kv_num_blocks[index], self.kv_indices[index], *full,
            BLOCK_SIZE=self.BLOCK_SIZE, mask_mod=_sliced_mask_mod_error,
            seq_lengths=self.seq_lengths, compute_q_blocks=self.q_indices is not None)

    def _adjust(self, new_q_len, new_kv_len):
        """Crops the mask to ``(new_q_len, new_kv_len)`` (its upper left corner)."""
        self._check_no_dq_order("Adjusting")
        rows = -(-new_q_len // self.BLOCK_SIZE[0])
        cols = -(-new_kv_len // self.BLOCK_SIZE[1])
        kv = _adjust_num_blocks_and_indices(self.kv_num_blocks, self.kv_indices, rows, cols)
        full = (None, None)
        if self.full_kv_num_blocks is not None:
            full = _adjust_num_blocks_and_indices(self.full_kv_num_blocks,
                                                  self.full_kv_indices, rows, cols)
        return self.from_kv_blocks(
            *kv, *full, BLOCK_SIZE=self.BLOCK_SIZE, mask_mod=self.mask_mod,
            seq_lengths=(new_q_len, new_kv_len), compute_q_blocks=self.q_indices is not None)

    def to(self, device):
        """A BlockMask with its tensors moved to ``device``."""
        moved = {a: (getattr(self, a).to(device) if getattr(self, a) is not None else None)
                 for a in self._TENSOR_ATTRS}
        return BlockMask(self.seq_lengths, **moved, BLOCK_SIZE=self.BLOCK_SIZE,
                         mask_mod=self.mask_mod, dq_kv_order_spt=self.dq_kv_order_spt)

    def to_string(self, grid_size=(20, 20), limit=4):
        """A picture of the block mask (█ computed, ░ partly, blank skipped) per (b, h)."""
        dense = self.to_dense()
        *batch_dims, rows, cols = dense.shape
        if grid_size == -1:
            max_rows, max_cols = rows, cols
        elif isinstance(grid_size, int):
            max_rows = max_cols = grid_size
        else:
            max_rows, max_cols = grid_size
        row_step, col_step = max(1, -(-rows // max_rows)), max(1, -(-cols // max_cols))
        grid = dense.reshape(-1, rows, cols).float().numpy()
        pictures = []
        for k in range(grid.shape[0]):
            if k == limit:
                pictures += ["...", "To print out more, set BlockMask.to_string(limit=N)",
                             "You can also index (BlockMask[batch, head]) to choose a "
                             "specific batch or head"]
                break
            idx, rest = [], k
            for size in reversed(batch_dims):
                idx.insert(0, rest % size)
                rest //= size
            lines = [f"{tuple(idx)}"]
            for r in range(0, rows, row_step):
                line = ""
                for c in range(0, cols, col_step):
                    frac = grid[k, r:r + row_step, c:c + col_step].mean()
                    line += ("█" if frac == 1 else " " if frac == 0 else "░") * 2
                lines.append(line)
            pictures.append("\n".join(lines) + "\n")
        return "\n".join(pictures)

    def __str__(self):
        return (f"BlockMask(shape={self.shape}, sparsity={self.sparsity():.2f}%, \n"
                f"{self.to_string().strip()}\n)")

    def __repr__(self):
        def shape_or_none(x):
            return x.shape if x is not None else None

        fields = ", ".join(f"{a}={shape_or_none(getattr(self, a))}"
                           for a in self._TENSOR_ATTRS[:8])
        name = getattr(self.mask_mod, "__name__", self.mask_mod)
        return (f"BlockMask({fields}, BLOCK_SIZE={self.BLOCK_SIZE}, shape={self.shape}, "
                f"sparsity={self.sparsity():.2f}%, mask_mod={name})")


def _convert_mask_to_block_mask(mask, Q_BLOCK_SIZE, KV_BLOCK_SIZE, separate_full_blocks):
    """A dense bool (B, H, Q, KV) mask -> (partial, full or None) int32 block masks."""
    B, H, Q, KV = mask.shape
    rows, cols = -(-Q // Q_BLOCK_SIZE), -(-KV // KV_BLOCK_SIZE)
    counts = F.pad(mask.to(int32), (0, cols * KV_BLOCK_SIZE - KV, 0, rows * Q_BLOCK_SIZE - Q))
    counts = counts.reshape(B, H, rows, Q_BLOCK_SIZE, cols, KV_BLOCK_SIZE).sum(dim=(3, 5))
    if not separate_full_blocks:
        return (counts > 0).to(int32), None
    whole = Q_BLOCK_SIZE * KV_BLOCK_SIZE
    return ((counts > 0) & (counts < whole)).to(int32), (counts == whole).to(int32)


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device=None,
                      BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE, _compile=False,
                      separate_full_blocks=True, compute_dq_write_order=False,
                      dq_kv_order=True):
    """A :class:`BlockMask` from a mask_mod ``(b, h, q_idx, kv_idx) -> bool``.

    Args:
        mask_mod: True where query ``q_idx`` may attend to key ``kv_idx``.
        B, H: batch size and number of query heads (None: 1, broadcast over them).
        Q_LEN, KV_LEN: sequence lengths of query and key/value.
        device: where the mask is made (default: the current accelerator, else the CPU).
        BLOCK_SIZE: int or (Q, KV) block size (default 128).
        separate_full_blocks: keep fully allowed blocks apart (``full_kv_*``).

    Example:
        >>> def causal(b, h, q_idx, kv_idx):
        ...     return q_idx >= kv_idx
        >>> block_mask = create_block_mask(causal, None, None, 256, 256, device="cpu")
        >>> block_mask.to_dense()[0, 0].tolist()
        [[1, 0], [1, 1]]
    """
    device = _default_device(device)
    if _get_mod_type(mask_mod) != _ModificationType.MASK_MOD:
        raise AssertionError(f"create-block_mask requires a mask_mod function! Got {mask_mod}")
    B, H = 1 if B is None else B, 1 if H is None else H
    q_bs, kv_bs = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else BLOCK_SIZE
    if _compile:
        warnings.warn(
            "_compile flag on create_block_mask was originally added to work around a "
            "torch.compile limitation. That limitation has since been addressed. So, to "
            "compile create_block_mask, we suggest doing torch.compile(create_block_mask). "
            "This still works for now, but will be removed in the future.",
            DeprecationWarning, stacklevel=2)
    if not isinstance(dq_kv_order, bool):
        raise ValueError("dq_kv_order must be a bool when using create_block_mask")
    if compute_dq_write_order:
        raise not_implemented(
            "torch.nn.attention.flex_attention.create_block_mask(compute_dq_write_order=True)")
    mask = create_mask(mask_mod, B, H, Q_LEN, KV_LEN, device)
    partial, full = _convert_mask_to_block_mask(mask, q_bs, kv_bs, separate_full_blocks)
    # PyTorch's from_kv_blocks, with the q_* pairs from the dense blocks at hand
    ordered = [*_dense_to_ordered(partial), None, None,
               *_dense_to_ordered(partial.transpose(-2, -1)), None, None]
    if full is not None:
        ordered[2:4] = _dense_to_ordered(full)
        ordered[6:8] = _dense_to_ordered(full.transpose(-2, -1))
    block_mask = BlockMask((Q_LEN, KV_LEN), *ordered, BLOCK_SIZE=(q_bs, kv_bs),
                           mask_mod=mask_mod)
    block_mask._keep_dense(partial > 0, full > 0 if full is not None else None)
    return block_mask
