"""jtorch.vision.models.detection against torchvision 0.28 (its C++ ``nms``/``roi_align``
loaded through ``vision_helpers.load_torchvision_extension``): Faster, Mask and Keypoint R-CNN
on a tiny two-level FPN backbone (float64, so that top-k, NMS and thresholds see the same
order), with torchvision's weights copied in: eval detections (boxes, labels, scores, masks,
keypoints), train-mode loss dicts and every parameter's gradient of their sum (the samplers
take every positive and negative, so their random draws do not matter); the parts (BoxCoder,
Matcher, AnchorGenerator, the transform, the mask/keypoint functions) alone; the full builders'
structure (state_dict keys, shapes, frozen parameters) against torchvision's; the weights
enums; the errors torchvision raises for bad targets (same type and text).

Cost: every new op shape compiles once in eager jtorch; the tiny models keep each test a few
seconds. The ResNet-50-FPN forward is ``slow``.
"""

import importlib
import os
import pkgutil
from collections import OrderedDict

import numpy as np
import pytest
import torch
from vision_helpers import copy_weights, load_torchvision_extension, to_jtorch

import jtorch
import jtorch.hub
from jtorch._core.errors import is_stand_in
from jtorch._runner import AliasFinder
from jtorch.vision import models, ops as jops
from jtorch.vision.models import detection as jdet


@pytest.fixture(scope="module")
def tv(tmp_path_factory):
    return load_torchvision_extension("_C.so", tmp_path_factory.mktemp("tv_cuda_stubs"))


def _np(t):
    return t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy()


def _close(a, b, rtol=1e-9, atol=1e-9):
    """Same shape and dtype, close values (float32 results, such as the RPN's objectness loss
    on its float32 labels, to float32 rounding)."""
    a, b = _np(a), _np(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    if a.dtype == np.float32:
        rtol, atol = max(rtol, 1e-6), max(atol, 1e-6)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


# ------------------------------------------------------------------ tiny models
def _parts(lib, tvlib):
    """(nn, detection package, ops) of torch/torchvision or jtorch."""
    if lib is torch:
        return torch.nn, tvlib.models.detection, tvlib.ops
    return jtorch.nn, jdet, jops


def _tiny(lib, tvlib, kind="faster", num_classes=3, **kw):
    """A two-level FPN on two strided convolutions, three anchor levels, small heads; the
    samplers take everything (huge batch sizes)."""
    nn, det, ops = _parts(lib, tvlib)
    body = nn.Sequential(OrderedDict([
        ("c1", nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU())),
        ("c2", nn.Sequential(nn.Conv2d(8, 16, 3, 2, 1), nn.ReLU()))]))
    backbone = det.backbone_utils.BackboneWithFPN(body, {"c1": "0", "c2": "1"}, [8, 16], 16)
    args = {
        "min_size": 128, "max_size": 176,
        "rpn_anchor_generator": det.anchor_utils.AnchorGenerator(((16,), (32,), (64,)),
                                                              ((0.5, 1.0, 2.0),) * 3),
        "box_roi_pool": ops.MultiScaleRoIAlign(["0", "1"], 7, 2),
        "box_head": det.faster_rcnn.TwoMLPHead(16 * 49, 32),
        "box_predictor": det.faster_rcnn.FastRCNNPredictor(32, num_classes),
        "rpn_pre_nms_top_n_test": 60, "rpn_post_nms_top_n_test": 25, "rpn_pre_nms_top_n_train": 60,
        "rpn_post_nms_top_n_train": 25, "box_detections_per_img": 6,
        "rpn_batch_size_per_image": 10**6, "box_batch_size_per_image": 10**6}
    if kind == "mask":
        args.update(mask_roi_pool=ops.MultiScaleRoIAlign(["0", "1"], 14, 2),
                    mask_head=det.mask_rcnn.MaskRCNNHeads(16, (16, 16), 1),
                    mask_predictor=det.mask_rcnn.MaskRCNNPredictor(16, 8, num_classes))
        cls = det.MaskRCNN
    elif kind == "keypoint":
        args.update(keypoint_roi_pool=ops.MultiScaleRoIAlign(["0", "1"], 7, 2),
                    keypoint_head=det.keypoint_rcnn.KeypointRCNNHeads(16, (16, 16)),
                    keypoint_predictor=det.keypoint_rcnn.KeypointRCNNPredictor(16, 4))
        cls = det.KeypointRCNN
    else:
        cls = det.FasterRCNN
    args.update(kw)
    return cls(backbone, None, **args)


def _pair(tv, kind="faster", **kw):
    torch.manual_seed(0)
    ref = _tiny(torch, tv, kind, **kw).double()
    ours = _tiny(jtorch, tv, kind, **kw).double()
    copy_weights(ref, ours)
    return ref, ours


SIZES = [(100, 130), (120, 90)]


def _images():
    rng = np.random.default_rng(0)
    return [rng.random((3, h, w)) for h, w in SIZES]


