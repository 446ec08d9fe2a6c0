"""jtorch.vision.transforms.v2's own transforms (MixUp, CutMix, GaussianNoise,
RandomPhotometricDistort, RandomChannelPermutation, Grayscale/RandomGrayscale/RGB, JPEG,
RandomZoomOut, ScaleJitter, RandomShortestSize, RandomResize) against torchvision 0.28's v2.

jtorch draws from its own generator, torchvision from torch's: each test replays the draws
jtorch made (re-seeding jtorch and calling ``make_params`` or ``transforms._random``) and gives
torchvision the same values, either through its public ``transform(inpt, params)`` or by
patching the torch draws its ``make_params`` makes; then outputs, labels, parameters, reprs,
error types and messages must agree."""

import contextlib
import importlib

import numpy as np
import pytest
import torch
from PIL import Image
from vision_helpers import raises_as_torchvision as _raises_as_torchvision, to_jtorch, torchvision

import jtorch
from jtorch._core.errors import is_stand_in
from jtorch.vision.transforms import _random, v2

torchvision()
TV2 = importlib.import_module("torchvision.transforms.v2")
TF2 = TV2.functional

RNG = np.random.default_rng(3)
BATCH = torch.from_numpy(RNG.random((4, 3, 6, 7), dtype=np.float32))
LABELS = torch.tensor([0, 2, 1, 2])
U8 = torch.from_numpy(RNG.integers(0, 256, (3, 6, 7), dtype=np.uint8))
FL = BATCH[0]
PIL_RGB = Image.fromarray(U8.permute(1, 2, 0).numpy())


def _np(x):
    if isinstance(x, Image.Image):
        return np.asarray(x)
    return x.detach().numpy() if isinstance(x, torch.Tensor) else x.numpy()


def _same(got, ref, atol=0.0):
    if isinstance(ref, Image.Image):
        assert isinstance(got, Image.Image) and got.mode == ref.mode and got.size == ref.size
    got, ref = _np(got), _np(ref)
    assert got.shape == ref.shape and got.dtype == ref.dtype
    np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64), rtol=0,
                               atol=atol)


def _draws(seed, *draws):
    """What ``_random``'s ``draws`` (names with arguments) give after ``manual_seed(seed)``."""
    jtorch.manual_seed(seed)
    return [getattr(_random, name)(*args) for name, *args in draws]


class _Feed:
    """Returns ``values`` one per call (a patched torch draw)."""

    def __init__(self, *values):
        self.values = list(values)

    def __call__(self, *args, **kwargs):
        return self.values.pop(0)


IMPLEMENTED = ["CutMix", "GaussianNoise", "Grayscale", "JPEG", "MixUp", "RGB",
               "RandomChannelPermutation", "RandomGrayscale", "RandomPhotometricDistort",
               "RandomResize", "RandomShortestSize", "RandomZoomOut", "ScaleJitter"]


def test_implemented_and_stand_ins():
    for name in IMPLEMENTED:
        assert not is_stand_in(getattr(v2, name)) and issubclass(getattr(v2, name), v2.Transform)
    # no tv_tensors in jtorch: the bounding-box, key-point and video transforms stay stand-ins
    for name in ("ClampBoundingBoxes", "SanitizeBoundingBoxes", "ConvertBoundingBoxFormat",
                 "RandomIoUCrop", "UniformTemporalSubsample"):
        assert is_stand_in(getattr(v2, name))
    for name in ("gaussian_noise", "permute_channels", "grayscale_to_rgb", "jpeg"):
        assert name in v2.functional.__all__


REPRS = [("MixUp", (), {"num_classes": 5, "alpha": 0.4}), ("CutMix", (), {"num_classes": 3}),
         ("GaussianNoise", (0.1, 0.2, False), {}), ("JPEG", ((20, 80),), {}), ("RGB", (), {}),
         ("RandomPhotometricDistort", (), {"p": 0.3}), ("RandomChannelPermutation", (), {}),
         ("Grayscale", (3,), {}), ("RandomGrayscale", (0.3,), {}),
         ("RandomZoomOut", (), {"fill": (1, 2, 3), "side_range": (1.0, 2.0)}),
         ("ScaleJitter", ((8, 9),), {"interpolation": "nearest"}),
         ("RandomShortestSize", ([4, 5], 9), {}), ("RandomResize", (3, 6), {"antialias": False})]


