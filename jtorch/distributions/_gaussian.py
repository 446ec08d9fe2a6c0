"""Linear algebra of Gaussians shared by MultivariateNormal, LowRankMultivariateNormal,
Wishart and their KL divergences: Mahalanobis distances, log-determinants from Cholesky
factors, and precision to Cholesky factor."""

from __future__ import annotations

import math

from . import _lib as jt

_MATRICES = ("covariance_matrix", "precision_matrix", "scale_tril")


def the_one_matrix(covariance_matrix, precision_matrix, scale_tril, error=ValueError):
    """``(name, matrix)`` of the one matrix given among the three ways to specify a
    covariance; ``error`` (PyTorch's type for the class) when not exactly one is given."""
    given = [(k, m) for k, m in zip(_MATRICES, (covariance_matrix, precision_matrix,
                                                scale_tril)) if m is not None]
    if len(given) != 1:
        raise error("Exactly one of covariance_matrix or precision_matrix or scale_tril may "
                    "be specified.")
    return given[0]


def solve_lower(lower, b):
    """``lower^{-1} b`` for lower-triangular ``lower`` (b: a batch of matrices), the batch
    dimensions broadcast."""
    batch = jt.broadcast_shapes(tuple(lower.shape[:-2]), tuple(b.shape[:-2]))
    lower = lower.expand(*batch, *lower.shape[-2:])
    b = b.expand(*batch, *b.shape[-2:])
    return jt.linalg.solve_triangular(lower, b, upper=False)


def mahalanobis(lower, x):
    """``x^T (L L^T)^{-1} x`` over the last dimension of ``x`` for lower-triangular ``L``
    (batch dimensions broadcast)."""
    return solve_lower(lower, x.unsqueeze(-1)).squeeze(-1).pow(2).sum(-1)


def half_log_det(lower):
    """``log det(L L^T) / 2`` for a lower Cholesky factor ``L``."""
    return lower.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def cholesky_inverse(lower):
    """``(L L^T)^{-1}`` from the lower Cholesky factor ``L``."""
    eye = jt.eye(lower.shape[-1], dtype=lower.dtype, device=lower.device)
    inv = solve_lower(lower, eye)
    return inv.mT @ inv


def precision_to_scale_tril(precision):
    """The lower Cholesky factor of ``precision``'s inverse."""
    return jt.linalg.cholesky(cholesky_inverse(jt.linalg.cholesky(precision)))


def unbroadcasted_scale_tril(name, matrix):
    """The lower Cholesky factor of the covariance given as ``name`` (``"scale_tril"``,
    ``"covariance_matrix"`` or ``"precision_matrix"``) = ``matrix``."""
    if name == "scale_tril":
        return matrix
    if name == "covariance_matrix":
        return jt.linalg.cholesky(matrix)
    return precision_to_scale_tril(matrix)


def gaussian_log_prob(n, maha, half_logdet):
    """The log density of an n-dimensional Gaussian at Mahalanobis distance ``maha``."""
    return -0.5 * (n * math.log(2 * math.pi) + maha) - half_logdet


def gaussian_entropy(n, half_logdet):
    """The entropy of an n-dimensional Gaussian with ``log det(cov) / 2 = half_logdet``."""
    return 0.5 * n * (1.0 + math.log(2 * math.pi)) + half_logdet
