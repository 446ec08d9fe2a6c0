"""PyTorch dtypes over jnp dtypes, and PyTorch's type-promotion rules (never NumPy's/JAX's)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

# categories, ordered as PyTorch orders them for promotion
BOOL, INT, FLOAT, COMPLEX = 0, 1, 2, 3


class dtype:
    """A PyTorch dtype. ``jtorch.float32`` etc. are the only instances."""

    __slots__ = ("name", "np", "category", "itemsize", "is_signed", "_aliases")

    def __init__(self, name, np_dtype, category, is_signed=True):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.category = category
        self.itemsize = self.np.itemsize
        self.is_signed = is_signed

    @property
    def is_floating_point(self):
        return self.category == FLOAT

    @property
    def is_complex(self):
        return self.category == COMPLEX

    def to_real(self):
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    def to_complex(self):
        return {"float64": complex128}.get(self.name, complex64)

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_lookup, (self.name,))


def _lookup(name):
    return _BY_NAME[name]


float16 = dtype("float16", jnp.float16, FLOAT)
bfloat16 = dtype("bfloat16", jnp.bfloat16, FLOAT)
float32 = dtype("float32", jnp.float32, FLOAT)
float64 = dtype("float64", jnp.float64, FLOAT)
complex64 = dtype("complex64", jnp.complex64, COMPLEX)
complex128 = dtype("complex128", jnp.complex128, COMPLEX)
int8 = dtype("int8", jnp.int8, INT)
int16 = dtype("int16", jnp.int16, INT)
int32 = dtype("int32", jnp.int32, INT)
int64 = dtype("int64", jnp.int64, INT)
uint8 = dtype("uint8", jnp.uint8, INT, is_signed=False)
bool_ = dtype("bool", jnp.bool_, BOOL, is_signed=False)

ALL = (float16, bfloat16, float32, float64, complex64, complex128,
       int8, int16, int32, int64, uint8, bool_)
_BY_NAME = {d.name: d for d in ALL}
_BY_NP = {d.np: d for d in ALL}

# PyTorch's aliases, exported by jtorch/__init__.py
ALIASES = {
    "half": float16, "float": float32, "double": float64, "cfloat": complex64,
    "cdouble": complex128, "short": int16, "int": int32, "long": int64, "bool": bool_,
}

_default_float = [float32]


def get_default_dtype():
    """Returns the current default floating point dtype (``torch.float32`` at start)."""
    return _default_float[0]


def set_default_dtype(d):
    """Sets the default floating point dtype; only float16/bfloat16/float32/float64 allowed."""
    if not isinstance(d, dtype) or d.category != FLOAT:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default_float[0] = d


def from_np(np_dtype) -> dtype:
    """The jtorch dtype of a NumPy/JAX dtype."""
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(f"jtorch has no dtype for numpy/jax dtype {np_dtype}") from None


def to_dtype(d) -> dtype:
    """Accepts a jtorch dtype, a NumPy dtype or a Python type (float, int, bool, complex)."""
    if isinstance(d, dtype):
        return d
    if d is float:
        return get_default_dtype()
    if d is int:
        return int64
    if d is bool:
        return bool_
    if d is complex:
        return get_default_dtype().to_complex()
    return from_np(d)


def promote_types(a: dtype, b: dtype) -> dtype:
    """torch.promote_types: the smallest dtype to which both can be cast without losing category."""
    if a is b:
        return a
    if a.category != b.category:
        lo, hi = (a, b) if a.category < b.category else (b, a)
        if hi.category == COMPLEX and lo.category == FLOAT and lo.itemsize > hi.itemsize // 2:
            return complex128
        return hi
    if a.category == INT:
        if a.is_signed != b.is_signed:  # uint8 with a signed int
            signed = a if a.is_signed else b
            return signed if signed.itemsize > 1 else int16
        return a if a.itemsize > b.itemsize else b
    if {a.name, b.name} == {"float16", "bfloat16"}:
        return float32
    return a if a.itemsize > b.itemsize else b


def can_cast(from_: dtype, to: dtype) -> bool:
    """torch.can_cast: casting allowed unless it lowers the category (float -> int, etc.)."""
    if from_.category == BOOL:
        return True
    return to.category >= from_.category


def scalar_category(x) -> int:
    if isinstance(x, bool):
        return BOOL
    if isinstance(x, int):
        return INT
    if isinstance(x, float):
        return FLOAT
    return COMPLEX


def default_for_category(cat: int) -> dtype:
    """The dtype a lone Python scalar of this category becomes."""
    if cat == BOOL:
        return bool_
    if cat == INT:
        return int64
    if cat == FLOAT:
        return get_default_dtype()
    return get_default_dtype().to_complex()


def result_type_from(dims_dtypes, zero_dim_dtypes, scalar_cats) -> dtype:
    """PyTorch's three-tier promotion: dimensioned tensors > 0-d tensors > Python scalars.

    A lower tier only matters when it has a higher category than every higher tier; then it
    contributes its own dtype (0-d tensors) or the default dtype of its category (scalars).
    """
    out = None
    for d in dims_dtypes:
        out = d if out is None else promote_types(out, d)
    zd = None
    for d in zero_dim_dtypes:
        zd = d if zd is None else promote_types(zd, d)
    if zd is not None:
        if out is None:
            out = zd
        elif zd.category > out.category:
            out = promote_types(out, zd) if zd.category == COMPLEX else zd
            if zd.category == COMPLEX and out.category == COMPLEX:
                out = promote_types(out, zd)
    if scalar_cats:
        sc = max(scalar_cats)
        if out is None:
            out = default_for_category(sc)
        elif sc > out.category:
            if sc == COMPLEX and out.category == FLOAT:
                out = out.to_complex() if out.itemsize <= 8 else complex128
                if out is complex64 and get_default_dtype() is float64:
                    out = complex128
            else:
                out = default_for_category(sc)
    return out
