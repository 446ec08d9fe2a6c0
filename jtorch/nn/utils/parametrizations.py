"""nn.utils.parametrizations: weight_norm, spectral_norm and orthogonal as parametrizations.

Built from jtorch ops, so gradients come from their vjps. ``spectral_norm``'s power-iteration
vectors ``_u``/``_v`` start random as in PyTorch (jtorch's random stream, not PyTorch's).
``orthogonal`` supports the ``matrix_exp`` and ``cayley`` maps; the ``householder`` map
(PyTorch's default for non-square weights) needs ``linalg.householder_product`` and raises
NotImplementedError.
"""

from __future__ import annotations

from enum import Enum, auto

from ... import linalg
from ..._ops.creation import zeros_like
from ..._ops.creation_math import eye as identity
from ..._ops.random_ops import randn
from ..._ops.shape_copy import cat
from ..._ops.typeinfo import finfo
from ..._tensor import Tensor
from ...autograd import no_grad
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def norm_except_dim(v, pow=2, dim=0):
    """``torch.norm_except_dim``: the norm over every dim but ``dim`` (kept as size-1 dims);
    ``dim=-1``: the norm of the whole tensor."""
    if dim == -1:
        return v.norm(pow)
    dims = tuple(i for i in range(v.ndim) if i != dim)
    return v.norm(pow, dim=dims, keepdim=True) if dims else v.abs()


def _weight_norm(v, g, dim=0):
    """``torch._weight_norm``: ``v * (g / ||v||)`` with the norm taken over all dims but
    ``dim``."""
    return v * (g / norm_except_dim(v, 2, dim))


def _normalize(x, eps):
    """``F.normalize(x, dim=0, eps=eps)`` for a vector."""
    return x / x.norm(2, dim=0, keepdim=True).clamp_min(eps)


# ------------------------------------------------------------------ weight_norm
class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as ``g * v / ||v||``: ``parametrizations.<name>``
    holds ``original0`` (g, the magnitudes) and ``original1`` (v, the directions)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                                 unexpected_keys, error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


# ------------------------------------------------------------------ spectral_norm
class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", _normalize(u, self.eps))
            self.register_buffer("_v", _normalize(v, self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(_normalize(weight_mat.mv(self._v), self.eps))
                self._v.copy_(_normalize(weight_mat.H.mv(self._u), self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return _normalize(weight, self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = u.vdot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm, estimated by power iteration (one step
    per training-mode access; buffers ``_u``/``_v`` on the parametrization)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, output_dim(module, dim), eps))
    return module


def output_dim(module, dim):
    """``spectral_norm``'s default ``dim``: the weight's output dimension, 1 for the
    transposed convolutions, else 0."""
    if dim is not None:
        return dim
    return 1 if type(module).__name__ in ("ConvTranspose1d", "ConvTranspose2d",
                                          "ConvTranspose3d") else 0


# ------------------------------------------------------------------ orthogonal
def _is_orthogonal(q):
    n, k = q.size(-2), q.size(-1)
    eye = identity(k, dtype=q.dtype, device=q.device)
    eps = 10.0 * n * finfo(q.dtype).eps
    return (q.mH @ q).allclose(eye, atol=eps)


def _make_orthogonal(a):
    """The Q of A's QR decomposition with R's diagonal made positive (PyTorch's geqrf +
    householder_product construction gives the same Q)."""
    q, r = linalg.qr(a)
    return q * r.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        if orthogonal_map == _OrthMaps.householder:
            raise NotImplementedError("jtorch does not implement torch.nn.utils."
                                      "parametrizations.orthogonal with the householder map "
                                      "(torch.linalg.householder_product) yet")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x):
        n, k = x.size(-2), x.size(-1)
        transposed = n < k
        if transposed:
            x = x.mT
            n, k = k, n
        x = x.tril()
        if n != k:
            x = cat([x, x.new_zeros(n, n - k).expand(*x.shape[:-2], -1, -1)], dim=-1)
        a = x - x.mH
        if self.orthogonal_map == _OrthMaps.matrix_exp:
            q = linalg.matrix_exp(a)
        else:
            eye = identity(n, dtype=a.dtype, device=a.device)
            q = linalg.solve(eye.add(a, alpha=-0.5), eye.add(a, alpha=0.5))
        if n != k:
            q = q[..., :k]
        if self._buffers.get("base") is not None:
            q = self.base @ q
        if transposed:
            q = q.mT
        return q

    def right_inverse(self, q):
        with no_grad():
            if q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape "
                                 f"{self.shape}. Got a tensor of shape {q.shape}.")
            q_init = q
            n, k = q.size(-2), q.size(-1)
            transpose = n < k
            if transpose:
                q = q.mT
                n, k = k, n
            if "base" not in self._buffers:
                raise NotImplementedError("It is not possible to assign to the matrix "
                                          "exponential or the Cayley parametrizations when "
                                          "use_trivialization=False.")
            if n == k:
                q = _make_orthogonal(q) if not _is_orthogonal(q) else q.clone()
            else:
                noise = randn(*(q.size()[:-2] + (n, n - k)), dtype=q.dtype, device=q.device)
                q = _make_orthogonal(cat([q, noise], dim=-1))
            self.base = q
            neg_id = zeros_like(q_init)
            neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrain ``module.<name>`` (a matrix or batch of them) to be orthogonal/unitary."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
