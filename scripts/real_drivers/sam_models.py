"""Driver of segment-anything (Meta's SAM 1.0, docs/real-programs.md): the installed package,
unchanged, on a seeded random-weight SAM (no checkpoint) shrunk for speed: an ImageEncoderViT of
depth 2 (embed_dim 64, 128x128 images in 8x8 patches, windowed attention with padding and one
global-attention block, relative positional embeddings), a PromptEncoder (points, boxes, masks)
and a MaskDecoder (TwoWayTransformer), run through ``Sam.forward``, ``SamPredictor``
(``set_image``, ``predict``, batched ``predict_torch``), ``SamAutomaticMaskGenerator.generate``
(one crop layer, torchvision's ``batched_nms``, binary-mask and uncompressed-RLE output),
``SamOnnxModel``, ``ResizeLongestSide``, the ``utils.amg`` helpers, a few Adam steps of the
mask decoder on a focal+dice+IoU loss against synthetic masks, and the registry's full-size
``vit_b`` (prompt encoder and mask decoder on a random image embedding), printing each
result's checksum (sums and largest magnitude) at full precision.

    python scripts/shared_rng_run.py drive_sam.py [VARIANT[32|64] ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_sam.py [VARIANT[32|64] ... | all]   # jtorch

Without arguments it runs every variant (``all`` too), each in float32 and float64 unless it
is float32 only (the registry, the predictor and the mask generator: SamPredictor makes its
prompts ``torch.float``). Each run reseeds (``torch.manual_seed``), so a subset prints what the
full run prints for it. In float64 the model is ``.to(torch.float64)`` but for the prompt
encoder's random Fourier matrix, which stays float32: PromptEncoder casts coordinates to
``torch.float`` before multiplying by it.

Under real PyTorch the CPU torchvision wheel cannot load its C++ operators: its fake/autograd
registrations fail at import (stood in by empty modules, as tests/vision_helpers.py does) and
``torchvision.ops.nms`` has no kernel, so ``torchvision.ops.boxes.nms`` is replaced by a greedy
NMS written in torch the way torchvision's CPU kernel computes it (stable descending sort,
``inter / (area_i + area_j - inter) > threshold`` in double). Under jtorch torchvision is
jtorch.vision and runs its own nms.
"""

import os
import sys
import time
import types
from functools import partial

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

_JTORCH = torch is sys.modules.get("jtorch")
if "torchvision" not in sys.modules and not _JTORCH:
    for _name in ("torchvision._meta_registrations", "torchvision._autograd_registrations"):
        sys.modules.setdefault(_name, types.ModuleType(_name))

import torchvision  # noqa: E402
import torchvision.ops.boxes  # noqa: E402

if not _JTORCH:
    def _nms(boxes, scores, iou_threshold):
        """torchvision's CPU nms kernel, in torch (the wheel's C++ operator cannot load)."""
        order = scores.sort(stable=True, descending=True)[1]
        b = boxes[order]
        area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
        suppressed = [False] * len(order)
        keep = []
        for i in range(len(order)):
            if suppressed[i]:
                continue
            keep.append(int(order[i]))
            w = (torch.minimum(b[i, 2], b[i + 1:, 2]) - torch.maximum(b[i, 0], b[i + 1:, 0]))
            h = (torch.minimum(b[i, 3], b[i + 1:, 3]) - torch.maximum(b[i, 1], b[i + 1:, 1]))
            inter = w.clamp(min=0) * h.clamp(min=0)
            over = (inter / (area[i] + area[i + 1:] - inter)).double() > iou_threshold
            for j in torch.nonzero(over).flatten().tolist():
                suppressed[i + 1 + j] = True
        return torch.tensor(keep, dtype=torch.int64)

    torchvision.ops.boxes.nms = _nms

from segment_anything import (  # noqa: E402
    SamAutomaticMaskGenerator,
    SamPredictor,
    sam_model_registry,
)
from segment_anything.modeling import (  # noqa: E402
    ImageEncoderViT,
    MaskDecoder,
    PromptEncoder,
    Sam,
    TwoWayTransformer,
)
from segment_anything.utils import amg  # noqa: E402
from segment_anything.utils.onnx import SamOnnxModel  # noqa: E402
from segment_anything.utils.transforms import ResizeLongestSide  # noqa: E402

