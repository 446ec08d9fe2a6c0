"""torch.distributions.Wishart."""

from __future__ import annotations

import math
import numbers

from . import _lib as jt, _noise, constraints
from ._gaussian import (
    cholesky_inverse,
    half_log_det,
    the_one_matrix,
    unbroadcasted_scale_tril,
)
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .utils import lazy_property

__all__ = ["Wishart"]

class Wishart(ExponentialFamily):
    """Wishart(df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
    validate_args=None): the distribution of ``sum_i x_i x_i^T`` for ``df`` normal vectors
    ``x_i ~ N(0, covariance_matrix)`` (``df`` may be real, greater than p - 1).

    Differences from PyTorch:
        - ``rsample`` redraws singular samples a fixed ``max_try_correction`` times (default
          3; eagerly it stops once none is singular) without PyTorch's warning.
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        name, matrix = the_one_matrix(covariance_matrix, precision_matrix, scale_tril,
                                      AssertionError)
        if matrix.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, numbers.Number):
            df = jt.tensor(df, dtype=matrix.dtype, device=matrix.device)
        p = matrix.shape[-1]
        batch = jt.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(df.shape))
        self.df = df.expand(batch)
        setattr(self, name, matrix.expand(*batch, p, p))
        self._batch_dims = [-(i + 1) for i in range(len(batch))]
        low = p - 1
        if not jt.is_traced(self.df) and bool((self.df <= low).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {low}.")
        super().__init__(batch, (p, p), validate_args=validate_args)
        self._unbroadcasted_scale_tril = unbroadcasted_scale_tril(name, matrix)
        # the squared diagonal of the Bartlett factor: chi-squared with df - i degrees
        self._dist_chi2 = Chi2(self.df.unsqueeze(-1) - jt.arange(p, dtype=matrix.dtype,
                                                                 device=matrix.device))

    @property
    def arg_constraints(self):
        p = self._event_shape[-1]
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(p - 1)}

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new._dist_chi2 = self._dist_chi2.expand((*new.batch_shape, self._event_shape[-1]))
        new._batch_dims = [-(i + 1) for i in range(len(new.batch_shape))]
        return new

    def _full(self, matrix):
        return matrix.expand(*self._batch_shape, *self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._full(self._unbroadcasted_scale_tril)

    @lazy_property
    def covariance_matrix(self):
        lower = self._unbroadcasted_scale_tril
        return self._full(lower @ lower.mT)

    @lazy_property
    def precision_matrix(self):
        return self._full(cholesky_inverse(self._unbroadcasted_scale_tril))

    def _df_matrix(self):
        return self.df.unsqueeze(-1).unsqueeze(-1)

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self._event_shape[-1] - 1
        factor = jt.where(factor <= 0, math.nan, factor)
        return factor.unsqueeze(-1).unsqueeze(-1) * self.covariance_matrix

    @property
    def variance(self):
        v = self.covariance_matrix
        d = v.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (v.pow(2) + d.unsqueeze(-1) * d.unsqueeze(-2))

    def _bartlett_sample(self, sample_shape):
        """L A A^T L^T with A lower triangular: sqrt(chi2(df - i)) on the diagonal, standard
        normals below (Bartlett's decomposition)."""
        shape = self._extended_shape(sample_shape)
        eps = jt.finfo(self.df.dtype).eps
        diag = self._dist_chi2.rsample(sample_shape).sqrt().clamp(min=eps)
        below = _noise.normal(shape, self.df).tril(-1)
        chol = self._unbroadcasted_scale_tril @ (below + diag.diag_embed())
        return chol @ chol.mT

    def rsample(self, sample_shape=(), max_try_correction=None):
        rounds = 3 if max_try_correction is None else max_try_correction
        sample = self._bartlett_sample(sample_shape)
        for _ in range(rounds):
            singular = ~self.support.check(sample)
            if not jt.is_traced(singular) and not bool(singular.any()):
                break
            redraw = self._bartlett_sample(sample_shape)
            sample = jt.where(singular.unsqueeze(-1).unsqueeze(-1), redraw, sample)
        return sample

    def log_prob(self, value):
        self._validate(value)
        nu, p = self.df, self._event_shape[-1]
        lower = self._unbroadcasted_scale_tril
        trace = (cholesky_inverse(lower) * value).sum(-1).sum(-1)  # tr(V^-1 X), V^-1 sym.
        log_det_x = jt.linalg.slogdet(value)[1]
        return (-nu * (p * 0.5 * math.log(2) + half_log_det(lower))
                - (0.5 * nu).mvlgamma(p) + 0.5 * (nu - p - 1) * log_det_x - 0.5 * trace)

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        half_nu = 0.5 * nu
        mv_digamma = (half_nu.unsqueeze(-1) - 0.5 * jt.arange(p, dtype=nu.dtype,
                                                             device=nu.device)).digamma()
        return ((p + 1) * half_log_det(self._unbroadcasted_scale_tril)
                + 0.5 * p * (p + 1) * math.log(2) + half_nu.mvlgamma(p)
                - 0.5 * (nu - p - 1) * mv_digamma.sum(-1) + 0.5 * nu * p)

    @property
    def _natural_params(self):
        return -0.5 * self.precision_matrix, 0.5 * (self.df - self._event_shape[-1] - 1)

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        half_nu = y + 0.5 * (p + 1)
        return -half_nu * jt.linalg.slogdet(-x)[1] + half_nu.mvlgamma(p)
