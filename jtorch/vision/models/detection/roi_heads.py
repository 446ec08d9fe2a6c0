"""The second stage of the R-CNN models (torchvision's ``models/detection/roi_heads.py``):
``RoIHeads`` pools the proposals' features, classifies and regresses them (box branch), and,
where present, predicts masks (Mask R-CNN) and keypoints (Keypoint R-CNN); the losses and
post-processing functions of the three branches are module functions, as in torchvision."""

from __future__ import annotations

from jtorch import nn
from jtorch.nn import functional as F

from ...._core.dtypes import float16, float32, float64, int64, uint8
from ...._ops.compare import where
from ...._ops.creation import ones_like, tensor, zeros
from ...._ops.creation_math import arange
from ...._ops.pointwise import div
from ...._ops.shape_copy import cat, stack
from ...ops import boxes as box_ops, roi_align
from . import _utils as det_utils


def fastrcnn_loss(class_logits, box_regression, labels, regression_targets):
    """Cross-entropy of the sampled proposals' classes and smooth L1 (beta 1/9, summed,
    divided by the number of samples) of the positives' deltas for their class."""
    labels = cat(labels, dim=0)
    regression_targets = cat(regression_targets, dim=0)
    classification_loss = F.cross_entropy(class_logits, labels)
    pos = where(labels > 0)[0]
    labels_pos = labels[pos]
    N = class_logits.shape[0]
    box_regression = box_regression.reshape(N, box_regression.size(-1) // 4, 4)
    box_loss = F.smooth_l1_loss(box_regression[pos, labels_pos], regression_targets[pos],
                                beta=1 / 9, reduction="sum")
    return classification_loss, box_loss / labels.numel()


def maskrcnn_inference(x, labels):
    """The sigmoid of each mask logit map for its predicted class, ``(n, 1, M, M)`` per
    image."""
    mask_prob = x.sigmoid()
    boxes_per_image = [label.shape[0] for label in labels]
    labels = cat(labels)
    index = arange(x.shape[0], device=labels.device)
    return mask_prob[index, labels][:, None].split(boxes_per_image, dim=0)


def project_masks_on_boxes(gt_masks, boxes, matched_idxs, M):
    """The ground-truth masks ``matched_idxs`` cropped to ``boxes`` and resized to ``M x M``
    (``roi_align``): the mask targets."""
    matched_idxs = matched_idxs.to(boxes)
    rois = cat([matched_idxs[:, None], boxes], dim=1)
    gt_masks = gt_masks[:, None].to(rois)
    return roi_align(gt_masks, rois, (M, M), 1.0)[:, 0]


def maskrcnn_loss(mask_logits, proposals, gt_masks, gt_labels, mask_matched_idxs):
    """Binary cross-entropy of the positive proposals' mask logits (of their ground-truth
    class) against the projected ground-truth masks."""
    size = mask_logits.shape[-1]
    labels = [gt_label[idxs] for gt_label, idxs in zip(gt_labels, mask_matched_idxs)]
    mask_targets = [project_masks_on_boxes(m, p, i, size)
                    for m, p, i in zip(gt_masks, proposals, mask_matched_idxs)]
    labels = cat(labels, dim=0)
    mask_targets = cat(mask_targets, dim=0)
    if mask_targets.numel() == 0:
        return mask_logits.sum() * 0
    return F.binary_cross_entropy_with_logits(
        mask_logits[arange(labels.shape[0], device=labels.device), labels], mask_targets)


def keypoints_to_heatmap(keypoints, rois, heatmap_size):
    """Each keypoint's flat index in a ``heatmap_size``-square grid over its roi, and whether
    it is visible and inside the roi."""
    offset_x, offset_y = rois[:, 0][:, None], rois[:, 1][:, None]
    scale_x = (heatmap_size / (rois[:, 2] - rois[:, 0]))[:, None]
    scale_y = (heatmap_size / (rois[:, 3] - rois[:, 1]))[:, None]
    x, y = keypoints[..., 0], keypoints[..., 1]
    x_boundary = x == rois[:, 2][:, None]
    y_boundary = y == rois[:, 3][:, None]
    x = ((x - offset_x) * scale_x).floor().long()
    y = ((y - offset_y) * scale_y).floor().long()
    x = where(x_boundary, heatmap_size - 1, x)
    y = where(y_boundary, heatmap_size - 1, y)
    valid_loc = (x >= 0) & (y >= 0) & (x < heatmap_size) & (y < heatmap_size)
    valid = (valid_loc & (keypoints[..., 2] > 0)).long()
    return (y * heatmap_size + x) * valid, valid


def heatmaps_to_keypoints(maps, rois):
    """Keypoint locations from heatmaps ``(K, N, H, W)`` over rois ``(K, 4)``: each map
    resized (bicubic) to its roi's ceiled size, its argmax's center in image coordinates.

    Returns ``(K, N, 3)`` keypoints ``(x, y, 1)`` and ``(K, N)`` scores (the resized map at the
    argmax), float32."""
    offset_x, offset_y = rois[:, 0], rois[:, 1]
    widths = (rois[:, 2] - rois[:, 0]).clamp(min=1)
    heights = (rois[:, 3] - rois[:, 1]).clamp(min=1)
    widths_ceil, heights_ceil = widths.ceil(), heights.ceil()
    num_keypoints = maps.shape[1]
    xy_preds, end_scores = [], []
    for i in range(len(rois)):
        roi_map_width = int(widths_ceil[i].item())
        roi_map_height = int(heights_ceil[i].item())
        width_correction = widths[i] / roi_map_width
        height_correction = heights[i] / roi_map_height
        roi_map = F.interpolate(maps[i][:, None], size=(roi_map_height, roi_map_width),
                                mode="bicubic", align_corners=False)[:, 0]
        w = roi_map.shape[2]
        pos = roi_map.reshape(num_keypoints, -1).argmax(dim=1)
        x_int = pos % w
        y_int = div(pos - x_int, w, rounding_mode="floor")
        x = (x_int.float() + 0.5) * width_correction
        y = (y_int.float() + 0.5) * height_correction
        xy_preds.append(stack((x + offset_x[i], y + offset_y[i], ones_like(x)),
                                     dim=1).to(float32))
        end_scores.append(roi_map[arange(num_keypoints, device=roi_map.device), y_int,
                                  x_int].to(float32))
    if not xy_preds:
        return (zeros((0, num_keypoints, 3), dtype=float32, device=maps.device),
                zeros((0, num_keypoints), dtype=float32, device=maps.device))
    return stack(xy_preds), stack(end_scores)


def keypointrcnn_loss(keypoint_logits, proposals, gt_keypoints, keypoint_matched_idxs):
    """Cross-entropy of each visible ground-truth keypoint's heatmap cell against the
    flattened keypoint logits of its positive proposal."""
    N, K, H, W = keypoint_logits.shape
    if H != W:
        raise ValueError("keypoint_logits height and width (last two elements of shape) should "
                         f"be equal. Instead got H = {H} and W = {W}")
    heatmaps, valid = [], []
    for props, gt_kp, midx in zip(proposals, gt_keypoints, keypoint_matched_idxs):
        heatmaps_per_image, valid_per_image = keypoints_to_heatmap(gt_kp[midx], props, H)
        heatmaps.append(heatmaps_per_image.view(-1))
        valid.append(valid_per_image.view(-1))
    keypoint_targets = cat(heatmaps, dim=0)
    valid = where(cat(valid, dim=0).to(dtype=uint8))[0]
    if keypoint_targets.numel() == 0 or len(valid) == 0:
        return keypoint_logits.sum() * 0
    keypoint_logits = keypoint_logits.view(N * K, H * W)
    return F.cross_entropy(keypoint_logits[valid], keypoint_targets[valid])


def keypointrcnn_inference(x, boxes):
    """``heatmaps_to_keypoints`` per image: the keypoints and their scores."""
    kp_probs, kp_scores = [], []
    for xx, bb in zip(x.split([box.size(0) for box in boxes], dim=0), boxes):
        kp_prob, scores = heatmaps_to_keypoints(xx, bb)
        kp_probs.append(kp_prob)
        kp_scores.append(scores)
    return kp_probs, kp_scores


def expand_boxes(boxes, scale):
    """The boxes scaled by ``scale`` about their centers."""
    w_half = (boxes[:, 2] - boxes[:, 0]) * 0.5 * scale
    h_half = (boxes[:, 3] - boxes[:, 1]) * 0.5 * scale
    x_c = (boxes[:, 2] + boxes[:, 0]) * 0.5
    y_c = (boxes[:, 3] + boxes[:, 1]) * 0.5
    return stack((x_c - w_half, y_c - h_half, x_c + w_half, y_c + h_half), dim=1)


def expand_masks_tracing_scale(M, padding):
    return tensor(M + 2 * padding).to(float32) / tensor(M).to(float32)


def expand_masks(mask, padding):
    """The masks zero-padded by ``padding`` on each side, and the scale that adds."""
    M = mask.shape[-1]
    return F.pad(mask, (padding,) * 4), float(M + 2 * padding) / M


def paste_mask_in_image(mask, box, im_h, im_w):
    """One ``M x M`` mask resized (bilinear) to its integer box and pasted into an
    ``im_h x im_w`` zero image."""
    x0, y0, x1, y1 = (int(v) for v in box.tolist())
    w, h = max(x1 - x0 + 1, 1), max(y1 - y0 + 1, 1)
    mask = F.interpolate(mask.expand((1, 1, -1, -1)), size=(h, w), mode="bilinear",
                         align_corners=False)[0][0]
    im_mask = zeros((im_h, im_w), dtype=mask.dtype, device=mask.device)
    x_0, x_1 = max(x0, 0), min(x1 + 1, im_w)
    y_0, y_1 = max(y0, 0), min(y1 + 1, im_h)
    im_mask[y_0:y_1, x_0:x_1] = mask[(y_0 - y0):(y_1 - y0), (x_0 - x0):(x_1 - x0)]
    return im_mask


def paste_masks_in_image(masks, boxes, img_shape, padding=1):
    """The ``(n, 1, M, M)`` masks pasted into ``(n, 1, H, W)`` images at their boxes (padded
    by ``padding`` first, the boxes widened to match)."""
    masks, scale = expand_masks(masks, padding=padding)
    boxes = expand_boxes(boxes, scale).to(dtype=int64)
    im_h, im_w = img_shape
    res = [paste_mask_in_image(m[0], b, im_h, im_w) for m, b in zip(masks, boxes)]
    if res:
        return stack(res, dim=0)[:, None]
    return masks.new_empty((0, 1, im_h, im_w))


class RoIHeads(nn.Module):
    """The box branch (``box_roi_pool``, ``box_head``, ``box_predictor``) and the optional mask
    and keypoint branches of the R-CNN models. In training it samples the proposals (plus the
    ground-truth boxes) against the targets and returns the losses; in eval it returns, per
    image, the detections above ``score_thresh`` after per-class NMS (``nms_thresh``), at
    most ``detections_per_img``, with masks and keypoints where the branches exist."""

    def __init__(self, box_roi_pool, box_head, box_predictor, fg_iou_thresh, bg_iou_thresh,
                 batch_size_per_image, positive_fraction, bbox_reg_weights, score_thresh,
                 nms_thresh, detections_per_img, mask_roi_pool=None, mask_head=None,
                 mask_predictor=None, keypoint_roi_pool=None, keypoint_head=None,
                 keypoint_predictor=None):
        super().__init__()
        self.box_similarity = box_ops.box_iou
        self.proposal_matcher = det_utils.Matcher(fg_iou_thresh, bg_iou_thresh,
                                                  allow_low_quality_matches=False)
        self.fg_bg_sampler = det_utils.BalancedPositiveNegativeSampler(batch_size_per_image,
                                                                       positive_fraction)
        if bbox_reg_weights is None:
            bbox_reg_weights = (10.0, 10.0, 5.0, 5.0)
        self.box_coder = det_utils.BoxCoder(bbox_reg_weights)
        self.box_roi_pool = box_roi_pool
        self.box_head = box_head
        self.box_predictor = box_predictor
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img
        self.mask_roi_pool = mask_roi_pool
        self.mask_head = mask_head
        self.mask_predictor = mask_predictor
        self.keypoint_roi_pool = keypoint_roi_pool
        self.keypoint_head = keypoint_head
        self.keypoint_predictor = keypoint_predictor

    def has_mask(self):
        return (self.mask_roi_pool is not None and self.mask_head is not None
                and self.mask_predictor is not None)

    def has_keypoint(self):
        return (self.keypoint_roi_pool is not None and self.keypoint_head is not None
                and self.keypoint_predictor is not None)

    def assign_targets_to_proposals(self, proposals, gt_boxes, gt_labels):
        """Per image: each proposal's matched ground-truth index (clamped at 0) and label (0
        background, -1 ignored)."""
        matched_idxs, labels = [], []
        for props, gt_boxes_in_image, gt_labels_in_image in zip(proposals, gt_boxes, gt_labels):
            if gt_boxes_in_image.numel() == 0:
                clamped = zeros((props.shape[0],), dtype=int64,
                                       device=props.device)
                labels_in_image = zeros((props.shape[0],), dtype=int64,
                                               device=props.device)
            else:
                matched = self.proposal_matcher(box_ops.box_iou(gt_boxes_in_image, props))
                clamped = matched.clamp(min=0)
                labels_in_image = gt_labels_in_image[clamped].to(dtype=int64)
                labels_in_image[matched == self.proposal_matcher.BELOW_LOW_THRESHOLD] = 0
                labels_in_image[matched == self.proposal_matcher.BETWEEN_THRESHOLDS] = -1
            matched_idxs.append(clamped)
            labels.append(labels_in_image)
        return matched_idxs, labels

    def subsample(self, labels):
        sampled_pos, sampled_neg = self.fg_bg_sampler(labels)
        return [where(pos | neg)[0] for pos, neg in zip(sampled_pos, sampled_neg)]

    def add_gt_proposals(self, proposals, gt_boxes):
        return [cat((proposal, gt_box)) for proposal, gt_box in zip(proposals, gt_boxes)]

    def check_targets(self, targets):
        if targets is None:
            raise ValueError("targets should not be None")
        if not all("boxes" in t for t in targets):
            raise ValueError("Every element of targets should have a boxes key")
        if not all("labels" in t for t in targets):
            raise ValueError("Every element of targets should have a labels key")
        if self.has_mask() and not all("masks" in t for t in targets):
            raise ValueError("Every element of targets should have a masks key")

    def select_training_samples(self, proposals, targets):
        """The sampled proposals (with the ground truth added), their matched indices, labels
        and regression targets."""
        self.check_targets(targets)
        dtype, device = proposals[0].dtype, proposals[0].device
        gt_boxes = [t["boxes"].to(dtype) for t in targets]
        gt_labels = [t["labels"] for t in targets]
        proposals = self.add_gt_proposals(proposals, gt_boxes)
        matched_idxs, labels = self.assign_targets_to_proposals(proposals, gt_boxes, gt_labels)
        sampled_inds = self.subsample(labels)
        matched_gt_boxes = []
        for img_id, inds in enumerate(sampled_inds):
            proposals[img_id] = proposals[img_id][inds]
            labels[img_id] = labels[img_id][inds]
            matched_idxs[img_id] = matched_idxs[img_id][inds]
            gt = gt_boxes[img_id]
            if gt.numel() == 0:
                gt = zeros((1, 4), dtype=dtype, device=device)
            matched_gt_boxes.append(gt[matched_idxs[img_id]])
        regression_targets = self.box_coder.encode(matched_gt_boxes, proposals)
        return proposals, matched_idxs, labels, regression_targets

    def postprocess_detections(self, class_logits, box_regression, proposals, image_shapes):
        """Per image: the boxes of every non-background class, clipped, scored above
        ``score_thresh``, not tiny, after NMS per class, at most ``detections_per_img``."""
        device = class_logits.device
        num_classes = class_logits.shape[-1]
        boxes_per_image = [p.shape[0] for p in proposals]
        pred_boxes = self.box_coder.decode(box_regression, proposals)
        pred_scores = F.softmax(class_logits, -1)
        all_boxes, all_scores, all_labels = [], [], []
        for boxes, scores, image_shape in zip(pred_boxes.split(boxes_per_image, 0),
                                              pred_scores.split(boxes_per_image, 0),
                                              image_shapes):
            boxes = box_ops.clip_boxes_to_image(boxes, image_shape)
            labels = arange(num_classes, device=device).view(1, -1).expand_as(scores)
            boxes = boxes[:, 1:].reshape(-1, 4)
            scores = scores[:, 1:].reshape(-1)
            labels = labels[:, 1:].reshape(-1)
            inds = where(scores > self.score_thresh)[0]
            boxes, scores, labels = boxes[inds], scores[inds], labels[inds]
            keep = box_ops.remove_small_boxes(boxes, min_size=1e-2)
            boxes, scores, labels = boxes[keep], scores[keep], labels[keep]
            keep = box_ops.batched_nms(boxes, scores, labels, self.nms_thresh)
            keep = keep[: self.detections_per_img]
            all_boxes.append(boxes[keep])
            all_scores.append(scores[keep])
            all_labels.append(labels[keep])
        return all_boxes, all_scores, all_labels

    def _check_target_types(self, targets):
        for t in targets:
            if t["boxes"].dtype not in (float32, float64, float16):
                raise TypeError(f"target boxes must of float type, instead got {t['boxes'].dtype}")
            if t["labels"].dtype != int64:
                raise TypeError("target labels must of int64 type, instead got "
                                f"{t['labels'].dtype}")
            if self.has_keypoint() and t["keypoints"].dtype != float32:
                raise TypeError("target keypoints must of float type, instead got "
                                f"{t['keypoints'].dtype}")

    @staticmethod
    def _positives(proposals, matched_idxs, labels):
        pos = [where(lab > 0)[0] for lab in labels]
        return ([p[i] for p, i in zip(proposals, pos)],
                [m[i] for m, i in zip(matched_idxs, pos)])

    def forward(self, features, proposals, image_shapes, targets=None):
        """Returns the detections (eval; empty in training) and the losses (training)."""
        if targets is not None:
            self._check_target_types(targets)
        if self.training:
            proposals, matched_idxs, labels, regression_targets = \
                self.select_training_samples(proposals, targets)
        box_features = self.box_head(self.box_roi_pool(features, proposals, image_shapes))
        class_logits, box_regression = self.box_predictor(box_features)
        result, losses = [], {}
        if self.training:
            loss_classifier, loss_box_reg = fastrcnn_loss(class_logits, box_regression, labels,
                                                          regression_targets)
            losses = {"loss_classifier": loss_classifier, "loss_box_reg": loss_box_reg}
        else:
            boxes, scores, labels = self.postprocess_detections(class_logits, box_regression,
                                                                proposals, image_shapes)
            result = [{"boxes": b, "labels": lab, "scores": s}
                      for b, s, lab in zip(boxes, scores, labels)]
        if self.has_mask():
            if self.training:
                mask_proposals, pos_matched_idxs = self._positives(proposals, matched_idxs,
                                                                   labels)
            else:
                mask_proposals = [p["boxes"] for p in result]
            mask_features = self.mask_head(self.mask_roi_pool(features, mask_proposals,
                                                              image_shapes))
            mask_logits = self.mask_predictor(mask_features)
            if self.training:
                losses["loss_mask"] = maskrcnn_loss(
                    mask_logits, mask_proposals, [t["masks"] for t in targets],
                    [t["labels"] for t in targets], pos_matched_idxs)
            else:
                masks = maskrcnn_inference(mask_logits, [r["labels"] for r in result])
                for mask_prob, r in zip(masks, result):
                    r["masks"] = mask_prob
        if self.has_keypoint():
            if self.training:
                kp_proposals, pos_matched_idxs = self._positives(proposals, matched_idxs, labels)
            else:
                kp_proposals = [p["boxes"] for p in result]
            kp_features = self.keypoint_head(self.keypoint_roi_pool(features, kp_proposals,
                                                                    image_shapes))
            keypoint_logits = self.keypoint_predictor(kp_features)
            if self.training:
                losses["loss_keypoint"] = keypointrcnn_loss(
                    keypoint_logits, kp_proposals, [t["keypoints"] for t in targets],
                    pos_matched_idxs)
            else:
                kps, kp_scores = keypointrcnn_inference(keypoint_logits, kp_proposals)
                for kp, score, r in zip(kps, kp_scores, result):
                    r["keypoints"] = kp
                    r["keypoints_scores"] = score
        return result, losses