IMG, PATCH, EMB = 128, 8, 32   # image side, patch side, prompt embedding width
GRID = IMG // PATCH            # 16x16 image embedding; low-res masks are 4 * GRID = 64
DT = [torch.float32]
FLOAT32_ONLY = {"registry", "predictor", "amg", "transforms", "amg_utils"}

VARIANTS = {}


def variant(name):
    """Registers a variant: a function returning [(label, tensor, array or value)]."""
    return lambda build: VARIANTS.setdefault(name, build)


def checksum(t):
    """A tensor's float64 sum of magnitudes, its sum weighted 1 to 2 in a period of 7 (so that
    values summing to zero give no cancellation noise) and its largest magnitude."""
    flat = torch.as_tensor(t).detach().double().flatten()
    if not flat.numel():
        return "empty"
    weights = 1.0 + (torch.arange(flat.numel(), dtype=torch.float64) % 7) / 6
    sums = (flat.abs().sum().item(), (flat * weights).sum().item(), flat.abs().max().item())
    return "abssum {!r} wsum {!r} absmax {!r}".format(*sums)


def show(label, value):
    if isinstance(value, np.ndarray):
        value = torch.from_numpy(np.ascontiguousarray(value))
    if isinstance(value, torch.Tensor):
        dtype = str(value.dtype).replace("torch.", "")
        print(f"{label} {list(value.shape)} {dtype} {checksum(value)}")
    else:
        print(f"{label} {value!r}")


def build_sam(dtype=None):
    """A seeded random-weight SAM: two encoder blocks (windowed 6x6 on the 16x16 grid, padded
    to 18x18, then global), relative positions on; the zero-initialised position tables are
    filled with noise so that they take part, and the hypernetworks' last layers scaled up so
    that the mask logits are of several units, not of 0.1 (their signs are the masks)."""
    sam = Sam(
        image_encoder=ImageEncoderViT(
            img_size=IMG, patch_size=PATCH, embed_dim=64, depth=2, num_heads=4, mlp_ratio=4,
            out_chans=EMB, qkv_bias=True, norm_layer=partial(torch.nn.LayerNorm, eps=1e-6),
            use_abs_pos=True, use_rel_pos=True, window_size=6, global_attn_indexes=(1,)),
        prompt_encoder=PromptEncoder(embed_dim=EMB, image_embedding_size=(GRID, GRID),
                                     input_image_size=(IMG, IMG), mask_in_chans=8),
        mask_decoder=MaskDecoder(
            num_multimask_outputs=3,
            transformer=TwoWayTransformer(depth=2, embedding_dim=EMB, mlp_dim=64, num_heads=4),
            transformer_dim=EMB, iou_head_depth=3, iou_head_hidden_dim=32),
    )
    with torch.no_grad():
        for name, p in sam.named_parameters():
            if "rel_pos" in name or name.endswith("pos_embed"):
                p.normal_(0.0, 0.5)
        for mlp in sam.mask_decoder.output_hypernetworks_mlps:   # logits of a few units
            mlp.layers[-1].weight.mul_(200.0)
    sam.eval()
    return to_dtype(sam, dtype or DT[0])


def to_dtype(sam, dtype):
    sam.to(dtype)
    pe = sam.prompt_encoder.pe_layer
    pe.positional_encoding_gaussian_matrix = pe.positional_encoding_gaussian_matrix.float()
    return sam


