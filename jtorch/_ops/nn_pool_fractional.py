"""Fractional max pooling (Graham, 2014): ``F.fractional_max_pool2d``/``3d`` and their
``_with_indices`` forms.

Each (sample, channel) plane has its own pseudo-random windows: one number u in [0, 1) per
spatial dim (``_random_samples``, drawn from jtorch's generator when not given) places the
windows' starts at PyTorch's ``int((i + u) * alpha) - int(u * alpha)``, ``alpha = (L - k) /
(out - 1)``, computed in the input's dtype, the last window ending at the input's end. The
starts are values, not shapes, so the windows are gathered inside the kernel (it runs under a
trace); the maximum in each window is PyTorch's choice (nn_pool_windows.first_max) and the
gradient goes to it.
"""

from __future__ import annotations

import jax.numpy as jnp

from ._registry import export, op
from ._util import type_name
from .nn_pool_windows import first_max, flat_indices, window_axis
from .random_ops import rand

# the spatial dims' names in PyTorch's errors, and which random sample places each dim's
# windows (2-D: samples[..., 0] for the width, [..., 1] for the height)
_DIMS = {2: ("height", "width"), 3: ("time", "height", "width")}
_SAMPLE_OF_DIM = {2: (1, 0), 3: (0, 1, 2)}


def _int_tuple(name, what, v, n):
    if isinstance(v, int):
        return (v,) * n
    v = tuple(v)
    if len(v) != n:
        raise RuntimeError(f"{name}: {what} must either be a single Int or tuple of Ints")
    return v


def _starts(sample, size, out, k, dtype):
    """The windows' starts along one dim for each plane's sample: ``(*sample.shape, out)``."""
    last = jnp.full(sample.shape + (min(out, 1),), size - k, jnp.int64)
    if out <= 1:
        return last
    alpha = jnp.asarray(size - k, dtype) / jnp.asarray(out - 1, dtype)
    i = jnp.arange(out - 1).astype(dtype)
    u = sample[..., None]
    starts = ((i + u) * alpha).astype(jnp.int64) - (u * alpha).astype(jnp.int64)
    return jnp.concatenate([starts, last], axis=-1)


def _fractional_max_pool(n, input, kernel_size, output_size, samples, indices):
    name = f"fractional_max_pool{n}d"
    who = "fractional_max_pool2d()" if n == 2 else "fractional_max_pool3d_out()"
    ks = _int_tuple(name, "kernel_size", kernel_size, n)
    outs = _int_tuple(name, "output_size", output_size, n)
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{who}: Expected {n + 1}D or {n + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    batched = input.ndim == n + 2
    x = input if batched else input[None]
    for d in range(1 if batched else 0, input.ndim):
        if input.shape[d] == 0:
            raise RuntimeError(f"{who}: Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{list(input.shape)} with dimension {d} "
                               "being empty.")
    if samples.dtype != x.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if not jnp.issubdtype(x.dtype, jnp.floating):
        raise NotImplementedError(f"\"{name}_out_frame\" not implemented for '{type_name(x)}'")
    if samples.shape[0] < x.shape[0]:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != x.shape[1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got "
                           f"{samples.shape[2]}.")
    spatial = x.shape[2:]
    for dim, size, k, o in zip(_DIMS[n], spatial, ks, outs):   # 3-D: one element to spare
        if o + k - 1 > size - (n == 3):
            raise RuntimeError(f"{who}: pool {dim} {k} too large relative to input {dim} {size}")
    samples = samples[:x.shape[0]]
    win, coords = x, []
    for i, (size, k, o) in enumerate(zip(spatial, ks, outs)):
        starts = _starts(samples[..., _SAMPLE_OF_DIM[n][i]], size, o, k, x.dtype)   # (N, C, o)
        pos = (starts[..., None] + jnp.arange(k)).reshape(starts.shape[:2] + (o * k,))
        shape = [1] * win.ndim
        shape[:2], shape[2 + i] = list(pos.shape[:2]), o * k
        win = jnp.take_along_axis(win, pos.reshape(shape), axis=2 + i)
        coords.append(starts.reshape(starts.shape[:2] + tuple(
            o if j == i else 1 for j in range(n))))
    split = x.shape[:2] + sum(((o, k) for o, k in zip(outs, ks)), ())
    val, am = first_max(window_axis(win.reshape(split)), indices)
    if not indices:
        return val if batched else val[0]
    flat = flat_indices(am, spatial, ks, lambda i, o, off: coords[i] + off)
    return (val, flat) if batched else (val[0], flat[0])


def _fractional_op(n):
    """``fractional_max_pool{n}d`` as an op (the name autocast's policy knows); its functionals
    choose the output size and the samples."""
    @op(f"fractional_max_pool{n}d", namespace=None, method=False, out=False,
        tensors=("input", "_random_samples"), nondiff=("_random_samples",),
        grad_name=f"FractionalMaxPool{n}DBackward0")
    def pool(input, kernel_size, output_size, _random_samples, return_indices=True):
        return _fractional_max_pool(n, input, kernel_size, output_size, _random_samples,
                                    return_indices)

    return pool


_POOL = {2: _fractional_op(2), 3: _fractional_op(3)}


def _functional(n, input, kernel_size, output_size, output_ratio, return_indices,
                _random_samples):
    """PyTorch's Python layer: the output size from ``output_ratio``, and the samples drawn
    (one per plane and spatial dim, uniform in [0, 1)) when not given."""
    name = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if n == 2 and len(output_ratio) > 2:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple "
                             "of Ints.")
        ratio = (output_ratio,) * n if isinstance(output_ratio, (int, float)) \
            else tuple(output_ratio)
        output_size = [int(input.size(d - n) * r) for d, r in enumerate(ratio)]
    if _random_samples is None:
        batch = 1 if input.dim() == n + 1 else input.size(0)
        _random_samples = rand(batch, input.size(-n - 1), n, dtype=input.dtype,
                               device=input.device)
    return _POOL[n](input, kernel_size, output_size, _random_samples, return_indices)


def _functional_form(n, with_indices):
    """``F.fractional_max_pool{n}d`` (``_with_indices``: the values and indices always)."""
    name = f"fractional_max_pool{n}d" + "_with_indices" * with_indices

    def pool(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
             _random_samples=None):
        return _functional(n, input, kernel_size, output_size, output_ratio,
                           with_indices or return_indices, _random_samples)

    pool.__name__ = pool.__qualname__ = name
    pool.__doc__ = (f"Max pooling of the {n} last dims over pseudo-random windows of "
                    "``kernel_size`` to ``output_size`` (or ``output_ratio`` times the input "
                    "size); ``(values, indices)`` with ``return_indices``.")
    return export(name, namespace="nn.functional", opdef_of=_POOL[n])(pool)


fractional_max_pool2d = _functional_form(2, False)
fractional_max_pool2d_with_indices = _functional_form(2, True)
fractional_max_pool3d = _functional_form(3, False)
fractional_max_pool3d_with_indices = _functional_form(3, True)
