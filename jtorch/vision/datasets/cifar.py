"""CIFAR-10 and CIFAR-100 from the "python version" pickle batches (torchvision's layout:
``root/cifar-10-batches-py/data_batch_1``...).

Differences from torchvision: the batch files are checked for presence, not by MD5 (so any
file in the format loads); without network, ``download=True`` raises a RuntimeError that
says which archive to fetch and where to extract it.
"""

from __future__ import annotations

import os
import pickle
import tarfile
import urllib.error

import numpy as np

from ...utils.data import _worker as worker
from .utils import _urlretrieve
from .vision import VisionDataset

__all__ = ["CIFAR10", "CIFAR100"]


class CIFAR10(VisionDataset):
    """CIFAR-10: ``(PIL image 32x32 RGB, int target)``.

    Args:
        root (str or os.PathLike): the folder holding ``cifar-10-batches-py``.
        train (bool): the 5 training batches (True) or the test batch.
        transform, target_transform (callable, optional): applied to the image / target.
        download (bool): download and extract the archive into ``root`` when absent.

    Attributes:
        data (numpy.ndarray): ``N x 32 x 32 x 3`` uint8; targets (list[int]); classes;
            class_to_idx.
    """

    base_folder = "cifar-10-batches-py"
    url = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
    filename = "cifar-10-python.tar.gz"
    tgz_md5 = "c58f30108f718f92721af3b95e74349a"
    train_list = [["data_batch_1", "c99cafc152244af753f735de768cd75f"],
                  ["data_batch_2", "d4bba439e000b95fd0a9bffe97cbabec"],
                  ["data_batch_3", "54ebc095f3ab1f0389bbae665268c751"],
                  ["data_batch_4", "634d18415352ddfa80567beed471001a"],
                  ["data_batch_5", "482c414d41f54cd18b22e5b47cb7c3cb"]]
    test_list = [["test_batch", "40351d587109b95175f43aff81a1287e"]]
    meta = {"filename": "batches.meta", "key": "label_names",
            "md5": "5ff9c542aee3614f3951f8cda6e48888"}

    def __init__(self, root, train: bool = True, transform=None, target_transform=None,
                 download: bool = False) -> None:
        if hasattr(root, "__fspath__"):
            root = os.fspath(root)
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to "
                               f"download it ({self._where()})")
        data, self.targets = [], []
        for file_name, _ in self.train_list if self.train else self.test_list:
            with open(os.path.join(self.root, self.base_folder, file_name), "rb") as f:
                entry = pickle.load(f, encoding="latin1")  # noqa: S301 - the dataset's format
            data.append(entry["data"])
            self.targets.extend(entry["labels"] if "labels" in entry else entry["fine_labels"])
        self.data = np.vstack(data).reshape(-1, 3, 32, 32).transpose((0, 2, 3, 1))
        self._load_meta()

    def _where(self):
        return (f"jtorch reads the pickle batches from {os.path.join(self.root, self.base_folder)}"
                f"; offline, extract {self.filename} from {self.url} into {self.root}")

    def _load_meta(self) -> None:
        path = os.path.join(self.root, self.base_folder, self.meta["filename"])
        if not os.path.isfile(path):
            raise RuntimeError("Dataset metadata file not found or corrupted. You can use "
                               "download=True to download it")
        with open(path, "rb") as infile:
            self.classes = pickle.load(infile, encoding="latin1")[self.meta["key"]]  # noqa: S301
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}

    def __getitem__(self, index: int):
        from PIL import Image  # Pillow is optional: needed for the PIL images CIFAR returns

        return self._transformed(Image.fromarray(self.data[index]), self.targets[index])

    def __len__(self) -> int:
        return len(self.data)

    def _jtorch_fetch_batch(self, indices):
        """The default-collated batch with the transform applied to the stacked uint8 images
        at once when it can (ToTensor/Normalize/Compose of them); NotImplemented otherwise."""
        fn = getattr(self.transform, "_jtorch_batch", None)
        if fn is None or self.target_transform is not None:
            return NotImplemented  # (no transform: PIL images, collated per sample)
        idx = np.asarray(indices, np.int64)
        imgs = fn(self.data[idx])
        if imgs is NotImplemented:
            return NotImplemented
        targets = np.asarray(self.targets, np.int64)[idx]
        return [worker.host_tensor(imgs), worker.host_tensor(targets)]

    def _check_integrity(self) -> bool:
        return all(os.path.isfile(os.path.join(self.root, self.base_folder, name))
                   for name, _ in self.train_list + self.test_list)

    def download(self) -> None:
        """Downloads the archive into ``root`` and extracts it (skipped when present)."""
        if self._check_integrity():
            return
        os.makedirs(self.root, exist_ok=True)
        archive = os.path.join(self.root, self.filename)
        try:
            _urlretrieve(self.url, archive)
        except (urllib.error.URLError, OSError) as e:
            raise RuntimeError(f"Error downloading {self.url} ({e}). {self._where()}.") from e
        with tarfile.open(archive, "r:gz") as tar:
            tar.extractall(self.root, filter="data")

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train is True else 'Test'}"


class CIFAR100(CIFAR10):
    """CIFAR-100 (fine labels); as ``CIFAR10``."""

    base_folder = "cifar-100-python"
    url = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
    filename = "cifar-100-python.tar.gz"
    tgz_md5 = "eb9058c3a382ffc7106e4002c42a8d85"
    train_list = [["train", "16019d7e3df5f24257cddd939b257f8d"]]
    test_list = [["test", "f0ef6b0ae62326f3e7ffdfab6717acfc"]]
    meta = {"filename": "meta", "key": "fine_label_names",
            "md5": "7973b15100ade9c7d40fb424638fde48"}
