"""Random sampling: rand, randn, randint, randperm, normal, bernoulli, multinomial, poisson, the
``*_like`` forms and the in-place initialisers (``uniform_``, ``normal_``, ``random_``...).

Each call draws ONE key from its generator (``generator=``, default the default generator:
see ``jtorch/_random.py``) and runs one cached jitted kernel with the key as an ordinary array
argument: kernels compile once per (op, shape, dtype); the key and the distribution's
parameters are dynamic. The in-place initialisers go through the op table's in-place path, so
they write through views into their base and refuse leaves that require grad (unless under
``no_grad``), as every in-place op.

Gradients: samples never carry gradients. Where PyTorch records a node anyway (normal with
tensor mean/std, bernoulli and poisson of a tensor, the initialisers on a non-leaf), jtorch
records one with PyTorch's grad_fn name whose gradient is zero.

Differences from PyTorch: the numbers differ (see ``jtorch/_random.py``); checks PyTorch makes
on tensor VALUES (negative std in a std tensor, probabilities outside [0, 1], an invalid
multinomial distribution, negative Poisson rates) are not made, as they would need the values
on the host; ``random_()`` on int64 draws from ``[0, 2**63 - 1)``.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtypes, torch_function
from .._core.device import to_host, to_jax
from .._core.generator import bits32, next_key, uniform01, uniform_from_bits, uniform_words, wrap
from .._core.tensor_base import MetaStorage, TensorBase
from .._core.views import assign_out, check_inplace, inplace_call
from ._registry import export, op
from ._util import check_broadcast, check_expand
from .creation import check_layout, factory_device, finish, out_dtype, parse_size

_CPP = {"float32": "float", "float64": "double", "float16": "c10::Half",
        "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int", "int16": "short int",
        "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
        "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


# ------------------------------------------------------------------------------ samplers
# Pure functions run inside the kernels: (key, shape, numpy dtype, a, b) -> array of dtype.
def _uniform01(key, shape, dt):
    if not jnp.issubdtype(dt, jnp.floating):
        dt = jnp.float32
    return uniform01(wrap(key), shape, dt)


def _s_uniform(key, shape, dt, a, b):
    return a.astype(dt) + (b - a).astype(dt) * _uniform01(key, shape, dt)


def _normal_from_uniform(u, dt):
    """Standard normal values from uniform [0, 1) draws ``u`` (``jax.random.normal``'s inverse
    CDF construction)."""
    lo = jnp.nextafter(jnp.array(-1, dt), jnp.array(0, dt))
    return np.sqrt(2).astype(dt) * jax.scipy.special.erfinv(jnp.maximum(2 * u - 1, lo))


def _s_normal(key, shape, dt, a, b):
    return a.astype(dt) + b.astype(dt) * _normal_from_uniform(_uniform01(key, shape, dt), dt)


def _s_exponential(key, shape, dt, a, b):
    return (-jnp.log1p(-_uniform01(key, shape, dt)) / a).astype(dt)


def _s_cauchy(key, shape, dt, a, b):
    u = _uniform01(key, shape, dt)
    return (a + b * jnp.tan(jnp.pi * (u - 0.5))).astype(dt)


def _s_log_normal(key, shape, dt, a, b):
    return jnp.exp(_s_normal(key, shape, dt, a, b))


def _s_geometric(key, shape, dt, a, b):
    wt = dt if jnp.issubdtype(dt, jnp.floating) else jnp.float64
    u = _uniform01(key, shape, wt)
    k = jnp.ceil(jnp.log1p(-u) / jnp.log1p(-a.astype(wt)))
    return jnp.maximum(k, 1).astype(dt)


def _s_bernoulli(key, shape, dt, a, b):
    wt = jnp.float64 if a.dtype == jnp.float64 else jnp.float32
    return (_uniform01(key, shape, wt) < jnp.broadcast_to(a, shape)).astype(dt)


def _s_randint(key, shape, dt, a, b):
    return jax.random.randint(wrap(key), shape, a, b, jnp.int64).astype(dt)


def _s_perm(key, shape, dt, a, b):
    return jax.random.permutation(wrap(key), shape[0]).astype(dt)


_SAMPLERS = {"uniform": _s_uniform, "normal": _s_normal, "exponential": _s_exponential,
             "cauchy": _s_cauchy, "log_normal": _s_log_normal, "geometric": _s_geometric,
             "bernoulli": _s_bernoulli, "randint": _s_randint, "perm": _s_perm}


def sample(kind, key, shape, dt, a, b):
    """``kind``'s samples of ``shape`` and numpy dtype ``dt``. Complex dtypes sample the real
    and imaginary parts independently (PyTorch's ``view_as_real``), ``normal`` with std/sqrt(2)
    each so a complex normal has variance std**2."""
    dt = np.dtype(dt)
    if dt.kind == "c":
        a, b = jnp.real(a), jnp.real(b)  # each part's parameters are real (no complex -> real cast)
        if kind == "normal":
            b = b / math.sqrt(2)
        x = _SAMPLERS[kind](key, (*shape, 2), np.dtype(f"f{dt.itemsize // 2}"), a, b)
        return jax.lax.complex(x[..., 0], x[..., 1])
    return _SAMPLERS[kind](key, shape, dt, a, b)


# ------------------------------------------------------------------------------ bits
# uniform and normal (the initialisers' and rand/randn's distributions) are computed from
# random bits drawn by a separate kernel per size bucket (powers of two): XLA's threefry
# kernel takes about half a second to compile, and compiling it once per bucket instead of
# once per shape makes building a model fast. The same path runs eagerly and under a trace,
# so compiled and eager code draw the same numbers.
_BUCKETED = ("uniform", "normal")


@functools.cache
def _bits_kernel(n):
    return jax.jit(lambda key: bits32(wrap(key), (n,)))


def _bucketed(kind, dt):
    return kind in _BUCKETED and np.dtype(dt).kind == "f"


def draw_bits(key, shape, dt):
    count = uniform_words(shape, dt)
    return _bits_kernel(max(1 << 16, 1 << max(count - 1, 0).bit_length()))(key)


def sample_bits(kind, bits, shape, dt, a, b):
    """``kind``'s samples (uniform or normal) of ``shape``/``dt`` from ``draw_bits``' bits."""
    u = uniform_from_bits(bits, shape, dt)
    if kind == "uniform":
        return a.astype(dt) + (b - a).astype(dt) * u
    return a.astype(dt) + b.astype(dt) * _normal_from_uniform(u, dt)


# ------------------------------------------------------------------------------ kernels
@op("_sample", method=False, out=False, differentiable=False, tensors=("a", "b"))
def _sample(key, kind, shape, dtype, a, b):
    return sample(kind, key, shape, dtype.np, a, b)


def _fill_body(kind):
    def body(input, key, a, b):
        return jax.lax.stop_gradient(sample(kind, key, input.shape, input.dtype, a, b))

    body.__name__ = f"{kind}_"
    return body


# in-place initialiser -> (sampler, PyTorch's grad_fn name on a non-leaf)
_FILL_SPECS = {"uniform": ("uniform", "UniformBackward0"),
               "normal": ("normal", "NormalBackward0"),
               "exponential": ("exponential", "ExponentialBackward0"),
               "cauchy": ("cauchy", "CauchyBackward0"),
               "log_normal": ("log_normal", "LogNormalBackward0"),
               "geometric": ("geometric", "GeometricBackward0"),
               "bernoulli": ("bernoulli", "BernoulliBackward2"),
               "bernoulli_tensor": ("bernoulli", "BernoulliBackward1"),
               "random": ("randint", "RandomBackward0")}
_FILL = {k: op(f"_{k}_", method=False, out=False, saves=False, tensors=("input", "a", "b"),
               grad_name=g)(_fill_body(kind))._opdef for k, (kind, g) in _FILL_SPECS.items()}


def _fill_bits_body(kind):
    def body(input, bits, a, b):
        return jax.lax.stop_gradient(sample_bits(kind, bits, input.shape, input.dtype, a, b))

    body.__name__ = f"{kind}_"
    return body


_FILL_BITS = {k: op(f"_{k}_bits_", method=False, out=False, saves=False,
                    tensors=("input", "a", "b"), grad_name=_FILL_SPECS[k][1])(
                        _fill_bits_body(k))._opdef for k in _BUCKETED}


@op("_sample_bits", method=False, out=False, differentiable=False, tensors=("a", "b"))
def _sample_from_bits(bits, kind, shape, dtype, a, b):
    return sample_bits(kind, bits, shape, dtype.np, a, b)


def _normal_body(key, mean, std, like):
    check_broadcast(mean.shape, std.shape)
    shape = jnp.broadcast_shapes(mean.shape, std.shape)
    dt = (mean if like == "mean" else std).dtype
    z = sample("normal", key, shape, dt, jnp.zeros((), dt), jnp.ones((), dt))
    return jax.lax.stop_gradient(mean.astype(dt) + std.astype(dt) * z)


_NORMAL = {(True, False): "1", (False, True): "2", (True, True): "3"}
_NORMAL = {k: op(f"_normal{v}", method=False, out=False, saves=False, tensors=("mean", "std"),
                 grad_name=f"NormalBackward{v}")(_normal_body) for k, v in _NORMAL.items()}


@op("_bernoulli", method=False, out=False, saves=False, tensors=("p",),
    grad_name="BernoulliBackward0")
def _bernoulli(key, p):
    return jax.lax.stop_gradient(sample("bernoulli", key, p.shape, p.dtype, p, p))


@op("_poisson", method=False, out=False, saves=False, tensors=("rate",),
    grad_name="PoissonBackward0")
def _poisson(key, rate):
    s = jax.random.poisson(wrap(key), rate, rate.shape, jnp.int64)
    return jax.lax.stop_gradient(s.astype(rate.dtype))


@op("_multinomial", method=False, out=False, differentiable=False, tensors=())
def _multinomial(key, p, num_samples, replacement):
    logits = jnp.log(p)
    if replacement:
        idx = jax.random.categorical(wrap(key), logits, axis=-1,
                                     shape=(num_samples, *p.shape[:-1]))
        return jnp.moveaxis(idx, 0, -1).astype(jnp.int64)
    # without replacement: the top-k of Gumbel-perturbed log-probabilities
    g = jax.random.gumbel(wrap(key), p.shape, p.dtype)
    return jax.lax.top_k(logits + g, num_samples)[1].astype(jnp.int64)


# ------------------------------------------------------------------------------ checks
def _fmt(x):
    return str(x) if isinstance(x, int) else f"{float(x):g}"


def _not_impl(kernel, dt):
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dt.scalar_name}'")


def _need_float(dt, kernel, complex_ok=True):
    if dt.category < dtypes.FLOAT or (dt.category == dtypes.COMPLEX and not complex_ok):
        raise _not_impl(kernel, dt)


def _continuous(dt, name, cpp=False):
    if dt.category != dtypes.FLOAT:
        spec = _CPP[dt.name] if cpp else dt.scalar_name
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {spec}")


def _positive(fname, name, value):
    """``value``, checked by ATen's ``<fname> expects <name> > 0.0`` check of a scale."""
    if not value > 0:
        raise RuntimeError(f"{fname} expects {name} > 0.0, but found {name}={_fmt(value)}")
    return value


def _int_limits(dt):
    """The [lowest, highest] integers dtype ``dt`` holds exactly (PyTorch's random_ bounds)."""
    if dt is dtypes.bool_:
        return 0, 1
    if dt.category == dtypes.INT:
        info = np.iinfo(dt.np)
        return int(info.min), int(info.max)
    digits = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}[dt.name]
    return -(2**digits), 2**digits


