"""jtorch.vision.transforms (v1, v2, functional) against torchvision 0.28 on the same inputs:
PIL images (exact: both call Pillow), tensors (values and gradients), and jtorch's NumPy
images (as the PIL path). Random transforms: fixed parameters give torchvision's output, and
the drawn parameters follow torchvision's ranges."""

import importlib

import numpy as np
import pytest
import torch
from PIL import Image
from vision_helpers import to_jtorch, torchvision

import jtorch
from jtorch.vision import transforms as T
from jtorch.vision.transforms import functional as F, v2

tv = torchvision()
TF = tv.transforms.functional
IM = T.InterpolationMode
TIM = tv.transforms.InterpolationMode

RNG = np.random.default_rng(0)
RGB = RNG.integers(0, 256, (13, 17, 3), dtype=np.uint8)
GRAY = RNG.integers(0, 256, (13, 17), dtype=np.uint8)


def _pil(arr=RGB):
    return Image.fromarray(arr)


def _same_pil(got, ref):
    assert isinstance(got, Image.Image) and got.mode == ref.mode and got.size == ref.size
    np.testing.assert_array_equal(np.asarray(got), np.asarray(ref))


def _tmode(m):
    return TIM(m.value)


PIL_CASES = [
    ("resize", [(7, 9)], {}), ("resize", [8], {}), ("resize", [[10]], {"max_size": 12}),
    ("resize", [(20, 30)], {"interpolation": "bicubic"}),
    ("resize", [(6, 5)], {"interpolation": "nearest"}),
    ("center_crop", [9], {}), ("center_crop", [(20, 15)], {}),
    ("crop", [-2, 3, 10, 20], {}), ("pad", [3], {}), ("pad", [[1, 2]], {"fill": 7}),
    ("pad", [[1, 2, 3, 4]], {"padding_mode": "reflect"}),
    ("pad", [[2, 1]], {"padding_mode": "edge"}), ("pad", [[3, 0, 1, 2]],
                                                  {"padding_mode": "symmetric"}),
    ("pad", [[-1, 2, 3, -2]], {"padding_mode": "reflect"}),
    ("hflip", [], {}), ("vflip", [], {}),
    ("rotate", [33.0], {}), ("rotate", [-70.0], {"expand": True, "interpolation": "bilinear"}),
    ("rotate", [15.0], {"center": [2, 3], "fill": [10, 20, 30]}),
    ("affine", [20.0, [2, -1], 1.2, [5.0, 3.0]], {}),
    ("adjust_brightness", [1.3], {}), ("adjust_contrast", [0.6], {}),
    ("adjust_saturation", [1.7], {}), ("adjust_hue", [0.21], {}), ("adjust_hue", [-0.4], {}),
    ("adjust_gamma", [0.7, 1.1], {}), ("rgb_to_grayscale", [3], {}), ("invert", [], {}),
    ("resized_crop", [2, 3, 8, 9, [5, 6]], {}),
]


def _kw(kw):
    return {k: (IM(v) if k == "interpolation" else v) for k, v in kw.items()}, \
        {k: (TIM(v) if k == "interpolation" else v) for k, v in kw.items()}


@pytest.mark.parametrize("name,args,kw", PIL_CASES)
def test_functional_on_pil_and_numpy(name, args, kw):
    jkw, tkw = _kw(kw)
    for arr in (RGB, GRAY):
        if name.startswith("adjust_hue") and arr is GRAY:
            continue
        if name == "rotate" and "fill" in kw and arr is GRAY:
            continue
        ref = getattr(TF, name)(_pil(arr), *args, **tkw)
        _same_pil(getattr(F, name)(_pil(arr), *args, **jkw), ref)
        got = getattr(F, name)(arr, *args, **jkw)  # NumPy image: the PIL result as NumPy
        assert isinstance(got, np.ndarray)
        np.testing.assert_array_equal(got, np.asarray(ref))


