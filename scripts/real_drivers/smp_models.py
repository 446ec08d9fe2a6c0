"""Driver of segmentation_models_pytorch (docs/real-programs.md): the installed package,
unchanged, at tiny seeded sizes (batch 2, RGB 64x64, no pretrained weights: nothing is
downloaded). Its architectures (Unet, UnetPlusPlus, FPN, PSPNet, DeepLabV3, DeepLabV3Plus,
Linknet, MAnet, PAN, UPerNet, Segformer, DPT) with small encoders (resnet18, mobilenet_v2,
efficientnet-b0, timm's ``tu-`` encoders, mit_b0, a small timm ViT for DPT) and auxiliary
classification heads: output checksums in eval and train mode, the BatchNorm running
statistics, and one backward with the gradients' checksums; ``smp.losses`` in binary,
multiclass and multilabel modes (values and gradients); ``smp.metrics`` (``get_stats`` and the
scores with every reduction); ``save_pretrained``/``from_pretrained`` into a temporary folder;
and a few Adam steps of a Unet.

    python scripts/shared_rng_run.py drive_smp.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_smp.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``), so a subset prints what the full run prints for it.
``SMP_FLOAT64=1`` runs everything in float64 (to tell float32 rounding from a bug; the loss
variants then raise in smp's Lovasz loss, which casts to float32, in PyTorch too).
"""

import os
import sys
import tempfile
import time
import traceback
import warnings

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import segmentation_models_pytorch as smp  # noqa: E402

warnings.filterwarnings("ignore")

