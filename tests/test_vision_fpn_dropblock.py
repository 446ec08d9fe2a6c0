"""torchvision.ops' FeaturePyramidNetwork (with LastLevelMaxPool and LastLevelP6P7) and
DropBlock against torchvision 0.28's own Python modules: structure and state_dict keys,
outputs and gradients from the same weights; DropBlock from the same block centres (both
frameworks' ``bernoulli_`` draw from one NumPy generator)."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest
import torch
from helpers import raises_like
from vision_helpers import copy_weights, to_jtorch, torchvision

import jtorch
from jtorch.vision import ops as jops
from jtorch.vision.ops import feature_pyramid_network as jfpn

tv = torchvision()
tfpn = tv.ops.feature_pyramid_network


def _features(lib, seed=0):
    rng = np.random.default_rng(seed)
    shapes = (("c2", (2, 4, 16, 16)), ("c3", (2, 6, 8, 8)), ("c4", (2, 8, 5, 4)))
    return OrderedDict((k, lib.tensor(rng.standard_normal(s), dtype=lib.float64,
                                      requires_grad=True)) for k, s in shapes)


@pytest.mark.parametrize("extra", ["none", "maxpool", "p6p7", "p6p7_from_c5", "batchnorm"])
def test_feature_pyramid_network(extra):
    def build(ops, fpn_module, lib):
        blocks = {"none": None, "maxpool": fpn_module.LastLevelMaxPool(),
                  "p6p7": fpn_module.LastLevelP6P7(5, 5),
                  "p6p7_from_c5": fpn_module.LastLevelP6P7(8, 5), "batchnorm": None}[extra]
        norm = lib.nn.BatchNorm2d if extra == "batchnorm" else None
        return ops.FeaturePyramidNetwork([4, 6, 8], 5, extra_blocks=blocks,
                                         norm_layer=norm).double()

    tm, jm = build(tv.ops, tfpn, torch), build(jops, jfpn, jtorch)
    assert [(n, type(m).__name__) for n, m in jm.named_modules()] == \
        [(n, type(m).__name__) for n, m in tm.named_modules()]
    copy_weights(tm, jm)
    tx, jx = _features(torch), _features(jtorch)
    ty, jy = tm(tx), jm(jx)
    assert list(jy) == list(ty)
    loss_t = sum((v * (i + 1)).sum() for i, v in enumerate(ty.values()))
    loss_j = sum((v * (i + 1)).sum() for i, v in enumerate(jy.values()))
    loss_t.backward()
    loss_j.backward()
    for k in ty:
        np.testing.assert_allclose(jy[k].detach().numpy(), ty[k].detach().numpy(), rtol=1e-12,
                                   atol=1e-12, err_msg=k)
    for k in tx:
        np.testing.assert_allclose(jx[k].grad.numpy(), tx[k].grad.numpy(), rtol=1e-12,
                                   atol=1e-12, err_msg=k)
    # atol from the largest gradient: with batch norm, the lateral blocks' norm biases have
    # a zero gradient in exact arithmetic (the next train-mode norm cancels a constant shift)
    jp = dict(jm.named_parameters())
    gmax = max(float(p.grad.abs().max()) for p in tm.parameters())
    for k, p in tm.named_parameters():
        np.testing.assert_allclose(jp[k].grad.numpy(), p.grad.numpy(), rtol=1e-10,
                                   atol=1e-12 * gmax, err_msg=k)


def test_fpn_init_version_1_keys_and_errors():
    torch.manual_seed(0)
    jm = jops.FeaturePyramidNetwork([3, 4], 2)
    for m in jm.modules():
        if isinstance(m, jtorch.nn.Conv2d):
            assert float(m.bias.abs().max()) == 0
            bound = float(np.sqrt(6 / ((1 + 1) * m.weight[0].numel())))  # kaiming_uniform_, a=1
            assert float(m.weight.abs().max()) <= bound
    # a version-1 state dict: the blocks were bare convolutions
    tm = tv.ops.FeaturePyramidNetwork([3, 4], 2)
    old = OrderedDict((k.replace(".0.weight", ".weight").replace(".0.bias", ".bias"),
                       to_jtorch(v)) for k, v in tm.state_dict().items())
    jm.load_state_dict(old)
    np.testing.assert_array_equal(jm.inner_blocks[1][0].weight.detach().numpy(),
                                  tm.inner_blocks[1][0].weight.detach().numpy())
    raises_like(lambda: tv.ops.FeaturePyramidNetwork([3, 0], 2),
                lambda: jops.FeaturePyramidNetwork([3, 0], 2))
    for ops, lib in ((tv.ops, torch), (jops, jtorch)):  # the message names the class given
        with pytest.raises(TypeError, match="^extra_blocks should be of type ExtraFPNBlock not "
                                            "<class '.*ReLU'>$"):
            ops.FeaturePyramidNetwork([3], 2, extra_blocks=lib.nn.ReLU())


@pytest.fixture
def shared_bernoulli(monkeypatch):
    """``Tensor.bernoulli_(p)`` of both frameworks: draws from one reseedable NumPy stream."""
    state = {"rng": np.random.default_rng(0)}

    def patch(lib):
        def bernoulli_(self, p=0.5, *, generator=None):
            draw = (state["rng"].random(tuple(self.shape)) < p).astype(np.float64)
            with lib.no_grad():
                self.copy_(lib.tensor(draw, dtype=self.dtype))
            return self
        monkeypatch.setattr(lib.Tensor, "bernoulli_", bernoulli_)

    patch(torch)
    patch(jtorch)
    return state


@pytest.mark.parametrize("dims", [2, 3])
def test_drop_block_same_centres(shared_bernoulli, dims):
    rng = np.random.default_rng(1)
    shape = (2, 3, 9, 10) if dims == 2 else (2, 2, 5, 6, 7)
    x = rng.standard_normal(shape)
    t_fn = tv.ops.drop_block2d if dims == 2 else tv.ops.drop_block3d
    j_fn = jops.drop_block2d if dims == 2 else jops.drop_block3d
    for p, block_size in ((0.3, 3), (0.6, 5), (0.2, 11)):   # 11 > the smallest size: clipped
        shared_bernoulli["rng"] = np.random.default_rng(7)
        xt = torch.tensor(x, requires_grad=True)
        yt = t_fn(xt, p, block_size)
        shared_bernoulli["rng"] = np.random.default_rng(7)
        xj = jtorch.tensor(x, requires_grad=True)
        yj = j_fn(xj, p, block_size)
        np.testing.assert_allclose(yj.detach().numpy(), yt.detach().numpy(), rtol=1e-12)
        (yt * yt).sum().backward()
        (yj * yj).sum().backward()
        np.testing.assert_allclose(xj.grad.numpy(), xt.grad.numpy(), rtol=1e-12)
    # the modules: eval mode is the identity, in-place training mode writes the input
    tm = (tv.ops.DropBlock2d if dims == 2 else tv.ops.DropBlock3d)(0.4, 3, inplace=True)
    jm = (jops.DropBlock2d if dims == 2 else jops.DropBlock3d)(0.4, 3, inplace=True)
    assert repr(jm) == repr(tm)
    xj = jtorch.tensor(x)
    assert jm.eval()(xj) is xj
    shared_bernoulli["rng"] = np.random.default_rng(3)
    xt = torch.tensor(x)
    tm.train()(xt)
    shared_bernoulli["rng"] = np.random.default_rng(3)
    jm.train()(xj)
    np.testing.assert_allclose(xj.numpy(), xt.numpy(), rtol=1e-12)


def test_drop_block_errors():
    x4, x5 = torch.randn(1, 1, 4, 4), torch.randn(1, 1, 4, 4, 4)
    for args in ((x4, 1.5, 3), (x4, 0.5, 2), (x5, 0.5, 3)):
        raises_like(lambda: tv.ops.drop_block2d(*args),  # noqa: B023
                    lambda: jops.drop_block2d(to_jtorch(args[0]), *args[1:]))  # noqa: B023
    raises_like(lambda: tv.ops.drop_block3d(x4, 0.5, 3),
                lambda: jops.drop_block3d(to_jtorch(x4), 0.5, 3))
