"""torch.distributions.utils: broadcasting parameters, probabilities <-> logits, the lazy
attribute the distributions cache derived parameters with, and the lower-triangle <-> vector
conversions.

Differences from PyTorch:
    - ``vec_to_tril_matrix`` raises ValueError for a vector whose length is no triangular
      number (PyTorch: an indexing RuntimeError).
"""

from __future__ import annotations

import math
import numbers
from typing import TypeVar

import numpy as np

from . import _lib as jt

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits",
           "lazy_property", "tril_matrix_to_vec", "vec_to_tril_matrix"]

T = TypeVar("T", contravariant=True)
R = TypeVar("R", covariant=True)


def broadcast_all(*values):
    """The ``values`` (tensors and Python numbers) as tensors of one broadcast shape.

    Numbers become tensors of the first tensor's dtype and device (the default dtype when
    there is no tensor).

    Raises:
        ValueError: a value is neither a number nor a Tensor.
    """
    if not all(isinstance(v, (numbers.Number, jt.Tensor)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or "
                         "objects implementing __torch_function__.")
    like = next((v for v in values if isinstance(v, jt.Tensor)), None)
    if like is None:
        opts = {"dtype": jt.get_default_dtype()}
    else:
        opts = {"dtype": like.dtype, "device": like.device}
    tensors = [v if isinstance(v, jt.Tensor) else jt.tensor(v, **opts) for v in values]
    return tuple(jt.broadcast_tensors(*tensors))


def clamp_probs(probs):
    """``probs`` clamped into [eps, 1 - eps] (eps: the dtype's machine epsilon)."""
    eps = jt.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits of probabilities (log-odds when ``is_binary``), clamped away from 0 and 1."""
    p = clamp_probs(probs)
    return p.log() - (-p).log1p() if is_binary else p.log()


def logits_to_probs(logits, is_binary=False):
    """Probabilities of logits: the sigmoid when ``is_binary``, else softmax over the last
    dimension."""
    return logits.sigmoid() if is_binary else logits.softmax(-1)


class lazy_property:
    """A property computed on first access and then stored on the instance (later reads find
    the stored value; ``expand`` and ``__repr__`` see it in ``__dict__``). It is computed with
    grad enabled, as PyTorch's, so a first access inside ``no_grad`` (``Categorical.sample``
    reads ``probs`` there) still caches a value that carries the parameters' gradient."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with jt.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def _tril_indices(n, diag):
    rows, cols = np.tril_indices(n, diag)
    return rows.tolist(), cols.tolist()


def tril_matrix_to_vec(mat, diag=0):
    """The entries of ``mat``'s lower triangle (below diagonal ``diag``), row by row."""
    n = mat.shape[-1]
    rows, cols = _tril_indices(n, diag)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec, diag=0):
    """The square lower-triangular matrix (zeros above diagonal ``diag``) whose triangle,
    row by row, is ``vec``'s last dimension."""
    m = vec.shape[-1]
    # the n whose triangle (below diagonal diag) holds m entries
    b = 1 + 2 * diag
    n = round((-b + math.sqrt(b * b + 8 * m + 4 * abs(diag) * (diag + 1))) / 2)
    rows, cols = _tril_indices(n, diag)
    if len(rows) != m:
        raise ValueError(f"The size of last dimension is {m} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    # gather from [0, vec...]: entry k of the triangle reads vec[k], the rest the 0
    source = np.zeros(n * n, np.int64)
    source[np.asarray(rows, np.int64) * n + np.asarray(cols, np.int64)] = np.arange(1, m + 1)
    padded = jt.cat([vec.new_zeros((*vec.shape[:-1], 1)), vec], -1)
    return padded[..., source.tolist()].reshape(*vec.shape[:-1], n, n)


def _standard_normal(shape, dtype, device):
    """Standard normal draws of ``shape`` (what PyTorch's samplers and GPyTorch's draw eps
    with): a new tensor filled by ``normal_()``, as in PyTorch."""
    return jt.zeros(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """``value`` summed over its ``dim`` rightmost dimensions (itself when ``dim`` is 0)."""
    if dim == 0:
        return value
    return value.reshape(*value.shape[:value.dim() - dim], -1).sum(-1)