def _targets(kind):
    rng = np.random.default_rng(1)
    out = []
    for (h, w), n in zip(SIZES, (3, 2)):
        x1 = rng.uniform(0, w * 0.5, n)
        y1 = rng.uniform(0, h * 0.5, n)
        boxes = np.stack([x1, y1, x1 + rng.uniform(12, w * 0.5, n),
                          y1 + rng.uniform(12, h * 0.5, n)], 1)
        t = {"boxes": boxes, "labels": rng.integers(1, 3, n)}
        if kind == "mask":
            t["masks"] = (rng.random((n, h, w)) > 0.5).astype(np.uint8)
        if kind == "keypoint":
            kp = np.stack([boxes[:, None, 0] + rng.random((n, 4)) * (boxes[:, None, 2]
                                                                     - boxes[:, None, 0]),
                           boxes[:, None, 1] + rng.random((n, 4)) * (boxes[:, None, 3]
                                                                     - boxes[:, None, 1]),
                           rng.integers(0, 2, (n, 4))], 2)
            t["keypoints"] = kp.astype(np.float32)
        out.append(t)
    return out


def _to(lib, arrays):
    return ([lib.tensor(a) for a in arrays] if isinstance(arrays, list) and
            not isinstance(arrays[0], dict) else
            [{k: lib.tensor(v) for k, v in t.items()} for t in arrays])


def _check_eval(ref, ours, keys):
    ref.eval()
    ours.eval()
    with torch.no_grad():
        expected = ref(_to(torch, _images()))
    with jtorch.no_grad():
        got = ours(_to(jtorch, _images()))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert sorted(g) == sorted(e) == sorted(keys)
        assert e["boxes"].shape[0] > 0
        for k in keys:
            _close(g[k], e[k])
    return got


def _check_train(ref, ours, kind):
    ref.train()
    ours.train()
    losses_ref = ref(_to(torch, _images()), _to(torch, _targets(kind)))
    losses = ours(_to(jtorch, _images()), _to(jtorch, _targets(kind)))
    assert list(losses) == list(losses_ref)
    for k in losses_ref:
        _close(losses[k], losses_ref[k])
    sum(losses_ref.values()).backward()
    sum(losses.values()).backward()
    params = dict(ours.named_parameters())
    for name, p in ref.named_parameters():
        assert (p.grad is None) == (params[name].grad is None), name
        if p.grad is not None:  # the float32 objectness loss rounds what flows back
            _close(params[name].grad, p.grad, rtol=1e-6,
                   atol=1e-7 * max(1.0, float(p.grad.abs().max())))


def test_faster_rcnn_parity(tv):
    ref, ours = _pair(tv)
    _check_eval(ref, ours, ["boxes", "labels", "scores"])
    _check_train(ref, ours, "faster")


def test_mask_rcnn_parity(tv):
    ref, ours = _pair(tv, "mask")
    _check_eval(ref, ours, ["boxes", "labels", "scores", "masks"])
    _check_train(ref, ours, "mask")


def test_keypoint_rcnn_parity(tv):
    ref, ours = _pair(tv, "keypoint")
    _check_eval(ref, ours, ["boxes", "labels", "scores", "keypoints", "keypoints_scores"])
    _check_train(ref, ours, "keypoint")


def test_eval_no_detections_and_transform(tv):
    """A score threshold above every score: empty detections of torchvision's shapes and
    dtypes (masks ``(0, 1, H, W)``); the transform's batch, sizes, targets and repr."""
    ref, ours = _pair(tv, "mask", box_score_thresh=0.99)
    ref.eval()
    ours.eval()
    with torch.no_grad():
        expected = ref(_to(torch, _images()))
    got = ours(_to(jtorch, _images()))
    for g, e in zip(got, expected):
        for k in e:
            _close(g[k], e[k])
    images, targets = ours.transform(_to(jtorch, _images()), _to(jtorch, _targets("mask")))
    ref_images, ref_targets = ref.transform(_to(torch, _images()), _to(torch, _targets("mask")))
    _close(images.tensors, ref_images.tensors)
    assert images.image_sizes == [tuple(s) for s in ref_images.image_sizes]
    for t, rt in zip(targets, ref_targets):
        for k in rt:
            _close(t[k], rt[k])
    assert repr(ours.transform) == repr(ref.transform)


