"""Regressions found by running lightly, mambapy, reformer-pytorch and jaxtyping unchanged under
jtorch (scripts/real_drivers/lightly_mamba_reformer.py, docs/real-programs.md): each test is a
small stand-in for what the library did, in plain torch-API code, run in jtorch and checked
against real torchvision."""

import importlib.util
import subprocess
import sys

import numpy as np
import pytest
import torch
from vision_helpers import torchvision

import jtorch
import jtorch.vision.transforms.v2 as jt_v2
from jtorch._core.errors import is_stand_in
from jtorch.vision import tv_tensors as jt_tv_tensors

_TV = torchvision()
import torchvision.transforms.v2 as tv_v2  # noqa: E402
from torchvision import tv_tensors  # noqa: E402


def _classes(module):
    return sorted(n for n, v in vars(module).items() if isinstance(v, type) and n[0].isupper())


def test_every_v2_transform_class_imports():
    # lightly.transforms imports torchvision.transforms.v2.ConvertBoundingBoxFormat (and
    # tv_tensors' BoundingBoxes, BoundingBoxFormat, Mask) at import: ImportError made the whole
    # of lightly.transforms unusable. Every torchvision v2 class now reads in jtorch: jtorch's
    # transform or a stand-in Transform subclass that raises NotImplementedError when made.
    missing = []
    for name in _classes(tv_v2):
        if name == "AutoAugmentPolicy":   # an enum, with torchvision's members
            assert [p.value for p in getattr(jt_v2, name)] == [p.value for p in tv_v2.
                                                               AutoAugmentPolicy]
            continue
        cls = getattr(jt_v2, name, None)
        if cls is None:
            missing.append(name)
            continue
        assert isinstance(cls, type), name
        if issubclass(getattr(tv_v2, name), tv_v2.Transform):
            assert issubclass(cls, jt_v2.Transform), name
        if is_stand_in(cls):
            assert cls is getattr(jt_v2, name)   # one class per name
            with pytest.raises(NotImplementedError,
                               match=rf"torchvision\.transforms\.v2\.{name}\b"):
                cls()
    assert not missing
    assert not hasattr(jt_v2, "NoSuchTransform")
    assert not hasattr(tv_v2, "NoSuchTransform")
    # a real transform is still jtorch's own
    assert not is_stand_in(jt_v2.RandomResizedCrop)


def test_stand_in_transform_subclass_raises_when_made():
    # add_grid_transform.py subclasses v2.Transform; a subclass of a stand-in raises when made
    class MyCrop(jt_v2.RandomIoUCrop):
        pass

    with pytest.raises(NotImplementedError, match=r"torchvision\.transforms\.v2\.RandomIoUCrop"):
        MyCrop(min_scale=0.2)
    assert isinstance(tv_v2.RandomIoUCrop(min_scale=0.2), tv_v2.Transform)  # torchvision: one
    # GaussianNoise (this test's stand-in once) is jtorch's own now: its subclass is made
    assert isinstance(type("MyNoise", (jt_v2.GaussianNoise,), {})(sigma=0.2), jt_v2.Transform)


def test_tv_tensors_classes_are_stand_ins():
    from jtorch.vision.tv_tensors import BoundingBoxes, BoundingBoxFormat, Mask  # noqa: F401

    for name in ("BoundingBoxFormat", "BoundingBoxes", "Image", "KeyPoints", "Mask", "TVTensor",
                 "Video"):
        assert hasattr(tv_tensors, name)
        cls = getattr(jt_tv_tensors, name)
        assert is_stand_in(cls) and cls is getattr(jt_tv_tensors, name)
        with pytest.raises(NotImplementedError, match=rf"torchvision\.tv_tensors\.{name}\b"):
            cls(jtorch.zeros(1, 2, 2))
    # a plain tensor is no tv_tensor, in both
    assert not isinstance(jtorch.zeros(2), jt_tv_tensors.Mask)
    assert not isinstance(torch.zeros(2), tv_tensors.Mask)
    # its functions still raise when read
    with pytest.raises(NotImplementedError, match=r"torchvision\.tv_tensors\.wrap"):
        jt_tv_tensors.wrap  # noqa: B018


def test_lightly_transforms_import_under_the_runner():
    """lightly's transforms import under ``python -m jtorch`` (where lightly is installed; else
    the torchvision names lightly.transforms imports at its import, as it imports them)."""
    if importlib.util.find_spec("lightly") is not None:
        code = ("import lightly.transforms as T; "
                "from lightly.transforms import RFFT2DTransform, SimCLRTransform; "
                "from lightly.transforms.add_grid_transform import AddGridTransform; "
                "print(T.torchvision_transforms.__name__)")
    else:
        code = ("import torchvision.transforms.v2 as T2; "
                "from torchvision.transforms.v2 import ConvertBoundingBoxFormat; "
                "from torchvision.tv_tensors import BoundingBoxes, BoundingBoxFormat, Mask; "
                "print(T2.__name__)")
    done = subprocess.run([sys.executable, "-m", "jtorch", "-c", code], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-1].endswith("vision.transforms.v2")  # v2, not v1


@pytest.mark.parametrize("src,dst", [("uint8", "float32"), ("uint8", "float64"),
                                     ("int16", "float32"), ("int32", "float64"),
                                     ("uint8", "int32"), ("float32", "uint8"),
                                     ("float64", "float32")])
def test_v2_to_dtype_scale_matches_torchvision_bitwise(src, dst):
    # lightly's ToTensor (ToImage + ToDtype(float32, scale=True)) differed from torchvision's in
    # the last bit of about half the pixels: v2 multiplies by 1 / max where v1 divides by max
    rng = np.random.default_rng(0)
    if src.startswith("float"):
        values = rng.random((3, 5, 7)).astype(src)
    else:
        info = np.iinfo(src)
        values = rng.integers(0, info.max, (3, 5, 7), endpoint=True).astype(src)
    want_dtype, got_dtype = getattr(torch, dst), getattr(jtorch, dst)
    x, xj = torch.from_numpy(values.copy()), jtorch.from_numpy(values.copy())
    for want, got in ((tv_v2.functional.to_dtype(x, want_dtype, scale=True),
                       jt_v2.functional.to_dtype(xj, got_dtype, scale=True)),
                      (tv_v2.ToDtype(want_dtype, scale=True)(x),
                       jt_v2.ToDtype(got_dtype, scale=True)(xj)),
                      (tv_v2.ConvertImageDtype(want_dtype)(x),
                       jt_v2.ConvertImageDtype(got_dtype)(xj)),
                      (tv_v2.functional.to_dtype(x, want_dtype),
                       jt_v2.functional.to_dtype(xj, got_dtype))):
        assert str(got.dtype) == str(want.dtype)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    # v1's convert_image_dtype keeps its division (torchvision's v1 does)
    v1_want = _TV.transforms.functional.convert_image_dtype(x, want_dtype)
    v1_got = jtorch.vision.transforms.functional.convert_image_dtype(xj, got_dtype)
    np.testing.assert_array_equal(v1_got.numpy(), v1_want.numpy())


def test_v2_to_tensor_pipeline_of_a_pil_image_matches_torchvision():
    from PIL import Image
    img = Image.fromarray((np.random.default_rng(0).random((6, 5, 3)) * 255).astype(np.uint8))
    want = tv_v2.Compose([tv_v2.ToImage(), tv_v2.ToDtype(torch.float32, scale=True),
                          tv_v2.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])(img)
    got = jt_v2.Compose([jt_v2.ToImage(), jt_v2.ToDtype(jtorch.float32, scale=True),
                         jt_v2.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])(img)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
