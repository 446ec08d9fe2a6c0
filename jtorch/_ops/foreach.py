"""``torch._foreach_*``: one op applied to each tensor of a list (PyTorch's multi-tensor ops).

Libraries call them directly (timm's model EMA runs ``_foreach_lerp_``/``_foreach_mul_``, many
optimizers their ``foreach`` paths). Each runs the single-tensor op on every element, which is
what PyTorch's CPU kernels do (its "slow path"), so values, dtypes, broadcasting, errors and
autograd are the single op's; under ``jtorch.compile`` the loop is traced into the one program.

The overloads are PyTorch's: the second operand is a ``scalar`` (a number or a 0-d tensor), a
list of ``scalars``, a list of tensors (``other``) or, for ``add``/``mul``/``div``, one 0-d
tensor; ``alpha`` for a tensor list in ``add``/``sub``. Out-of-place forms return a tuple, in-place
forms (trailing ``_``) return the list they were given. Lists must have one tensor at least and
equal lengths, with PyTorch's error texts.

Differences from PyTorch:
    - The ``Tensor`` overload of ``_foreach_addcmul``/``_foreach_addcdiv`` reads its 1-D
      ``scalars`` tensor on the host, as PyTorch does (it must be a CPU tensor there); inside
      ``jtorch.compile`` that read makes the call run eagerly.
    - A 0-d tensor given as the ``scalar`` of ``sub``/``clamp_*``/``maximum``/``minimum``/
      ``pow`` takes part in type promotion as a 0-d tensor, not as PyTorch's number: integer
      tensors with a float64 0-d scalar give float64 results here (PyTorch: the default dtype).
"""

from __future__ import annotations

import numbers

from .._core.tensor_base import TensorBase
from ._registry import export
from .norms import vector_norm
from .pointwise import pow as _pow

# the one-tensor ops with a foreach form (each also in place)
UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
         "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal",
         "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc")


def _type_name(value):
    return "Tensor" if isinstance(value, TensorBase) else type(value).__name__


def _invalid(name, args, kwargs, overloads):
    """PyTorch's TypeError for arguments that match none of an op's overloads."""
    got = ", ".join([_type_name(a) for a in args] +
                    [f"{k}={_type_name(v)}" for k, v in kwargs.items()])
    lines = "".join(f" * ({o})\n" for o in overloads)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                     f"but expected one of:\n{lines}")


def _tensors(value, position):
    """A tensor-list argument, checked as PyTorch's argument parser and kernels check it."""
    for i, t in enumerate(value):
        if not isinstance(t, TensorBase):
            raise TypeError(f"expected Tensor as element {i} in argument {position}, but got "
                            f"{type(t).__name__}")
    if not value:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return value


def _same_length(tensors, others):
    if len(others) != len(tensors):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got "
                           f"{len(tensors)} and {len(others)}")
    return others


def _scalar_list(tensors, scalars):
    if len(scalars) != len(tensors):
        raise RuntimeError("Tensor list must have same number of elements as scalar list.")
    return scalars


def _is_scalar(value):
    return isinstance(value, numbers.Number) or (
        isinstance(value, TensorBase) and value.dim() == 0)


def _is_list_of(value, kind):
    return isinstance(value, (list, tuple)) and all(isinstance(v, kind) for v in value)


def _operands(tensors, other, *, tensor_overload):
    """Each tensor's second operand: the same scalar (a number or a 0-d tensor), one of a list
    of scalars, or one of a list of tensors."""
    n = len(tensors)
    if isinstance(other, TensorBase) and tensor_overload and other.dim() != 0:
        raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {other.dim()} "
                           f"dimensions and {other.numel()} elements.")
    if _is_scalar(other):
        return [other] * n
    if _is_list_of(other, TensorBase) and other:
        return _same_length(tensors, _tensors(other, 1))
    if _is_list_of(other, numbers.Number):
        return _scalar_list(tensors, other)
    if isinstance(other, (list, tuple)):
        return _same_length(tensors, _tensors(other, 1))
    return None


