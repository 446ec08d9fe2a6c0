"""jtorch.vision: MNIST-family datasets (read from ../shared/data/mnist) and transforms."""

import gzip
import io
import os
import shutil
import urllib.error
from pathlib import Path

import jax
import numpy as np
import pytest
import torch
from data_helpers import mnist_dir, time_limit
from vision_helpers import torchvision

import jtorch
from jtorch.utils.data import DataLoader
from jtorch.vision import datasets, transforms

MNIST_DIR = mnist_dir() or Path(__file__).resolve().parents[2] / "shared" / "data" / "mnist"
needs_mnist = pytest.mark.skipif(mnist_dir() is None,
                                 reason=f"MNIST files not present at {MNIST_DIR}")
FILES = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
         "t10k-labels-idx1-ubyte"]


def _idx_bytes(arr):
    code = {np.uint8: 0x08, np.int32: 0x0C}[arr.dtype.type]
    dims = np.asarray(arr.shape, ">i4").tobytes()
    return bytes([0, 0, code, arr.ndim]) + dims + arr.astype(arr.dtype.newbyteorder(">")).tobytes()


def _fake_mnist(folder, n=5, gz=True, seed=0):
    rng = np.random.default_rng(seed)
    os.makedirs(folder, exist_ok=True)
    out = {}
    for name in FILES:
        arr = (rng.integers(0, 256, (n, 28, 28), dtype=np.uint8) if "images" in name
               else rng.integers(0, 10, n, dtype=np.uint8))
        out[name] = arr
        data = _idx_bytes(arr)
        if gz:
            with gzip.open(os.path.join(folder, name + ".gz"), "wb") as f:
                f.write(data)
        else:
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data)
    return out


def _norm_ref(img_uint8, mean, std):
    x = torch.from_numpy(np.array(img_uint8)).to(torch.float32).div(255)
    x = x[None] if x.ndim == 2 else x.permute(2, 0, 1)
    m = torch.tensor(mean, dtype=torch.float32).view(-1, 1, 1)
    s = torch.tensor(std, dtype=torch.float32).view(-1, 1, 1)
    return (x - m) / s


@needs_mnist
def test_mnist_from_shared_dir():
    for train, n in ((True, 60000), (False, 10000)):
        ds = datasets.MNIST(str(MNIST_DIR), train=train)
        assert len(ds) == n
        assert ds.data.dtype == jtorch.uint8 and tuple(ds.data.shape) == (n, 28, 28)
        assert ds.targets.dtype == jtorch.int64 and tuple(ds.targets.shape) == (n,)
        img, target = ds[0]
        assert isinstance(img, np.ndarray) and img.dtype == np.uint8 and img.shape == (28, 28)
        assert isinstance(target, int) and 0 <= target <= 9
        assert sorted(set(ds.targets.tolist())) == list(range(10))
        np.testing.assert_array_equal(ds.data[0].numpy(), img)
    assert "Split: Test" in repr(ds) and repr(ds).startswith("Dataset MNIST\n    Number of "
                                                             "datapoints: 10000")


@needs_mnist
def test_mnist_loader_transforms_match_torch_and_one_transfer(monkeypatch):
    mean, std = (0.1307,), (0.3081,)
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(mean, std)])
    ds = datasets.MNIST(MNIST_DIR, train=False, transform=tf)
    raw = datasets.MNIST(MNIST_DIR, train=False)
    x0, y0 = ds[3]  # outside a loader: device ops (XLA's float32 division may differ by 1 ulp)
    torch.testing.assert_close(torch.tensor(x0.numpy()), _norm_ref(raw[3][0], mean, std))
    calls = []
    real = jax.device_put
    monkeypatch.setattr(jax, "device_put", lambda a, *k, **kw: calls.append(1) or real(a, *k, **kw))
    with time_limit(90):
        for nw in (0, 2):
            calls.clear()
            loader = DataLoader(ds, batch_size=500, num_workers=nw)
            it = iter(loader)
            if nw:
                assert type(it._workers[0]).__name__ == "ForkProcess"
            batches = list(it)
            assert len(calls) == 2 * len(batches) == 40
            x, y = batches[1]
            assert x.dtype == jtorch.float32 and tuple(x.shape) == (500, 1, 28, 28)
            assert y.dtype == jtorch.int64
            ref = torch.stack([_norm_ref(raw[i][0], mean, std) for i in range(500, 1000)])
            torch.testing.assert_close(torch.tensor(x.numpy()), ref, rtol=0, atol=0)  # NumPy
            assert y.tolist() == raw.targets[500:1000].tolist()
        # a per-sample (non-batchable) transform takes the per-sample path, same values
        slow = datasets.MNIST(MNIST_DIR, train=False, transform=transforms.Compose(
            [transforms.ToTensor(), transforms.Lambda(lambda t: t),
             transforms.Normalize(mean, std)]))
        xs, _ = next(iter(DataLoader(slow, batch_size=500)))
        np.testing.assert_array_equal(xs.numpy(), batches[0][0].numpy())


