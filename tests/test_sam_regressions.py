"""Regressions found by running segment-anything (Meta's SAM) unchanged under jtorch
(scripts/real_drivers/sam_models.py, docs/real-programs.md): each test is a small stand-in for
what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import pytest
import torch

import jtorch
import jtorch.nn.functional as JF


def _greedy_nms(boxes, scores, iou_threshold):
    """torchvision's CPU nms kernel in plain torch (the CPU wheel's C++ operator cannot load)."""
    order = scores.sort(stable=True, descending=True)[1].tolist()
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    keep = []
    for i in order:
        if all(float(_iou(boxes, area, i, j)) <= iou_threshold for j in keep):
            keep.append(i)
    return keep


def _iou(boxes, area, i, j):
    w = (torch.minimum(boxes[i, 2], boxes[j, 2]) - torch.maximum(boxes[i, 0], boxes[j, 0]))
    h = (torch.minimum(boxes[i, 3], boxes[j, 3]) - torch.maximum(boxes[i, 1], boxes[j, 1]))
    inter = w.clamp(min=0) * h.clamp(min=0)
    return inter / (area[i] + area[j] - inter)


def test_batched_nms_importable_from_ops_boxes():
    # segment_anything/automatic_mask_generator.py: `from torchvision.ops.boxes import
    # batched_nms, box_area` (ImportError: torchvision defines nms and batched_nms in
    # torchvision/ops/boxes.py); SAM filters masks' boxes with one category and the scores
    # 1 / box_area(crop_boxes)
    from jtorch.vision import ops
    from jtorch.vision.ops.boxes import batched_nms, box_area, nms
    assert batched_nms is ops.batched_nms and nms is ops.nms
    g = torch.Generator().manual_seed(0)
    xy = torch.rand(12, 2, generator=g) * 60
    wh = torch.rand(12, 2, generator=g) * 50 + 5
    boxes = torch.cat([xy, xy + wh], 1).round()
    crop = torch.tensor([[0, 0, 144, 112]] * 6 + [[53, 0, 144, 75]] * 6)
    scores = torch.rand(12, generator=g)
    scores[3] = scores[7]   # a tie: the stable sort keeps the earlier first
    for s in (scores, 1 / box_area(crop).float()):
        for thr in (0.3, 0.7):
            got = batched_nms(jtorch.tensor(boxes.numpy()), jtorch.tensor(s.numpy()),
                              jtorch.zeros(12), iou_threshold=thr)
            assert got.dtype == jtorch.int64
            assert got.tolist() == _greedy_nms(boxes, s, thr)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_conv_checks_bias_dtype_before_weight(n):
    # SamPredictor.predict makes mask_input torch.float; with the model in float64 PyTorch's
    # conv2d (the prompt encoder's mask downscaling) names the bias, jtorch named the weight
    shape = (1, 2) + (5,) * n
    wshape = (3, 2) + (2,) * n
    conv = {1: "conv1d", 2: "conv2d", 3: "conv3d"}[n]
    for xd, wd, bd in ((torch.float32, torch.float64, torch.float64),
                       (torch.float64, torch.float32, torch.float32),
                       (torch.float32, torch.float32, torch.float64)):
        messages = []
        for T, F in ((torch, torch.nn.functional), (jtorch, JF)):
            x = T.ones(shape, dtype=getattr(T, str(xd).split(".")[1]))
            w = T.ones(wshape, dtype=getattr(T, str(wd).split(".")[1]))
            b = T.ones(3, dtype=getattr(T, str(bd).split(".")[1]))
            with pytest.raises(RuntimeError) as err:
                getattr(F, conv)(x, w, b)
            messages.append(str(err.value))
        assert messages[1] == messages[0]
        assert "bias type" in messages[0]
