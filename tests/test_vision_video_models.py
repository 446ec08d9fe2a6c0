"""jtorch.vision.models.video against torchvision 0.28 (see vision_helpers for how torchvision
runs on the CPU torch): the same state_dict keys, shapes and module tree, the same eval outputs,
train-mode outputs and gradients (inputs and parameters) from the same weights on tiny clips,
the weights enums (Kinetics-400 meta, the ``VideoClassification`` preset) and torchvision's
errors. The stand-in submodules still expose every torchvision name.

Eager 3D CNNs are slow here (every new op shape compiles): S3D's full parity (it needs 224 x
224 frames) is marked ``slow``; its blocks are checked in the default run.
"""

import dataclasses
import importlib
import pkgutil

import numpy as np
import pytest
import torch
from vision_helpers import (
    assert_close,
    copy_weights,
    dropouts_off,
    raises_as_torchvision,
    to_jtorch,
    torchvision,
)

import jtorch
from jtorch._core.errors import is_stand_in
from jtorch.vision.models import video

tv = torchvision()
tvv = tv.models.video

BUILDERS = ["r3d_18", "mc3_18", "r2plus1d_18", "s3d", "swin3d_t", "swin3d_s", "swin3d_b",
            "mvit_v1_b", "mvit_v2_s"]


@pytest.fixture
def no_init(monkeypatch):
    """Builds skip the random initialization (structure tests only: keys, shapes, dtypes)."""
    for mod in (jtorch.nn.init, torch.nn.init):
        for name in ("kaiming_normal_", "kaiming_uniform_", "normal_", "uniform_",
                     "trunc_normal_", "xavier_uniform_", "constant_", "zeros_", "ones_"):
            monkeypatch.setattr(mod, name, lambda t, *a, **k: t)


def _same_structure(got, ref):
    r, g = ref.state_dict(), got.state_dict()
    assert list(g) == list(r)
    for k in r:
        assert tuple(g[k].shape) == tuple(r[k].shape), k
        assert str(g[k].dtype) == str(r[k].dtype), k
    assert [(n, type(m).__name__) for n, m in got.named_modules()] == \
        [(n, type(m).__name__) for n, m in ref.named_modules()]


@pytest.mark.parametrize("name", BUILDERS)
def test_state_dict_keys_and_shapes(name, no_init):
    _same_structure(getattr(video, name)(num_classes=7), getattr(tvv, name)(num_classes=7))


def _parity(tm, jm, x, rtol=1e-4, atol=1e-5, grad_atol=2e-4, train=False):
    """From torchvision's weights: the outputs, and the gradients of a weighted sum of them with
    respect to the input and every parameter, in eval mode (``train``: in train mode with
    dropout off, where batch norm over the few values of the last stages amplifies float32
    rounding: use float64 there)."""
    copy_weights(tm, jm)
    if x.dtype == torch.float64:
        tm.double()
        jm.double()
    if train:
        dropouts_off(tm, (torch.nn.Dropout,))
        dropouts_off(jm, (jtorch.nn.Dropout,))
    else:
        tm.eval()
        jm.eval()
    x = x.clone().requires_grad_()
    xj = to_jtorch(x, requires_grad=True)
    ref, out = tm(x), jm(xj)
    assert_close(out, ref, rtol, atol)
    w = torch.randn(ref.shape, dtype=x.dtype)
    (ref * w).sum().backward()
    (out * to_jtorch(w)).sum().backward()
    pairs = [("input", xj.grad, x.grad)]
    jp = dict(jm.named_parameters())
    pairs += [(k, jp[k].grad, p.grad) for k, p in tm.named_parameters()]
    gmax = max(float(r.abs().max()) for _, _, r in pairs)
    for k, g, r in pairs:  # scale: the tensor's largest gradient, at least 1% of the largest
        scale = max(float(r.abs().max()), 1e-2 * gmax)
        np.testing.assert_allclose(g.numpy() / scale, r.numpy() / scale, rtol=0,
                                   atol=grad_atol, err_msg=k)
    if train:
        jb = dict(jm.named_buffers())
        for k, b in tm.named_buffers():
            assert_close(jb[k], b, rtol, atol)