def test_layouts_gz_and_plain(tmp_path):
    ref = _fake_mnist(tmp_path / "FashionMNIST" / "raw", gz=True)
    ds = datasets.FashionMNIST(tmp_path, train=False)
    assert len(ds) == 5 and ds.classes[0] == "T-shirt/top"
    np.testing.assert_array_equal(ds[2][0], ref["t10k-images-idx3-ubyte"][2])
    assert ds.targets.tolist() == ref["t10k-labels-idx1-ubyte"].astype(int).tolist()
    flat = tmp_path / "flat"
    ref2 = _fake_mnist(flat, gz=False, seed=1)
    ds = datasets.KMNIST(flat, train=True, target_transform=lambda t: t + 100)
    assert ds[4][1] == int(ref2["train-labels-idx1-ubyte"][4]) + 100
    assert ds.class_to_idx["ki"] == 1


def test_missing_files_offline_and_download(tmp_path, monkeypatch):
    with pytest.raises(RuntimeError) as e:
        datasets.MNIST(tmp_path / "none")
    msg = str(e.value)
    assert msg.startswith("Dataset not found. You can use download=True to download it")
    assert all(f in msg for f in FILES) and str(tmp_path / "none") in msg

    def offline(url, timeout=30):
        raise urllib.error.URLError("no network")
    monkeypatch.setattr(datasets.utils, "_urlopen", offline)
    with pytest.raises(RuntimeError, match="Error downloading train-images-idx3-ubyte.gz"):
        datasets.MNIST(tmp_path / "none", download=True)

    src = tmp_path / "mirror"
    ref = _fake_mnist(src, gz=True, seed=2)
    served = []

    def fake(url, timeout=30):
        served.append(url)
        return io.BytesIO((src / url.rsplit("/", 1)[1]).read_bytes())
    monkeypatch.setattr(datasets.utils, "_urlopen", fake)
    ds = datasets.MNIST(tmp_path / "dl", train=True, download=True)
    assert len(served) == 4 and served[0].startswith(datasets.MNIST.mirrors[0])
    assert sorted(os.listdir(tmp_path / "dl" / "MNIST" / "raw")) == sorted(f + ".gz" for f in FILES)
    np.testing.assert_array_equal(ds.data.numpy(), ref["train-images-idx3-ubyte"])
    shutil.rmtree(src)
    datasets.MNIST(tmp_path / "dl", download=True)  # present: nothing downloaded
    assert len(served) == 4


