"""Factories against PyTorch: values, dtypes, shapes, requires_grad, devices, errors, out=,
the in-place fillers, Tensor.new_*, and factories under jax.jit."""

import subprocess
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch
from helpers import NoGrad, assert_close, parity, raises_like, rand

import jtorch

# Each case is an expression in T (torch or jtorch) and np; both results must agree in value,
# dtype, shape and requires_grad (parity also reruns the jtorch side under jax.jit).
CASES = [
    # tensor(): inference, nesting, numpy inputs, dtype conversion
    "T.tensor([])", "T.tensor([[], []])", "T.tensor([[[]]])", "T.tensor([[], [1]])",
    "T.tensor(1.5)", "T.tensor(3)", "T.tensor(True)", "T.tensor(1j)", "T.tensor(2 + 0.5j)",
    "T.tensor([1, 2, 3])", "T.tensor([1.0, 2])", "T.tensor([True, 2])", "T.tensor([True, 1.5j])",
    "T.tensor([1, 2.5j])", "T.tensor((1, 2))", "T.tensor([[1, 2], (3, 4)])", "T.tensor(range(3))",
    "T.tensor(T.Size([2, 3]))", "T.tensor([[1.5, 2], [3, 4]])",
    "T.tensor([T.tensor(1.), T.tensor(2.)])", "T.tensor([T.tensor(1, dtype=T.int32), 2])",
    "T.tensor([T.tensor(1, dtype=T.int32), T.tensor(1, dtype=T.uint8)])",
    "T.tensor([T.tensor([1.]), T.tensor([2.])])", "T.tensor([T.tensor(1.), 2])",
    "T.tensor([T.tensor(1., dtype=T.float64), 2.])", "T.tensor([[T.tensor(1), 2], [3, 4]])",
    "T.tensor([np.int8(1), np.uint8(2)])", "T.tensor([np.float64(1), 1.0])",
    "T.tensor([1.5, np.float64(2)])", "T.tensor([np.float16(1), 2.0])",
    "T.tensor(np.float64(1))", "T.tensor(np.float16(1))", "T.tensor(np.array(3))",
    "T.tensor(np.ones(2, dtype=np.float32))", "T.tensor(np.arange(6).reshape(2, 3))",
    "T.tensor(np.array([True, False]))", "T.tensor(np.zeros((2, 0, 3)))",
    "T.tensor([np.ones(2, dtype=np.float32), [1, 2]])", "T.tensor([np.array([1.0]), [2.]])",
    "T.tensor([1.7, -1.7], dtype=T.int64)", "T.tensor([1.5, 2], dtype=T.int32)",
    "T.tensor([[1, 2], [3, 4]], dtype=T.float64)", "T.tensor([1, 2], dtype=T.complex64)",
    "T.tensor(3.7, dtype=T.bool)", "T.tensor(1e6, dtype=T.float16)",
    "T.tensor(1e40, dtype=T.float32)", "T.tensor(-1, dtype=T.uint8)",
    "T.tensor(-255, dtype=T.uint8)", "T.tensor(np.array(300), dtype=T.int8)",
    "T.tensor(-2**63)", "T.tensor([[0.1, 0.2]], dtype=T.float16)",
    "T.tensor([[0.1, 0.2]], dtype=T.bfloat16)", "T.tensor(1.5, requires_grad=True)",
    "T.tensor([1., 2.], dtype=T.float64, requires_grad=True)",
    "T.as_tensor([1, 2])", "T.as_tensor(np.array([1., 2.]))", "T.as_tensor(3.5)",
    "T.as_tensor(T.ones(2), dtype=T.int64)", "T.as_tensor([1, 2], dtype=T.float64)",
    "T.asarray([1, 2.5])", "T.asarray(np.array([1, 2]), dtype=T.float32)", "T.asarray(3)",
    "T.asarray([1., 2.], requires_grad=True)", "T.asarray(T.ones(2), dtype=T.int32)",
    "T.from_numpy(np.array([1, 2], dtype=np.int16))", "T.from_numpy(np.array([[1., 2.]]))",
    "T.from_numpy(np.array(True))",
    # the legacy constructor
    "T.Tensor([1, 2])", "T.Tensor().shape", "T.Tensor(2, 3).shape", "T.Tensor(T.Size([2])).shape",
    # zeros / ones / empty / full, all size forms
    "T.zeros(2, 3)", "T.zeros((2, 3))", "T.zeros([2, 3])", "T.zeros(T.Size([2, 3]))",
    "T.zeros(size=(2, 3))", "T.zeros(())", "T.zeros([])", "T.zeros(0, 3)", "T.zeros(np.int64(2))",
    "T.zeros(T.tensor(2))", "T.zeros(2, dtype=T.int32)", "T.zeros(2, dtype=T.complex128)",
    "T.zeros(2, dtype=T.bfloat16)", "T.zeros(2, 2, requires_grad=True)",
    "T.ones(2, 3, dtype=T.bool)", "T.ones(3, dtype=T.float16)", "T.ones((1,), dtype=T.uint8)",
    "T.ones(2, requires_grad=True, dtype=T.float64)", "T.ones(size=[4])",
    "T.empty(2, 3).shape", "T.empty(0).shape", "str(T.empty((2, 3), dtype=T.int64).dtype)",
    "T.full((2,), 3)", "T.full((2,), True)", "T.full((2,), 3.5)", "T.full((2,), 1j)",
    "T.full([2, 2], 3)", "T.full((2,), T.tensor(3.))", "T.full((2,), T.tensor(3))",
    "T.full((2,), T.tensor(3., dtype=T.float64))", "T.full((2,), T.tensor(3, dtype=T.int32))",
    "T.full((2,), np.float64(3))", "T.full((2,), 3.5, dtype=T.int64)",
    "T.full((2,), 2., requires_grad=True)", "T.full(size=(2,), fill_value=2)",
    "T.full((), 7)", "T.full((0, 2), 1.5)", "T.full(T.Size([2, 1]), -1)",
    "T.empty_strided((2, 3), (1, 2)).shape",
    "str(T.empty_strided((2, 3), (3, 1), dtype=T.int64).dtype)",
    "T.scalar_tensor(1)", "T.scalar_tensor(True)", "T.scalar_tensor(2.5)",
    "T.scalar_tensor(1, dtype=T.int64)", "T.scalar_tensor(1, requires_grad=True)",
    # *_like and Tensor.new_*
    "T.zeros_like(T.ones(2, dtype=T.int32))", "T.ones_like(T.ones(2, 3))",
    "T.ones_like(T.ones(2), requires_grad=True)", "T.zeros_like(T.ones(2), dtype=T.float64)",
    "T.full_like(T.ones(2, dtype=T.int32), 2.7)", "T.full_like(T.ones(2), 2.7, dtype=T.float64)",
    "T.full_like(T.ones(2, 2), True)", "T.full_like(T.ones(3), T.tensor(4.))",
    "T.empty_like(T.ones(2, 3)).shape", "str(T.empty_like(T.ones(2, dtype=T.bool)).dtype)",
    "T.ones(2).new_tensor([1, 2])", "T.ones(2).new_tensor([1, 2], dtype=T.long)",
    "T.ones(2).new_tensor(np.array([1, 2]))", "T.ones(2).new_tensor(3)",
    "T.ones(2).new_tensor([1., 2.], requires_grad=True)",
    "T.ones(2, dtype=T.int32).new_zeros(2, 3)", "T.ones(2, dtype=T.int32).new_zeros((2, 3))",
    "T.ones(2, dtype=T.int32).new_full((2, 3), 2.5)", "T.ones(2).new_ones(3, dtype=T.int64)",
    "T.ones(2).new_empty(3).shape", "T.ones(2).new_zeros(())",
    "T.ones(2, dtype=T.float64).new_ones([2])",
    "T.ones(2).new_ones(2, requires_grad=True)", "T.ones(2).new_full([1], 5)",
    # eye
    "T.eye(3)", "T.eye(2, 3)", "T.eye(3, 2)", "T.eye(0)", "T.eye(n=2, m=3)", "T.eye(1)",
    "T.eye(3, dtype=T.int64)", "T.eye(2, dtype=T.bool)", "T.eye(2, 3, dtype=T.complex64)",
    "T.eye(2, requires_grad=True)",
    # arange: int/float inference, float and negative steps, PyTorch's size rounding
    "T.arange(5)", "T.arange(5.)", "T.arange(1, 4)", "T.arange(0, 1, 0.1)", "T.arange(1, 0, -0.3)",
    "T.arange(10, 0, -3)", "T.arange(-5, 5, 0.7)", "T.arange(3, -7.5, -2.5)", "T.arange(0)",
    "T.arange(5, 5)", "T.arange(1.5)", "T.arange(0.1, 0.9, 0.1)", "T.arange(0, 1.0000001, 0.1)",
    "T.arange(0, 3, 0.3)", "T.arange(-1., 1., 0.2)", "T.arange(0, 10**18, 10**17)",
    "T.arange(0, 5, 1.5, dtype=T.int64)", "T.arange(0, 5, 1.5, dtype=T.int32)",
    "T.arange(0.5, 5, 1, dtype=T.int64)", "T.arange(T.tensor(5))", "T.arange(T.tensor(5.))",
    "T.arange(np.int64(3))", "T.arange(5, dtype=T.float64)", "T.arange(5, dtype=T.float16)",
    "T.arange(1, 2, 0.1, dtype=T.float16)", "T.arange(1, 2, 0.1, dtype=T.bfloat16)",
    "T.arange(0, 1, 0.1, dtype=T.float64)", "T.arange(1e10, 1e10 + 5, dtype=T.float32)",
    "T.arange(start=1, end=4)", "T.arange(end=4)", "T.arange(1, end=4)",
    "T.arange(0, 10, step=3)", "T.arange(4., requires_grad=True)", "T.arange(True)",
    "T.arange(0, 10, 3, dtype=T.uint8)", "T.arange(-3, 3, dtype=T.uint8)",
    "T.arange(2, 9, 2, dtype=T.int8)",
    # range (deprecated, inclusive)
    "T.range(1, 4)", "T.range(1, 4, 0.5)", "T.range(1, 4, dtype=T.int64)", "T.range(4, 1, -1)",
    "T.range(0, 1, 0.3)", "T.range(0, 1.0, 0.1)", "T.range(0, 5, 1.5, dtype=T.int64)",
    # linspace / logspace
    "T.linspace(0, 1, 5)", "T.linspace(0, 1, 1)", "T.linspace(0, 1, 0)", "T.linspace(2, 2, 4)",
    "T.linspace(0, 10, 4, dtype=T.int64)", "T.linspace(-10, 10, 4, dtype=T.int64)",
    "T.linspace(-1, 1, 5, dtype=T.int64)", "T.linspace(0, -10, 4, dtype=T.int64)",
    "T.linspace(3, 10, 3, dtype=T.uint8)", "T.linspace(0, 1j, 3)", "T.linspace(-3.3, 7.1, 11)",
    "T.linspace(T.tensor(0.), T.tensor(1.), 3)", "T.linspace(0, 1, steps=3, dtype=T.float64)",
    "T.linspace(-3.3, 7.1, 11, dtype=T.float16)", "T.linspace(1, 2, 7, dtype=T.bfloat16)",
    "T.linspace(0.1, 0.7, 100)", "T.linspace(0, 10, 3, requires_grad=True)",
    "T.logspace(0, 2, 3)", "T.logspace(0, 2, 3, base=2)", "T.logspace(0, 2, 3, dtype=T.int64)",
    "T.logspace(0, 2, 1)", "T.logspace(-1, 2, 4, base=3)", "T.logspace(0, 1, 3, base=-2)",
    "T.logspace(0, 2, 3, base=10, dtype=T.int32)", "T.logspace(-2, 2, 9, dtype=T.float64)",
    "T.logspace(0, 1, 0)", "T.logspace(-1, 1, 10, dtype=T.float16)",
    "T.logspace(-1, 1, 10, dtype=T.bfloat16)", "T.logspace(-2, 3, 13, base=2, dtype=T.float16)",
]


