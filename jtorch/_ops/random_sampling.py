"""Samplers that torch.distributions builds on: ``torch._standard_gamma`` (differentiable with
respect to the concentration), ``torch._standard_gamma_grad``, ``torch._sample_dirichlet`` and
``torch.binomial``.

Each call draws ONE key from its generator (``generator=``, default the default generator), as
the ops of ``random_ops.py`` do, and the key goes to the jitted kernel as an ordinary array.

Gradients: ``_standard_gamma`` is reparameterised implicitly (d sample / d alpha =
-(dF/dalpha) / (dF/dx) at the sample, F the Gamma CDF), which is JAX's ``jax.random.gamma``
derivative and what PyTorch's ``_standard_gamma_grad`` computes.

Differences from PyTorch:
    - The numbers differ (JAX's threefry streams and samplers, not PyTorch's).
    - ``_sample_dirichlet`` is differentiable (normalised implicitly reparameterised Gamma
      samples: an unbiased pathwise gradient, not PyTorch's ``_dirichlet_grad`` formula;
      PyTorch's op itself has no derivative, its Dirichlet.rsample adds one).
    - ``binomial`` draws by JAX's sampler; a count that is not a whole number is rounded down.
    - ``torch._dirichlet_grad`` is a stand-in that raises NotImplementedError.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from .._core.errors import missing_function
from .._core.generator import next_key, wrap
from ._elementwise import broadcast_check, not_implemented_for
from ._registry import export, op
from ._util import check_broadcast, type_name
from .nn_pad import pad

# Samplers with rejection loops (gamma, binomial) take XLA seconds to compile per shape. The
# public functions therefore sample a flat batch padded to a power of two (at least 64
# elements): every shape up to a bucket's size shares one compiled kernel. Above this size
# the exact shape is sampled (padding would cost more than compiling).
_MAX_BUCKET = 1 << 20


def _bucket(n):
    return max(64, 1 << max(n - 1, 0).bit_length())


def _bucketed(op_fn, key, tensors, fills, event_dims=0):
    """``op_fn(key, *tensors)`` computed on the tensors broadcast, flattened to rows (keeping
    ``event_dims`` trailing dimensions), padded with ``fills`` to a bucket of rows, then cut
    back and reshaped. Gradients flow through the padding and the cut."""
    shape = ()
    for t in tensors:
        check_broadcast(shape, tuple(t.shape))
        shape = tuple(jnp.broadcast_shapes(shape, tuple(t.shape)))
    event = shape[len(shape) - event_dims:]
    rows = math.prod(shape[:len(shape) - event_dims])
    bucket = _bucket(rows)
    if bucket > _MAX_BUCKET or rows == 0:
        return op_fn(key, *tensors)
    flat = [t.expand(shape).reshape(rows, *event) for t in tensors]
    widths = [0, 0] * event_dims + [0, bucket - rows]
    padded = [pad(t, widths, value=fill) for t, fill in zip(flat, fills)]
    return op_fn(key, *padded)[:rows].reshape(shape)


def _need_float(kernel, x):
    if not jnp.issubdtype(jnp.result_type(x), jnp.floating):
        raise not_implemented_for(kernel, x)


@op("_standard_gamma_op", method=False, out=False, tensors=("alpha",),
    grad_name="StandardGammaBackward0")
def _standard_gamma_op(key, alpha):
    _need_float("gamma_cpu", alpha)
    return jax.random.gamma(wrap(key), alpha, alpha.shape, alpha.dtype)


@export("_standard_gamma")
def _standard_gamma(input, generator=None):
    """Samples of Gamma(input, 1), with the implicit reparameterisation gradient."""
    return _bucketed(_standard_gamma_op, next_key(generator), [input], [1.0])


@op("_standard_gamma_grad", public=True, method=False, out=False, tensors=("input", "output"),
    promote="common", differentiable=False)
def _standard_gamma_grad(input, output):
    """d sample / d alpha of Gamma(alpha, 1) samples ``output`` at concentrations ``input``."""
    return jax.lax.random_gamma_grad(input, output)


@op("_sample_dirichlet_op", method=False, out=False, tensors=("alpha",),
    grad_name="SampleDirichletBackward0")
def _sample_dirichlet_op(key, alpha):
    _need_float("dirichlet", alpha)
    g = jax.random.gamma(wrap(key), alpha, alpha.shape, alpha.dtype)
    tiny = jnp.finfo(alpha.dtype).tiny
    g = jnp.maximum(g, tiny)  # PyTorch clamps the gamma draws away from 0 before normalising
    return g / g.sum(-1, keepdims=True)


@export("_sample_dirichlet")
def _sample_dirichlet(input, generator=None):
    """Dirichlet samples with concentrations ``input`` (the last dimension is the simplex)."""
    return _bucketed(_sample_dirichlet_op, next_key(generator), [input], [1.0], event_dims=1)


@op("_binomial_op", method=False, out=False, tensors=("count", "prob"), saves=False,
    differentiable=False)
def _binomial_op(key, count, prob):
    if not jnp.issubdtype(count.dtype, jnp.floating):
        raise ValueError("binomial only supports floating-point dtypes for count, got: "
                         f"{type_name(count)}")
    shape = broadcast_check(count, prob)
    n = jnp.floor(jnp.broadcast_to(count, shape))
    p = jnp.broadcast_to(prob, shape).astype(count.dtype)
    return jax.random.binomial(wrap(key), n, p, shape, count.dtype)


@export("binomial")
def binomial(count, prob, generator=None):
    """Samples of Binomial(count, prob) (``count``'s dtype; no gradient)."""
    return _bucketed(_binomial_op, next_key(generator), [count, prob], [0.0, 0.5])


_dirichlet_grad = export("_dirichlet_grad")(missing_function("torch._dirichlet_grad"))
