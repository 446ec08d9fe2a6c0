"""jtorch.vision.datasets (CIFAR, ImageFolder/DatasetFolder, FakeData) and jtorch.vision.utils
against torchvision 0.28 on the same files and tensors."""

import io
import os
import pickle
import urllib.error

import numpy as np
import pytest
import torch
from data_helpers import time_limit
from PIL import Image
from vision_helpers import to_jtorch, torchvision

import jtorch
from jtorch.utils.data import DataLoader
from jtorch.vision import datasets, transforms, utils
from jtorch.vision.datasets import utils as dsutils

tv = torchvision()
RNG = np.random.default_rng(0)


def _write_cifar(root, hundred=False, n=(6, 4)):
    """Pickle batches in CIFAR's "python version" format (random pixels)."""
    folder = root / ("cifar-100-python" if hundred else "cifar-10-batches-py")
    folder.mkdir(parents=True)
    names = (["train"], ["test"]) if hundred else (
        [f"data_batch_{i}" for i in range(1, 6)], ["test_batch"])
    key = "fine_labels" if hundred else "labels"
    ncls = 100 if hundred else 10
    for split, count in zip(names, n):
        for name in split:
            entry = {"data": RNG.integers(0, 256, (count, 3072), dtype=np.uint8),
                     key: RNG.integers(0, ncls, count).tolist()}
            with open(folder / name, "wb") as f:
                pickle.dump(entry, f)
    meta = ({"fine_label_names": [f"c{i}" for i in range(100)]} if hundred
            else {"label_names": [f"class{i}" for i in range(10)]})
    with open(folder / ("meta" if hundred else "batches.meta"), "wb") as f:
        pickle.dump(meta, f)


@pytest.fixture
def tv_cifar_no_md5(monkeypatch):
    """torchvision checks the real files' MD5s: accept the test's files by their presence."""
    monkeypatch.setattr(tv.datasets.cifar, "check_integrity",
                        lambda fpath, md5=None: os.path.isfile(fpath))


@pytest.mark.parametrize("hundred", [False, True])
def test_cifar_matches_torchvision(tmp_path, tv_cifar_no_md5, hundred):
    _write_cifar(tmp_path, hundred)
    jcls, tcls = ("CIFAR100", "CIFAR100") if hundred else ("CIFAR10", "CIFAR10")
    for train in (True, False):
        got = getattr(datasets, jcls)(tmp_path, train=train)
        ref = getattr(tv.datasets, tcls)(tmp_path, train=train)
        assert len(got) == len(ref) and got.classes == ref.classes
        assert got.class_to_idx == ref.class_to_idx and got.targets == ref.targets
        np.testing.assert_array_equal(got.data, ref.data)
        for i in (0, len(ref) - 1):
            (gi, gt), (ri, rt) = got[i], ref[i]
            assert gt == rt and gi.mode == ri.mode
            np.testing.assert_array_equal(np.asarray(gi), np.asarray(ri))
        assert repr(got) == repr(ref)


def test_cifar_transforms_loader_and_offline(tmp_path, tv_cifar_no_md5, monkeypatch):
    _write_cifar(tmp_path)
    mean, std = (0.49, 0.48, 0.45), (0.25, 0.24, 0.26)
    jt = transforms.Compose([transforms.ToTensor(), transforms.Normalize(mean, std)])
    tt = tv.transforms
    ref = tv.datasets.CIFAR10(tmp_path, transform=tt.Compose([tt.ToTensor(),
                                                              tt.Normalize(mean, std)]))
    ds = datasets.CIFAR10(tmp_path, transform=jt)
    rx = torch.stack([ref[i][0] for i in range(len(ref))])
    for nw in (0, 2):  # the batched NumPy path and the forked workers' per-sample path
        xs, ys = next(iter(DataLoader(ds, batch_size=len(ds), num_workers=nw)))
        np.testing.assert_allclose(xs.numpy(), rx.numpy(), rtol=1e-6, atol=1e-6)
        assert ys.tolist() == ref.targets
    aug = datasets.CIFAR10(tmp_path, transform=transforms.Compose(
        [transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(),
         transforms.ToTensor(), transforms.Normalize(mean, std)]))
    with time_limit(60):  # per-sample NumPy/Pillow work in forked workers: no JAX call
        it = iter(DataLoader(aug, batch_size=8, num_workers=2))
        assert type(it._workers[0]).__name__ == "ForkProcess"
        xs, _ = next(it)
        del it
    assert tuple(xs.shape) == (8, 3, 32, 32) and xs.dtype == jtorch.float32
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted"):
        datasets.CIFAR10(tmp_path / "none")
    monkeypatch.setattr(dsutils, "_urlopen", lambda *a, **k: (_ for _ in ()).throw(
        urllib.error.URLError("no network")))
    with pytest.raises(RuntimeError) as e:
        datasets.CIFAR100(tmp_path / "none", download=True)
    assert "cifar-100-python.tar.gz" in str(e.value) and str(tmp_path / "none") in str(e.value)


