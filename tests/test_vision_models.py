"""jtorch.vision.models against torchvision 0.28 (see vision_helpers for how torchvision runs on
the CPU torch): the same state_dict keys and shapes (torchvision's weights load with
strict=True), the same eval- and train-mode outputs and parameter gradients, and the weights
enums reading torchvision's checkpoint files from the hub cache.

Eager CNNs are slow here (every new op shape compiles): the full parity of most models is marked
``slow`` (``-m "not slow"`` leaves it out); resnet18, a small ViT and the structure of every
model stay in the default run.
"""

import gc
import os
import re

import numpy as np
import pytest
import torch
from vision_helpers import assert_close, copy_weights, dropouts_off, to_jtorch, torchvision

import jtorch
import jtorch.hub
from jtorch.vision import models
from jtorch.vision.ops import StochasticDepth

tv = torchvision()

MODELS = ["resnet18", "resnet34", "resnet50", "resnet101", "vgg11", "vgg11_bn", "vgg16",
          "vgg16_bn", "mobilenet_v2", "mobilenet_v3_small", "alexnet", "squeezenet1_0",
          "efficientnet_b0", "vit_b_16", "densenet121", "googlenet", "inception_v3",
          "shufflenet_v2_x0_5", "mnasnet0_5", "convnext_tiny", "swin_t", "regnet_y_400mf",
          "maxvit_t"]
# the other builders of the families above: the same structure checks, in the slow run
SLOW_STRUCTURE = ["resnet152", "resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d",
                  "wide_resnet50_2", "wide_resnet101_2", "vgg13", "vgg13_bn", "vgg19",
                  "vgg19_bn", "densenet161", "densenet169", "densenet201", "shufflenet_v2_x1_0",
                  "shufflenet_v2_x1_5", "shufflenet_v2_x2_0", "mnasnet0_75", "mnasnet1_0",
                  "mnasnet1_3", "convnext_small", "convnext_base", "convnext_large", "swin_s",
                  "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b", "regnet_y_800mf",
                  "regnet_y_1_6gf", "regnet_y_3_2gf", "regnet_y_8gf", "regnet_y_16gf",
                  "regnet_y_32gf", "regnet_y_128gf", "regnet_x_400mf", "regnet_x_800mf",
                  "regnet_x_1_6gf", "regnet_x_3_2gf", "regnet_x_8gf", "regnet_x_16gf",
                  "regnet_x_32gf", "efficientnet_b1", "efficientnet_b2", "efficientnet_b3",
                  "efficientnet_b4", "efficientnet_b5", "efficientnet_b6", "efficientnet_b7",
                  "efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l", "vit_b_32",
                  "vit_l_16", "vit_l_32", "vit_h_14"]
# builder keywords of the structure tests: without init_weights, GoogLeNet and Inception3 warn
# (a FutureWarning; see test_googlenet_inception_builders)
BUILD_KWARGS = {"googlenet": {"init_weights": True}, "inception_v3": {"init_weights": True}}


@pytest.fixture(autouse=True)
def _release_models():
    """Models of 100M+ parameters: collect them before the next test builds its own."""
    yield
    gc.collect()


@pytest.fixture
def no_init(monkeypatch):
    """Builds skip the random initialization (structure tests only: keys, shapes, dtypes)."""
    for mod in (jtorch.nn.init, torch.nn.init):
        for name in ("kaiming_normal_", "kaiming_uniform_", "normal_", "uniform_",
                     "trunc_normal_", "xavier_uniform_", "constant_", "zeros_", "ones_"):
            monkeypatch.setattr(mod, name, lambda t, *a, **k: t)


def _check_structure(name):
    kwargs = BUILD_KWARGS.get(name, {})
    ref = getattr(tv.models, name)(**kwargs)
    got = getattr(models, name)(**kwargs)
    r, g = ref.state_dict(), got.state_dict()
    assert list(g) == list(r)
    for k in r:
        assert tuple(g[k].shape) == tuple(r[k].shape), k
        assert str(g[k].dtype) == str(r[k].dtype), k
    assert [n for n, _ in got.named_modules()] == [n for n, _ in ref.named_modules()]
    assert [type(m).__name__ for _, m in got.named_modules()] == \
        [type(m).__name__ for _, m in ref.named_modules()]


