"""jtorch.vision.models.segmentation against torchvision 0.28 (see vision_helpers for how
torchvision runs on the CPU torch): FCN, DeepLabV3 and LR-ASPP with the same state_dict keys,
shapes and module tree, torchvision's weights loaded with strict=True giving the same eval
outputs (``out`` and ``aux``), train-mode outputs, parameter gradients and batch-norm
statistics (float64, to 1e-9); the builders' errors and warnings, the weights enums, the
registry, ``IntermediateLayerGetter``, the ``SemanticSegmentation`` preset, the stand-in
packages (detection, video, quantization) and ``draw_segmentation_masks``.

Cost: every new op shape compiles once in eager jtorch. The models share shapes (both ResNet-50
models one backbone, both MobileNetV3 models another: same input size, dtype and batch), so
the file's default run compiles each backbone once; the ResNet-101 models are ``slow``.
"""

import gc
import importlib
import os
import pkgutil

import numpy as np
import pytest
import torch
from helpers import raises_like
from vision_helpers import copy_weights, dropouts_off, to_jtorch, torchvision

import jtorch
import jtorch.hub
from jtorch._core.errors import NotImplementedAttribute, is_stand_in
from jtorch._runner import AliasFinder
from jtorch.vision import models, utils as jutils
from jtorch.vision.models import segmentation
from jtorch.vision.models._utils import IntermediateLayerGetter
from jtorch.vision.transforms._presets import SemanticSegmentation

tv = torchvision()
tvseg = tv.models.segmentation

NAMES = ["fcn_resnet50", "fcn_resnet101", "deeplabv3_resnet50", "deeplabv3_resnet101",
         "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"]
FAST = ["lraspp_mobilenet_v3_large", "deeplabv3_mobilenet_v3_large", "fcn_resnet50",
        "deeplabv3_resnet50"]
SLOW = ["fcn_resnet101", "deeplabv3_resnet101"]
INIT_FUNCTIONS = ("kaiming_normal_", "kaiming_uniform_", "normal_", "uniform_", "constant_",
                  "zeros_", "ones_")


@pytest.fixture(autouse=True)
def _release_models():
    yield
    gc.collect()


def _skip_init(monkeypatch, *modules):
    for mod in modules:
        for name in INIT_FUNCTIONS:
            monkeypatch.setattr(mod, name, lambda t, *a, **k: t)


@pytest.fixture
def no_init(monkeypatch):
    """Builds skip the random initialization (structure tests: keys, shapes, dtypes)."""
    _skip_init(monkeypatch, jtorch.nn.init, torch.nn.init)


@pytest.fixture
def no_jtorch_init(monkeypatch):
    """jtorch's builds skip the random initialization: the parity tests load torchvision's
    values into every parameter and buffer (strict=True), and initializing a ResNet-50 here
    costs ~25 s of compiling."""
    _skip_init(monkeypatch, jtorch.nn.init)


def _kwargs(name, **extra):
    kw = {"weights": None, "weights_backbone": None, **extra}
    if name.startswith("lraspp"):
        kw.pop("aux_loss", None)
    return kw


def _check_structure(ref, got):
    r, g = ref.state_dict(), got.state_dict()
    assert list(g) == list(r)
    for k in r:
        assert tuple(g[k].shape) == tuple(r[k].shape), k
        assert str(g[k].dtype) == str(r[k].dtype), k
    assert {k: v.get("version") for k, v in g._metadata.items()} == \
        {k: v.get("version") for k, v in r._metadata.items()}
    assert [n for n, _ in got.named_modules()] == [n for n, _ in ref.named_modules()]
    assert [type(m).__name__ for _, m in got.named_modules()] == \
        [type(m).__name__ for _, m in ref.named_modules()]


def _structure(name):
    for extra in ({"aux_loss": True, "num_classes": 3}, {}):
        kw = _kwargs(name, **extra)
        _check_structure(getattr(tvseg, name)(**kw), getattr(segmentation, name)(**kw))