# ------------------------------------------------------------------ the parts
def test_box_coder_matcher_sampler(tv):
    """BoxCoder (weights, clamped log-sizes), BoxLinearCoder, Matcher (low-quality matches
    with ties), SSDMatcher and the sampler's counts, in float32 against torchvision's."""
    tdu = tv.models.detection._utils
    rng = np.random.default_rng(3)
    xy = rng.uniform(0, 50, (6, 2)).astype(np.float32)
    boxes = np.concatenate([xy, xy + rng.uniform(1, 30, (6, 2)).astype(np.float32)], 1)
    ref_boxes = boxes[::-1].copy()
    codes = rng.normal(size=(6, 8)).astype(np.float32) * 3
    for cls, args in ((tdu.BoxCoder, ((10.0, 10.0, 5.0, 5.0),)), (tdu.BoxCoder, ((1.0,) * 4,))):
        mine = getattr(jdet._utils, cls.__name__)(*args)
        theirs = cls(*args)
        _close(mine.encode_single(jtorch.tensor(ref_boxes), jtorch.tensor(boxes)),
               theirs.encode_single(torch.tensor(ref_boxes), torch.tensor(boxes)))
        _close(mine.decode(jtorch.tensor(codes), [jtorch.tensor(boxes)]),
               theirs.decode(torch.tensor(codes), [torch.tensor(boxes)]))
    for normalize in (True, False):
        mine, theirs = jdet._utils.BoxLinearCoder(normalize), tdu.BoxLinearCoder(normalize)
        _close(mine.encode(jtorch.tensor(ref_boxes), jtorch.tensor(boxes)),
               theirs.encode(torch.tensor(ref_boxes), torch.tensor(boxes)))
        _close(mine.decode(jtorch.tensor(codes[:, :4]), jtorch.tensor(boxes)),
               theirs.decode(torch.tensor(codes[:, :4]), torch.tensor(boxes)))
    iou = np.round(rng.random((3, 7)), 1).astype(np.float32)  # ties
    for args in ((0.7, 0.3, True), (0.5, 0.5, False), (0.6, 0.2, False)):
        _close(jdet._utils.Matcher(*args)(jtorch.tensor(iou)),
               tdu.Matcher(*args)(torch.tensor(iou)))
    _close(jdet._utils.SSDMatcher(0.5)(jtorch.tensor(iou)), tdu.SSDMatcher(0.5)(torch.tensor(iou)))
    matched = jtorch.tensor([-1, 0, 1, 2, 0, 0, -2, 1, 0, 3])
    pos, neg = jdet._utils.BalancedPositiveNegativeSampler(4, 0.25)([matched])
    assert int(pos[0].sum()) == 1 and int(neg[0].sum()) == 3 and pos[0].dtype == jtorch.uint8
    assert bool(((pos[0] > 0) <= (matched >= 1)).all() and ((neg[0] > 0) <= (matched == 0)).all())
    with pytest.raises(ValueError, match="No ground-truth boxes available"):
        jdet._utils.Matcher(0.5, 0.4)(jtorch.zeros((0, 3)))
    with pytest.raises(ValueError, match="No proposal boxes available"):
        jdet._utils.Matcher(0.5, 0.4)(jtorch.zeros((2, 0)))


def test_anchors_masks_keypoints(tv):
    """AnchorGenerator on two levels, paste_masks_in_image (boxes crossing the borders),
    heatmaps_to_keypoints, keypoints_to_heatmap, resize_boxes/resize_keypoints, in float32."""
    tdet = tv.models.detection
    images = tdet.image_list.ImageList(torch.zeros(2, 3, 64, 96), [(60, 90), (64, 80)])
    mine_images = jdet.image_list.ImageList(jtorch.zeros(2, 3, 64, 96), [(60, 90), (64, 80)])
    feats = [torch.zeros(2, 4, 16, 24), torch.zeros(2, 4, 8, 12)]
    args = (((16, 24), (40,)), ((0.5, 1.0), (1.0, 2.0, 3.0)))
    ref = tdet.anchor_utils.AnchorGenerator(*args)(images, feats)
    got = jdet.anchor_utils.AnchorGenerator(*args)(mine_images, [to_jtorch(f) for f in feats])
    for g, r in zip(got, ref):
        _close(g, r)
    assert jdet.anchor_utils.AnchorGenerator(*args).num_anchors_per_location() == [4, 3]
    rng = np.random.default_rng(5)
    masks = rng.random((4, 1, 14, 14)).astype(np.float32)
    boxes = np.array([[3.2, 4.7, 30.1, 20.9], [-5.0, 10.0, 12.0, 70.0], [50.0, 2.0, 80.0, 9.0],
                      [1.0, 1.0, 1.5, 1.2]], np.float32)
    _close(jdet.roi_heads.paste_masks_in_image(jtorch.tensor(masks), jtorch.tensor(boxes),
                                               (40, 60)),
           tdet.roi_heads.paste_masks_in_image(torch.tensor(masks), torch.tensor(boxes), (40, 60)))
    maps = rng.normal(size=(4, 3, 8, 8)).astype(np.float32)
    for g, r in zip(jdet.roi_heads.heatmaps_to_keypoints(jtorch.tensor(maps), jtorch.tensor(boxes)),
                    tdet.roi_heads.heatmaps_to_keypoints(torch.tensor(maps), torch.tensor(boxes))):
        _close(g, r)
    kp = np.concatenate([rng.uniform(-5, 40, (4, 3, 2)), rng.integers(0, 2, (4, 3, 1))],
                        2).astype(np.float32)
    kp[0, 0, :2] = boxes[0, 2:]  # on the far boundary
    for g, r in zip(jdet.roi_heads.keypoints_to_heatmap(jtorch.tensor(kp), jtorch.tensor(boxes), 8),
                    tdet.roi_heads.keypoints_to_heatmap(torch.tensor(kp), torch.tensor(boxes), 8)):
        _close(g, r)
    _close(jdet.transform.resize_boxes(jtorch.tensor(boxes), (40, 60), (57, 33)),
           tdet.transform.resize_boxes(torch.tensor(boxes), (40, 60), (57, 33)))
    _close(jdet.transform.resize_keypoints(jtorch.tensor(kp), (40, 60), (57, 33)),
           tdet.transform.resize_keypoints(torch.tensor(kp), (40, 60), (57, 33)))


