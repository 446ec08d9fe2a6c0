"""v2's batch augmentations ``MixUp`` and ``CutMix`` (images ``(N, C, H, W)`` with labels
``(N,)`` or ``(N, num_classes)``; each sample mixed with the previous one of the batch) and
``JPEG`` (an encode/decode round trip at a random quality).

Differences from torchvision: the Beta draw, the box center and the quality come from jtorch's
generator (``transforms._random``), not torch's: same distributions, other values.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ...._ops.creation import from_numpy
from ...._tensor import Tensor
from ....nn import functional as F_nn
from .. import _random
from .._augment import _check_sequence_input
from ..functional import _is_pil_image
from . import functional as F
from ._transform import Transform, _leaves, _rebuild, query_size


def _default_labels(inputs):
    """torchvision's heuristic: the second item of a tuple/list (a tensor, or a dict holding
    the labels), or a dict's ``labels`` key (else the first key containing ``label``)."""
    if isinstance(inputs, (tuple, list)):
        inputs = inputs[1]
    if isinstance(inputs, Tensor):
        return inputs
    if not isinstance(inputs, Mapping):
        raise ValueError(f"When using the default labels_getter, the input passed to forward "
                         f"must be a dictionary or a two-tuple whose second item is a dictionary"
                         f" or a tensor, but got {inputs} instead.")
    keys = [k for k in inputs if k.lower() == "labels"] or \
        [k for k in inputs if "label" in k.lower()]
    if not keys:
        raise ValueError("Could not infer where the labels are in the sample. Try passing a "
                         "callable as the labels_getter parameter?If there are no labels in "
                         "the sample by design, pass labels_getter=None.")
    return inputs[keys[0]]


def _parse_labels_getter(labels_getter):
    if isinstance(labels_getter, str) and labels_getter == "default":
        return _default_labels
    if callable(labels_getter):
        return labels_getter
    if labels_getter is None:
        return lambda _: None
    raise ValueError(f"labels_getter should either be 'default', a callable, or None, but got "
                     f"{labels_getter}.")


