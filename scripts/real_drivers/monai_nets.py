"""Driver of MONAI (docs/real-programs.md): the installed package, unchanged, run on tiny seeded
medical-imaging settings (2D images 1x32x32 and 3D volumes 1x16x16x16, batch 2): its networks
(UNet 2D/3D, BasicUNet, AttentionUnet, SegResNet, DynUNet, UNETR, SwinUNETR, DenseNet121,
ResNet, AutoEncoder, VarAutoEncoder) forward and backward, its losses (Dice family, focal,
Tversky, Hausdorff-DT, SSIM, contrastive...) with their gradients, its metrics (Dice, IoU,
Hausdorff and surface distances, confusion matrices, ROC AUC), array transforms on tensors,
``sliding_window_inference`` and a few Adam steps of a tiny UNet on a Dice loss, printing each
result's checksum (sums and largest magnitude) at full precision.

    python scripts/shared_rng_run.py drive_monai.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_monai.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``; MONAI's random transforms get ``set_random_state(seed=0)``, a NumPy
``RandomState``), so a subset prints what the full run prints for it. ``MONAI_FLOAT64=1`` runs
everything in float64 (to tell float32 rounding from a bug).
"""

import os
import sys
import time
import warnings

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

warnings.filterwarnings("ignore")

import monai.losses as L  # noqa: E402
import monai.metrics as M  # noqa: E402
import monai.networks.nets as N  # noqa: E402
import monai.transforms as T  # noqa: E402
from monai.inferers import sliding_window_inference  # noqa: E402

