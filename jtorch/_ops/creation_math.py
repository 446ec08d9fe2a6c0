"""Factories that compute their values: eye, arange, range (deprecated), linspace, logspace,
and complex tensors from parts (complex, polar).

Sizes and values follow PyTorch's CPU kernels, computed on the host (the sizes are static):
    - arange: length ``ceil((end - start) / step)`` in double precision; for int64 in integer
      arithmetic on the arguments truncated to integers. Values ``start + i * step`` in the
      accumulation type (double for float32/float64, float for float16/bfloat16, int64 for
      integer dtypes, on the truncated arguments), then cast.
    - range: length ``trunc((end - start) / step) + 1`` in the accumulation type; end included.
    - linspace/logspace: PyTorch's two-sided formula (the first half steps up from ``start``,
      the second half down from ``end``) in the output dtype (double for integer outputs).
"""

from __future__ import annotations

import math
import operator
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtypes
from .._core.tensor_base import TensorBase
from ._registry import export, op
from ._util import check_broadcast
from .creation import convert_scalars, finish, out_dtype

_HALF = ("float16", "bfloat16")


def _num(x, fname, pname, pos):
    """A Python number from a number, a NumPy scalar or a 0-d tensor (read eagerly: a range's
    length depends on it)."""
    if isinstance(x, (TensorBase, np.generic)):
        x = x.item()
    if not isinstance(x, (bool, int, float, complex)):
        raise TypeError(f"{fname}(): argument '{pname}' (position {pos}) must be Number, not "
                        f"{type(x).__name__}")
    return x


def _index(x, fname, pname, pos, got):
    try:
        return operator.index(x)
    except TypeError:
        raise TypeError(f"{fname}() received an invalid combination of arguments - got "
                        f"({', '.join(type(a).__name__ for a in got)}), but expected one of:"
                        ) from None


@export()
def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
        pin_memory=False):
    """A 2-D tensor with ones on the diagonal: ``n`` rows, ``m`` (default ``n``) columns."""
    if m is None:
        if not isinstance(n, (int, np.integer, TensorBase)) or isinstance(n, bool):
            raise TypeError(f"eye(): argument 'n' (position 1) must be int, not "
                            f"{type(n).__name__}")
        n = operator.index(n)
        m = n
    else:
        n, m = _index(n, "eye", "n", 1, (n, m)), _index(m, "eye", "m", 2, (n, m))
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    dt = out_dtype(dtype, out, dtypes.get_default_dtype())
    return finish(np.eye(n, m).astype(dt.np), device, requires_grad, out, layout)


