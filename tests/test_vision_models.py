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
          "efficientnet_b0", "vit_b_16"]


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


@pytest.mark.parametrize("name", MODELS)
def test_state_dict_keys_and_shapes(name, no_init):
    ref = getattr(tv.models, name)()
    got = getattr(models, name)()
    r, g = ref.state_dict(), got.state_dict()
    assert list(g) == list(r)
    for k in r:
        assert tuple(g[k].shape) == tuple(r[k].shape), k
        assert str(g[k].dtype) == str(r[k].dtype), k
    assert [n for n, _ in got.named_modules()] == [n for n, _ in ref.named_modules()]
    assert [type(m).__name__ for _, m in got.named_modules()] == \
        [type(m).__name__ for _, m in ref.named_modules()]


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
    w = torch.randn(ref.shape, dtype=x.dtype)
    ref = tm(x)
    (ref * w).sum().backward()
    out = jm(xj)
    (out * to_jtorch(w.to(xj.numpy().dtype == np.float64 and torch.float64 or torch.float32))
     ).sum().backward()
    # train mode: batch norm over few values per channel (2 x 2 x 2 in a ResNet's last stage)
    # amplifies float32 rounding, hence 10x the eval tolerance
    assert_close(out, ref, rtol, 10 * atol)
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
                                  "efficientnet_b0"])
def test_model_parity(name):
    """In float64: train-mode batch norm over 2 x 2 x 2 values per channel in the last stages
    makes float32 gradients of deep models differ by rounding alone (resnet50's first layer by
    ~2%, while in float64 both agree to 1e-12)."""
    _model_parity(name, dtype=torch.float64)


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
    assert set(MODELS) <= set(models.list_models())
    assert models.list_models(include="resnet*", exclude="*101") == \
        tv.models.list_models(include="resnet*", exclude=["*101", "*152"])
    for name in MODELS:
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
