"""Public dtype functions: finfo, iinfo, promote_types, result_type, can_cast and the tensor
predicates (is_tensor, is_floating_point, is_complex, numel)."""

from __future__ import annotations

import math

import jax
import ml_dtypes
import numpy as np

from .._core import dtypes, torch_function
from .._core.tensor_base import TensorBase
from ._registry import export


def _argname(x):
    if isinstance(x, TensorBase):
        return "Tensor"
    if isinstance(x, dtypes.dtype):
        return "torch.dtype"
    return type(x).__name__


def _dtype_arg(fn, name, pos, x):
    """A dtype parameter: a jtorch dtype or a Python type (float means float64, as in
    PyTorch's argument parser)."""
    if isinstance(x, dtypes.dtype):
        return x
    if isinstance(x, type) and x in dtypes._PY_TYPES:
        return dtypes._PY_TYPES[x]
    raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be torch.dtype, not "
                    f"{_argname(x)}")


def _tensor_arg(fn, x):
    if not isinstance(x, TensorBase):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{_argname(x)}")
    return x


@export()
class finfo:
    """Machine limits of a floating dtype (the default dtype when none is given); a complex
    dtype gives its real part's limits."""

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type=None):  # noqa: A002 - PyTorch's parameter name
        dt = dtypes.get_default_dtype() if type is None else _dtype_arg("finfo", "type", 1, type)
        if dt.category < dtypes.FLOAT:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        real = dt.to_real()
        info = ml_dtypes.finfo(real.np)
        self.bits = real.itemsize * 8
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = float(info.tiny)
        self.smallest_normal = float(info.smallest_normal)
        # c10's numeric_limits: digits10 = floor((mantissa bits) * log10(2))
        self.resolution = 10.0 ** -math.floor(info.nmant * math.log10(2))
        if real is dtypes.float8_e5m2fnuz:
            self.eps = 0.125  # c10's epsilon() for it (0x34), not the 2**-2 of its format
        self.dtype = real.name

    def _key(self):
        return (self.bits, self.eps, self.max, self.min, self.tiny, self.dtype)

    def __eq__(self, other):
        return isinstance(other, finfo) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


@export()
class iinfo:
    """Machine limits of an integer dtype."""

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, type):  # noqa: A002 - PyTorch's parameter name
        dt = _dtype_arg("iinfo", "type", 1, type)
        if dt.category == dtypes.BOOL:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if dt.category != dtypes.INT:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo "
                            "to handle 'torch.iinfo'")
        info = np.iinfo(dt.np)
        self.bits = dt.itemsize * 8
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = dt.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(self.dtype)

    def __repr__(self):
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"


@export()
def promote_types(type1, type2):
    """The smallest dtype to which both dtypes can be cast without losing category."""
    return dtypes.promote_types(_dtype_arg("promote_types", "type1", 1, type1),
                           _dtype_arg("promote_types", "type2", 2, type2))


@export()
def can_cast(from_, to):
    """Whether PyTorch's casting rules allow ``from_`` -> ``to`` (no complex -> real,
    floating -> integral or non-bool -> bool)."""
    return dtypes.can_cast(_dtype_arg("can_cast", "from_", 1, from_),
                      _dtype_arg("can_cast", "to", 2, to))


_RESULT_SIGS = ("Tensor tensor, Tensor other", "Number scalar, Tensor tensor",
                "Tensor tensor, Number other", "Number scalar1, Number scalar2")

_NUMBERS = (bool, int, float, complex)


@export()
def result_type(*args, **kwargs):
    """The dtype an arithmetic op on these two operands (tensors or Python numbers) returns,
    by PyTorch's rules: dimensioned tensors > 0-d tensors > Python numbers, a lower tier
    counting only when its category (bool < int < float < complex) is higher."""
    ops = list(args)
    for k in ("tensor", "scalar", "scalar1", "other", "scalar2"):
        if k in kwargs:
            ops.append(kwargs.pop(k))
    ops = [x.item() if isinstance(x, np.generic) else x for x in ops]
    if kwargs or len(ops) != 2 or not all(isinstance(x, (TensorBase, *_NUMBERS)) for x in ops):
        got = ", ".join(_argname(x) for x in ops)
        marks = ", ".join(f"!{_argname(x)}!" for x in ops)
        lines = "".join(f" * ({s})\n      didn't match because some of the arguments have "
                        f"invalid types: ({marks})\n" for s in _RESULT_SIGS)
        raise TypeError(f"result_type() received an invalid combination of arguments - got "
                        f"({got}), but expected one of:\n{lines}")
    dims, zeros, scalars = [], [], []
    for x in ops:
        if isinstance(x, TensorBase):
            (dims if x.ndim else zeros).append(x.dtype)
        else:
            scalars.append(dtypes.scalar_category(x))
    return dtypes.result_type_from(dims, zeros, scalars)


