"""torch.nn.functional.grouped_mm and torch._grouped_mm against PyTorch 2.13's CPU kernel: the
four layouts (2D x 3D, 3D x 2D, 2D x 2D with jagged K, 3D x 3D), empty groups, offsets that
stop short of or run past the operand, column-major weights (transformers' ``weight.mT``),
half precision, gradients (and a second order), jit with traced offsets, and PyTorch's errors.

PyTorch leaves the rows (columns) past ``offs[-1]`` uninitialized, in the output and in the
gradients: there only the written part is compared, and jtorch's zeros are checked."""

import numpy as np
import pytest
import torch
from helpers import NoGrad, NonContig, assert_close, parity, raises_like, rand

import jtorch


def _offs(*ends):
    return np.array(ends, dtype=np.int32)


def _gmm(T, a, b, offs=None):
    return T.nn.functional.grouped_mm(a, b, offs=offs)


@pytest.mark.parametrize("ends", [(2, 2, 7), (0, 3, 7), (7, 7, 7), (1, 4, 7)])
def test_2d_3d_rows_grouped(ends):
    parity(_gmm, rand(7, 8, seed=0), rand(3, 8, 4, seed=1), _offs(*ends))


def test_2d_3d_column_major_weight():
    # transformers passes weight.transpose(-2, -1) of an (E, N, K) parameter
    parity(_gmm, rand(6, 8, seed=2), NonContig(rand(4, 8, 16, seed=3)), _offs(1, 1, 4, 6))


def test_3d_2d_columns_grouped():
    parity(_gmm, rand(3, 5, 8, seed=4), rand(8, 24, seed=5), _offs(4, 4, 24))


def test_2d_2d_contraction_grouped():
    # the weight gradient's layout: (M, K) @ (K, N) -> (G, M, N), an empty group is zero
    parity(_gmm, rand(5, 16, seed=6), rand(16, 8, seed=7), _offs(4, 4, 16))


def test_3d_3d_batched():
    parity(_gmm, rand(3, 5, 8, seed=8), rand(3, 8, 4, seed=9))


def test_private_alias_takes_offs_positionally():
    parity(lambda T, a, b, o: T._grouped_mm(a, b, o), rand(6, 8, seed=10),
           rand(2, 8, 4, seed=11), _offs(2, 6))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_precision(dtype):
    def fn(T, a, b, o):
        return T.nn.functional.grouped_mm(a.to(getattr(T, dtype)), b.to(getattr(T, dtype)),
                                          offs=o)

    parity(fn, rand(7, 16, seed=12), rand(3, 16, 8, seed=13), _offs(3, 3, 7), atol=2e-2,
           rtol=2e-2, jit=False)


def test_second_order():
    def fn(T, a, b, o, ct):
        out = T.nn.functional.grouped_mm(a, b, offs=o)
        (ga,) = T.autograd.grad(out, a, ct, create_graph=True)
        return ga

    parity(fn, rand(6, 8, seed=14), rand(2, 8, 4, seed=15), _offs(2, 6),
           NoGrad(rand(6, 4, seed=16)), jit=False)


def _run(lib, a, b, offs, ct):
    a, b = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
    out = lib.nn.functional.grouped_mm(a, b, offs=lib.tensor(offs))
    out.backward(lib.tensor(ct))
    return out.detach(), a.grad, b.grad


def test_rows_past_last_offset():
    """PyTorch writes only rows < offs[-1] (of the output and of mat_a's gradient); jtorch
    writes zeros past them."""
    a, b, ct = rand(7, 8, seed=17), rand(3, 8, 4, seed=18), rand(7, 4, seed=19)
    t_out, t_ga, t_gb = _run(torch, a, b, _offs(2, 2, 5), ct)
    j_out, j_ga, j_gb = _run(jtorch, a, b, _offs(2, 2, 5), ct)
    assert_close(j_out[:5], t_out[:5])
    assert_close(j_ga[:5], t_ga[:5])
    assert_close(j_gb, t_gb)
    assert not np.any(j_out[5:].numpy()) and not np.any(j_ga[5:].numpy())


def test_columns_and_contraction_past_last_offset():
    a, b, ct = rand(3, 5, 8, seed=20), rand(8, 24, seed=21), rand(5, 24, seed=22)
    t_out, t_ga, t_gb = _run(torch, a, b, _offs(4, 8, 16), ct)
    j_out, j_ga, j_gb = _run(jtorch, a, b, _offs(4, 8, 16), ct)
    assert_close(j_out[:, :16], t_out[:, :16])
    assert_close(j_ga, t_ga)
    assert_close(j_gb[:, :16], t_gb[:, :16])
    assert not np.any(j_out[:, 16:].numpy()) and not np.any(j_gb[:, 16:].numpy())
    a, b, ct = rand(5, 32, seed=23), rand(32, 8, seed=24), rand(3, 5, 8, seed=25)
    t_out, t_ga, t_gb = _run(torch, a, b, _offs(8, 8, 16), ct)
    j_out, j_ga, j_gb = _run(jtorch, a, b, _offs(8, 8, 16), ct)
    assert_close(j_out, t_out)
    assert_close(j_ga[:, :16], t_ga[:, :16])
    assert_close(j_gb[:16], t_gb[:16])
    assert not np.any(j_ga[:, 16:].numpy()) and not np.any(j_gb[16:].numpy())