class _BaseMixUpCutMix(Transform):
    def __init__(self, *, alpha: float = 1.0, num_classes=None, labels_getter="default"):
        super().__init__()
        self.alpha = float(alpha)
        if not self.alpha > 0:  # torch.distributions.Beta's argument check
            bad = repr(from_numpy(np.full((1, 2), self.alpha, np.float32)))
            raise ValueError("Expected parameter concentration (Tensor of shape (1, 2)) of "
                             "distribution Dirichlet(concentration: torch.Size([1, 2])) to "
                             "satisfy the constraint IndependentConstraint(GreaterThan("
                             f"lower_bound=0.0), 1), but found invalid values:\n{bad}")
        self.num_classes = num_classes
        self._labels_getter = _parse_labels_getter(labels_getter)

    def forward(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        leaves = _leaves(sample, [])
        if any(_is_pil_image(v) for v in leaves):
            raise ValueError(f"{type(self).__name__}() does not support PIL images, bounding "
                             "boxes, keypoints and masks.")
        labels = self._labels_getter(sample)
        if not isinstance(labels, Tensor):
            raise ValueError(f"The labels must be a tensor, but got {type(labels)} instead.")
        if labels.ndim not in (1, 2):
            raise ValueError(f"labels should be index based with shape (batch_size,) or "
                             f"probability based with shape (batch_size, num_classes), but got a"
                             f" tensor of shape {labels.shape} instead.")
        if labels.ndim == 2 and self.num_classes is not None \
                and labels.shape[-1] != self.num_classes:
            raise ValueError(f"When passing 2D labels, the number of elements in last dimension"
                             f" must match num_classes: {labels.shape[-1]} != "
                             f"{self.num_classes}. You can Leave num_classes to None.")
        if labels.ndim == 1 and self.num_classes is None:
            raise ValueError("num_classes must be passed if the labels are index-based (1D)")
        needs = self._needs_transform_list(leaves)
        params = {"labels": labels, "batch_size": labels.shape[0],
                  **self.make_params([v for v, n in zip(leaves, needs) if n])}
        needs[next(i for i, v in enumerate(leaves) if v is labels)] = True
        out = [self.transform(v, params) if n else v for v, n in zip(leaves, needs)]
        return _rebuild(sample, iter(out))

    @staticmethod
    def _check_image(inpt, batch_size):
        if inpt.ndim != 4:
            raise ValueError(f"Expected a batched input with 4 dims, but got {inpt.ndim} "
                             "dimensions instead.")
        if inpt.shape[0] != batch_size:
            raise ValueError(f"The batch size of the image or video does not match the batch "
                             f"size of the labels: {inpt.shape[0]} != {batch_size}.")

    def _lam(self):
        # torchvision's lam is a float32 sample of torch's Beta: rounded to float32 likewise
        return float(np.float32(_random.beta(self.alpha, self.alpha)))

    def _mixup_label(self, label, lam):
        if label.ndim == 1:
            label = F_nn.one_hot(label, num_classes=self.num_classes)
        if not label.dtype.is_floating_point:
            label = label.float()
        return label.roll(1, 0).mul_(1.0 - lam).add_(label.mul(lam))


class MixUp(_BaseMixUpCutMix):
    """MixUp (`mixup: Beyond Empirical Risk Minimization <https://arxiv.org/abs/1710.09412>`_)
    on a batch: ``lam * x + (1 - lam) * x.roll(1, 0)`` for the images and the one-hot labels,
    ``lam ~ Beta(alpha, alpha)``.

    Args:
        alpha (float): the Beta distribution's parameter. Default 1
        num_classes (int, optional): for one-hot encoding index labels (``None`` only with
            ``(N, num_classes)`` labels)
        labels_getter (callable or "default"): finds the labels in the input (default: the
            second item, as in ``MixUp(num_classes=10)(images, labels)``)
    """

    def make_params(self, flat_inputs):
        return {"lam": self._lam()}

    def transform(self, inpt, params):
        lam = params["lam"]
        if inpt is params["labels"]:
            return self._mixup_label(inpt, lam)
        if not isinstance(inpt, Tensor):
            return inpt
        self._check_image(inpt, params["batch_size"])
        return inpt.roll(1, 0).mul_(1.0 - lam).add_(inpt.mul(lam))


class CutMix(_BaseMixUpCutMix):
    """CutMix (`CutMix <https://arxiv.org/abs/1905.04899>`_) on a batch: a box of area about
    ``(1 - lam) H W`` (``lam ~ Beta(alpha, alpha)``, uniform center, clipped to the image) is
    pasted from the previous sample; labels mixed with the box's exact area ratio.

    Args: as :class:`MixUp`.
    """

    def make_params(self, flat_inputs):
        lam = self._lam()
        H, W = query_size(flat_inputs)
        r_x, r_y = _random.randint(0, W), _random.randint(0, H)
        r = 0.5 * math.sqrt(1.0 - lam)
        r_w_half, r_h_half = int(r * W), int(r * H)
        x1, y1 = max(r_x - r_w_half, 0), max(r_y - r_h_half, 0)
        x2, y2 = min(r_x + r_w_half, W), min(r_y + r_h_half, H)
        return {"box": (x1, y1, x2, y2),
                "lam_adjusted": float(1.0 - (x2 - x1) * (y2 - y1) / (W * H))}

    def transform(self, inpt, params):
        if inpt is params["labels"]:
            return self._mixup_label(inpt, params["lam_adjusted"])
        if not isinstance(inpt, Tensor):
            return inpt
        self._check_image(inpt, params["batch_size"])
        x1, y1, x2, y2 = params["box"]
        out = inpt.clone()
        out[..., y1:y2, x1:x2] = inpt.roll(1, 0)[..., y1:y2, x1:x2]
        return out


class JPEG(Transform):
    """JPEG-compresses and decompresses images at a quality drawn from ``quality``.

    Args:
        quality (int or (min, max)): 1 to 100 (a range: drawn inclusive of both ends)
    """

    def __init__(self, quality):
        super().__init__()
        if isinstance(quality, int):
            if isinstance(quality, bool):
                raise TypeError("quality can't be bool")
            quality = [quality, quality]
        else:
            _check_sequence_input(quality, "quality", req_sizes=(2,))
        if not (1 <= quality[0] <= quality[1] <= 100 and isinstance(quality[0], int)
                and isinstance(quality[1], int)):
            raise ValueError(f"quality must be an integer from 1 to 100, got {quality =}")
        self.quality = quality

    def make_params(self, flat_inputs):
        return {"quality": _random.randint(self.quality[0], self.quality[1] + 1)}

    def transform(self, inpt, params):
        return F.jpeg(inpt, quality=params["quality"])
