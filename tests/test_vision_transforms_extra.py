"""jtorch.vision.transforms' augmentation transforms (affine, perspective, elastic, erasing, the
auto-augment color operations, five/ten crops, random containers) against torchvision 0.28:
values on float/uint8 tensors, PIL and NumPy images, gradients, error types and messages; and
every public name of torchvision.transforms(.functional) is implemented or a stand-in that
raises NotImplementedError naming it."""

import importlib
import inspect
import types

import numpy as np
import pytest
import torch
from PIL import Image
from vision_helpers import raises_as_torchvision, to_jtorch, torchvision

import jtorch
from jtorch._core.errors import is_stand_in
from jtorch.vision import transforms as T
from jtorch.vision.transforms import functional as F, v2

tv = torchvision()
TT = tv.transforms
TF = tv.transforms.functional
IM = T.InterpolationMode
TIM = TT.InterpolationMode

RNG = np.random.default_rng(1)
RGB = RNG.integers(0, 256, (8, 10, 3), dtype=np.uint8)
RGB[..., 1] = RGB[..., 1] // 4 + 20  # a narrow channel: autocontrast and equalize act on it
GRAY = RNG.integers(30, 200, (8, 10), dtype=np.uint8)
U8 = torch.from_numpy(np.ascontiguousarray(RGB.transpose(2, 0, 1)))
FL = torch.from_numpy(RNG.random((3, 8, 10), dtype=np.float32))
CORNERS = ([[0, 0], [9, 0], [9, 7], [0, 7]], [[1, 1], [8, 0], [9, 6], [2, 7]])


def _public(module):
    """torchvision's public names of ``module``: its own functions, classes, values and
    submodules (not what it imports from typing, PIL, torch, enum...)."""
    out = []
    for name in dir(module):
        obj = getattr(module, name)
        if name.startswith("_") or obj is None:
            continue
        if isinstance(obj, types.ModuleType):
            if obj.__name__.startswith(module.__name__ + "."):
                out.append(name)
            continue
        owner = getattr(obj, "__module__", None)
        if owner is None and not callable(obj) or str(owner).startswith("torchvision"):
            out.append(name)
    return out


@pytest.mark.parametrize("api,jt_module", [("torchvision.transforms", T),
                                           ("torchvision.transforms.functional", F)])
def test_every_torchvision_name_is_implemented_or_raises_not_implemented(api, jt_module):
    names = _public(importlib.import_module(api))
    assert len(names) > 30
    stand_ins = []
    for name in names:
        try:
            obj = getattr(jt_module, name)
        except NotImplementedError as e:
            assert f"{api}.{name}" in str(e)
            continue
        if inspect.isclass(obj) and is_stand_in(obj):
            with pytest.raises(NotImplementedError, match=f"{api}.{name}"):
                obj()
            type("Sub", (obj,), {})  # subclassable, as torchvision's
            stand_ins.append(name)
    assert not stand_ins  # (none left: AugMix was the last)
    with pytest.raises(AttributeError):
        jt_module.not_a_torchvision_name  # noqa: B018


def _same(got, ref, atol=0.0):
    if isinstance(ref, Image.Image):
        assert isinstance(got, Image.Image) and got.mode == ref.mode and got.size == ref.size
        got, ref = np.asarray(got), np.asarray(ref)
    elif isinstance(ref, torch.Tensor):
        assert str(got.dtype) == str(ref.dtype)
        got, ref = got.detach().numpy(), ref.detach().numpy()
    np.testing.assert_allclose(np.asarray(got, float), np.asarray(ref, float), rtol=0,
                               atol=atol)


COLOR_CASES = [("posterize", [3]), ("posterize", [1]), ("solarize", [100]),
               ("adjust_sharpness", [1.7]), ("adjust_sharpness", [0.3]), ("autocontrast", []),
               ("equalize", []), ("invert", [])]