@pytest.fixture
def jt_no_init(monkeypatch):
    """jtorch's builds skip the random initialization (the parity tests copy torchvision's
    weights; drawing 33M random numbers costs seconds of kernel compiles)."""
    for name in ("kaiming_normal_", "normal_", "constant_", "uniform_", "kaiming_uniform_",
                 "trunc_normal_"):
        monkeypatch.setattr(jtorch.nn.init, name, lambda t, *a, **k: t)


@pytest.mark.parametrize("name", ["r3d_18", "mc3_18", "r2plus1d_18"])
def test_video_resnet_parity(name, jt_no_init):
    torch.manual_seed(0)
    _parity(getattr(tvv, name)(num_classes=5), getattr(video, name)(num_classes=5),
            torch.randn(1, 3, 4, 32, 32))


@pytest.mark.slow
def test_r2plus1d_18_train_parity(jt_no_init):
    """Train mode (batch statistics, running-stat updates) in float64."""
    torch.manual_seed(0)
    _parity(tvv.r2plus1d_18(num_classes=5), video.r2plus1d_18(num_classes=5),
            torch.randn(2, 3, 4, 32, 32, dtype=torch.float64), rtol=1e-9, atol=1e-10,
            grad_atol=1e-9, train=True)


def test_video_resnet_bottleneck_parity(jt_no_init):
    """A custom VideoResNet: Bottleneck blocks, mixed convolutions, the R(2+1)D stem."""
    torch.manual_seed(0)
    R, J = tvv.resnet, video.resnet
    makers = ["Conv2Plus1D", "Conv3DNoTemporal", "Conv3DSimple", "Conv3DNoTemporal"]

    def build(m):
        return m.VideoResNet(m.Bottleneck, [getattr(m, c) for c in makers], [1, 1, 1, 1],
                             m.R2Plus1dStem, num_classes=3)
    tm, jm = build(R), build(J)
    _same_structure(jm, tm)
    _parity(tm, jm, torch.randn(1, 3, 4, 32, 32))


def test_s3d_blocks_parity():
    """S3D's Inception block and separable convolution (the full model needs 224 x 224)."""
    torch.manual_seed(0)
    # (``video.s3d`` is the builder: the modules come from sys.modules)
    ts = importlib.import_module("torchvision.models.video.s3d")
    js = importlib.import_module("jtorch.vision.models.video.s3d")
    mods = [nn.Sequential(m.TemporalSeparableConv(3, 8, 3, 2, 1, n),
                          m.SepInceptionBlock3D(8, 4, 4, 6, 2, 3, 5, n))
            for m, nn in ((ts, torch.nn), (js, jtorch.nn))
            for n in [lambda c, nn=nn: nn.BatchNorm3d(c, eps=1e-3, momentum=1e-3)]]
    _parity(mods[0], mods[1], torch.randn(2, 3, 6, 16, 16), train=True)


def _small_swin(m, **kw):
    """Two stages (an unshifted and a shifted block, then patch merging and one block):
    windows ``[2, 3, 3]`` over 4 x 10 x 10 patches (padded to whole windows), stochastic depth
    (off in eval mode)."""
    return m.SwinTransformer3d(patch_size=[2, 4, 4], embed_dim=8, depths=[2, 1],
                               num_heads=[2, 4], window_size=[2, 3, 3], num_classes=5, **kw)


def test_swin3d_small_parity(jt_no_init):
    torch.manual_seed(0)
    tm, jm = _small_swin(tvv.swin_transformer), _small_swin(video.swin_transformer)
    _same_structure(jm, tm)
    _parity(tm, jm, torch.randn(2, 3, 8, 40, 40))


