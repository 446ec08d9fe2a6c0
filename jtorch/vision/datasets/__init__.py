"""``torchvision.datasets``: MNIST, FashionMNIST, KMNIST, CIFAR10, CIFAR100, ImageFolder,
DatasetFolder, FakeData and the ``VisionDataset`` base (see docs/vision.md)."""

from .cifar import CIFAR10 as CIFAR10, CIFAR100 as CIFAR100
from .fakedata import FakeData as FakeData
from .folder import DatasetFolder as DatasetFolder, ImageFolder as ImageFolder
from .mnist import KMNIST as KMNIST, MNIST as MNIST, FashionMNIST as FashionMNIST
from .vision import StandardTransform as StandardTransform, VisionDataset as VisionDataset

__all__ = ["CIFAR10", "CIFAR100", "DatasetFolder", "FakeData", "FashionMNIST", "ImageFolder",
           "KMNIST", "MNIST", "StandardTransform", "VisionDataset"]