def synthetic_image(h, w):
    """A uint8 HWC image: two soft discs on a gradient, plus noise."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    r = np.stack([xx / w, yy / h, 0.5 * (xx + yy) / (h + w)], -1) * 120
    r[(yy - 0.3 * h) ** 2 + (xx - 0.35 * w) ** 2 < (0.2 * h) ** 2] += [120, 40, 10]
    r[(yy - 0.7 * h) ** 2 + (xx - 0.65 * w) ** 2 < (0.15 * h) ** 2] += [10, 60, 130]
    noise = torch.rand(h, w, 3).numpy() * 20
    return np.clip(r + noise, 0, 255).astype(np.uint8)


def disc_masks(n, size, dtype):
    """``n`` binary disc masks of ``size`` x ``size`` with seeded centres and radii."""
    yy, xx = torch.meshgrid(torch.arange(size, dtype=dtype), torch.arange(size, dtype=dtype),
                            indexing="ij")
    c = torch.rand(n, 2, dtype=dtype) * size * 0.6 + size * 0.2
    r = torch.rand(n, dtype=dtype) * size * 0.15 + size * 0.1
    d = (yy[None] - c[:, 0, None, None]) ** 2 + (xx[None] - c[:, 1, None, None]) ** 2
    return (d < r[:, None, None] ** 2).to(dtype), c


def mask_stats(label, masks):
    """A bool mask tensor: its shape, the count of True and a checksum of where they lie."""
    m = torch.as_tensor(masks)
    return [(f"{label} true", int(m.sum())), (f"{label} where", m.to(torch.float64))]


@variant("encoder")
def _():
    sam = build_sam()
    enc = sam.image_encoder
    x = torch.randn(2, 3, IMG, IMG, dtype=DT[0], requires_grad=True)
    y = enc(x)
    loss = y.pow(2).mean() + y[:, :4].sin().sum() / 100
    loss.backward()
    out = [("features", y), ("loss", loss), ("grad x", x.grad)]
    for name, p in enc.named_parameters():
        if "rel_pos" in name or "pos_embed" in name or name.startswith("patch_embed"):
            out.append((f"grad {name}", p.grad))
    out.append(("grad norm", torch.sqrt(sum(p.grad.double().pow(2).sum()
                                           for p in enc.parameters()))))
    return out


@variant("prompt_encoder")
def _():
    sam = build_sam()
    pe = sam.prompt_encoder
    dt = DT[0]
    coords = torch.rand(3, 4, 2, dtype=dt) * IMG
    labels = torch.tensor([[1, 0, 1, -1], [1, 1, -1, -1], [0, 1, 0, 1]])
    boxes = torch.tensor([[10.0, 12.0, 60.0, 70.0], [0.0, 0.0, 127.0, 90.0],
                          [40.0, 30.0, 100.0, 120.0]], dtype=dt)
    masks = torch.randn(3, 1, 4 * GRID, 4 * GRID, dtype=dt)
    out = [("dense_pe", pe.get_dense_pe())]
    for name, kw in (("points", {"points": (coords, labels), "boxes": None, "masks": None}),
                     ("boxes", {"points": None, "boxes": boxes, "masks": None}),
                     ("masks", {"points": None, "boxes": None, "masks": masks}),
                     ("all", {"points": (coords, labels), "boxes": boxes, "masks": masks}),
                     ("none", {"points": None, "boxes": None, "masks": None})):
        sparse, dense = pe(**kw)
        out += [(f"{name} sparse", sparse), (f"{name} dense", dense)]
    # gradient through the mask downscaling and the prompt embeddings
    m = masks.clone().requires_grad_()
    sparse, dense = pe(points=(coords, labels), boxes=boxes, masks=m)
    loss = sparse.pow(2).sum() / 100 + dense.tanh().mean()
    loss.backward()
    out += [("grad masks", m.grad), ("grad point_embeddings",
                                     torch.cat([e.weight.grad for e in pe.point_embeddings])),
            ("grad not_a_point", pe.not_a_point_embed.weight.grad),
            ("grad mask_downscaling.0", pe.mask_downscaling[0].weight.grad)]
    return out


def decoder_inputs(sam, n, dt):
    emb = torch.randn(1, EMB, GRID, GRID, dtype=dt)
    coords = torch.rand(n, 2, 2, dtype=dt) * IMG
    labels = torch.tensor([[1, 0]] * n)
    boxes = torch.rand(n, 4, dtype=dt) * IMG / 2
    boxes[:, 2:] += IMG / 2
    sparse, dense = sam.prompt_encoder(points=(coords, labels), boxes=boxes, masks=None)
    return emb, sparse, dense


@variant("mask_decoder")
def _():
    sam = build_sam()
    dt = DT[0]
    emb, sparse, dense = decoder_inputs(sam, 3, dt)
    out = []
    for multi in (True, False):
        masks, iou = sam.mask_decoder(image_embeddings=emb, image_pe=sam.prompt_encoder
                                      .get_dense_pe(), sparse_prompt_embeddings=sparse,
                                      dense_prompt_embeddings=dense, multimask_output=multi)
        out += [(f"multimask={multi} low_res", masks), (f"multimask={multi} iou", iou)]
    e = emb.clone().requires_grad_()
    masks, iou = sam.mask_decoder(image_embeddings=e, image_pe=sam.prompt_encoder.get_dense_pe(),
                                  sparse_prompt_embeddings=sparse, dense_prompt_embeddings=dense,
                                  multimask_output=True)
    loss = masks.sigmoid().mean() + iou.pow(2).sum()
    loss.backward()
    out += [("loss", loss), ("grad embedding", e.grad)]
    for name, p in sam.mask_decoder.named_parameters():
        if name.endswith("weight") and ("iou_prediction_head" in name or "upscaling" in name
                                        or "layers.0.cross_attn_token_to_image" in name):
            out.append((f"grad {name}", p.grad))
    return out


@variant("sam_forward")
def _():
    sam = build_sam()
    dt = DT[0]
    images = [torch.rand(3, IMG, IMG, dtype=dt) * 255,
              torch.rand(3, IMG, 96, dtype=dt) * 255]
    batched = [
        {"image": images[0], "original_size": (200, 200),
         "point_coords": torch.rand(2, 3, 2, dtype=dt) * IMG,
         "point_labels": torch.tensor([[1, 0, 1], [1, 1, 0]]),
         "boxes": torch.tensor([[8.0, 8.0, 90.0, 100.0], [30.0, 20.0, 120.0, 127.0]],
                               dtype=dt),
         "mask_inputs": torch.randn(2, 1, 4 * GRID, 4 * GRID, dtype=dt)},
        {"image": images[1], "original_size": (160, 120),
         "point_coords": torch.rand(1, 1, 2, dtype=dt) * 96,
         "point_labels": torch.tensor([[1]])},
    ]
    out = []
    for multi in (True, False):
        for i, res in enumerate(sam(batched, multimask_output=multi)):
            out += mask_stats(f"multimask={multi} image{i} masks", res["masks"])
            out += [(f"multimask={multi} image{i} iou", res["iou_predictions"]),
                    (f"multimask={multi} image{i} low_res_logits", res["low_res_logits"])]
    out.append(("preprocess", sam.preprocess(images[1][None])))
    return out


@variant("predictor")
def _():
    sam = build_sam()
    image = synthetic_image(96, 80)   # portrait: resized to 128x107, padded to 128x128
    pred = SamPredictor(sam)
    pred.set_image(image)
    out = [("input_size", pred.input_size), ("original_size", pred.original_size),
           ("features", pred.get_image_embedding())]
    pts = np.array([[20.0, 30.0], [60.0, 70.0]])
    lab = np.array([1, 0])
    box = np.array([10.0, 12.0, 70.0, 80.0])
    runs = [("point", {"point_coords": pts[:1], "point_labels": lab[:1]}),
            ("points single", {"point_coords": pts, "point_labels": lab,
                               "multimask_output": False}),
            ("box", {"box": box, "multimask_output": False}),
            ("points+box logits", {"point_coords": pts, "point_labels": lab, "box": box,
                                   "return_logits": True})]
    low = None
    for name, kw in runs:
        masks, iou, low = pred.predict(**kw)
        out += mask_stats(f"{name} masks", masks) if masks.dtype == bool else [
            (f"{name} logits", masks)]
        out += [(f"{name} iou", iou), (f"{name} low_res", low)]
    best = low[np.argmax(iou)][None]
    masks, iou, low = pred.predict(point_coords=pts, point_labels=lab, mask_input=best,
                                   multimask_output=False)
    out += mask_stats("mask_input masks", masks) + [("mask_input iou", iou),
                                                    ("mask_input low_res", low)]
    # batched boxes through predict_torch
    boxes = torch.tensor([[5.0, 5.0, 40.0, 50.0], [30.0, 20.0, 75.0, 90.0],
                          [0.0, 40.0, 79.0, 95.0]])
    tb = pred.transform.apply_boxes_torch(boxes, image.shape[:2])
    masks, iou, low = pred.predict_torch(None, None, boxes=tb, multimask_output=True)
    out += mask_stats("predict_torch masks", masks) + [("predict_torch iou", iou),
                                                       ("predict_torch low_res", low)]
    pred.set_image(image[..., ::-1].copy(), image_format="BGR")
    out.append(("BGR features equal", bool(torch.equal(pred.features, out[2][1]))))
    pred.reset_image()
    return out


def show_anns(name, anns):
    out = [(f"{name} count", len(anns))]
    for i, a in enumerate(anns):
        seg = a["segmentation"]
        if isinstance(seg, dict):
            seg = f"size {seg['size']} runs {len(seg['counts'])} first {seg['counts'][:4]}"
        out += [(f"{name}[{i}] area bbox crop", (a["area"], a["bbox"], a["crop_box"])),
                (f"{name}[{i}] point", a["point_coords"]),
                (f"{name}[{i}] predicted_iou stability",
                 (a["predicted_iou"], a["stability_score"])),
                (f"{name}[{i}] segmentation", seg)]
    return out


@variant("amg")
def _():
    sam = build_sam()
    # an untrained SAM's masks at logit 0 all span the image (one box: NMS keeps one); at 4
    # they are blobs of different boxes
    sam.mask_threshold = 4.0
    image = synthetic_image(112, 144)
    out = []
    gen = SamAutomaticMaskGenerator(sam, points_per_side=4, points_per_batch=6,
                                    pred_iou_thresh=0.01, stability_score_thresh=0.04,
                                    box_nms_thresh=0.7)
    out += show_anns("binary_mask", gen.generate(image))
    gen = SamAutomaticMaskGenerator(sam, points_per_side=4, points_per_batch=8,
                                    pred_iou_thresh=0.0, stability_score_thresh=0.1,
                                    stability_score_offset=0.5,
                                    box_nms_thresh=0.6, crop_n_layers=1, crop_nms_thresh=0.5,
                                    crop_n_points_downscale_factor=1,
                                    output_mode="uncompressed_rle")
    out += show_anns("crops rle", gen.generate(image))
    return out


@variant("onnx_model")
def _():
    sam = build_sam()
    dt = DT[0]
    emb = torch.randn(1, EMB, GRID, GRID, dtype=dt)
    coords = torch.rand(1, 3, 2) * IMG   # float32: _pe_encoding multiplies by a float32 matrix
    labels = torch.tensor([[1.0, 0.0, -1.0]], dtype=dt)
    mask = torch.randn(1, 1, 4 * GRID, 4 * GRID, dtype=dt)
    out = []
    for single, stab, extra, has in ((True, False, False, 0.0), (False, True, True, 1.0)):
        m = SamOnnxModel(sam, return_single_mask=single, use_stability_score=stab,
                         return_extra_metrics=extra)
        res = m(emb, coords, labels, mask, torch.tensor([has], dtype=dt),
                torch.tensor([150.0, 100.0], dtype=dt))
        for i, r in enumerate(res):
            out.append((f"single={single} stability={stab} out{i}", r))
    return out


def focal_dice(logits, target):
    p = logits.sigmoid()
    focal = torchvision.ops.sigmoid_focal_loss(logits, target, alpha=0.25, gamma=2.0,
                                               reduction="mean")
    inter = (p * target).flatten(1).sum(-1)
    dice = 1 - (2 * inter + 1) / (p.flatten(1).sum(-1) + target.flatten(1).sum(-1) + 1)
    return focal, dice.mean()


@variant("train_decoder")
def _():
    """Fine-tune the mask decoder (image and prompt encoders frozen, as SAM fine-tuning recipes
    do) with Adam on 20 * focal + dice + MSE(IoU prediction, the mask's actual IoU)."""
    sam = build_sam()
    dt = DT[0]
    for p in list(sam.image_encoder.parameters()) + list(sam.prompt_encoder.parameters()):
        p.requires_grad_(False)
    images = torch.rand(2, 3, IMG, IMG, dtype=dt) * 255
    with torch.no_grad():
        emb = sam.image_encoder(sam.preprocess(images))
    target, centres = disc_masks(2, IMG, dt)
    points = centres.flip(-1)[:, None, :]
    labels = torch.ones(2, 1, dtype=torch.int64)
    opt = torch.optim.Adam(sam.mask_decoder.parameters(), lr=1e-3)
    sam.mask_decoder.train()
    out = []
    for step in range(4):
        opt.zero_grad()
        sparse, dense = sam.prompt_encoder(points=(points, labels), boxes=None, masks=None)
        lows, ious = [], []
        for b in range(2):
            low, iou = sam.mask_decoder(image_embeddings=emb[b:b + 1],
                                        image_pe=sam.prompt_encoder.get_dense_pe(),
                                        sparse_prompt_embeddings=sparse[b:b + 1],
                                        dense_prompt_embeddings=dense[b:b + 1],
                                        multimask_output=False)
            lows.append(low)
            ious.append(iou)
        logits = sam.postprocess_masks(torch.cat(lows), (IMG, IMG), (IMG, IMG))[:, 0]
        focal, dice = focal_dice(logits, target)
        with torch.no_grad():
            hard = (logits > sam.mask_threshold).to(dt)
            actual = (hard * target).flatten(1).sum(-1) / (
                ((hard + target) > 0).to(dt).flatten(1).sum(-1) + 1e-6)
        iou_loss = torch.nn.functional.mse_loss(torch.cat(ious)[:, 0], actual)
        loss = 20 * focal + dice + iou_loss
        loss.backward()
        gnorm = torch.sqrt(sum(p.grad.double().pow(2).sum()
                               for p in sam.mask_decoder.parameters()))
        out += [(f"step{step} focal dice iou", (focal.item(), dice.item(), iou_loss.item())),
                (f"step{step} loss", loss.item()), (f"step{step} grad norm", gnorm),
                (f"step{step} actual iou", actual)]
        if step == 0:
            for name, p in sam.mask_decoder.named_parameters():
                if name.endswith("weight") and ("hypernetworks_mlps.0" in name or
                                                "output_upscaling.0" in name or
                                                "final_attn" in name):
                    out.append((f"step0 grad {name}", p.grad))
        opt.step()
    for name, p in sam.mask_decoder.named_parameters():
        if "mask_tokens" in name or "iou_token" in name or "output_upscaling.3" in name:
            out.append((f"trained {name}", p))
    return out


@variant("transforms")
def _():
    t = ResizeLongestSide(IMG)
    image = synthetic_image(70, 50)
    out = [("preprocess_shape", t.get_preprocess_shape(70, 50, IMG)),
           ("apply_image", t.apply_image(image).astype(np.float64))]
    coords = np.array([[0.0, 0.0], [49.0, 69.0], [25.5, 10.25]])
    boxes = np.array([[1.0, 2.0, 30.0, 40.0], [10.0, 0.0, 49.0, 69.0]])
    out += [("apply_coords", t.apply_coords(coords, (70, 50))),
            ("apply_boxes", t.apply_boxes(boxes, (70, 50))),
            ("apply_coords_torch", t.apply_coords_torch(torch.from_numpy(coords), (70, 50))),
            ("apply_boxes_torch", t.apply_boxes_torch(torch.from_numpy(boxes), (70, 50)))]
    x = torch.from_numpy(image).permute(2, 0, 1)[None].float()
    out.append(("apply_image_torch", t.apply_image_torch(x)))
    return out


@variant("amg_utils")
def _():
    masks = torch.rand(3, 2, 20, 24) > 0.8
    masks[0, 0] = False                              # an empty mask: box [0, 0, 0, 0]
    masks[1, 1] = torch.zeros(20, 24, dtype=torch.bool)
    masks[1, 1, 5:12, 3:9] = True
    flat = masks.flatten(0, 1)
    rles = amg.mask_to_rle_pytorch(flat)
    back = np.stack([amg.rle_to_mask(r) for r in rles])
    logits = torch.randn(4, 20, 24) * 3
    boxes = amg.batched_mask_to_box(masks)
    crop = [10, 8, 60, 50]
    out = [("batched_mask_to_box", boxes), ("single box", amg.batched_mask_to_box(masks[1, 1])),
           ("rle counts", [len(r["counts"]) for r in rles]),
           ("rle first", rles[3]["counts"][:6]),
           ("rle roundtrip", bool(np.array_equal(back, flat.numpy()))),
           ("areas", [amg.area_from_rle(r) for r in rles]),
           ("stability", amg.calculate_stability_score(logits, 0.0, 1.0)),
           ("crop boxes", amg.generate_crop_boxes((90, 120), 2, 512 / 1500)),
           ("point grids", amg.build_all_layer_point_grids(4, 1, 2)[1]),
           ("near crop edge", amg.is_box_near_crop_edge(
               torch.tensor([[0.0, 0.0, 30.0, 30.0], [5.0, 5.0, 49.0, 20.0]]), crop,
               [0, 0, 120, 90])),
           ("uncrop masks", amg.uncrop_masks(flat[:2], crop, 60, 70).to(torch.float64)),
           ("uncrop boxes", amg.uncrop_boxes_xyxy(boxes.flatten(0, 1), crop)),
           ("uncrop points", amg.uncrop_points(torch.tensor([[1.0, 2.0]]), crop)),
           ("xywh", amg.box_xyxy_to_xywh(torch.tensor([4.0, 5.0, 10.0, 20.0])))]
    data = amg.MaskData(a=torch.arange(6), b=np.arange(6) * 2, c=list("abcdef"))
    data.filter(torch.tensor([True, False, True, True, False, True]))
    data.cat(amg.MaskData(a=torch.tensor([9]), b=np.array([18]), c=["z"]))
    data.filter(torch.tensor([4, 0, 2]))
    data.to_numpy()
    out.append(("MaskData", {k: (v.tolist() if hasattr(v, "tolist") else v)
                             for k, v in data.items()}))
    return out


@variant("registry")
def _():
    """The registry's full-size vit_b, built without a checkpoint (random weights): its
    parameter count, and its prompt encoder and mask decoder (256 channels, 64x64 embedding,
    upscaled to 256x256 and postprocessed to the original size) on a random image embedding.
    Its image encoder (12 blocks at 1024x1024) is not run: too slow for this machine."""
    sam = sam_model_registry["vit_b"](checkpoint=None)
    out = [("training", sam.training),
           ("parameters", sum(p.numel() for p in sam.parameters())),
           ("encoder parameters", sum(p.numel() for p in sam.image_encoder.parameters())),
           ("patch_embed", sam.image_encoder.patch_embed.proj.weight),
           ("pe gaussian", sam.prompt_encoder.pe_layer.positional_encoding_gaussian_matrix)]
    emb = torch.randn(1, 256, 64, 64)
    coords = torch.tensor([[[300.0, 400.0], [700.0, 500.0]]])
    labels = torch.tensor([[1, 0]])
    box = torch.tensor([[200.0, 250.0, 800.0, 900.0]])
    with torch.no_grad():
        sparse, dense = sam.prompt_encoder(points=(coords, labels), boxes=box, masks=None)
        low, iou = sam.mask_decoder(image_embeddings=emb,
                                    image_pe=sam.prompt_encoder.get_dense_pe(),
                                    sparse_prompt_embeddings=sparse,
                                    dense_prompt_embeddings=dense, multimask_output=True)
        masks = sam.postprocess_masks(low, (1024, 768), (400, 300))
    out += [("sparse", sparse), ("dense", dense), ("low_res", low), ("iou", iou),
            ("postprocessed", masks)] + mask_stats("masks", masks > sam.mask_threshold)
    return out


def run(name, dtype):
    torch.manual_seed(0)
    DT[0] = dtype
    print(f"== {name} {str(dtype).replace('torch.', '')}")
    for label, value in VARIANTS[name]():
        show(f"{name} {label}", value)


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    runs = []
    for name in names:
        base = name[:-2] if name[-2:] in ("32", "64") else name
        if base not in VARIANTS:
            sys.exit(f"unknown variant {name}; known: {' '.join(VARIANTS)}")
        dtypes = ([torch.float32] if base in FLOAT32_ONLY else
                  {"32": [torch.float32], "64": [torch.float64]}.get(
                      name[-2:], [torch.float32, torch.float64]))
        runs += [(base, dt) for dt in dtypes]
    for name, dt in runs:
        start = time.time()
        run(name, dt)
        print(f"[{name} {dt}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