# ------------------------------------------------------------------ errors
def _raises_same(jt_call, tv_call):
    with pytest.raises(Exception) as ref:
        tv_call()
    with pytest.raises(type(ref.value)) as got:
        jt_call()
    assert str(got.value) == str(ref.value)


def test_errors(tv):
    """torchvision's exception types and texts: targets missing in training, boxes of the
    wrong shape or type, degenerate boxes, integer images, 2-D images, wrong label and
    keypoint dtypes, missing masks, and the constructors' argument checks."""
    ref, ours = _pair(tv, "mask")
    ref.train()
    ours.train()

    def both(images, targets):
        return (lambda: ours(_to(jtorch, images), targets and _to(jtorch, targets)),
                lambda: ref(_to(torch, images), targets and _to(torch, targets)))

    _raises_same(*both(_images(), None))
    bad = _targets("mask")
    bad[1]["boxes"] = bad[1]["boxes"][:, :3]
    _raises_same(*both(_images(), bad))
    bad = _targets("mask")
    bad[1]["boxes"][1, 2] = bad[1]["boxes"][1, 0]
    _raises_same(*both(_images(), bad))
    bad = _targets("mask")
    bad[0]["labels"] = bad[0]["labels"].astype(np.int32)
    _raises_same(*both(_images(), bad))
    bad = _targets("mask")
    del bad[0]["masks"]
    _raises_same(*both(_images(), bad))
    _raises_same(lambda: ours([jtorch.zeros(3, 20, 20, dtype=jtorch.uint8)], None),
                 lambda: ref([torch.zeros(3, 20, 20, dtype=torch.uint8)], None))
    ours.eval()
    ref.eval()
    _raises_same(lambda: ours([jtorch.zeros(20, 20)]), lambda: ref([torch.zeros(20, 20)]))
    kref, kours = _pair(tv, "keypoint")
    bad = _targets("keypoint")
    bad[0]["keypoints"] = bad[0]["keypoints"].astype(np.float64)
    _raises_same(lambda: kours(_to(jtorch, _images()), _to(jtorch, bad)),
                 lambda: kref(_to(torch, _images()), _to(torch, bad)))
    body = ours.backbone
    _raises_same(lambda: jdet.FasterRCNN(body), lambda: tv.models.detection.FasterRCNN(
        ref.backbone))
    _raises_same(lambda: jdet.FasterRCNN(jtorch.nn.Identity(), 3),
                 lambda: tv.models.detection.FasterRCNN(torch.nn.Identity(), 3))
    _raises_same(lambda: jdet.FasterRCNN(body, 3, box_predictor=jtorch.nn.Identity()),
                 lambda: tv.models.detection.FasterRCNN(ref.backbone, 3,
                                                        box_predictor=torch.nn.Identity()))
    _raises_same(lambda: jdet.FasterRCNN(body, 3, rpn_anchor_generator=1),
                 lambda: tv.models.detection.FasterRCNN(ref.backbone, 3, rpn_anchor_generator=1))
    _raises_same(lambda: jdet.MaskRCNN(body, 3, mask_roi_pool=1),
                 lambda: tv.models.detection.MaskRCNN(ref.backbone, 3, mask_roi_pool=1))
    _raises_same(lambda: jdet.KeypointRCNN(body, 3, keypoint_roi_pool=1),
                 lambda: tv.models.detection.KeypointRCNN(ref.backbone, 3, keypoint_roi_pool=1))


# ------------------------------------------------------------------ builders and weights
BUILDERS = ["fasterrcnn_resnet50_fpn", "fasterrcnn_resnet50_fpn_v2",
            "fasterrcnn_mobilenet_v3_large_fpn", "fasterrcnn_mobilenet_v3_large_320_fpn",
            "maskrcnn_resnet50_fpn", "maskrcnn_resnet50_fpn_v2", "keypointrcnn_resnet50_fpn"]


def _tree(model):
    return [(name, type(m).__name__) for name, m in model.named_modules()]