def _check_bounds(s, e, st, exc=RuntimeError):
    ds, de, dst = float(s), float(e), float(st)
    if dst == 0:
        raise exc("step must be nonzero")
    if not (math.isfinite(ds) and math.isfinite(de)):
        raise RuntimeError(f"unsupported range: {ds:g} -> {de:g}")
    if not ((dst > 0 and de >= ds) or (dst < 0 and de <= ds)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")


def _trunc_div(a, b):
    """C++'s integer division (truncates toward zero), exact for Python ints."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _acc_values(s, st, n, dt):
    """``start + i * step`` for i < n in PyTorch's CPU accumulation type, cast to ``dt``."""
    i = np.arange(n, dtype=np.int64)
    if dt.category <= dtypes.INT:
        with np.errstate(over="ignore"):
            return (np.int64(int(s)) + np.int64(int(st)) * i).astype(dt.np)
    acc = np.float32 if dt.name in _HALF else np.float64
    return (acc(s) + acc(st) * i.astype(acc)).astype(dt.np)


def _range_args(fname, args, start, end, step):
    if len(args) > 3:
        raise TypeError(f"{fname}() takes at most 3 positional arguments ({len(args)} given)")
    if len(args) == 1 and end is None:
        end = args[0]
    elif args:
        start, end, step = (*args, *(start, end, step)[len(args):])
    if end is None:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "end"')
    names = ("start", "end", "step")
    return [_num(v, fname, p, i + 1) for i, (v, p) in
            enumerate(zip((0 if start is None else start, end, 1 if step is None else step),
                          names))]


def _real_bounds(vals):
    if any(isinstance(v, complex) for v in vals):
        raise RuntimeError("value cannot be converted to type double without overflow")
    return vals


def _check_dtype(fname, dt):
    if dt.category in (dtypes.BOOL, dtypes.COMPLEX):
        raise NotImplementedError(f"\"{fname}_cpu\" not implemented for '{dt.scalar_name}'")


@export()
def arange(*args, start=None, end=None, step=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False, pin_memory=False):
    """``arange(end)`` / ``arange(start, end, step=1)``: values in ``[start, end)`` spaced by
    ``step``. int64 when every argument is an integer, else the default dtype."""
    s, e, st = _real_bounds(_range_args("arange", args, start, end, step))
    inferred = (dtypes.get_default_dtype() if any(isinstance(v, float) for v in (s, e, st))
                else dtypes.int64)
    dt = out_dtype(dtype, out, inferred)
    _check_dtype("arange", dt)
    _check_bounds(s, e, st)
    if dt is dtypes.int64:
        xs, xe, xst = int(s), int(e), int(st)
        if xst == 0:
            raise ValueError("step must be nonzero")
        sgn = (xst > 0) - (xst < 0)
        n = _trunc_div(xe - xs + xst - sgn, xst)
    else:
        n = math.ceil((float(e) - float(s)) / float(st))
    if not 0 <= n <= 2**63 - 1:
        raise RuntimeError("invalid size, possible overflow?")
    if out is not None and out.numel() != n:
        warnings.warn(f"The number of elements in the out tensor of shape {list(out.shape)} is "
                      f"{out.numel()} which does not match the computed number of elements {n}."
                      " Note that this may occur as a result of rounding error. The out tensor "
                      f"will be resized to a tensor of shape ({n},).", UserWarning, stacklevel=2)
    return finish(_acc_values(s, st, n, dt), device, requires_grad, out, layout)


@export("range")
def range_(*args, start=None, end=None, step=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False, pin_memory=False):
    """Deprecated: values from ``start`` to ``end`` INCLUSIVE spaced by ``step``, of the
    default dtype unless ``dtype`` (use ``arange``)."""
    if len(args) == 1 and end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    bounds = _range_args("range", args, start, end, step)
    # PyTorch warns once its arguments parse, before any other check
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    s, e, st = _real_bounds(bounds)
    dt = out_dtype(dtype, out, dtypes.get_default_dtype())
    _check_dtype("range", dt)
    _check_bounds(s, e, st)
    if dt.category == dtypes.INT:
        xs, xe, xst = int(s), int(e), int(st)
        if xst == 0:
            raise RuntimeError("step must be nonzero")
        n = _trunc_div(xe - xs, xst) + 1
    else:
        acc = np.float32 if dt.name in _HALF else np.float64
        n = int((acc(e) - acc(s)) / acc(st)) + 1
    return finish(_acc_values(s, st, n, dt), device, requires_grad, out, layout)


def _spaced(fname, start, end, steps, dtype, out, base=None):
    """linspace (``base`` None) or logspace values, PyTorch's CPU formula."""
    got = (start, end) if steps is None else (start, end, steps)
    steps = _index(steps, fname, "steps", 3, got)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    s, e = _num(start, fname, "start", 1), _num(end, fname, "end", 2)
    cplx = isinstance(s, complex) or isinstance(e, complex)
    dt = out_dtype(dtype, out, dtypes.default_complex() if cplx else dtypes.get_default_dtype())
    work = np.dtype(np.float64) if dt.category <= dtypes.INT else dt.np
    if base is not None and dt.name in _HALF:  # logspace steps half dtypes in float
        work = np.dtype(np.float32)
    s_ = convert_scalars(np.array(s), dt).astype(work)
    e_ = convert_scalars(np.array(e), dt).astype(work)
    idx = np.arange(steps)
    if steps == 1:
        vals = np.full(1, s_, work)
    else:
        step = (e_ - s_) / work.type(max(steps - 1, 1))
        # linspace in float and double: ``start + step * idx`` in one rounding, as PyTorch's
        # kernel (compiled with fused multiply-adds) computes it; half types and logspace's
        # exponents (as PyTorch's logspace rounds them, nearer its powers): a rounding per op
        fused = (np.longdouble if base is None and work in (np.float32, np.float64)
                 else work.type)
        vals = np.where(idx < steps // 2, fused(s_) + fused(step) * idx.astype(fused),
                        fused(e_) - fused(step) * (steps - idx - 1).astype(fused)).astype(work)
    with np.errstate(all="ignore"):
        if base is not None:
            vals = np.power(work.type(base), vals)
        return vals.astype(dt.np)


@export()
def linspace(start, end, steps=None, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """``steps`` values evenly spaced from ``start`` to ``end`` inclusive."""
    return finish(_spaced("linspace", start, end, steps, dtype, out), device, requires_grad,
                  out, layout)


@export()
def logspace(start, end, steps=None, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """``base ** linspace(start, end, steps)``."""
    return finish(_spaced("logspace", start, end, steps, dtype, out, float(base)), device,
                  requires_grad, out, layout)


# ------------------------------------------------------------------------------ complex, polar
def _parts_check(name, names):
    def check(*args, **kw):
        # the parts may come by keyword (torch.complex(real=re, imag=im), as pykeen calls it)
        a, b = (*args, *(kw.get(n) for n in names[len(args):]))[:2]
        for x, pos, pname in ((a, 1, names[0]), (b, 2, names[1])):
            if not isinstance(x, TensorBase):
                raise TypeError(f"{name}(): argument '{pname}' (position {pos}) must be Tensor, "
                                f"not {type(x).__name__}")
        da, db = a.dtype, b.dtype
        floats = (dtypes.float16, dtypes.float32, dtypes.float64)
        if da not in floats or db not in floats:
            raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but "
                               f"got {da.scalar_name} and {db.scalar_name}")
        if da is not db:
            raise RuntimeError(f"Expected object of scalar type {da.scalar_name} but got scalar "
                               f"type {db.scalar_name} for second argument")
        if da is dtypes.float16:
            raise NotImplementedError(f"jtorch does not implement torch.{name} of float16 "
                                      "inputs yet (complex32 is not supported)")

    return check


def _complex_parts(re, im):
    check_broadcast(re.shape, im.shape)
    return jax.lax.complex(*jnp.broadcast_arrays(re, im))


@op("complex", method=False, tensors=("real", "imag"), check=_parts_check("complex",
                                                                            ("real", "imag")))
def complex_(real, imag):
    """A complex tensor ``real + imag * 1j`` from two float tensors of one dtype."""
    return _complex_parts(real, imag)


@op("polar", method=False, tensors=("abs", "angle"), check=_parts_check("polar",
                                                                          ("abs", "angle")))
def polar(abs, angle):
    """A complex tensor ``abs * (cos(angle) + sin(angle) * 1j)``."""
    check_broadcast(abs.shape, angle.shape)
    # PyTorch's backward gives abs the gradient real(conj(grad) * sgn(result)): zero where abs
    # is 0, negated where it is negative; ``r`` is abs in value with sign(abs) as derivative
    s = jax.lax.stop_gradient(jnp.sign(abs))
    r = jax.lax.stop_gradient(abs) - (jax.lax.stop_gradient(abs * s) - abs * s)  # keeps -0.0
    return _complex_parts(r * jnp.cos(angle), r * jnp.sin(angle))
