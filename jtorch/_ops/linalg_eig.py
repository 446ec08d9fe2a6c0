"""``torch.linalg.eig`` and ``eigvals``: eigen-decompositions of general square matrices by
LAPACK's geev (``jax.lax.linalg.eig``, CPU only in JAX), the same routine as PyTorch's: the same
eigenvalues in the same order and eigenvectors of unit norm, each unique up to its phase, which
another LAPACK build may choose differently (a sign, for real ones). Results are complex.
Gradients are JAX's; for the eigenvectors (``enable_eigvec_derivs``) they assume distinct
eigenvalues, as PyTorch's backward does. PyTorch also checks at backward that the loss does not
depend on the eigenvectors' arbitrary phase and raises otherwise; jtorch cannot check a value
there, and returns the gradient for geev's phase."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ._registry import op
from ._util import type_name
from .linalg_decomp import _LA, _LOW, _check_square


def _check_eig_input(A, fn):
    _check_square(A, fn)
    if A.dtype in _LOW:
        raise NotImplementedError(f"\"linalg_eig_out_cpu\" not implemented for '{type_name(A)}'")
    if not jnp.issubdtype(A.dtype, jnp.inexact):
        raise RuntimeError(f"Unknown Complex ScalarType for {type_name(A)}")


@op("linalg.eig", returns=("eigenvalues", "eigenvectors"), grad_name="LinalgEigBackward0",
    **_LA)
def eig(A):
    _check_eig_input(A, "linalg.eig")
    w, v = jax.lax.linalg.eig(A, compute_left_eigenvectors=False, enable_eigvec_derivs=True)
    return w, v


@op("linalg.eigvals", grad_name="LinalgEigBackward0", **_LA)
def eigvals(A):
    _check_eig_input(A, "linalg.eigvals")
    return jax.lax.linalg.eig(A, compute_left_eigenvectors=False,
                              compute_right_eigenvectors=False)[0]
