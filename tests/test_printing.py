"""repr/str of tensors: jtorch prints exactly PyTorch's text.

Hand-picked values (integer-valued floats, scientific-notation switches, nan/inf, -0.0, every
dtype), shapes that wrap at the line width or are summarized, empty and 0-d tensors, autograd
suffixes, print options, and a hypothesis test over random shapes, values and options.
"""

import jax
import ml_dtypes
import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st

import jtorch

NP = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32,
      "float64": np.float64, "complex64": np.complex64, "complex128": np.complex128,
      "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
      "uint8": np.uint8, "bool": np.bool_}


@pytest.fixture(autouse=True)
def _reset_printoptions():
    yield
    torch.set_printoptions(profile="default")
    jtorch.set_printoptions(profile="default")


def pair(arr, dtype):
    """The same values as a torch and a jtorch tensor of ``dtype`` (converted once, by NumPy
    and ml_dtypes, from float32 for the half types)."""
    a = np.asarray(arr)
    if dtype in ("float16", "bfloat16"):
        a32 = a.astype(np.float32)
        return torch.tensor(a32).to(getattr(torch, dtype)), jtorch.tensor(a32.astype(NP[dtype]))
    a = a.astype(NP[dtype])
    return torch.tensor(a), jtorch.tensor(a)


def check(t, j):
    assert repr(j) == repr(t), f"\njtorch:\n{j!r}\ntorch:\n{t!r}"
    assert str(j) == str(t)


INF, NAN = float("inf"), float("nan")
HAND = [
    [1.0, 2.0, 3.0], [1.5, -2.25, 3.0], [0.0, -0.0], [-0.0], [NAN, 1.0, INF, -INF],
    [NAN, 1.5], [NAN, INF], [0.0, 0.0], [1e10, 1.0], [1e-5, 1.0], [1e8], [1e9], [1.0, 1001.0],
    [1.0, 999.0], [0.0001, 1.0], [0.00009, 1.0], [123456.789, 0.5], [-1e-20, 3.0],
    [[1e-10, 2e5], [3.0, 4.0]], [1e30, -1e-30, NAN], [65504.0, -65504.0], [0.1, 0.2, 0.3],
    [12345678.0], [1.0, -1.0, 1e-4], [1e38, 1.0], [3.14159], [-7.0], [[1, 2], [3, 4]],
    [[[1.5, 2], [3, 4]], [[5, 6], [7, NAN]]], [5.0], [2**24 + 1.0], [0.5, 1e-8],
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_hand_floats(dtype):
    for vals in HAND:
        with np.errstate(over="ignore"):
            check(*pair(vals, dtype))


def test_hand_ints_bools_complex():
    for dtype, vals in [("int64", [1, -2, 300]), ("int32", [[1, -20000], [3, 4]]),
                        ("int8", [-128, 127]), ("uint8", [0, 255, 7]), ("int16", [5]),
                        ("bool", [True, False, True]), ("bool", [[True], [False]]),
                        ("int64", [[-(2**62), 1], [2, 3]])]:
        check(*pair(vals, dtype))
    for dtype in ("complex64", "complex128"):
        for vals in [[1 + 2j, -3.5 - 0.5j], [1j], [0j, -0j], [complex(1, -0.0)],
                     [complex(NAN, INF), 1 + 1j], [1e10 + 1j, 1e-5j], [[1 + 1j, 2], [3, 4j]],
                     [complex(-INF, NAN)], [0.5 + 0.25j]]:
            check(*pair(vals, dtype))


@pytest.mark.parametrize("dtype", list(NP))
def test_zero_dim_and_empty(dtype):
    check(*pair(3 if dtype in ("bool",) else 7, dtype))
    check(*pair(-2.5 if dtype[0] in "fbc" and dtype != "bool" else 1, dtype))
    for shape in [(0,), (0, 3), (3, 0, 2), (1, 0)]:
        check(*pair(np.zeros(shape), dtype))


SHAPES = [(1001,), (1200,), (40, 40), (3, 400), (5, 5, 50), (2000, 2), (2, 3, 4, 5), (10, 100),
          (7,), (25,), (3, 9), (2, 2, 2, 2, 2), (1, 1, 1200), (6, 1), (13, 7)]


@pytest.mark.parametrize("scale", [1.0, 1000.0, 1e-6, "round", "int", "bool", "complex"])
def test_wrapping_and_summarization(scale):
    rng = np.random.default_rng(0)
    for shape in SHAPES:
        a = rng.standard_normal(shape)
        if scale == "round":
            check(*pair(np.round(a * 10), "float32"))
        elif scale == "int":
            check(*pair((a * 100).astype(np.int64), "int64"))
        elif scale == "bool":
            check(*pair(a > 0, "bool"))
        elif scale == "complex":
            check(*pair(a + 1j * rng.standard_normal(shape), "complex64"))
        else:
            check(*pair(a * scale, "float32"))
            check(*pair(a * scale, "float64"))


def test_non_contiguous_views():
    a = np.arange(24.0).reshape(2, 3, 4) / 7
    t, j = pair(a, "float32")
    check(t.transpose(0, 2), j.transpose(0, 2))
    check(t[:, 1], j[:, 1])
    check(t[..., ::2], j[..., ::2])


OPTIONS = [{"precision": 2}, {"precision": 0}, {"precision": 10}, {"threshold": 5},
           {"edgeitems": 1, "threshold": 10}, {"edgeitems": 0}, {"edgeitems": 0, "threshold": 3},
           {"linewidth": 40}, {"linewidth": 200}, {"profile": "short"},
           {"profile": "full"}, {"sci_mode": True}, {"sci_mode": False},
           {"precision": 6, "sci_mode": True, "linewidth": 50},
           {"profile": "short", "precision": 5}]


@pytest.mark.parametrize("opts", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in
                                                                    o.items()))