@pytest.mark.parametrize("name,args,kwargs", REPRS, ids=[r[0] for r in REPRS])
def test_reprs(name, args, kwargs):
    assert repr(getattr(v2, name)(*args, **kwargs)) == repr(getattr(TV2, name)(*args, **kwargs))


# ------------------------------------------------------------------ MixUp, CutMix
def _tv_mixup(cls, lam, **kwargs):
    ref = getattr(TV2, cls)(**kwargs)
    ref._dist = type("Fixed", (), {"sample": lambda self, shape: torch.tensor(lam)})()
    return ref


@pytest.mark.parametrize("seed,alpha", [(0, 1.0), (5, 0.3)])
def test_mixup_values_and_labels(seed, alpha):
    jtorch.manual_seed(seed)
    imgs, labels = v2.MixUp(alpha=alpha, num_classes=3)(to_jtorch(BATCH), to_jtorch(LABELS))
    (lam,) = _draws(seed, ("beta", alpha, alpha))
    ref_imgs, ref_labels = _tv_mixup("MixUp", lam, alpha=alpha, num_classes=3)(BATCH, LABELS)
    _same(imgs, ref_imgs, atol=1e-6)
    _same(labels, ref_labels)
    # probability labels (num_classes may be left out), the labels in a dict, a labels_getter
    probs = torch.nn.functional.one_hot(LABELS, 3).float().flip(0)
    jtorch.manual_seed(seed)
    out = v2.MixUp(alpha=alpha)({"image": to_jtorch(BATCH), "Labels": to_jtorch(probs)})
    ref = _tv_mixup("MixUp", lam, alpha=alpha)({"image": BATCH, "Labels": probs})
    _same(out["image"], ref["image"], atol=1e-6)
    _same(out["Labels"], ref["Labels"])
    jtorch.manual_seed(seed)
    out = v2.MixUp(alpha=alpha, num_classes=3, labels_getter=lambda s: s[0][1])(
        [(to_jtorch(BATCH), to_jtorch(LABELS)), "meta"])
    _same(out[0][1], ref_labels)
    assert out[1] == "meta"


@pytest.mark.parametrize("seed,alpha", [(1, 1.0), (2, 0.5), (7, 2.0)])
def test_cutmix_box_values_and_labels(seed, alpha, monkeypatch):
    jtorch.manual_seed(seed)
    jt = v2.CutMix(alpha=alpha, num_classes=3)
    imgs, labels = jt(to_jtorch(BATCH), to_jtorch(LABELS))
    lam, r_x, r_y = _draws(seed, ("beta", alpha, alpha), ("randint", 0, 7), ("randint", 0, 6))
    monkeypatch.setattr(torch, "randint", _Feed(torch.tensor([r_x]), torch.tensor([r_y])))
    ref = _tv_mixup("CutMix", lam, alpha=alpha, num_classes=3)
    ref_imgs, ref_labels = ref(BATCH, LABELS)
    _same(imgs, ref_imgs)
    _same(labels, ref_labels)
    jtorch.manual_seed(seed)
    params = jt.make_params([to_jtorch(BATCH)])
    monkeypatch.setattr(torch, "randint", _Feed(torch.tensor([r_x]), torch.tensor([r_y])))
    assert params == ref.make_params([BATCH])