def test_swin3d_attention_mask_and_index():
    """The shifted-window mask (also with an axis whose window is 1, hence unshifted) and the
    relative position index buffer."""
    T, J = tvv.swin_transformer, video.swin_transformer
    x = torch.zeros(1)
    for size, window, shift in [((4, 6, 6), (2, 3, 3), (1, 1, 1)),
                                ((4, 6, 6), (1, 3, 3), (0, 1, 1))]:
        ref = T._compute_attention_mask_3d(x, size, window, shift)
        got = J._compute_attention_mask_3d(to_jtorch(x), size, window, shift)
        np.testing.assert_array_equal(got.numpy(), ref.numpy())
    for window in ([2, 3, 3], [8, 7, 7]):
        a = T.ShiftedWindowAttention3d(8, window, [1, 1, 1], 2)
        b = J.ShiftedWindowAttention3d(8, window, [1, 1, 1], 2)
        np.testing.assert_array_equal(b.relative_position_index.numpy(),
                                      a.relative_position_index.numpy())
    raises_as_torchvision(lambda: J.ShiftedWindowAttention3d(8, [2, 3], [1, 1, 1], 2),
                          lambda: T.ShiftedWindowAttention3d(8, [2, 3], [1, 1, 1], 2))


@pytest.mark.slow
def test_swin3d_t_parity(jt_no_init):
    torch.manual_seed(0)
    _parity(tvv.swin3d_t(num_classes=5), video.swin3d_t(num_classes=5),
            torch.randn(1, 3, 4, 64, 64))


@pytest.mark.slow
def test_s3d_parity(jt_no_init):
    torch.manual_seed(0)
    _parity(tvv.s3d(num_classes=4), video.s3d(num_classes=4), torch.randn(1, 3, 14, 224, 224))


def _small_mvit(m, v2, **kw):
    """Two blocks on 4 x 20 x 20 clips (a 2 x 5 x 5 patch grid). MViTv1: absolute position
    embeddings, key/value pooling, then a strided query pooling with its max-pooled skip,
    the channel projection after the MLP. MViTv2: relative positions (resampled: the odd
    grid's pooled size is not the tables'), residual pooling, the projection after the
    attention."""
    C = m.MSBlockConfig
    s2, s1, k3 = [1, 2, 2], [1, 1, 1], [3, 3, 3]
    blocks = ([C(1, 8, 16, k3, k3, s2, s2), C(2, 16, 16, k3, k3, s1, s1)] if v2 else
              [C(1, 8, 16, [], k3, [], s2), C(2, 16, 16, k3, k3, s2, s1)])
    return m.MViT((20, 20), 4, blocks, residual_pool=v2, residual_with_cls_embed=False,
                  rel_pos_embed=v2, proj_after_attn=v2, num_classes=5, **kw)


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
def test_mvit_small_parity(v2, jt_no_init):
    torch.manual_seed(0)
    tm, jm = _small_mvit(tvv.mvit, v2), _small_mvit(video.mvit, v2)
    _same_structure(jm, tm)
    _parity(tm, jm, torch.randn(2, 3, 4, 20, 20))