def test_offsets_past_the_end_are_clamped():
    parity(_gmm, rand(7, 8, seed=26), rand(3, 8, 4, seed=27), _offs(2, 5, 9))


def test_one_compiled_kernel_serves_every_routing():
    """offs is data: under jtorch.compile new offsets reuse the program and match PyTorch."""
    a, b = rand(6, 8, seed=28), rand(3, 8, 4, seed=29)
    step = jtorch.compile(lambda x, w, o: jtorch.nn.functional.grouped_mm(x, w, offs=o))
    for ends in [(2, 4, 6), (0, 6, 6), (3, 3, 6)]:
        want = torch.nn.functional.grouped_mm(torch.tensor(a), torch.tensor(b),
                                              offs=torch.tensor(_offs(*ends)))
        got = step(jtorch.tensor(a), jtorch.tensor(b), jtorch.tensor(_offs(*ends)))
        assert_close(got, want)


def test_not_autocast():
    def fn(T, a, b, o):
        with T.autocast("cpu", dtype=T.bfloat16):
            return T.nn.functional.grouped_mm(a, b, offs=o)

    parity(fn, rand(6, 8, seed=30), rand(2, 8, 4, seed=31), _offs(2, 6), jit=False)


def _errors():
    f32, i32 = "float32", "int32"
    return {
        "double": (((7, 8), "float64"), ((3, 8, 8), "float64"), (3,)),
        "int_b": (((7, 8), f32), ((3, 8, 8), i32), (3,)),
        "1d": (((8,), f32), ((3, 8, 8), f32), (3,)),
        "contraction": (((7, 4), f32), ((3, 8, 8), f32), (3,)),
        "stride_16_bytes": (((7, 8), f32), ((3, 8, 6), f32), (3,)),
        "no_offs": (((7, 8), f32), ((3, 8, 8), f32), None),
        "offs_with_3d": (((3, 7, 8), f32), ((3, 8, 8), f32), (3,)),
        "offs_int64": (((7, 8), f32), ((3, 8, 8), f32), ((3,), "int64")),
        "offs_2d": (((7, 8), f32), ((3, 8, 8), f32), ((1, 3), i32)),
        "batch": (((7, 8), f32), ((3, 8, 8), f32), (2,)),
        "batch_3d2d": (((3, 7, 8), f32), ((8, 8), f32), (2,)),
        "batch_3d3d": (((3, 7, 8), f32), ((2, 8, 8), f32), None),
        "mixed": (((7, 8), f32), ((3, 8, 8), "bfloat16"), (3,)),
        "mixed_3d3d": (((3, 7, 8), f32), ((3, 8, 8), "bfloat16"), None),
    }


@pytest.mark.parametrize("case", list(_errors()))
def test_errors(case):
    (sa, da), (sb, db), offs = _errors()[case]

    def call(T):
        a, b = T.zeros(sa, dtype=getattr(T, da)), T.zeros(sb, dtype=getattr(T, db))
        o = None
        if offs is not None:
            shape, dt = offs if isinstance(offs[0], tuple) else (offs, "int32")
            o = T.full(shape, 2, dtype=getattr(T, dt))
        return T.nn.functional.grouped_mm(a, b, offs=o)

    raises_like(lambda: call(torch), lambda: call(jtorch))


@pytest.mark.parametrize("what", ["expanded", "bias", "out_dtype"])
def test_errors_of_layout_bias_and_out_dtype(what):
    def call(T, what):
        a, b, o = T.zeros(7, 8), T.zeros(3, 8, 8), T.tensor([2, 5, 7], dtype=T.int32)
        if what == "expanded":
            a = T.zeros(1, 8).expand(7, 8)
        if what == "bias":
            return T.nn.functional.grouped_mm(a, b, offs=o, bias=T.zeros(3, 8))
        if what == "out_dtype":
            return T.nn.functional.grouped_mm(a, b, offs=o, out_dtype=T.bfloat16)
        return T.nn.functional.grouped_mm(a, b, offs=o)

    raises_like(lambda: call(torch, what), lambda: call(jtorch, what))


def test_out_dtype_equal_to_mat_a():
    parity(lambda T, a, b, o: T.nn.functional.grouped_mm(a, b, offs=o, out_dtype=T.float32),
           rand(6, 8, seed=32), rand(2, 8, 4, seed=33), _offs(2, 6))
