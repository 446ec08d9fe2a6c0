"""Regressions found by running kornia unchanged under jtorch (scripts/real_drivers/kornia_ops.py,
docs/real-programs.md): each test is a small stand-in for what the library did, in plain
torch-API code, run in jtorch and in real PyTorch."""

import pickle

import numpy as np
import pytest
import torch

import jtorch


def test_torch_torch_is_the_package():
    # kornia annotates with torch.torch.Tensor (AttributeError at import kornia)
    assert torch.torch is torch
    assert jtorch.torch is jtorch
    assert jtorch.torch.Tensor is jtorch.Tensor


def test_fake_tensor_and_proxy_mode_queries():
    # kornia.contrib imports torch._subclasses.fake_tensor.is_fake and
    # torch.fx.experimental.proxy_tensor.get_proxy_mode to tell a traced call from an eager one
    from torch._subclasses.fake_tensor import is_fake as want_is_fake
    from torch.fx.experimental.proxy_tensor import get_proxy_mode as want_mode

    from jtorch._subclasses.fake_tensor import is_fake
    from jtorch.fx.experimental.proxy_tensor import get_proxy_mode, make_fx
    assert is_fake(jtorch.ones(2)) == want_is_fake(torch.ones(2))
    assert get_proxy_mode() is want_mode() is None
    with pytest.raises(NotImplementedError, match="make_fx"):
        make_fx(lambda x: x)
    with pytest.raises(NotImplementedError, match="FakeTensorMode"):
        jtorch._subclasses.fake_tensor.FakeTensorMode  # noqa: B018


def test_are_functorch_transforms_active():
    # kornia asks torch._C._are_functorch_transforms_active() before clamping in place
    # (AttributeError); True only while a torch.func transform traces the function
    for T in (jtorch, torch):
        seen = []

        def f(x, T=T, seen=seen):
            seen.append(T._C._are_functorch_transforms_active())
            return x * 2

        outside = T._C._are_functorch_transforms_active()
        T.func.vmap(f)(T.ones(3))
        T.func.grad(lambda x, f=f: f(x).sum())(T.ones(3))
        seen.append(T._C._are_functorch_transforms_active())
        assert [outside, *seen] == [False, True, True, False], T.__name__


def test_assert_async():
    # kornia's histogram checks its bandwidth with torch._assert_async(cond, msg)
    cases = [([True], ()), ([0.5], ()), ([False], ()), ([False], ("bad sigma",)),
             ([0.0], ()), ([True, True], ()), ([], ("m",))]
    for value, extra in cases:
        outcomes = []
        for T in (jtorch, torch):
            x = T.tensor(value[0]) if len(value) == 1 else T.tensor(value)
            try:
                outcomes.append(("ok", T._assert_async(x, *extra)))
            except RuntimeError as e:
                outcomes.append(("RuntimeError", str(e)))
        assert outcomes[0] == outcomes[1], (value, extra)


def test_complex32_is_named():
    # kornia compares dtypes with `dtype in (..., torch.complex32, ...)` on every warp
    # (AttributeError: jtorch had no complex32)
    got, want = jtorch.complex32, torch.complex32
    assert repr(got) == repr(want) and jtorch.chalf is got
    assert (got.is_complex, got.is_floating_point, got.itemsize) == \
        (want.is_complex, want.is_floating_point, want.itemsize)
    assert repr(got.to_real()) == repr(want.to_real())
    assert jtorch.float32 in (jtorch.float16, got, jtorch.float32)
    assert got != jtorch.complex64 and got not in (jtorch.float32, jtorch.complex64)
    # a tensor of it is not made: JAX has no complex half
    with pytest.raises(NotImplementedError, match="torch.complex32"):
        jtorch.zeros(2, dtype=got)
    with pytest.raises(NotImplementedError, match="torch.complex32"):
        jtorch.ones(2).to(got)


def _inplace_after(T, f):
    """Whether backward succeeds after the input of ``f`` is modified in place."""
    x = T.tensor([0.2, 0.9, 1.4, 1.8], requires_grad=True)
    a = x * 2
    y = f(T, a)
    a.mul_(2)
    try:
        y.sum().backward()
    except RuntimeError:
        return None
    return x.grad.numpy()


@pytest.mark.parametrize("name", ["where", "div_scalar", "remainder_scalar", "flip",
                                  "clamp", "mul_tensor"])
def test_ops_that_save_no_input(name):
    # kornia's rgb_to_hls: l_ = maxc + minc; where(l_ < 1, l_, 2 - l_); then l_ /= 2; jtorch's
    # where (and div by a number, remainder, flip) saved their inputs, so the backward raised
    # "modified by an inplace operation"; PyTorch saves only where's condition
    fns = {"where": lambda T, a: T.where(a < 2.5, a, 2.0 - a),
           "div_scalar": lambda T, a: a / 3, "remainder_scalar": lambda T, a: a % 1.5,
           "flip": lambda T, a: a.flip(0),
           "clamp": lambda T, a: a.clamp(0.5, 3.0),    # PyTorch saves self: an error
           "mul_tensor": lambda T, a: a * a.detach()}  # saves other (a's detached view)
    got, want = (_inplace_after(T, fns[name]) for T in (jtorch, torch))
    assert (got is None) == (want is None)
    if want is not None:
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_rgb_to_hls_pattern_gradient():
    # the whole pattern of kornia.color.rgb_to_hls, values and gradient
    def hls(T, image):
        maxc, imax = image.max(-3)
        minc = image.min(-3)[0]
        l_ = maxc + minc
        s = maxc - minc
        cd = T.where(s == 0, T.ones_like(s), s + 1e-8)
        ld = T.where(l_ < 1.0, l_, 2.0 - l_)
        s /= T.where(ld == 0, T.ones_like(ld), ld + 1e-8)
        l_ /= 2
        r, g, b = image[..., 0, :, :], image[..., 1, :, :], image[..., 2, :, :]
        cond = imax[..., None, :, :] == T.arange(3.0).view(3, 1, 1)
        h = (((g - b) / cd) % 6) * cond[..., 0, :, :]
        h += ((b - r) / cd + 2) * cond[..., 1, :, :]
        h *= 1.0471975511965976
        return T.stack([h, l_, s], -3)

    data = np.random.default_rng(0).random((2, 3, 4, 5), dtype=np.float32)
    res = []
    for T in (jtorch, torch):
        x = T.tensor(data, requires_grad=True)
        out = hls(T, x)
        out.pow(2).sum().backward()
        res.append((out.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-4, atol=1e-5)


def test_where_second_backward_and_saved_condition():
    # where saves its condition: a second backward needs retain_graph, and modifying the
    # condition in place is an error at backward, as in PyTorch
    for T in (jtorch, torch):
        a = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = T.where(a > 1.5, a, 0.0).sum()
        y.backward()
        with pytest.raises(RuntimeError):
            y.backward()
        c = T.tensor([True, False, True])
        y = T.where(c, a, a * 2).sum()
        c.logical_not_()
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.backward()


def test_complex32_pickles_both_ways(tmp_path):
    # a dtype object in a checkpoint (torch.save of a dict naming it) loads in either framework
    jtorch.save({"d": jtorch.complex32, "e": jtorch.float32}, tmp_path / "j.pt")
    assert torch.load(tmp_path / "j.pt") == {"d": torch.complex32, "e": torch.float32}
    torch.save({"d": torch.complex32}, tmp_path / "t.pt")
    assert jtorch.load(tmp_path / "t.pt") == {"d": jtorch.complex32}
    assert pickle.loads(pickle.dumps(jtorch.complex32)) is jtorch.complex32
