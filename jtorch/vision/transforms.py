"""torchvision.transforms' basics: ToTensor, Normalize, Compose, Lambda, RandomHorizontalFlip,
RandomCrop.

Per-sample work stays in NumPy: inside DataLoader workers and the default-collate fetch path
(``host mode``), ToTensor and Normalize build NumPy-backed host tensors and the collate moves
each batch to the device in one transfer; elsewhere they return ordinary jtorch tensors.
Random transforms draw from NumPy's global RNG in workers (seeded per worker from the
loader's jtorch generator) and from jtorch's default generator in the main process.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._tensor import Tensor
from ..utils.data import _worker as worker

__all__ = ["Compose", "Lambda", "Normalize", "RandomCrop", "RandomHorizontalFlip", "ToTensor"]


def _out(arr):
    """A finished per-sample array as a tensor: host in host mode, else one transfer."""
    return worker.host_tensor(arr) if worker.host_mode() else worker.to_device(arr)


_HOST_RNG = [None, None]  # (the default generator's key version when seeded, NumPy Generator)


def _rng():
    """NumPy's global RNG in workers (seeded per worker); in the main process a NumPy stream
    seeded from ONE key of jtorch's default generator, re-seeded whenever that generator
    changed (manual_seed, other random ops): reproducible, and no JAX call per sample."""
    if worker.get_worker_info() is not None:
        return np.random
    from .._core.generator import default_generator as g
    from ..utils.data.dataset import _seed_from

    if _HOST_RNG[0] != (id(g._key), g._key._version_counter):
        seed = _seed_from(g)
        _HOST_RNG[:] = [(id(g._key), g._key._version_counter), np.random.default_rng(seed)]
    return _HOST_RNG[1]


def _uniform():
    return float(_rng().random())


def _randint(high):
    r = _rng()
    return int(r.randint(0, high) if r is np.random else r.integers(0, high))


class _Safe:
    """Transforms made of jtorch's NumPy code only: safe in a forked worker."""

    def _jtorch_fork_safe(self):
        return True


class Compose(_Safe):
    """Chains transforms."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def _jtorch_fork_safe(self):
        return all(worker.fork_safe(t) for t in self.transforms)

    def _jtorch_batch(self, arr):
        """The composition applied to a stacked batch at once, or NotImplemented."""
        for t in self.transforms:
            fn = getattr(t, "_jtorch_batch", None)
            if fn is None:
                return NotImplemented
            arr = fn(arr)
            if arr is NotImplemented:
                return NotImplemented
        return arr

    def __repr__(self):
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{self.__class__.__name__}({body}\n)"


def _to_chw(arr, lead):
    """``lead`` leading dims, then H x W (x C) -> C x H x W; uint8 -> default float / 255."""
    if arr.ndim == lead + 2:
        arr = arr[..., None]
    arr = np.moveaxis(arr, -1, -3)
    if arr.dtype == np.uint8:
        from .._core import dtypes

        f = dtypes.get_default_dtype().np
        out = np.empty(arr.shape, f)
        np.true_divide(arr, f.type(255), out=out, dtype=f)
        return out
    return np.ascontiguousarray(arr)


class ToTensor(_Safe):
    """``H x W (x C)`` image (uint8 NumPy array or array-like) -> ``C x H x W`` tensor; uint8
    becomes float32 in [0, 1] (other dtypes keep their values), as torchvision's ToTensor."""

    def __call__(self, pic):
        if isinstance(pic, Tensor) or not (isinstance(pic, np.ndarray)
                                           or hasattr(pic, "__array_interface__")):
            raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
        arr = np.asarray(pic)
        if arr.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {arr.ndim} dimensions.")
        return _out(_to_chw(arr, 0))

    def _jtorch_batch(self, arr):
        return _to_chw(arr, 1) if arr.ndim in (3, 4) else NotImplemented

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class Normalize(_Safe):
    """``(x - mean[c]) / std[c]`` per channel of a float ``(..., C, H, W)`` tensor."""

    def __init__(self, mean, std, inplace=False):
        self.mean = mean
        self.std = std
        self.inplace = inplace
        self._consts = {}

    def _np_consts(self, dt, name):
        key = (dt, id(self.mean), id(self.std))
        c = self._consts.get(key)
        if c is None:
            mean = np.asarray(self.mean, dt)
            std = np.asarray(self.std, dt)
            if (std == 0).any():
                raise ValueError(f"std evaluated to zero after conversion to {name}, "
                                 "leading to division by zero.")
            c = self._consts[key] = (mean.reshape(-1, 1, 1) if mean.ndim == 1 else mean,
                                     std.reshape(-1, 1, 1) if std.ndim == 1 else std)
        return c

    def __call__(self, tensor):
        if not isinstance(tensor, Tensor):
            raise TypeError(f"Input tensor should be a torch tensor. Got {type(tensor)}.")
        if not tensor.is_floating_point():
            raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
        if tensor.ndim < 3:
            raise ValueError("Expected tensor to be a tensor image of size (..., C, H, W). Got "
                             f"tensor.size() = {tensor.size()}")
        mean, std = self._np_consts(tensor.dtype.np, tensor.dtype)
        if worker.is_host(tensor):
            arr = tensor._array
            if self.inplace:
                np.subtract(arr, mean, out=arr)
                np.divide(arr, std, out=arr)
                return tensor
            return worker.host_tensor((arr - mean) / std)
        m, s = worker.to_device(mean), worker.to_device(std)
        if self.inplace:
            return tensor.sub_(m).div_(s)
        return (tensor - m) / s

    def _jtorch_batch(self, arr):
        if arr.dtype.kind != "f" or arr.ndim < 4:
            return NotImplemented
        from .._core import dtypes

        mean, std = self._np_consts(arr.dtype, dtypes.from_np(arr.dtype))
        return (arr - mean) / std

    def __repr__(self):
        return f"{self.__class__.__name__}(mean={self.mean}, std={self.std})"


