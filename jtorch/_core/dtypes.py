"""PyTorch dtypes over jnp dtypes, and PyTorch's type-promotion rules (never NumPy's/JAX's)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .errors import not_implemented

# categories, ordered as PyTorch orders them for promotion
BOOL, INT, FLOAT, COMPLEX = 0, 1, 2, 3


class dtype:
    """A PyTorch dtype. ``jtorch.float32`` etc. are the only instances (compare with ``is``
    or ``==``)."""

    __slots__ = ("name", "np", "category", "itemsize", "is_signed", "scalar_name", "cpp_name",
                 "abbr")

    def __init__(self, name, np_dtype, category, scalar_name, cpp_name, abbr, is_signed=True):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.category = category
        self.itemsize = self.np.itemsize
        self.is_signed = is_signed
        self.scalar_name = scalar_name  # c10's ScalarType name, used in PyTorch's messages
        self.cpp_name = cpp_name        # the C++ type name some of PyTorch's messages print
        self.abbr = abbr

    @property
    def is_floating_point(self):
        return self.category == FLOAT

    @property
    def is_complex(self):
        return self.category == COMPLEX

    def to_real(self):
        """The real dtype of a complex dtype (complex64 -> float32); others unchanged."""
        return {"complex32": float16, "complex64": float32,
                "complex128": float64}.get(self.name, self)

    def to_complex(self):
        """The complex dtype with this real dtype (float32 -> complex64).

        PyTorch maps float16 to complex32, which jtorch does not have (JAX has no complex32):
        jtorch gives complex64 there.
        """
        if self.category < FLOAT:
            raise RuntimeError(f"Unknown Complex ScalarType for {self.scalar_name}")
        if self.category == COMPLEX:
            return self
        return complex128 if self is float64 else complex64

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_lookup, (self.name,))


def _lookup(name):
    return _BY_NAME[name]


float16 = dtype("float16", jnp.float16, FLOAT, "Half", "c10::Half", "f16")
bfloat16 = dtype("bfloat16", jnp.bfloat16, FLOAT, "BFloat16", "c10::BFloat16", "bf16")
float32 = dtype("float32", jnp.float32, FLOAT, "Float", "float", "f32")
float64 = dtype("float64", jnp.float64, FLOAT, "Double", "double", "f64")
complex64 = dtype("complex64", jnp.complex64, COMPLEX, "ComplexFloat", "c10::complex<float>",
                  "c64")
complex128 = dtype("complex128", jnp.complex128, COMPLEX, "ComplexDouble",
                   "c10::complex<double>", "c128")
int8 = dtype("int8", jnp.int8, INT, "Char", "signed char", "i8")
int16 = dtype("int16", jnp.int16, INT, "Short", "short int", "i16")
int32 = dtype("int32", jnp.int32, INT, "Int", "int", "i32")
int64 = dtype("int64", jnp.int64, INT, "Long", "long int", "i64")
uint8 = dtype("uint8", jnp.uint8, INT, "Byte", "unsigned char", "u8", is_signed=False)
bool_ = dtype("bool", jnp.bool_, BOOL, "Bool", "bool", "b8", is_signed=False)
# PyTorch's "shell" dtypes: storage, conversion and a few ops, and no promotion with the others
# (promote_types raises); JAX computes with them where PyTorch's CPU kernels are missing
uint16 = dtype("uint16", jnp.uint16, INT, "UInt16", "uint16_t", "u16", is_signed=False)
uint32 = dtype("uint32", jnp.uint32, INT, "UInt32", "uint32_t", "u32", is_signed=False)
uint64 = dtype("uint64", jnp.uint64, INT, "UInt64", "uint64_t", "u64", is_signed=False)
float8_e4m3fn = dtype("float8_e4m3fn", jnp.float8_e4m3fn, FLOAT, "Float8_e4m3fn",
                      "c10::Float8_e4m3fn", "f8e4m3fn")
float8_e5m2 = dtype("float8_e5m2", jnp.float8_e5m2, FLOAT, "Float8_e5m2", "c10::Float8_e5m2",
                    "f8e5m2")
float8_e4m3fnuz = dtype("float8_e4m3fnuz", jnp.float8_e4m3fnuz, FLOAT, "Float8_e4m3fnuz",
                        "c10::Float8_e4m3fnuz", "f8e4m3fnuz")
float8_e5m2fnuz = dtype("float8_e5m2fnuz", jnp.float8_e5m2fnuz, FLOAT, "Float8_e5m2fnuz",
                        "c10::Float8_e5m2fnuz", "f8e5m2fnuz")
float8_e8m0fnu = dtype("float8_e8m0fnu", jnp.float8_e8m0fnu, FLOAT, "Float8_e8m0fnu",
                       "c10::Float8_e8m0fnu", "f8e8m0fnu", is_signed=False)
FLOAT8 = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu)


class _NamedOnlyDtype(dtype):
    """A PyTorch dtype jtorch names but cannot hold: ``torch.complex32`` (JAX has no complex
    half). It compares, prints and answers ``is_complex``/``itemsize`` as PyTorch's does, so
    code that lists or compares dtypes (kornia's ``dtype in (..., torch.complex32, ...)``) runs;
    a tensor of it cannot be made: its NumPy dtype raises NotImplementedError naming it."""

    __slots__ = ()

    def __init__(self, name, category, scalar_name, cpp_name, abbr, itemsize):
        self.name, self.category, self.itemsize = name, category, itemsize
        self.scalar_name, self.cpp_name, self.abbr, self.is_signed = (scalar_name, cpp_name,
                                                                        abbr, True)

    @property
    def np(self):
        raise not_implemented(f"torch.{self.name}")


complex32 = _NamedOnlyDtype("complex32", COMPLEX, "ComplexHalf", "c10::complex<c10::Half>",
                            "c32", 4)
# PyTorch's quantized dtypes, named only (tensordict lists them among its dtypes)
qint8 = _NamedOnlyDtype("qint8", INT, "QInt8", "c10::qint8", "qi8", 1)
quint8 = _NamedOnlyDtype("quint8", INT, "QUInt8", "c10::quint8", "qu8", 1)
qint32 = _NamedOnlyDtype("qint32", INT, "QInt32", "c10::qint32", "qi32", 4)
quint4x2 = _NamedOnlyDtype("quint4x2", INT, "QUInt4x2", "c10::quint4x2", "qu4x2", 1)
quint2x4 = _NamedOnlyDtype("quint2x4", INT, "QUInt2x4", "c10::quint2x4", "qu2x4", 1)
NAMED_ONLY = (complex32, qint8, quint8, qint32, quint4x2, quint2x4)
WIDE_UNSIGNED = (uint16, uint32, uint64)

ALL = (float16, bfloat16, float32, float64, complex64, complex128,
       int8, int16, int32, int64, uint8, bool_) + WIDE_UNSIGNED + FLOAT8
_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update((d.name, d) for d in NAMED_ONLY)  # pickled dtypes load (not in ALL: no arrays)
_BY_NP = {d.np: d for d in ALL}

# PyTorch's aliases, exported by jtorch/__init__.py
ALIASES = {
    "half": float16, "float": float32, "double": float64, "cfloat": complex64,
    "cdouble": complex128, "short": int16, "int": int32, "long": int64, "bool": bool_,
}

_default_float = [float32]
_default_complex = [complex64]


def get_default_dtype():
    """Returns the current default floating point dtype (``torch.float32`` at start)."""
    return _default_float[0]


def default_complex():
    """The dtype Python complex numbers become: complex128 when the default dtype is float64,
    else complex64 (PyTorch's complex32 for a float16 default does not exist in jtorch)."""
    return _default_complex[0]


def set_default_dtype(d):
    """Sets the default floating point dtype (float16, bfloat16, float32 or float64); the
    default complex dtype follows (complex128 for float64, else complex64)."""
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the "
                        "default type")
    if d.category != FLOAT:
        raise TypeError("only floating-point types are supported as the default type")
    old = _default_float[0]
    if d is not old:
        for fn in _ON_CHANGE:
            fn(old, d)
    _default_float[0] = d
    _default_complex[0] = complex128 if d is float64 else complex64


_ON_CHANGE = []


def on_default_dtype_change(fn):
    """Register ``fn(old, new)`` to run when the default dtype changes from ``old`` to ``new``
    (the kernel layer sets aside its compiled kernels, which baked the old default in)."""
    _ON_CHANGE.append(fn)


def legacy_type_name(d: dtype, device, sparse=False) -> str:
    """PyTorch's legacy type string of a tensor: ``'torch.FloatTensor'``,
    ``'torch.cuda.LongTensor'``, ``'torch.sparse.DoubleTensor'`` (a sparse COO one)."""
    prefix = "torch.cuda." if device.type == "cuda" else "torch."
    return f"{prefix}{'sparse.' if sparse else ''}{d.scalar_name}Tensor"


def from_np(np_dtype) -> dtype:
    """The jtorch dtype of a NumPy/JAX dtype."""
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(f"jtorch has no dtype for numpy/jax dtype {np_dtype}") from None


_PY_TYPES = {float: float64, int: int64, bool: bool_, complex: complex128}


def to_dtype(d) -> dtype:
    """A dtype argument: a jtorch dtype, a NumPy dtype or a Python type. As in PyTorch, the
    Python types ``float``/``complex`` mean float64/complex128 (not the default dtype)."""
    if isinstance(d, dtype):
        return d
    if isinstance(d, type) and d in _PY_TYPES:
        return _PY_TYPES[d]
    return from_np(d)


def promote_types(a: dtype, b: dtype) -> dtype:
    """torch.promote_types: the smallest dtype to which both can be cast without losing
    category (bool < integers < floating < complex)."""
    if a is b:
        return a
    if a in FLOAT8 or b in FLOAT8:
        raise RuntimeError(f"Promotion for Float8 Types is not supported, attempted to promote "
                           f"{a.scalar_name} and {b.scalar_name}")
    if (a in WIDE_UNSIGNED and b.category != FLOAT) or (b in WIDE_UNSIGNED
                                                         and a.category != FLOAT):
        raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {a.scalar_name} and {b.scalar_name}")
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
    """torch.can_cast: allowed unless it lowers the category (complex -> real, floating ->
    integral, non-bool -> bool)."""
    return from_.category == BOOL or to.category >= from_.category


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
    return default_complex()


def _promote_all(dtypes):
    out = None
    for d in dtypes:
        out = d if out is None else promote_types(out, d)
    return out


def _combine(higher, lower):
    """c10's combine_categories: a lower tier counts only when its category is higher."""
    if higher is None:
        return lower
    if lower is None or higher.category == COMPLEX:
        return higher
    if lower.category == COMPLEX:
        # a floating higher tier keeps its precision
        return higher.to_complex() if higher.category == FLOAT else lower
    if higher.category == FLOAT:
        return higher
    if higher.category == BOOL or lower.category == FLOAT:
        return promote_types(higher, lower)
    return higher


def result_type_from(dims_dtypes, zero_dim_dtypes, scalar_cats) -> dtype:
    """PyTorch's three-tier promotion: dimensioned tensors > 0-d tensors > Python scalars.

    Each tier is promoted on its own (a Python float counts as the default dtype, a complex
    as the default complex dtype, an int as int64); then, as c10's result_type,
    ``combine(dims, combine(zero_dim, scalars))``.
    """
    wrapped = _promote_all(default_for_category(c) for c in scalar_cats)
    return _combine(_promote_all(dims_dtypes),
                    _combine(_promote_all(zero_dim_dtypes), wrapped))