@pytest.mark.parametrize("name,args", COLOR_CASES)
def test_color_functionals(name, args):
    # uint8 tensors (exact), a batch, PIL images (RGB, L) and NumPy images (as PIL)
    _same(getattr(F, name)(to_jtorch(U8), *args), getattr(TF, name)(U8, *args))
    batch = torch.stack([U8, U8.flip(-1)])
    _same(getattr(F, name)(to_jtorch(batch), *args), getattr(TF, name)(batch, *args))
    for arr in (RGB, GRAY):
        ref = getattr(TF, name)(Image.fromarray(arr), *args)
        _same(getattr(F, name)(Image.fromarray(arr), *args), ref)
        got = getattr(F, name)(arr, *args)
        assert isinstance(got, np.ndarray)
        np.testing.assert_array_equal(got, np.asarray(ref))
    if name in ("posterize", "equalize"):  # uint8 tensors only
        with pytest.raises(TypeError, match="Only torch.uint8 image tensors are supported, "
                                            "but found torch.float32"):
            getattr(F, name)(to_jtorch(FL), *args)
        return
    fargs = [0.5] if name == "solarize" else args
    x = FL.clone().requires_grad_(name != "autocontrast")  # torchvision's: no backward
    ref = getattr(TF, name)(x, *fargs)
    xj = to_jtorch(x, requires_grad=x.requires_grad)
    got = getattr(F, name)(xj, *fargs)
    _same(got, ref, atol=1e-6)
    if not x.requires_grad:
        return
    w = torch.from_numpy(RNG.standard_normal(tuple(ref.shape), dtype=np.float32))
    (ref * w).sum().backward()
    (got * to_jtorch(w)).sum().backward()
    np.testing.assert_allclose(xj.grad.numpy(), x.grad.numpy(), atol=1e-5)


@pytest.mark.parametrize("mode,fill", [("bilinear", None), ("nearest", [0.2, 0.5, 1.0])])
def test_perspective_and_affine(mode, fill):
    x = FL.clone().requires_grad_(True)
    xj = to_jtorch(x, requires_grad=True)
    for fn, args in (("perspective", CORNERS), ("affine", (25.0, [1, -2], 0.8, [10.0, -5.0]))):
        ref = getattr(TF, fn)(x, *args, interpolation=TIM(mode), fill=fill)
        got = getattr(F, fn)(xj, *args, interpolation=IM(mode), fill=fill)
        _same(got, ref, atol=2e-6)
        if mode == "bilinear":  # gradients through grid_sample
            x.grad = xj.grad = None
            w = torch.from_numpy(RNG.standard_normal(tuple(ref.shape), dtype=np.float32))
            (ref * w).sum().backward()
            (got * to_jtorch(w)).sum().backward()
            np.testing.assert_allclose(xj.grad.numpy(), x.grad.numpy(), atol=1e-5)
        u8_fill = None if fill is None else [int(255 * f) for f in fill]
        _same(getattr(F, fn)(to_jtorch(U8), *args, interpolation=IM(mode), fill=u8_fill),
              getattr(TF, fn)(U8, *args, interpolation=TIM(mode), fill=u8_fill))
        for arr in (RGB, GRAY):
            pil_fill = None if fill is None or arr is GRAY else u8_fill
            ref = getattr(TF, fn)(Image.fromarray(arr), *args, interpolation=TIM(mode),
                                  fill=pil_fill)
            _same(getattr(F, fn)(Image.fromarray(arr), *args, interpolation=IM(mode),
                                 fill=pil_fill), ref)
            np.testing.assert_array_equal(getattr(F, fn)(arr, *args, interpolation=IM(mode),
                                                         fill=pil_fill), np.asarray(ref))