@pytest.mark.parametrize("name", FAST)
def test_structure(name, no_init):
    """Keys, shapes, dtypes, module versions (IntermediateLayerGetter's is 2) and the module
    tree, with and without the auxiliary classifier."""
    _structure(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW)
def test_structure_slow(name, no_init):
    _structure(name)


def _assert_close(got, ref, rtol=1e-9, atol=1e-10):
    ref = ref.detach().numpy()
    scale = max(1.0, float(np.abs(ref).max()))
    np.testing.assert_allclose(got.detach().numpy(), ref, rtol=rtol, atol=atol * scale)


def _parity(name, grad=True):
    """float64: eval outputs, then train-mode outputs (dropout off), every parameter's gradient
    of a random weighting of ``out`` and ``aux`` and the updated batch-norm statistics."""
    torch.manual_seed(0)
    kw = _kwargs(name, aux_loss=True, num_classes=3)
    tm = getattr(tvseg, name)(**kw).double()
    jm = getattr(segmentation, name)(**kw)
    copy_weights(tm, jm)
    jm.double()
    x = torch.randn(2, 3, 48, 48, dtype=torch.float64)
    xj = to_jtorch(x)
    tm.eval()
    jm.eval()
    with torch.no_grad():
        ref = tm(x)
    out = jm(xj)
    assert type(out).__name__ == "OrderedDict" and list(out) == list(ref)
    assert list(ref) == (["out"] if name.startswith("lraspp") else ["out", "aux"])
    for k in ref:
        assert tuple(out[k].shape) == tuple(ref[k].shape) == (2, 3, 48, 48)
        _assert_close(out[k], ref[k])
    if not grad:
        return
    dropouts_off(tm, (torch.nn.Dropout,))
    dropouts_off(jm, (jtorch.nn.Dropout,))
    refs, outs = tm(x), jm(xj)
    ws = {k: torch.randn(r.shape, dtype=torch.float64) for k, r in refs.items()}
    sum((refs[k] * ws[k]).sum() for k in refs).backward()
    sum((outs[k] * to_jtorch(ws[k])).sum() for k in outs).backward()
    for k in refs:
        _assert_close(outs[k], refs[k])
    jp = dict(jm.named_parameters())
    # scale: the parameter's largest gradient, at least 1% of the model's largest (a bias
    # that a train-mode batch norm downstream cancels has a zero gradient up to rounding)
    gmax = max(float(p.grad.abs().max()) for p in tm.parameters())
    for k, p in tm.named_parameters():
        scale = max(float(p.grad.abs().max()), 1e-2 * gmax)
        np.testing.assert_allclose(jp[k].grad.numpy() / scale, p.grad.numpy() / scale,
                                   rtol=0, atol=1e-9, err_msg=k)
    jb = dict(jm.named_buffers())
    for k, b in tm.named_buffers():
        _assert_close(jb[k], b)


# The default run, in this order (the MobileNetV3 backbone's train-mode kernels compile once
# for both of its models): both MobileNetV3 models with gradients (every head's: FCNHead is
# DeepLabV3's auxiliary one; ~45 s of CPU together), FCN on the dilated ResNet-50 eval only
# (~20 s). The dilated ResNets' gradients and DeepLabV3 on ResNet-50 are in the slow run.
@pytest.mark.parametrize("name, grad", [("deeplabv3_mobilenet_v3_large", True),
                                        ("lraspp_mobilenet_v3_large", True),
                                        ("fcn_resnet50", False)])
def test_parity(name, grad, no_jtorch_init):
    _parity(name, grad)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["fcn_resnet50", "deeplabv3_resnet50"] + SLOW)
def test_parity_slow(name, no_jtorch_init):
    _parity(name)


