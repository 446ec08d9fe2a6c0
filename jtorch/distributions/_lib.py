"""The jtorch functions the distributions use, gathered from the modules that define them.

Library code below the top floor may not import the top-level ``jtorch`` package (see
tests/test_layers.py), so the distributions write ``jt.where(...)``, ``jt.zeros(...)`` with
``from . import _lib as jt``: the same functions as ``jtorch.<name>``.
"""

from __future__ import annotations

import jax

from .. import linalg as linalg, special as special
from .._core.dtypes import (
    bool_ as bool,  # noqa: A001
    float32 as float32,
    float64 as float64,
    get_default_dtype as get_default_dtype,
    int64 as int64,
)
from .._core.tensor_base import Size as Size
from .._ops.compare import where as where
from .._ops.creation import (
    as_tensor as as_tensor,
    full as full,
    full_like as full_like,
    ones as ones,
    ones_like as ones_like,
    tensor as tensor,
    zeros as zeros,
    zeros_like as zeros_like,
)
from .._ops.creation_math import arange as arange, eye as eye
from .._ops.random_ops import (
    bernoulli as bernoulli,
    multinomial as multinomial,
    poisson as poisson,
    rand as rand,
    randn as randn,
)
from .._ops.random_sampling import (
    _sample_dirichlet as _sample_dirichlet,
    _standard_gamma as _standard_gamma,
    binomial as binomial,
)
from .._ops.selection import one_hot as one_hot
from .._ops.shape_copy import cat as cat, stack as stack
from .._ops.shape_expand import (
    broadcast_shapes as broadcast_shapes,
    broadcast_tensors as broadcast_tensors,
)
from .._ops.typeinfo import finfo as finfo
from .._tensor import Tensor as Tensor
from ..autograd import enable_grad as enable_grad, grad as grad, no_grad as no_grad


def is_traced(*tensors) -> bool:
    """Whether any of ``tensors`` holds a JAX tracer (inside jtorch.compile / jax.jit), where
    values cannot reach Python and the value checks of ``validate_args`` are skipped."""
    return any(isinstance(t, Tensor) and isinstance(t.__jax_array__(), jax.core.Tracer)
               for t in tensors)
