"""``GeneralizedRCNNTransform``: normalizes, resizes and batches the input images (and
resizes the targets) of the R-CNN models, and maps their detections back to the input sizes
(torchvision's ``models/detection/transform.py``)."""

from __future__ import annotations

import math

from jtorch import nn
from jtorch.nn import functional as F

from ...._core.dtypes import float32
from ...._ops.creation import as_tensor, empty, tensor
from ...._ops.shape_copy import stack
from .image_list import ImageList
from .roi_heads import paste_masks_in_image


def _resize_image_and_masks(image, self_min_size, self_max_size, target=None, fixed_size=None):
    size = scale_factor = recompute_scale_factor = None
    if fixed_size is not None:
        size = [fixed_size[1], fixed_size[0]]
    else:
        im_shape = image.shape[-2:]
        scale_factor = min(self_min_size / min(im_shape), self_max_size / max(im_shape))
        recompute_scale_factor = True
    image = F.interpolate(image[None], size=size, scale_factor=scale_factor, mode="bilinear",
                          recompute_scale_factor=recompute_scale_factor, align_corners=False)[0]
    if target is not None and "masks" in target:
        mask = F.interpolate(target["masks"][:, None].float(), size=size,
                             scale_factor=scale_factor,
                             recompute_scale_factor=recompute_scale_factor)[:, 0].byte()
        target["masks"] = mask
    return image, target


def _ratios(new_size, original_size, device):
    return [tensor(s, dtype=float32, device=device)
            / tensor(s_orig, dtype=float32, device=device)
            for s, s_orig in zip(new_size, original_size)]


def resize_keypoints(keypoints, original_size, new_size):
    """``(N, K, 3)`` keypoints scaled from ``original_size`` to ``new_size`` (height, width)."""
    ratio_h, ratio_w = _ratios(new_size, original_size, keypoints.device)
    return stack((keypoints[..., 0] * ratio_w, keypoints[..., 1] * ratio_h,
                         keypoints[..., 2]), dim=-1)


def resize_boxes(boxes, original_size, new_size):
    """``(N, 4)`` xyxy boxes scaled from ``original_size`` to ``new_size`` (height, width)."""
    ratio_height, ratio_width = _ratios(new_size, original_size, boxes.device)
    xmin, ymin, xmax, ymax = boxes.unbind(1)
    return stack((xmin * ratio_width, ymin * ratio_height, xmax * ratio_width,
                         ymax * ratio_height), dim=1)


class GeneralizedRCNNTransform(nn.Module):
    """Normalizes each image with ``image_mean``/``image_std``, resizes it (bilinear) so its
    shorter side is ``min_size`` (one of them, drawn, in training) unless its longer side would
    pass ``max_size``, or to ``fixed_size``, and pads the batch to a multiple of
    ``size_divisible``; target boxes, masks and keypoints follow. Returns an ``ImageList`` and
    the targets. ``postprocess`` maps detections back to the original image sizes."""

    def __init__(self, min_size, max_size, image_mean, image_std, size_divisible=32,
                 fixed_size=None, **kwargs):
        super().__init__()
        if not isinstance(min_size, (list, tuple)):
            min_size = (min_size,)
        self.min_size = min_size
        self.max_size = max_size
        self.image_mean = image_mean
        self.image_std = image_std
        self.size_divisible = size_divisible
        self.fixed_size = fixed_size
        self._skip_resize = kwargs.pop("_skip_resize", False)

    def forward(self, images, targets=None):
        images = list(images)
        if targets is not None:
            targets = [dict(t) for t in targets]
        for i, image in enumerate(images):
            target = targets[i] if targets is not None else None
            if image.dim() != 3:
                raise ValueError("images is expected to be a list of 3d tensors of shape "
                                 f"[C, H, W], got {image.shape}")
            image, target = self.resize(self.normalize(image), target)
            images[i] = image
            if targets is not None and target is not None:
                targets[i] = target
        image_sizes = [tuple(img.shape[-2:]) for img in images]
        batched = self.batch_images(images, size_divisible=self.size_divisible)
        return ImageList(batched, [(h, w) for h, w in image_sizes]), targets

    def normalize(self, image):
        if not image.is_floating_point():
            raise TypeError("Expected input images to be of floating type (in range [0, 1]), "
                            f"but found type {image.dtype} instead")
        mean = as_tensor(self.image_mean, dtype=image.dtype, device=image.device)
        std = as_tensor(self.image_std, dtype=image.dtype, device=image.device)
        return (image - mean[:, None, None]) / std[:, None, None]

    def torch_choice(self, k):
        """One element of ``k``, drawn with jtorch's generator."""
        return k[int(empty(1).uniform_(0.0, float(len(k))).item())]

    def resize(self, image, target=None):
        h, w = image.shape[-2:]
        if self.training:
            if self._skip_resize:
                return image, target
            size = self.torch_choice(self.min_size)
        else:
            size = self.min_size[-1]
        image, target = _resize_image_and_masks(image, size, self.max_size, target,
                                                self.fixed_size)
        if target is None:
            return image, target
        target["boxes"] = resize_boxes(target["boxes"], (h, w), image.shape[-2:])
        if "keypoints" in target:
            target["keypoints"] = resize_keypoints(target["keypoints"], (h, w),
                                                   image.shape[-2:])
        return image, target

    def max_by_axis(self, the_list):
        maxes = list(the_list[0])
        for sublist in the_list[1:]:
            for index, item in enumerate(sublist):
                maxes[index] = max(maxes[index], item)
        return maxes

    def batch_images(self, images, size_divisible=32):
        """The images zero-padded at the bottom and right to one size, a multiple of
        ``size_divisible``, stacked."""
        max_size = self.max_by_axis([list(img.shape) for img in images])
        stride = float(size_divisible)
        max_size[1] = int(math.ceil(float(max_size[1]) / stride) * stride)
        max_size[2] = int(math.ceil(float(max_size[2]) / stride) * stride)
        return stack([F.pad(img, (0, max_size[2] - img.shape[2], 0,
                                         max_size[1] - img.shape[1], 0,
                                         max_size[0] - img.shape[0])) for img in images])

    def postprocess(self, result, image_shapes, original_image_sizes):
        if self.training:
            return result
        for pred, im_s, o_im_s in zip(result, image_shapes, original_image_sizes):
            pred["boxes"] = boxes = resize_boxes(pred["boxes"], im_s, o_im_s)
            if "masks" in pred:
                pred["masks"] = paste_masks_in_image(pred["masks"], boxes, o_im_s)
            if "keypoints" in pred:
                pred["keypoints"] = resize_keypoints(pred["keypoints"], im_s, o_im_s)
        return result

    def __repr__(self) -> str:
        indent = "\n    "
        return (f"{self.__class__.__name__}({indent}Normalize(mean={self.image_mean}, "
                f"std={self.image_std}){indent}Resize(min_size={self.min_size}, "
                f"max_size={self.max_size}, mode='bilinear')\n)")