@pytest.mark.parametrize("name", MODELS)
def test_state_dict_keys_and_shapes(name, no_init):
    _check_structure(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW_STRUCTURE)
def test_state_dict_keys_and_shapes_slow(name, no_init):
    _check_structure(name)


def _as_list(ref, out):
    """Train-mode outputs as lists of tensors: GoogLeNet and Inception3 return namedtuples of
    the logits and auxiliary logits (the same type name and fields in both)."""
    if isinstance(ref, tuple):
        assert type(out).__name__ == type(ref).__name__ and out._fields == ref._fields
        return list(ref), list(out)
    return [ref], [out]


def _parity(tm, jm, x, rtol=1e-4, atol=1e-5, ref64=False):
    """Eval outputs, then train-mode outputs (random layers off), parameter gradients and the
    updated batch-norm statistics, from torchvision's weights in both models (in ``x``'s
    dtype; ``ref64``: torchvision's model runs in float64, jtorch's in float32)."""
    copy_weights(tm, jm)
    if x.dtype == torch.float64:
        tm.double()
        jm.double()
    xj = to_jtorch(x)
    if ref64:
        tm.double()
        x = x.double()
    tm.eval()
    jm.eval()
    with torch.no_grad():
        ref = tm(x)
    assert_close(jm(xj), ref, rtol, atol)
    dropouts_off(tm, (torch.nn.Dropout, tv.ops.StochasticDepth))
    dropouts_off(jm, (jtorch.nn.Dropout, StochasticDepth))
    refs, outs = _as_list(tm(x), jm(xj))
    ws = [torch.randn(r.shape, dtype=x.dtype) for r in refs]
    sum((r * w).sum() for r, w in zip(refs, ws)).backward()
    wdtype = torch.float64 if xj.dtype == jtorch.float64 else torch.float32
    sum((o * to_jtorch(w.to(wdtype))).sum() for o, w in zip(outs, ws)).backward()
    # train mode: batch norm over few values per channel (2 x 2 x 2 in a ResNet's last stage)
    # amplifies float32 rounding, hence 10x the eval tolerance
    for o, r in zip(outs, refs):
        assert_close(o, r, rtol, 10 * atol)
    jp = dict(jm.named_parameters())
    # scale: the parameter's largest gradient, at least 1% of the model's largest (a bias that
    # a train-mode batch norm downstream cancels has a zero gradient up to rounding)
    gmax = max(float(p.grad.abs().max()) for p in tm.parameters())
    for k, p in tm.named_parameters():
        scale = max(float(p.grad.abs().max()), 1e-2 * gmax)
        np.testing.assert_allclose(jp[k].grad.numpy() / scale, p.grad.numpy() / scale,
                                   rtol=0, atol=2e-4 if xj.dtype == jtorch.float32 else 1e-9,
                                   err_msg=k)
    jb = dict(jm.named_buffers())
    for k, b in tm.named_buffers():
        assert_close(jb[k], b, rtol, atol)


def _model_parity(name, size=64, dtype=torch.float32, ref64=False, **kwargs):
    torch.manual_seed(0)
    tol = {"rtol": 1e-9, "atol": 1e-10} if dtype == torch.float64 else {}
    _parity(getattr(tv.models, name)(**kwargs), getattr(models, name)(**kwargs),
            torch.randn(2, 3, size, size, dtype=dtype), ref64=ref64, **tol)


def test_resnet18_parity():
    _model_parity("resnet18")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["resnet34", "resnet50", "resnet101", "mobilenet_v2",
                                  "mobilenet_v3_small", "alexnet", "squeezenet1_0",
                                  "efficientnet_b0", "resnext50_32x4d", "densenet121",
                                  "googlenet", "inception_v3", "shufflenet_v2_x0_5",
                                  "mnasnet0_5", "convnext_tiny", "swin_t", "regnet_y_400mf",
                                  "regnet_x_400mf", "efficientnet_v2_s"])