@pytest.mark.parametrize("name", BUILDERS)
def test_builder_structure(tv, name):
    """weights=None, weights_backbone=None: the same state_dict keys, shapes and dtypes, the
    same module tree and trainable parameters, the same transform and RPN/RoI settings."""
    kwargs = {"weights": None, "weights_backbone": None}
    ref = getattr(tv.models.detection, name)(**kwargs)
    ours = getattr(jdet, name)(**kwargs)
    theirs = {k: (tuple(v.shape), str(v.dtype).split(".")[-1]) for k, v in
              ref.state_dict().items()}
    mine = {k: (tuple(v.shape), str(v.dtype).split(".")[-1]) for k, v in
            ours.state_dict().items()}
    assert list(mine) == list(theirs)
    assert mine == theirs
    assert _tree(ours) == _tree(ref)
    assert ([n for n, p in ours.named_parameters() if p.requires_grad]
            == [n for n, p in ref.named_parameters() if p.requires_grad])
    assert repr(ours.transform) == repr(ref.transform)
    for attr in ("_pre_nms_top_n", "_post_nms_top_n", "nms_thresh", "score_thresh"):
        assert getattr(ours.rpn, attr) == getattr(ref.rpn, attr)
    for attr in ("score_thresh", "nms_thresh", "detections_per_img"):
        assert getattr(ours.roi_heads, attr) == getattr(ref.roi_heads, attr)
    assert ours.rpn.anchor_generator.sizes == ref.rpn.anchor_generator.sizes


def test_builder_arguments(tv):
    """trainable_backbone_layers without weights warns and trains everything; out of range
    raises; num_classes against weights; legacy pretrained; the registry and enums."""
    with pytest.warns(UserWarning) as ours_w:
        ours = jdet.fasterrcnn_mobilenet_v3_large_fpn(weights_backbone=None,
                                                      trainable_backbone_layers=2)
    with pytest.warns(UserWarning) as ref_w:
        ref = tv.models.detection.fasterrcnn_mobilenet_v3_large_fpn(
            weights_backbone=None, trainable_backbone_layers=2)
    assert [str(w.message) for w in ours_w] == [str(w.message) for w in ref_w]
    assert ([n for n, p in ours.named_parameters() if p.requires_grad]
            == [n for n, p in ref.named_parameters() if p.requires_grad])
    frozen = jdet.backbone_utils.resnet_fpn_backbone(backbone_name="resnet18", weights=None,
                                                     trainable_layers=2)
    ref_frozen = tv.models.detection.backbone_utils.resnet_fpn_backbone(
        backbone_name="resnet18", weights=None, trainable_layers=2)
    assert ([n for n, p in frozen.named_parameters() if p.requires_grad]
            == [n for n, p in ref_frozen.named_parameters() if p.requires_grad])
    assert list(frozen.state_dict()) == list(ref_frozen.state_dict())
    mob = jdet.backbone_utils.mobilenet_backbone(backbone_name="mobilenet_v3_small",
                                                 weights=None, fpn=False, trainable_layers=1)
    ref_mob = tv.models.detection.backbone_utils.mobilenet_backbone(
        backbone_name="mobilenet_v3_small", weights=None, fpn=False, trainable_layers=1)
    assert list(mob.state_dict()) == list(ref_mob.state_dict()) and mob.out_channels == 256
    _raises_same(lambda: jdet.backbone_utils._resnet_fpn_extractor(
                     models.resnet18(), 3, returned_layers=[0, 2]),
                 lambda: tv.models.detection.backbone_utils._resnet_fpn_extractor(
                     tv.models.resnet18(), 3, returned_layers=[0, 2]))
    _raises_same(lambda: jdet.backbone_utils._validate_trainable_layers(True, 7, 5, 3),
                 lambda: tv.models.detection.backbone_utils._validate_trainable_layers(
                     True, 7, 5, 3))
    _raises_same(lambda: jdet.fasterrcnn_resnet50_fpn(weights="DEFAULT", num_classes=5),
                 lambda: tv.models.detection.fasterrcnn_resnet50_fpn(weights="DEFAULT",
                                                                     num_classes=5))
    for name in BUILDERS:
        assert models.get_model_builder(name) is getattr(jdet, name)
        assert models.get_model_weights(name).__name__ == \
            tv.models.get_model_weights(name).__name__
    assert models.list_models(module=jdet) == sorted(BUILDERS + ONE_STAGE_BUILDERS)


def test_weights_enums(tv):
    """Every two-stage weights enum: members, aliases, urls, meta (COCO categories, keypoint
    names) and the ObjectDetection preset (repr, describe, output)."""
    names = [n for n in dir(tv.models.detection) if n.endswith("_Weights")
             and not is_stand_in(getattr(jdet, n))]
    assert len(names) == 10
    for name in names:
        mine, theirs = getattr(jdet, name), getattr(tv.models.detection, name)
        assert list(mine.__members__) == list(theirs.__members__)
        for member in theirs:
            m = mine[member.name]
            assert m.url == member.url and m.meta == member.meta, (name, member.name)
            assert m.transforms.__name__ == member.transforms.__name__
    preset, ref_preset = jdet.FasterRCNN_ResNet50_FPN_Weights.DEFAULT.transforms(), \
        tv.models.detection.FasterRCNN_ResNet50_FPN_Weights.DEFAULT.transforms()
    assert repr(preset) == repr(ref_preset) and preset.describe() == ref_preset.describe()
    img = np.random.default_rng(0).integers(0, 256, (3, 5, 7), dtype=np.uint8)
    _close(preset(jtorch.tensor(img)), ref_preset(torch.tensor(img)))
    assert models.get_weight("MaskRCNN_ResNet50_FPN_V2_Weights.COCO_V1") is \
        jdet.MaskRCNN_ResNet50_FPN_V2_Weights.COCO_V1


