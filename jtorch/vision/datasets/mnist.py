"""MNIST, FashionMNIST and KMNIST with torchvision's names and arguments.

Differences from torchvision (see docs/data.md and docs/vision.md):
    - ``__getitem__`` returns the image as a ``uint8`` NumPy ``H x W`` array instead of a PIL
      Image (jtorch does not depend on Pillow); ``transforms.ToTensor`` accepts it.
    - The IDX files are read gzipped or not, from ``root/<ClassName>/raw/`` (torchvision's
      layout) or directly from ``root``. Downloads keep the ``.gz`` files and are checked by
      parsing them (IDX header and sizes), not by MD5.
"""

from __future__ import annotations

import gzip
import os
import urllib.error
import warnings

import numpy as np

from ...utils.data import _worker as worker
from .utils import _urlretrieve
from .vision import StandardTransform, VisionDataset

__all__ = ["MNIST", "FashionMNIST", "KMNIST"]

_FILES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
          "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
_IDX_DTYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4",
               0x0E: ">f8"}


def read_idx(path):
    """An IDX file (gzipped when the name ends in .gz) as a NumPy array."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_DTYPES:
        raise RuntimeError(f"{path} is not an IDX file")
    ndim = raw[3]
    shape = tuple(int(s) for s in np.frombuffer(raw, ">i4", ndim, 4))
    dt = np.dtype(_IDX_DTYPES[raw[2]])
    n = int(np.prod(shape))
    offset = 4 + 4 * ndim
    if len(raw) - offset != n * dt.itemsize:
        raise RuntimeError(f"{path}: the IDX header says {shape} but the file holds "
                           f"{len(raw) - offset} bytes of data")
    return np.frombuffer(raw, dt, n, offset).astype(dt.newbyteorder("="), copy=False)\
        .reshape(shape)


def _array_property(name, dtype, doc):
    """A tensor property over the numpy array ``_<name>`` (set from anything array-like,
    as ``dtype``)."""

    def set_array(self, value):
        setattr(self, "_" + name, np.asarray(value, dtype))

    return property(lambda self: self._tensor(name, getattr(self, "_" + name)), set_array,
                    doc=doc)


def _resources(*md5s):
    return [(name + ".gz", md5) for name, md5 in zip(_FILES, md5s)]


def _renamed(old, new):
    """torchvision's deprecated name ``old`` of attribute ``new`` (warns as torchvision)."""

    def get(self):
        warnings.warn(f"{old} has been renamed {new}", stacklevel=2)  # (at the caller)
        return getattr(self, new)

    return property(get, doc=f"Deprecated: ``{new}``.")


