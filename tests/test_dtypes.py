"""dtypes: objects and aliases, promote_types / can_cast / result_type against PyTorch for every
pair, the default dtype, finfo/iinfo, and conversions (Tensor.to(dtype), .float(), .type()...)
including out-of-range casts and gradients through casts."""

import pickle
import warnings

import numpy as np
import pytest
import torch
from helpers import parity, raises_like

import jtorch
from jtorch._ops._registry import OPS

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64", "complex64", "complex128"]
ALIASES = ["half", "float", "double", "cfloat", "cdouble", "short", "int", "long", "bool"]
PAIRS = [(a, b) for a in NAMES for b in NAMES]


def T(name):
    return getattr(torch, name)


def J(name):
    return getattr(jtorch, name)


# ------------------------------------------------------------------------------ dtype objects
def test_dtype_objects_and_aliases():
    for n in NAMES + ALIASES:
        t, j = T(n), J(n)
        assert repr(j) == repr(t) and str(j) == str(t), n
        assert j.is_floating_point == t.is_floating_point, n
        assert j.is_complex == t.is_complex, n
        assert j.is_signed == t.is_signed, n
        assert j.itemsize == t.itemsize, n
        assert j.abbr == t.abbr, n
    assert jtorch.float is jtorch.float32 and jtorch.long is jtorch.int64
    assert jtorch.float32 == jtorch.float and jtorch.float32 != jtorch.float64
    assert jtorch.float32 != "float32" and torch.float32 != "float32"
    assert hash(jtorch.float) == hash(jtorch.float32)
    assert type(jtorch.float32) is jtorch.dtype
    for n in NAMES:
        assert pickle.loads(pickle.dumps(J(n))) is J(n)


@pytest.mark.parametrize("name", NAMES)
def test_to_real_to_complex(name):
    t, j = T(name), J(name)
    assert str(j.to_real()) == str(t.to_real())
    if name == "float16":
        # PyTorch: complex32, which jtorch (like JAX) does not have
        assert str(t.to_complex()) == "torch.complex32" and j.to_complex() is jtorch.complex64
    elif t.is_floating_point or t.is_complex:
        assert str(j.to_complex()) == str(t.to_complex())
    else:
        raises_like(lambda: t.to_complex(), lambda: j.to_complex())


# ------------------------------------------------------------------------------ promotion
def test_promote_types_every_pair():
    for a, b in PAIRS:
        assert str(jtorch.promote_types(J(a), J(b))) == str(torch.promote_types(T(a), T(b))), \
            (a, b)


def test_can_cast_every_pair():
    for a, b in PAIRS:
        assert jtorch.can_cast(J(a), J(b)) == torch.can_cast(T(a), T(b)), (a, b)
    assert jtorch.can_cast(from_=jtorch.float32, to=jtorch.int32) is False


def test_dtype_argument_errors_and_python_types():
    # Python types are dtypes in PyTorch's argument parser: float is float64
    for x, y in [(float, int), (int, bool), (complex, float), (bool, jtorch.int8)]:
        ty = y if isinstance(y, type) else T(str(y)[6:])
        assert str(jtorch.promote_types(x, y)) == str(torch.promote_types(x, ty))
        assert jtorch.can_cast(x, y) == torch.can_cast(x, ty)
    raises_like(lambda: torch.promote_types(torch.float32, "x"),
                lambda: jtorch.promote_types(jtorch.float32, "x"))
    raises_like(lambda: torch.promote_types(None, torch.float32),
                lambda: jtorch.promote_types(None, jtorch.float32))
    raises_like(lambda: torch.can_cast(torch.float32, 3),
                lambda: jtorch.can_cast(jtorch.float32, 3))


KINDS = ["dim", "zero", True, 3, 2.5, 1 + 2j]


def _operand(lib, kind, name):
    if not isinstance(kind, str):
        return kind
    return lib.ones((2,) if kind == "dim" else (), dtype=getattr(lib, name))


@pytest.mark.parametrize("dflt", ["float32", "float64", "float16"])
def test_result_type_exhaustive(dflt):
    """Every dtype pair and operand kind (dimensioned, 0-d, Python bool/int/float/complex)."""
    torch.set_default_dtype(T(dflt))
    jtorch.set_default_dtype(J(dflt))
    seen = 0
    for ka in KINDS:
        for kb in KINDS:
            for a, b in PAIRS:
                # a Python number has no dtype: take it once (with the "bool" row)
                if (not isinstance(ka, str) and a != "bool") or \
                        (not isinstance(kb, str) and b != "bool"):
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    want = str(torch.result_type(_operand(torch, ka, a), _operand(torch, kb, b)))
                got = str(jtorch.result_type(_operand(jtorch, ka, a), _operand(jtorch, kb, b)))
                if want == "torch.complex32":  # no complex32 in jtorch: complex64
                    want = "torch.complex64"
                assert got == want, (ka, a, kb, b)
                seen += 1
    assert seen == 28 * 28