class Lambda:
    """Applies a user function (runs user code: not assumed fork-safe)."""

    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {type(lambd).__name__!r}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class RandomHorizontalFlip(_Safe):
    """Flips the image left-right with probability ``p``."""

    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img):
        if _uniform() < self.p:
            if isinstance(img, Tensor):
                if worker.is_host(img):
                    return worker.host_tensor(np.ascontiguousarray(img._array[..., ::-1]))
                return img.flip(-1)
            return np.ascontiguousarray(np.asarray(img)[:, ::-1])
        return img

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class RandomCrop(_Safe):
    """Crops a random ``size`` window, after optional constant ``padding``."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        self.size = (int(size), int(size)) if isinstance(size, numbers.Number) else tuple(size)
        if padding_mode != "constant":
            raise NotImplementedError("jtorch does not implement "
                                      f"torchvision RandomCrop(padding_mode={padding_mode!r}) yet")
        self.padding, self.pad_if_needed, self.fill = padding, pad_if_needed, fill
        self.padding_mode = padding_mode

    def __call__(self, img):
        tensor = isinstance(img, Tensor)
        if tensor and not worker.is_host(img):
            arr, back = np.asarray(img._value), worker.to_device
        elif tensor:
            arr, back = img._array, worker.host_tensor
        else:
            arr, back = np.asarray(img), (lambda a: a)
        h_ax = arr.ndim - 2 if tensor else 0
        pads = [(0, 0)] * arr.ndim
        if self.padding is not None:
            p = self.padding
            p = [p] * 4 if isinstance(p, numbers.Number) else list(p) * (4 // len(p))
            pads[h_ax], pads[h_ax + 1] = (p[1], p[3]), (p[0], p[2])
        arr = np.pad(arr, pads, constant_values=self.fill)
        th, tw = self.size
        h, w = arr.shape[h_ax], arr.shape[h_ax + 1]
        if self.pad_if_needed and (h < th or w < tw):
            extra = [(0, 0)] * arr.ndim
            extra[h_ax] = (max(th - h, 0),) * 2
            extra[h_ax + 1] = (max(tw - w, 0),) * 2
            arr = np.pad(arr, extra, constant_values=self.fill)
            h, w = arr.shape[h_ax], arr.shape[h_ax + 1]
        if h < th or w < tw:
            raise ValueError(f"Required crop size {(th, tw)} is larger than input image size "
                             f"{(h, w)}")
        i, j = _randint(h - th + 1), _randint(w - tw + 1)
        sl = [slice(None)] * arr.ndim
        sl[h_ax], sl[h_ax + 1] = slice(i, i + th), slice(j, j + tw)
        return back(np.ascontiguousarray(arr[tuple(sl)]))

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size}, padding={self.padding})"
