"""Transforms of vectors and matrices: Softmax, StickBreaking (onto the simplex),
LowerCholesky, PositiveDefinite and CorrCholesky (onto Cholesky factors and positive definite
matrices)."""

from __future__ import annotations

import math

from . import _lib as jt, constraints
from ._math import atanh, clipped_sigmoid, softplus
from ._transforms_elementwise import _Parameterless
from .utils import tril_matrix_to_vec, vec_to_tril_matrix


def _need_dims(shape, n):
    if len(shape) < n:
        raise ValueError("Too few dimensions on input")


def _shift_right(x, fill=1.0):
    """``x`` along its last dimension moved one step right, ``fill`` entering at the left
    (the last entry drops out)."""
    first = jt.full((*x.shape[:-1], 1), fill, dtype=x.dtype, device=x.device)
    return jt.cat([first, x[..., :-1]], -1)


class SoftmaxTransform(_Parameterless):
    """``y = softmax(x)`` over the last dimension (not injective: the inverse is
    ``log(y)``, one of the preimages)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        e = (x - x.amax(-1, keepdim=True)).exp()
        return e / e.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        _need_dims(shape, 1)
        return shape

    inverse_shape = forward_shape


def _stick_offsets(x):
    """``log(K - k)`` for the k-th of K = x.shape[-1] coordinates: centres the stick
    fractions so that x = 0 maps to the simplex's centre."""
    k = x.shape[-1]
    return jt.arange(k, 0, -1, dtype=x.dtype, device=x.device).log()


class StickBreakingTransform(_Parameterless):
    """Unconstrained K-vectors onto the (K + 1)-simplex by stick breaking: coordinate k
    takes the fraction ``sigmoid(x_k - log(K - k))`` of what the earlier ones left."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _call(self, x):
        z = clipped_sigmoid(x - _stick_offsets(x))
        left = (1 - z).cumprod(-1)  # what remains after each break
        ones = jt.ones((*x.shape[:-1], 1), dtype=x.dtype, device=x.device)
        return jt.cat([z, ones], -1) * jt.cat([ones, left], -1)

    def _inverse(self, y):
        head = y[..., :-1]
        remaining = (1 - head.cumsum(-1)).clamp(min=jt.finfo(y.dtype).tiny)
        return head.log() - remaining.log() + _stick_offsets(head)

    def log_abs_det_jacobian(self, x, y):
        # dy_k/dx_k = y_k (1 - z_k) and the Jacobian is triangular
        t = x - _stick_offsets(x)
        return (-t - softplus(-t) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        _need_dims(shape, 1)
        return (*shape[:-1], shape[-1] + 1)

    def inverse_shape(self, shape):
        _need_dims(shape, 1)
        return (*shape[:-1], shape[-1] - 1)


def _tril_with_diagonal(x, diagonal):
    return x.tril(-1) + diagonal.diag_embed()


class LowerCholeskyTransform(_Parameterless):
    """Square matrices onto lower-triangular matrices with a positive diagonal: keeps the
    strictly lower triangle and exponentiates the diagonal."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return _tril_with_diagonal(x, x.diagonal(dim1=-2, dim2=-1).exp())

    def _inverse(self, y):
        return _tril_with_diagonal(y, y.diagonal(dim1=-2, dim2=-1).log())


class PositiveDefiniteTransform(_Parameterless):
    """Square matrices onto positive definite ones: ``L L^T`` for ``L`` the
    LowerCholeskyTransform of the input."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(jt.linalg.cholesky(y))


class CorrCholeskyTransform(_Parameterless):
    """Unconstrained vectors of length D (D - 1) / 2 onto Cholesky factors of D x D
    correlation matrices: ``tanh`` makes partial correlations in (-1, 1), which fill the
    strict lower triangle row by row, each row scaled by the stick left so that its norm is 1.
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        eps = jt.finfo(x.dtype).eps
        r = vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # row i, column j: r_ij times prod_{k<j} sqrt(1 - r_ik^2); the diagonal gets the rest
        stick = _shift_right((1 - r.pow(2)).sqrt().cumprod(-1))
        return (r + jt.eye(r.shape[-1], dtype=x.dtype, device=x.device)) * stick

    def _inverse(self, y):
        left = _shift_right(1 - y.pow(2).cumsum(-1))
        partial = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return atanh(partial)

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        # the stick scaling: sum over i > j >= 1 of 0.5 log(1 - sum_{k<j} y_ik^2); tanh's
        # derivative: 1 - tanh(x)^2
        left = tril_matrix_to_vec(1 - y.pow(2).cumsum(-1), diag=-2)
        tanh_part = 2 * (math.log(2) - x - softplus(-2 * x))
        return 0.5 * left.log().sum(-1) + tanh_part.sum(-1)

    def forward_shape(self, shape):
        _need_dims(shape, 1)
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattend lower-diagonal number")
        return (*shape[:-1], d, d)

    def inverse_shape(self, shape):
        _need_dims(shape, 2)
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return (*shape[:-2], d * (d - 1) // 2)