B = 2

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements) and
    the largest magnitude, in float64."""
    t = torch.as_tensor(t).detach().double().flatten()
    if t.numel() == 0:
        return "empty"
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def labels(shape, classes=2):
    """A one-hot label map ``(B, classes, *shape)`` from thresholded smooth noise."""
    x = torch.rand(B, 1, *shape)
    idx = (x * classes).long().clamp(max=classes - 1)
    return torch.cat([(idx == c).float() for c in range(classes)], 1)


def net_lines(name, net, x, eval_too=False):
    """Forward ``x`` (requires grad) through ``net`` in train mode, backward the mean square of
    the output(s), and report the output, the input gradient and the parameters' gradients
    (and, with ``eval_too``, the output in eval mode)."""
    net.train()
    x = x.clone().requires_grad_()
    y = net(x)
    ys = list(y) if isinstance(y, (tuple, list)) else [y]
    loss = sum(v.float().pow(2).mean() for v in ys if isinstance(v, torch.Tensor))
    loss.backward()
    out = [(f"out{i}", v) for i, v in enumerate(ys) if isinstance(v, torch.Tensor)]
    grads = [p.grad.flatten() for p in net.parameters() if p.grad is not None]
    nparams = sum(p.numel() for p in net.parameters())
    out += [("loss", f"loss {loss.item()!r}"), ("params", f"params {nparams}"),
            ("input_grad", x.grad), ("param_grads", torch.cat(grads))]
    if eval_too:
        net.eval()
        with torch.no_grad():
            ye = net(x.detach())
        out.append(("eval_out", ye[0] if isinstance(ye, (tuple, list)) else ye))
    return out


# each variant returns [(label, tensor or text)]; a tensor is printed as its checksum


@variant("unet2d")
def _():
    net = N.UNet(2, 1, 3, channels=(4, 8, 16), strides=(2, 2), num_res_units=1)
    return net_lines("unet2d", net, torch.rand(B, 1, 32, 32))


@variant("unet3d")
def _():
    net = N.UNet(3, 1, 2, channels=(4, 8, 16), strides=(2, 2), num_res_units=1, norm="batch",
                 act="relu", dropout=0.0)
    return net_lines("unet3d", net, torch.rand(B, 1, 16, 16, 16), eval_too=True)


@variant("basicunet")
def _():
    net = N.BasicUNet(2, 1, 2, features=(4, 4, 8, 8, 16, 4))
    return net_lines("basicunet", net, torch.rand(B, 1, 32, 32))


@variant("attentionunet")
def _():
    net = N.AttentionUnet(2, 1, 2, channels=(4, 8), strides=(2,))
    return net_lines("attentionunet", net, torch.rand(B, 1, 32, 32))


@variant("segresnet")
def _():
    net = N.SegResNet(3, init_filters=4, in_channels=1, out_channels=2, blocks_down=(1, 1, 1),
                      blocks_up=(1, 1), norm=("GROUP", {"num_groups": 2}))
    return net_lines("segresnet", net, torch.rand(B, 1, 16, 16, 16))


@variant("dynunet")
def _():
    net = N.DynUNet(2, 1, 2, kernel_size=[3, 3, 3], strides=[1, 2, 2],
                    upsample_kernel_size=[2, 2], filters=[4, 8, 16], deep_supervision=True,
                    deep_supr_num=1, res_block=True)
    return net_lines("dynunet", net, torch.rand(B, 1, 32, 32))


@variant("unetr")
def _():
    net = N.UNETR(1, 2, img_size=(16, 16, 16), feature_size=4, hidden_size=32, mlp_dim=64,
                  num_heads=4)
    return net_lines("unetr", net, torch.rand(1, 1, 16, 16, 16))


@variant("swinunetr")
def _():
    net = N.SwinUNETR(1, 2, depths=(1, 1, 1, 1), num_heads=(1, 1, 2, 2), window_size=4,
                      feature_size=12, spatial_dims=2)
    return net_lines("swinunetr", net, torch.rand(1, 1, 64, 64))


@variant("densenet121")
def _():
    net = N.DenseNet121(2, 1, 3, init_features=8, growth_rate=4, block_config=(1, 1, 1, 1))
    return net_lines("densenet121", net, torch.rand(B, 1, 32, 32))


@variant("resnet")
def _():
    net = N.ResNet("basic", [1, 1, 1, 1], [4, 8, 8, 16], spatial_dims=3, n_input_channels=1,
                   num_classes=3, conv1_t_size=3, conv1_t_stride=1)
    return net_lines("resnet", net, torch.rand(B, 1, 16, 16, 16))


@variant("autoencoder")
def _():
    net = N.AutoEncoder(2, 1, 1, channels=(4, 8), strides=(2, 2), num_res_units=1,
                        inter_channels=[8], inter_dilations=[2])
    return net_lines("autoencoder", net, torch.rand(B, 1, 32, 32))


@variant("varautoencoder")
def _():
    net = N.VarAutoEncoder(2, (1, 16, 16), 1, latent_size=4, channels=(4, 8), strides=(2, 2),
                           use_mean_at_inference=True)
    return net_lines("varautoencoder", net, torch.rand(B, 1, 16, 16), eval_too=True)


def loss_lines(loss_fn, pred, target, name):
    pred = pred.clone().requires_grad_()
    value = loss_fn(pred, target)
    value.sum().backward()
    return [(name, value), (f"{name}_grad", pred.grad)]


@variant("losses_dice")
def _():
    logits = torch.randn(B, 3, 16, 16)
    target = labels((16, 16), 3)
    index_target = target.argmax(1, keepdim=True).float()
    out = []
    out += loss_lines(L.DiceLoss(softmax=True), logits, target, "dice_softmax")
    out += loss_lines(L.DiceLoss(sigmoid=True, squared_pred=True, jaccard=True,
                                 reduction="none"), logits, target, "dice_sq_jaccard")
    out += loss_lines(L.DiceLoss(to_onehot_y=True, softmax=True, include_background=False,
                                 batch=True), logits, index_target, "dice_onehot_batch")
    out += loss_lines(L.DiceLoss(softmax=True, weight=torch.tensor([0.2, 0.3, 0.5])), logits,
                      target, "dice_weighted")
    out += loss_lines(L.DiceCELoss(to_onehot_y=True, softmax=True, lambda_ce=0.7), logits,
                      index_target, "dicece")
    out += loss_lines(L.DiceFocalLoss(sigmoid=True, gamma=1.5), logits, target, "dicefocal")
    out += loss_lines(L.GeneralizedDiceLoss(softmax=True), logits, target, "gdice")
    out += loss_lines(L.GeneralizedDiceLoss(sigmoid=True, w_type="simple", batch=True), logits,
                      target, "gdice_simple")
    out += loss_lines(L.GeneralizedDiceFocalLoss(softmax=True), logits, target, "gdicefocal")
    out += loss_lines(L.MaskedDiceLoss(sigmoid=True), logits, target, "masked_dice")
    return out


@variant("losses_other")
def _():
    logits = torch.randn(B, 3, 16, 16)
    target = labels((16, 16), 3)
    out = []
    out += loss_lines(L.FocalLoss(gamma=2.0), logits, target, "focal")
    out += loss_lines(L.FocalLoss(gamma=2.0, alpha=0.25, use_softmax=True, to_onehot_y=True),
                      logits, target.argmax(1, keepdim=True), "focal_softmax")
    out += loss_lines(L.TverskyLoss(softmax=True, alpha=0.3, beta=0.7), logits, target,
                      "tversky")
    out += loss_lines(L.HausdorffDTLoss(softmax=True), logits, target, "hausdorff_dt")
    out += loss_lines(L.LogHausdorffDTLoss(sigmoid=True), logits, target, "log_hausdorff_dt")
    img = torch.rand(B, 1, 16, 16)
    ref = (img + 0.2 * torch.rand(B, 1, 16, 16)).clamp(0, 1)
    out += loss_lines(L.SSIMLoss(spatial_dims=2, data_range=1.0, win_size=5), img, ref, "ssim")
    out += loss_lines(L.ContrastiveLoss(temperature=0.5), torch.randn(4, 8), torch.randn(4, 8),
                      "contrastive")
    out += loss_lines(L.BarlowTwinsLoss(lambd=5e-3), torch.randn(4, 8), torch.randn(4, 8),
                      "barlow")
    out += loss_lines(L.GlobalMutualInformationLoss(num_bins=8), img, ref, "global_mi")
    out += loss_lines(L.LocalNormalizedCrossCorrelationLoss(spatial_dims=2, kernel_size=3),
                      img, ref, "lncc")
    ddf = torch.randn(B, 2, 16, 16) * 0.1
    out += loss_lines(lambda p, _: L.BendingEnergyLoss()(p), ddf, None, "bending")
    return out


def metric_lines(metric, name, pairs):
    for y_pred, y in pairs:
        metric(y_pred=y_pred, y=y)
    value = metric.aggregate()
    values = value if isinstance(value, (list, tuple)) else [value]
    out = [(f"{name}{i}", torch.as_tensor(v)) for i, v in enumerate(values)]
    metric.reset()
    return out


@variant("metrics")
def _():
    preds = [labels((16, 16), 3) for _ in range(2)]
    gts = [labels((16, 16), 3) for _ in range(2)]
    pairs = list(zip(preds, gts))
    out = []
    out += metric_lines(M.DiceMetric(include_background=True, reduction="mean_batch"), "dice",
                        pairs)
    out += metric_lines(M.DiceMetric(include_background=False, get_not_nans=True), "dice_nb",
                        pairs)
    out += metric_lines(M.MeanIoU(reduction="mean"), "iou", pairs)
    out += metric_lines(M.GeneralizedDiceScore(), "gds", pairs)
    out += metric_lines(M.HausdorffDistanceMetric(percentile=95), "hd95", pairs)
    out += metric_lines(M.HausdorffDistanceMetric(distance_metric="chessboard"), "hd_chess",
                        pairs)
    out += metric_lines(M.SurfaceDistanceMetric(symmetric=True), "asd", pairs)
    out += metric_lines(M.SurfaceDiceMetric([1.0, 1.0, 1.0], include_background=True), "nsd", pairs)
    out += metric_lines(M.ConfusionMatrixMetric(metric_name=["sensitivity", "precision",
                                                             "f1 score", "accuracy"]),
                        "confusion", pairs)
    y_score = torch.rand(12, 3)
    y_true = torch.nn.functional.one_hot(torch.arange(12) % 3, 3).float()
    roc = M.ROCAUCMetric(average="macro")
    roc(y_score, y_true)
    out.append(("rocauc", f"rocauc {roc.aggregate()!r}"))
    out += metric_lines(M.MSEMetric(), "mse", [(torch.rand(B, 1, 8, 8), torch.rand(B, 1, 8, 8))])
    out += metric_lines(M.PSNRMetric(max_val=1.0), "psnr",
                        [(torch.rand(B, 1, 8, 8), torch.rand(B, 1, 8, 8))])
    out += metric_lines(M.SSIMMetric(spatial_dims=2, data_range=1.0, win_size=5), "ssim",
                        [(torch.rand(B, 1, 16, 16), torch.rand(B, 1, 16, 16))])
    return out


@variant("transforms")
def _():
    img = torch.rand(1, 16, 16, 12) * 100
    img2d = torch.rand(1, 20, 24)
    out = []
    for name, xf, x in (
            ("scale_intensity", T.ScaleIntensity(), img),
            ("scale_intensity_range", T.ScaleIntensityRange(10, 90, 0, 1, clip=True), img),
            ("normalize_intensity", T.NormalizeIntensity(), img),
            ("normalize_nonzero", T.NormalizeIntensity(nonzero=True, channel_wise=True),
             img - 50),
            ("threshold", T.ThresholdIntensity(50, above=True, cval=0.0), img),
            ("spacing", T.Spacing(pixdim=(1.5, 1.2, 2.0), mode="bilinear"), img),
            ("resize", T.Resize((10, 12, 8), mode="trilinear"), img),
            ("resize_area", T.Resize((10, 12), mode="area"), img2d),
            ("zoom", T.Zoom(1.3, mode="bilinear", keep_size=True), img2d),
            ("rotate", T.Rotate(0.4, mode="bilinear", padding_mode="border"), img2d),
            ("rotate90", T.Rotate90(k=1, spatial_axes=(0, 1)), img),
            ("flip", T.Flip(spatial_axis=(0, 2)), img),
            ("affine", T.Affine(rotate_params=0.3, scale_params=(1.1, 0.9),
                                translate_params=(2, -1), image_only=True), img2d),
            ("spatial_pad", T.SpatialPad((24, 24), mode="reflect"), img2d),
            ("center_crop", T.CenterSpatialCrop((12, 12)), img2d),
            ("gaussian_smooth", T.GaussianSmooth(1.0), img2d),
            ("gaussian_sharpen", T.GaussianSharpen(), img2d),
            ("adjust_contrast", T.AdjustContrast(1.5), img2d),
            ("histogram_normalize", T.HistogramNormalize(num_bins=16), img2d),
            ("mask_intensity", T.MaskIntensity(img2d > 0.5), img2d)):
        y = xf(x)
        out.append((name, torch.as_tensor(y)))
        out.append((f"{name}_shape", f"shape {list(y.shape)}"))
    for name, xf, x in (
            ("rand_affine", T.RandAffine(prob=1.0, rotate_range=0.5, shear_range=0.1,
                                         translate_range=(2, 2), scale_range=0.1,
                                         padding_mode="zeros"), img2d),
            ("rand_rotate", T.RandRotate(range_x=0.5, prob=1.0), img2d),
            ("rand_flip", T.RandFlip(prob=0.5, spatial_axis=0), img2d),
            ("rand_gaussian_noise", T.RandGaussianNoise(prob=1.0, std=0.1), img2d),
            ("rand_scale_intensity", T.RandScaleIntensity(0.2, prob=1.0), img2d),
            ("rand_spatial_crop", T.RandSpatialCrop((10, 10), random_size=False), img2d),
            ("rand_elastic", T.Rand2DElastic(spacing=(5, 5), magnitude_range=(1, 2), prob=1.0),
             img2d)):
        xf.set_random_state(seed=0)
        y = xf(x)
        out.append((name, torch.as_tensor(y)))
    logits = torch.randn(3, 12, 12)
    out.append(("as_discrete_argmax", torch.as_tensor(T.AsDiscrete(argmax=True,
                                                                  to_onehot=3)(logits))))
    out.append(("as_discrete_threshold", torch.as_tensor(T.AsDiscrete(threshold=0.3)(logits))))
    seg = torch.zeros(1, 12, 12)
    seg[0, 1:4, 1:4] = 1
    seg[0, 6:11, 5:10] = 1
    seg[0, 9, 1] = 1
    # KeepLargestConnectedComponent needs scikit-image (skimage.measure.label) on CPU
    # FillHoles writes into the array ``Tensor.numpy()`` returns (in place on the tensor in
    # PyTorch); jtorch's is read-only (docs/differences.md: no memory shared with NumPy)
    out.append(("label_to_contour", torch.as_tensor(T.LabelToContour()(seg))))
    return out


@variant("sliding_window")
def _():
    net = N.UNet(2, 1, 2, channels=(4, 8), strides=(2,), num_res_units=1)
    net.eval()
    x = torch.rand(1, 1, 40, 36)
    out = []
    with torch.no_grad():
        for mode, overlap in (("constant", 0.25), ("gaussian", 0.5)):
            y = sliding_window_inference(x, (16, 16), 3, net, overlap=overlap, mode=mode)
            out.append((f"swi_{mode}", y))
    return out


@variant("train_unet")
def _():
    net = N.UNet(2, 1, 2, channels=(4, 8, 16), strides=(2, 2), num_res_units=1)
    loss_fn = L.DiceLoss(to_onehot_y=True, softmax=True)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    x = torch.rand(4, 1, 32, 32)
    y = (x > 0.5).float()
    out = []
    for step in range(5):
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        out.append((f"step{step}", f"step {step} loss {loss.item()!r}"))
    out.append(("params", torch.cat([p.detach().flatten() for p in net.parameters()])))
    net.eval()
    with torch.no_grad():
        pred = T.AsDiscrete(argmax=True)(net(x)[0])
    out.append(("pred", torch.as_tensor(pred)))
    return out


def show(name, label, value):
    if isinstance(value, torch.Tensor):
        print(f"{name} {label} {list(value.shape)} {value.dtype} {checksum(value)}")
    else:
        print(f"{name} {value}")


def run(name):
    torch.manual_seed(0)
    print(f"== {name}")
    for label, value in VARIANTS[name]():
        show(name, label, value)


def main(argv):
    if os.environ.get("MONAI_FLOAT64"):  # to tell float32 rounding from a bug
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