def test_result_type_arguments():
    t = jtorch.ones(2, dtype=jtorch.int32)
    assert jtorch.result_type(tensor=t, other=2.0) is jtorch.float32
    assert jtorch.result_type(scalar1=1, scalar2=2.0) is jtorch.float32
    assert jtorch.result_type(t, np.float64(1.0)) is jtorch.float32
    raises_like(lambda: torch.result_type("a", 1), lambda: jtorch.result_type("a", 1))
    raises_like(lambda: torch.result_type(torch.ones(1), [1]),
                lambda: jtorch.result_type(jtorch.ones(1), [1]))


def test_mixed_op_dtypes():
    """A few ops' dtypes against torch, beyond add/mul (see test_properties_promotion.py)."""
    cases = [
        lambda L: L.ones(3, dtype=L.int32) / 2,
        lambda L: L.ones(3, dtype=L.int64) * 2.5,
        lambda L: L.ones(3, dtype=L.uint8) + L.tensor(-1, dtype=L.int8),
        lambda L: L.ones(3, dtype=L.float16) + L.tensor(1.0, dtype=L.float64),
        lambda L: L.ones(3, dtype=L.bool) + L.tensor(3, dtype=L.int16),
        lambda L: L.ones(3, dtype=L.float32) * (1 + 1j),
        lambda L: L.ones(3, dtype=L.int8) - 1000,
        lambda L: L.ones(3, dtype=L.bfloat16) + L.ones(3, dtype=L.float16),
    ]
    for f in cases:
        t, j = f(torch), f(jtorch)
        assert str(j.dtype) == str(t.dtype)
        np.testing.assert_array_equal(np.asarray(j.tolist()), np.asarray(t.tolist()))


# ------------------------------------------------------------------------------ default dtype
@pytest.mark.parametrize("dflt", ["float64", "float16", "float32"])
def test_default_dtype_effects(dflt):
    torch.set_default_dtype(T(dflt))
    jtorch.set_default_dtype(J(dflt))
    assert str(jtorch.get_default_dtype()) == str(torch.get_default_dtype())
    makers = [lambda L: L.tensor([1.0]), lambda L: L.tensor(2.5), lambda L: L.arange(1.0),
              lambda L: L.full((2,), 1.0), lambda L: L.zeros(2), lambda L: L.tensor([1, 2]),
              lambda L: L.tensor([True]), lambda L: L.ones(2, dtype=L.int32) * 1.5,
              lambda L: L.tensor(1.0, dtype=L.float64) + 1,
              lambda L: L.ones(2, dtype=L.int64) + 1j, lambda L: L.tensor([1j])]
    for f in makers:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = str(f(torch).dtype)
        got = str(f(jtorch).dtype)
        if dflt == "float16" and want == "torch.complex32":
            want = "torch.complex64"  # documented: no complex32
        assert got == want


def test_set_default_dtype_errors():
    for bad in [jtorch.int32, jtorch.complex64]:
        tbad = T(str(bad)[6:])
        raises_like(lambda t=tbad: torch.set_default_dtype(t),
                    lambda j=bad: jtorch.set_default_dtype(j))
    for bad in [None, float, "float32"]:
        raises_like(lambda b=bad: torch.set_default_dtype(b),
                    lambda b=bad: jtorch.set_default_dtype(b))
    # bfloat16 is allowed; Python complex numbers then promote to complex64
    torch.set_default_dtype(torch.bfloat16)
    jtorch.set_default_dtype(jtorch.bfloat16)
    assert jtorch.get_default_dtype() is jtorch.bfloat16
    assert str(jtorch.tensor([1.5]).dtype) == str(torch.tensor([1.5]).dtype)
    for f in [lambda L: L.ones(1, dtype=L.int32) + 1j, lambda L: L.ones(1) + 1j,
              lambda L: L.ones(1, dtype=L.int32) * 2.5]:
        assert str(f(jtorch).dtype) == str(f(torch).dtype)


def test_default_dtype_change_recompiles_promotion():
    """Kernels cached before a default-dtype change must not keep the old promotion."""
    x = jtorch.ones(2, dtype=jtorch.int32)
    assert (x * 1.5).dtype is jtorch.float32
    jtorch.set_default_dtype(jtorch.float64)
    assert (x * 1.5).dtype is jtorch.float64
    jtorch.set_default_dtype(jtorch.float32)
    assert (x * 1.5).dtype is jtorch.float32


