"""torchvision.transforms.v2's calling convention on top of the v1 transforms: a v2 transform
takes any structure (``img``, ``(img, label)``, dicts...) and transforms its images, passing
everything else through.

Differences from torchvision: jtorch has no ``tv_tensors`` (bounding boxes, masks, videos);
images are PIL images, tensors, and jtorch's NumPy images. As in v2, when the structure holds no
PIL image, only its first plain tensor is transformed. The transforms written on ``make_params``
draw once per call, as v2; in the v1 transforms wrapped by ``wrap_v1`` each image leaf draws its
own random parameters.
"""

from __future__ import annotations

import enum

import numpy as np

from jtorch import nn
from jtorch._tensor import Tensor

from .. import _random
from ..functional import _is_pil_image, get_dimensions


def _leaves(x, out):
    if isinstance(x, (list, tuple)):
        for v in x:
            _leaves(v, out)
    elif isinstance(x, dict):
        for v in x.values():
            _leaves(v, out)
    else:
        out.append(x)
    return out


def _rebuild(x, it):
    if isinstance(x, (list, tuple)):
        items = [_rebuild(v, it) for v in x]
        return type(x)(*items) if hasattr(x, "_fields") else type(x)(items)
    if isinstance(x, dict):
        return type(x)((k, _rebuild(v, it)) for k, v in x.items())
    return next(it)


class Transform(nn.Module):
    """Base of the v2 transforms, torchvision's for custom transforms: ``make_params`` draws
    once per call from the sample's images, ``transform(inpt, params)`` maps each image (by
    default ``_transform_image``, where the wrapped v1 transforms draw per image)."""

    _impl = None  # the v1 transform doing the work on one image, when there is one
    _all_leaves = False  # transform every leaf (Lambda, ToDtype with a dict...)

    def _transform_image(self, img):
        return self._impl(img)

    def check_inputs(self, flat_inputs):
        pass

    def make_params(self, flat_inputs) -> dict:
        return {}

    def transform(self, inpt, params):
        return self._transform_image(inpt)

    def _needs_transform_list(self, leaves):
        has_pil = any(_is_pil_image(v) for v in leaves)
        first_tensor = True
        out = []
        for v in leaves:
            is_img = _is_pil_image(v) or isinstance(v, np.ndarray) and v.ndim in (2, 3)
            if isinstance(v, Tensor) and not has_pil and first_tensor:
                is_img, first_tensor = True, False
            out.append(is_img or self._all_leaves)
        return out

    def _call(self, sample, leaves, needs):
        params = self.make_params([v for v, n in zip(leaves, needs) if n])
        out = [self.transform(v, params) if n else v for v, n in zip(leaves, needs)]
        return _rebuild(sample, iter(out))

    def forward(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        leaves = _leaves(sample, [])
        self.check_inputs(leaves)
        return self._call(sample, leaves, self._needs_transform_list(leaves))

    def extra_repr(self):
        return ", ".join(f"{k}={v}" for k, v in self.__dict__.items()
                         if not k.startswith("_") and k != "training"
                         and isinstance(v, (bool, int, float, str, tuple, list, enum.Enum)))

    def __repr__(self):
        return repr(self._impl) if self._impl is not None else nn.Module.__repr__(self)


class _RandomApplyTransform(Transform):
    """A transform applied with probability ``p`` (one draw per call, before the params)."""

    def __init__(self, p: float = 0.5):
        if not (0.0 <= p <= 1.0):
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        super().__init__()
        self.p = p

    def forward(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        leaves = _leaves(sample, [])
        self.check_inputs(leaves)
        if _random.uniform() >= self.p:
            return sample
        return self._call(sample, leaves, self._needs_transform_list(leaves))


def _sizes(flat_inputs, get, what):
    found = sorted({tuple(get(v)) for v in flat_inputs
                    if isinstance(v, (Tensor, np.ndarray)) or _is_pil_image(v)})
    if not found:
        raise TypeError(f"No {what} was found in the sample")
    if len(found) > 1:
        dims = "x".join("CHW"[-len(found[0]):])
        listed = ", ".join(f"'{s}'" for s in found)
        raise ValueError(f"Found multiple {dims} dimensions in the sample: {listed}")
    return found[0]


def query_chw(flat_inputs):
    """The ``(C, H, W)`` all the images of the sample share."""
    return _sizes(flat_inputs, get_dimensions, "image or video")


def query_size(flat_inputs):
    """The ``(H, W)`` all the images of the sample share."""
    return _sizes(flat_inputs, lambda v: get_dimensions(v)[1:],
                  "image, video, mask, bounding box of keypoint")


def wrap_v1(v1_cls, name):
    """A v2 class with ``v1_cls``'s constructor arguments, static ``get_params`` and repr."""

    def __init__(self, *args, **kwargs):
        Transform.__init__(self)
        object.__setattr__(self, "_impl", v1_cls(*args, **kwargs))  # not a submodule

    def __getattr__(self, attr):  # the v1 transform's settings (size, p, ...)
        v1 = self.__dict__.get("_impl")
        if v1 is not None and not attr.startswith("__"):
            return getattr(v1, attr)
        return nn.Module.__getattr__(self, attr)

    ns = {"__init__": __init__, "__getattr__": __getattr__, "__module__": __name__.rsplit(
        ".", 1)[0], "__doc__": f"v2 ``{name}``: {(v1_cls.__doc__ or '').splitlines()[0]}"}
    if hasattr(v1_cls, "get_params"):
        ns["get_params"] = staticmethod(v1_cls.get_params)
    return type(name, (Transform,), ns)