def test_to_tensor_and_normalize_match_torch():
    rng = np.random.default_rng(0)
    for shape in ((5, 7), (5, 7, 3)):
        img = rng.integers(0, 256, shape, dtype=np.uint8)
        t = transforms.ToTensor()(img)
        ref = torch.from_numpy(img).to(torch.float32).div(255)
        ref = ref[None] if img.ndim == 2 else ref.permute(2, 0, 1)
        assert t.dtype == jtorch.float32
        np.testing.assert_array_equal(t.numpy(), ref.numpy())
    f = rng.standard_normal((4, 4, 2)).astype(np.float64)
    assert transforms.ToTensor()(f).dtype == jtorch.float64  # non-uint8: values kept
    np.testing.assert_array_equal(transforms.ToTensor()(f).numpy(), f.transpose(2, 0, 1))
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    mean, std = [0.1, 0.2, 0.3], [0.5, 2.0, 1.5]
    out = transforms.Normalize(mean, std)(jtorch.tensor(x))
    ref = (torch.tensor(x) - torch.tensor(mean).view(-1, 1, 1)) / torch.tensor(std).view(-1, 1, 1)
    torch.testing.assert_close(torch.tensor(out.numpy()), ref)  # XLA division: within 1 ulp
    xt = jtorch.tensor(x)
    assert transforms.Normalize(mean, std, inplace=True)(xt) is xt
    torch.testing.assert_close(torch.tensor(xt.numpy()), ref)
    from jtorch.utils.data import _worker
    with _worker.host_fetch():  # the loader's NumPy path is bit-exact
        host = transforms.Normalize(mean, std)(transforms.ToTensor()(np.ones((4, 5, 3), np.uint8)))
    ref1 = ((torch.ones(3, 4, 5) / 255 - torch.tensor(mean).view(-1, 1, 1))
            / torch.tensor(std).view(-1, 1, 1))
    np.testing.assert_array_equal(host.numpy(), ref1.numpy())
    with pytest.raises(TypeError, match="Input tensor should be a float tensor"):
        transforms.Normalize(mean, std)(jtorch.zeros(3, 2, 2, dtype=jtorch.int64))
    with pytest.raises(ValueError, match="std evaluated to zero"):
        transforms.Normalize(mean, [1.0, 0.0, 1.0])(jtorch.tensor(x))
    with pytest.raises(ValueError, match=r"Expected tensor to be a tensor image of size"):
        transforms.Normalize(mean, std)(jtorch.zeros(2, 2))
    with pytest.raises(TypeError, match="pic should be PIL Image or ndarray"):
        transforms.ToTensor()(jtorch.zeros(2, 2))
    with pytest.raises(TypeError, match="Argument lambd should be callable"):
        transforms.Lambda(3)
    assert repr(transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])) \
        == "Compose(\n    ToTensor()\n    Normalize(mean=(0.5,), std=(0.5,))\n)"


def test_random_flip_and_crop():
    img = np.arange(30, dtype=np.uint8).reshape(5, 6)
    assert np.array_equal(transforms.RandomHorizontalFlip(1.0)(img), img[:, ::-1])
    assert transforms.RandomHorizontalFlip(0.0)(img) is img
    t = transforms.ToTensor()(img)
    np.testing.assert_array_equal(transforms.RandomHorizontalFlip(1.0)(t).numpy(),
                                  t.numpy()[..., ::-1])
    jtorch.manual_seed(0)
    crops = [transforms.RandomCrop(3, padding=1)(img) for _ in range(6)]
    jtorch.manual_seed(0)
    assert all(np.array_equal(a, transforms.RandomCrop(3, padding=1)(img)) for a in crops)
    padded = np.pad(img, 1)
    for c in crops:  # every crop is a 3x3 window of the padded image
        assert c.shape == (3, 3)
        assert any(np.array_equal(c, padded[i:i + 3, j:j + 3])
                   for i in range(padded.shape[0] - 2) for j in range(padded.shape[1] - 2))
    tc = transforms.RandomCrop((2, 4))(t)
    assert tuple(tc.shape) == (1, 2, 4) and tc.dtype == jtorch.float32
    with pytest.raises(ValueError, match="Required crop size"):
        transforms.RandomCrop(9)(img)


@pytest.mark.parametrize("name", ["MNIST", "FashionMNIST", "KMNIST"])
def test_class_attributes_and_deprecated_names_as_torchvision(tmp_path, name):
    """classes, resources and the legacy file names are torchvision's; the pre-0.3 names
    (train_data, test_labels...) return data/targets with torchvision's warning (real programs,
    e.g. MorvanZhou's tutorials, still use them)."""
    tv_cls = getattr(torchvision().datasets, name)
    jt_cls = getattr(datasets, name)
    for attr in ("classes", "resources", "training_file", "test_file", "mirrors"):
        assert getattr(jt_cls, attr) == getattr(tv_cls, attr), attr
    ref = _fake_mnist(tmp_path / name / "raw", gz=False)
    tv_ds, jt_ds = tv_cls(tmp_path, train=True), jt_cls(tmp_path, train=True)
    for old, new in (("train_data", "data"), ("test_data", "data"),
                     ("train_labels", "targets"), ("test_labels", "targets")):
        with pytest.warns(UserWarning) as tv_rec:
            tv_value = getattr(tv_ds, old)
        with pytest.warns(UserWarning) as jt_rec:
            jt_value = getattr(jt_ds, old)
        assert [str(w.message) for w in jt_rec] == [str(w.message) for w in tv_rec]
        assert str(jt_rec[0].message) == f"{old} has been renamed {new}"
        np.testing.assert_array_equal(jt_value.numpy(), tv_value.numpy())
    np.testing.assert_array_equal(jt_ds.data.numpy(), ref["train-images-idx3-ubyte"])