# ------------------------------------------------------------------ builders, errors, weights
def test_builder_errors_and_warnings(no_init):
    """torchvision's errors (type and text) for the weights checks, before any download."""
    enums = {"fcn_resnet50": "FCN_ResNet50_Weights",
             "deeplabv3_mobilenet_v3_large": "DeepLabV3_MobileNet_V3_Large_Weights",
             "lraspp_mobilenet_v3_large": "LRASPP_MobileNet_V3_Large_Weights"}
    for name, enum in enums.items():
        for kw in ({"weights": "DEFAULT", "num_classes": 10},
                   {"weights": getattr(tvseg, enum).DEFAULT, "num_classes": 3},
                   {"weights": "COCO_WITH_VOC_LABELS_V1", "aux_loss": False},
                   {"weights": "NOPE"},
                   {"weights": tv.models.ResNet50_Weights.DEFAULT},
                   {"weights": None, "weights_backbone": tv.models.ResNet18_Weights.DEFAULT}):
            jkw = {k: _jtorch_enum(v) for k, v in kw.items()}
            if name.startswith("lraspp") and "aux_loss" in kw:
                continue
            raises_like(lambda name=name, kw=kw: getattr(tvseg, name)(**kw),
                        lambda name=name, jkw=jkw: getattr(segmentation, name)(**jkw))
    raises_like(lambda: tvseg.lraspp_mobilenet_v3_large(weights=None, aux_loss=True),
                lambda: segmentation.lraspp_mobilenet_v3_large(weights=None, aux_loss=True))
    # the legacy keywords: the same warnings, and weights=None / weights_backbone=None
    for name in ("fcn_resnet50", "lraspp_mobilenet_v3_large"):
        with pytest.warns(UserWarning) as expected:
            ref = getattr(tvseg, name)(pretrained=False, pretrained_backbone=False)
        with pytest.warns(UserWarning) as record:
            got = getattr(segmentation, name)(pretrained=False, pretrained_backbone=False)
        assert [str(w.message) for w in record] == [str(w.message) for w in expected]
        assert list(got.state_dict()) == list(ref.state_dict())
    # aux_loss defaults to None (no auxiliary classifier), num_classes to 21; **kwargs unused
    got = segmentation.deeplabv3_resnet50(weights=None, weights_backbone=None, unused=1)
    assert got.aux_classifier is None and got.classifier[4].out_channels == 21


def _jtorch_enum(v):
    """torchvision's weights enum member as jtorch's (by names); anything else as it is."""
    if isinstance(v, tv.models.WeightsEnum):
        return models.get_weight(f"{type(v).__name__}.{v.name}")
    return v


def test_default_backbone_weights_are_read(tmp_path, monkeypatch, no_init):
    """As torchvision, ``weights_backbone`` defaults to the backbone's ImageNet weights: offline
    without the file, the error names that checkpoint; with the file (written by real torch
    where the hub cache keeps it), the backbone has its values."""
    old = jtorch.hub._hub_dir
    jtorch.hub.set_dir(str(tmp_path / "hub"))
    monkeypatch.setattr(jtorch.hub, "urlopen", lambda *a, **k: (_ for _ in ()).throw(
        OSError("no network")))
    try:
        with pytest.raises(RuntimeError, match="mobilenet_v3_large-8738ca79.pth"):
            segmentation.lraspp_mobilenet_v3_large()
        torch.manual_seed(1)
        backbone = tv.models.mobilenet_v3_large(dilated=True)
        path = tmp_path / "hub" / "checkpoints" / "mobilenet_v3_large-8738ca79.pth"
        os.makedirs(path.parent, exist_ok=True)
        torch.save(backbone.state_dict(), path)
        got = segmentation.lraspp_mobilenet_v3_large(num_classes=4)
        ref = backbone.features.state_dict()
        gs = got.backbone.state_dict()
        assert set(gs) <= set(ref)
        for k, v in gs.items():
            np.testing.assert_array_equal(v.numpy(), ref[k].numpy(), err_msg=k)
    finally:
        jtorch.hub._hub_dir = old


