"""``torch.gradient``: derivatives of sampled values by finite differences, NumPy's scheme:
second-order central differences inside (for uneven coordinates, the weighted three-point
formula), first- or second-order one-sided differences at the two edges. Written with tensor
ops (slices, arithmetic and ``cat``), so autograd records it as PyTorch does (``CatBackward0``).
"""

from __future__ import annotations

import numbers

from .._core import dtypes
from .._core.tensor_base import TensorBase
from ._registry import export
from ._util import wrap_dim
from .shape import flatten as _shape  # noqa: F401 - shape before shape_copy (a cycle)
from .shape_copy import cat
from .shape_slice import narrow


def _dims(input, dim):
    if dim is None:
        return list(range(input.ndim))
    dims = [dim] if isinstance(dim, numbers.Integral) else list(dim)
    return [wrap_dim(d, input.ndim) for d in dims]


def _spacings(input, spacing, dims, dim_given):
    if spacing is None or isinstance(spacing, numbers.Number):
        return [1.0 if spacing is None else spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        if dim_given:
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or "
                               "it's spacing and dim arguments to have the same length, but "
                               f"got a spacing argument of length {len(spacing)} and a dim "
                               f"argument of length {len(dims)}.")
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a "
                           f"list of length equal to 'self.dim() = {input.ndim}', since dim "
                           f"argument was not given, but got a list of length {len(spacing)}")
    return spacing


def _uniform(f, d, h, edge_order):
    n = f.shape[d]
    inner = (narrow(f, d, 2, n - 2) - narrow(f, d, 0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (narrow(f, d, 1, 1) - narrow(f, d, 0, 1)) / h
        last = (narrow(f, d, n - 1, 1) - narrow(f, d, n - 2, 1)) / h
    else:
        first = (-1.5 * narrow(f, d, 0, 1) + 2 * narrow(f, d, 1, 1) - 0.5 * narrow(f, d, 2, 1)) / h
        last = (0.5 * narrow(f, d, n - 3, 1) - 2 * narrow(f, d, n - 2, 1)
                + 1.5 * narrow(f, d, n - 1, 1)) / h
    return cat([first, inner, last], d)


def _along(x, d, ndim):
    """Coordinates (1-D) shaped to broadcast along dim ``d``."""
    return x.reshape([-1 if i == d else 1 for i in range(ndim)])


def _uneven(f, d, x, edge_order):
    n, nd = f.shape[d], f.ndim
    dx = x[1:] - x[:-1]
    dx1, dx2 = _along(dx[:-1], d, nd), _along(dx[1:], d, nd)
    a = -dx2 / (dx1 * (dx1 + dx2))
    b = (dx2 - dx1) / (dx1 * dx2)
    c = dx1 / (dx2 * (dx1 + dx2))
    inner = a * narrow(f, d, 0, n - 2) + b * narrow(f, d, 1, n - 2) + c * narrow(f, d, 2, n - 2)
    if edge_order == 1:
        first = (narrow(f, d, 1, 1) - narrow(f, d, 0, 1)) / dx[0]
        last = (narrow(f, d, n - 1, 1) - narrow(f, d, n - 2, 1)) / dx[-1]
    else:
        h1, h2 = dx[0], dx[1]
        first = (-(2 * h1 + h2) / (h1 * (h1 + h2)) * narrow(f, d, 0, 1)
                 + (h1 + h2) / (h1 * h2) * narrow(f, d, 1, 1)
                 - h1 / (h2 * (h1 + h2)) * narrow(f, d, 2, 1))
        h1, h2 = dx[-2], dx[-1]
        last = (h2 / (h1 * (h1 + h2)) * narrow(f, d, n - 3, 1)
                - (h2 + h1) / (h1 * h2) * narrow(f, d, n - 2, 1)
                + (2 * h2 + h1) / (h2 * (h1 + h2)) * narrow(f, d, n - 1, 1))
    return cat([first, inner, last], d)


@export("gradient")
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative of ``input`` along each dim of ``dim`` (default all), one tensor a dim;
    ``spacing``: a number, one number a dim, or one 1-D coordinates tensor a dim."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = _dims(input, dim)
    spacings = _spacings(input, spacing, dims, dim is not None)
    if any(input.shape[d] < edge_order + 1 for d in dims):
        raise RuntimeError("torch.gradient expected each dimension size to be at least "
                           "edge_order+1")
    if input.dtype.category < dtypes.FLOAT:
        input = input.to(dtypes.get_default_dtype())
    out = []
    for d, h in zip(dims, spacings):
        if isinstance(h, TensorBase):
            out.append(_uneven(input, d, h.to(input.dtype) if h.dtype.category < dtypes.FLOAT
                               else h, edge_order))
        else:
            out.append(_uniform(input, d, h, edge_order))
    return tuple(out)
