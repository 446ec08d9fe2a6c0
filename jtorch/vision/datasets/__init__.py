"""``torchvision.datasets``: MNIST, FashionMNIST, KMNIST, CIFAR10, CIFAR100, ImageFolder,
DatasetFolder, FakeData and the ``VisionDataset`` base (see docs/vision.md)."""

from ..._core.errors import missing_names
from . import utils as utils  # torchvision.datasets.utils, also read as an attribute
from .cifar import CIFAR10 as CIFAR10, CIFAR100 as CIFAR100
from .fakedata import FakeData as FakeData
from .folder import DatasetFolder as DatasetFolder, ImageFolder as ImageFolder
from .mnist import KMNIST as KMNIST, MNIST as MNIST, FashionMNIST as FashionMNIST
from .vision import StandardTransform as StandardTransform, VisionDataset as VisionDataset

__all__ = ["CIFAR10", "CIFAR100", "DatasetFolder", "FakeData", "FashionMNIST", "ImageFolder",
           "KMNIST", "MNIST", "StandardTransform", "VisionDataset"]

# torchvision 0.28's other data sets (its __all__)
_NOT_IMPLEMENTED = (
    "CLEVRClassification", "Caltech101", "Caltech256", "CelebA", "Cityscapes", "CocoCaptions",
    "CocoDetection", "Country211", "DTD", "EMNIST", "EuroSAT", "FER2013", "FGVCAircraft",
    "Flickr30k", "Flickr8k", "Flowers102", "FlyingChairs", "FlyingThings3D", "Food101",
    "GTSRB", "HD1K", "HMDB51", "INaturalist", "ImageNet", "Imagenette", "KittiFlow", "Kinetics",
    "Kitti", "LFWPairs", "LFWPeople", "LSUN", "LSUNClass", "MovingMNIST", "Omniglot",
    "OxfordIIITPet", "PCAM", "PhotoTour", "Places365", "QMNIST", "RenderedSST2", "SBDataset",
    "SBU", "SEMEION", "STL10", "SUN397", "SVHN", "Sintel", "StanfordCars", "UCF101", "USPS",
    "VOCDetection", "VOCSegmentation", "WIDERFace", "wrap_dataset_for_transforms_v2",
    "CREStereo", "CarlaStereo", "ETH3DStereo", "FallingThingsStereo", "InStereo2k",
    "Kitti2012Stereo", "Kitti2015Stereo", "Middlebury2014Stereo", "SceneFlowStereo",
    "SintelStereo")
__getattr__ = missing_names("torchvision.datasets", _NOT_IMPLEMENTED)