TENSOR_CASES = [
    ("resize", [(7, 9)], {}), ("resize", [(30, 40)], {}), ("resize", [8], {"antialias": False}),
    ("resize", [(6, 25)], {"interpolation": "bicubic"}),
    ("resize", [(9, 8)], {"interpolation": "bicubic", "antialias": False}),
    ("resize", [(6, 5)], {"interpolation": "nearest"}),
    ("resize", [(26, 11)], {"interpolation": "nearest-exact"}),
    ("center_crop", [9], {}), ("center_crop", [(20, 15)], {}), ("crop", [-2, 3, 10, 20], {}),
    ("pad", [[1, 2]], {"fill": 0.5}), ("pad", [[1, 2, 3, 4]], {"padding_mode": "reflect"}),
    ("pad", [[2, 1]], {"padding_mode": "edge"}),
    ("pad", [[3, 0, 1, 2]], {"padding_mode": "symmetric"}),
    ("hflip", [], {}), ("vflip", [], {}),
    ("rotate", [33.0], {}), ("rotate", [-70.0], {"expand": True, "interpolation": "bilinear"}),
    ("rotate", [15.0], {"center": [2, 3], "fill": [0.1, 0.2, 0.3],
                        "interpolation": "bilinear"}),
    ("affine", [20.0, [2, -1], 1.2, [5.0, 3.0]], {"interpolation": "bilinear"}),
    ("adjust_brightness", [1.3], {}), ("adjust_contrast", [0.6], {}),
    ("adjust_saturation", [1.7], {}), ("adjust_hue", [0.21], {}), ("adjust_gamma", [0.7, 1.1], {}),
    ("rgb_to_grayscale", [3], {}), ("invert", [], {}),
    ("normalize", [[0.1, 0.2, 0.3], [0.5, 2.0, 1.5]], {}),
    ("resized_crop", [2, 3, 8, 9, [5, 6]], {}),
]


@pytest.mark.parametrize("name,args,kw", TENSOR_CASES)
def test_functional_on_tensors_values_and_grads(name, args, kw):
    jkw, tkw = _kw(kw)
    x = torch.from_numpy(RNG.random((2, 3, 13, 17), dtype=np.float32))
    x.requires_grad_(True)
    ref = getattr(TF, name)(x, *args, **tkw)
    xj = to_jtorch(x, requires_grad=True)
    got = getattr(F, name)(xj, *args, **jkw)
    np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=2e-6)
    w = torch.from_numpy(RNG.standard_normal(tuple(ref.shape), dtype=np.float32))
    (ref * w).sum().backward()
    (got * to_jtorch(w)).sum().backward()
    np.testing.assert_allclose(xj.grad.numpy(), x.grad.numpy(), rtol=1e-4, atol=1e-5)
    if name == "normalize":
        return
    u8 = torch.from_numpy(RNG.integers(0, 256, (3, 13, 17), dtype=np.uint8))
    ref8 = getattr(TF, name)(u8, *args, **tkw)
    got8 = getattr(F, name)(to_jtorch(u8), *args, **jkw)
    assert str(got8.dtype) == str(ref8.dtype)
    # uint8 results are rounded from float math: allow one step where rounding ties differ
    np.testing.assert_allclose(got8.numpy().astype(int), ref8.numpy().astype(int), atol=1)