def test_mvit_pieces():
    """A pooling with its norm before it, the class token in the residual
    (``residual_with_cls_embed``), single frames (``(N, C, H, W)``) and torchvision's errors."""
    T, J = tvv.mvit, video.mvit
    torch.manual_seed(0)
    pools = [m.Pool(nn.Conv3d(4, 4, 3, padding=1, groups=4, bias=False), nn.BatchNorm3d(4),
                    nn.ReLU(), norm_before_pool=True)
             for m, nn in ((T, torch.nn), (J, jtorch.nn))]
    copy_weights(pools[0], pools[1])
    x = torch.randn(2, 5, 1 + 8, 4)  # B, heads, 1 + T*H*W, C
    (ref, thw), (got, jthw) = pools[0].eval()(x, (2, 2, 2)), pools[1].eval()(to_jtorch(x),
                                                                              (2, 2, 2))
    assert thw == jthw
    assert_close(got, ref)
    q = torch.randn(2, 5, 9, 4)
    for cls in (False, True):
        ref = T._add_shortcut(torch.zeros(2, 5, 9, 4), q, cls)
        assert_close(J._add_shortcut(jtorch.zeros(2, 5, 9, 4), to_jtorch(q), cls), ref)
    one = [m.MViT((20, 20), 1, [m.MSBlockConfig(2, 8, 8, [], [3, 3, 3], [], [1, 2, 2])] * 2,
                  False, True, False, False, patch_embed_stride=(1, 4, 4), num_classes=3)
           for m in (T, J)]
    copy_weights(one[0], one[1])
    x = torch.randn(2, 3, 20, 20)
    assert_close(one[1].eval()(to_jtorch(x)), one[0].eval()(x))
    raises_as_torchvision(lambda: one[1](jtorch.zeros(3, 20, 20)),
                          lambda: one[0](torch.zeros(3, 20, 20)))
    for n in (0, 1):  # no block; one (its stochastic depth divides by zero)
        raises_as_torchvision(
            lambda: J.MViT((20, 20), 4, [J.MSBlockConfig(1, 8, 8, [], [], [], [])] * n,  # noqa: B023
                           False, False, False, False),
            lambda: T.MViT((20, 20), 4, [T.MSBlockConfig(1, 8, 8, [], [], [], [])] * n,  # noqa: B023
                           False, False, False, False))


def test_mvit_block_settings(monkeypatch):
    """The builders' blocks and ``_mvit`` arguments are torchvision's."""
    seen = {}
    for m in (tvv.mvit, video.mvit):
        monkeypatch.setattr(m, "_mvit", lambda m=m, **kw: seen.setdefault(m, []).append(
            {k: [dataclasses.asdict(c) for c in v] if k == "block_setting" else v
             for k, v in kw.items()}))
        m.mvit_v1_b(stochastic_depth_prob=0.1)
        m.mvit_v2_s()
    assert seen[video.mvit] == seen[tvv.mvit]


@pytest.mark.slow
@pytest.mark.parametrize("v2", [False, True], ids=["mvit_v1_b", "mvit_v2_s"])
def test_mvit_full_depth_parity(v2, jt_no_init):
    """The builders' 16 blocks on 4 x 64 x 64 clips (through the constructor: the builders fix
    224 x 224 x 16)."""
    cfg = video.mvit._block_setting(v2)
    kw = {"residual_pool": v2, "residual_with_cls_embed": False, "rel_pos_embed": v2,
          "proj_after_attn": v2, "num_classes": 5}
    torch.manual_seed(0)
    tm = tvv.mvit.MViT((64, 64), 4, [tvv.mvit.MSBlockConfig(**dataclasses.asdict(c))
                                     for c in cfg], **kw)
    _parity(tm, video.mvit.MViT((64, 64), 4, cfg, **kw), torch.randn(1, 3, 4, 64, 64))


def test_weights_enums_and_registry():
    names = jtorch.vision.models.list_models(module=video)
    assert names == [n for n in tv.models.list_models(module=tvv) if n in BUILDERS]
    for name in BUILDERS:
        je, te = jtorch.vision.models.get_model_weights(name), tv.models.get_model_weights(name)
        assert je.__name__ == te.__name__ and list(je.__members__) == list(te.__members__)
        for member in te.__members__:
            a, b = je[member], te[member]
            assert a.url == b.url and repr(a) == repr(b).replace("torchvision.models.", "")
            assert a.meta == b.meta
            assert a.transforms.func.__name__ == b.transforms.func.__name__ == \
                "VideoClassification"
            assert a.transforms.keywords == b.transforms.keywords
            assert repr(a.transforms()) == repr(b.transforms())
            assert a.transforms().describe() == b.transforms().describe()
    assert len(video.R3D_18_Weights.DEFAULT.meta["categories"]) == 400
    assert jtorch.vision.models.get_weight("S3D_Weights.KINETICS400_V1") is \
        video.S3D_Weights.KINETICS400_V1


