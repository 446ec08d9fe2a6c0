"""``GeneralizedRCNN``: transform, backbone, RPN and RoI heads chained (torchvision's
``models/detection/generalized_rcnn.py``)."""

from __future__ import annotations

from collections import OrderedDict

from jtorch import nn

from ...._ops.compare import where
from ...._ops.typeinfo import _assert
from ...._tensor import Tensor


class GeneralizedRCNN(nn.Module):
    """The R-CNN framework: ``transform`` batches the images (and targets), ``backbone``
    computes the features, ``rpn`` proposes boxes and ``roi_heads`` turns them into
    detections.

    Args:
        backbone, rpn, roi_heads, transform (nn.Module)

    Returns (``forward(images, targets=None)``): in training the dict of losses (the targets,
    a list of dicts with ``boxes`` ``(N, 4)`` xyxy and ``labels``, are required); in eval a list
    with a dict per image: ``boxes``, ``labels``, ``scores`` (and ``masks`` or ``keypoints``
    and ``keypoints_scores``), in the input images' coordinates.
    """

    def __init__(self, backbone, rpn, roi_heads, transform) -> None:
        super().__init__()
        self.transform = transform
        self.backbone = backbone
        self.rpn = rpn
        self.roi_heads = roi_heads
        self._has_warned = False

    def eager_outputs(self, losses, detections):
        return losses if self.training else detections

    @staticmethod
    def _check_boxes(targets):
        if targets is None:
            _assert(False, "targets should not be none when in training mode")
        for target in targets:
            boxes = target["boxes"]
            if isinstance(boxes, Tensor):
                _assert(len(boxes.shape) == 2 and boxes.shape[-1] == 4,
                               "Expected target boxes to be a tensor of shape [N, 4], got "
                               f"{boxes.shape}.")
            else:
                _assert(False, "Expected target boxes to be of type Tensor, got "
                                      f"{type(boxes)}.")

    @staticmethod
    def _check_degenerate(targets):
        for target_idx, target in enumerate(targets):
            boxes = target["boxes"]
            degenerate = boxes[:, 2:] <= boxes[:, :2]
            if degenerate.any():
                bb_idx = where(degenerate.any(dim=1))[0][0]
                _assert(False, "All bounding boxes should have positive height and width."
                                      f" Found invalid box {boxes[bb_idx].tolist()} for target at "
                                      f"index {target_idx}.")

    def forward(self, images, targets=None):
        if self.training:
            self._check_boxes(targets)
        original_image_sizes = []
        for img in images:
            val = img.shape[-2:]
            _assert(len(val) == 2, "expecting the last two dimensions of the Tensor to be "
                                          f"H and W instead got {img.shape[-2:]}")
            original_image_sizes.append((val[0], val[1]))
        images, targets = self.transform(images, targets)
        if targets is not None:
            self._check_degenerate(targets)
        features = self.backbone(images.tensors)
        if isinstance(features, Tensor):
            features = OrderedDict([("0", features)])
        proposals, proposal_losses = self.rpn(images, features, targets)
        detections, detector_losses = self.roi_heads(features, proposals, images.image_sizes,
                                                     targets)
        detections = self.transform.postprocess(detections, images.image_sizes,
                                                original_image_sizes)
        losses = {**detector_losses, **proposal_losses}
        return self.eager_outputs(losses, detections)
