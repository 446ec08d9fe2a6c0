"""Driver of deepinv (docs/real-programs.md): the installed package, unchanged, on small seeded
synthetic images (batch 2, 1 to 3 channels, 16x16), no downloads and no pretrained weights: its
physics operators (Blur in five paddings, BlurFFT, Downsampling, Inpainting, CompressedSensing,
SinglePixelCamera, MRI, MultiCoilMRI, composed, stacked and closure physics, Decolorize,
Tomography) forward, adjoint, ``A_dagger``, ``prox_l2``, the adjointness test, operator norms
and gradients; its noise models through ``Denoising`` and the L2/Poisson data fidelities; the
denoisers DnCNN, DRUNet, UNet, Restormer, SwinIR, SCUNet and GSDRUNet with random weights
(outputs, input and weight gradients), the TV, TGV and median denoisers and the PSF
generators; ``optim_builder``'s PGD, HQS, ADMM, DRS and GD and ``PDCP`` on TV, L1 and Tikhonov
priors, plug-and-play loops; an unfolded PGD with a DnCNN prior trained by deepinv's
``Trainer`` and by a hand loop with Adam, and a DEQ forward; the losses (SupLoss, MCLoss,
EILoss with shifts and rotations, SURE, TV, R2R, SplittingLoss, Neighbor2Neighbor) and metrics.
Each result is printed as its checksum (sums and largest magnitude) at full precision.

    python scripts/shared_rng_run.py drive_deepinv.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_deepinv.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant. Each variant reseeds (``torch.manual_seed``), so a
subset prints what the full run prints for it. Everything runs in float64 (complex128 for MRI);
``DINV_FLOAT32=1`` runs in float32 instead.
"""

import os
import sys
import tempfile
import time
import types

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

if "torchvision" not in sys.modules and torch is not sys.modules.get("jtorch"):
    # deepinv imports torchvision. The CPU torch's torchvision wheel cannot load its C++
    # extension, whose fake/autograd kernel registrations then fail at import
    # (tests/vision_helpers.py): stand empty modules in.
    for _name in ("torchvision._meta_registrations", "torchvision._autograd_registrations"):
        sys.modules.setdefault(_name, types.ModuleType(_name))

import deepinv as dinv  # noqa: E402

B, S = 2, 16

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def gauss(sigma, angle=0.0):
    """deepinv's Gaussian blur kernel, built in the default dtype (its default is float32)."""
    if isinstance(sigma, (int, float)):
        sigma = (sigma, sigma)
    return dinv.physics.functional.gaussian_blur(sigma=sigma, angle=angle,
                                                 dtype=torch.get_default_dtype())