def test_print_options(opts):
    torch.set_printoptions(**opts)
    jtorch.set_printoptions(**opts)
    rng = np.random.default_rng(1)
    for shape in [(12,), (4, 6), (30, 3), (2, 3, 9), (1500,), ()]:
        a = rng.standard_normal(shape) * 50
        check(*pair(a, "float32"))
        check(*pair(np.round(a), "float64"))
        check(*pair(a.astype(np.int64), "int64"))
        check(*pair(a + 0.5j * a, "complex64"))
    for vals in ([0.0, 0.0], [1e-9, 1.0], [1e10], [NAN]):
        check(*pair(vals, "float32"))
    check(*pair(np.zeros((0, 2)), "float32"))


def test_printoptions_state():
    jtorch.set_printoptions(precision=2, sci_mode=True)
    from jtorch._tensor_str import get_printoptions, printoptions

    assert get_printoptions()["precision"] == 2 and get_printoptions()["sci_mode"] is True
    jtorch.set_printoptions(linewidth=70)  # sci_mode resets to None when not given (torch)
    assert get_printoptions() == {"precision": 2, "threshold": 1000, "edgeitems": 3,
                                  "linewidth": 70, "sci_mode": None}
    with printoptions(precision=1):
        assert repr(jtorch.tensor([1.25])) == "tensor([1.2])"
    assert get_printoptions()["precision"] == 2


def test_autograd_suffixes():
    a = np.arange(6.0).reshape(2, 3) / 3
    t, j = pair(a, "float32")
    t.requires_grad_(True)
    j.requires_grad_(True)
    check(t, j)
    check(t + 1, j + 1)
    check(t * t, j * j)
    check(t - 1, j - 1)
    check((t / 2)[0, 1], (j / 2)[0, 1])
    check(t.double(), j.double())
    check(t.detach(), j.detach())
    # long rows: the suffix moves to a new line when it would pass the line width
    wide_t, wide_j = pair(np.linspace(-1, 1, 9) * 1234.5678, "float64")
    wide_t.requires_grad_(True)
    wide_j.requires_grad_(True)
    check(wide_t, wide_j)
    check(wide_t * 2, wide_j * 2)
    check(wide_t.float() * 2, wide_j.float() * 2)
    with torch.no_grad(), jtorch.no_grad():
        check(t * 2, j * 2)