def test_conversions():
    for arr in (RGB, GRAY, RNG.integers(0, 256, (4, 5, 4), dtype=np.uint8)):
        for fn in ("to_tensor", "pil_to_tensor"):
            ref = getattr(TF, fn)(_pil(arr))
            got = getattr(F, fn)(_pil(arr))
            assert str(got.dtype) == str(ref.dtype)
            np.testing.assert_array_equal(got.numpy(), ref.numpy())
        np.testing.assert_array_equal(F.to_tensor(arr).numpy(), TF.to_tensor(arr).numpy())
    f = RNG.random((3, 6, 7), dtype=np.float32)
    for pic, mode in ((torch.from_numpy(f), None), (torch.from_numpy(f[:1]), None),
                      (torch.from_numpy((f * 255).astype(np.uint8)), None),
                      (torch.from_numpy(f[:1]), "F"), (RGB, None), (RGB, "HSV"),
                      (torch.from_numpy(np.concatenate([f, f[:1]])), None)):
        jp = to_jtorch(pic) if isinstance(pic, torch.Tensor) else pic
        _same_pil(F.to_pil_image(jp, mode), TF.to_pil_image(pic, mode))
    x = torch.from_numpy(RNG.integers(0, 256, (3, 4, 5), dtype=np.uint8))
    for dt in (torch.float32, torch.float64, torch.int32, torch.uint8):
        ref = TF.convert_image_dtype(x, dt)
        got = F.convert_image_dtype(to_jtorch(x), getattr(jtorch, str(dt).split(".")[1]))
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-6)
    xf = TF.convert_image_dtype(x, torch.float32)
    np.testing.assert_array_equal(
        F.convert_image_dtype(to_jtorch(xf), jtorch.uint8).numpy(),
        TF.convert_image_dtype(xf, torch.uint8).numpy())
    with pytest.raises(TypeError, match="pic should be PIL Image or ndarray"):
        F.to_tensor(jtorch.zeros(2, 2))
    with pytest.raises(ValueError, match="pic should not have > 4 channels"):
        F.to_pil_image(np.zeros((2, 2, 5), np.uint8))


def test_class_reprs_match():
    pairs = [
        ("Resize", (5,), {}), ("Resize", ((5, 6),), {"interpolation": IM.NEAREST}),
        ("CenterCrop", (4,), {}), ("Pad", (2,), {"padding_mode": "edge"}),
        ("RandomCrop", (4,), {"padding": 2}), ("RandomHorizontalFlip", (), {}),
        ("RandomVerticalFlip", (0.3,), {}), ("RandomResizedCrop", (8,), {}),
        ("ColorJitter", (0.4, 0.4, 0.4, 0.1), {}), ("RandomRotation", (10,), {}),
        ("Grayscale", (3,), {}), ("RandomGrayscale", (), {}), ("ToTensor", (), {}),
        ("PILToTensor", (), {}), ("ToPILImage", (), {}), ("Normalize", ((0.5,), (0.2,)), {}),
    ]
    for name, args, kw in pairs:
        tkw = {k: (_tmode(v) if k == "interpolation" else v) for k, v in kw.items()}
        assert repr(getattr(T, name)(*args, **kw)) == repr(getattr(tv.transforms, name)(*args,
                                                                                        **tkw))
    comp = [T.Resize(4), T.ToTensor()]
    assert repr(T.Compose(comp)) == repr(tv.transforms.Compose(
        [tv.transforms.Resize(4), tv.transforms.ToTensor()]))


def test_deterministic_transform_classes():
    img = _pil()
    jt = T.Compose([T.Resize(11), T.CenterCrop(9), T.Pad(1, fill=3), T.Grayscale(3),
                    T.RandomHorizontalFlip(p=1.0), T.RandomVerticalFlip(p=0.0),
                    T.RandomRotation((30, 30)), T.ColorJitter(brightness=(1.2, 1.2)),
                    T.ToTensor(), T.Normalize((0.5, 0.4, 0.3), (0.2, 0.3, 0.4))])
    tt = tv.transforms
    ref = tt.Compose([tt.Resize(11), tt.CenterCrop(9), tt.Pad(1, fill=3), tt.Grayscale(3),
                      tt.RandomHorizontalFlip(p=1.0), tt.RandomVerticalFlip(p=0.0),
                      tt.RandomRotation((30, 30)), tt.ColorJitter(brightness=(1.2, 1.2)),
                      tt.ToTensor(), tt.Normalize((0.5, 0.4, 0.3), (0.2, 0.3, 0.4))])
    np.testing.assert_allclose(jt(img).numpy(), ref(img).numpy(), rtol=1e-6, atol=1e-6)
    x = torch.from_numpy(RNG.random((3, 20, 24), dtype=np.float32))
    jt = T.Compose([T.Resize((10, 12)), T.RandomRotation((-20, -20), fill=0.5),
                    T.ColorJitter(contrast=(0.7, 0.7), saturation=(1.5, 1.5))])
    ref = tt.Compose([tt.Resize((10, 12)), tt.RandomRotation((-20, -20), fill=0.5),
                      tt.ColorJitter(contrast=(0.7, 0.7), saturation=(1.5, 1.5))])
    jtorch.manual_seed(0)
    out = jt(to_jtorch(x))
    # ColorJitter draws the order of its adjustments: with two of them, try both orders
    refs = []
    for seed in range(20):
        torch.manual_seed(seed)
        refs.append(ref(x).numpy())
    assert any(np.allclose(out.numpy(), r, atol=1e-5) for r in refs)