def images(batch=B, channels=1, size=S):
    """Smooth-ish synthetic images in [0, 1]: a blurred random field plus a square."""
    x = torch.rand(batch, channels, size, size)
    x = dinv.physics.functional.conv2d(x, gauss(1.0),
                                       padding="circular")
    x[..., size // 4:size // 2, size // 4:size // 2] += 0.5
    return x.clamp(0, 1)


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements, so
    that values summing to zero by construction give no cancellation noise) and the largest
    magnitude, in float64 (complex tensors as their real view)."""
    t = t.detach()
    if t.is_complex():
        t = torch.view_as_real(t)
    t = t.double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def inner(a, b):
    if a.is_complex():
        return (a.conj() * b).sum().real.item()
    return (a * b).sum().item()


def linear_checks(name, physics, x):
    """Forward, adjoint, pseudo-inverse, prox, adjointness and norm of a linear physics."""
    y = physics.A(x)
    v = torch.randn_like(y) if not y.is_complex() else torch.randn_like(torch.view_as_real(y))
    if y.is_complex():
        v = torch.view_as_complex(v)
    out = [(f"{name} A", y), (f"{name} A_adjoint", physics.A_adjoint(y)),
           (f"{name} A_dagger", physics.A_dagger(y)),
           (f"{name} prox_l2", physics.prox_l2(x * 0.5, y, 0.7)),
           (f"{name} A_adjoint_A", physics.A_adjoint_A(x)),
           (f"{name} adjoint <Ax,v>-<x,A^T v>",
            f"{inner(y, v)!r} {inner(x, physics.A_adjoint(v))!r}")]
    norm = physics.compute_norm(torch.randn_like(x), max_iter=20, tol=1e-30, verbose=False)
    out.append((f"{name} norm", f"{float(norm)!r}"))
    xg = x.clone().requires_grad_()
    loss = physics.A(xg).abs().pow(2).sum() + physics.A_dagger(physics.A(xg)).pow(3).sum()
    loss.backward()
    out.append((f"{name} grad", xg.grad))
    return out


@variant("blur")
def _():
    x = images(channels=3)
    k = gauss((1.5, 0.8), 30.0)
    out = [("gaussian_filter", k), ("bicubic_filter", dinv.physics.functional.bicubic_filter(2)),
           ("bilinear_filter", dinv.physics.functional.bilinear_filter(2))]
    for padding in ("valid", "circular", "reflect", "replicate", "constant"):
        out += linear_checks(f"blur_{padding}", dinv.physics.Blur(filter=k, padding=padding), x)
    out += linear_checks("blurfft", dinv.physics.BlurFFT(img_size=(3, S, S), filter=k), x)
    out += linear_checks("downsampling", dinv.physics.Downsampling(
        img_size=(3, S, S), filter="bicubic", factor=2), x)
    out += linear_checks("downsampling_gauss", dinv.physics.Downsampling(
        img_size=(3, S, S), filter=gauss(1.0), factor=2, padding="reflect"), x)
    return out


@variant("inpainting_cs")
def _():
    x = images()
    out = []
    out += linear_checks("inpainting", dinv.physics.Inpainting(img_size=(1, S, S), mask=0.6), x)
    out += linear_checks("inpainting_channel", dinv.physics.Inpainting(
        img_size=(3, S, S), mask=0.5, pixelwise=False), images(channels=3))
    gen = torch.Generator().manual_seed(1)
    cs = dinv.physics.CompressedSensing(m=120, img_size=(1, S, S), rng=gen,
                                        dtype=torch.get_default_dtype())
    out += linear_checks("cs", cs, x)
    out += linear_checks("cs_channelwise", dinv.physics.CompressedSensing(
        m=40, img_size=(2, S, S), channelwise=True, rng=torch.Generator().manual_seed(2),
        dtype=torch.get_default_dtype()), images(channels=2))
    out += linear_checks("spc", dinv.physics.SinglePixelCamera(
        m=64, img_size=(1, S, S), fast=True, dtype=torch.get_default_dtype()), x)
    return out


@variant("mri")
def _():
    x = images(channels=2)
    mask = (torch.rand(S, S) < 0.4).to(x.dtype)
    mask[:, S // 2 - 2:S // 2 + 2] = 1
    mri = dinv.physics.MRI(mask=mask, img_size=(2, S, S))
    out = linear_checks("mri", mri, x)
    gen = dinv.physics.generator.GaussianMaskGenerator(img_size=(S, S), acceleration=4,
                                                       rng=torch.Generator().manual_seed(3))
    params = gen.step(batch_size=B, seed=3)
    out.append(("gaussian_mask", params["mask"]))
    out += linear_checks("mri_gauss", dinv.physics.MRI(mask=params["mask"], img_size=(2, S, S)),
                         x)
    coils = 3
    maps = torch.randn(B, coils, S, S, dtype=torch.complex128
                       if x.dtype == torch.float64 else torch.complex64)
    maps = maps / maps.abs().pow(2).sum(1, keepdim=True).sqrt()
    out += linear_checks("multicoil", dinv.physics.MultiCoilMRI(mask=mask, coil_maps=maps,
                                                                img_size=(2, S, S)), x)
    return out


@variant("combined")
def _():
    """Composed (``*``) and stacked physics, a LinearPhysics from two closures, Decolorize,
    and parallel-beam Tomography (a Radon transform by ``grid_sample``; its pseudo-inverse by
    least squares and its filtered back-projection)."""
    x = images()
    blur = dinv.physics.BlurFFT(img_size=(1, S, S), filter=gauss(1.0))
    inpaint = dinv.physics.Inpainting(img_size=(1, S, S), mask=0.7)
    out = linear_checks("composed", inpaint * blur, x)
    stacked = blur.stack(inpaint)
    y = stacked(x)
    out += [("stacked y0", y[0]), ("stacked y1", y[1]),
            ("stacked A_adjoint", stacked.A_adjoint(y)),
            ("stacked A_dagger", stacked.A_dagger(y))]
    w = torch.randn(S * S, 90) / S
    closure = dinv.physics.LinearPhysics(A=lambda v: v.flatten(1) @ w,
                                         A_adjoint=lambda v: (v @ w.T).view(-1, 1, S, S))
    out += linear_checks("closure", closure, x)
    out += linear_checks("decolorize", dinv.physics.Decolorize(), images(channels=3))
    tomo = dinv.physics.Tomography(angles=12, img_width=S, circle=False,
                                   dtype=torch.get_default_dtype())
    sino = tomo.A(x)
    xg = x.clone().requires_grad_()
    tomo.A(xg).pow(2).sum().backward()
    out += [("tomography A", sino), ("tomography A_adjoint", tomo.A_adjoint(sino)),
            ("tomography A_dagger", tomo.A_dagger(sino)),
            ("tomography fbp", tomo.A_dagger(sino, fbp=True)), ("tomography grad", xg.grad)]
    return out


@variant("noise")
def _():
    x = images()
    out = []
    for name, model in (("gaussian", dinv.physics.GaussianNoise(sigma=0.1)),
                        ("gaussian_batch", dinv.physics.GaussianNoise(
                            sigma=torch.tensor([0.05, 0.2]))),
                        ("uniform", dinv.physics.UniformNoise(a=0.2)),
                        ("saltpepper", dinv.physics.SaltPepperNoise(p=0.1, s=0.1)),
                        ("gaussian_sum", dinv.physics.GaussianNoise(0.05)
                         + dinv.physics.GaussianNoise(0.02))):
        physics = dinv.physics.Denoising(model)
        out.append((f"noise {name}", physics(x)))
    physics = dinv.physics.Blur(filter=gauss(1.0), padding="circular",
                                noise_model=dinv.physics.GaussianNoise(0.05))
    out.append(("blur_noisy", physics(x)))
    y = physics(x)
    out.append(("blur_noisy A_dagger", physics.A_dagger(y)))
    lik = dinv.optim.data_fidelity.L2(sigma=0.05)
    out.append(("L2 fn", lik(x, y, physics)))
    out.append(("L2 grad", lik.grad(x, y, physics)))
    out.append(("L2 prox", lik.prox(x, y, physics, gamma=0.3)))
    pois = dinv.optim.data_fidelity.PoissonLikelihood(gain=0.5, bkg=0.1)
    out.append(("Poisson fn", pois(x + 0.1, y.abs() + 0.1, physics)))
    return out


def model_checks(name, model, x):
    model.zero_grad()
    xg = x.clone().requires_grad_()
    y = model(xg, 0.1)
    loss = y.pow(2).mean()
    loss.backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    wnorm = torch.stack([g.double().norm() for g in grads]).norm()
    return [(f"{name} out", y), (f"{name} x grad", xg.grad),
            (f"{name} weight grad norm", f"{wnorm.item()!r} over {len(grads)} tensors")]


@variant("denoisers")
def _():
    out = []
    dtype = torch.get_default_dtype()
    torch.manual_seed(10)
    dncnn = dinv.models.DnCNN(1, 1, depth=5, nf=16, pretrained=None).to(dtype)
    out += model_checks("dncnn", dncnn, images())
    torch.manual_seed(11)
    drunet = dinv.models.DRUNet(3, 3, nc=(8, 16, 32, 64), nb=1, pretrained=None).to(dtype)
    out += model_checks("drunet", drunet, images(channels=3))
    torch.manual_seed(12)
    unet = dinv.models.UNet(1, 1, scales=3, batch_norm=True).to(dtype)
    out += model_checks("unet_train", unet, images())
    unet.eval()
    out += model_checks("unet_eval", unet, images())
    torch.manual_seed(13)
    unet2 = dinv.models.UNet(3, 3, scales=2, batch_norm=False, circular_padding=True,
                             residual=False).to(dtype)
    out += model_checks("unet_circ", unet2, images(channels=3))
    x = images()
    out += [("tv_denoiser", dinv.models.TVDenoiser(n_it_max=50)(x, 0.1)),
            ("median", dinv.models.MedianFilter(3)(x, 0.1)),
            ("tgv_denoiser", dinv.models.TGVDenoiser(n_it_max=30)(x, 0.1))]
    return out


@variant("denoisers_more")
def _():
    """Attention denoisers (Restormer, SwinIR, SCUNet) and the gradient-step DRUNet, random
    weights, small configurations; and the random PSF generators."""
    dtype = torch.get_default_dtype()
    out = []
    torch.manual_seed(14)
    restormer = dinv.models.Restormer(1, 1, dim=8, num_blocks=(1, 1, 1, 1),
                                      num_refinement_blocks=1, heads=(1, 2, 2, 4),
                                      pretrained=None).to(dtype)
    out += model_checks("restormer", restormer, images())
    torch.manual_seed(15)
    swinir = dinv.models.SwinIR(img_size=S, in_chans=1, embed_dim=12, depths=(2,),
                                num_heads=(2,), window_size=4, drop_path_rate=0.0,
                                pretrained=None).to(dtype)
    out += model_checks("swinir", swinir, images())
    torch.manual_seed(16)
    scunet = dinv.models.SCUNet(in_nc=1, config=(1,) * 7, dim=64, input_resolution=S,
                                pretrained=None).to(dtype)
    out += model_checks("scunet", scunet, images())
    # the gradient-step DRUNet, x - grad g(x) by autograd.grad; with detach=False (training)
    # its graph is kept (create_graph=True), so the loss backpropagates through a double
    # backward. It casts its input to float32, so it runs in float32
    torch.manual_seed(17)
    gsdrunet = dinv.models.GSDRUNet(in_channels=1, out_channels=1, nb=1, nc=(8, 16, 32, 64))
    gsdrunet.detach = False
    out += model_checks("gsdrunet", gsdrunet, images().float())
    gen = dinv.physics.generator.MotionBlurGenerator(
        (9, 9), rng=torch.Generator().manual_seed(5), dtype=dtype, n_steps=200)
    out.append(("motion_psf", gen.step(batch_size=B, seed=5)["filter"]))
    gen = dinv.physics.generator.DiffractionBlurGenerator(
        (11, 11), pupil_size=(32, 32), rng=torch.Generator().manual_seed(6), dtype=dtype)
    params = gen.step(batch_size=B, seed=6)
    out += [("diffraction_psf", params["filter"]), ("diffraction_coeff", params["coeff"])]
    blur = dinv.physics.Blur(padding="circular")
    out.append(("blur_with_generated_psf", blur(images(), filter=params["filter"])))
    return out


def recon_problem():
    x = images()
    physics = dinv.physics.Blur(filter=gauss(1.2), padding="circular",
                                noise_model=dinv.physics.GaussianNoise(0.03))
    return x, physics, physics(x)


@variant("optim")
def _():
    x, physics, y = recon_problem()
    out = [("y", y)]
    fid = dinv.optim.data_fidelity.L2()
    algos = []
    for iteration, prior, params in (
            ("PGD", dinv.optim.TVPrior(n_it_max=20), {"stepsize": 1.0, "lambda": 0.05}),
            ("HQS", dinv.optim.TVPrior(n_it_max=20), {"stepsize": 1.0, "lambda": 0.05}),
            ("ADMM", dinv.optim.TVPrior(n_it_max=20), {"stepsize": 1.0, "lambda": 0.05,
                                                        "beta": 1.0}),
            ("DRS", dinv.optim.L1Prior(), {"stepsize": 1.0, "lambda": 0.01}),
            ("GD", dinv.optim.Tikhonov(), {"stepsize": 0.5, "lambda": 0.1})):
        model = dinv.optim.optim_builder(iteration, prior=prior, data_fidelity=fid,
                                         params_algo=params, max_iter=15, early_stop=False,
                                         verbose=False)
        algos.append((iteration, model))
    # Chambolle-Pock with K = A: the data term's conjugate prox on the dual variable
    algos.append(("PDCP", dinv.optim.PDCP(
        K=physics.A, K_adjoint=physics.A_adjoint, data_fidelity=fid,
        prior=dinv.optim.TVPrior(n_it_max=20), lambda_reg=0.05, stepsize=0.5,
        stepsize_dual=0.5, max_iter=15)))
    for iteration, model in algos:
        xhat, metrics = model(y, physics, x_gt=x, compute_metrics=True)
        out.append((f"{iteration} xhat", xhat))
        out.append((f"{iteration} psnr", f"{metrics['psnr'][0][-1]!r} "
                                         f"{metrics['psnr'][1][-1]!r}"))
        out.append((f"{iteration} residual", f"{metrics['residual'][0][-1]!r}"))
    # plug-and-play with a random-weight DnCNN, and PnP-HQS (DPIR-like schedule)
    torch.manual_seed(20)
    denoiser = dinv.models.DnCNN(1, 1, depth=4, nf=8, pretrained=None).to(x.dtype)
    pnp = dinv.optim.optim_builder("PGD", prior=dinv.optim.PnP(denoiser), data_fidelity=fid,
                                   params_algo={"stepsize": 1.0, "g_param": 0.05}, max_iter=8,
                                   early_stop=False)
    with torch.no_grad():
        out.append(("pnp_pgd xhat", pnp(y, physics)))
    pnp_hqs = dinv.optim.optim_builder(
        "HQS", prior=dinv.optim.PnP(dinv.models.TVDenoiser(n_it_max=20)), data_fidelity=fid,
        params_algo={"stepsize": [1.0, 0.5, 0.25, 0.1], "g_param": [0.2, 0.1, 0.05, 0.02]},
        max_iter=4, early_stop=False)
    out.append(("pnp_hqs xhat", pnp_hqs(y, physics)))
    # a hand-written plug-and-play loop (half-quadratic splitting with the median filter)
    z = physics.A_adjoint(y)
    median = dinv.models.MedianFilter(3)
    for _ in range(5):
        xk = fid.prox(z, y, physics, gamma=0.5)
        z = median(xk, 0.05)
    out.append(("hand_pnp", z))
    return out


class ImageSet(torch.utils.data.Dataset):
    """Eight synthetic ground-truth images; deepinv's Trainer wants ``x`` alone per item."""

    def __init__(self, n=8, channels=1):
        torch.manual_seed(30)
        self.x = images(batch=n, channels=channels)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i]


