"""``torch.svd_lowrank`` and ``torch.pca_lowrank``: randomized low-rank SVD and PCA (Halko,
Martinsson and Tropp 2009, algorithms 4.4 and 5.1), as PyTorch's ``torch._lowrank`` computes
them: a Gaussian test matrix, ``niter`` power iterations each re-orthonormalized by a reduced QR,
then the SVD of the projected matrix.

Composed of jtorch ops (matmul, linalg.qr, linalg.svd, randn), so gradients are those of the
same composition in PyTorch, and it runs under jtorch.compile.

Differences from PyTorch:
    - The test matrix is drawn from jtorch's generator, not PyTorch's, so approximate results
      (a matrix of rank above ``q``) differ between the two as two PyTorch runs with different
      seeds do. For a matrix of rank at most ``q`` both recover the exact singular values and
      subspaces (singular vectors up to sign), and the gradient of the singular values.
    - Sparse inputs (PyTorch's ``M`` from a sparse mean) are not supported: NotImplementedError.
"""

from __future__ import annotations

from .._core import dtypes
from ._registry import export
from .linalg import matmul
from .linalg_decomp import linalg_qr, linalg_svd
from .random_ops import randn


def _floating(A):
    """The test matrix's dtype: A's own if it is complex, float16, float32 or float64, else
    float32 (PyTorch's ``_linalg_utils.get_floating_dtype``)."""
    if A.dtype.is_complex or A.dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
        return A.dtype
    return dtypes.float32


def _minus(B, X, M):
    """``(B - M) @ X`` without forming ``B - M``; plain ``B @ X`` when there is no ``M``."""
    out = matmul(B, X)
    return out if M is None else out - matmul(M, X)


def get_approximate_basis(A, q, niter=2, M=None):
    """An orthonormal ``(m, q)`` basis ``Q`` whose span approximates the range of ``A - M``
    (Halko et al.'s algorithm 4.4: ``niter`` power iterations, each orthonormalized)."""
    niter = 2 if niter is None else niter
    R = randn(A.shape[-1], q, dtype=_floating(A), device=A.device)
    AH, MH = A.mH, None if M is None else M.mH
    Q = linalg_qr(_minus(A, R, M)).Q
    for _ in range(niter):
        Q = linalg_qr(_minus(AH, Q, MH)).Q
        Q = linalg_qr(_minus(A, Q, M)).Q
    return Q


def _svd_lowrank(A, q=6, niter=2, M=None):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    wide = m < n
    if wide:   # the algorithm assumes a tall matrix: factor the adjoint
        A = A.mH
        M = None if M is None else M.mH
    Q = get_approximate_basis(A, q, niter=niter, M=M)
    B = matmul(Q.mH, A)
    if M is not None:
        B = B - matmul(Q.mH, M)
    U, S, Vh = linalg_svd(B, full_matrices=False)
    V, U = Vh.mH, matmul(Q, U)
    return (V, S, U) if wide else (U, S, V)


@export("svd_lowrank")
def svd_lowrank(A, q=6, niter=2, M=None):
    """``(U, S, V)`` with ``A - M ~= U diag(S) V^H``: ``q`` (default 6) approximate singular
    triplets from ``niter`` (default 2) power iterations. Batched over leading dimensions."""
    if A.is_sparse or (M is not None and M.is_sparse):
        raise NotImplementedError("torch.svd_lowrank of a sparse tensor is not implemented in "
                                  "jtorch")
    return _svd_lowrank(A, q=q, niter=niter, M=M)


@export("pca_lowrank")
def pca_lowrank(A, q=None, center=True, niter=2):
    """``(U, S, V)``: the principal directions ``V`` and singular values ``S`` of ``A`` with
    its column means subtracted (``center=True``); ``q`` defaults to ``min(6, m, n)``."""
    if A.is_sparse:
        raise NotImplementedError("torch.pca_lowrank of a sparse tensor is not implemented in "
                                  "jtorch")
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter=niter)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter)
