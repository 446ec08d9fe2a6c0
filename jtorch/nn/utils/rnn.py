"""Packed sequences (``torch.nn.utils.rnn``): PackedSequence, pack/pad helpers.

``batch_sizes`` and ``lengths`` are host values, as in PyTorch (where both are CPU int64
tensors): the shapes of packed data depend on them, so they must be concrete (not traced).
Each function that moves tensor data runs one gather kernel (``jtorch/_ops/nn_rnn.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from ..._core import dtypes
from ..._ops import nn_rnn as rnn_kernels
from ..._ops._index_util import concrete, need_concrete
from ..._ops.creation import tensor
from ..._ops.selection import argsort
from ..._tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]


class PackedSequence_(NamedTuple):  # noqa: N801 - PyTorch's name
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def bind(optional, fn):
    return None if optional is None else fn(optional)


def _converter(dtype):
    """The PackedSequence method that casts its data to ``dtype`` (``double``, ``long``...)."""

    def convert(self):
        return self.to(dtype=dtype)

    convert.__doc__ = f"``to(dtype={dtype})``."
    return convert


class PackedSequence(PackedSequence_):
    """Holds the packed ``data`` and the ``batch_sizes`` of a batch of sequences (namedtuple
    of ``data, batch_sizes, sorted_indices, unsorted_indices``)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError(
                    "batch_sizes should always be on CPU. Instances of PackedSequence should "
                    "never be created manually. They should be instantiated by functions like "
                    "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                    "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        if not (isinstance(data, (list, tuple)) and len(data) == 2):
            raise AssertionError("Expected data to be a list or tuple of length 2")
        return super().__new__(cls, data[0], data[1], sorted_indices, unsorted_indices)

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          bind(self.sorted_indices, lambda t: t.pin_memory()),
                          bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        """``data.to(...)``; the indices follow data's device, batch_sizes stays on the CPU."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self

        def call_to(t):
            return t.to(data.device)

        return type(self)(data, self.batch_sizes, bind(self.sorted_indices, call_to),
                          bind(self.unsorted_indices, call_to))

    def cuda(self, device=None, *args, **kwargs):
        return self.to("cuda" if device is None else device, *args, **kwargs)

    def cpu(self, *args, **kwargs):
        return self.to("cpu", *args, **kwargs)

    double = _converter(dtypes.float64)
    float = _converter(dtypes.float32)
    half = _converter(dtypes.float16)
    long = _converter(dtypes.int64)
    int = _converter(dtypes.int32)
    short = _converter(dtypes.int16)
    char = _converter(dtypes.int8)
    byte = _converter(dtypes.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def batch_sizes_np(batch_sizes):
    """Host int64 values of ``batch_sizes`` (concrete; it lives on the CPU in PyTorch)."""
    return np.asarray(need_concrete(batch_sizes, "a PackedSequence's batch_sizes"), np.int64)


def invert_permutation(permutation):
    """The inverse permutation (``None`` stays None)."""
    if permutation is None:
        return None
    p = concrete(permutation)
    if p is None:  # traced: stay in the trace
        return argsort(permutation)
    inv = np.empty_like(p)
    inv[p] = np.arange(p.size, dtype=p.dtype)
    return tensor(inv, device=permutation.device)


def _int64(a, device=None):
    return tensor(np.asarray(a, np.int64), dtype=dtypes.int64, device=device)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded ``T x B x *`` (or ``B x T x *``) batch of sequences of ``lengths``."""
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                               f"{lengths.dim()}D cpu Long tensor")
        lens = need_concrete(lengths, "pack_padded_sequence's lengths").astype(np.int64)
    else:
        lens = np.asarray(lengths, np.int64)
        if lens.ndim != 1:
            raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                               f"{lens.ndim}D cpu Long tensor")
    if input.dim() < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "1)")
    B = input.size(0) if batch_first else input.size(1)
    T = input.size(1) if batch_first else input.size(0)
    if enforce_sorted:
        order = None
    else:
        order = np.argsort(-lens, kind="stable")
        lens = lens[order]
    if len(lens) != B:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lens)} (batch_size={B})")
    if lens.size and lens.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if enforce_sorted and np.any(lens[1:] > lens[:-1]):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
            "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
            "pack_sequence to sidestep this requirement if you do not need ONNX "
            "exportability.")
    if lens.size and lens[0] > T:
        raise RuntimeError(f"jtorch: pack_padded_sequence got a length of {lens[0]} for a "
                           f"padded input of {T} steps (PyTorch reads out of bounds here)")
    batch_sizes = (lens[None, :] > np.arange(int(lens[0]))[:, None]).sum(1)
    cols = np.arange(B) if order is None else order
    idx = np.concatenate([t * B + cols[:n] for t, n in enumerate(batch_sizes)])
    data = rnn_kernels._pack_gather(input, idx, bool(batch_first))
    sorted_indices = None if order is None else _int64(order, input.device)
    return PackedSequence(data, _int64(batch_sizes), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Inverse of :func:`pack_padded_sequence`: returns ``(padded, lengths)``."""
    bs = batch_sizes_np(sequence.batch_sizes)
    max_len = len(bs)
    if total_length is not None:
        if total_length < max_len:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             "sequence in input, but got total_length="
                             f"{total_length} and max sequence length being {max_len}")
        max_len = total_length
    pad_idx, mask, _, _, _ = rnn_kernels.packing_arrays(bs, None, None)
    extra = max_len - len(bs)
    if extra:
        pad_idx = np.concatenate([pad_idx, np.zeros((extra, pad_idx.shape[1]), np.int64)])
        mask = np.concatenate([mask, np.zeros((extra, mask.shape[1]), bool)])
    lengths = mask.sum(0).astype(np.int64)
    unsorted = sequence.unsorted_indices
    out = rnn_kernels._pad_scatter(sequence.data, padding_value, pad_idx, mask, unsorted,
                                   bool(batch_first))
    if unsorted is None:
        return out, _int64(lengths)
    perm = concrete(unsorted)
    if perm is None:  # traced indices: the lengths follow them inside the trace
        return out, _int64(lengths).index_select(0, unsorted.cpu())
    return out, _int64(lengths[perm])


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack variable-length ``L x *`` tensors, padded with ``padding_value``."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError("Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    first = tuple(sequences[0].shape[1:])
    for s in sequences[1:]:
        for i, (a, b) in enumerate(zip(first, tuple(s.shape[1:]))):
            if a != b:
                raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor "
                                   f"b ({b}) at non-singleton dimension {i + 1}")
    return rnn_kernels._pad_sequence(sequences, bool(batch_first), padding_value, padding_side)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Split a padded batch back into a list of tensors of ``lengths``.

    Unlike PyTorch, the input is not transposed in place when ``batch_first=False``."""
    lens = need_concrete(lengths, "unpad_sequence's lengths").astype(np.int64)
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    if x.shape[0] != len(lens):
        raise ValueError("zip() argument 2 is shorter than argument 1"
                         if len(lens) < x.shape[0] else
                         "zip() argument 2 is longer than argument 1")
    return [x[i, :int(n)] for i, n in enumerate(lens)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of variable-length tensors (``pad_sequence`` then
    ``pack_padded_sequence``)."""
    lengths = [v.size(0) for v in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """Unpack a PackedSequence into the list of its sequences."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