MIX_ERRORS = [
    ("alpha", lambda m: m.MixUp(alpha=0.0, num_classes=3), None),
    ("labels_getter", lambda m: m.CutMix(num_classes=3, labels_getter=3), None),
    ("PIL", lambda m: m.MixUp(num_classes=3), lambda b, lab: (PIL_RGB, lab)),
    ("not a tensor", lambda m: m.MixUp(num_classes=3), lambda b, lab: (b, [0, 1, 2, 1])),
    ("3-d labels", lambda m: m.CutMix(num_classes=3), lambda b, lab: (b, lab[None, None])),
    ("2-d labels", lambda m: m.MixUp(num_classes=5), lambda b, lab: (b, lab[:, None] + lab)),
    ("no num_classes", lambda m: m.MixUp(), lambda b, lab: (b, lab)),
    ("3-d image", lambda m: m.CutMix(num_classes=3), lambda b, lab: (b[0], lab)),
    ("batch size", lambda m: m.MixUp(num_classes=3), lambda b, lab: (b[:3], lab)),
    ("no labels key", lambda m: m.MixUp(num_classes=3), lambda b, lab: {"image": b, "y": lab}),
    ("second item", lambda m: m.MixUp(num_classes=3), lambda b, lab: (b, 3)),
    ("uint8", lambda m: m.MixUp(num_classes=3), lambda b, lab: ((b * 255).byte(), lab)),
]


@pytest.mark.parametrize("label,make,sample", MIX_ERRORS, ids=[c[0] for c in MIX_ERRORS])
def test_mixup_cutmix_errors(label, make, sample):
    def call(m, batch, labels):
        t = make(m)
        if sample is not None:
            t(sample(batch, labels))

    _raises_as_torchvision(lambda: call(v2, to_jtorch(BATCH), to_jtorch(LABELS)),
                           lambda: call(TV2, BATCH, LABELS))


# ------------------------------------------------------------------ GaussianNoise
@pytest.mark.parametrize("img,mean,sigma,clip", [(FL, 0.0, 0.1, True), (FL, 0.2, 0.5, False),
                                                 (U8, 0.1, 0.2, True), (U8, 0.0, 0.3, False)])
def test_gaussian_noise(img, mean, sigma, clip, monkeypatch):
    jtorch.manual_seed(4)
    got = v2.GaussianNoise(mean, sigma, clip)(to_jtorch(img))
    (noise,) = _draws(4, ("normal", tuple(img.shape)))
    monkeypatch.setattr(torch, "randn_like", lambda x, dtype=None: torch.from_numpy(noise).to(
        dtype or x.dtype))
    _same(got, TV2.GaussianNoise(mean, sigma, clip)(img), atol=1e-6)
    jtorch.manual_seed(4)
    _same(v2.functional.gaussian_noise(to_jtorch(img), mean, sigma, clip), got)


def test_gaussian_noise_errors():
    for call in (lambda m, x: m.functional.gaussian_noise(x, sigma=-1.0),
                 lambda m, x: m.functional.gaussian_noise(x.int()),
                 lambda m, x: m.GaussianNoise()(PIL_RGB)):
        _raises_as_torchvision(lambda c=call: c(v2, to_jtorch(U8)), lambda c=call: c(TV2, U8))


# ------------------------------------------------------------------ color
@pytest.mark.parametrize("seed,p", [(0, 1.0), (3, 0.5), (8, 0.5), (1, 0.0)])
@pytest.mark.parametrize("kind", ["float", "uint8", "pil"])
def test_random_photometric_distort(seed, p, kind):
    img, atol = {"float": (FL, 1e-5), "uint8": (U8, 1), "pil": (PIL_RGB, 0)}[kind]
    jt = v2.RandomPhotometricDistort(p=p)
    jt_img = to_jtorch(img) if kind != "pil" else img
    jtorch.manual_seed(seed)
    got = jt(jt_img)
    jtorch.manual_seed(seed)
    params = jt.make_params([jt_img])
    if p == 1.0:
        assert None not in (params["brightness_factor"], params["channel_permutation"])
    if p == 0.0:
        assert params["hue_factor"] is None and params["channel_permutation"] is None
    _same(got, TV2.RandomPhotometricDistort(p=p).transform(img, params), atol=atol)


