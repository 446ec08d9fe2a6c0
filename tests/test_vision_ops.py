"""jtorch.vision.ops' box functions and focal loss against torchvision 0.28's (run on real
torch: they are Python over torch ops), values and gradients; and every other public name of
torchvision.ops, .datasets and .utils raises NotImplementedError naming it."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import torch
from helpers import assert_close
from vision_helpers import torchvision

import jtorch
from jtorch._core.errors import NotImplementedAttribute

tv = torchvision()


def _boxes(rng, n, fmt="xyxy", dtype=np.float32):
    """``n`` boxes with positive sizes in ``fmt``, some overlapping and some disjoint."""
    xy = rng.uniform(0, 20, (n, 2))
    wh = rng.uniform(0.5, 12, (n, 2))
    if fmt == "xyxy":
        out = np.concatenate([xy, xy + wh], 1)
    elif fmt == "xywh":
        out = np.concatenate([xy, wh], 1)
    else:
        out = np.concatenate([xy + wh / 2, wh], 1)
    return out.astype(dtype)


def _both(fn_name, arrays, *args, grad=True, **kwargs):
    """(torch result, jtorch result, torch grads, jtorch grads) of ops.<fn_name>."""
    results, grads = [], []
    for lib, ops in ((torch, tv.ops), (jtorch, jtorch.vision.ops)):
        ts = [lib.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
        out = getattr(ops, fn_name)(*ts, *args, **kwargs)
        results.append(out)
        if grad and out.requires_grad:
            seed = np.random.default_rng(1).uniform(-1, 1, tuple(out.shape)).astype(
                np.float32)
            out.backward(lib.tensor(seed, dtype=out.dtype))
            grads.append([t.grad for t in ts])
    return results, grads


@pytest.mark.parametrize("fmt", ["xyxy", "xywh", "cxcywh"])
def test_box_area_iou_and_convert(fmt):
    rng = np.random.default_rng(0)
    b1, b2 = _boxes(rng, 5, fmt), _boxes(rng, 7, fmt)
    for name, arrays, kw in (("box_area", [b1], {"fmt": fmt}),
                             ("box_iou", [b1, b2], {"fmt": fmt})):
        (ref, got), grads = _both(name, arrays, **kw)
        assert_close(got, ref, msg=name)
        for g_ref, g_got in zip(*grads):
            assert_close(g_got, g_ref, atol=1e-5, msg=f"{name} grad")
    for out_fmt in ("xyxy", "xywh", "cxcywh"):
        (ref, got), grads = _both("box_convert", [b1], fmt, out_fmt)
        assert_close(got, ref)
        for g_ref, g_got in zip(*grads):
            assert_close(g_got, g_ref)


@pytest.mark.parametrize("name", ["generalized_box_iou", "distance_box_iou", "complete_box_iou"])
def test_pairwise_ious_values_and_gradients(name):
    rng = np.random.default_rng(2)
    b1, b2 = _boxes(rng, 4), _boxes(rng, 6)
    b2[0] = b1[0]   # one identical pair (IoU 1)
    (ref, got), grads = _both(name, [b1, b2])
    assert_close(got, ref, atol=1e-6)
    for g_ref, g_got in zip(*grads):
        assert_close(g_got, g_ref, atol=1e-5)


def test_batched_boxes_and_dtypes():
    rng = np.random.default_rng(3)
    b1 = np.stack([_boxes(rng, 3), _boxes(rng, 3)])   # (2, 3, 4) against (2, 5, 4)
    b2 = np.stack([_boxes(rng, 5), _boxes(rng, 5)])
    (ref, got), _ = _both("box_iou", [b1, b2], grad=False)
    assert got.shape == (2, 3, 5)
    assert_close(got, ref)
    ints = np.round(_boxes(rng, 4)).astype(np.int16)   # upcast to int32, as torchvision
    (ref, got), _ = _both("box_area", [ints], grad=False)
    assert got.dtype == jtorch.int32
    assert_close(got, ref)
    half = _boxes(rng, 4).astype(np.float16)
    (ref, got), _ = _both("box_iou", [half, half], grad=False)
    assert got.dtype == jtorch.float32
    assert_close(got, ref)


def test_clip_remove_small_and_masks_to_boxes():
    rng = np.random.default_rng(4)
    boxes = rng.uniform(-5, 30, (6, 4)).astype(np.float32)
    (ref, got), grads = _both("clip_boxes_to_image", [boxes], (20, 25))
    assert_close(got, ref)
    assert_close(grads[1][0], grads[0][0])
    small = _boxes(rng, 8)
    (ref, got), _ = _both("remove_small_boxes", [small], 4.0, grad=False)
    assert got.dtype == jtorch.int64
    assert_close(got, ref)
    masks = np.zeros((3, 9, 11), np.uint8)
    masks[0, 2:5, 3:8] = 1
    masks[1, 7, 0] = 5      # one pixel; masks[2] empty
    (ref, got), _ = _both("masks_to_boxes", [masks], grad=False)
    assert_close(got, ref)
    (ref, got), _ = _both("masks_to_boxes", [np.zeros((0, 4, 4), np.uint8)], grad=False)
    assert tuple(got.shape) == (0, 4) and got.dtype == jtorch.float32


@pytest.mark.parametrize("alpha,gamma,reduction", [(0.25, 2, "none"), (-1, 1.5, "mean"),
                                                   (0.5, 0, "sum")])
def test_sigmoid_focal_loss(alpha, gamma, reduction):
    rng = np.random.default_rng(5)
    logits = rng.normal(0, 2, (4, 6)).astype(np.float32)
    targets = (rng.uniform(size=(4, 6)) > 0.7).astype(np.float32)
    results, grads = [], []
    for lib, ops in ((torch, tv.ops), (jtorch, jtorch.vision.ops)):
        x = lib.tensor(logits, requires_grad=True)
        out = ops.sigmoid_focal_loss(x, lib.tensor(targets), alpha, gamma, reduction)
        out.sum().backward()
        results.append(out)
        grads.append(x.grad)
    assert_close(results[1], results[0])
    assert_close(grads[1], grads[0])


@pytest.mark.parametrize("name", ["generalized_box_iou_loss", "distance_box_iou_loss",
                                  "complete_box_iou_loss"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_box_losses_values_and_gradients(name, reduction):
    rng = np.random.default_rng(7)
    pred, target = _boxes(rng, 6), _boxes(rng, 6)
    target[0] = pred[0]                       # a perfect match
    target[1] = pred[1] + [30, 30, 30, 30]    # no overlap (the intersection's mask)
    (ref, got), grads = _both(name, [pred, target], reduction=reduction)
    assert_close(got, ref, atol=1e-6)
    for g_ref, g_got in zip(*grads):
        assert_close(g_got, g_ref, atol=1e-6)


@pytest.mark.parametrize("name", ["generalized_box_iou_loss", "distance_box_iou_loss",
                                  "complete_box_iou_loss"])
def test_box_losses_empty_mean_and_integer_boxes(name):
    empty = np.zeros((0, 4), np.float32)
    (ref, got), _ = _both(name, [empty, empty], reduction="mean", grad=False)
    assert_close(got, ref)
    ints = np.round(_boxes(np.random.default_rng(8), 4) * 3).astype(np.int64)
    (ref, got), _ = _both(name, [ints, ints[::-1].copy()], reduction="none", grad=False)
    assert got.dtype == jtorch.float32
    assert_close(got, ref)


def test_errors_as_torchvision():
    b = np.zeros((1, 4), np.float32)
    for name, args in (("box_area", ([b], {"fmt": "xyz"})),
                       ("box_convert", ([b, "xyxy", "abc"], {})),
                       ("sigmoid_focal_loss", ([b, b, 2.0], {})),
                       ("generalized_box_iou_loss", ([b, b], {"reduction": "max"}))):
        arrays, kw = args
        errors = []
        for lib, ops in ((torch, tv.ops), (jtorch, jtorch.vision.ops)):
            with pytest.raises(ValueError) as e:
                getattr(ops, name)(lib.tensor(arrays[0]), *[
                    lib.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays[1:]], **kw)
            errors.append(str(e.value))
        assert errors[1] == errors[0], name
    with pytest.raises(NotImplementedError, match="rotated"):
        jtorch.vision.ops.box_iou(jtorch.zeros(1, 5), jtorch.zeros(1, 5), fmt="cxcywhr")


@pytest.mark.parametrize("module", ["datasets", "ops", "utils"])
def test_every_torchvision_name_works_or_says_not_implemented(module):
    theirs = importlib.import_module(f"torchvision.{module}")
    ours = importlib.import_module(f"jtorch.vision.{module}")
    for name in theirs.__all__:
        if name.startswith("_"):
            continue
        try:
            getattr(ours, name)
        except NotImplementedAttribute as e:
            assert f"torchvision.{module}.{name}" in str(e)
    with pytest.raises(AttributeError) as e:
        ours.no_such_name   # noqa: B018
    assert not isinstance(e.value, NotImplementedError)


def test_box_functions_compile_to_the_eager_values():
    rng = np.random.default_rng(6)
    b1 = jtorch.tensor(_boxes(rng, 4), requires_grad=True)
    b2 = jtorch.tensor(_boxes(rng, 5))
    masks = jtorch.tensor((rng.uniform(size=(2, 6, 7)) > 0.8).astype(np.uint8))

    def step(b1, b2, masks):
        ops = jtorch.vision.ops
        loss = ops.complete_box_iou(b1, b2).sum() + ops.generalized_box_iou(b1, b2).sum() \
            + ops.sigmoid_focal_loss(b1, (b1 > 10).float(), reduction="mean")
        loss.backward()
        return loss, ops.masks_to_boxes(masks), ops.clip_boxes_to_image(b1, (15, 15))

    eager = step(b1, b2, masks)
    eager_grad = b1.grad.clone()
    b1.grad = None
    compiled = jtorch.compile(step)(b1, b2, masks)
    for e, c in zip(eager, compiled):
        assert_close(c, e, atol=1e-6)
    assert_close(b1.grad, eager_grad, atol=1e-6)


def _nms_reference(boxes, scores, thr):
    """Greedy NMS as torchvision's CPU kernel loops (written out in NumPy, the boxes' dtype):
    by decreasing score, keep a box unless a kept box overlaps it with IoU > thr."""
    order = np.argsort(-scores, kind="stable")
    x1, y1, x2, y2 = boxes.T
    area = (x2 - x1) * (y2 - y1)
    suppressed = np.zeros(len(boxes), bool)
    keep = []
    for a, i in enumerate(order):
        if suppressed[i]:
            continue
        keep.append(i)
        for j in order[a + 1:]:
            w = max(boxes.dtype.type(0), min(x2[i], x2[j]) - max(x1[i], x1[j]))
            h = max(boxes.dtype.type(0), min(y2[i], y2[j]) - max(y1[i], y1[j]))
            inter = w * h
            if float(inter / (area[i] + area[j] - inter)) > thr:   # (C++: float vs double)
                suppressed[j] = True
    return np.array(keep, np.int64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("thr", [0.0, 0.3, 0.5, 0.9])
def test_nms_keeps_what_the_greedy_loop_keeps(dtype, thr):
    rng = np.random.default_rng(9)
    boxes = _boxes(rng, 60, dtype=dtype) / 2   # crowded: many overlaps
    scores = rng.uniform(size=60).astype(dtype)
    scores[10:14] = scores[3]                  # ties keep their order (stable)
    got = jtorch.vision.ops.nms(jtorch.tensor(boxes), jtorch.tensor(scores), thr)
    assert got.dtype == jtorch.int64
    np.testing.assert_array_equal(got.numpy(), _nms_reference(boxes, scores, thr))


def test_nms_by_hand_edge_cases_and_errors():
    nms = jtorch.vision.ops.nms
    # boxes 0 and 1 overlap with IoU exactly 0.5 (intersection 1, union 2): not suppressed at
    # threshold 0.5 (only an IoU strictly above it suppresses), suppressed at 0.49
    boxes = jtorch.tensor([[0.0, 0.0, 2.0, 1.0], [1.0, 0.0, 2.0, 1.0], [5.0, 5.0, 6.0, 6.0]])
    scores = jtorch.tensor([0.9, 0.8, 0.7])
    assert nms(boxes, scores, 0.5).tolist() == [0, 1, 2]
    assert nms(boxes, scores, 0.49).tolist() == [0, 2]
    # IoU 3/10 in float32 is 0.30000001: above the double 0.3 the kernel compares it with
    assert nms(jtorch.tensor([[0.0, 0.0, 10.0, 1.0], [0.0, 0.0, 3.0, 1.0]]),
               jtorch.tensor([0.9, 0.8]), 0.3).tolist() == [0]
    assert nms(jtorch.zeros(0, 4), jtorch.zeros(0), 0.5).tolist() == []
    for b, s, msg in ((jtorch.zeros(3), jtorch.zeros(3), "boxes should be a 2d tensor, got 1D"),
                      (jtorch.zeros(3, 5), jtorch.zeros(3), "boxes should have 4 elements"),
                      (jtorch.zeros(3, 4), jtorch.zeros(2), "boxes and scores should have same"),
                      (jtorch.zeros(3, 4), jtorch.zeros(3, dtype=jtorch.float64),
                       "dets should have the same type as scores")):
        with pytest.raises(RuntimeError, match=msg):
            nms(b, s, 0.5)
    with pytest.raises(Exception, match="nms"):
        jtorch.compile(lambda b, s: nms(b, s, 0.5), fullgraph=True)(boxes, scores)


@pytest.mark.parametrize("n", [50, 1200])   # torchvision's two ways: under and over 4000 values
def test_batched_nms_never_suppresses_across_categories(n):
    rng = np.random.default_rng(10)
    boxes = _boxes(rng, n) / 3
    scores = rng.uniform(size=n).astype(np.float32)
    idxs = rng.integers(0, 4, n)
    got = jtorch.vision.ops.batched_nms(jtorch.tensor(boxes), jtorch.tensor(scores),
                                        jtorch.tensor(idxs), 0.4).numpy()
    expected = np.concatenate([np.nonzero(idxs == c)[0][_nms_reference(
        boxes[idxs == c], scores[idxs == c], 0.4)] for c in range(4)])
    expected = expected[np.argsort(-scores[expected], kind="stable")]
    np.testing.assert_array_equal(got, expected)
