"""``torchvision.utils``: ``make_grid``, ``save_image``, ``draw_bounding_boxes`` and
``draw_segmentation_masks``.

Differences from torchvision:
    - ``make_grid`` builds the grid with padding and reshapes (no in-place copies): same
      values; usable under ``jtorch.compile`` unless ``normalize=True`` without ``value_range``
      (which reads the tensor's min and max, as torchvision). Like torchvision's it runs under
      ``no_grad``.
    - ``draw_bounding_boxes`` draws axis-aligned ``(xmin, ymin, xmax, ymax)`` boxes; oriented
      (8-coordinate) boxes raise NotImplementedError. ``draw_keypoints`` raises
      NotImplementedError.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

import jtorch.nn.functional as F
from jtorch._tensor import Tensor

from .._core.dtypes import bool_, get_default_dtype, int64, uint8
from .._core.errors import missing_function, missing_names, not_implemented
from .._ops.compare import where
from .._ops.creation import full, tensor as as_tensor
from .._ops.shape_copy import cat, stack, tile
from ..autograd.grad_mode import no_grad
from .transforms.v2 import functional as TF

__all__ = ["draw_bounding_boxes", "draw_keypoints", "draw_segmentation_masks", "make_grid",
           "save_image"]

draw_keypoints = missing_function("torchvision.utils.draw_keypoints")


@no_grad()
def make_grid(tensor, nrow: int = 8, padding: int = 2, normalize: bool = False,
              value_range: tuple[int, int] | None = None, scale_each: bool = False,
              pad_value: float = 0.0):
    """A grid of images: ``nrow`` per row, ``padding`` pixels of ``pad_value`` between them.

    Args:
        tensor (Tensor or list of Tensor): ``(B, C, H, W)`` or a list of same-size images.
        nrow (int): images per row. Default 8
        padding (int): Default 2
        normalize (bool): shift to [0, 1] by ``value_range`` (default: min and max).
        value_range (tuple, optional): ``(min, max)`` for ``normalize``.
        scale_each (bool): normalize each image on its own.
        pad_value (float): Default 0

    Returns:
        Tensor: ``(C, H', W')`` with 3 channels for 1-channel input.
    """
    if not isinstance(tensor, Tensor):
        if isinstance(tensor, list):
            for t in tensor:
                if not isinstance(t, Tensor):
                    raise TypeError("tensor or list of tensors expected, got a list containing "
                                    f"{type(t)}")
        else:
            raise TypeError(f"tensor or list of tensors expected, got {type(tensor)}")
    if isinstance(tensor, list):
        tensor = stack(tensor, dim=0)
    if tensor.dim() == 2:
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 3:
        if tensor.size(0) == 1:
            tensor = cat((tensor, tensor, tensor), 0)
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 4 and tensor.size(1) == 1:
        tensor = cat((tensor, tensor, tensor), 1)
    if normalize is True:
        if value_range is not None and not isinstance(value_range, tuple):
            raise TypeError("value_range has to be a tuple (min, max) if specified. min and max "
                            "are numbers")

        def norm(t):
            low, high = value_range if value_range is not None else (float(t.min()),
                                                                     float(t.max()))
            return t.clamp(min=low, max=high).sub(low).div(max(high - low, 1e-5))

        tensor = (stack([norm(t) for t in tensor]) if scale_each is True
                  else norm(tensor))
    if tensor.size(0) == 1:
        return tensor.squeeze(0)
    nmaps = tensor.size(0)
    xmaps = min(nrow, nmaps)
    ymaps = int(math.ceil(float(nmaps) / xmaps))
    c, h, w = tensor.shape[1:]
    cells = F.pad(tensor, (padding, 0, padding, 0), value=pad_value)
    if ymaps * xmaps > nmaps:
        blank = full((ymaps * xmaps - nmaps, c, h + padding, w + padding), pad_value,
                            dtype=tensor.dtype, device=tensor.device)
        cells = cat((cells, blank), 0)
    grid = cells.reshape(ymaps, xmaps, c, h + padding, w + padding).permute(2, 0, 3, 1, 4)
    grid = grid.reshape(c, ymaps * (h + padding), xmaps * (w + padding))
    return F.pad(grid, (0, padding, 0, padding), value=pad_value)


def save_image(tensor, fp, format: str | None = None, **kwargs) -> None:
    """Saves ``make_grid(tensor, **kwargs)`` (values in [0, 1]) as an image file (Pillow).

    Args:
        tensor (Tensor or list of Tensor): the image(s).
        fp (str, os.PathLike or file object): where to write.
        format (str, optional): the image format (default: from the file name).
        **kwargs: passed to ``make_grid``.
    """
    from PIL import Image  # Pillow is optional: needed only to write image files

    with no_grad():
        grid = make_grid(tensor, **kwargs)
        ndarr = grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to(
            "cpu", uint8).numpy()
    Image.fromarray(ndarr).save(fp, format=format)


def _generate_color_palette(num_objects: int):
    palette = np.array([2**25 - 1, 2**15 - 1, 2**21 - 1])
    return [tuple(int(v) for v in (i * palette) % 255) for i in range(num_objects)]


def _parse_colors(colors, *, num_objects: int, dtype=uint8):
    """``num_objects`` RGB tuples (or more, from a longer list) from a color, a list of colors
    (names or RGB tuples) or None (a palette); in [0, 1] for a floating ``dtype``."""
    from PIL import ImageColor  # Pillow is optional: needed only to draw

    generated = colors is None
    if generated:
        colors = _generate_color_palette(num_objects)
    elif isinstance(colors, list):
        if len(colors) < num_objects:
            raise ValueError("Number of colors must be equal or larger than the number of "
                             f"objects, but got {len(colors)} < {num_objects}.")
    elif not isinstance(colors, (tuple, str)):
        raise ValueError(f"colors must be a tuple or a string, or a list thereof, but got "
                         f"{colors}.")
    elif isinstance(colors, tuple) and len(colors) != 3:
        raise ValueError(f"If passed as tuple, colors should be an RGB triplet, but got {colors}.")
    else:
        colors = [colors] * num_objects
    colors = [ImageColor.getrgb(c) if isinstance(c, str) else c for c in colors]
    if dtype.is_floating_point:  # [0, 255] -> [0, 1]
        # torchvision's palette holds int64 tensors: divided in the default dtype (float32)
        scale = np.dtype(get_default_dtype().np) if generated else np.dtype(np.float64)
        colors = [tuple(float(np.divide(v, 255, dtype=scale)) for v in color)
                  for color in colors]
    return colors


def _check_drawable(image):
    """The drawing functions' checks of an image tensor: uint8 or float, one image (3-D)."""
    if not (image.dtype == uint8 or image.is_floating_point()):
        raise ValueError(f"The image dtype must be uint8 or float, got {image.dtype}")
    if image.dim() != 3:
        raise ValueError("Pass individual images, not batches")