def test_channel_permutation_grayscale_rgb():
    jtorch.manual_seed(2)
    got = v2.RandomChannelPermutation()(to_jtorch(U8))
    (perm,) = _draws(2, ("randperm", 3))
    _same(got, TF2.permute_channels(U8, perm))
    _same(v2.functional.permute_channels(PIL_RGB, [2, 0, 1]),
          TF2.permute_channels(PIL_RGB, [2, 0, 1]))
    gray = TF2.rgb_to_grayscale(U8)
    for img in (U8, FL, gray, gray.float() / 255):
        for n in (1, 3):
            _same(v2.Grayscale(n)(to_jtorch(img)), TV2.Grayscale(n)(img), atol=1e-6)
        _same(v2.RandomGrayscale(p=1.0)(to_jtorch(img)), TV2.RandomGrayscale(p=1.0)(img),
              atol=1e-6)
        _same(v2.RGB()(to_jtorch(img)), TV2.RGB()(img))
    gray_pil = PIL_RGB.convert("L")
    for img in (PIL_RGB, gray_pil):
        _same(v2.Grayscale(3)(img), TV2.Grayscale(3)(img))
        _same(v2.RandomGrayscale(p=1.0)(img), TV2.RandomGrayscale(p=1.0)(img))
        _same(v2.RGB()(img), TV2.RGB()(img))
    _same(v2.RandomGrayscale(p=0.0)(to_jtorch(U8)), U8)
    for call in (lambda m, x: m.functional.rgb_to_grayscale(x, 2),
                 lambda m, x: m.functional.permute_channels(x, [1, 0]),
                 lambda m, x: m.RandomGrayscale(p=1.5),
                 lambda m, x: m.RandomChannelPermutation()((PIL_RGB, PIL_RGB.convert("L")))):
        _raises_as_torchvision(lambda c=call: c(v2, to_jtorch(U8)), lambda c=call: c(TV2, U8))


# ------------------------------------------------------------------ JPEG
def test_jpeg():
    jtorch.manual_seed(6)
    got = v2.JPEG((10, 90))(PIL_RGB)
    (quality,) = _draws(6, ("randint", 10, 91))
    ref = TF2.jpeg(PIL_RGB, quality)
    _same(got, ref)
    # tensors go through jtorch.vision.io (Pillow's libjpeg-turbo, torchvision's bytes)
    batch = torch.stack([U8, U8.flip(-1)])
    out = v2.functional.jpeg(to_jtorch(batch), 35)
    for i in range(2):
        _same(out[i], TF2.pil_to_tensor(TF2.jpeg(TF2.to_pil_image(batch[i]), 35)))
    assert v2.JPEG(50)((to_jtorch(U8), 3))[1] == 3
    for args in ((True,), (0,), ((5,),), ((50, 20),), (3.5,)):
        _raises_as_torchvision(lambda a=args: v2.JPEG(*a), lambda a=args: TV2.JPEG(*a))


# ------------------------------------------------------------------ geometry
@pytest.mark.parametrize("fill", [0, 7, (10, 20, 30)])
def test_random_zoom_out(fill, monkeypatch):
    jt = v2.RandomZoomOut(fill=fill, side_range=(1.2, 2.5), p=1.0)
    ref = TV2.RandomZoomOut(fill=fill, side_range=(1.2, 2.5), p=1.0)
    for img in (U8, FL, PIL_RGB):
        jt_img = to_jtorch(img) if isinstance(img, torch.Tensor) else img
        jtorch.manual_seed(9)
        got = jt(jt_img)
        _p, r, r_x, r_y = _draws(9, ("uniform",), ("uniform",), ("uniform",), ("uniform",))
        jtorch.manual_seed(9)
        _random.uniform()
        params = jt.make_params([jt_img])
        monkeypatch.setattr(torch, "rand", _Feed(torch.tensor([r], dtype=torch.float64),
                                                 torch.tensor([r_x, r_y], dtype=torch.float64)))
        assert params == ref.make_params([img])
        _same(got, ref.transform(img, params))
    assert v2.RandomZoomOut(p=0.0)(to_jtorch(FL)).shape == (3, 6, 7)


RESIZES = [("ScaleJitter", ((8, 10),), {"scale_range": (0.5, 1.5)}, "uniform"),
           ("ScaleJitter", ((5, 4),), {"interpolation": "nearest"}, "uniform"),
           ("RandomShortestSize", ([3, 4, 9],), {"max_size": 10}, "randint"),
           ("RandomShortestSize", (5,), {"interpolation": 0}, "randint"),
           ("RandomResize", (3, 9), {}, "randint"),
           ("RandomResize", (4, 8), {"interpolation": v2.InterpolationMode.BICUBIC,
                                     "antialias": False}, "randint")]