def unfolded_setup():
    """The blur problem, an unfolded 3-iteration PGD with a small DnCNN and trainable step
    size and denoiser strength, and its Adam optimizer."""
    _, physics, _ = recon_problem()
    torch.manual_seed(31)
    denoiser = dinv.models.DnCNN(1, 1, depth=3, nf=8, pretrained=None).to(
        torch.get_default_dtype())
    model = dinv.unfolded.unfolded_builder(
        iteration="PGD", data_fidelity=dinv.optim.data_fidelity.L2(),
        prior=dinv.optim.PnP(denoiser), params_algo={"stepsize": 1.0, "g_param": 0.05},
        trainable_params=["stepsize", "g_param"], max_iter=3)
    return physics, model, torch.optim.Adam(model.parameters(), lr=1e-3)


def scalars(params):
    return " ".join(repr(p.item()) for p in params) + " "


def param_checksum(model):
    return torch.cat([p.detach().double().flatten() for p in model.parameters()])


@variant("unfolded_trainer")
def _():
    physics, model, optimizer = unfolded_setup()
    loader = torch.utils.data.DataLoader(ImageSet(), batch_size=4, shuffle=False)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        trainer = dinv.Trainer(model, physics, optimizer, loader, epochs=2,
                               losses=dinv.loss.SupLoss(), online_measurements=True,
                               save_path=tmp, show_progress_bar=False, verbose=False,
                               plot_images=False, device="cpu", ckp_interval=10)
        torch.manual_seed(32)
        trained = trainer.train()
        out.append(("trainer params", param_checksum(trained)))
        for key, values in sorted(trainer.loss_history.items()):
            out.append((f"trainer loss {key}", " ".join(repr(float(v)) for v in values)))
        out.append(("trainer stepsize g_param", scalars(model.params_algo["stepsize"])
                     + scalars(model.params_algo["g_param"])))
        torch.manual_seed(33)
        test = trainer.test(loader)
        for key in sorted(k for k in test if k != "runtime"):
            out.append((f"test {key}", f"{float(test[key])!r}"))
    return out


