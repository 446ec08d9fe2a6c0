"""torch.testing against PyTorch: assert_close passes and fails where PyTorch's does (default
tolerances per dtype, equal_nan, the check_* flags, containers, scalars) with PyTorch's error
types and messages; make_tensor's dtypes, shapes, ranges, layouts, options and errors."""

import warnings

import numpy as np
import pytest
import torch
import torch.testing

import jtorch
import jtorch.testing


def _outcome(T, actual, expected, kwargs):
    """None when assert_close passes, else (exception type name, message)."""
    tt = torch.testing if T is torch else jtorch.testing
    try:
        tt.assert_close(actual(T), expected(T), **kwargs)
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return type(e).__name__, str(e)
    return None


def _same(actual, expected, **kwargs):
    want = _outcome(torch, actual, expected, kwargs)
    got = _outcome(jtorch, actual, expected, kwargs)
    if got is not None:  # messages that print the inputs' classes print jtorch's classes
        got = got[0], got[1].replace("jtorch._tensor.Tensor", "torch.Tensor").replace(
            "'jtorch.", "'torch.")
    assert got == want


CASES = {
    "equal": (lambda T: T.tensor([1.0, 2.0]), lambda T: T.tensor([1.0, 2.0]), {}),
    "not close": (lambda T: T.tensor([1.0, 4.0, 5.0]), lambda T: T.tensor([1.0, 2.0, 3.0]), {}),
    "2-d index": (lambda T: T.tensor([[1, 2], [3, 4]]), lambda T: T.tensor([[1, 2], [3, 7]]),
                  {}),
    "nan": (lambda T: T.tensor(float("nan")), lambda T: T.tensor(float("nan")), {}),
    "equal_nan": (lambda T: T.tensor([1.0, float("nan")]),
                  lambda T: T.tensor([1.0, float("nan")]), {"equal_nan": True}),
    "inf": (lambda T: T.tensor([float("inf")]), lambda T: T.tensor([float("inf")]), {}),
    "-inf": (lambda T: T.tensor([float("-inf"), 1.0]), lambda T: T.tensor([float("inf"), 1.0]),
             {}),
    "zero expected": (lambda T: T.tensor([0.1, 3.0]), lambda T: T.tensor([0.2, 0.0]), {}),
    "dtype": (lambda T: T.tensor([1.0]), lambda T: T.tensor([1.0], dtype=T.float64), {}),
    "promoted": (lambda T: T.tensor([1.0, 2.0]), lambda T: T.tensor([1.0, 2.1], dtype=T.float64),
                 {"check_dtype": False}),
    "int vs float": (lambda T: T.tensor([1, 2]), lambda T: T.tensor([1.0, 2.0]),
                     {"check_dtype": False}),
    "half": (lambda T: T.tensor([1.0, 2.0]).half(), lambda T: T.tensor([1.0, 2.01]).half(), {}),
    "bfloat16": (lambda T: T.tensor([1.0, 2.0]).bfloat16(),
                 lambda T: T.tensor([1.0, 2.1]).bfloat16(), {}),
    "bool": (lambda T: T.tensor([True, False]), lambda T: T.tensor([True, True]), {}),
    "complex": (lambda T: T.tensor([1 + 1j, 2]), lambda T: T.tensor([1 + 1j, 2.5]), {}),
    "shape": (lambda T: T.zeros(2), lambda T: T.zeros(3), {}),
    "stride": (lambda T: T.zeros(2, 3).t(), lambda T: T.zeros(3, 2), {"check_stride": True}),
    "stride unchecked": (lambda T: T.zeros(2, 3).t(), lambda T: T.zeros(3, 2), {}),
    "explicit tolerances": (lambda T: T.tensor([1.0, 2.0]), lambda T: T.tensor([1.0, 2.5]),
                            {"rtol": 0.1, "atol": 0.0}),
    "only rtol": (lambda T: T.zeros(2), lambda T: T.zeros(2), {"rtol": 1}),
    "only atol": (lambda T: T.zeros(2), lambda T: T.zeros(2), {"atol": 1}),
    "msg": (lambda T: T.tensor([1.0]), lambda T: T.tensor([2.0]), {"msg": "custom"}),
    "msg callable": (lambda T: T.tensor([1.0, 4.0]), lambda T: T.tensor([1.0, 2.0]),
                     {"msg": lambda m: f"Header\n\n{m}\n\nFooter"}),
    "scalars": (lambda T: 1e-9, lambda T: 1e-10, {"rtol": 0, "atol": 0}),
    "scalar types": (lambda T: 1.0, lambda T: 1, {}),
    "scalar types unchecked": (lambda T: 1.0, lambda T: 1, {"check_dtype": False}),
    "complex scalars": (lambda T: 1 + 1j, lambda T: 1 + 1.5j, {}),
    "numpy scalars": (lambda T: np.float32(1.0), lambda T: np.float32(1.5), {}),
    "booleans": (lambda T: True, lambda T: False, {}),
    "none": (lambda T: None, lambda T: 1, {}),
    "nones": (lambda T: None, lambda T: None, {}),
    "sequence item": (lambda T: [T.tensor(1.0), 2.0], lambda T: (T.tensor(1.0), 2.5), {}),
    "sequence length": (lambda T: [1, 2], lambda T: [1], {}),
    "nested": (lambda T: {"a": [T.zeros(2), {"b": T.ones(1)}]},
               lambda T: {"a": [T.zeros(2), {"b": T.zeros(1)}]}, {}),
    "mapping keys": (lambda T: {"a": T.zeros(2)}, lambda T: {"b": T.zeros(2)}, {}),
    "numpy arrays": (lambda T: np.array([1.0, 2.0]), lambda T: np.array([1.0, 2.5]), {}),
    "parameter": (lambda T: T.nn.Parameter(T.ones(2)), lambda T: T.ones(2), {}),
    "parameter strict": (lambda T: T.nn.Parameter(T.ones(2)), lambda T: T.ones(2),
                         {"allow_subclasses": False}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_assert_close_like_pytorch(name):
    actual, expected, kwargs = CASES[name]
    _same(actual, expected, **kwargs)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "complex64",
                                   "complex128", "int64", "uint8"])
