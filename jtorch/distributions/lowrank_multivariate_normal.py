"""torch.distributions.LowRankMultivariateNormal."""

from __future__ import annotations

from . import _lib as jt, _noise, constraints
from ._forward import forwarded_property
from ._gaussian import gaussian_entropy, gaussian_log_prob, solve_lower
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["LowRankMultivariateNormal"]


class LowRankMultivariateNormal(Distribution):
    """LowRankMultivariateNormal(loc, cov_factor, cov_diag, validate_args=None): the
    Gaussian with covariance ``cov_factor @ cov_factor.mT + diag(cov_diag)`` (``cov_factor``
    of shape ``n x m``, m usually much smaller than n): densities and samples cost
    ``O(n m^2)`` through the Woodbury identity and the ``m x m`` capacitance matrix
    ``I + W^T D^{-1} W``."""

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        n = loc.shape[-1]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if cov_factor.shape[-2] != n:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {n} x m")
        if tuple(cov_diag.shape[-1:]) != (n,):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {loc.shape[-1:]}")
        try:
            batch = jt.broadcast_shapes(tuple(loc.shape[:-1]), tuple(cov_factor.shape[:-2]),
                                        tuple(cov_diag.shape[:-1]))
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from e
        self.loc = loc.expand(*batch, n)
        self.cov_factor = cov_factor.expand(*batch, *cov_factor.shape[-2:])
        self.cov_diag = cov_diag.expand(*batch, n)
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        w_scaled = cov_factor / cov_diag.unsqueeze(-1).sqrt()  # D^{-1/2} W
        eye = jt.eye(cov_factor.shape[-1], dtype=loc.dtype, device=loc.device)
        self._capacitance_tril = jt.linalg.cholesky(w_scaled.mT @ w_scaled + eye)
        super().__init__(batch, loc.shape[-1:], validate_args=validate_args)

    def _full_shape(self, *event):
        return (*self._batch_shape, *event)

    mean = forwarded_property("loc")
    mode = forwarded_property("loc")

    @lazy_property
    def variance(self):
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (w.pow(2).sum(-1) + d).expand(self._full_shape(*self._event_shape))

    @lazy_property
    def scale_tril(self):
        # D^{1/2} chol(I + D^{-1/2} W W^T D^{-1/2}): the factor without forming D + W W^T
        n = self._event_shape[0]
        d_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        w_scaled = self._unbroadcasted_cov_factor / d_sqrt
        inner = w_scaled @ w_scaled.mT + jt.eye(n, dtype=w_scaled.dtype,
                                                device=w_scaled.device)
        return (d_sqrt * jt.linalg.cholesky(inner)).expand(self._full_shape(n, n))

    @lazy_property
    def covariance_matrix(self):
        n = self._event_shape[0]
        w = self._unbroadcasted_cov_factor
        cov = w @ w.mT + self._unbroadcasted_cov_diag.diag_embed()
        return cov.expand(self._full_shape(n, n))

    @lazy_property
    def precision_matrix(self):
        # Woodbury: D^{-1} - D^{-1} W C^{-1} W^T D^{-1}, C = L L^T the capacitance
        n = self._event_shape[0]
        d = self._unbroadcasted_cov_diag
        a = solve_lower(self._capacitance_tril, self._unbroadcasted_cov_factor.mT /
                        d.unsqueeze(-2))
        return (d.reciprocal().diag_embed() - a.mT @ a).expand(self._full_shape(n, n))

    def _half_log_det(self):
        return (self._capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                + 0.5 * self._unbroadcasted_cov_diag.log().sum(-1))

    def _mahalanobis(self, x):
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        x_scaled = x / d
        proj = solve_lower(self._capacitance_tril, (w.mT @ x_scaled.unsqueeze(-1)))
        return (x * x_scaled).sum(-1) - proj.squeeze(-1).pow(2).sum(-1)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        w = self._unbroadcasted_cov_factor
        eps_w = _noise.normal((*shape[:-1], w.shape[-1]), self.loc)
        eps_d = _noise.normal(shape, self.loc)
        return (self.loc + (w @ eps_w.unsqueeze(-1)).squeeze(-1)
                + self._unbroadcasted_cov_diag.sqrt() * eps_d)

    def log_prob(self, value):
        self._validate(value)
        maha = self._mahalanobis(value - self.loc)
        return gaussian_log_prob(self._event_shape[0], maha, self._half_log_det())

    def entropy(self):
        h = gaussian_entropy(self._event_shape[0], self._half_log_det())
        return h.expand(self._batch_shape)
