"""Embedding and EmbeddingBag.

``sparse=True`` is accepted but the gradient is dense (jtorch has no sparse gradients); the
numbers are the same as PyTorch's sparse gradient densified.
"""

from __future__ import annotations

from ..._ops.creation import empty
from ..._ops.nn_embedding import _padding as checked_padding_idx
from ...autograd import no_grad
from .. import functional as F, init
from ..parameter import Parameter
from ._generated import changed_options
from .module import Module

__all__ = ["Embedding", "EmbeddingBag"]


def _norm_padding(padding_idx, n, msg):
    """``padding_idx`` in ``[0, n)`` (a negative one counts from the end), or None."""
    return None if padding_idx is None else checked_padding_idx(padding_idx, n, msg)


class _EmbeddingBase(Module):
    """The lookup table of Embedding and EmbeddingBag: its size, ``padding_idx``, the
    ``max_norm`` renormalisation options and the weight (N(0, 1), its ``padding_idx`` row
    zero, unless ``_weight`` is given)."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
                 scale_grad_by_freq, _weight, *, requires_grad, device, dtype,
                 padding_idx_error):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _norm_padding(padding_idx, num_embeddings, padding_idx_error)
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self._init_weight(_weight, requires_grad, device, dtype)

    def _init_weight(self, _weight, requires_grad, device, dtype):
        if _weight is None:
            self.weight = Parameter(empty((self.num_embeddings, self.embedding_dim),
                                          device=device, dtype=dtype),
                                    requires_grad=requires_grad)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [self.num_embeddings, self.embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight, requires_grad=requires_grad)

    def reset_parameters(self):
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def _lookup_options_repr(self):
        """The part of PyTorch's extra_repr (a format string) naming the lookup options that
        differ from their defaults."""
        return changed_options(self, {"max_norm": None, "norm_type": 2,
                                      "scale_grad_by_freq": False})


def _check_pretrained(embeddings):
    if embeddings.dim() != 2:
        raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
    return embeddings.shape


class Embedding(_EmbeddingBase):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``."""

    __constants__ = ["num_embeddings", "embedding_dim", "padding_idx", "max_norm",
                     "norm_type", "scale_grad_by_freq", "sparse"]

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
                         scale_grad_by_freq, _weight, requires_grad=not _freeze,
                         device=device, dtype=dtype,
                         padding_idx_error="Padding_idx must be within num_embeddings")
        self.sparse = sparse

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm,
                           self.norm_type, self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = "{num_embeddings}, {embedding_dim}"
        if self.padding_idx is not None:
            s += ", padding_idx={padding_idx}"
        s += self._lookup_options_repr()
        if self.sparse is not False:
            s += ", sparse=True"
        return s.format(**self.__dict__)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        rows, cols = _check_pretrained(embeddings)
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings,
                   _freeze=freeze, padding_idx=padding_idx, max_norm=max_norm,
                   norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


class EmbeddingBag(_EmbeddingBase):
    """Sums, means or maxes of bags of embeddings, without the per-index intermediate."""

    __constants__ = ["num_embeddings", "embedding_dim", "max_norm", "norm_type",
                     "scale_grad_by_freq", "mode", "sparse", "include_last_offset",
                     "padding_idx"]

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
                         scale_grad_by_freq, _weight, requires_grad=True, device=device,
                         dtype=dtype,
                         padding_idx_error="padding_idx must be within num_embeddings")
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = "{num_embeddings}, {embedding_dim}" + self._lookup_options_repr() + ", mode={mode}"
        if self.padding_idx is not None:
            s += ", padding_idx={padding_idx}"
        return s.format(**{k: repr(v) for k, v in self.__dict__.items()})

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        rows, cols = _check_pretrained(embeddings)
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings,
                  max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