def test_package_names(tv):
    """Every public name of torchvision's detection package and its submodules exists: the
    two-stage models' parts are real (one object in the package and the submodule), the
    one-stage detectors and DefaultBoxGenerator stand-ins."""
    tvd = tv.models.detection
    one_stage = {"ssd", "ssdlite"}
    for sub in [m.name for m in pkgutil.iter_modules(tvd.__path__)]:
        mine = importlib.import_module(f"jtorch.vision.models.detection.{sub}")
        tsub = importlib.import_module(f"torchvision.models.detection.{sub}")
        assert getattr(jdet, sub) is mine
        assert AliasFinder().find_spec(f"torchvision.models.detection.{sub}") is not None
        assert getattr(mine, "__all__", None) == (list(tsub.__all__)
                                                  if hasattr(tsub, "__all__") else None)
        for name, obj in vars(tsub).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != tsub.__name__:
                continue
            assert hasattr(mine, name), (sub, name)
            if name in getattr(tsub, "__all__", ()):
                assert getattr(mine, name) is getattr(jdet, name), (sub, name)
            implemented = sub not in one_stage and name != "DefaultBoxGenerator"
            assert is_stand_in(getattr(mine, name)) != implemented, (sub, name)
    public = [n for n, v in vars(tvd).items() if not n.startswith("_")
              and not isinstance(v, type(tvd))]
    assert sorted(public) == jdet.__all__
    with pytest.raises(NotImplementedError, match="torchvision.models.detection.ssd300_vgg16"):
        jdet.ssd300_vgg16(weights=None)


def test_weights_from_hub_cache(tv, tmp_path, monkeypatch):
    """``weights=`` reads torchvision's checkpoint from the hub cache (written by real torch;
    there is no network): frozen batch norm, 91 classes, the values loaded; without the file
    the error names it. ``overwrite_eps`` sets every FrozenBatchNorm2d's eps."""
    old = jtorch.hub._hub_dir
    jtorch.hub.set_dir(str(tmp_path / "hub"))
    monkeypatch.setattr(jtorch.hub, "urlopen", lambda *a, **k: (_ for _ in ()).throw(
        OSError("no network")))
    try:
        weights = jdet.FasterRCNN_MobileNet_V3_Large_320_FPN_Weights.DEFAULT
        with pytest.raises(RuntimeError, match=os.path.basename(weights.url)):
            jdet.fasterrcnn_mobilenet_v3_large_320_fpn(weights=weights)
        torch.manual_seed(0)
        ref = tv.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(weights_backbone=None)
        path = tmp_path / "hub" / "checkpoints" / os.path.basename(weights.url)
        os.makedirs(path.parent, exist_ok=True)
        torch.save(ref.state_dict(), path)
        got = jdet.fasterrcnn_mobilenet_v3_large_320_fpn(weights="DEFAULT", progress=False)
        assert isinstance(got.backbone.body["0"][1], jops.FrozenBatchNorm2d)
        gs = got.state_dict()
        for k, v in ref.state_dict().items():
            if not k.endswith("num_batches_tracked"):
                np.testing.assert_array_equal(gs[k].numpy(), v.numpy(), err_msg=k)
        jdet._utils.overwrite_eps(got, 0.0)
        assert {m.eps for m in got.modules() if isinstance(m, jops.FrozenBatchNorm2d)} == {0.0}
    finally:
        jtorch.hub._hub_dir = old


@pytest.mark.slow
def test_fasterrcnn_resnet50_fpn_forward(tv):
    """The full ResNet-50-FPN Faster R-CNN (random weights, batch norm in eval) on one small
    image, float32: the same detections."""
    torch.manual_seed(0)
    kwargs = {"weights": None, "weights_backbone": None, "num_classes": 5, "min_size": 160,
              "max_size": 200, "rpn_pre_nms_top_n_test": 100, "rpn_post_nms_top_n_test": 30,
              "box_detections_per_img": 10, "box_score_thresh": 0.0}
    ref = tv.models.detection.fasterrcnn_resnet50_fpn(**kwargs).eval()
    ours = copy_weights(ref, jdet.fasterrcnn_resnet50_fpn(**kwargs)).eval()
    img = np.random.default_rng(0).random((3, 150, 190)).astype(np.float32)
    with torch.no_grad():
        expected = ref([torch.tensor(img)])[0]
    with jtorch.no_grad():
        got = ours([jtorch.tensor(img)])[0]
    for k in ("boxes", "labels", "scores"):
        _close(got[k], expected[k], rtol=1e-4, atol=1e-3)