def _publish(name, out_of_place, in_place):
    """Publish the pair as ``torch._foreach_<name>`` and ``torch._foreach_<name>_``."""
    out_of_place.__name__, in_place.__name__ = f"_foreach_{name}", f"_foreach_{name}_"
    return (export(f"_foreach_{name}")(out_of_place),
            export(f"_foreach_{name}_")(in_place))


def _binary(name, method=None, *, alpha=False, tensor_overload=False):
    """The out-of-place and in-place foreach forms ``_foreach_<name>`` of a binary op, run by
    Tensor method ``method`` (default ``name``): ``(self, scalar | scalars | other[, alpha])``."""
    method = method or name
    overloads = ["tuple of Tensors self, Number scalar",
                 "tuple of Tensors self, tuple of Scalars scalars",
                 "tuple of Tensors self, tuple of Tensors other" + (", *, Number alpha = 1"
                                                                     if alpha else "")]
    if tensor_overload:
        overloads.append("tuple of Tensors self, Tensor other" + (", *, Number alpha = 1"
                                                                  if alpha else ""))

    def bind(fname, self, args, kwargs):
        extra = dict(kwargs)
        a = extra.pop("alpha", None)
        keys = [k for k in ("scalar", "scalars", "other") if k in extra]
        if len(args) + len(keys) != 1 or set(extra) - {"scalar", "scalars", "other"} or \
                not isinstance(self, (list, tuple)) or (a is not None and not alpha):
            raise _invalid(fname, (self, *args), kwargs, overloads)
        other = args[0] if args else extra[keys[0]]
        key = keys[0] if keys else None
        ok = {"scalar": _is_scalar(other), "scalars": _is_list_of(other, numbers.Number),
              "other": isinstance(other, (list, tuple, TensorBase)), None: True}[key]
        is_tensors = isinstance(other, TensorBase) or (_is_list_of(other, TensorBase) and other)
        if not ok or (a is not None and not is_tensors):
            raise _invalid(fname, (self, *args), kwargs, overloads)
        operands = _operands(_tensors(self, 0), other, tensor_overload=tensor_overload)
        if operands is None:
            raise _invalid(fname, (self, *args), kwargs, overloads)
        return operands, ({} if a is None else {"alpha": a})

    def out_of_place(self, *args, **kwargs):
        operands, extra = bind(f"_foreach_{name}", self, args, kwargs)
        return tuple(getattr(t, method)(o, **extra) for t, o in zip(self, operands))

    def in_place(self, *args, **kwargs):
        operands, extra = bind(f"_foreach_{name}_", self, args, kwargs)
        for t, o in zip(self, operands):
            getattr(t, method + "_")(o, **extra)
        return self

    return _publish(name, out_of_place, in_place)


def _unary(name):
    def out_of_place(self):
        return tuple(getattr(t, name)() for t in _tensors(self, 0))

    def in_place(self):
        for t in _tensors(self, 0):
            getattr(t, name + "_")()
        return self

    return _publish(name, out_of_place, in_place)