def test_weights_from_hub_cache(tmp_path, monkeypatch, no_init):
    """``weights=`` reads torchvision's checkpoint file from the hub cache (random values
    written by real torch: there is no network), with 21 classes and the auxiliary head."""
    old = jtorch.hub._hub_dir
    jtorch.hub.set_dir(str(tmp_path / "hub"))
    monkeypatch.setattr(jtorch.hub, "urlopen", lambda *a, **k: (_ for _ in ()).throw(
        OSError("no network")))
    try:
        for name, enum in (("lraspp_mobilenet_v3_large", "LRASPP_MobileNet_V3_Large_Weights"),
                           ("deeplabv3_mobilenet_v3_large",
                            "DeepLabV3_MobileNet_V3_Large_Weights")):
            weights = getattr(segmentation, enum).DEFAULT
            kw = {} if name.startswith("lraspp") else {"aux_loss": True}
            ref = getattr(tvseg, name)(weights=None, weights_backbone=None, **kw)
            path = tmp_path / "hub" / "checkpoints" / os.path.basename(weights.url)
            os.makedirs(path.parent, exist_ok=True)
            torch.save(ref.state_dict(), path)
            got = getattr(segmentation, name)(weights=weights, progress=False)
            rs, gs = ref.state_dict(), got.state_dict()
            assert list(gs) == list(rs)
            for k in rs:
                np.testing.assert_array_equal(gs[k].numpy(), rs[k].numpy(), err_msg=k)
    finally:
        jtorch.hub._hub_dir = old


def test_weights_enums_match_torchvision():
    for name in NAMES:
        je, te = models.get_model_weights(name), tv.models.get_model_weights(name)
        assert je is getattr(segmentation, te.__name__)
        assert list(je.__members__) == list(te.__members__) == ["COCO_WITH_VOC_LABELS_V1",
                                                               "DEFAULT"]
        for member in te.__members__:
            a, b = je[member], te[member]
            assert a.url == b.url and repr(a) == repr(b)
            assert a.meta == b.meta  # categories (VOC), _metrics, _docs, ...
            assert a.transforms.func.__name__ == b.transforms.func.__name__ == \
                "SemanticSegmentation"
            assert a.transforms.keywords == b.transforms.keywords
            assert repr(a.transforms()) == repr(b.transforms())
            assert a.transforms().describe() == b.transforms().describe()
    assert segmentation.FCN_ResNet50_Weights.DEFAULT.meta["categories"][:2] == \
        ["__background__", "aeroplane"]


def test_semantic_segmentation_preset():
    from PIL import Image

    rng = np.random.default_rng(0)
    img = Image.fromarray(rng.integers(0, 256, (40, 60, 3), dtype=np.uint8))
    t = torch.from_numpy(rng.random((2, 3, 30, 24), dtype=np.float32))
    u8 = torch.from_numpy(rng.integers(0, 256, (3, 21, 17), dtype=np.uint8))
    ours = segmentation.DeepLabV3_ResNet50_Weights.DEFAULT.transforms
    for kw in ({"resize_size": 32}, {"resize_size": None, "mean": (0.5, 0.4, 0.3)}):
        jt, ref = ours(**kw), tv.transforms._presets.SemanticSegmentation(**kw)
        assert isinstance(jt, SemanticSegmentation) and repr(jt) == repr(ref)
        np.testing.assert_allclose(jt(img).numpy(), ref(img).numpy(), rtol=0, atol=1e-5)
        # a uint8 tensor resizes in float and rounds: a pixel may differ by one level from
        # torchvision's uint8 kernel (docs/vision.md), 1/255 before normalizing
        for x, atol in ((t, 1e-4), (u8, 1.01 / 255 / min(jt.std))):
            np.testing.assert_allclose(jt(to_jtorch(x)).numpy(), ref(x).numpy(), rtol=1e-4,
                                       atol=atol)
    with pytest.raises(TypeError):
        SemanticSegmentation(32)  # keyword only, as torchvision's