def test_elastic_transform_functional():
    disp = torch.from_numpy(RNG.uniform(-0.2, 0.2, (1, 8, 10, 2)).astype(np.float32))
    x = FL.clone().requires_grad_(True)
    xj = to_jtorch(x, requires_grad=True)
    ref = TF.elastic_transform(x, disp)
    got = F.elastic_transform(xj, to_jtorch(disp))
    _same(got, ref, atol=2e-6)
    ref.sum().backward()
    got.sum().backward()
    np.testing.assert_allclose(xj.grad.numpy(), x.grad.numpy(), atol=1e-5)
    for img, j_img in ((U8, to_jtorch(U8)), (Image.fromarray(RGB), Image.fromarray(RGB))):
        _same(F.elastic_transform(j_img, to_jtorch(disp), IM.NEAREST, [3.0, 4.0, 5.0]),
              TF.elastic_transform(img, disp, TIM.NEAREST, [3.0, 4.0, 5.0]))
    np.testing.assert_array_equal(F.elastic_transform(RGB, to_jtorch(disp)),
                                  np.asarray(TF.elastic_transform(Image.fromarray(RGB), disp)))


def test_five_and_ten_crop():
    for args in ((4,), ([3, 5],), ((5, 3), True)):
        fn = "ten_crop" if len(args) == 2 else "five_crop"
        for img, j_img in ((FL, to_jtorch(FL)), (Image.fromarray(RGB), Image.fromarray(RGB))):
            ref = getattr(TF, fn)(img, *args)
            got = getattr(F, fn)(j_img, *args)
            assert isinstance(got, tuple) and len(got) == len(ref)
            for g, r in zip(got, ref):
                _same(g, r)
        got = getattr(F, fn)(RGB, *args)
        for g, r in zip(got, getattr(TF, fn)(Image.fromarray(RGB), *args)):
            np.testing.assert_array_equal(g, np.asarray(r))
    for cls, args in ((T.FiveCrop, (4,)), (T.TenCrop, (4, True))):
        ref = getattr(TT, cls.__name__)(*args)
        assert repr(cls(*args)) == repr(ref)
        for g, r in zip(cls(*args)(to_jtorch(U8)), ref(U8)):
            _same(g, r)


_raises_as_torchvision = raises_as_torchvision


ERROR_CASES = [
    ("F", "posterize", lambda m, x: m.posterize(x, 9)),
    ("F", "solarize", lambda m, x: m.solarize(x, 300)),
    ("F", "adjust_sharpness", lambda m, x: m.adjust_sharpness(x, -1.0)),
    ("F", "autocontrast 2-d", lambda m, x: m.autocontrast(x[0])),
    ("F", "equalize 2 channels", lambda m, x: m.equalize(x[:2])),
    ("F", "perspective corners", lambda m, x: m.perspective(x, CORNERS[0][:3], CORNERS[1])),
    ("F", "perspective mode", lambda m, x: m.perspective(
        x, *CORNERS, interpolation=m.InterpolationMode.BICUBIC)),
    ("F", "perspective fill", lambda m, x: m.perspective(x, *CORNERS, fill=[1.0, 2.0])),
    ("F", "five_crop big", lambda m, x: m.five_crop(x, (9, 4))),
    ("F", "ten_crop size", lambda m, x: m.ten_crop(x, (1, 2, 3))),
    ("F", "elastic shape", lambda m, x: m.elastic_transform(x, x[:1, None].float())),
    ("T", "RandomErasing value", lambda m, x: m.RandomErasing(value="noise")),
    ("T", "RandomErasing scale", lambda m, x: m.RandomErasing(scale=(0.5, 1.5))),
    ("T", "RandomErasing p", lambda m, x: m.RandomErasing(p=2)),
    ("T", "RandomErasing value type", lambda m, x: m.RandomErasing(value={1})),
    ("T", "RandomErasing channels", lambda m, x: m.RandomErasing(p=1.0, value=[1, 2])(x)),
    ("T", "RandomAffine translate", lambda m, x: m.RandomAffine(5, translate=(0.1, 1.5))),
    ("T", "RandomAffine scale", lambda m, x: m.RandomAffine(5, scale=(0.0, 1.0))),
    ("T", "RandomAffine shear", lambda m, x: m.RandomAffine(5, shear=(1, 2, 3))),
    ("T", "RandomAffine degrees", lambda m, x: m.RandomAffine(-5)),
    ("T", "RandomAffine center", lambda m, x: m.RandomAffine(5, center=3)),
    ("T", "RandomPerspective fill", lambda m, x: m.RandomPerspective(fill={1})),
    ("T", "ElasticTransform alpha", lambda m, x: m.ElasticTransform(alpha=3)),
    ("T", "ElasticTransform sigma", lambda m, x: m.ElasticTransform(sigma=(1.0, 2.0, 3.0))),
    ("T", "ElasticTransform fill", lambda m, x: m.ElasticTransform(fill="x")),
    ("T", "RandomChoice p", lambda m, x: m.RandomChoice([m.RandomInvert()], p=0.5)),
    ("T", "RandomOrder", lambda m, x: m.RandomOrder(m.RandomInvert())),
    ("T", "FiveCrop size", lambda m, x: m.FiveCrop((1, 2, 3))),
]