class MNIST(VisionDataset):
    """The MNIST digits: ``(image, target)`` with a ``uint8`` 28x28 NumPy image (see module)."""

    mirrors = ["https://ossci-datasets.s3.amazonaws.com/mnist/",
               "http://yann.lecun.com/exdb/mnist/"]
    # torchvision's (file, MD5) list; jtorch checks a download by parsing it (module doc)
    resources = _resources("f68b3c2dcbeaaa9fbdd348bbdeb94873", "d53e105ee54ea40749a09fcbcd1e9432",
                           "9fb629c4189551a2d022fa330f9573f3", "ec29112dd5afa0611ce80d1b7f02629c")
    training_file = "training.pt"
    test_file = "test.pt"
    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five",
               "6 - six", "7 - seven", "8 - eight", "9 - nine"]

    def __init__(self, root, train=True, transform=None, target_transform=None,
                 download=False):
        if isinstance(root, (str, bytes)) or hasattr(root, "__fspath__"):
            root = os.path.expanduser(os.fspath(root))
        self.root = root
        self.transform = transform
        self.target_transform = target_transform
        self.transforms = StandardTransform(transform, target_transform)
        self.train = train
        if download and self._find(self._names()) is None:
            self.download()
        files = self._find(self._names())
        if files is None:
            raise RuntimeError(self._not_found_message())
        self._data = read_idx(files[0])
        self._targets = read_idx(files[1]).astype(np.int64)
        self._cache = {}

    # ---------------------------------------------------------------- files
    @property
    def raw_folder(self):
        return os.path.join(self.root, self.__class__.__name__, "raw")

    @property
    def processed_folder(self):
        return os.path.join(self.root, self.__class__.__name__, "processed")

    def _names(self):
        return _FILES[:2] if self.train else _FILES[2:]

    def _find(self, names):
        found = []
        for name in names:
            hit = None
            for folder in (self.raw_folder, self.root):
                for cand in (name, name + ".gz"):
                    p = os.path.join(folder, cand)
                    if os.path.isfile(p):
                        hit = hit or p
            if hit is None:
                return None
            found.append(hit)
        return found

    def _check_exists(self):
        return self._find(_FILES) is not None

    def _not_found_message(self):
        return ("Dataset not found. You can use download=True to download it. "
                f"(jtorch reads the four {self.__class__.__name__} IDX files {', '.join(_FILES)} "
                f"- each gzipped (.gz) or not - from {self.raw_folder} or directly from "
                f"{self.root}; put them there to use the dataset offline.)")

    def download(self):
        """Downloads the four gzipped IDX files into ``raw_folder`` (skips present ones)."""
        os.makedirs(self.raw_folder, exist_ok=True)
        for name in _FILES:
            if self._find([name]) is not None:
                continue
            errors = []
            for mirror in self.mirrors:
                url = f"{mirror}{name}.gz"
                dest = os.path.join(self.raw_folder, name + ".gz")
                try:
                    _urlretrieve(url, dest)
                except (urllib.error.URLError, OSError) as e:
                    errors.append(f"{url}: {e}")
                    continue
                read_idx(dest)  # validates the download
                break
            else:
                raise RuntimeError(f"Error downloading {name}.gz ({'; '.join(errors)}). "
                                   + self._not_found_message())

    # ---------------------------------------------------------------- data
    def _tensor(self, name, arr):
        c = self._cache.get(name)
        if c is None or c[0] is not arr:
            c = self._cache[name] = (arr, worker.to_device(arr))
        return c[1]

    data = _array_property("data", np.uint8, "The images as a ``uint8`` tensor ``N x 28 x 28``.")
    targets = _array_property("targets", np.int64, "The labels as an ``int64`` tensor.")
    train_data = _renamed("train_data", "data")
    test_data = _renamed("test_data", "data")
    train_labels = _renamed("train_labels", "targets")
    test_labels = _renamed("test_labels", "targets")

    @property
    def class_to_idx(self):
        return {c: i for i, c in enumerate(self.classes)}

    def __getitem__(self, index):
        return self._transformed(self._data[index], int(self._targets[index]))

    def __len__(self):
        return len(self._data)

    def _jtorch_fetch_batch(self, indices):
        """The default-collated batch, transformed as one array when the transform can
        (ToTensor/Normalize/Compose of them); NotImplemented otherwise."""
        t = self.transform
        batch_fn = getattr(t, "_jtorch_batch", None) if t is not None else (lambda a: a)
        if batch_fn is None or self.target_transform is not None:
            return NotImplemented
        idx = np.asarray(indices, np.int64)
        imgs = batch_fn(self._data[idx])
        if imgs is NotImplemented:
            return NotImplemented
        return [worker.host_tensor(imgs), worker.host_tensor(self._targets[idx])]

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_cache"] = {}
        return state

    # ---------------------------------------------------------------- repr
    def extra_repr(self):
        return f"Split: {'Train' if self.train is True else 'Test'}"


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST (same files and layout as MNIST)."""

    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    resources = _resources("8d4fb7e6c68d591d4c3dfef9ec88bf0d", "25c81989df183df01b3e8a0aad5dffbe",
                           "bef4ecab320f06d8554ea6380940ec79", "bb300cfdad3c16e7a12a480ee83cd310")
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
               "Sneaker", "Bag", "Ankle boot"]


class KMNIST(MNIST):
    """Kuzushiji-MNIST (same files and layout as MNIST)."""

    mirrors = ["http://codh.rois.ac.jp/kmnist/dataset/kmnist/"]
    resources = _resources("bdb82020997e1d708af4cf47b453dcf7", "e144d726b3acfaa3e44228e80efcd344",
                           "5c965bf0a639b31b8f53240b1b52f4d7", "7320c461ea6c1c855c0b718fb2a4b134")
    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]
