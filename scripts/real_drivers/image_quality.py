"""Driver of piq and pytorch-msssim (docs/real-programs.md): the installed packages, unchanged,
run over seeded random images (batches of 2, RGB and grey 64x64, float32 and float64, in
[0, 1]): every piq full-reference and no-reference metric and loss that needs no downloaded
weights (PSNR, SSIM, MS-SSIM, IW-SSIM, VIF, FSIM, GMSD, MS-GMSD, HaarPSI, MDSI, SR-SIM, DSS,
VSI, total variation, BRISQUE's features) with their gradients with respect to the distorted
image, piq's feature-space metrics (FID, KID, PR, MSID, IS) on random features,
pytorch_msssim's ``ssim``/``ms_ssim`` and ``SSIM``/``MS_SSIM`` modules (window sizes,
``nonnegative_ssim``, ``K``, ``data_range``, 3-D volumes) with values and gradients, and Adam
steps optimising an image to maximise SSIM against a target. Each result is printed as a
checksum (sums and largest magnitude) at full precision.

    python scripts/shared_rng_run.py drive_iq.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_iq.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``), so a subset prints what the full run prints for it. BRISQUE's score,
PieAPP, LPIPS, DISTS, the content/style losses and CLIP-IQA need downloaded weights and are not
run (BRISQUE's natural-scene-statistics features, which need none, are).
"""

import os
import sys
import time
import types

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

if "torchvision" not in sys.modules and "jtorch" not in sys.modules:
    # piq imports torchvision (for its Inception feature extractor, not used here). The CPU
    # torch's torchvision wheel cannot load its C++ extension, whose fake/autograd kernel
    # registrations then fail at import (tests/vision_helpers.py): stand empty modules in.
    for _name in ("torchvision._meta_registrations", "torchvision._autograd_registrations"):
        sys.modules.setdefault(_name, types.ModuleType(_name))

import piq  # noqa: E402
import pytorch_msssim  # noqa: E402
from piq.brisque import _natural_scene_statistics  # noqa: E402
from piq.functional import imresize  # noqa: E402

B, S = 2, 64

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def pair(channels=3, dtype=torch.float32, size=S):
    """A target and a distorted image (a blend with noise, so it stays in [0, 1])."""
    target = torch.rand(B, channels, size, size, dtype=dtype)
    noise = torch.rand(B, channels, size, size, dtype=dtype)
    return target, 0.75 * target + 0.25 * noise


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements) and
    the largest magnitude, in float64."""
    t = t.detach().double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def value_and_grad(fn, target, distorted):
    """``fn(distorted, target)``'s value and its gradient with respect to ``distorted``."""
    d = distorted.detach().clone().requires_grad_()
    value = fn(d, target)
    value.sum().backward()
    return value, d.grad


RGB32 = (("rgb32", 3, torch.float32),)
TWO = RGB32 + (("grey64", 1, torch.float64),)   # both channel counts and dtypes, 2 compiles
RGB = RGB32 + (("rgb64", 3, torch.float64),)
THREE = RGB + (("grey32", 1, torch.float32),)


def cases(fn, name, kinds=TWO, grad=True):
    out = []
    for kind, channels, dtype in kinds:
        target, distorted = pair(channels, dtype)
        if grad:
            value, g = value_and_grad(fn, target, distorted)
            out += [(f"{name} {kind}", value), (f"{name} {kind} grad", g)]
        else:
            out.append((f"{name} {kind}", fn(distorted, target)))
    return out


@variant("psnr")
def _():
    return (cases(lambda x, y: piq.psnr(x, y, reduction="none"), "psnr", THREE)
            + cases(lambda x, y: piq.psnr(x * 255, y * 255, data_range=255,
                                          convert_to_greyscale=True), "psnr_grey", grad=False))


@variant("ssim")
def _():
    return (cases(lambda x, y: piq.ssim(x, y, reduction="none"), "ssim", THREE)
            + cases(lambda x, y: torch.stack(piq.ssim(x, y, full=True, downsample=False,
                                                      kernel_size=7, kernel_sigma=1.0,
                                                      k2=0.05)), "ssim_full")
            + cases(piq.SSIMLoss(data_range=1.0, reduction="sum"), "SSIMLoss"))


@variant("ms_ssim")
def _():
    return (cases(lambda x, y: piq.multi_scale_ssim(x, y, kernel_size=3, reduction="none"),
                  "multi_scale_ssim")
            + cases(piq.MultiScaleSSIMLoss(kernel_size=3,
                                           scale_weights=torch.tensor([0.5, 0.3, 0.2])),
                    "MultiScaleSSIMLoss"))