def test_registry():
    ours = models.list_models(module=models.segmentation)
    assert ours == tv.models.list_models(module=tv.models.segmentation) == sorted(NAMES)
    assert models.list_models(module=models) == tv.models.list_models(module=tv.models)
    assert models.list_models(include="*mobilenet_v3*") == \
        [n for n in tv.models.list_models(include="*mobilenet_v3*")
         if n in models.list_models()]
    for name in NAMES:
        assert models.get_model_builder(name) is getattr(segmentation, name)
        assert getattr(segmentation, name).__module__.startswith(
            "jtorch.vision.models.segmentation.")
    for module in ("fcn", "deeplabv3", "lraspp"):
        assert getattr(segmentation, module).__all__ == \
            getattr(tvseg, module).__all__
    for name in ("DeepLabV3_ResNet101_Weights.DEFAULT", "FCN_ResNet50_Weights.DEFAULT",
                 "ResNet50_Weights.DEFAULT"):
        assert models.get_weight(name).url == tv.models.get_weight(name).url
    assert models.segmentation is segmentation
    for name in dir(tvseg):
        assert hasattr(segmentation, name), name


def test_get_model_and_small_classes(no_init):
    m = models.get_model("deeplabv3_mobilenet_v3_large", weights=None, weights_backbone=None,
                         num_classes=4, aux_loss=True)
    ref = tv.models.get_model("deeplabv3_mobilenet_v3_large", weights=None,
                              weights_backbone=None, num_classes=4, aux_loss=True)
    _check_structure(ref, m)
    for module, cls, args in (("fcn", "FCNHead", (16, 5)),
                              ("deeplabv3", "DeepLabHead", (16, 5, (2, 3))),
                              ("deeplabv3", "ASPP", (16, (2, 4), 8)),
                              ("deeplabv3", "ASPPConv", (4, 6, 2)),
                              ("deeplabv3", "ASPPPooling", (4, 6)),
                              ("lraspp", "LRASPPHead", (8, 16, 5, 4))):
        _check_structure(getattr(getattr(tvseg, module), cls)(*args),
                         getattr(getattr(segmentation, module), cls)(*args))
        # where torchvision has them: in the submodules only
        assert not hasattr(tvseg, cls) and not hasattr(segmentation, cls)


