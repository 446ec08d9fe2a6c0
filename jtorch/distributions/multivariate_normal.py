"""torch.distributions.MultivariateNormal."""

from __future__ import annotations

from . import _lib as jt, _noise, constraints
from ._forward import forwarded_property
from ._gaussian import (
    cholesky_inverse,
    gaussian_entropy,
    gaussian_log_prob,
    half_log_det,
    mahalanobis,
    precision_to_scale_tril as _precision_to_scale_tril,  # noqa: F401  (PyTorch's private helper)
    the_one_matrix,
    unbroadcasted_scale_tril,
)
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["MultivariateNormal"]

class MultivariateNormal(Distribution):
    """MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None,
    scale_tril=None, validate_args=None): the Gaussian with mean vector ``loc`` and a
    covariance given by exactly one of: the covariance matrix, its inverse (precision) or
    its lower Cholesky factor ``scale_tril`` (the cheapest).

    Args:
        loc (Tensor): the mean, shape ``batch_shape + (n,)``.
        covariance_matrix (Tensor): a positive-definite covariance.
        precision_matrix (Tensor): a positive-definite inverse covariance.
        scale_tril (Tensor): a lower-triangular Cholesky factor of the covariance.
        validate_args (bool, optional): check the arguments (and values) against the
            constraints; default ``Distribution``'s setting.
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        name, matrix = the_one_matrix(covariance_matrix, precision_matrix, scale_tril)
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if matrix.dim() < 2:
            what = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{what} must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        batch = jt.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        setattr(self, name, matrix.expand(*batch, -1, -1))
        self.loc = loc.expand(*batch, -1)
        super().__init__(batch, loc.shape[-1:], validate_args=validate_args)
        self._unbroadcasted_scale_tril = unbroadcasted_scale_tril(name, matrix)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(*self._batch_shape, *self._event_shape,
                                                     *self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        lower = self._unbroadcasted_scale_tril
        return (lower @ lower.mT).expand(*self._batch_shape, *self._event_shape,
                                         *self._event_shape)

    @lazy_property
    def precision_matrix(self):
        lower = self._unbroadcasted_scale_tril
        return cholesky_inverse(lower).expand(*self._batch_shape, *self._event_shape,
                                                 *self._event_shape)

    mean = forwarded_property("loc")
    mode = forwarded_property("loc")

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(*self._batch_shape,
                                                                    *self._event_shape)

    def rsample(self, sample_shape=()):
        eps = _noise.normal(self._extended_shape(sample_shape), self.loc)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        self._validate(value)
        lower = self._unbroadcasted_scale_tril
        maha = mahalanobis(lower, value - self.loc)
        return gaussian_log_prob(self._event_shape[0], maha, half_log_det(lower))

    def entropy(self):
        h = gaussian_entropy(self._event_shape[0], half_log_det(self._unbroadcasted_scale_tril))
        return h.expand(self._batch_shape)
