"""torch.distributions.LKJCholesky."""

from __future__ import annotations

import math
import numbers

from . import _lib as jt, _noise, constraints
from .beta import Beta
from .distribution import Distribution

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJCholesky(dim, concentration=1.0, validate_args=None): Cholesky factors ``L`` of
    ``dim x dim`` correlation matrices with density proportional to
    ``det(L L^T)^(concentration - 1)`` on the correlation matrix (Lewandowski, Kurowicka and
    Joe, 2009), sampled by the onion method."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        if isinstance(concentration, numbers.Number):
            concentration = jt.tensor(float(concentration))
        self.concentration = concentration
        self._beta = self._onion_betas(concentration)
        super().__init__(concentration.shape, (dim, dim), validate_args=validate_args)

    def _onion_betas(self, eta):
        """Row k >= 1 of the factor has squared norm of its off-diagonal part
        ~ Beta(k / 2, eta + (dim - 1 - k) / 2); row 0 (no off-diagonal part) gets a dummy."""
        k = jt.arange(self.dim, dtype=eta.dtype, device=eta.device)
        first = jt.where(k == 0, 0.5, 0.5 * k)
        second = eta.unsqueeze(-1) + 0.5 * (self.dim - 1 - k)
        return Beta(first, second, validate_args=False)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new._beta = self._onion_betas(new.concentration)
        return new

    def sample(self, sample_shape=()):
        with jt.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)  # (..., dim, 1)
            shape = self._extended_shape(sample_shape)
            u = _noise.normal(shape, self.concentration).tril(-1)
            row = jt.arange(self.dim, device=u.device).unsqueeze(-1)
            norms = u.norm(dim=-1, keepdim=True)
            sphere = jt.where(row == 0, 0.0, u / jt.where(row == 0, 1.0, norms))
            w = y.sqrt() * sphere
            tiny = jt.finfo(w.dtype).tiny
            diag = (1 - w.pow(2).sum(-1)).clamp(min=tiny).sqrt()
            return w + diag.diag_embed()

    def log_prob(self, value):
        self._validate(value)
        d, eta = self.dim, self.concentration
        diag = value.diagonal(dim1=-2, dim2=-1)[..., 1:]
        i = jt.arange(2, d + 1, dtype=eta.dtype, device=eta.device)
        powers = 2 * (eta.unsqueeze(-1) - 1) + d - i
        unnormalized = (powers * diag.log()).sum(-1)
        # log of the normaliser: sum over k = 1..d-1 of the Beta(k/2, alpha - k/2) and
        # sphere factors, alpha = eta + (d - 1) / 2
        alpha = eta + 0.5 * (d - 1)
        k = jt.arange(1, d, dtype=eta.dtype, device=eta.device)
        log_norm = (0.5 * k * math.log(math.pi) + (alpha.unsqueeze(-1) - 0.5 * k).lgamma()
                    - alpha.lgamma().unsqueeze(-1)).sum(-1)
        return unnormalized - log_norm