@pytest.mark.parametrize("where,label,call", ERROR_CASES, ids=[c[1] for c in ERROR_CASES])
def test_errors_match_torchvision(where, label, call):
    jt_mod, tv_mod = (F, TF) if where == "F" else (T, TT)
    _raises_as_torchvision(lambda: call(jt_mod, to_jtorch(U8)), lambda: call(tv_mod, U8))


def test_linear_transformation():
    d = 3 * 8 * 10
    mat = torch.from_numpy(RNG.standard_normal((d, d), dtype=np.float32) / 20)
    mean = torch.from_numpy(RNG.standard_normal(d, dtype=np.float32))
    ref = TT.LinearTransformation(mat, mean)(FL)
    got = T.LinearTransformation(to_jtorch(mat), to_jtorch(mean))(to_jtorch(FL))
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)
    small = (torch.eye(2), torch.zeros(2))
    assert repr(T.LinearTransformation(*map(to_jtorch, small))) == repr(
        TT.LinearTransformation(*small))
    for args in ((torch.zeros(2, 3), torch.zeros(2)), (torch.eye(2), torch.zeros(3)),
                 (torch.eye(2), torch.zeros(2, dtype=torch.float64))):
        _raises_as_torchvision(lambda a=args: T.LinearTransformation(*map(to_jtorch, a)),
                               lambda a=args: TT.LinearTransformation(*a))
    _raises_as_torchvision(lambda: T.LinearTransformation(*map(to_jtorch, small))(
        to_jtorch(FL)), lambda: TT.LinearTransformation(*small)(FL))


PROB_CASES = [("RandomInvert", ()), ("RandomPosterize", (2,)), ("RandomSolarize", (128,)),
              ("RandomAdjustSharpness", (2.5,)), ("RandomAutocontrast", ()),
              ("RandomEqualize", ())]


@pytest.mark.parametrize("name,args", PROB_CASES)
def test_random_color_transforms_p1_p0(name, args):
    for p in (1.0, 0.0):
        jt, ref = getattr(T, name)(*args, p=p), getattr(TT, name)(*args, p=p)
        assert repr(jt) == repr(ref)
        _same(jt(to_jtorch(U8)), ref(U8))
        _same(jt(Image.fromarray(RGB)), ref(Image.fromarray(RGB)))
        out, label = getattr(v2, name)(*args, p=p)(to_jtorch(U8), 7)
        assert label == 7
        _same(out, ref(U8))