@variant("iw_ssim")
def _():
    return (cases(lambda x, y: piq.information_weighted_ssim(
                      x, y, kernel_size=5, scale_weights=torch.tensor([0.1, 0.3, 0.3, 0.3]),
                      reduction="none"), "iw_ssim")
            + cases(piq.InformationWeightedSSIMLoss(kernel_size=5, parent=False,
                                                    scale_weights=torch.tensor([0.6, 0.4])),
                    "InformationWeightedSSIMLoss", kinds=RGB32))


@variant("vif")
def _():
    return (cases(lambda x, y: piq.vif_p(x, y, reduction="none"), "vif_p")
            + cases(piq.VIFLoss(sigma_n_sq=1.0), "VIFLoss", kinds=RGB32))


@variant("fsim")
def _():
    return (cases(lambda x, y: piq.fsim(x, y, chromatic=x.size(1) == 3, reduction="none"),
                  "fsim")
            + cases(lambda x, y: piq.fsim(x, y, chromatic=False), "fsim_achromatic",
                    kinds=RGB32)
            + cases(piq.FSIMLoss(scales=3, orientations=3), "FSIMLoss",
                    kinds=RGB32))


@variant("gmsd")
def _():
    return (cases(lambda x, y: piq.gmsd(x, y, reduction="none"), "gmsd")
            + cases(lambda x, y: piq.multi_scale_gmsd(x, y, reduction="none"), "ms_gmsd")
            + cases(lambda x, y: piq.multi_scale_gmsd(x, y, chromatic=True), "ms_gmsd_chromatic",
                    kinds=RGB)
            + cases(piq.GMSDLoss(), "GMSDLoss", kinds=RGB32)
            + cases(piq.MultiScaleGMSDLoss(scale_weights=torch.tensor([0.3, 0.3, 0.4])),
                    "MultiScaleGMSDLoss", kinds=RGB32))


@variant("haarpsi")
def _():
    return (cases(lambda x, y: piq.haarpsi(x, y, reduction="none"), "haarpsi")
            + cases(lambda x, y: piq.haarpsi(x, y, scales=2, subsample=False), "haarpsi_nosub",
                    kinds=RGB32)
            + cases(piq.HaarPSILoss(), "HaarPSILoss", kinds=RGB32))


@variant("mdsi")
def _():
    return (cases(lambda x, y: piq.mdsi(x, y, reduction="none"), "mdsi",
                  kinds=RGB)
            + cases(lambda x, y: piq.mdsi(x, y, combination="mult"), "mdsi_mult",
                    kinds=RGB32)
            + cases(piq.MDSILoss(), "MDSILoss", kinds=RGB32))


@variant("srsim")
def _():
    return (cases(lambda x, y: piq.srsim(x, y, reduction="none"), "srsim")
            + cases(lambda x, y: piq.srsim(x, y, chromatic=True), "srsim_chromatic",
                    kinds=RGB32)
            + cases(piq.SRSIMLoss(), "SRSIMLoss", kinds=RGB32))


@variant("dss")
def _():
    return (cases(lambda x, y: piq.dss(x, y, reduction="none"), "dss")
            + cases(piq.DSSLoss(dct_size=4, sigma_weight=1.0), "DSSLoss",
                    kinds=RGB32))


@variant("vsi")
def _():
    return (cases(lambda x, y: piq.vsi(x, y, reduction="none"), "vsi",
                  kinds=RGB)
            + cases(piq.VSILoss(), "VSILoss", kinds=RGB32))


@variant("tv")
def _():
    out = []
    for norm in ("l1", "l2", "l2_squared"):
        out += cases(lambda x, y, norm=norm: piq.total_variation(x - y, norm_type=norm,
                                                                 reduction="none"), f"tv_{norm}")
    return out + cases(lambda x, y: piq.TVLoss(reduction="sum")(x), "TVLoss",
                       kinds=RGB32)