def draw_bounding_boxes(image, boxes, labels=None, colors=None, fill=False, width: int = 1,
                        font=None, font_size=None, label_colors=None,
                        label_background_colors=None, fill_labels: bool = False):
    """Draws ``(xmin, ymin, xmax, ymax)`` boxes (and labels) on a ``(C, H, W)`` image.

    Args:
        image (Tensor): uint8 or float ``(1 or 3, H, W)``.
        boxes (Tensor): ``(N, 4)`` in pixels.
        labels (list[str], optional): one per box.
        colors: one color (name or RGB tuple) or a list; default a palette.
        fill (bool): fill the boxes (alpha 100).
        width (int): line width. Default 1
        font (str, optional): a TrueType font file; font_size its size (default 10).
        label_colors, label_background_colors, fill_labels: the labels' colors.

    Returns:
        Tensor: the image with the boxes, same dtype, 3 channels.
    """
    from PIL import ImageDraw, ImageFont  # Pillow is optional: needed only to draw

    if not isinstance(image, Tensor):
        raise TypeError(f"Tensor expected, got {type(image)}")
    _check_drawable(image)
    if image.size(0) not in {1, 3}:
        raise ValueError("Only grayscale and RGB images are supported")
    if boxes.shape[-1] != 4:
        raise not_implemented("torchvision.utils.draw_bounding_boxes with oriented boxes")
    box_list = boxes.tolist()
    if any(b[0] > b[2] or b[1] > b[3] for b in box_list):
        raise ValueError("Boxes need to be in (xmin, ymin, xmax, ymax) format. Use "
                         "torchvision.ops.box_convert to convert them")
    num_boxes = boxes.shape[0]
    if num_boxes == 0:
        warnings.warn("boxes doesn't contain any box. No box was drawn", stacklevel=2)
        return image
    if labels is None:
        labels = [None] * num_boxes
    elif len(labels) != num_boxes:
        raise ValueError(f"Number of boxes ({num_boxes}) and labels ({len(labels)}) mismatch. "
                         "Please specify labels for each box.")
    colors = _parse_colors(colors, num_objects=num_boxes)
    if label_colors or fill_labels:
        label_colors = _parse_colors(label_colors if label_colors else "black",
                                     num_objects=num_boxes)
    else:
        label_colors = colors.copy()
    if fill_labels and label_background_colors:
        label_background_colors = _parse_colors(label_background_colors, num_objects=num_boxes)
    else:
        label_background_colors = colors.copy()
    if font is None:
        if font_size is not None:
            warnings.warn("Argument 'font_size' will be ignored since 'font' is not set.",
                          stacklevel=2)
        txt_font = ImageFont.load_default()
    else:
        txt_font = ImageFont.truetype(font=font, size=font_size or 10)
    if image.size(0) == 1:
        image = tile(image, (3, 1, 1))
    original_dtype = image.dtype
    if original_dtype.is_floating_point:
        image = TF.to_dtype(image, dtype=uint8, scale=True)
    img_to_draw = TF.to_pil_image(image)
    img_boxes = boxes.to(int64).tolist()
    draw = ImageDraw.Draw(img_to_draw, "RGBA") if fill else ImageDraw.Draw(img_to_draw)
    for bbox, color, label, label_color, label_bg_color in zip(
            img_boxes, colors, labels, label_colors, label_background_colors):
        draw.rectangle(bbox, width=width, outline=color,
                       fill=tuple(color) + (100,) if fill else None)
        if label is not None:
            box_margin = 1
            margin = width + box_margin
            if fill_labels:
                left, top, right, bottom = draw.textbbox((bbox[0] + margin, bbox[1] + margin),
                                                         label, font=txt_font)
                draw.rectangle((left - box_margin, top - box_margin, right + box_margin,
                                bottom + box_margin), fill=label_bg_color)
            draw.text((bbox[0] + margin, bbox[1] + margin), label, fill=label_color,
                      font=txt_font)
    out = TF.pil_to_tensor(img_to_draw)
    if original_dtype.is_floating_point:
        out = TF.to_dtype(out, dtype=original_dtype, scale=True)
    return out


