"""``torchvision.ops.nms`` and ``batched_nms``: greedy non-maximum suppression, eager only.

The suppression runs on the device as one XLA program (``_keep``): the boxes sorted by
decreasing score (stable: ties keep their order), their pairwise IoU computed as torchvision's
CPU kernel computes it (``inter / (area_i + area_j - inter)``, in the boxes' dtype), and a loop
that keeps a box unless a kept box before it overlaps it by more than ``iou_threshold``. Only
the number of boxes kept depends on the values, so the result's length is read on the host:
inside jtorch.compile or a JAX transformation nms raises (its output has no static shape).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..._core import xla_options
from ..._core.errors import concretization_error
from ..._tensor import Tensor


def _suppression(boxes, scores, iou_threshold):
    order = jnp.argsort(scores, descending=True, stable=True)
    b = boxes[order]
    x1, y1, x2, y2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    area = (x2 - x1) * (y2 - y1)
    w = jnp.maximum(jnp.minimum(x2[:, None], x2[None]) - jnp.maximum(x1[:, None], x1[None]), 0)
    h = jnp.maximum(jnp.minimum(y2[:, None], y2[None]) - jnp.maximum(y1[:, None], y1[None]), 0)
    inter = w * h
    # compared in double precision, as the C++ kernel compares its float with a double
    over = (inter / (area[:, None] + area[None] - inter)).astype(jnp.float64) > iou_threshold
    n = b.shape[0]
    later = jnp.arange(n)[None] > jnp.arange(n)[:, None]
    suppresses = over & later

    def step(i, suppressed):
        return suppressed | (suppresses[i] & ~suppressed[i])

    suppressed = jax.lax.fori_loop(0, n, step, jnp.zeros(n, bool))
    return order, ~suppressed


_KEEP = []   # the jitted _suppression, made on first use (importing starts no backend)


def _keep(boxes, scores, iou_threshold):
    if not _KEEP:
        _KEEP.append(xla_options.jit(_suppression, kernel=True))
    return _KEEP[0](boxes, scores, iou_threshold)


def _check(boxes, scores):
    if boxes.dim() != 2:
        raise RuntimeError(f"boxes should be a 2d tensor, got {boxes.dim()}D")
    if boxes.shape[1] != 4:
        raise RuntimeError(f"boxes should have 4 elements in dimension 1, got {boxes.shape[1]}")
    if scores.dim() != 1:
        raise RuntimeError(f"scores should be a 1d tensor, got {scores.dim()}D")
    if boxes.shape[0] != scores.shape[0]:
        raise RuntimeError("boxes and scores should have same number of elements in dimension "
                           f"0, got {boxes.shape[0]} and {scores.shape[0]}")
    if boxes.dtype != scores.dtype:
        raise RuntimeError("dets should have the same type as scores")
    if not boxes.is_floating_point():
        raise RuntimeError(f'"nms_kernel" not implemented for '
                           f"'{boxes.dtype.scalar_name}'")


def nms(boxes, scores, iou_threshold):
    """Indices (int64) of the boxes (xyxy, ``(N, 4)``) that greedy non-maximum suppression
    keeps, in decreasing order of ``scores``: a box is dropped when a higher-scoring kept box
    overlaps it with an IoU above ``iou_threshold``."""
    _check(boxes, scores)
    if isinstance(boxes._value, jax.core.Tracer) or isinstance(scores._value, jax.core.Tracer):
        raise concretization_error("torchvision.ops.nms (how many boxes it keeps depends on "
                                   "their values)")
    if boxes.shape[0] == 0:
        return Tensor._make(jnp.zeros(0, jnp.int64), boxes._device)
    order, keep = _keep(boxes.detach()._value, scores.detach()._value,
                        np.float64(iou_threshold))
    kept = np.asarray(order)[np.asarray(keep)]
    return Tensor._make(jnp.asarray(kept, jnp.int64), boxes._device)


def batched_nms(boxes, scores, idxs, iou_threshold):
    """:func:`nms` within each category of ``idxs`` (boxes of different categories never
    suppress each other); the kept indices in decreasing order of score. As torchvision's, up
    to 4000 coordinates on the CPU offset each category's boxes apart and run one nms, more run
    one nms per category."""
    if boxes.numel() > (4000 if boxes.device.type == "cpu" else 100_000):
        keep = np.zeros(scores.shape[0], bool)
        ids = idxs.detach().cpu().numpy()
        for c in np.unique(ids):
            where = np.nonzero(ids == c)[0]
            pick = nms(boxes[where], scores[where], iou_threshold).numpy()
            keep[where[pick]] = True
        kept = np.nonzero(keep)[0]
        by_score = scores.detach()[kept].sort(descending=True)[1].numpy()
        return Tensor._make(jnp.asarray(kept[by_score], jnp.int64), boxes._device)
    if boxes.numel() == 0:
        return Tensor._make(jnp.zeros(0, jnp.int64), boxes._device)
    offsets = idxs.to(boxes) * (boxes.max() + 1)
    return nms(boxes + offsets[:, None], scores, iou_threshold)