def test_random_affine_fixed_ranges():
    kw = {"degrees": (20, 20), "scale": (1.2, 1.2), "shear": (-8, -8, 5, 5),
          "interpolation": "bilinear", "fill": 0.25, "center": (3, 4)}
    jt = T.RandomAffine(**{**kw, "interpolation": IM.BILINEAR})
    ref = TT.RandomAffine(**{**kw, "interpolation": TIM.BILINEAR})
    assert repr(jt) == repr(ref)
    _same(jt(to_jtorch(FL)), ref(FL), atol=2e-6)
    _same(T.RandomAffine(**{**kw, "interpolation": IM.BILINEAR, "fill": 3})(Image.fromarray(
        RGB)), TT.RandomAffine(**{**kw, "interpolation": TIM.BILINEAR, "fill": 3})(
        Image.fromarray(RGB)))
    jtorch.manual_seed(0)
    for _ in range(50):
        angle, (tx, ty), scale, (sx, sy) = T.RandomAffine.get_params(
            [-10, 30], [0.2, 0.1], [0.5, 2.0], [-5, 5, 1, 2], [10, 8])
        assert -10 <= angle <= 30 and abs(tx) <= 2 and abs(ty) <= 1 and 0.5 <= scale <= 2
        assert -5 <= sx <= 5 and 1 <= sy <= 2
    assert T.RandomAffine.get_params([0, 0], None, None, None, [10, 8]) == (
        0.0, (0, 0), 1.0, (0.0, 0.0))


def _replay(jt_transform, get_params_args, img):
    """The transform's output, and the parameters it drew (get_params with the same seed)."""
    jtorch.manual_seed(11)
    out = jt_transform(img)
    jtorch.manual_seed(11)
    if jt_transform.p < 1.0:
        raise AssertionError("use p=1")
    jtorch.vision.transforms._random.uniform()  # the p draw
    return out, type(jt_transform).get_params(*get_params_args)


def test_random_perspective_and_erasing_draws():
    jt = T.RandomPerspective(distortion_scale=0.6, p=1.0, interpolation=IM.NEAREST, fill=0.5)
    assert repr(jt) == repr(TT.RandomPerspective(0.6, p=1.0))
    out, (start, end) = _replay(jt, (10, 8, 0.6), to_jtorch(FL))
    assert start == CORNERS[0]
    for (x, y), (sx, sy) in zip(end, start):
        assert abs(x - sx) <= 3 and abs(y - sy) <= 2
    _same(out, TF.perspective(FL, start, end, TIM.NEAREST, [0.5] * 3))
    assert T.RandomPerspective(p=0.0)(to_jtorch(FL)) is not None
    _same(T.RandomPerspective(p=0.0)(to_jtorch(FL)), FL)

    jt = T.RandomErasing(p=1.0, scale=(0.1, 0.3), ratio=(0.5, 2.0), value=(0.1, 0.2, 0.3))
    assert repr(jt) == repr(TT.RandomErasing(p=1.0, scale=(0.1, 0.3), ratio=(0.5, 2.0),
                                             value=(0.1, 0.2, 0.3)))
    out, (i, j, h, w, v) = _replay(jt, (to_jtorch(FL), (0.1, 0.3), (0.5, 2.0),
                                        [0.1, 0.2, 0.3]), to_jtorch(FL))
    assert 0.1 * 80 * 0.6 <= h * w <= 0.3 * 80 * 1.5 and i + h <= 8 and j + w <= 10
    _same(out, TF.erase(FL, i, j, h, w, torch.tensor([0.1, 0.2, 0.3])[:, None, None]))
    noisy = T.RandomErasing(p=1.0, value="random")(to_jtorch(FL))
    assert noisy.shape == (3, 8, 10) and np.isfinite(noisy.numpy()).all()
    _same(T.RandomErasing(p=0.0)(to_jtorch(FL)), FL)
    assert T.RandomErasing.get_params(to_jtorch(FL), (0.99, 0.99), (1.0, 1.0))[2:4] == (8, 10)


def test_elastic_transform_class():
    jt = T.ElasticTransform(alpha=(3.0, 2.0), sigma=1.5, fill=0.5)
    assert repr(jt) == repr(TT.ElasticTransform(alpha=(3.0, 2.0), sigma=1.5, fill=0.5))
    jtorch.manual_seed(2)
    out = jt(to_jtorch(FL))
    jtorch.manual_seed(2)
    disp = T.ElasticTransform.get_params(jt.alpha, jt.sigma, [8, 10])
    assert tuple(disp.shape) == (1, 8, 10, 2)
    assert np.abs(disp.numpy()[..., 0]).max() <= 3.0 / 10 and np.abs(
        disp.numpy()[..., 1]).max() <= 2.0 / 8
    _same(out, TF.elastic_transform(FL, torch.from_numpy(disp.numpy()), fill=[0.5]), atol=2e-6)