@variant("brisque_features")
def _():
    # brisque's score needs a downloaded SVR model; its features need nothing
    out = []
    for kind, channels, dtype in (("rgb32", 3, torch.float32), ("grey64", 1, torch.float64)):
        x = (torch.rand(B, channels, S, S, dtype=dtype) * 255).requires_grad_()
        grey = piq.functional.rgb2yiq(x)[:, :1] if channels == 3 else x
        feats = [_natural_scene_statistics(grey, 7, 7 / 6)]
        small = imresize(grey, sizes=(S // 2, S // 2))
        feats.append(_natural_scene_statistics(small, 7, 7 / 6))
        feats = torch.cat(feats, dim=-1)
        feats[:, ::3].sum().backward()
        out += [(f"brisque_features {kind}", feats), (f"imresize {kind}", small),
                (f"brisque_features {kind} grad", x.grad)]
    return out


@variant("feature_metrics")
def _():
    x = torch.rand(40, 8, dtype=torch.float64)
    y = torch.rand(40, 8, dtype=torch.float64) * 1.2 + 0.1
    probs = torch.softmax(torch.rand(40, 10) * 4, dim=1)
    kid = piq.KID(degree=3, subset_size=20)
    out = [("FID", piq.FID().compute_metric(x, y)),
           ("KID", kid.compute_metric(x, y)),
           ("KID_var", piq.KID(ret_var=True, subset_size=20, n_subsets=5)
            .compute_metric(x, y)[0]),
           ("PR", torch.stack(piq.PR(nearest_k=3).compute_metric(x, y))),
           ("inception_score", torch.stack(piq.inception_score(probs, num_splits=4)))]
    np.random.seed(0)  # MSID's Lanczos starting vectors come from NumPy's global generator
    out.append(("MSID", piq.MSID(ts=torch.logspace(-1, 1, 16), k=5, m=5, niters=20,
                                 rademacher=False).compute_metric(x.float(), y.float())))
    return out


@variant("msssim_functions")
def _():
    kinds = THREE
    ms = pytorch_msssim
    return (cases(lambda x, y: ms.ssim(x, y, data_range=1.0, size_average=False), "ssim", kinds)
            + cases(lambda x, y: ms.ssim(x * 255, y * 255, win_size=7, win_sigma=1.0,
                                         K=(0.02, 0.05)), "ssim_win7_255", kinds[:1])
            + cases(lambda x, y: ms.ssim(x - 0.5, y, data_range=1.0, nonnegative_ssim=True),
                    "ssim_nonnegative", kinds[:1])
            + cases(lambda x, y: ms.ms_ssim(x, y, data_range=1.0, win_size=3,
                                            size_average=False), "ms_ssim", kinds)
            + cases(lambda x, y: ms.ms_ssim(x, y, data_range=1.0, win_size=3,
                                            weights=[0.4, 0.3, 0.3], K=(0.01, 0.4)),
                    "ms_ssim_weights", kinds[:1]))


@variant("msssim_modules")
def _():
    ms = pytorch_msssim
    rgb, grey = (("rgb32", 3, torch.float32),), (("grey32", 1, torch.float32),)
    out = (cases(ms.SSIM(data_range=1.0, channel=3), "SSIM", rgb)
           + cases(ms.SSIM(data_range=1.0, channel=1, win_size=5, size_average=False,
                           nonnegative_ssim=True), "SSIM_grey", grey)
           + cases(ms.MS_SSIM(data_range=1.0, channel=3, win_size=3), "MS_SSIM", rgb)
           + cases(ms.MS_SSIM(data_range=1.0, channel=1, win_size=3, size_average=False,
                              weights=[0.2, 0.3, 0.5], K=(0.01, 0.05)), "MS_SSIM_grey", grey))
    # volumes: conv3d windows (spatial_dims=3)
    t = torch.rand(B, 1, 16, 16, 16)
    d = (0.75 * t + 0.25 * torch.rand(B, 1, 16, 16, 16)).requires_grad_()
    v = ms.SSIM(data_range=1.0, channel=1, spatial_dims=3, win_size=5)(d, t)
    v.backward()
    out += [("SSIM_3d", v), ("SSIM_3d grad", d.grad),
            ("ssim_3d_fn", ms.ssim(d.detach(), t, data_range=1.0, win_size=3,
                                   size_average=False))]
    return out


@variant("optimise_ssim")
def _():
    out = []
    target = torch.rand(1, 3, S, S)
    for name, loss_fn in (("msssim", lambda x: 1 - pytorch_msssim.ssim(x, target,
                                                                       data_range=1.0)),
                          ("piq", lambda x: piq.SSIMLoss()(x.clamp(0, 1), target))):
        x = torch.rand(1, 3, S, S).requires_grad_()
        opt = torch.optim.Adam([x], lr=0.02)
        for step in range(5):
            opt.zero_grad()
            loss = loss_fn(x)
            loss.backward()
            opt.step()
            out.append((f"{name} step {step}", f"loss {loss.item()!r}"))
        out.append((f"{name} image", x))
    return out


def show(name, label, value):
    if isinstance(value, torch.Tensor):
        print(f"{name} {label} {list(value.shape)} {value.dtype} {checksum(value)}")
    else:
        print(f"{name} {label} {value}")


def run(name):
    torch.manual_seed(0)
    print(f"== {name}")
    for label, value in VARIANTS[name]():
        show(name, label, value)


def main(argv):
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