@no_grad()
def draw_segmentation_masks(image, masks, alpha: float = 0.8, colors=None):
    """Draws segmentation masks on an RGB image: each mask's pixels take its color (a later
    mask over an earlier one), pixels under more than one mask are black, blended as
    ``image * (1 - alpha) + drawn * alpha``.

    Args:
        image (Tensor): ``(3, H, W)``, uint8 in [0, 255] or float in [0, 1].
        masks (Tensor): bool ``(num_masks, H, W)`` or ``(H, W)``.
        alpha (float): the masks' opacity (0: transparent, 1: opaque). Default 0.8
        colors: one color for all masks or a list (at least one per mask), each a name
            (``"red"``, ``"#FF00FF"``) or an RGB tuple; default a palette.

    Returns:
        Tensor: ``(3, H, W)`` in the image's dtype (uint8: truncated, as torchvision);
        computed under ``no_grad``, as torchvision's.
    """
    if not isinstance(image, Tensor):
        raise TypeError(f"The image must be a tensor, got {type(image)}")
    _check_drawable(image)
    if image.size()[0] != 3:
        raise ValueError("Pass an RGB image. Other Image formats are not supported")
    if masks.ndim == 2:
        masks = masks[None, :, :]
    if masks.ndim != 3:
        raise ValueError("masks must be of shape (H, W) or (batch_size, H, W)")
    if masks.dtype != bool_:
        raise ValueError(f"The masks must be of dtype bool. Got {masks.dtype}")
    if masks.shape[-2:] != image.shape[-2:]:
        raise ValueError("The image and the masks must have the same height and width")
    num_masks = masks.size()[0]
    if num_masks == 0:
        warnings.warn("masks doesn't contain any mask. No mask was drawn", stacklevel=2)
        return image
    original_dtype = image.dtype
    palette = as_tensor(
        _parse_colors(colors, num_objects=num_masks, dtype=original_dtype)[:num_masks],
        dtype=original_dtype, device=image.device)
    # each pixel takes the color of the last mask over it (torchvision paints them in order)
    last = (num_masks - 1) - masks.flip(0).to(int64).argmax(0)
    painted = palette[last].permute(2, 0, 1)
    drawn = where(masks.any(0), painted, image)
    drawn = drawn.masked_fill(masks.sum(dim=0) > 1, 0)
    out = image * (1 - alpha) + drawn * alpha
    return out.to(original_dtype)


# torchvision 0.28's other public name (its __all__)
__getattr__ = missing_names("torchvision.utils", ("flow_to_image",))