@pytest.mark.parametrize("name,args,kwargs,draw", RESIZES, ids=[r[0] for r in RESIZES])
def test_random_resizes(name, args, kwargs, draw, monkeypatch):
    jt = getattr(v2, name)(*args, **kwargs)
    tv_kwargs = {**kwargs, "interpolation": getattr(kwargs.get("interpolation"), "value",
                                                    kwargs.get("interpolation", "bilinear"))}
    ref = getattr(TV2, name)(*args, **tv_kwargs)
    for seed in (0, 1, 2):
        for img, atol in ((FL, 2e-6), (U8, 1), (PIL_RGB, 0)):
            jt_img = to_jtorch(img) if isinstance(img, torch.Tensor) else img
            warns = isinstance(img, Image.Image) and kwargs.get("antialias") is False
            jtorch.manual_seed(seed)
            with _warns_if(warns):
                got = jt(jt_img)
            jtorch.manual_seed(seed)
            params = jt.make_params([jt_img])
            if draw == "uniform":
                (u,) = _draws(seed, ("uniform",))
                monkeypatch.setattr(torch, "rand", _Feed(torch.tensor([u], dtype=torch.float64)))
            else:
                lo, hi = (0, len(jt.min_size)) if name == "RandomShortestSize" else args
                (i,) = _draws(seed, ("randint", lo, hi))
                monkeypatch.setattr(torch, "randint", _Feed(torch.tensor(i)))
            ref_params = ref.make_params([img])
            assert list(params["size"]) == list(ref_params["size"])
            if img is U8 and "BICUBIC" in str(kwargs.get("interpolation")):
                # documented difference (docs/vision.md): torchvision v2 resizes uint8 with
                # torch's native uint8 bicubic kernel (fixed-point, up to 10 levels from the
                # float computation); jtorch resizes in float and rounds, as v1 does
                expected = importlib.import_module("torchvision.transforms.functional").resize(
                    img, list(ref_params["size"]), interpolation=TV2.InterpolationMode.BICUBIC,
                    antialias=False)
                _same(got, expected)
                continue
            with _warns_if(warns):
                _same(got, ref.transform(img, ref_params), atol=atol)


def _warns_if(warns):
    # both warn that PIL images are always antialiased
    return pytest.warns(UserWarning, match="Anti-alias option is always applied") if warns \
        else contextlib.nullcontext()


def test_geometry_errors():
    for call in (lambda m: m.RandomZoomOut(side_range=(0.5, 2.0)),
                 lambda m: m.RandomZoomOut(side_range=(3.0, 2.0)),
                 lambda m: m.RandomZoomOut(side_range=2.0),
                 lambda m: m.RandomZoomOut(fill="x"),
                 lambda m: m.RandomZoomOut(p=-0.1),
                 lambda m: m.functional.pad(m._img, [1, 2, 3, 4], fill=(1, 2)),
                 lambda m: m.functional.resize(m._img, 3, interpolation="linear"),
                 lambda m: m.functional.resize(m._img, 3, interpolation=2.0),
                 lambda m: m.ScaleJitter((4, 4))(["not an image"])):
        v2._img, TV2._img = to_jtorch(FL), FL
        try:
            _raises_as_torchvision(lambda c=call: c(v2), lambda c=call: c(TV2))
        finally:
            del v2._img, TV2._img


def test_custom_transform_draws_once_per_call():
    seen = []

    class Record(v2.Transform):  # torchvision's recipe for custom v2 transforms
        def make_params(self, flat_inputs):
            return {"u": _random.uniform(), "n": len(flat_inputs)}

        def transform(self, inpt, params):
            seen.append(params)
            return inpt

    img = to_jtorch(FL)
    out = Record()({"a": PIL_RGB, "b": PIL_RGB.convert("L"), "t": img})
    assert out["t"] is img and len(seen) == 2 and seen[0] is seen[1] and seen[0]["n"] == 2
    seen.clear()
    Record()(img, img)  # no PIL image: only the first plain tensor is an image
    assert len(seen) == 1