def _check_from_to(frm, to, dt):
    if frm >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from="
                           f"{_fmt(frm)} >= to={_fmt(to)}")
    lo, hi = _int_limits(dt)
    if not lo <= frm <= hi:
        raise RuntimeError(f"from is out of bounds for {_CPP[dt.name]}")
    if not lo <= to - 1 <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {_CPP[dt.name]}")


def _params(name, args, kw, names, defaults):
    if len(args) > len(names):
        raise TypeError(f"{name}() takes at most {len(names)} arguments ({len(args)} given)")
    vals = list(args) + [kw.pop(n, d) for n, d in zip(names[len(args):], defaults[len(args):])]
    if kw:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")
    return [v.item() if isinstance(v, (np.generic, TensorBase)) and n != "p" else v
            for v, n in zip(vals, names)]


# ------------------------------------------------------------------------------ factories
def _key_on(generator, dev):
    """A fresh key, placed on ``dev`` (the device the samples must live on): a kernel whose
    output does not read its tensor input's values would otherwise run where the key is."""
    key = next_key(generator)
    dev = factory_device(dev)
    if dev.type != "cpu" or dev.index:
        return jax.device_put(key, to_jax(dev))
    return to_host(key)   # (on a GPU machine the key is on the GPU: draw on the host)


def _factory(kind, shape, dt, a, b, generator, out, device, requires_grad, layout=None):
    check_layout(layout)
    dev = out.device if out is not None else device
    if factory_device(dev).type == "meta":   # (a shape and a dtype: nothing drawn)
        return finish(MetaStorage(shape, dt.np), dev, requires_grad, out, layout)
    key = _key_on(generator, dev)
    if _bucketed(kind, dt.np):
        res = _sample_from_bits(draw_bits(key, shape, dt.np), kind, shape, dt, a, b)
    else:
        res = _sample(key, kind, shape, dt, a, b)
    return finish(res._value, dev, requires_grad, out)