@pytest.mark.parametrize("expr", CASES)
def test_factory_parity(expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        out = parity(lambda T: eval(expr), grad=False)
        t = eval(expr.replace("T.", "torch."))
    if isinstance(t, torch.Tensor):
        assert out.requires_grad == t.requires_grad
        assert out.is_leaf and out.device == jtorch.device("cpu")


ERRORS = [
    "T.tensor([[1, 2], [3]])", "T.tensor([[1], [2, 3]])", "T.tensor([[1], []])",
    "T.tensor([[1, 2], 3])", "T.tensor([[[1]], [1]])", "T.tensor('abc')", "T.tensor(None)",
    "T.tensor([1, None])", "T.tensor([[1, 2], [None]])", "T.tensor(['a'])",
    "T.tensor([T.ones(2), T.ones(2)])", "T.tensor([1 + 2j], dtype=T.float32)",
    "T.tensor(2**63)", "T.tensor([1, 2**63])", "T.tensor(-2**63 - 1)", "T.tensor(2**64)",
    "T.tensor(300, dtype=T.int8)", "T.tensor(300, dtype=T.uint8)", "T.tensor(-256, dtype=T.uint8)",
    "T.tensor(1.5e10, dtype=T.int32)", "T.tensor(float('nan'), dtype=T.int64)",
    "T.tensor(1, requires_grad=True)", "T.tensor([True], requires_grad=True)",
    "T.from_numpy([1, 2])",
    "T.zeros(-1)", "T.zeros(2, -3)", "T.ones(-1)", "T.empty(2, -1)", "T.full((-1,), 2)",
    "T.zeros()", "T.zeros(2.5)", "T.ones(2.5)", "T.zeros(2, 2.5)", "T.zeros((2, 2.5))",
    "T.zeros(2, None)", "T.zeros(2, (3,))",
    "T.zeros(2, dtype=T.long, requires_grad=True)", "T.full((2,), 2, requires_grad=True)",
    "T.arange(4, requires_grad=True)", "T.eye(2, dtype=T.int32, requires_grad=True)",
    "T.ones_like(T.ones(2, dtype=T.long), requires_grad=True)",
    "T.zeros_like(T.ones(2), dtype=T.int64, requires_grad=True)",
    "T.full(2, 3)", "T.full((2,), T.tensor([3]))", "T.ones(2).new_full(2, 2.5)",
    "T.ones(2).new_zeros()", "T.ones(2).new_zeros(-1)",
    "T.empty_strided((2, 3), (1,))", "T.empty_strided((2, -1), (1, 1))",
    "T.scalar_tensor(1j)",
    "T.zeros(2, dtype=T.float64, out=T.empty(1))",
    "T.eye(-1)", "T.eye(2, -1)", "T.eye(2.5)", "T.eye(3, 2.5)",
    "T.arange(0, 5, 0)", "T.arange(0, 5, -1)", "T.arange(0, float('inf'))",
    "T.arange(0, 5, 0.5, dtype=T.int64)", "T.arange(0, 5, 1.5, dtype=T.bool)", "T.arange(1j)",
    "T.arange(0, 5, dtype=T.complex64)", "T.range(1, 0)", "T.range(4)",
    "T.range(0, 5, dtype=T.bool)",
    "T.linspace(0, 1, -1)", "T.linspace(0, 1, 2.5)", "T.linspace(0, 1)", "T.logspace(0, 1)",
    "T.complex(T.ones(2), T.zeros(2, dtype=T.float64))",
    "T.complex(T.ones(2, dtype=T.long), T.zeros(2, dtype=T.long))",
    "T.complex(T.ones(2), T.zeros(3))", "T.complex(1., 2.)",
    "T.polar(T.ones(2), T.zeros(2, dtype=T.float64))",
    "T.polar(T.ones(2, dtype=T.long), T.zeros(2, dtype=T.long))",
    "T.ones(2).fill_(T.ones(2))", "T.fill(T.ones(2), T.ones(2))", "T.ones(2).fill_(1j)",
    "T.ones(3, requires_grad=True).fill_(2)", "T.ones(3, requires_grad=True).zero_()",
    "T.ones(3, requires_grad=True)[1:].fill_(2)",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_factory_errors(expr):
    raises_like(lambda: eval(expr.replace("T.", "torch.")), lambda: eval(expr.replace(
        "T.", "jtorch.")))


def test_errors_jtorch_only():
    # dtypes jtorch does not have: the NumPy array's dtype is named
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.str_"):
        jtorch.from_numpy(np.array(["a"]))
    with pytest.raises(NotImplementedError, match="layout"):
        jtorch.zeros(2, layout=jtorch.sparse_coo)
    with pytest.raises(NotImplementedError, match="complex32"):
        jtorch.complex(jtorch.ones(2, dtype=jtorch.float16), jtorch.zeros(2, dtype=jtorch.float16))
    assert jtorch.zeros(2, layout=jtorch.strided).layout is jtorch.strided


def test_tensor_of_tensor_warns_and_copies():
    src = jtorch.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        t = jtorch.tensor(src)
    assert not t.requires_grad and t.is_leaf
    with jtorch.no_grad():
        src.fill_(3)
    np.testing.assert_array_equal(t.numpy(), [1, 1])
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        assert jtorch.ones(2).new_tensor(jtorch.ones(3)).shape == (3,)


NDARRAY_LIST = """
import warnings, numpy as np
import {module} as torch
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    torch.tensor([np.arange(3), np.arange(3)])
    torch.LongTensor([np.arange(2)])
    torch.tensor([[1, 2]])
print([(str(w.message).split(". ")[0], w.category.__name__, w.lineno) for w in seen])
"""


def test_list_of_ndarrays_warns_once_as_pytorch():
    """PyTorch warns, once a process, that a list of NumPy arrays is slow to convert (nlp-tutorial's
    ``torch.LongTensor([np.asarray(...) for ...])``), at the caller's line; fresh interpreters,
    as the warning is once a process in both."""
    out = [subprocess.run([sys.executable, "-c", NDARRAY_LIST.format(module=m)], check=True,
                          capture_output=True, text=True).stdout for m in ("jtorch", "torch")]
    assert out[0] == out[1]
    assert "Creating a tensor from a list of numpy.ndarrays is extremely slow" in out[0]


def test_as_tensor_asarray_identity():
    t = jtorch.ones(3)
    assert jtorch.as_tensor(t) is t
    assert jtorch.as_tensor(t, dtype=jtorch.float32) is t
    assert jtorch.asarray(t) is t
    c = jtorch.asarray(t, copy=True)
    assert c is not t
    c.fill_(5)
    np.testing.assert_array_equal(t.numpy(), [1, 1, 1])
    arr = np.array([1.0, 2.0])
    f = jtorch.from_numpy(arr)
    arr[0] = 9  # jtorch copies (documented): the tensor keeps its values
    assert f.dtype is jtorch.float64 and f.tolist() == [1.0, 2.0]


def test_default_dtype_float64():
    jtorch.set_default_dtype(jtorch.float64)
    torch.set_default_dtype(torch.float64)
    for expr in ("T.tensor([1.5])", "T.tensor([])", "T.zeros(2)", "T.full((1,), 2.)",
                 "T.arange(3.)", "T.linspace(0, 1, 3)", "T.eye(2)", "T.tensor(1j)",
                 "T.scalar_tensor(1)", "T.range(0, 2)"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            assert_close(eval(expr.replace("T.", "jtorch.")), eval(expr.replace("T.", "torch.")),
                         msg=expr)


def test_out_forms():
    for expr in ("T.zeros(2, 3, out=o)", "T.ones(4, out=o)", "T.full((2,), 2.5, out=o)",
                 "T.arange(5, out=o)", "T.arange(5., out=o)", "T.linspace(0, 1, 3, out=o)",
                 "T.eye(2, out=o)", "T.logspace(0, 1, 2, out=o)", "T.empty(3, out=o).shape",
                 "T.complex(T.ones(2), T.zeros(2), out=oc)",
                 "T.polar(T.ones(2), T.ones(2), out=oc)"):
        for dt in ("float32", "int64", "float64"):
            res = []
            for T in (torch, jtorch):
                o = T.empty(1, dtype=getattr(T, dt))
                oc = T.empty(2, dtype=T.complex64)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    r = eval(expr)
                assert r is o or r is oc or expr.endswith(".shape")
                res.append(r)
            assert_close(res[1], res[0], msg=f"{expr} {dt}")


def test_arange_out_resize_warns():
    with pytest.warns(UserWarning, match="The number of elements in the out tensor of shape "
                                         r"\[1\] is 1 which does not match the computed number "
                                         "of elements 5"):
        jtorch.arange(5, out=jtorch.empty(1))
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        jtorch.range(0, 3)


@pytest.mark.parametrize("make", [
    lambda T, d: T.zeros(2, device=d), lambda T, d: T.ones((2, 3), device=d),
    lambda T, d: T.empty(2, device=d), lambda T, d: T.full((2,), 3, device=d),
    lambda T, d: T.tensor([1, 2], device=d), lambda T, d: T.as_tensor([1.], device=d),
    lambda T, d: T.asarray([1.], device=d), lambda T, d: T.eye(2, device=d),
    lambda T, d: T.arange(3, device=d), lambda T, d: T.range(0, 2, device=d),
    lambda T, d: T.linspace(0, 1, 3, device=d), lambda T, d: T.logspace(0, 1, 3, device=d),
    lambda T, d: T.zeros_like(T.ones(2), device=d), lambda T, d: T.ones_like(T.ones(2), device=d),
    lambda T, d: T.full_like(T.ones(2), 2, device=d),
    lambda T, d: T.empty_like(T.ones(2), device=d),
    lambda T, d: T.empty_strided((2,), (1,), device=d), lambda T, d: T.scalar_tensor(1, device=d),
    lambda T, d: T.ones(1).new_zeros(2, device=d), lambda T, d: T.ones(1).new_tensor([1], device=d),
    lambda T, d: T.zeros(2, device=d).new_ones(3),
    lambda T, d: T.zeros(2, device=d).new_full((1,), 2),
    lambda T, d: T.zeros(2, device=d).fill_(3), lambda T, d: T.ones(2, device=d)[1:].zero_(),
    lambda T, d: T.fill(T.zeros(2, device=d), 1.5),
])
def test_devices(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for spec in ("cpu", "cpu:1", jtorch.device("cpu", 2), jtorch.device("cpu")):
            t = make(jtorch, spec)
            want = jtorch.device(spec) if isinstance(spec, str) else spec
            assert t.device == want, (spec, t.device)
            assert next(iter(t._value.devices())).id == (want.index or 0)
        if not jax.devices()[0].platform == "gpu":
            raises_like(lambda: make(torch, "cuda"), lambda: make(jtorch, "cuda"))
            raises_like(lambda: make(torch, torch.device("cuda", 0)),
                        lambda: make(jtorch, jtorch.device("cuda", 0)))


def test_complex_polar_grads():
    parity(lambda T, a, b: T.complex(a, b), rand(2, 3), rand(3))
    parity(lambda T, a, b: T.complex(a, b), rand(2, dtype=np.float64), rand(2, dtype=np.float64))
    # PyTorch's polar gradient assumes abs >= 0 (its documented domain)
    parity(lambda T, a, b: T.polar(a, b), rand(2, 3, low=0.1), rand(3))
    parity(lambda T, a, b: T.polar(a, b), rand(4, low=0.1, dtype=np.float64),
           rand(4, dtype=np.float64))


def test_fill_zero_parity():
    parity(lambda T, a, v: (a * 2).fill_(v), rand(2, 3), rand(dtype=np.float32))
    parity(lambda T, a, v: T.fill(a, v), rand(2, 3), rand(dtype=np.float64), grad_atol=1e-6)
    parity(lambda T, a: (a * 2).fill_(3), rand(2, 3))
    parity(lambda T, a: T.fill(a, -1.5), rand(2, 3, dtype=np.float64))
    parity(lambda T, a: (a * 2).zero_(), rand(2, 3))
    parity(lambda T, a: T.zero_(a + 1), rand(4))
    parity(lambda T, a: T.fill_(a * 1, 2), rand(3))
    parity(lambda T, a: a.fill_(2.7), rand(3, dtype=np.int32, seed=0))
    parity(lambda T, a: a.fill_(T.tensor(2.5)), rand(3, dtype=np.int64, seed=0))
    parity(lambda T, a: a.fill_(T.tensor(2.5, dtype=T.float64)), NoGrad(rand(2, 2)))
    parity(lambda T, a: a.fill_(True), rand(3, dtype=np.int64, seed=0))
    parity(lambda T, a: a.fill_(3), rand(2, dtype=np.bool_, seed=0))
    parity(lambda T, a: (a * 1).fill_(1 + 2j), rand(2, dtype=np.complex64))
    parity(lambda T, a: T.zeros(0, 3).fill_(2), rand(1))
    # grad_fn names of every form
    for expr in ("(a * 2).fill_(2)", "(a * 2).fill_(v)", "(a * 2).zero_()", "T.fill(a, 2)",
                 "T.fill(a.detach(), v)", "T.ones(2).fill_(v)"):
        names = []
        for T in (torch, jtorch):
            a, v = T.ones(3, requires_grad=True), T.tensor(2., requires_grad=True)  # noqa: F841
            names.append(type(eval(expr).grad_fn).__name__)
        assert names[0] == names[1], (expr, names)


def test_fill_through_views_changes_base():
    res = []
    for T in (torch, jtorch):
        a = T.zeros(3, 4)
        a.transpose(0, 1)[1].fill_(7)
        a[2].zero_()
        a[0, 1:3].fill_(T.tensor(-1.))
        res.append(a)
    assert_close(res[1], res[0])
    assert res[1].tolist() == [[0, -1, -1, 0], [0, 7, 0, 0], [0, 0, 0, 0]]
    with jtorch.no_grad():  # a leaf that requires grad may be filled under no_grad
        w = jtorch.ones(2, requires_grad=True)
        w.fill_(3)
        w[:1].zero_()
    assert w.tolist() == [0, 3] and w.requires_grad and w.is_leaf


def test_factories_under_jit():
    def f(x):
        t = jtorch.Tensor._make(x)
        s = t.sum()
        out = [jtorch.zeros(2, 3) + 1, jtorch.ones_like(t), jtorch.full((2,), s),
               jtorch.full_like(t, s), jtorch.tensor([s, s * 2]), jtorch.stack([s, s]),
               jtorch.arange(4), jtorch.linspace(0, 1, 3), jtorch.eye(2),
               jtorch.zeros(2).fill_(s), jtorch.as_tensor(t), jtorch.tensor(t)]
        return [o._value for o in out]

    x = jnp.asarray(np.arange(3.0, dtype=np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        eager = f(x)
        traced = jax.jit(f)(x)
    for e, t in zip(eager, traced):
        assert e.dtype == t.dtype and e.shape == t.shape
        np.testing.assert_allclose(np.asarray(t), np.asarray(e))
    assert eager[2].dtype == jnp.float32 and eager[4].tolist() == [3.0, 6.0]


def test_requires_grad_factory_is_leaf_and_trains():
    w = jtorch.zeros(3, requires_grad=True)
    (w * 2).sum().backward()
    assert w.is_leaf and w.grad.tolist() == [2, 2, 2]
    r = jtorch.arange(3.0, requires_grad=True)
    (r * r).sum().backward()
    assert r.grad.tolist() == [0, 2, 4]