@variant("unfolded_adam")
def _():
    physics, model, optimizer = unfolded_setup()
    data = ImageSet().x
    out = []
    for step in range(4):
        x = data[4 * (step % 2):4 * (step % 2) + 4]
        y = physics(x)
        optimizer.zero_grad()
        loss = dinv.loss.SupLoss()(x_net=model(y, physics), x=x).mean()
        loss.backward()
        optimizer.step()
        out.append((f"adam step {step} loss", f"{loss.item()!r}"))
    out.append(("adam params", param_checksum(model)))
    out.append(("adam stepsize g_param", scalars(model.params_algo["stepsize"])
                 + scalars(model.params_algo["g_param"])))
    # a deep-equilibrium version, forward only: deepinv 0.5.0's DEQ backward hook passes
    # FixedPoint an ``anderson_acceleration`` keyword it no longer takes (a TypeError in
    # PyTorch too)
    torch.manual_seed(34)
    deq = dinv.unfolded.DEQ_builder(
        iteration="PGD", data_fidelity=dinv.optim.data_fidelity.L2(),
        prior=dinv.optim.PnP(dinv.models.DnCNN(1, 1, depth=3, nf=8, pretrained=None).to(
            torch.get_default_dtype())),
        params_algo={"stepsize": 0.5, "g_param": 0.05}, trainable_params=["stepsize"],
        max_iter=6, max_iter_backward=6)
    x = data[:2]
    with torch.no_grad():
        out.append(("deq xhat", deq(physics(x), physics)))
    return out