def _no_extra(name, kw):
    if kw:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")


def _sized(name, size, kw):
    """The shape given to ``name(*size, size=..., ...)``; no other keyword is left in ``kw``."""
    shape = parse_size(size, name, kw.pop("size", None))
    _no_extra(name, kw)
    return shape


# rand's and randn's distributions: the PyTorch kernel that names a dtype it cannot sample
_STANDARD_KERNEL = {"uniform": "check_uniform_bounds", "normal": "normal_kernel_cpu"}


def _standard(kind, shape, dt, generator, out, device, requires_grad, layout):
    """A sample of the uniform distribution on [0, 1) or of N(0, 1) (float dtypes only)."""
    _need_float(dt, _STANDARD_KERNEL[kind])
    return _factory(kind, shape, dt, 0.0, 1.0, generator, out, device, requires_grad, layout)


def _standard_sized(kind, name, size, kw, generator, out, dtype, layout, device, requires_grad):
    """``rand``/``randn`` (``name``): ``_standard`` of the shape given to ``name(*size)`` and
    the default float dtype unless ``dtype`` or ``out`` says otherwise."""
    shape = _sized(name, size, kw)
    dt = out_dtype(dtype, out, dtypes.get_default_dtype())
    return _standard(kind, shape, dt, generator, out, device, requires_grad, layout)