# ------------------------------------------------------------------ one-stage detectors
ONE_STAGE_BUILDERS = ["retinanet_resnet50_fpn", "retinanet_resnet50_fpn_v2", "fcos_resnet50_fpn"]


@pytest.mark.parametrize("name", ONE_STAGE_BUILDERS)
def test_one_stage_builder_structure(tv, name):
    """weights=None, weights_backbone=None: the same state_dict keys, shapes and dtypes,
    module tree, trainable parameters, transform, thresholds and anchors as torchvision's."""
    kwargs = {"weights": None, "weights_backbone": None}
    ref = getattr(tv.models.detection, name)(**kwargs)
    ours = getattr(jdet, name)(**kwargs)
    theirs = {k: (tuple(v.shape), str(v.dtype).split(".")[-1]) for k, v in
              ref.state_dict().items()}
    mine = {k: (tuple(v.shape), str(v.dtype).split(".")[-1]) for k, v in
            ours.state_dict().items()}
    assert list(mine) == list(theirs)
    assert mine == theirs
    assert _tree(ours) == _tree(ref)
    assert ([n for n, p in ours.named_parameters() if p.requires_grad]
            == [n for n, p in ref.named_parameters() if p.requires_grad])
    assert repr(ours.transform) == repr(ref.transform)
    for attr in ("score_thresh", "nms_thresh", "detections_per_img", "topk_candidates"):
        assert getattr(ours, attr) == getattr(ref, attr)
    assert ours.anchor_generator.sizes == ref.anchor_generator.sizes
    if name.startswith("retinanet"):
        assert ours.head.regression_head._loss_type == ref.head.regression_head._loss_type
    else:
        assert ours.center_sampling_radius == ref.center_sampling_radius


def _tiny_retinanet(lib, tvlib, v2=False, num_classes=3, **kw):
    """RetinaNet on the tiny two-level FPN (three levels with the max pool), two anchor
    sizes x three ratios; v2: GroupNorm(4) heads and the GIoU box loss."""
    nn, det, _ = _parts(lib, tvlib)
    body = nn.Sequential(OrderedDict([
        ("c1", nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU())),
        ("c2", nn.Sequential(nn.Conv2d(8, 16, 3, 2, 1), nn.ReLU()))]))
    backbone = det.backbone_utils.BackboneWithFPN(body, {"c1": "0", "c2": "1"}, [8, 16], 16)
    anchors = det.anchor_utils.AnchorGenerator(((16, 24), (32, 40), (64, 80)),
                                               ((0.5, 1.0, 2.0),) * 3)
    head = det.retinanet.RetinaNetHead(16, 6, num_classes, norm_layer=(
        (lambda c: nn.GroupNorm(4, c)) if v2 else None))
    if v2:
        head.regression_head._loss_type = "giou"
    args = {"min_size": 128, "max_size": 176, "anchor_generator": anchors, "head": head,
            "score_thresh": 0.0, "topk_candidates": 40, "detections_per_img": 15, **kw}
    return det.RetinaNet(backbone, num_classes, **args)


@pytest.mark.parametrize("v2", [False, True])
def test_retinanet_parity(tv, v2):
    """Tiny RetinaNet (v1: L1 box loss; v2: GroupNorm heads, GIoU) with torchvision's weights
    (the biases perturbed so that the heads' outputs vary): eval detections, the focal and box
    losses, and every parameter's gradient, in float64; (v2) an image without boxes in
    training."""
    torch.manual_seed(0)
    ref = _tiny_retinanet(torch, tv, v2).double()
    with torch.no_grad():
        for p in ref.head.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    ours = _tiny_retinanet(jtorch, tv, v2).double()
    copy_weights(ref, ours)
    _check_eval(ref, ours, ["boxes", "labels", "scores"])
    _check_train(ref, ours, "faster")
    if not v2:
        return
    targets = _targets("faster")
    targets[1] = {"boxes": np.zeros((0, 4)), "labels": np.zeros((0,), np.int64)}
    losses_ref = ref(_to(torch, _images()), _to(torch, targets))
    losses = ours(_to(jtorch, _images()), _to(jtorch, targets))
    for k in losses_ref:
        _close(losses[k], losses_ref[k])


