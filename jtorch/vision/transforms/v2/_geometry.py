"""v2's own geometric transforms of detection and segmentation recipes: ``RandomZoomOut``
(SSD's padding), ``ScaleJitter`` (large scale jitter), ``RandomShortestSize`` and
``RandomResize``; one random draw per call from jtorch's generator. ``interpolation`` may be
an ``InterpolationMode``, its string value (``"bilinear"``) or a Pillow constant, as in v2.

Differences from torchvision: ``fill`` is a number or one value per channel (a dict keyed by
``tv_tensors`` types is taken as v2 does, its ``"others"`` entry or the image's type).
"""

from __future__ import annotations

import numbers

from .. import _random
from .._augment import _check_sequence_input
from . import functional as F
from ._transform import Transform, _RandomApplyTransform, query_size


def _setup_fill(fill):
    if isinstance(fill, dict):
        return {k: _setup_fill(v)["others"] for k, v in fill.items()}
    if fill is not None and not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg, only Numbers, tuples, lists and dicts are "
                        "allowed.")
    if fill is not None and not isinstance(fill, (int, float)):
        fill = [float(v) for v in fill]
    return {"others": fill}


class RandomZoomOut(_RandomApplyTransform):
    """Zooms out with probability ``p`` (`SSD <https://arxiv.org/abs/1512.02325>`_): the image
    is placed at a random spot of a ``fill`` canvas ``r`` times its size, ``r`` uniform in
    ``side_range``.

    Args:
        fill (number or sequence): the canvas value(s). Default 0
        side_range ((min, max)): the scale range, ``1 <= min <= max``. Default ``(1.0, 4.0)``
        p (float): the probability. Default 0.5
    """

    def __init__(self, fill=0, side_range=(1.0, 4.0), p: float = 0.5):
        super().__init__(p=p)
        self.fill = fill
        self._fill = _setup_fill(fill)
        _check_sequence_input(side_range, "side_range", req_sizes=(2,))
        self.side_range = side_range
        if side_range[0] < 1.0 or side_range[0] > side_range[1]:
            raise ValueError(f"Invalid side range provided {side_range}.")

    def make_params(self, flat_inputs):
        orig_h, orig_w = query_size(flat_inputs)
        r = _random.uniform(self.side_range[0], self.side_range[1])
        canvas_w, canvas_h = int(orig_w * r), int(orig_h * r)
        r_x, r_y = _random.uniform(), _random.uniform()
        left, top = int((canvas_w - orig_w) * r_x), int((canvas_h - orig_h) * r_y)
        return {"padding": [left, top, canvas_w - (left + orig_w), canvas_h - (top + orig_h)]}

    def transform(self, inpt, params):
        fill = self._fill.get(type(inpt), self._fill.get("others"))
        return F.pad(inpt, params["padding"], fill=fill)


class _RandomResizeBase(Transform):
    """A resize to the size ``make_params`` draws (``interpolation``, ``antialias``)."""

    def transform(self, inpt, params):
        return F.resize(inpt, params["size"], interpolation=self.interpolation,
                        antialias=self.antialias)


class ScaleJitter(_RandomResizeBase):
    """Large scale jitter (`Copy-Paste <https://arxiv.org/abs/2012.07177>`_): resizes by
    ``min(target_h / h, target_w / w)`` times a scale uniform in ``scale_range``.

    Args:
        target_size ((height, width)): the base size
        scale_range ((min, max)): Default ``(0.1, 2.0)``
        interpolation: Default ``"bilinear"``
        antialias (bool): Default True
    """

    def __init__(self, target_size, scale_range=(0.1, 2.0), interpolation="bilinear",
                 antialias=True):
        super().__init__()
        self.target_size = target_size
        self.scale_range = scale_range
        self.interpolation = interpolation
        self.antialias = antialias

    def make_params(self, flat_inputs):
        orig_h, orig_w = query_size(flat_inputs)
        scale = _random.uniform(self.scale_range[0], self.scale_range[1])
        r = min(self.target_size[1] / orig_h, self.target_size[0] / orig_w) * scale
        return {"size": (int(orig_h * r), int(orig_w * r))}


class RandomShortestSize(_RandomResizeBase):
    """Resizes the shorter edge to one of ``min_size`` (drawn uniformly), the longer edge
    bounded by ``max_size``.

    Args:
        min_size (int or sequence of int): the candidate sizes
        max_size (int, optional): the longer edge's bound
        interpolation: Default ``"bilinear"``
        antialias (bool): Default True
    """

    def __init__(self, min_size, max_size=None, interpolation="bilinear", antialias=True):
        super().__init__()
        self.min_size = [min_size] if isinstance(min_size, int) else list(min_size)
        self.max_size = max_size
        self.interpolation = interpolation
        self.antialias = antialias

    def make_params(self, flat_inputs):
        orig_h, orig_w = query_size(flat_inputs)
        min_size = self.min_size[_random.randint(0, len(self.min_size))]
        r = min_size / min(orig_h, orig_w)
        if self.max_size is not None:
            r = min(r, self.max_size / max(orig_h, orig_w))
        return {"size": (int(orig_h * r), int(orig_w * r))}


class RandomResize(_RandomResizeBase):
    """Resizes the shorter edge to a size drawn uniformly from ``[min_size, max_size)``.

    Args:
        min_size, max_size (int): the size range
        interpolation: Default ``"bilinear"``
        antialias (bool): Default True
    """

    def __init__(self, min_size: int, max_size: int, interpolation="bilinear",
                 antialias=True):
        super().__init__()
        self.min_size = min_size
        self.max_size = max_size
        self.interpolation = interpolation
        self.antialias = antialias

    def make_params(self, flat_inputs):
        return {"size": [_random.randint(self.min_size, self.max_size)]}