@export()
def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False, **kw):
    """Samples from the uniform distribution on ``[0, 1)``."""
    return _standard_sized("uniform", "rand", size, kw, generator, out, dtype, layout, device,
                           requires_grad)


@export()
def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False, **kw):
    """Samples from the standard normal distribution (complex: variance 1/2 per part)."""
    return _standard_sized("normal", "randn", size, kw, generator, out, dtype, layout, device,
                           requires_grad)


def _randint_args(args, kw):
    names = ("low", "high", "size")
    given = dict(zip(("high", "size") if len(args) == 2 and "size" not in kw else names, args))
    if len(args) == 1 and "high" not in kw:
        given = {"high": args[0]}
    for n in names:
        if n in kw:
            given[n] = kw.pop(n)
    _no_extra("randint", kw)
    if "high" not in given or "size" not in given:
        raise TypeError("randint() received an invalid combination of arguments - got "
                        f"({', '.join(type(a).__name__ for a in args)}), but expected one of:")
    pos = {n: i + 1 for i, n in enumerate(names if "low" in given else names[1:])}
    for n in ("low", "high"):
        v = given.get(n, 0)
        if isinstance(v, (float, complex, bool)) or not isinstance(v, (int, np.integer,
                                                                      TensorBase)):
            raise TypeError(f"randint(): argument '{n}' (position {pos[n]}) must be int, not "
                            f"{type(v).__name__}")
    size = given["size"]
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"randint(): argument 'size' (position {pos['size']}) must be tuple of "
                        f"ints, not {type(size).__name__}")
    return int(given.get("low", 0)), int(given["high"]), parse_size((tuple(size),), "randint")


@export()
def randint(*args, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad=False, pin_memory=False, **kw):
    """``randint(high, size)`` / ``randint(low, high, size)``: integers uniform in
    ``[low, high)``; int64 unless ``dtype``."""
    low, high, shape = _randint_args(args, kw)
    dt = out_dtype(dtype, out, dtypes.int64)
    _check_from_to(low, high, dt)
    return _factory("randint", shape, dt, low, high, generator, out, device, requires_grad,
                    layout)


@export()
def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype``)."""
    (n,) = parse_size((n,), "randperm")
    dt = out_dtype(dtype, out, dtypes.int64)
    return _factory("perm", (n,), dt, 0, 0, generator, out, device, requires_grad, layout)


def _like(input, dtype, device):
    return (dtypes.to_dtype(dtype) if dtype is not None else input.dtype,
            device if device is not None else input.device)


def _standard_like(kind, input, generator, dtype, layout, device, requires_grad):
    """``rand``/``randn`` (``kind`` uniform/normal) shaped like ``input``."""
    dt, dev = _like(input, dtype, device)
    return _standard(kind, tuple(input.shape), dt, generator, None, dev, requires_grad, layout)


@export()
@torch_function.input_overridable("torch.rand_like")
def rand_like(input, *, generator=None, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None):
    """``rand`` with ``input``'s shape, dtype and device."""
    return _standard_like("uniform", input, generator, dtype, layout, device, requires_grad)