B, C, S = 2, 3, 64

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements, so
    that values summing to zero by construction give no cancellation noise) and the largest
    magnitude, in float64."""
    t = t.detach().double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def images(batch=B, size=S):
    return torch.randn(batch, C, size, size)


def flat(tensors):
    return torch.cat([t.detach().double().flatten() for t in tensors])


def model_lines(model, x, aux=False):
    """Eval output, train output (and the running statistics it updates), then one backward
    through the train output: the gradients of every parameter, concatenated in order."""
    out = []
    n_params = sum(p.numel() for p in model.parameters())
    out.append(("params", f"parameters {n_params} tensors {len(list(model.parameters()))}"))
    model.eval()
    with torch.no_grad():
        y = model(x)
    if aux:
        out += [("eval mask", y[0]), ("eval label", y[1])]
    else:
        out.append(("eval", y))
    model.train()
    y = model(x)
    masks, labels = y if aux else (y, None)
    out.append(("train mask", masks))
    if aux:
        out.append(("train label", labels))
    buffers = [b for name, b in model.named_buffers() if name.endswith(("running_mean",
                                                                         "running_var"))]
    if buffers:
        out.append(("running stats", flat(buffers)))
    loss = masks.pow(2).mean() + (labels.pow(2).mean() if aux else 0)
    loss.backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    missing = sum(1 for p in model.parameters() if p.grad is None)
    out.append(("loss", f"loss {loss.item()!r} grads missing {missing}"))
    out.append(("grads", flat(grads)))
    first = next(p for p in model.parameters() if p.grad is not None)
    out.append(("first grad", first.grad))
    head = [m for m in model.segmentation_head.modules() if isinstance(m, torch.nn.Conv2d)]
    out.append(("head grad", head[-1].weight.grad))
    return out


def arch(name, build, size=S):
    @variant(name)
    def _():
        model = build()
        x = images(size=size)
        return model_lines(model, x, aux=model.classification_head is not None)


AUX = {"classes": 4, "dropout": 0.2, "activation": None}
# one decoder width for every Unet (scSE attention needs 16 channels or more): jtorch compiles
# each op once per shape, so the Unets share their kernels
UNET = {"encoder_name": "resnet18", "encoder_weights": None,
        "decoder_channels": (32, 32, 16, 16, 16)}

arch("unet_resnet18", lambda: smp.Unet(classes=3, **UNET))
arch("unet_aux_scse", lambda: smp.Unet(classes=2, decoder_attention_type="scse", **UNET,
                                       decoder_interpolation="bilinear", aux_params=AUX))
arch("unetplusplus_mobilenet_v2", lambda: smp.UnetPlusPlus(
    "mobilenet_v2", encoder_weights=None, classes=2, encoder_depth=3,
    decoder_channels=(16, 16, 16)))
arch("fpn_efficientnet_b0", lambda: smp.FPN("efficientnet-b0", encoder_weights=None,
                                            classes=3, encoder_depth=4, decoder_pyramid_channels=32,
                                            decoder_segmentation_channels=32,
                                            aux_params=AUX))
arch("pspnet_resnet18", lambda: smp.PSPNet("resnet18", encoder_weights=None, classes=3,
                                           psp_out_channels=64))
arch("deeplabv3_resnet18", lambda: smp.DeepLabV3("resnet18", encoder_weights=None, classes=3,
                                                  decoder_channels=32))
arch("deeplabv3plus_tu_resnet10t", lambda: smp.DeepLabV3Plus(
    "tu-resnet10t", encoder_weights=None, classes=3, decoder_channels=32, aux_params=AUX))
arch("linknet_mobilenet_v2", lambda: smp.Linknet("mobilenet_v2", encoder_weights=None,
                                                 classes=2))
arch("manet_resnet18", lambda: smp.MAnet("resnet18", encoder_weights=None, classes=2,
                                         decoder_channels=(32, 16, 16, 8, 8),
                                         decoder_pab_channels=16))
arch("pan_resnet18", lambda: smp.PAN("resnet18", encoder_weights=None, classes=2,
                                     decoder_channels=32), size=128)  # its pyramid pools 16x
arch("upernet_tu_resnet10t", lambda: smp.UPerNet("tu-resnet10t", encoder_weights=None,
                                                 classes=3, decoder_channels=32))
arch("segformer_mit_b0", lambda: smp.Segformer("mit_b0", encoder_weights=None, classes=3,
                                               decoder_segmentation_channels=32))
arch("dpt_vit_tiny", lambda: smp.DPT("tu-vit_tiny_patch16_224", encoder_weights=None,
                                     classes=2, img_size=S, encoder_depth=4,
                                     decoder_intermediate_channels=(16, 32, 64, 64),
                                     decoder_fusion_channels=32))


# --- losses -----------------------------------------------------------------------------

def logits(channels, size=16):
    return (2 * torch.randn(B, channels, size, size)).requires_grad_()


def targets(mode, channels, size=16):
    if mode == "binary":
        return (torch.rand(B, 1, size, size) > 0.6).float()
    if mode == "multiclass":
        return torch.randint(0, channels, (B, size, size))
    return (torch.rand(B, channels, size, size) > 0.5).float()


def loss_line(name, loss_fn, y_pred, y_true, prepare=None):
    pred = prepare(y_pred) if prepare is not None else y_pred
    loss = loss_fn(pred, y_true)
    if loss.dim():
        value = loss.detach()
        loss = loss.sum()
        loss.backward()
        return [(f"{name} values", value), (f"{name} grad", y_pred.grad)]
    loss.backward()
    return [(f"{name} loss", f"{loss.item()!r}"), (f"{name} grad", y_pred.grad)]


def with_ignored(y_true, value=-1):
    y_true = y_true.clone()
    y_true[:, :3, :5] = value
    return y_true


@variant("losses_binary")
def _():
    L = smp.losses
    out = []
    specs = [("dice", lambda: L.DiceLoss("binary")),
             ("dice_nolog_smooth", lambda: L.DiceLoss("binary", log_loss=True, smooth=1.0)),
             ("jaccard", lambda: L.JaccardLoss("binary")),
             ("jaccard_smooth", lambda: L.JaccardLoss("binary", smooth=0.5, log_loss=True)),
             ("focal", lambda: L.FocalLoss("binary")),
             ("focal_alpha_normalized", lambda: L.FocalLoss("binary", alpha=0.25,
                                                            normalized=True)),
             ("focal_reduced", lambda: L.FocalLoss("binary", reduced_threshold=0.5)),
             ("lovasz", lambda: L.LovaszLoss("binary")),
             ("lovasz_per_image", lambda: L.LovaszLoss("binary", per_image=True)),
             ("tversky", lambda: L.TverskyLoss("binary", alpha=0.3, beta=0.7, gamma=1.5)),
             ("soft_bce", lambda: L.SoftBCEWithLogitsLoss()),
             ("soft_bce_smooth", lambda: L.SoftBCEWithLogitsLoss(smooth_factor=0.1,
                                                                 pos_weight=torch.tensor(
                                                                     [2.0]))),
             ("soft_bce_none", lambda: L.SoftBCEWithLogitsLoss(reduction="none"))]
    for name, make in specs:
        out += loss_line(name, make(), logits(1), targets("binary", 1))
    y_true = targets("binary", 1)
    out += loss_line("dice_ignore", L.DiceLoss("binary", ignore_index=-1), logits(1),
                     with_ignored(y_true))
    out += loss_line("focal_ignore", L.FocalLoss("binary", ignore_index=-1), logits(1),
                     with_ignored(y_true))
    out += loss_line("soft_bce_ignore", L.SoftBCEWithLogitsLoss(ignore_index=-1), logits(1),
                     with_ignored(y_true))
    out += loss_line("mcc", L.MCCLoss(), logits(1), targets("binary", 1),
                     prepare=torch.sigmoid)
    out += loss_line("dice_probs", L.DiceLoss("binary", from_logits=False), logits(1),
                     targets("binary", 1), prepare=torch.sigmoid)
    return out


@variant("losses_multiclass")
def _():
    L = smp.losses
    K = 4
    out = []
    specs = [("dice", lambda: L.DiceLoss("multiclass")),
             ("dice_classes", lambda: L.DiceLoss("multiclass", classes=[1, 3], smooth=0.5)),
             ("jaccard", lambda: L.JaccardLoss("multiclass")),
             ("focal", lambda: L.FocalLoss("multiclass", gamma=1.5)),
             ("focal_class_weights", lambda: L.FocalLoss("multiclass",
                                                         class_weights=[1.0, 2.0, 0.5, 1.0])),
             ("lovasz", lambda: L.LovaszLoss("multiclass")),
             ("lovasz_per_image", lambda: L.LovaszLoss("multiclass", per_image=True)),
             ("tversky", lambda: L.TverskyLoss("multiclass", alpha=0.6, beta=0.4)),
             # smooth_factor=None (the default) fails in smp 0.6 (None / int)
             ("soft_ce", lambda: L.SoftCrossEntropyLoss(smooth_factor=0.0)),
             ("soft_ce_smooth", lambda: L.SoftCrossEntropyLoss(smooth_factor=0.1)),
             ("soft_ce_sum", lambda: L.SoftCrossEntropyLoss(reduction="sum",
                                                            smooth_factor=0.05))]
    for name, make in specs:
        out += loss_line(name, make(), logits(K), targets("multiclass", K))
    y_true = with_ignored(targets("multiclass", K), 255)
    out += loss_line("dice_ignore", L.DiceLoss("multiclass", ignore_index=255), logits(K),
                     y_true)
    out += loss_line("jaccard_ignore", L.JaccardLoss("multiclass", ignore_index=255),
                     logits(K), y_true)
    out += loss_line("lovasz_ignore", L.LovaszLoss("multiclass", ignore_index=255), logits(K),
                     y_true)
    out += loss_line("soft_ce_ignore", L.SoftCrossEntropyLoss(ignore_index=255,
                                                              smooth_factor=0.1),
                     logits(K), y_true)
    out += loss_line("jaccard_weights", L.JaccardLoss("multiclass",
                                                      class_weights=[0.1, 0.2, 0.3, 0.4]),
                     logits(K), targets("multiclass", K))
    return out


@variant("losses_multilabel")
def _():
    L = smp.losses
    K = 3
    out = []
    specs = [("dice", lambda: L.DiceLoss("multilabel")),
             ("dice_log", lambda: L.DiceLoss("multilabel", log_loss=True, eps=1e-5)),
             ("jaccard", lambda: L.JaccardLoss("multilabel", classes=[0, 2])),
             ("focal", lambda: L.FocalLoss("multilabel", alpha=0.4)),
             ("lovasz", lambda: L.LovaszLoss("multilabel")),
             ("tversky", lambda: L.TverskyLoss("multilabel", gamma=2.0)),
             ("soft_bce", lambda: L.SoftBCEWithLogitsLoss(smooth_factor=0.2))]
    for name, make in specs:
        out += loss_line(name, make(), logits(K), targets("multilabel", K))
    out += loss_line("dice_ignore", L.DiceLoss("multilabel", ignore_index=-1), logits(K),
                     with_ignored(targets("multilabel", K)))
    return out


# --- metrics ----------------------------------------------------------------------------

REDUCTIONS = ("micro", "macro", "weighted", "micro-imagewise", "macro-imagewise", "none")


def score_lines(name, stats, class_weights=None):
    M = smp.metrics
    out = [(f"{name} {s}", x) for s, x in zip(("tp", "fp", "fn", "tn"), stats)]
    tp, fp, fn, tn = stats
    for reduction in REDUCTIONS:
        weights = class_weights if reduction == "weighted" else None
        for metric in (M.iou_score, M.f1_score, M.accuracy, M.recall, M.precision,
                       M.balanced_accuracy, M.sensitivity, M.specificity):
            value = metric(tp, fp, fn, tn, reduction=reduction, class_weights=weights)
            out.append((f"{name} {metric.__name__} {reduction}", value))
        out.append((f"{name} fbeta2 {reduction}",
                    M.fbeta_score(tp, fp, fn, tn, beta=2.0, reduction=reduction,
                                  class_weights=weights, zero_division=1.0)))
    return out


@variant("metrics")
def _():
    M = smp.metrics
    out = []
    prob = torch.rand(4, 1, 16, 16)
    target = (torch.rand(4, 1, 16, 16) > 0.5).long()
    out += score_lines("binary", M.get_stats(prob, target, mode="binary", threshold=0.5),
                       class_weights=[1.0])
    K = 3
    prob = torch.rand(4, K, 16, 16)
    target = (torch.rand(4, K, 16, 16) > 0.6).long()
    out += score_lines("multilabel", M.get_stats(prob, target, mode="multilabel",
                                                 threshold=0.4),
                       class_weights=[0.2, 0.3, 0.5])
    pred = torch.randint(0, K, (4, 16, 16))
    target = torch.randint(0, K, (4, 16, 16))
    target[:, :2] = -1
    out += score_lines("multiclass", M.get_stats(pred, target, mode="multiclass",
                                                 num_classes=K, ignore_index=-1),
                       class_weights=[0.5, 0.25, 0.25])
    # an absent class: zero division
    pred = torch.zeros(2, 8, 8, dtype=torch.long)
    target = torch.zeros(2, 8, 8, dtype=torch.long)
    target[0, :3] = 1
    out += score_lines("absent", M.get_stats(pred, target, mode="multiclass", num_classes=K),
                       class_weights=[1.0, 1.0, 1.0])
    return out


# --- save/load and training -------------------------------------------------------------

@variant("save_load")
def _():
    model = smp.Unet(classes=2, aux_params=AUX, **UNET).eval()
    x = images()
    with torch.no_grad():
        masks, labels = model(x)
    out = [("mask", masks), ("label", labels)]
    with tempfile.TemporaryDirectory() as folder:
        model.save_pretrained(folder, metrics={"iou": 0.5}, dataset="tiny")
        files = sorted(os.listdir(folder))
        out.append(("files", " ".join(files)))
        loaded = smp.from_pretrained(folder).eval()
        same_class = smp.Unet.from_pretrained(folder).eval()
    with torch.no_grad():
        m2, l2 = loaded(x)
        m3, _ = same_class(x)
    out.append(("reloaded", f"class {type(loaded).__name__} config "
                            f"{sorted(loaded.config.items())!r}"))
    out.append(("reloaded diff", f"{(m2 - masks).abs().max().item()!r} "
                                 f"{(l2 - labels).abs().max().item()!r} "
                                 f"{(m3 - masks).abs().max().item()!r}"))
    keys = list(model.state_dict())
    same = all(torch.equal(model.state_dict()[k], loaded.state_dict()[k]) for k in keys)
    out.append(("state_dict", f"keys {len(keys)} equal {same}"))
    out.append(("predict", model.predict(x)[0]))
    created = smp.create_model("FPN", encoder_name="resnet18", encoder_weights=None,
                               classes=2, decoder_pyramid_channels=32,
                               decoder_segmentation_channels=32)
    out.append(("create_model", f"{type(created).__name__} "
                                f"{sum(p.numel() for p in created.parameters())}"))
    created.freeze_encoder()
    trainable = sum(p.numel() for p in created.parameters() if p.requires_grad)
    created.train()
    stats = created.encoder.bn1.running_mean.clone()
    created(x)
    out.append(("frozen", f"trainable {trainable} encoder bn training "
                          f"{created.encoder.bn1.training} stats moved "
                          f"{(created.encoder.bn1.running_mean - stats).abs().max().item()!r}"))
    return out


@variant("train_unet")
def _():
    model = smp.Unet(classes=3, **UNET)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    dice = smp.losses.DiceLoss("multiclass")
    focal = smp.losses.FocalLoss("multiclass")
    x = images()
    target = torch.randint(0, 3, (B, S, S))
    out = []
    model.train()
    for step in range(4):
        optimizer.zero_grad()
        y = model(x)
        loss = dice(y, target) + focal(y, target)
        loss.backward()
        optimizer.step()
        out.append((f"step {step}", f"loss {loss.item()!r}"))
    out.append(("params", flat(model.parameters())))
    model.eval()
    with torch.no_grad():
        pred = model(x).argmax(1)
    tp, fp, fn, tn = smp.metrics.get_stats(pred, target, mode="multiclass", num_classes=3)
    out.append(("iou", smp.metrics.iou_score(tp, fp, fn, tn, reduction="micro")))
    return out


def show(name, label, value):
    if isinstance(value, torch.Tensor):
        if not value.is_floating_point():
            value = value.double()
        print(f"{name} {label} {list(value.shape)} {checksum(value)}")
    else:
        print(f"{name} {label} {value}")


def run(name):
    torch.manual_seed(0)
    print(f"== {name}")
    try:
        for label, value in VARIANTS[name]():
            show(name, label, value)
    except Exception as e:  # a library limitation: printed in both frameworks
        traceback.print_exc()
        print(f"{name} raised {type(e).__name__}")


def main(argv):
    if os.environ.get("SMP_FLOAT64"):  # to tell float32 rounding from a bug
        torch.set_default_dtype(torch.float64)
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        run(name)
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