def _write_images(root):
    for cls, n in (("cat", 2), ("dog", 3), ("zebra", 1)):
        (root / cls / "sub").mkdir(parents=True)
        for i in range(n):
            arr = RNG.integers(0, 256, (5 + i, 6, 3), dtype=np.uint8)
            Image.fromarray(arr).save(root / cls / (f"{i}.png" if i % 2 else f"sub/{i}.png"))
        (root / cls / "notes.txt").write_text("not an image")


def test_image_folder_and_dataset_folder(tmp_path):
    _write_images(tmp_path)
    got, ref = datasets.ImageFolder(str(tmp_path)), tv.datasets.ImageFolder(str(tmp_path))
    assert got.classes == ref.classes and got.class_to_idx == ref.class_to_idx
    assert got.samples == ref.samples == got.imgs and got.targets == ref.targets
    for i in range(len(ref)):
        (gi, gt), (ri, rt) = got[i], ref[i]
        assert gt == rt
        np.testing.assert_array_equal(np.asarray(gi), np.asarray(ri))
    assert repr(got) == repr(ref)

    def loader(path):
        with open(path) as f:
            return f.read()
    dg = datasets.DatasetFolder(str(tmp_path), loader, extensions=(".txt",))
    dr = tv.datasets.DatasetFolder(str(tmp_path), loader, extensions=(".txt",))
    assert dg.samples == dr.samples and dg[1] == dr[1]
    with pytest.raises(FileNotFoundError, match="Found no valid file for the classes"):
        datasets.DatasetFolder(str(tmp_path), loader, extensions=(".jpg",))
    with pytest.raises(ValueError, match="Both extensions and is_valid_file cannot be None"):
        datasets.DatasetFolder(str(tmp_path), loader)
    tf = transforms.Compose([transforms.Resize((4, 4)), transforms.ToTensor()])
    xs, ys = next(iter(DataLoader(datasets.ImageFolder(str(tmp_path), transform=tf),
                                  batch_size=6)))
    assert tuple(xs.shape) == (6, 3, 4, 4) and ys.tolist() == ref.targets


def test_fake_data():
    ds = datasets.FakeData(size=5, image_size=(3, 8, 6), num_classes=4, random_offset=2)
    ref = tv.datasets.FakeData(size=5, image_size=(3, 8, 6), num_classes=4)
    img, target = ds[1]
    rimg, rtarget = ref[1]
    assert type(img) is type(rimg) and img.mode == rimg.mode and img.size == rimg.size
    assert isinstance(target, int) and 0 <= target < 4 and isinstance(rtarget, int)
    np.testing.assert_array_equal(np.asarray(ds[1][0]), np.asarray(img))  # per-index
    assert len(ds) == 5
    with pytest.raises(IndexError, match="FakeData index out of range"):
        ds[5]
    gray = datasets.FakeData(size=2, image_size=(1, 4, 4), transform=transforms.ToTensor())
    assert tuple(gray[0][0].shape) == (1, 4, 4)