def test_random_choice_and_order():
    flips = [T.RandomHorizontalFlip(1.0), T.RandomVerticalFlip(1.0)]
    tflips = [TT.RandomHorizontalFlip(1.0), TT.RandomVerticalFlip(1.0)]
    assert repr(T.RandomChoice(flips, p=[0, 1])) == repr(TT.RandomChoice(tflips, p=[0, 1]))
    assert repr(T.RandomOrder(flips)) == repr(TT.RandomOrder(tflips))
    _same(T.RandomChoice(flips, p=[0, 1])(to_jtorch(FL)), TT.RandomChoice(tflips, [0, 1])(FL))
    _same(T.RandomOrder(flips)(to_jtorch(FL)), TT.RandomOrder(tflips)(FL))  # they commute
    jtorch.manual_seed(0)
    picks = [T.RandomChoice([lambda x: 0, lambda x: 1], p=[1, 3])(None) for _ in range(400)]
    assert 250 < sum(picks) < 350
    img = Image.fromarray(RGB)
    out, label = v2.RandomChoice([v2.RandomHorizontalFlip(1.0), v2.Identity()], p=[1, 0])(
        img, 3)
    assert label == 3
    _same(out, TF.hflip(img))
    _same(v2.RandomOrder([v2.RandomVerticalFlip(1.0)])(img), TF.vflip(img))
    with pytest.raises(ValueError, match="Length of p doesn't match the number of transforms"):
        v2.RandomChoice([v2.Identity()], p=[1, 2])


def test_autoaugment_policies_ops_and_draws():
    taa = importlib.import_module("torchvision.transforms.autoaugment")
    for policy in T.AutoAugmentPolicy:
        tpolicy = taa.AutoAugmentPolicy(policy.value)
        assert T.AutoAugment(policy)._get_policies(policy) == taa.AutoAugment(
            tpolicy)._get_policies(tpolicy)
    spaces = [(T.AutoAugment()._augmentation_space(10, (8, 10)),
               taa.AutoAugment()._augmentation_space(10, (8, 10))),
              (T.RandAugment()._augmentation_space(31, (8, 10)),
               taa.RandAugment()._augmentation_space(31, (8, 10))),
              (T.TrivialAugmentWide()._augmentation_space(31),
               taa.TrivialAugmentWide()._augmentation_space(31))]
    for got, ref in spaces:
        assert list(got) == list(ref)
        for name, (mags, signed) in got.items():
            assert signed == ref[name][1]
            assert mags == (ref[name][0].tolist() if ref[name][0].ndim else None)
    img = Image.fromarray(RGB)
    for name, mag in (("ShearX", 0.3), ("ShearY", -0.2), ("TranslateX", 3.0),
                      ("TranslateY", -2.0), ("Rotate", 20.0), ("Brightness", 0.5),
                      ("Color", -0.4), ("Contrast", 0.3), ("Sharpness", 0.6),
                      ("Posterize", 3.0), ("Solarize", 120.0), ("AutoContrast", 0.0),
                      ("Equalize", 0.0), ("Invert", 0.0), ("Identity", 0.0)):
        _same(T.autoaugment._apply_op(to_jtorch(U8), name, mag, IM.NEAREST, [9.0] * 3),
              taa._apply_op(U8, name, mag, TIM.NEAREST, [9.0] * 3))
        _same(T.autoaugment._apply_op(img, name, mag, IM.BILINEAR, None),
              taa._apply_op(img, name, mag, TIM.BILINEAR, None))
    # AutoAugment: the drawn sub-policy, applied by torchvision, gives jtorch's output
    jt = T.AutoAugment(T.AutoAugmentPolicy.CIFAR10, fill=3)
    assert repr(jt) == repr(taa.AutoAugment(taa.AutoAugmentPolicy.CIFAR10, fill=3)).replace(
        "torchvision", "jtorch")
    space = taa.AutoAugment()._augmentation_space(10, (8, 10))
    for seed in range(6):
        jtorch.manual_seed(seed)
        out = jt(to_jtorch(U8))
        jtorch.manual_seed(seed)
        policy_id, probs, signs = T.AutoAugment.get_params(25)
        ref = U8
        for i, (op, p, bin_) in enumerate(jt.policies[policy_id]):
            if float(probs[i]) <= p:
                mag = 0.0 if bin_ is None else float(space[op][0][bin_])
                mag = -mag if space[op][1] and int(signs[i]) == 0 else mag
                ref = taa._apply_op(ref, op, mag, TIM.NEAREST, [3.0] * 3)
        _same(out, ref)