@export()
@torch_function.input_overridable("torch.randn_like")
def randn_like(input, *, generator=None, dtype=None, layout=None, device=None,
               requires_grad=False, memory_format=None):
    """``randn`` with ``input``'s shape, dtype and device."""
    return _standard_like("normal", input, generator, dtype, layout, device, requires_grad)


@export()
@torch_function.input_overridable("torch.randint_like")
def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None,
                 device=None, requires_grad=False, memory_format=None):
    """``randint_like(input, high)`` / ``randint_like(input, low, high)``: ``randint`` with
    ``input``'s shape, dtype and device."""
    if high is None:
        low, high = 0, low
    dt, dev = _like(input, dtype, device)
    low, high = int(low), int(high)
    _check_from_to(low, high, dt)
    return _factory("randint", tuple(input.shape), dt, low, high, generator, None, dev,
                    requires_grad, layout)


# ------------------------------------------------------------------------------ tensor forms
def _write_out(res, out):
    if out is None:
        return res

    assign_out(out, res)
    return out


@export()
def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False, pin_memory=False):
    """Normal samples: ``normal(mean, std)`` with a tensor mean and/or std (broadcast; the
    result has mean's dtype when mean is a tensor), or ``normal(mean, std, size)`` with
    numbers."""
    mt, st = isinstance(mean, TensorBase), isinstance(std, TensorBase)
    if not st and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    if mt or st:
        if size is not None:
            raise TypeError("normal() received an invalid combination of arguments - got "
                            f"({type(mean).__name__}, {type(std).__name__}, size=tuple), but "
                            "expected one of:")
        _need_float((mean if mt else std).dtype, "normal_kernel_cpu")
        key = next_key(generator)
        res = _NORMAL[(mt, st)](key, mean, std, "mean" if mt else "std")
        return _write_out(res, out)
    if size is None:
        raise TypeError("normal() received an invalid combination of arguments - got "
                        f"({type(mean).__name__}, {type(std).__name__}), but expected one of:")
    shape = parse_size((tuple(size),) if isinstance(size, (tuple, list)) else (size,), "normal")
    dt = out_dtype(dtype, out, dtypes.get_default_dtype())
    _need_float(dt, "normal_kernel_cpu")
    return _factory("normal", shape, dt, mean, std, generator, out, device, requires_grad,
                    layout)


@export(method=True)
def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples: probabilities from ``input``, or one probability ``p`` for every element
    (then with input's shape and dtype)."""
    if p is None:
        _need_float(input.dtype, "bernoulli_tensor_cpu_p_", complex_ok=False)
        return _write_out(_bernoulli(next_key(generator), input), out)
    p = _check_p(p)
    if input.dtype.category == dtypes.COMPLEX:
        raise _not_impl("bernoulli_scalar_cpu_", input.dtype)
    return _factory("bernoulli", tuple(input.shape), input.dtype, p, 0.0, generator, out,
                    input.device, False)


def _check_p(p):
    p = float(p)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")
    return p


@export(method=True)
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """``num_samples`` category indices per row of ``input`` (1-D or 2-D non-negative weights),
    with or without replacement (without: Gumbel top-k, so the indices are distinct)."""
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if input.dtype.category != dtypes.FLOAT:
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           f"{input.dtype.scalar_name}")
    n = int(num_samples)
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and n > input.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if input.shape[-1] > 2**24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    return _write_out(_multinomial(next_key(generator), input, n, bool(replacement)), out)


@export()
def poisson(input, generator=None):
    """Poisson samples with the rates in ``input`` (same shape and dtype)."""
    _need_float(input.dtype, "poisson_cpu", complex_ok=False)
    return _poisson(next_key(generator), input)


# ------------------------------------------------------------------------------ in-place
def _fill_(t, kind, a, b, generator):
    check_inplace(t)
    if type(t._array) is MetaStorage:   # (nothing to fill, nothing drawn)
        return t
    key = _key_on(generator, t.device)
    if _bucketed(kind, t.dtype.np):
        return inplace_call(t, _FILL_BITS[kind], (draw_bits(key, tuple(t.shape), t.dtype.np),
                                                  a, b), {})
    return inplace_call(t, _FILL[kind], (key, a, b), {})