@pytest.mark.parametrize("kw", [{}, {"nrow": 3, "padding": 1, "pad_value": 0.5},
                                {"normalize": True}, {"normalize": True, "scale_each": True},
                                {"normalize": True, "value_range": (0.2, 0.8)},
                                {"nrow": 10, "padding": 0}])
def test_make_grid(kw):
    x = torch.from_numpy(RNG.random((7, 3, 5, 4), dtype=np.float32)).requires_grad_(True)
    ref = tv.utils.make_grid(x, **kw)
    got = utils.make_grid(to_jtorch(x, requires_grad=True), **kw)
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-6, atol=1e-7)
    assert got.requires_grad is ref.requires_grad is False  # both run under no_grad


def test_make_grid_inputs_and_save_image(tmp_path):
    one = torch.from_numpy(RNG.random((1, 6, 5), dtype=np.float32))
    lst = [torch.from_numpy(RNG.random((3, 4, 4), dtype=np.float32)) for _ in range(3)]
    for inp in (one, one[0], lst, torch.stack(lst)[:, :1]):
        jin = [to_jtorch(t) for t in inp] if isinstance(inp, list) else to_jtorch(inp)
        np.testing.assert_array_equal(utils.make_grid(jin).numpy(),
                                      tv.utils.make_grid(inp).numpy())
    with pytest.raises(TypeError, match="tensor or list of tensors expected"):
        utils.make_grid(3)
    x = torch.from_numpy(RNG.random((4, 3, 6, 7), dtype=np.float32))
    utils.save_image(to_jtorch(x), tmp_path / "a.png", nrow=2)
    tv.utils.save_image(x, tmp_path / "b.png", nrow=2)
    a, b = Image.open(tmp_path / "a.png"), Image.open(tmp_path / "b.png")
    assert a.size == b.size
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_draw_bounding_boxes():
    img = torch.from_numpy(RNG.integers(0, 256, (3, 40, 50), dtype=np.uint8))
    boxes = torch.tensor([[2, 3, 20, 30], [10, 5, 45, 38], [0, 0, 5, 5]], dtype=torch.float32)
    cases = [{}, {"labels": ["a", "bb", "c"], "colors": ["red", (0, 255, 0), "blue"],
                  "width": 2}, {"fill": True, "colors": "yellow"},
             {"labels": ["x", "y", "z"], "fill_labels": True}]
    for kw in cases:
        ref = tv.utils.draw_bounding_boxes(img, boxes, **kw)
        got = utils.draw_bounding_boxes(to_jtorch(img), to_jtorch(boxes), **kw)
        assert got.dtype == jtorch.uint8
        np.testing.assert_array_equal(got.numpy(), ref.numpy())
    gray = torch.from_numpy(RNG.random((1, 20, 20), dtype=np.float32))
    np.testing.assert_allclose(
        utils.draw_bounding_boxes(to_jtorch(gray), to_jtorch(boxes[:1] / 2)).numpy(),
        tv.utils.draw_bounding_boxes(gray, boxes[:1] / 2).numpy(), atol=1e-6)
    with pytest.raises(ValueError, match="Boxes need to be in \\(xmin, ymin, xmax, ymax\\)"):
        utils.draw_bounding_boxes(to_jtorch(img), jtorch.tensor([[5.0, 5, 1, 1]]))
    # draw_segmentation_masks: tests/test_vision_segmentation.py
    with pytest.raises(NotImplementedError, match="draw_keypoints"):
        utils.draw_keypoints(to_jtorch(img), None)


def test_failed_download_leaves_no_file(tmp_path, monkeypatch):
    """A download that breaks off midway leaves neither the file nor its ``.part``."""
    class Broken(io.BytesIO):
        def read(self, n=-1):
            if self.tell():
                raise OSError("connection reset")
            return super().read(4)

    monkeypatch.setattr(dsutils, "_urlopen", lambda url, timeout=30: Broken(b"12345678"))
    with pytest.raises(OSError, match="connection reset"):
        dsutils._urlretrieve("http://example.invalid/f.bin", tmp_path / "f.bin")
    assert os.listdir(tmp_path) == []
