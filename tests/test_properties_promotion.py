"""Property tests of type promotion: for random operand kinds and dtypes, jtorch's result dtype
(result_type, binary ops, a ternary op and the core tiers) equals PyTorch's.

Operands are dimensioned tensors, 0-d tensors or Python bool/int/float/complex numbers, so
all three promotion tiers (dimensioned > 0-d > scalars) meet. The one documented difference:
PyTorch's complex32 (float16 meeting a complex number) does not exist in jtorch, which gives
complex64 there.
"""

import operator
import warnings

import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st

import jtorch
from jtorch._core import dtypes

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128"]
SCALARS = {"py_bool": True, "py_int": 2, "py_float": 1.5, "py_complex": 1 + 1j}

operand = st.one_of(
    st.tuples(st.sampled_from(["dim", "zero"]), st.sampled_from(DTYPES)),
    st.tuples(st.just("scalar"), st.sampled_from(sorted(SCALARS))),
)
DEFAULTS = pytest.mark.parametrize("dflt", ["float32", "float64"])
SETTINGS = settings(max_examples=300, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def make(lib, spec):
    kind, name = spec
    if kind == "scalar":
        return SCALARS[name]
    dt = getattr(lib, name)
    return lib.ones((2,) if kind == "dim" else (), dtype=dt)


def expected_name(torch_dtype):
    """jtorch's documented counterpart of a torch dtype (complex32 does not exist)."""
    name = str(torch_dtype).replace("torch.", "")
    return "complex64" if name == "complex32" else name


def _set_default(name):
    torch.set_default_dtype(getattr(torch, name))
    jtorch.set_default_dtype(getattr(jtorch, name))


def _core(specs):
    dims = [getattr(jtorch, n) for k, n in specs if k == "dim"]
    zeros = [getattr(jtorch, n) for k, n in specs if k == "zero"]
    cats = [dtypes.scalar_category(SCALARS[n]) for k, n in specs if k == "scalar"]
    return dtypes.result_type_from(dims, zeros, cats)


@DEFAULTS
@SETTINGS
@given(a=operand, b=operand)
def test_result_type_pairs(a, b, dflt):
    _set_default(dflt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = expected_name(torch.result_type(make(torch, a), make(torch, b)))
    assert str(jtorch.result_type(make(jtorch, a), make(jtorch, b))) == f"torch.{want}"
    assert str(_core([a, b])) == f"torch.{want}"


@DEFAULTS
@settings(SETTINGS, max_examples=40)
@given(a=operand, b=operand, name=st.sampled_from(["add", "mul"]))
def test_binary_op_dtype(a, b, name, dflt):
    """``a + b`` / ``a * b`` (at least one tensor; each compiles a kernel, so fewer examples)
    return PyTorch's dtype."""
    if a[0] == "scalar" and b[0] == "scalar":
        b = ("zero", "int8")
    _set_default(dflt)
    for op in [operator.add if name == "add" else operator.mul]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = expected_name(op(make(torch, a), make(torch, b)).dtype)
            except (RuntimeError, TypeError):
                with pytest.raises((RuntimeError, TypeError)):
                    op(make(jtorch, a), make(jtorch, b))
                continue
        assert str(op(make(jtorch, a), make(jtorch, b)).dtype) == f"torch.{want}", (a, b)


tensor_operand = st.tuples(st.sampled_from(["dim", "zero"]), st.sampled_from(DTYPES))


@DEFAULTS
@settings(SETTINGS, max_examples=30)
@given(a=tensor_operand, b=tensor_operand, c=tensor_operand, s=st.sampled_from(sorted(SCALARS)))
def test_triples(a, b, c, s, dflt):
    """Three tensors meet in addcmul; the promotion core also gets a Python number."""
    _set_default(dflt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = expected_name(torch.addcmul(*(make(torch, x) for x in (a, b, c))).dtype)
        except (RuntimeError, TypeError, NotImplementedError):
            want = None
    if want is None:
        with pytest.raises((RuntimeError, TypeError, NotImplementedError)):
            jtorch.addcmul(*(make(jtorch, x) for x in (a, b, c)))
    else:
        got = jtorch.addcmul(*(make(jtorch, x) for x in (a, b, c))).dtype
        assert str(got) == f"torch.{want}"
        assert str(_core([a, b, c])) == f"torch.{want}"
    # four operands with a Python number: torch.result_type takes two, so build torch's
    # combine(dims, combine(zero_dims, scalar)) from it: each tier promoted on its own, then
    # result_type(0-d tier, scalar), then result_type(dims tier, that as a 0-d tensor)
    specs = [a, b, c, ("scalar", s)]
    t_ops = [make(torch, x) for x in (a, b, c)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tiers = []
        for nd in (1, 0):
            group = [x.dtype for x in t_ops if x.ndim == nd]
            if group:
                dt = group[0]
                for g in group[1:]:
                    dt = torch.promote_types(dt, g)
                tiers.append(torch.ones((2,) * nd, dtype=dt))
        want4 = torch.result_type(tiers[-1], SCALARS[s])
        if len(tiers) == 2:
            want4 = torch.result_type(tiers[0], torch.ones((), dtype=want4))
    assert str(_core(specs)) == f"torch.{expected_name(want4)}"