def test_random_parameters():
    img = _pil()
    jtorch.manual_seed(3)
    draws = [T.RandomCrop.get_params(img, (5, 7)) for _ in range(300)]
    assert {d[2:] for d in draws} == {(5, 7)}
    assert {d[0] for d in draws} == set(range(13 - 5 + 1))
    assert {d[1] for d in draws} == set(range(17 - 7 + 1))
    jtorch.manual_seed(3)
    assert draws[:10] == [T.RandomCrop.get_params(img, (5, 7)) for _ in range(10)]
    for i, j, h, w in draws[:5]:  # the crop at the drawn place is torchvision's
        _same_pil(F.crop(img, i, j, h, w), TF.crop(img, i, j, h, w))
    big = _pil(RNG.integers(0, 256, (100, 120, 3), dtype=np.uint8))
    for _ in range(100):
        i, j, h, w = T.RandomResizedCrop.get_params(big, (0.08, 1.0), (3 / 4, 4 / 3))
        assert 0 <= i <= 100 - h and 0 <= j <= 120 - w
        assert 0.08 * 12000 * 0.9 <= h * w <= 12000 and 0.7 <= w / h <= 1.4
        _same_pil(F.resized_crop(big, i, j, h, w, [8, 8]), TF.resized_crop(big, i, j, h, w,
                                                                             [8, 8]))
    b, c, s, h = T.ColorJitter(0.5, 0.3, 0.2, 0.1).get_params([0.5, 1.5], [0.7, 1.3],
                                                              [0.8, 1.2], [-0.1, 0.1])[1:]
    assert 0.5 <= b <= 1.5 and 0.7 <= c <= 1.3 and 0.8 <= s <= 1.2 and -0.1 <= h <= 0.1
    angles = [T.RandomRotation.get_params([-10, 25]) for _ in range(200)]
    assert min(angles) >= -10 and max(angles) <= 25 and np.std(angles) > 5
    flips = sum(np.array_equal(np.asarray(T.RandomHorizontalFlip()(img)), np.asarray(
        TF.hflip(img))) for _ in range(400))
    assert 140 < flips < 260  # p=0.5


def test_random_crop_padding_modes_and_tensors():
    x = RNG.random((3, 6, 7), dtype=np.float32)
    for mode in ("constant", "edge", "reflect", "symmetric"):
        t = T.RandomCrop((6, 7), padding=2, padding_mode=mode, fill=0.25)
        tt = tv.transforms.RandomCrop((6, 7), padding=2, padding_mode=mode, fill=0.25)
        padded_j = F.pad(to_jtorch(torch.from_numpy(x)), 2, 0.25, mode)
        padded_t = TF.pad(torch.from_numpy(x), 2, 0.25, mode)
        np.testing.assert_array_equal(padded_j.numpy(), padded_t.numpy())
        out = t(to_jtorch(torch.from_numpy(x)))
        assert tuple(out.shape) == (3, 6, 7)
        assert any(np.array_equal(out.numpy(), padded_t[:, i:i + 6, j:j + 7].numpy())
                   for i in range(5) for j in range(5))
        assert repr(t) == repr(tt)
    small = _pil(RNG.integers(0, 256, (3, 4, 3), dtype=np.uint8))
    assert T.RandomCrop(6, pad_if_needed=True)(small).size == (6, 6)