@pytest.mark.parametrize("factor", [0.5, 2.0])
def test_default_tolerances_per_dtype(dtype, factor):
    # a difference of `factor` times float32's allowance at |expected| = 3: inside or outside
    # each dtype's default tolerance, exactly as in PyTorch
    def make(T, delta):
        return T.tensor([3.0 + delta, 1.0], dtype=T.float64).to(getattr(T, dtype))

    delta = factor * (1e-5 + 1.3e-6 * 3.0)
    _same(lambda T: make(T, delta), lambda T: make(T, 0.0))
    _same(lambda T: make(T, 200 * delta), lambda T: make(T, 0.0))


def test_devices_and_layout_flags():
    x = jtorch.ones(2)
    jtorch.testing.assert_close(x, x.clone(), check_device=False, check_layout=False)
    with pytest.raises(AssertionError, match="Tensor-likes are not close!\n\nMismatched"):
        jtorch.testing.assert_close(x, x + 1, check_device=False)


def test_mixed_types_name_both():
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type "
                                        "<class 'numpy.ndarray'> and"):
        jtorch.testing.assert_close(np.zeros(2), jtorch.zeros(2))


def test_assert_allclose_is_deprecated_and_compares():
    for T in (torch, jtorch):
        with pytest.warns(FutureWarning, match="assert_allclose"):
            T.testing.assert_allclose(T.tensor([1.0, 2.0]), [1.0, 2.00001])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        _same(lambda T: T.tensor([1.0, 2.0]), lambda T: T.tensor([1.0, 2.1]))
    with pytest.raises(NotImplementedError, match="torch.testing.FileCheck"):
        jtorch.testing.FileCheck()


# ------------------------------------------------------------------ make_tensor
def _properties(t):
    return (str(t.dtype), tuple(t.shape), t.stride(), t.is_contiguous(), t.requires_grad,
            t.is_leaf)


MAKE = [
    ((2, 3), {"dtype": "float32"}),
    ([2, 3], {"dtype": "int8"}),
    ((4, 5), {"dtype": "bool"}),
    ((3, 4), {"dtype": "complex64", "noncontiguous": True}),
    ((3, 4), {"dtype": "float64", "requires_grad": True, "noncontiguous": True}),
    ((50,), {"dtype": "uint8", "low": -5, "high": 3}),
    ((50,), {"dtype": "float16", "low": -1e10, "high": 1e10}),
    ((50,), {"dtype": "int32", "low": 0.5, "high": 2.5}),
    ((1,), {"dtype": "float32", "noncontiguous": True}),
    ((), {"dtype": "bfloat16"}),
    ((3,), {"dtype": "int32", "low": 0, "high": 1, "exclude_zero": True}),
    ((3,), {"dtype": "float32", "low": 0, "high": 1e-30, "exclude_zero": True}),
    ((2,), {"dtype": "int64", "requires_grad": True}),
    ((2,), {"dtype": "float32", "low": 3, "high": 1}),
    ((2,), {"dtype": "float32", "low": float("nan")}),
    ((2,), {"dtype": "uint8", "low": 300, "high": 400}),
    ((2,), {"dtype": "float32", "noncontiguous": True, "memory_format": "contiguous_format"}),
]


@pytest.mark.parametrize("i", range(len(MAKE)))
def test_make_tensor_like_pytorch(i):
    shape, kwargs = MAKE[i]
    results = []
    for T in (torch, jtorch):
        kw = {k: getattr(T, v) if k in ("dtype", "memory_format") else v
              for k, v in kwargs.items()}
        try:
            results.append(T.testing.make_tensor(shape, device="cpu", **kw))
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            results.append((type(e).__name__, str(e)))
    want, got = results
    if isinstance(want, tuple):
        assert got == want
        return
    assert _properties(got) == _properties(want)
    values = got.detach()
    if values.is_complex():
        values = jtorch.stack([values.real, values.imag])
    values = values.double()
    dt = want.dtype
    low = kwargs.get("low", 0 if dt in (torch.bool, torch.uint8) else -9)
    high = kwargs.get("high", 2 if dt is torch.bool else 10 if not dt.is_floating_point
                      and not dt.is_complex else 9)
    if dt.is_floating_point:
        low, high = max(low, torch.finfo(dt).min), min(high, torch.finfo(dt).max)
    else:
        low, high = max(low, 0 if dt is torch.uint8 else -(2 ** 31)), min(high, 256)
    if kwargs.get("exclude_zero"):
        assert bool((values != 0).all())
    else:
        assert bool((values >= np.floor(low)).all()) and bool((values <= high).all())


def test_make_tensor_shape_forms_and_low_equal_high():
    a = jtorch.testing.make_tensor(2, 3, dtype=jtorch.float32, device="cpu")
    b = jtorch.testing.make_tensor(jtorch.Size([2, 3]), dtype=jtorch.float32, device="cpu")
    assert a.shape == b.shape == (2, 3)
    with pytest.warns(FutureWarning, match="low==high"):
        c = jtorch.testing.make_tensor(3, dtype=jtorch.float32, device="cpu", low=2, high=2)
    assert c.tolist() == [2.0, 2.0, 2.0]