_foreach_abs, _foreach_abs_ = _unary("abs")
_foreach_acos, _foreach_acos_ = _unary("acos")
_foreach_asin, _foreach_asin_ = _unary("asin")
_foreach_atan, _foreach_atan_ = _unary("atan")
_foreach_ceil, _foreach_ceil_ = _unary("ceil")
_foreach_cos, _foreach_cos_ = _unary("cos")
_foreach_cosh, _foreach_cosh_ = _unary("cosh")
_foreach_erf, _foreach_erf_ = _unary("erf")
_foreach_erfc, _foreach_erfc_ = _unary("erfc")
_foreach_exp, _foreach_exp_ = _unary("exp")
_foreach_expm1, _foreach_expm1_ = _unary("expm1")
_foreach_floor, _foreach_floor_ = _unary("floor")
_foreach_frac, _foreach_frac_ = _unary("frac")
_foreach_lgamma, _foreach_lgamma_ = _unary("lgamma")
_foreach_log, _foreach_log_ = _unary("log")
_foreach_log10, _foreach_log10_ = _unary("log10")
_foreach_log1p, _foreach_log1p_ = _unary("log1p")
_foreach_log2, _foreach_log2_ = _unary("log2")
_foreach_neg, _foreach_neg_ = _unary("neg")
_foreach_reciprocal, _foreach_reciprocal_ = _unary("reciprocal")
_foreach_round, _foreach_round_ = _unary("round")
_foreach_rsqrt, _foreach_rsqrt_ = _unary("rsqrt")
_foreach_sigmoid, _foreach_sigmoid_ = _unary("sigmoid")
_foreach_sign, _foreach_sign_ = _unary("sign")
_foreach_sin, _foreach_sin_ = _unary("sin")
_foreach_sinh, _foreach_sinh_ = _unary("sinh")
_foreach_sqrt, _foreach_sqrt_ = _unary("sqrt")
_foreach_tan, _foreach_tan_ = _unary("tan")
_foreach_tanh, _foreach_tanh_ = _unary("tanh")
_foreach_trunc, _foreach_trunc_ = _unary("trunc")

_foreach_add, _foreach_add_ = _binary("add", alpha=True, tensor_overload=True)
_foreach_sub, _foreach_sub_ = _binary("sub", alpha=True)
_foreach_mul, _foreach_mul_ = _binary("mul", tensor_overload=True)
_foreach_div, _foreach_div_ = _binary("div", tensor_overload=True)
_foreach_clamp_max, _foreach_clamp_max_ = _binary("clamp_max")
_foreach_clamp_min, _foreach_clamp_min_ = _binary("clamp_min")
# maximum/minimum are clamp_min/clamp_max by each operand (NaN from either side, as maximum),
# which also have the in-place form that Tensor.maximum lacks
_foreach_maximum, _foreach_maximum_ = _binary("maximum", "clamp_min")
_foreach_minimum, _foreach_minimum_ = _binary("minimum", "clamp_max")


def _weights(tensors, weight):
    """lerp's third operand: one scalar, a list of scalars or a list of tensors."""
    if _is_scalar(weight):
        return [weight] * len(tensors)
    if _is_list_of(weight, numbers.Number):
        return _scalar_list(tensors, weight)
    return _same_length(tensors, _tensors(weight, 2))


@export("_foreach_lerp")
def _foreach_lerp(self, tensors1, weight=None, *, weights=None):
    """``[lerp(s, e, w) ...]``: ``weight`` a number, or a list of numbers or of tensors."""
    ends = _same_length(_tensors(self, 0), _tensors(tensors1, 1))
    ws = _weights(self, weights if weight is None else weight)
    return tuple(s.lerp(e, w) for s, e, w in zip(self, ends, ws))


@export("_foreach_lerp_")
def _foreach_lerp_(self, tensors1, weight=None, *, weights=None):
    ends = _same_length(_tensors(self, 0), _tensors(tensors1, 1))
    for s, e, w in zip(self, ends, _weights(self, weights if weight is None else weight)):
        s.lerp_(e, w)
    return self


def _values(tensors, value, scalars):
    """addcmul's/addcdiv's multipliers: ``value``, a list of numbers, or a 1-D tensor of them
    (read on the host, as PyTorch reads its CPU tensor)."""
    if scalars is None:
        scalars = value
    if isinstance(scalars, TensorBase):
        if scalars.dim() != 1 or scalars.numel() != len(tensors):
            raise RuntimeError(f"Expected length of scalars to match input of length "
                               f"{len(tensors)} but got {scalars.numel()} instead.")
        return scalars.tolist()
    if isinstance(scalars, (list, tuple)):
        return _scalar_list(tensors, scalars)
    return [scalars] * len(tensors)