def test_retinanet_errors_and_legacy_keys(tv):
    """torchvision's errors (targets missing or malformed, degenerate boxes, a bad anchor
    generator or backbone) and the pre-0.13 head keys (``conv.{2i}``) renamed on load."""
    torch.manual_seed(0)
    ref = _tiny_retinanet(torch, tv).double()
    ours = _tiny_retinanet(jtorch, tv).double()
    copy_weights(ref, ours)
    _raises_same(lambda: ours(_to(jtorch, _images())), lambda: ref(_to(torch, _images())))
    bad = _targets("faster")
    bad[1]["boxes"] = bad[1]["boxes"][:, :3]
    _raises_same(lambda: ours(_to(jtorch, _images()), _to(jtorch, bad)),
                 lambda: ref(_to(torch, _images()), _to(torch, bad)))
    bad = _targets("faster")
    bad[1]["boxes"][1, 2] = bad[1]["boxes"][1, 0]
    _raises_same(lambda: ours(_to(jtorch, _images()), _to(jtorch, bad)),
                 lambda: ref(_to(torch, _images()), _to(torch, bad)))
    _raises_same(lambda: jdet.RetinaNet(ours.backbone, 3, anchor_generator=1),
                 lambda: tv.models.detection.RetinaNet(ref.backbone, 3, anchor_generator=1))
    _raises_same(lambda: jdet.RetinaNet(jtorch.nn.Identity(), 3),
                 lambda: tv.models.detection.RetinaNet(torch.nn.Identity(), 3))
    state = ref.head.state_dict()
    old = OrderedDict()
    for k, v in state.items():
        parts = k.split(".")
        if parts[1] == "conv":  # classification_head.conv.{i}.0.weight -> conv.{2i}.weight
            k = ".".join(parts[:2] + [str(2 * int(parts[2]))] + parts[4:])
        old[k] = to_jtorch(v)
    head = jdet.retinanet.RetinaNetHead(16, 6, 3).double()
    head.load_state_dict(old)  # no version metadata: an old checkpoint
    for k, v in state.items():
        np.testing.assert_array_equal(head.state_dict()[k].numpy(), v.numpy(), err_msg=k)


def _tiny_fcos(lib, tvlib, num_classes=3, **kw):
    """FCOS on the tiny two-level FPN (three levels, 32 channels for the heads' GroupNorm(32)),
    heads of two convolutions, one point per location (sizes 4, 8, 16: the levels' strides)."""
    nn, det, _ = _parts(lib, tvlib)
    body = nn.Sequential(OrderedDict([
        ("c1", nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU())),
        ("c2", nn.Sequential(nn.Conv2d(8, 16, 3, 2, 1), nn.ReLU()))]))
    backbone = det.backbone_utils.BackboneWithFPN(body, {"c1": "0", "c2": "1"}, [8, 16], 32)
    anchors = det.anchor_utils.AnchorGenerator(((4,), (8,), (16,)), ((1.0,),) * 3)
    head = det.fcos.FCOSHead(32, 1, num_classes, num_convs=2)
    args = {"min_size": 128, "max_size": 176, "anchor_generator": anchors, "head": head,
            "score_thresh": 0.05, "topk_candidates": 40, "detections_per_img": 15, **kw}
    return det.FCOS(backbone, num_classes, **args)


def _fcos_pair(tv):
    torch.manual_seed(0)
    ref = _tiny_fcos(torch, tv).double()
    with torch.no_grad():
        for p in ref.head.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    ours = _tiny_fcos(jtorch, tv).double()
    copy_weights(ref, ours)
    return ref, ours


@pytest.mark.slow
def test_fcos_parity(tv):
    """Tiny FCOS with torchvision's weights (head biases perturbed): eval detections, the
    focal, GIoU and center-ness losses and every gradient in float64; an image without boxes.
    About 35 s (the GroupNorm heads' kernels compile)."""
    ref, ours = _fcos_pair(tv)
    _check_eval(ref, ours, ["boxes", "labels", "scores"])
    _check_train(ref, ours, "faster")
    targets = _targets("faster")
    targets[1] = {"boxes": np.zeros((0, 4)), "labels": np.zeros((0,), np.int64)}
    losses_ref = ref(_to(torch, _images()), _to(torch, targets))
    losses = ours(_to(jtorch, _images()), _to(jtorch, targets))
    for k in losses_ref:
        _close(losses[k], losses_ref[k])


def test_fcos_errors(tv):
    """FCOS raises torchvision's errors: malformed target boxes (the shape named), a bad
    anchor generator, more than one anchor per location."""
    ref, ours = _fcos_pair(tv)
    ref.train()
    ours.train()
    bad = _targets("faster")
    bad[1]["boxes"] = bad[1]["boxes"][:, :3]
    _raises_same(lambda: ours(_to(jtorch, _images()), _to(jtorch, bad)),
                 lambda: ref(_to(torch, _images()), _to(torch, bad)))
    _raises_same(lambda: jdet.FCOS(ours.backbone, 3, anchor_generator=1),
                 lambda: tv.models.detection.FCOS(ref.backbone, 3, anchor_generator=1))
    _raises_same(lambda: jdet.FCOS(ours.backbone, 3,
                                   anchor_generator=jdet.anchor_utils.AnchorGenerator()),
                 lambda: tv.models.detection.FCOS(
                     ref.backbone, 3, anchor_generator=tv.models.detection.anchor_utils
                     .AnchorGenerator()))
