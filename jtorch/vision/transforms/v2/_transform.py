"""torchvision.transforms.v2's calling convention on top of the v1 transforms: a v2 transform
takes any structure (``img``, ``(img, label)``, dicts...) and transforms its images, passing
everything else through.

Differences from torchvision: jtorch has no ``tv_tensors`` (bounding boxes, masks, videos);
images are PIL images, tensors, and jtorch's NumPy images. As in v2, when the structure holds no
PIL image, only its first plain tensor is transformed. Each image leaf draws its own random
parameters (v2 uses one draw for all the leaves of a call).
"""

from __future__ import annotations

import numpy as np

from jtorch import nn
from jtorch._tensor import Tensor

from ..functional import _is_pil_image


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
    """Base of the v2 transforms: ``_transform_image`` is applied to each image leaf."""

    _impl = None  # the v1 transform doing the work on one image, when there is one
    _all_leaves = False  # transform every leaf (Lambda, ToDtype with a dict...)

    def _transform_image(self, img):
        return self._impl(img)

    def forward(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        leaves = _leaves(sample, [])
        has_pil = any(_is_pil_image(v) for v in leaves)
        first_tensor = True
        out = []
        for v in leaves:
            is_img = _is_pil_image(v) or isinstance(v, np.ndarray) and v.ndim in (2, 3)
            if isinstance(v, Tensor) and not has_pil and first_tensor:
                is_img, first_tensor = True, False
            out.append(self._transform_image(v) if is_img or self._all_leaves else v)
        return _rebuild(sample, iter(out))

    def __repr__(self):
        return repr(self._impl) if self._impl is not None else f"{type(self).__name__}()"


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
