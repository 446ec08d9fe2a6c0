"""Dropout: ``F.dropout``, ``dropout1d/2d/3d``, ``alpha_dropout``, ``feature_alpha_dropout`` and
``torch.dropout``, ``torch.feature_dropout``, ``torch.alpha_dropout``,
``torch.feature_alpha_dropout`` (with their ``_`` in-place forms).

Every call in training draws ONE key from the default generator (``generator.next_key``) and
passes it to the mask kernel (``dropout_mask``, not differentiable) as an array argument: the
kernel compiles once per (shape, dtype, p, kind) and a compiled training step can lift the
generator state. The result is ``input * mask`` (``input * m + b`` for alpha dropout), so the
gradient is masked by the saved mask, as PyTorch's MulBackward0 (AddBackward0) does.

As in PyTorch: ``p == 0``, ``training=False`` or an empty input return the input itself;
``p == 1`` multiplies by 0; feature dropout zeroes whole channels (dim 1, or dim 0 of an
unbatched input); alpha dropout keeps SELU's mean and variance. Values differ from PyTorch's
(other random stream); the distribution and structure are the same.
"""

from __future__ import annotations

import math
import warnings

import jax.numpy as jnp

from .._core import dtypes, torch_function
from .._core.dispatch import dispatch
from .._core.generator import keep_mask, next_key, wrap
from .._core.kernel import OpDef
from .._core.views import check_inplace
from ._elementwise import category
from ._registry import export
from ._util import type_name

_ALPHA = 1.7580993408473766


def _dropout_factors(input, key, p, lead, alpha):
    """The factors dropout applies: ``m`` (the kept elements' scale, 0 where dropped), and for
    alpha dropout ``(m, b)`` with the result ``input * m + b``. Shaped to broadcast against
    ``input``: ``lead`` is how many leading dims the mask varies over (-1: all; 2: (N, C);
    1: (C,))."""
    dt = input.dtype
    if p == 1:
        return jnp.zeros((), dt)
    if category(input) < dtypes.FLOAT:
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{type_name(input)}")
    if lead < 0:
        shape = input.shape
    else:
        if input.ndim < 2 and lead == 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = input.shape[:lead] + (1,) * (input.ndim - lead)
    keep = keep_mask(wrap(key), 1 - p, shape, dt).astype(dt)
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        return keep * a, (keep - 1) * (_ALPHA * a) + _ALPHA * a * p
    return keep * (1.0 / (1 - p))


# The mask is an op of its own, not part of a differentiable dropout op: the backward of
# ``input * mask`` reads the saved mask (as PyTorch's MulBackward0 does) instead of drawing it
# again from the key, which in eager mode cost a second random draw per dropout per step.
_FACTORS = OpDef("dropout_mask", _dropout_factors, saves=False, differentiable=False)


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _run(input, p, training, inplace, lead, alpha):
    """Dropout of ``input`` (``lead`` as in the body); returns ``input`` itself when inactive."""

    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    factors = dispatch(_FACTORS, (input, next_key(), float(p), lead, bool(alpha) and p != 1),
                       {})
    if inplace:
        check_inplace(input)
        if type(factors) is tuple:
            return input.mul_(factors[0]).add_(factors[1])
        return input.mul_(factors)
    if type(factors) is tuple:
        return input * factors[0] + factors[1]
    return input * factors


@export("dropout", namespace="nn.functional")
@torch_function.overridable("torch.nn.functional.dropout", keywords=True)
def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability ``p`` and scales survivors by ``1 / (1 - p)``."""
    return _run(input, p, training, inplace, -1, False)


@export("alpha_dropout", namespace="nn.functional")
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped elements take SELU's negative saturation value and
    the result is rescaled to keep mean and variance."""
    return _run(input, p, training, inplace, -1, True)


@export("feature_alpha_dropout", namespace="nn.functional")
def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels (dim 1)."""
    return _run(input, p, training, inplace, 2, True)


@export("dropout1d", namespace="nn.functional")
def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of a (C, L) or (N, C, L) input."""
    _check_p(p)
    nd = input.dim()
    if nd not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. "
                           "Note that dropout1d exists to provide channel-wise dropout on "
                           "inputs with 1 spatial dimension, a channel dimension, and an "
                           "optional batch dimension (i.e. 2D or 3D inputs).")
    return _run(input, p, training, inplace, 2 if nd == 3 else 1, False)


def _checked_channel_input(input, p, spatial):
    """``input.dim()`` after dropout2d/dropout3d's checks: ``p``, and the deprecation warning for
    an input that is not ``spatial`` + 1 or + 2 dimensional."""
    _check_p(p)
    nd = input.dim()
    if nd not in (spatial + 1, spatial + 2):
        warnings.warn(f"dropout{spatial}d: Received a {nd}-D input to dropout{spatial}d, which is "
                      "deprecated and will result in an error in a future release. To retain "
                      "the behavior and silence this warning, please use dropout instead. Note "
                      f"that dropout{spatial}d exists to provide channel-wise dropout on inputs "
                      f"with {spatial} spatial dimensions, a channel dimension, and an optional "
                      f"batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
                      stacklevel=3)
    return nd


@export("dropout2d", namespace="nn.functional")
def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of an (N, C, H, W) input (a 3-D input is read as (N, C, L), as
    PyTorch does for now, with its warning)."""
    nd = _checked_channel_input(input, p, 2)
    if nd == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted as "
                      "shape (N, C, L), where C is the channel dim. This behavior will change "
                      "in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
                      "dropout behavior, please switch to using dropout1d instead.",
                      stacklevel=2)
    return _run(input, p, training, inplace, 2, False)


@export("dropout3d", namespace="nn.functional")
def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of a (C, D, H, W) or (N, C, D, H, W) input."""
    nd = _checked_channel_input(input, p, 3)
    return _run(input, p, training, inplace, 2 if nd == 5 else 1, False)


# torch.dropout(input, p, train) & co.: PyTorch's _VF forms (positional ``train``)
def _torch_form(name, lead, alpha, inplace):
    def fn(input, p, train):
        return _run(input, p, train, inplace, lead, alpha)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.{name}(input, p, train)``."
    return export(name)(fn)


torch_dropout = _torch_form("dropout", -1, False, False)
torch_dropout_ = _torch_form("dropout_", -1, False, True)
torch_feature_dropout = _torch_form("feature_dropout", 2, False, False)
torch_feature_dropout_ = _torch_form("feature_dropout_", 2, False, True)
torch_alpha_dropout = _torch_form("alpha_dropout", -1, True, False)
torch_alpha_dropout_ = _torch_form("alpha_dropout_", -1, True, True)
torch_feature_alpha_dropout = _torch_form("feature_alpha_dropout", 2, True, False)
torch_feature_alpha_dropout_ = _torch_form("feature_alpha_dropout_", 2, True, True)