def test_default_dtype_change_keeps_each_defaults_kernels():
    """A default-dtype change sets the compiled kernels aside: switching back finds the same
    kernels (nothing freed or compiled again), and each default still promotes its own way."""
    mul = OPS["mul"]
    x = jtorch.ones(2, dtype=jtorch.int32)
    x * 1.5
    float32_kernels = dict(mul.kernel_cache)
    for dflt in ("float64", "float32", "float64", "float32"):
        torch.set_default_dtype(getattr(torch, dflt))
        jtorch.set_default_dtype(getattr(jtorch, dflt))
        got, want = x * 1.5, torch.ones(2, dtype=torch.int32) * 1.5
        assert str(got.dtype) == str(want.dtype) and got.tolist() == want.tolist()
    assert all(mul.kernel_cache[k] is v for k, v in float32_kernels.items())


# ------------------------------------------------------------------------------ finfo / iinfo
FLOATS = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


def test_finfo_iinfo():
    for n in FLOATS:
        t, j = torch.finfo(T(n)), jtorch.finfo(J(n))
        for a in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution",
                  "dtype"):
            assert getattr(j, a) == getattr(t, a) and type(getattr(j, a)) is \
                type(getattr(t, a)), (n, a)
        assert repr(j) == repr(t) and str(j) == str(t)
    assert jtorch.finfo() == jtorch.finfo(jtorch.float32)
    assert repr(jtorch.finfo()) == repr(torch.finfo())
    for n in INTS:
        t, j = torch.iinfo(T(n)), jtorch.iinfo(J(n))
        assert (j.bits, j.max, j.min, j.dtype) == (t.bits, t.max, t.min, t.dtype)
        assert repr(j) == repr(t)
    for n in INTS + ["bool"]:
        raises_like(lambda n=n: torch.finfo(T(n)), lambda n=n: jtorch.finfo(J(n)))
    for n in FLOATS + ["bool"]:
        raises_like(lambda n=n: torch.iinfo(T(n)), lambda n=n: jtorch.iinfo(J(n)))
    raises_like(lambda: torch.finfo("float32"), lambda: jtorch.finfo("float32"))


# ------------------------------------------------------------------------------ conversions
SPECIAL = [-300.0, -2.7, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.7, 127.0, 128.0, 255.0, 256.0,
           300.0, 70000.0, 2.0**31, -(2.0**31), 1e10, -1e10, 1e20, float("nan"), float("inf"),
           -float("inf")]