def test_intermediate_layer_getter():
    """Structure, keys and module version of torchvision's, the children up to the last one
    returned, and the outputs (values) of a small network."""
    torch.manual_seed(0)
    ref_net = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU(),
                                  torch.nn.Conv2d(4, 5, 3, stride=2), torch.nn.ReLU(),
                                  torch.nn.Conv2d(5, 2, 1))
    net = jtorch.nn.Sequential(jtorch.nn.Conv2d(3, 4, 3), jtorch.nn.ReLU(),
                               jtorch.nn.Conv2d(4, 5, 3, stride=2), jtorch.nn.ReLU(),
                               jtorch.nn.Conv2d(5, 2, 1))
    layers = {"1": "a", "2": "b"}
    ref = tv.models._utils.IntermediateLayerGetter(ref_net, return_layers=layers)
    got = IntermediateLayerGetter(net, return_layers=layers)
    assert got.return_layers is layers
    _check_structure(ref, got)
    assert got.state_dict()._metadata[""]["version"] == 2
    copy_weights(ref, got)
    x = torch.randn(2, 3, 9, 9)
    r, g = ref(x), got(to_jtorch(x))
    assert type(g).__name__ == "OrderedDict" and list(g) == list(r) == ["a", "b"]
    for k in r:
        np.testing.assert_allclose(g[k].detach().numpy(), r[k].detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
    raises_like(lambda: tv.models._utils.IntermediateLayerGetter(ref_net, {"9": "x"}),
                lambda: IntermediateLayerGetter(net, {"9": "x"}))
    assert models._utils.IntermediateLayerGetter is IntermediateLayerGetter


# ------------------------------------------------------------------ the stand-in packages
# (video and detection: partly implemented, checked in test_vision_video_models and
# test_vision_detection's test_package_names)
@pytest.mark.parametrize("package", ["quantization"])
def test_stand_in_packages(package):
    """Every public name of torchvision's package and of each of its submodules exists; calling
    a builder, making a class or reading a weights member raises NotImplementedError naming
    it; subclassing works; the modules import (also as ``torchvision.X`` under the runner)."""
    theirs = importlib.import_module(f"torchvision.models.{package}")
    ours = importlib.import_module(f"jtorch.vision.models.{package}")
    assert getattr(models, package) is ours
    subs = [m.name for m in pkgutil.iter_modules(theirs.__path__)]
    for sub in subs:
        mine = importlib.import_module(f"jtorch.vision.models.{package}.{sub}")
        if isinstance(getattr(theirs, sub), type(theirs)):  # (else the builder: s3d)
            assert getattr(ours, sub) is mine
        assert AliasFinder().find_spec(f"torchvision.models.{package}.{sub}") is not None
        tsub = importlib.import_module(f"torchvision.models.{package}.{sub}")
        assert getattr(mine, "__all__", None) == (list(tsub.__all__)
                                                  if hasattr(tsub, "__all__") else None)
        for name, obj in vars(tsub).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != tsub.__name__:
                continue
            if name in getattr(tsub, "__all__", ()):
                assert getattr(mine, name) is getattr(ours, name), (sub, name)
            else:
                _check_stand_in(getattr(mine, name), f"torchvision.models.{package}.{sub}."
                                f"{name}")
    public = [n for n, v in vars(theirs).items() if not n.startswith("_")
              and not isinstance(v, type(theirs))]
    assert sorted(public) == ours.__all__
    for name in public:
        _check_stand_in(getattr(ours, name), f"torchvision.models.{package}.{name}")
    with pytest.raises(AttributeError) as e:
        ours.no_such_name  # noqa: B018
    assert not isinstance(e.value, NotImplementedError)


def _check_stand_in(obj, api):
    assert is_stand_in(obj), api
    if api.endswith("Weights"):
        with pytest.raises(NotImplementedAttribute, match=f"{api}.DEFAULT"):
            obj.DEFAULT  # noqa: B018
        with pytest.raises(NotImplementedError, match=api):
            obj["DEFAULT"]
        assert not hasattr(obj, "IMAGENET1K_V1")
    elif isinstance(obj, type):
        with pytest.raises(NotImplementedError, match=f"jtorch does not implement {api} yet"):
            obj()

        class Sub(obj):
            pass

        with pytest.raises(NotImplementedError, match=api):
            Sub(1, 2)
    else:
        with pytest.raises(NotImplementedError, match=f"jtorch does not implement {api} yet"):
            obj(weights=None)


def test_stand_ins_import_forms():
    from jtorch.vision.models.detection.ssd import SSDHead
    from jtorch.vision.models.detection.ssdlite import SSDLiteHead

    from jtorch.vision.models.detection import ssd300_vgg16

    with pytest.raises(NotImplementedError,
                       match="torchvision.models.detection.ssd300_vgg16"):
        ssd300_vgg16(weights="DEFAULT")
    for cls in (SSDLiteHead, SSDHead):
        with pytest.raises(NotImplementedError, match=cls.__name__):
            cls(256, 2)
    with pytest.raises(NotImplementedError, match="ResNet50_QuantizedWeights.DEFAULT"):
        models.get_weight("ResNet50_QuantizedWeights.DEFAULT")
    with pytest.raises(NotImplementedError, match="torchvision.models.quantization.resnet50"):
        models.quantization.resnet50(quantize=True)
    assert models.quantization.mobilenet.mobilenet_v2 is models.quantization.mobilenet_v2


# ------------------------------------------------------------------ draw_segmentation_masks
def _images(rng, h=7, w=9):
    u8 = rng.integers(0, 256, (3, h, w), dtype=np.uint8)
    return {"uint8": u8, "float32": rng.random((3, h, w), dtype=np.float32),
            "float64": rng.random((3, h, w))}


def test_draw_segmentation_masks_matches_torchvision():
    rng = np.random.default_rng(3)
    masks = rng.random((4, 7, 9)) > 0.6  # overlapping in places
    cases = [({}, masks), ({"alpha": 0.3}, masks), ({"alpha": 1.0, "colors": "red"}, masks),
             ({"colors": ["#FF00FF", (10, 200, 30), "blue", "green", "white"]}, masks),
             ({"colors": (240, 10, 157), "alpha": 0.55}, masks[0]),
             ({"alpha": 0}, masks[:2]), ({"alpha": 1}, masks[1:3])]
    for dtype, img in _images(rng).items():
        for kw, m in cases:
            ref = tv.utils.draw_segmentation_masks(torch.from_numpy(img), torch.from_numpy(m),
                                                   **kw)
            got = jutils.draw_segmentation_masks(jtorch.tensor(img), jtorch.tensor(m), **kw)
            assert str(got.dtype) == str(ref.dtype) and got.shape == ref.shape
            tol = {"uint8": 0, "float32": 1e-6, "float64": 1e-12}[dtype]
            np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=tol, atol=tol,
                                       err_msg=f"{dtype} {kw}")
    # no mask: the image itself, with torchvision's warning
    img = jtorch.tensor(_images(rng)["uint8"])
    with pytest.warns(UserWarning, match="masks doesn't contain any mask. No mask was drawn"):
        assert jutils.draw_segmentation_masks(img, jtorch.zeros(0, 7, 9, dtype=jtorch.bool)) \
            is img