def _pointwise_fused(name):
    def out_of_place(self, tensor1, tensor2, value=1, *, scalars=None):
        t1 = _same_length(_tensors(self, 0), _tensors(tensor1, 1))
        t2 = _same_length(self, _tensors(tensor2, 2))
        vs = _values(self, value, scalars)
        return tuple(getattr(s, name)(a, b, value=v) for s, a, b, v in zip(self, t1, t2, vs))

    def in_place(self, tensor1, tensor2, value=1, *, scalars=None):
        t1 = _same_length(_tensors(self, 0), _tensors(tensor1, 1))
        t2 = _same_length(self, _tensors(tensor2, 2))
        for s, a, b, v in zip(self, t1, t2, _values(self, value, scalars)):
            getattr(s, name + "_")(a, b, value=v)
        return self

    return _publish(name, out_of_place, in_place)


_foreach_addcmul, _foreach_addcmul_ = _pointwise_fused("addcmul")
_foreach_addcdiv, _foreach_addcdiv_ = _pointwise_fused("addcdiv")


@export("_foreach_pow")
def _foreach_pow(self, exponent):
    """``[pow(t, e) ...]`` (a number, a list of numbers or of tensors), or, with a number as
    ``self``, ``[pow(self, e) for e in exponent]``."""
    if isinstance(self, numbers.Number):
        return tuple(_pow(self, e) for e in _tensors(exponent, 1))
    return tuple(t.pow(e) for t, e in zip(self, _exponents(self, exponent)))


@export("_foreach_pow_")
def _foreach_pow_(self, exponent):
    for t, e in zip(self, _exponents(self, exponent)):
        t.pow_(e)
    return self


def _exponents(tensors, exponent):
    operands = _operands(_tensors(tensors, 0), exponent, tensor_overload=False)
    if operands is None:
        raise _invalid("_foreach_pow", (tensors, exponent), {},
                       ["tuple of Tensors self, Number exponent",
                        "tuple of Tensors self, tuple of Scalars exponent",
                        "tuple of Tensors self, tuple of Tensors exponent",
                        "Number self, tuple of Tensors exponent"])
    return operands


@export("_foreach_norm")
def _foreach_norm(self, ord=2, dtype=None):
    """``[linalg.vector_norm(t, ord, dtype=dtype) ...]``."""
    return tuple(vector_norm(t, ord, dtype=dtype) for t in _tensors(self, 0))


@export("_foreach_powsum")
def _foreach_powsum(self, ord=2, dtype=None):
    """``[sum(|t| ** ord) ...]``: the norm before its root."""
    out = []
    for t in _tensors(self, 0):
        if not (t.is_floating_point() or t.is_complex()):
            raise NotImplementedError(f'"powsum_cpu" not implemented for '
                                      f"'{t.dtype.scalar_name}'")
        a = t.abs() if dtype is None else t.abs().to(dtype)
        out.append(a.pow(ord).sum())
    return tuple(out)


@export("_foreach_max")
def _foreach_max(self):
    """``[t.max() ...]``."""
    for t in _tensors(self, 0):
        if t.numel() == 0:
            raise RuntimeError("_foreach_max cannot compute the maximum of an empty tensor; "
                               "max over zero elements is undefined.")
    return tuple(t.max() for t in self)


@export("_foreach_mm")
def _foreach_mm(self, mat2):
    """``[t @ m ...]`` for 2-D tensors."""
    return tuple(t.mm(m) for t, m in zip(self, _same_length(_tensors(self, 0),
                                                            _tensors(mat2, 1))))


@export("_foreach_clone")
def _foreach_clone(self, *, memory_format=None):
    """``[t.clone() ...]``."""
    kw = {} if memory_format is None else {"memory_format": memory_format}
    return tuple(t.clone(**kw) for t in _tensors(self, 0))


@export("_foreach_copy_")
def _foreach_copy_(self, src, non_blocking=False):
    """``t.copy_(s)`` for each pair; returns ``self``."""
    for t, s in zip(self, _same_length(_tensors(self, 0), _tensors(src, 1))):
        t.copy_(s, non_blocking)
    return self


@export("_foreach_zero_")
def _foreach_zero_(self):
    """``t.zero_()`` for each tensor; returns ``self``."""
    for t in _tensors(self, 0):
        t.zero_()
    return self