@pytest.mark.parametrize("name", ["RandAugment", "TrivialAugmentWide"])
def test_rand_and_trivial_augment_outputs_are_torchvision_ops(name):
    """Each output is one of torchvision's (operation, magnitude, sign) results."""
    taa = importlib.import_module("torchvision.transforms.autoaugment")
    kw = {"num_ops": 1, "magnitude": 5, "num_magnitude_bins": 9} if name == "RandAugment" \
        else {"num_magnitude_bins": 3}
    jt, ref = getattr(T, name)(**kw), getattr(taa, name)(**kw)
    assert repr(jt) == repr(ref).replace("torchvision", "jtorch")
    space = (ref._augmentation_space(kw["num_magnitude_bins"], (8, 10)) if name == "RandAugment"
             else ref._augmentation_space(kw["num_magnitude_bins"]))
    candidates = []
    for op, (mags, signed) in space.items():
        values = [0.0] if mags.ndim == 0 else (
            [float(mags[kw["magnitude"]])] if name == "RandAugment" else mags.tolist())
        for m in values:
            for s in ((1, -1) if signed else (1,)):
                candidates.append(taa._apply_op(U8, op, s * m, TIM.NEAREST, None).numpy())
    jtorch.manual_seed(4)
    for _ in range(8):
        out = jt(to_jtorch(U8)).numpy()
        assert any(np.array_equal(out, c) for c in candidates)
    out, label = getattr(v2, name)(**kw)(to_jtorch(U8), 1)
    assert label == 1 and any(np.array_equal(out.numpy(), c) for c in candidates)


def test_augmix_mixes_torchvision_ops():
    """With the Dirichlet draws fixed, one chain of one operation: the output is
    ``0.5 * image + 0.5 * op(image)`` for one of torchvision's operations."""
    taa = importlib.import_module("torchvision.transforms.autoaugment")

    def fixed(self, params):
        return params.new_tensor([[0.5, 0.5]]) if params.shape[-1] == 2 else params.new_tensor(
            [[1.0]])

    kw = {"severity": 2, "mixture_width": 1, "chain_depth": 1, "all_ops": False}
    jt = type("JtAugMix", (T.AugMix,), {"_sample_dirichlet": fixed})(**kw)
    ref = taa.AugMix(**kw)
    assert repr(T.AugMix(**kw)) == repr(ref)
    candidates = []
    for op, (mags, signed) in ref._augmentation_space(10, (8, 10)).items():
        for m in ([0.0] if mags.ndim == 0 else mags[:2].tolist()):
            for s in ((1, -1) if signed else (1,)):
                aug = taa._apply_op(U8[None], op, s * m, TIM.BILINEAR, None)[0]
                candidates.append((0.5 * U8 + 0.5 * aug).to(torch.uint8).numpy())
    jtorch.manual_seed(1)
    for _ in range(6):
        out = jt(to_jtorch(U8)).numpy()
        assert any(np.array_equal(out, c) for c in candidates)
    pil = T.AugMix()(Image.fromarray(RGB))
    assert isinstance(pil, Image.Image) and pil.size == (10, 8)
    with pytest.raises(ValueError, match=r"The severity must be between \[1, 10\]. Got 11"):
        T.AugMix(severity=11)
