"""The legacy tensor types against PyTorch: constructors (sizes, data, tensors, keywords and
their errors), isinstance, the types' attributes and reprs, Tensor.type() strings and casts,
set_default_tensor_type, and the *Storage classes."""

import warnings

import numpy as np
import pytest
import torch

import jtorch

TYPES = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor",
         "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]


def _outcome(T, fn):
    """What ``fn(T)`` gives, comparable across libraries: a tensor's dtype, shape and values,
    another value's repr, or the exception's type and first line."""
    try:
        r = fn(T)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return type(e).__name__, str(e).split("\n")[0]
    if isinstance(r, (torch.Tensor, jtorch.Tensor)):
        values = r.detach().float().tolist() if r.dtype in (T.float16, T.bfloat16) else \
            r.detach().tolist()
        return str(r.dtype), tuple(r.shape), values if r.numel() and r.dtype not in (
            T.float32, T.float64) or _initialised(fn) else None
    return repr(r).replace("jtorch", "torch")


def _initialised(fn):
    return getattr(fn, "data", False)


def data(fn):
    """Marks a constructor call whose values are defined (not PyTorch's uninitialised
    memory)."""
    fn.data = True
    return fn


CASES = [
    data(lambda T: T.FloatTensor([1, 2])),
    lambda T: T.LongTensor(3, 4).shape,
    lambda T: T.FloatTensor(),
    data(lambda T: T.LongTensor([1.5, 2])),
    lambda T: T.FloatTensor([1, 2], dtype=T.float64),
    lambda T: T.FloatTensor([1, 2], requires_grad=True),
    lambda T: T.FloatTensor(T.zeros(2, dtype=T.float64)),
    data(lambda T: T.FloatTensor((1, 2))),
    data(lambda T: T.FloatTensor([[1, 2], [3, 4]])),
    lambda T: T.FloatTensor([[1, 2], [3]]),
    lambda T: T.FloatTensor(2.5),
    lambda T: T.FloatTensor(True),
    lambda T: T.FloatTensor("a"),
    lambda T: T.FloatTensor(T.Size([2, 3])).shape,
    lambda T: T.FloatTensor(2, 3, device="cpu").shape,
    lambda T: T.FloatTensor(2, 3, device="cuda"),
    lambda T: T.FloatTensor(size=(2, 3)).shape,
    lambda T: T.FloatTensor(-1),
    lambda T: T.FloatTensor(0),
    lambda T: T.FloatTensor([]),
    lambda T: T.FloatTensor(2, [3]),
    lambda T: T.FloatTensor([1, 2], [3]),
    data(lambda T: T.BoolTensor([1, 0])),
    lambda T: T.ByteTensor([-1, 300]),
    data(lambda T: T.IntTensor([1.7, -2.5])),
    data(lambda T: T.HalfTensor([0.1, 2])),
    data(lambda T: T.BFloat16Tensor([0.1, 2])),
    data(lambda T: T.CharTensor([-3, 4])),
    data(lambda T: T.ShortTensor(np.array([1, 2]))),
    data(lambda T: T.FloatTensor(np.array([1.0, 2.0]))),
    lambda T: T.FloatTensor(T.tensor(3)),
    data(lambda T: T.DoubleTensor(T.tensor([1.0, 2.0], dtype=T.float64).t())),
    lambda T: T.cuda.LongTensor(2),
    lambda T: (T.cuda.LongTensor.is_cuda, T.LongTensor.is_cuda, T.cuda.LongTensor.dtype,
               T.FloatTensor.dtype, T.FloatTensor.layout, T.FloatTensor.is_sparse),
    lambda T: (T.FloatTensor, type(T.FloatTensor), T.cuda.LongTensor, T.FloatTensor.__name__,
               T.FloatTensor.__module__, T.cuda.HalfTensor.__module__),
    lambda T: T.set_default_tensor_type(T.LongTensor),
    lambda T: T.set_default_tensor_type(T.float64),
    lambda T: T.set_default_tensor_type("torch.Foo"),
    lambda T: T.set_default_tensor_type(T.cuda.FloatTensor),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_like_pytorch(i):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _outcome(jtorch, CASES[i]) == _outcome(torch, CASES[i])


@pytest.mark.parametrize("name", TYPES)
def test_isinstance_and_type_strings(name):
    for T in (torch, jtorch):
        cls = getattr(T, name)
        t = cls([1, 0])
        assert isinstance(t, cls) and type(t) is T.Tensor
        assert not isinstance(t, getattr(T.cuda, name))
        assert isinstance(T.nn.Parameter(t.float()), T.FloatTensor) if t.is_floating_point() \
            else True
        others = [getattr(T, n) for n in TYPES if n != name]
        assert not any(isinstance(t, o) for o in others)
        assert not isinstance(t.tolist(), cls)
        assert t.type() == f"torch.{name}"
        assert issubclass(cls, cls) and not issubclass(cls, T.Tensor)


@pytest.mark.parametrize("target", TYPES + ["ComplexFloatTensor", "ComplexDoubleTensor"])
def test_type_casts(target):
    x = np.array([1.7, -2.5, 0.0, 3.0], np.float32)
    res = []
    for T in (torch, jtorch):
        t = T.tensor(x, requires_grad=True)
        by_string = t.type(f"torch.{target}")
        by_class = t.type(getattr(T, target)) if hasattr(T, target) else by_string
        res.append((by_string.dtype, by_string.tolist(), by_class.dtype, by_string.type(),
                    by_string.requires_grad))
    assert repr(res[1]).replace("jtorch", "torch") == repr(res[0])


def test_type_returns_self_when_unchanged_and_gradient_flows():
    for T in (torch, jtorch):
        t = T.tensor([1.0, 2.0], requires_grad=True)
        assert t.type(T.FloatTensor) is t and t.type("torch.FloatTensor") is t
        (t.type(T.DoubleTensor) * 3).sum().backward()
        assert t.grad.tolist() == [3.0, 3.0]
        for bad in ("torch.Foo", "FloatTensor", T.FloatStorage):
            with pytest.raises(ValueError, match="invalid type"):
                t.type(bad)


def test_alias_of_a_tensor_shares_storage_and_grad():
    for T in (torch, jtorch):
        t = T.ones(2)
        a = T.FloatTensor(t)
        a[0] = 5.0
        assert t.tolist() == [5.0, 1.0] and a is not t
        r = T.ones(2, requires_grad=True)
        alias = T.FloatTensor(r)
        assert alias.grad_fn.name() == "AliasBackward0"
        (alias * 2).sum().backward()
        assert r.grad.tolist() == [2.0, 2.0]


def test_set_default_tensor_type():
    try:
        for T in (torch, jtorch):
            with warnings.catch_warnings(record=True) as caught:  # PyTorch warns once only
                warnings.simplefilter("always")
                T.set_default_tensor_type(T.DoubleTensor)
            if T is jtorch:
                assert "set_default_tensor_type() is deprecated" in str(caught[0].message)
            assert T.get_default_dtype() == T.float64 and T.tensor([1.0]).dtype == T.float64
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                T.set_default_tensor_type("torch.FloatTensor")
            assert T.get_default_dtype() == T.float32
    finally:
        torch.set_default_dtype(torch.float32)
        jtorch.set_default_dtype(jtorch.float32)


@pytest.mark.parametrize("name", ["FloatStorage", "LongStorage", "ComplexFloatStorage",
                                  "cuda.HalfStorage"])
def test_storage_classes_are_real(name):
    """The *Storage names are PyTorch's legacy storage classes (tests/test_typed_storage.py):
    a CPU one makes a TypedStorage of its dtype."""
    cls = jtorch
    for part in name.split("."):
        cls = getattr(cls, part)
    assert cls.__name__ == name.rsplit(".", 1)[-1]
    assert issubclass(cls, jtorch.TypedStorage)
    if not name.startswith("cuda"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # (TypedStorage's deprecation warning)
            assert isinstance(cls(3), cls) and len(cls(3)) == 3