def test_draw_segmentation_masks_no_grad():
    """Like torchvision's, it runs under ``no_grad``: the result never requires grad."""
    rng = np.random.default_rng(4)
    img = rng.random((3, 5, 6))
    m = rng.random((3, 5, 6)) > 0.5
    ref = tv.utils.draw_segmentation_masks(torch.tensor(img, requires_grad=True),
                                           torch.from_numpy(m), alpha=0.3)
    got = jutils.draw_segmentation_masks(jtorch.tensor(img, requires_grad=True),
                                         jtorch.tensor(m), alpha=0.3)
    assert not ref.requires_grad and not got.requires_grad and got.grad_fn is None
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-12)


def test_draw_segmentation_masks_errors():
    rng = np.random.default_rng(5)
    img = _images(rng)["uint8"]
    m = rng.random((2, 7, 9)) > 0.5
    t, j = torch.from_numpy, jtorch.tensor
    cases = [
        (img.tolist(), m),                                   # not a tensor
        (img.astype(np.int32), m),                           # dtype
        (img[None], m),                                      # a batch
        (img[:2], m),                                        # not RGB
        (img, m[None]),                                      # masks rank
        (img, m.astype(np.uint8)),                           # masks dtype
        (img, m[:, :6]),                                     # size
    ]
    for image, masks in cases:
        raises_like(
            lambda image=image, masks=masks: tv.utils.draw_segmentation_masks(
                t(image) if isinstance(image, np.ndarray) else image, t(masks)),
            lambda image=image, masks=masks: jutils.draw_segmentation_masks(
                j(image) if isinstance(image, np.ndarray) else image, j(masks)))
    for colors in (["red"], (1, 2), 5):
        raises_like(lambda colors=colors: tv.utils.draw_segmentation_masks(
                        t(img), t(m), colors=colors),
                    lambda colors=colors: jutils.draw_segmentation_masks(
                        j(img), j(m), colors=colors))