def test_model_parity(name):
    """In float64: train-mode batch norm over 2 x 2 x 2 values per channel in the last stages
    makes float32 gradients of deep models differ by rounding alone (resnet50's first layer by
    ~2%, while in float64 both agree to 1e-12)."""
    _model_parity(name, dtype=torch.float64, size=PARITY_SIZE.get(name, 64),
                  **PARITY_KWARGS.get(name, {}))


# input sizes other than 64 x 64, and builder keywords. 64 leaves the ResNets, DenseNet,
# GoogLeNet and MNASNet 2 x 2 values per channel in their last stage: at 1 x 1, batch norm over
# 2 values gives float64 gradients that differ by 1e-8 of their scale from rounding alone.
# Inception v3: 107 x 107 gives 2 x 2; its auxiliary head needs 299 x 299 (a 17 x 17 grid), so
# the model runs without it here and test_inception_aux_parity checks the head on its grid.
# GoogLeNet returns (logits, aux logits 2, aux logits 1) in train mode.
PARITY_SIZE = {"inception_v3": 107, "shufflenet_v2_x0_5": 32, "convnext_tiny": 32, "swin_t": 32}
PARITY_KWARGS = {"googlenet": {"init_weights": True, "transform_input": True},
                 "inception_v3": {"init_weights": True, "aux_logits": False,
                                  "transform_input": True}}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["vgg11", "vgg11_bn", "vgg16", "vgg16_bn"])
def test_vgg_parity(name):
    """jtorch in float32 against torchvision in float64 (float64 copies of both 138M-parameter
    models would need ~12 GB; and torch's own float32 CPU convolutions put vgg16's first-layer
    gradient 2e-3 (of its scale) from the float64 values, jtorch's 2e-6)."""
    _model_parity(name, ref64=True)


def test_small_vision_transformer_parity():
    """torchvision's VisionTransformer class at a small size (vit_b_16's code path)."""
    torch.manual_seed(0)
    cfg = {"image_size": 32, "patch_size": 8, "num_layers": 2, "num_heads": 4, "hidden_dim": 32,
           "mlp_dim": 64, "num_classes": 10}
    tm = tv.models.VisionTransformer(**cfg)
    jm = models.VisionTransformer(**cfg)
    with torch.no_grad():  # the zero-initialized head would give zero gradients upstream
        for p in tm.heads.parameters():
            p.normal_()
    _parity(tm, jm, torch.randn(2, 3, 32, 32))


@pytest.mark.slow
def test_vit_b_16_parity_small_image():
    _model_parity("vit_b_16", size=32, dtype=torch.float64, image_size=32)


def test_registry_and_weights_enums():
    assert set(models.list_models()) <= set(tv.models.list_models())
    assert set(MODELS + SLOW_STRUCTURE) <= set(models.list_models())
    assert models.list_models(include="resnet*", exclude="*101") == \
        tv.models.list_models(include="resnet*", exclude="*101")
    for name in MODELS + SLOW_STRUCTURE:
        je, te = models.get_model_weights(name), tv.models.get_model_weights(name)
        assert je.__name__ == te.__name__
        assert list(je.__members__) == list(te.__members__)
        for member in te.__members__:
            a, b = je[member], te[member]
            assert a.url == b.url and repr(a) == repr(b).replace("torchvision.models.", "")
            for key in ("num_params", "min_size", "recipe", "_ops", "_file_size", "license"):
                assert a.meta.get(key) == b.meta.get(key), (name, member, key)
            np.testing.assert_equal(a.meta["_metrics"], b.meta["_metrics"])  # nan == nan
            assert a.meta["categories"] == b.meta["categories"]
            kw = [{k: getattr(v, "value", v) for k, v in w.transforms.keywords.items()}
                  for w in (a, b)]  # (InterpolationMode members: compared by value)
            assert kw[0] == kw[1]
    assert models.get_weight("ResNet50_Weights.IMAGENET1K_V2").url == \
        tv.models.get_weight("ResNet50_Weights.IMAGENET1K_V2").url
    assert models.ResNet50_Weights.DEFAULT is models.ResNet50_Weights.IMAGENET1K_V2
    assert models.ResNet18_Weights.verify("IMAGENET1K_V1") is models.ResNet18_Weights.IMAGENET1K_V1
    with pytest.raises(TypeError, match="expected ResNet18_Weights but received ResNet34"):
        models.resnet18(weights=models.ResNet34_Weights.DEFAULT)
    with pytest.raises(ValueError, match="The parameter 'num_classes' expected value 1000"):
        models.resnet18(weights="DEFAULT", num_classes=10)
    m = models.get_model("squeezenet1_1", num_classes=7)
    assert m.classifier[1].out_channels == 7