def uniform_(self, *args, generator=None, **kw):
    """Fills with samples from the uniform distribution on ``[from, to)``."""
    low, high = _params("uniform_", args, kw, ("from", "to"), (0.0, 1.0))
    _need_float(self.dtype, "check_uniform_bounds")
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from="
                           f"{_fmt(low)} > to={_fmt(high)}")
    return _fill_(self, "uniform", low, high, generator)


def normal_(self, *args, generator=None, **kw):
    """Fills with samples from N(mean, std**2)."""
    mean, std = _params("normal_", args, kw, ("mean", "std"), (0.0, 1.0))
    _need_float(self.dtype, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    return _fill_(self, "normal", mean, std, generator)


def bernoulli_(self, *args, generator=None, **kw):
    """Fills with 0/1 samples of probability ``p`` (a number or a tensor broadcast to self)."""
    (p,) = _params("bernoulli_", args, kw, ("p",), (0.5,))
    if self.dtype.category == dtypes.COMPLEX:
        raise _not_impl("bernoulli_scalar_cpu_", self.dtype)
    if isinstance(p, TensorBase):
        src, target = tuple(p.shape), tuple(self.shape)
        check_expand(src, target, f"The expanded size of the tensor ({len(target)}) must match "
                     f"the existing size ({len(src)}) at non-singleton dimension 0.  Target "
                     f"sizes: {list(target)}.  Tensor sizes: {list(src)}")
    else:
        p = _check_p(p)
    kind = "bernoulli_tensor" if isinstance(p, TensorBase) else "bernoulli"
    return _fill_(self, kind, p, 0.0, generator)


def exponential_(self, *args, generator=None, **kw):
    """Fills with samples from the exponential distribution of rate ``lambd``."""
    (lambd,) = _params("exponential_", args, kw, ("lambd",), (1.0,))
    _continuous(self.dtype, "Exponential")
    return _fill_(self, "exponential", _positive("exponential_", "lambda", lambd), 0.0,
                  generator)


def geometric_(self, *args, generator=None, **kw):
    """Fills with the number of Bernoulli(p) trials up to the first success (>= 1)."""
    if not args and "p" not in kw:
        raise TypeError('geometric_() missing 1 required positional arguments: "p"')
    (p,) = _params("geometric_", args, kw, ("p",), (None,))
    if self.dtype.category in (dtypes.BOOL, dtypes.COMPLEX):
        raise _not_impl("geometric_cpu", self.dtype)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
    return _fill_(self, "geometric", p, 0.0, generator)


def cauchy_(self, *args, generator=None, **kw):
    """Fills with samples from the Cauchy distribution (``median``, ``sigma``)."""
    median, sigma = _params("cauchy_", args, kw, ("median", "sigma"), (0.0, 1.0))
    _continuous(self.dtype, "Cauchy", cpp=True)
    return _fill_(self, "cauchy", median, _positive("cauchy_", "sigma", sigma), generator)


def log_normal_(self, *args, generator=None, **kw):
    """Fills with ``exp`` of N(mean, std**2) samples."""
    mean, std = _params("log_normal_", args, kw, ("mean", "std"), (1.0, 2.0))
    _need_float(self.dtype, "log_normal_cpu", complex_ok=False)
    return _fill_(self, "log_normal", mean, _positive("log_normal_", "std", std), generator)


def random_(self, *args, generator=None, **kw):
    """``random_()``, ``random_(to)``, ``random_(from, to)``: integers uniform in
    ``[from, to)``; without ``to``, up to the largest integer the dtype holds exactly."""
    if len(args) == 1 and "to" not in kw:
        args = (0, args[0])
    frm, to = _params("random_", args, kw, ("from", "to"), (0, None))
    dt = self.dtype
    if dt.category == dtypes.COMPLEX:
        raise _not_impl("random_kernel_cpu", dt)
    if to is None:
        hi = _int_limits(dt)[1]
        to = hi if dt is dtypes.int64 else hi + 1
    frm, to = int(frm), int(to)
    _check_from_to(frm, to, dt)
    return _fill_(self, "random", frm, to, generator)


for _method in (uniform_, normal_, bernoulli_, exponential_, geometric_, cauchy_, log_normal_,
                random_):
    export(_method.__name__, namespace=None, method=True)(_method)