@variant("losses")
def _():
    dtype = torch.get_default_dtype()
    x, physics, y = recon_problem()
    torch.manual_seed(40)
    model = dinv.models.ArtifactRemoval(dinv.models.UNet(
        1, 1, scales=2, batch_norm=False, channels_per_scale=[8, 16]).to(dtype))
    out = []
    losses = {"sup": dinv.loss.SupLoss(), "mc": dinv.loss.MCLoss(),
              "ei_shift": dinv.loss.EILoss(dinv.transform.Shift(shift_max=0.3)),
              "ei_rotate": dinv.loss.EILoss(dinv.transform.Rotate(multiples=90.0)),
              "ei_rotate_any": dinv.loss.EILoss(dinv.transform.Rotate(limits=30.0,
                                                                      multiples=5.0)),
              "sure_gauss": dinv.loss.SureGaussianLoss(sigma=0.03),
              "tv": dinv.loss.TVLoss(weight=0.1),
              "r2r": dinv.loss.R2RLoss(noise_model=dinv.physics.GaussianNoise(0.03)),
              "splitting": dinv.loss.SplittingLoss(split_ratio=0.7),
              "n2n": dinv.loss.Neighbor2Neighbor()}
    for name, loss_fn in losses.items():
        torch.manual_seed(41)
        model.zero_grad()
        net = loss_fn.adapt_model(model) if hasattr(loss_fn, "adapt_model") else model
        x_net = net(y, physics, update_parameters=True) if net is not model \
            else net(y, physics)
        value = loss_fn(x=x, x_net=x_net, y=y, physics=physics, model=net).mean()
        value.backward()
        grads = torch.cat([p.grad.flatten() for p in model.parameters()
                           if p.grad is not None])
        out.append((f"loss {name}", f"{value.item()!r}"))
        out.append((f"loss {name} grad", grads))
    transform = dinv.transform.Rotate(multiples=90.0) * dinv.transform.Shift()
    out.append(("transform rotate*shift", transform(x)))
    out.append(("transform reflect", dinv.transform.Reflect(dim=[-1])(x)))
    return out


@variant("metrics")
def _():
    x, physics, y = recon_problem()
    xa = physics.A_adjoint(y)
    out = []
    for name, metric in (("psnr", dinv.metric.PSNR()), ("ssim", dinv.metric.SSIM()),
                         ("mse", dinv.metric.MSE()), ("nmse", dinv.metric.NMSE()),
                         ("mae", dinv.metric.MAE()), ("l1l2", dinv.metric.L1L2())):
        out.append((f"metric {name}", metric(xa, x)))
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
    if not os.environ.get("DINV_FLOAT32"):
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