@pytest.mark.parametrize("src", ["float16", "bfloat16", "float32", "float64"])
def test_float_to_every_dtype(src):
    """Truncation, float -> bool, negative -> uint8 (255), NaN/inf/out of range -> the most
    negative int (PyTorch's x86 results; C++ leaves them undefined)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.tensor(SPECIAL, dtype=T(src))
        j = jtorch.tensor(SPECIAL, dtype=J(src))
    for dst in NAMES:
        want, got = t.to(T(dst)), j.to(J(dst))
        assert str(got.dtype) == str(want.dtype)
        if dst == "bfloat16":
            want, got = want.float(), got.float()
        np.testing.assert_array_equal(np.asarray(got.tolist()), np.asarray(want.tolist()),
                                      err_msg=f"{src}->{dst}")


@pytest.mark.parametrize("src", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                 "complex64", "complex128"])
def test_int_bool_complex_to_every_dtype(src):
    vals = {"bool": [True, False], "uint8": [0, 1, 200, 255], "complex64": [1 + 2j, -3.5j, 0j],
            "complex128": [1e300 + 1j, -2.5 + 0j, 0j]}.get(
        src, [-128, -1, 0, 1, 127, 255, 300, 70000, 2**31 - 1, -(2**31)])
    vals = [v for v in vals if src not in ("int8", "int16", "int32")
            or np.iinfo(src).min <= v <= np.iinfo(src).max]
    t, j = torch.tensor(vals, dtype=T(src)), jtorch.tensor(vals, dtype=J(src))
    for dst in NAMES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want, got = t.to(T(dst)), j.to(J(dst))
        assert str(got.dtype) == str(want.dtype)
        if dst == "bfloat16":
            want, got = want.float(), got.float()
        np.testing.assert_array_equal(np.asarray(got.tolist()), np.asarray(want.tolist()),
                                      err_msg=f"{src}->{dst}")


def test_complex_to_real_warns():
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        # an unusual shape: the warning comes when the cast kernel is traced
        jtorch.tensor([[[1 + 2j]] * 5] * 3).to(jtorch.float16)


METHODS = ["float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte",
           "bool", "cfloat", "cdouble"]


def test_conversion_methods_and_properties():
    t, j = torch.tensor([[-1.5, 2.25], [0.0, 3.0]]), jtorch.tensor([[-1.5, 2.25], [0.0, 3.0]])
    for m in METHODS:
        want, got = getattr(t, m)(), getattr(j, m)()
        assert str(got.dtype) == str(want.dtype), m
        assert got.type() == want.type(), m
        assert got.element_size() == want.element_size(), m
        assert got.is_floating_point() == want.is_floating_point(), m
        assert got.is_complex() == want.is_complex(), m
        assert jtorch.is_floating_point(got) == torch.is_floating_point(want), m
        assert jtorch.is_complex(got) == torch.is_complex(want), m
        assert repr(got) == repr(want), m
    assert j.float() is j and j.to(jtorch.float32) is j
    assert j.to(jtorch.float32, copy=True) is not j
    assert j.to(float).dtype is jtorch.float64 and j.to(complex).dtype is jtorch.complex128
    assert j.to(int).dtype is jtorch.int64 and j.to(bool).dtype is jtorch.bool
    assert jtorch.numel(j) == 4 and jtorch.is_tensor(j) and not jtorch.is_tensor([1])
    for f in (jtorch.is_floating_point, jtorch.is_complex, jtorch.numel):
        raises_like(lambda f=f: getattr(torch, f.__name__)(1.0), lambda f=f: f(1.0))


def test_type_method():
    t, j = torch.tensor([1.5, -2.0]), jtorch.tensor([1.5, -2.0])
    for s in ["torch.DoubleTensor", "torch.IntTensor", "torch.BoolTensor", "torch.HalfTensor",
              "torch.ComplexFloatTensor", "torch.ByteTensor", "torch.FloatTensor"]:
        assert repr(j.type(s)) == repr(t.type(s)), s
    assert j.type(jtorch.int16).dtype is jtorch.int16
    assert j.type("torch.FloatTensor") is j and j.type(jtorch.float32) is j
    for bad in ["torch.Foo", "torch.float64", "FloatTensor", float, int]:
        raises_like(lambda b=bad: t.type(b), lambda b=bad: j.type(b))
    raises_like(lambda: t.type(1), lambda: j.type(1))
    # without CUDA: PyTorch's CPU build fails loading its CUDA library; jtorch says so plainly
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        j.type("torch.cuda.FloatTensor")


def test_to_argument_forms_and_errors():
    t, j = torch.ones(2), jtorch.ones(2)
    other_t, other_j = torch.ones(1, dtype=torch.int32), jtorch.ones(1, dtype=jtorch.int32)
    forms = [
        (lambda L, x, o: x.to(L.float64, True)),
        (lambda L, x, o: x.to("cpu", L.float64, non_blocking=True)),
        (lambda L, x, o: x.to(device="cpu", dtype=L.int8)),
        (lambda L, x, o: x.to(o)),
        (lambda L, x, o: x.to(o, False, True)),
        (lambda L, x, o: x.to(L.device("cpu"), L.float16, False, False)),
        (lambda L, x, o: x.to(None)),
        (lambda L, x, o: x.to()),
        (lambda L, x, o: x.to(dtype=None, device=None)),
        (lambda L, x, o: x.to(memory_format=L.contiguous_format)),
    ]
    for f in forms:
        assert repr(f(jtorch, j, other_j)) == repr(f(torch, t, other_t))
    bad = [
        lambda L, x, o: x.to(L.float64, L.int32),
        lambda L, x, o: x.to(L.float64, "cpu"),
        lambda L, x, o: x.to(L.float64, foo=1),
        lambda L, x, o: x.to(L.float64, dtype=L.int32),
        lambda L, x, o: x.to(o, L.float32),
        lambda L, x, o: x.to(L.float64, memory_format=1),
        lambda L, x, o: x.to("cpu", L.float64, non_blocking=1),
        lambda L, x, o: x.to("cpu", L.float64, False, False, 3),
        lambda L, x, o: x.to("foo"),
        lambda L, x, o: x.to(-1),
    ]
    for f in bad:
        raises_like(lambda f=f: f(torch, t, other_t), lambda f=f: f(jtorch, j, other_j))


# ------------------------------------------------------------------------------ gradients
def test_grad_through_casts():
    parity(lambda L, x: (x.to(L.float64) * 3).to(L.float32).sum(), np.random.rand(3, 4)
           .astype(np.float32))
    parity(lambda L, x: x.double().float() * x, np.random.rand(5).astype(np.float32))
    parity(lambda L, x: x.to(L.float16).to(L.float64) ** 2, np.random.rand(4).astype(np.float32),
           atol=1e-3, rtol=1e-3)
    parity(lambda L, x: x.to(L.complex64).abs() + x.type(L.float64),
           np.random.rand(4).astype(np.float32))
    parity(lambda L, x: x.to(L.float32, copy=True) * 2, np.random.rand(4).astype(np.float32))


def test_cast_grad_fn_and_int_cast_no_grad():
    x = jtorch.ones(2, requires_grad=True)
    tx = torch.ones(2, requires_grad=True)
    assert repr(x.double()) == repr(tx.double())
    assert repr(x.long()) == repr(tx.long())
    assert not x.long().requires_grad