def test_v2_structures_and_names():
    img = _pil()
    label = 3
    jt = v2.Compose([v2.RandomHorizontalFlip(p=1.0), v2.Resize((8, 9)), v2.ToImage(),
                     v2.ToDtype(jtorch.float32, scale=True), v2.Normalize([0.5] * 3, [0.25] * 3)])
    t2 = importlib.import_module("torchvision.transforms.v2")
    ref = t2.Compose([t2.RandomHorizontalFlip(p=1.0), t2.Resize((8, 9)), t2.ToImage(),
                      t2.ToDtype(torch.float32, scale=True), t2.Normalize([0.5] * 3, [0.25] * 3)])
    out, lab = jt(img, label)
    rout, rlab = ref(img, label)
    assert lab == rlab == 3
    np.testing.assert_allclose(out.numpy(), rout.numpy(), rtol=1e-6, atol=1e-6)
    sample = {"image": img, "meta": {"id": 7}}
    got = v2.CenterCrop(5)(sample)
    exp = t2.CenterCrop(5)(sample)
    assert got["meta"] == exp["meta"]
    _same_pil(got["image"], exp["image"])
    x = torch.from_numpy(RNG.random((3, 10, 12), dtype=np.float32))
    y = torch.from_numpy(RNG.random((3, 10, 12), dtype=np.float32))
    gj = v2.RandomVerticalFlip(p=1.0)(to_jtorch(x), to_jtorch(y))
    gt = t2.RandomVerticalFlip(p=1.0)(x, y)  # only the first plain tensor is an image
    for a, b in zip(gj, gt):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    u8 = torch.from_numpy(RNG.integers(0, 256, (3, 5, 6), dtype=np.uint8))
    np.testing.assert_allclose(v2.ToDtype(jtorch.float32, scale=True)(to_jtorch(u8)).numpy(),
                               t2.ToDtype(torch.float32, scale=True)(u8).numpy())
    assert v2.Lambda(lambda v: v * 2, int)((2, "a")) == (4, "a")
    assert v2.RandomCrop(4).size == (4, 4) and v2.Resize(3).size == 3
    with pytest.warns(UserWarning, match="The transform `ToTensor\\(\\)` is deprecated"):
        v2.ToTensor()
    np.testing.assert_array_equal(v2.functional.horizontal_flip(to_jtorch(u8)).numpy(),
                                  t2.functional.horizontal_flip(u8).numpy())


def test_random_transforms_seeded_by_manual_seed():
    img = _pil(RNG.integers(0, 256, (40, 50, 3), dtype=np.uint8))
    tf = T.Compose([T.RandomResizedCrop(16), T.RandomHorizontalFlip(), T.ColorJitter(0.4, 0.4,
                    0.4, 0.1), T.RandomRotation(20), T.ToTensor()])
    jtorch.manual_seed(5)
    a = [tf(img).numpy() for _ in range(3)]
    jtorch.manual_seed(5)
    b = [tf(img).numpy() for _ in range(3)]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], a[1])


def test_tensor_transforms_compile():
    """The tensor paths branch on no tensor value: a pipeline compiles and gives the eager
    values, which are torchvision's."""
    def pipeline(fn, mode, x):
        x = fn.resize(x, [10, 12])
        x = fn.rotate(x, 20.0, interpolation=mode.BILINEAR)
        x = fn.adjust_hue(fn.adjust_contrast(x, 0.7), 0.1)
        x = fn.center_crop(fn.pad(x, [1, 2], padding_mode="reflect"), 8)
        return fn.normalize(x, [0.5] * 3, [0.2] * 3)

    x = torch.from_numpy(RNG.random((2, 3, 20, 24), dtype=np.float32))
    compiled = jtorch.compile(lambda t: pipeline(F, IM, t))
    got = compiled(to_jtorch(x))
    np.testing.assert_allclose(got.numpy(), pipeline(F, IM, to_jtorch(x)).numpy(), atol=1e-5)
    np.testing.assert_allclose(got.numpy(), pipeline(TF, TIM, x).numpy(), rtol=1e-4, atol=1e-4)