@pytest.fixture
def hub_dir(tmp_path):
    old = jtorch.hub._hub_dir
    jtorch.hub.set_dir(str(tmp_path / "hub"))
    yield str(tmp_path / "hub")
    jtorch.hub._hub_dir = old


@pytest.mark.filterwarnings("ignore:Arguments other than a weight enum")
def test_resnet18_weights_from_hub_cache(hub_dir, monkeypatch):
    """A checkpoint file written by real torch where PyTorch's hub cache keeps it loads through
    ``weights=`` and gives torchvision's outputs; without it and offline, a clear error."""
    monkeypatch.setattr(jtorch.hub, "urlopen", lambda *a, **k: (_ for _ in ()).throw(
        OSError("no network")))
    with pytest.raises(RuntimeError) as e:
        models.resnet18(weights=models.ResNet18_Weights.IMAGENET1K_V1)
    path = os.path.join(hub_dir, "checkpoints", "resnet18-f37072fd.pth")
    assert "resnet18-f37072fd.pth" in str(e.value) and path in str(e.value)
    torch.manual_seed(1)
    ref = tv.models.resnet18().eval()
    with torch.no_grad():  # non-trivial batch-norm statistics
        for m in ref.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.normal_(0, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    os.makedirs(os.path.dirname(path), exist_ok=True)  # (the failed load made it)
    torch.save(ref.state_dict(), path)
    got = models.resnet18(weights=models.ResNet18_Weights.DEFAULT, progress=False).eval()
    x = torch.randn(1, 3, 64, 64)
    with torch.no_grad():
        assert_close(got(to_jtorch(x)), ref(x))
    with pytest.warns(UserWarning, match="The parameter 'pretrained' is deprecated"):
        legacy = models.resnet18(pretrained=True)
    np.testing.assert_array_equal(legacy.fc.weight.detach().numpy(),
                                  ref.fc.weight.detach().numpy())


def test_weights_transforms_match_torchvision():
    from PIL import Image

    rng = np.random.default_rng(0)
    img = Image.fromarray(rng.integers(0, 256, (70, 90, 3), dtype=np.uint8))
    for name in ("ResNet50_Weights", "EfficientNet_B0_Weights"):
        jt = getattr(models, name).DEFAULT.transforms()
        ref = getattr(tv.models, name).DEFAULT.transforms()
        assert repr(jt) == repr(ref)
        np.testing.assert_allclose(jt(img).numpy(), ref(img).numpy(), rtol=0, atol=1e-5)
        t = torch.from_numpy(rng.random((3, 300, 280), dtype=np.float32))
        np.testing.assert_allclose(jt(to_jtorch(t)).numpy(), ref(t).numpy(), rtol=1e-4,
                                   atol=1e-4)


def _warning_texts(record):
    return [(w.category, str(w.message)) for w in record]


def test_googlenet_inception_builders(no_init):
    """Without ``init_weights`` both warn as torchvision (FutureWarning); ``aux_logits=False``
    drops the auxiliary heads; the output namedtuples and their aliases."""
    for cls in ("GoogLeNet", "Inception3"):
        with pytest.warns(FutureWarning) as expected:
            ref = getattr(tv.models, cls)(aux_logits=False)
        with pytest.warns(FutureWarning) as record:
            got = getattr(models, cls)(aux_logits=False)
        assert _warning_texts(record) == _warning_texts(expected)
        assert list(got.state_dict()) == list(ref.state_dict())
        assert [n for n, _ in got.named_modules()] == [n for n, _ in ref.named_modules()]
    for name, fields in (("GoogLeNetOutputs", ("logits", "aux_logits2", "aux_logits1")),
                         ("InceptionOutputs", ("logits", "aux_logits"))):
        assert getattr(models, name)._fields == getattr(tv.models, name)._fields == fields
        assert getattr(models, "_" + name) is getattr(models, name)
    with pytest.raises(ValueError, match="blocks length should be 3 instead of 2"):
        models.GoogLeNet(init_weights=True, blocks=[None, None])
    with pytest.raises(ValueError, match="The parameter 'groups' expected value 32 but got 16"):
        models.resnext50_32x4d(groups=16)


@pytest.fixture
def both_hub_dirs(hub_dir):
    """torch.hub and jtorch.hub on the same folder: both builders read the same checkpoint."""
    old = torch.hub.get_dir()
    torch.hub.set_dir(hub_dir)
    yield hub_dir
    torch.hub.set_dir(old)


def _save_checkpoint(hub_dir, weights, state_dict):
    path = os.path.join(hub_dir, "checkpoints", os.path.basename(weights.url))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    torch.save(state_dict, path)


def _assert_same_state(got, ref):
    r, g = ref.state_dict(), got.state_dict()
    assert list(g) == list(r)
    for k in r:
        np.testing.assert_array_equal(g[k].numpy(), r[k].numpy(), err_msg=k)


def test_pretrained_builders_from_hub_cache(both_hub_dirs, no_init):
    """densenet121's checkpoint with the old ``norm.1``-style keys is remapped; googlenet's
    weights turn on ``transform_input`` and drop the (untrained) auxiliary heads; both give
    torchvision's builders' models from the same cached file."""
    torch.manual_seed(0)
    ref = tv.models.densenet121()
    with torch.no_grad():
        for p in ref.state_dict().values():
            if p.is_floating_point():
                p.normal_()
    # (without ``num_batches_tracked``, as in those pre-PyTorch-0.4.1 files: batch norm then
    # sets it to 0, there being no version metadata)
    old_style = {re.sub(r"(denselayer\d+\.(norm|relu|conv))([12])\.", r"\1.\3.", k): v
                 for k, v in ref.state_dict().items() if "num_batches_tracked" not in k}
    assert "features.denseblock1.denselayer1.norm.1.weight" in old_style
    _save_checkpoint(both_hub_dirs, models.DenseNet121_Weights.DEFAULT, old_style)
    _assert_same_state(models.densenet121(weights="DEFAULT", progress=False),
                       tv.models.densenet121(weights="DEFAULT", progress=False))
    weights = models.GoogLeNet_Weights.DEFAULT
    _save_checkpoint(both_hub_dirs, weights, tv.models.googlenet(init_weights=True).state_dict())
    ref = tv.models.googlenet(weights="DEFAULT", progress=False)
    got = models.googlenet(weights=weights, progress=False)
    assert (got.aux_logits, got.aux1, got.aux2, got.transform_input) == (False, None, None, True)
    _assert_same_state(got, ref)
    with pytest.warns(UserWarning, match="auxiliary heads in the pretrained googlenet"):
        got = models.googlenet(weights=weights, progress=False, aux_logits=True)
    assert got.aux_logits and got.aux1 is not None


def test_mnasnet_version_1_checkpoint(no_init):
    """A version-1 state_dict (fixed-width stem) loads into MNASNet(0.5) with torchvision's
    warning and the stem rebuilt; a state_dict without version metadata raises as there."""
    ref = tv.models.MNASNet(0.5)
    with pytest.warns(UserWarning, match="A new version of MNASNet") as expected:
        ref._load_from_state_dict({}, "", {"version": 1}, False, [], [], [])
    state = ref.state_dict()
    assert state._metadata[""]["version"] == 1
    assert state["layers.0.weight"].shape[0] == 32  # alpha 0.5 would give 16
    got = models.MNASNet(0.5)
    with pytest.warns(UserWarning, match="A new version of MNASNet") as record:
        copy_weights(ref, got)
    assert _warning_texts(record) == _warning_texts(expected)
    _assert_same_state(got, ref)
    assert got.state_dict()._metadata[""]["version"] == 1
    assert [type(m).__name__ for _, m in got.named_modules()] == \
        [type(m).__name__ for _, m in ref.named_modules()]
    for m in (ref, got):
        with pytest.raises(ValueError, match="version should be set to 1 or 2 instead of None"):
            m.load_state_dict(dict(m.state_dict()))


@pytest.mark.slow
def test_densenet_memory_efficient_parity():
    """``memory_efficient=True`` (the bottlenecks recomputed through torch.utils.checkpoint)
    on a small DenseNet, against torchvision's."""
    torch.manual_seed(0)
    cfg = {"growth_rate": 8, "block_config": (2, 2, 2, 2), "num_init_features": 16,
           "num_classes": 10, "memory_efficient": True}
    _parity(tv.models.DenseNet(**cfg), models.DenseNet(**cfg),
            torch.randn(2, 3, 32, 32, dtype=torch.float64), rtol=1e-9, atol=1e-10)


def test_swin_relative_position_buffers(no_init):
    """Swin's relative position index (int64, exact) and V2's log-spaced coordinate table, for
    a non-square window (the builders' square ones are covered by the slow parity tests)."""
    window = [3, 5]
    from jtorch.vision.models import swin_transformer as js

    ts = tv.models.swin_transformer
    for cls in ("ShiftedWindowAttention", "ShiftedWindowAttentionV2"):
        ref = getattr(ts, cls)(8, window, [0, 0], 2)
        got = getattr(js, cls)(8, window, [0, 0], 2)
        rb, gb = dict(ref.named_buffers()), dict(got.named_buffers())
        assert list(gb) == list(rb)
        for k in rb:
            assert str(gb[k].dtype) == str(rb[k].dtype), k
            np.testing.assert_allclose(gb[k].numpy(), rb[k].numpy(), rtol=1e-6, atol=0,
                                       err_msg=k)


@pytest.mark.slow
@pytest.mark.parametrize("v2", [False, True])
def test_swin_small_parity(v2):
    """torchvision's SwinTransformer class at a small size: non-square windows, padded and
    shifted windows (the attention mask) in the first two stages, odd-sized patch merging."""
    torch.manual_seed(0)
    cfg = {"patch_size": [2, 2], "embed_dim": 16, "depths": [2, 2, 2], "num_heads": [2, 2, 4],
           "window_size": [4, 3], "num_classes": 10}
    if v2:
        ts = tv.models.swin_transformer
        tm = tv.models.SwinTransformer(**cfg, block=ts.SwinTransformerBlockV2,
                                       downsample_layer=ts.PatchMergingV2)
        js = models.swin_transformer
        jm = models.SwinTransformer(**cfg, block=js.SwinTransformerBlockV2,
                                    downsample_layer=js.PatchMergingV2)
        # V2 zeroes the key bias (SwinTransformer then zeroes every Linear bias anyway)
        bias = js.ShiftedWindowAttentionV2(8, [4, 3], [0, 0], 2).qkv.bias.detach().numpy()
        np.testing.assert_array_equal(bias[8:16], 0)
        assert np.abs(bias[:8]).min() > 0 and np.abs(bias[16:]).min() > 0
    else:
        tm, jm = tv.models.SwinTransformer(**cfg), models.SwinTransformer(**cfg)
    _parity(tm, jm, torch.randn(2, 3, 20, 20, dtype=torch.float64), rtol=1e-9, atol=1e-10)


def test_regnet_builder_configs():
    """Each RegNet builder's design-space parameters and the per-stage BlockParams they give
    (computed in float32, as torchvision does) are torchvision's."""
    from unittest import mock

    tr, jr = tv.models.regnet, models.regnet

    def config(mod, name):
        store = {}

        def capture(**kw):
            store.update(kw)
            raise KeyError("captured")

        with mock.patch.object(mod.BlockParams, "from_init_params", side_effect=capture):
            with pytest.raises(KeyError, match="captured"):
                getattr(mod, name)()
        return store

    names = [n for n in tv.models.list_models() if n.startswith("regnet_")]
    assert len(names) == 15
    for name in names:
        ref, got = config(tr, name), config(jr, name)
        assert got == ref, name
        assert vars(jr.BlockParams.from_init_params(**got)) == \
            vars(tr.BlockParams.from_init_params(**ref)), name


def test_efficientnet_conf():
    """The stage settings of every EfficientNet (V1 scaled by width and depth, V2 fused)."""
    te, je = tv.models.efficientnet, models.efficientnet
    archs = {f"efficientnet_b{i}": {"width_mult": w, "depth_mult": d} for i, (w, d) in enumerate(
        [(1.0, 1.0), (1.0, 1.1), (1.1, 1.2), (1.2, 1.4), (1.4, 1.8), (1.6, 2.2), (1.8, 2.6),
         (2.0, 3.1)])}
    archs.update({f"efficientnet_v2_{s}": {} for s in "sml"})
    for arch, kw in archs.items():
        ref, ref_last = te._efficientnet_conf(arch, **kw)
        got, got_last = je._efficientnet_conf(arch, **kw)
        assert got_last == ref_last
        assert [(type(c).__name__, c.block.__name__, {k: v for k, v in vars(c).items()
                                                     if k != "block"}) for c in got] == \
            [(type(c).__name__, c.block.__name__, {k: v for k, v in vars(c).items()
                                                  if k != "block"}) for c in ref], arch
    with pytest.raises(ValueError, match="Unsupported model type efficientnet_v3"):
        je._efficientnet_conf("efficientnet_v3")


def test_interpolate_embeddings():
    from collections import OrderedDict

    torch.manual_seed(0)
    state = OrderedDict([("encoder.pos_embedding", torch.randn(1, 17, 8)),
                         ("heads.head.weight", torch.randn(10, 8))])
    for reset in (False, True):
        ref = tv.models.vision_transformer.interpolate_embeddings(
            48, 8, OrderedDict(state), reset_heads=reset)
        got = models.vision_transformer.interpolate_embeddings(
            48, 8, OrderedDict((k, to_jtorch(v)) for k, v in state.items()), reset_heads=reset)
        assert list(got) == list(ref)
        for k in ref:
            assert_close(got[k], ref[k], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="seq_length is not a perfect square"):
        models.vision_transformer.interpolate_embeddings(
            48, 8, {"encoder.pos_embedding": jtorch.zeros(1, 16, 8)})


@pytest.mark.parametrize("name", ["regnet_y_128gf", "vit_h_14"])
def test_builders_without_imagenet1k_v1(name):
    """Their weights are SWAG ones only: the legacy ``pretrained=True`` raises as in
    torchvision (nothing is built)."""
    for mod in (tv.models, models):
        with pytest.raises(ValueError, match=f"No weights available for model {name}"):
            getattr(mod, name)(pretrained=True)


@pytest.mark.slow
def test_maxvit_small_parity():
    """torchvision's MaxVit class at a small size (maxvit_t's code path: MBConv with strided
    shortcut, window and grid attention with relative position bias, stochastic depth)."""
    torch.manual_seed(0)
    cfg = {"input_size": (32, 32), "stem_channels": 8, "partition_size": 2,
           "block_channels": [8, 16], "block_layers": [1, 2], "head_dim": 4,
           "stochastic_depth_prob": 0.2, "num_classes": 10}
    _parity(tv.models.MaxVit(**cfg), models.MaxVit(**cfg),
            torch.randn(2, 3, 32, 32, dtype=torch.float64), rtol=1e-9, atol=1e-10)
    with pytest.raises(ValueError, match=r"Input size \(8, 8\) of block 0 is not divisible"):
        models.MaxVit(**{**cfg, "partition_size": 3})


@pytest.mark.slow
def test_inception_aux_parity():
    """Inception v3's auxiliary classifier on the 17 x 17 grid it reads (the whole model needs
    299 x 299 inputs for it)."""
    torch.manual_seed(0)
    ref = tv.models.inception.InceptionAux(768, 10)
    got = models.inception.InceptionAux(768, 10)
    _parity(ref, got, torch.randn(2, 768, 17, 17, dtype=torch.float64), rtol=1e-9, atol=1e-10)