@export()
def is_tensor(obj):
    """Whether ``obj`` is a jtorch Tensor."""
    return isinstance(obj, TensorBase)


@export("_assert")
@torch_function.overridable("torch._assert")
def _assert(condition, message):
    """``torch._assert``: ``assert condition, message`` as a function that symbolic tracing
    sees (torchvision's models call it); a tensor condition is read with ``bool()``."""
    assert condition, message  # noqa: S101 - this function is PyTorch's assert


@export("_assert_async")
def _assert_async(input, assert_msg=None):
    """``torch._assert_async``: raise RuntimeError (``assert_msg``, or PyTorch's message) when
    the one-element tensor ``input`` is zero. PyTorch checks it without a host sync on CUDA;
    jtorch reads it on the host, and inside a traced program (``jtorch.compile``, torch.func),
    which cannot raise on a value, the check is skipped."""
    n = math.prod(input.shape)
    if n != 1:
        values = "no values" if n == 0 else "more than one value"
        raise RuntimeError(f"Boolean value of Tensor with {values} is ambiguous")
    if isinstance(input._value, jax.core.Tracer):
        return
    if not np.asarray(input._value).reshape(()):
        raise RuntimeError(assert_msg if assert_msg is not None else
                           "Expected Tensor with single nonzero value, but got zero")


@export()
def is_floating_point(input):
    return _tensor_arg("is_floating_point", input).dtype.category == dtypes.FLOAT


@export()
def is_complex(input):
    return _tensor_arg("is_complex", input).dtype.category == dtypes.COMPLEX


@export()
def numel(input):
    return _tensor_arg("numel", input).numel()


@export("typename")
def typename(obj):
    """``torch.typename``: the type's qualified name, jtorch's classes under their PyTorch
    names (``torch.nn.modules.linear.Linear``); a tensor's legacy type (``torch.FloatTensor``)."""
    if isinstance(obj, TensorBase):
        return dtypes.legacy_type_name(obj.dtype, obj.device, obj.is_sparse)
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    if module == "jtorch" or module.startswith("jtorch."):
        module = "torch" + module[len("jtorch"):]
    return f"{module}.{qualname}"


# ------------------------------------------------------------------ more predicates
@export(method=True)
def is_nonzero(input):
    """Whether a one-element tensor is nonzero (PyTorch's errors for any other size)."""
    return bool(_tensor_arg("is_nonzero", input))


@export(method=True)
def is_same_size(input, other):
    if not isinstance(other, TensorBase):
        raise TypeError("is_same_size(): argument 'other' (position 2) must be Tensor, not "
                        f"{_argname(other)}")
    return tuple(_tensor_arg("is_same_size", input).shape) == tuple(other.shape)


@export("is_signed")
def is_signed(input):
    return _tensor_arg("is_signed", input).dtype.is_signed


@export()
def detach(input):
    """``input.detach()``: the same values without autograd history."""
    return _tensor_arg("detach", input).detach()


@export()
def detach_(input):
    return _tensor_arg("detach_", input).detach_()


# jtorch has no lazy conjugation or negation: conj() and neg() compute their values, so no
# tensor carries PyTorch's conjugate or negative bit
@export(method=True)
def is_conj(input):
    """Always False: jtorch has no lazy conjugation (``conj()`` returns computed values)."""
    _tensor_arg("is_conj", input)
    return False


@export(method=True)
def is_neg(input):
    """Always False: jtorch has no lazy negation (no tensor carries PyTorch's negative bit)."""
    _tensor_arg("is_neg", input)
    return False


@export(method=True)
def resolve_conj(input):
    """``input`` itself: jtorch has no lazy conjugation, so there is nothing to resolve."""
    return _tensor_arg("resolve_conj", input)


@export(method=True)
def resolve_neg(input):
    """``input`` itself: jtorch has no lazy negation, so there is nothing to resolve."""
    return _tensor_arg("resolve_neg", input)