@pytest.mark.parametrize("dflt", ["float64", "float16"])
def test_dtype_suffix_follows_default_dtype(dflt):
    torch.set_default_dtype(getattr(torch, dflt))
    jtorch.set_default_dtype(getattr(jtorch, dflt))
    for dtype in ["float32", "float64", "float16", "complex64", "complex128", "int64", "bool",
                  "int32"]:
        if dflt == "float16" and dtype.startswith("complex"):
            continue  # PyTorch's default complex is complex32 there, absent from jtorch
        check(*pair([1.5, 2.0], dtype))
        check(*pair(np.zeros((0,)), dtype))


def test_device_suffix_for_extra_host_devices():
    j = jtorch.tensor([1.5, 2.0]).to("cpu:1")
    assert repr(j) == "tensor([1.5000, 2.0000], device='cpu:1')"
    j = jtorch.ones(2, 2, dtype=jtorch.int32, device="cpu:3", requires_grad=False)
    assert repr(j) == "tensor([[1, 1],\n        [1, 1]], device='cpu:3', dtype=torch.int32)"
    g = jtorch.ones(2, requires_grad=True).to("cpu:2")
    assert repr(g) == "tensor([1., 1.], device='cpu:2', grad_fn=<ToCopyBackward0>)"
    assert repr(jtorch.ones(2).to("cpu:2").cpu()) == "tensor([1., 1.])"


def test_return_types_repr():
    """Ops returning several tensors print as PyTorch's structseqs: a field a line."""
    def texts(T):
        x = T.tensor([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]])
        return [repr(x.max(1)), str(x.sort(0)), repr(T.linalg.slogdet(T.eye(2))),
                repr(x.max(1).indices)]

    assert texts(jtorch) == texts(torch)


def test_type_names():
    for name in NP:
        t, j = pair([1], name)
        assert j.type() == t.type()
        from jtorch._tensor_str import type_name

        assert type_name(j) == t.type()


def test_tensor_contents_and_traced():
    j = jtorch.ones(2)
    assert j.__repr__(tensor_contents="[...]") == torch.ones(2).__repr__(tensor_contents="[...]")
    seen = []

    def f(x):
        t = jtorch.Tensor._make(x)
        seen.append(repr(t))
        return x

    jax.jit(f)(np.ones((3, 4), np.float64))
    # under jit a tensor holds no numbers: printed like PyTorch's meta tensors
    assert seen == ["tensor(..., size=(3, 4), dtype=torch.float64)"]


# ------------------------------------------------------------------------------ hypothesis
VALUES = st.one_of(
    st.floats(-1e6, 1e6, width=32), st.integers(-1000, 1000).map(float),
    st.sampled_from([0.0, -0.0, NAN, INF, -INF, 1e30, -1e-30, 1e-7, 123456789.0, 0.5]),
)
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool",
          "complex64", "complex128"]


@st.composite
def arrays(draw):
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=4)))
    n = int(np.prod(shape))
    vals = draw(st.lists(VALUES, min_size=n, max_size=n))
    dtype = draw(st.sampled_from(DTYPES))
    a = np.asarray(vals, np.float64).reshape(shape)
    if dtype in ("int64", "int32", "uint8", "bool"):
        a = np.nan_to_num(a, posinf=7, neginf=-7)
        a = np.clip(a, 0, 255) if dtype == "uint8" else np.clip(a, -1e6, 1e6)
        a = (a > 0) if dtype == "bool" else a
    if dtype.startswith("complex"):
        with np.errstate(invalid="ignore"):
            a = a + 1j * np.roll(a, 1)
    return a, dtype


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=arrays(), precision=st.integers(0, 8), threshold=st.sampled_from([1000, 7, 30]),
       edgeitems=st.integers(0, 3), linewidth=st.integers(20, 120),
       sci_mode=st.sampled_from([None, None, True, False]))
def test_random_tensors_and_options(data, precision, threshold, edgeitems, linewidth,
                                    sci_mode):
    a, dtype = data
    opts = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems,
                "linewidth": linewidth, "sci_mode": sci_mode}
    torch.set_printoptions(**opts)
    jtorch.set_printoptions(**opts)
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            check(*pair(a, dtype))
    finally:
        torch.set_printoptions(profile="default")
        jtorch.set_printoptions(profile="default")