def test_video_classification_preset():
    rng = np.random.default_rng(0)
    for shape in [(2, 3, 3, 40, 50), (3, 3, 40, 50)]:
        vid = torch.from_numpy(rng.integers(0, 256, shape, dtype=np.uint8))
        ref = tvv.R3D_18_Weights.DEFAULT.transforms()(vid)
        got = video.R3D_18_Weights.DEFAULT.transforms()(to_jtorch(vid))
        assert tuple(got.shape) == tuple(ref.shape)
        assert_close(got, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.filterwarnings("ignore:Arguments other than a weight enum")
@pytest.mark.filterwarnings("ignore:The parameter 'pretrained' is deprecated")
def test_builder_errors(no_init):
    for name in ("r3d_18", "s3d", "mvit_v2_s"):
        jb, tb = getattr(video, name), getattr(tvv, name)
        raises_as_torchvision(lambda: jb(weights="DEFAULT", num_classes=10),  # noqa: B023
                              lambda: tb(weights="DEFAULT", num_classes=10))  # noqa: B023
        raises_as_torchvision(lambda: jb(weights="IMAGENET1K_V1"),  # noqa: B023
                              lambda: tb(weights="IMAGENET1K_V1"))  # noqa: B023
    raises_as_torchvision(lambda: video.mc3_18(weights=video.R3D_18_Weights.DEFAULT),
                          lambda: tvv.mc3_18(weights=tvv.R3D_18_Weights.DEFAULT))
    raises_as_torchvision(lambda: video.mvit_v1_b(foo=1), lambda: tvv.mvit_v1_b(foo=1))
    for kw in ({"spatial_size": (224, 224)}, {"residual_pool": True}):  # fixed by the builders
        with pytest.raises(TypeError) as ref:
            tvv.mvit_v1_b(**kw)
        with pytest.raises(TypeError) as got:
            video.mvit_v1_b(**kw)
        assert str(got.value) == str(ref.value).replace("torchvision.", "jtorch.vision.")
    R, J = tvv.resnet, video.resnet
    raises_as_torchvision(
        lambda: J.VideoResNet(J.Bottleneck, [J.Conv3DSimple] * 4, [1] * 4, J.BasicStem,
                              zero_init_residual=True),
        lambda: R.VideoResNet(R.Bottleneck, [R.Conv3DSimple] * 4, [1] * 4, R.BasicStem,
                              zero_init_residual=True))


def test_package_names():
    """Every public name of torchvision's video package and its submodules exists: the
    implemented ones are the real thing (the same object in the package and the submodule),
    the others stand-ins."""
    ours = video
    subs = [m.name for m in pkgutil.iter_modules(tvv.__path__)]
    for sub in subs:
        mine = importlib.import_module(f"jtorch.vision.models.video.{sub}")
        tsub = importlib.import_module(f"torchvision.models.video.{sub}")
        assert getattr(mine, "__all__", None) == list(tsub.__all__)
        for name, obj in vars(tsub).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != tsub.__name__:
                continue
            assert hasattr(mine, name), (sub, name)
            if name in tsub.__all__:
                assert getattr(mine, name) is getattr(ours, name), (sub, name)
            implemented = sub in ("resnet", "s3d", "swin_transformer", "mvit")
            assert is_stand_in(getattr(mine, name)) != implemented, (sub, name)
    public = [n for n, v in vars(tvv).items() if not n.startswith("_")
              and not isinstance(v, type(tvv))]
    assert sorted(public) == ours.__all__
    assert callable(ours.s3d) and ours.resnet.__name__ == "jtorch.vision.models.video.resnet"
