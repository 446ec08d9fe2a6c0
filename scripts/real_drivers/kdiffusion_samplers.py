"""Driver of k-diffusion (docs/real-programs.md): the installed package (k-diffusion
0.1.1.post1), unchanged, as someone training and sampling their own small diffusion model uses
it. Its noise schedules (``get_sigmas_karras/exponential/polyexponential/vp``), every sampler of
``k_diffusion.sampling`` (Euler with and without churn, Euler ancestral, Heun, DPM-2, DPM-2
ancestral, LMS, DPM-Solver fast and adaptive, DPM++ 2S ancestral, DPM++ SDE, 2M, 2M SDE with
both solver types and 3M SDE, the SDE ones on torchsde's Brownian trees) on a small
convolutional denoiser wrapped by ``layers.Denoiser`` and ``external.VDenoiser``; the
discrete-schedule DDPM wrappers; the repository's image models (``ImageDenoiserModelV1``, a
U-Net with AdaGN, self- and cross-attention, and ``ImageTransformerDenoiserModelV1``, built from
``config.load_config``/``make_model``/``make_denoiser_wrapper``/``make_sample_density``) trained
a few AdamW steps the way its ``train.py`` does (Karras augmentation pipeline and wrapper,
``Denoiser.loss`` with log-normal, v-diffusion and other sigma densities, ``InverseLR`` and
``ExponentialLR``, ``utils.ema_update`` with ``EMAWarmup``, gradient checkpointing), the loss
variants (soft-min-SNR and SNR weighting, DCT frequency scales, the simple loss, a learned
variance), ``log_likelihood`` (torchdiffeq's dopri5), the gradient noise scale, and a
checkpoint through ``torch.save``/``torch.load`` and safetensors into fresh models.

    python scripts/shared_rng_run.py drive_kdiffusion.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_kdiffusion.py [VARIANT ... | all]   # jtorch

Each variant reseeds torch, so a subset prints what the full run prints for it; a ``_f64``
variant runs the same code with ``torch.set_default_dtype(torch.float64)`` (models, schedules
and noise in float64) to tell float32 rounding from a bug. Tensors print as checksums (sum of
magnitudes, a weighted sum, largest magnitude) at full precision.

Stand-ins: the CPU torchvision wheel cannot load its C++ operators under real PyTorch (its
fake/autograd registrations fail at import), so empty modules stand in for those two
registration modules (k_diffusion.utils imports ``torchvision.transforms.functional``, used
only for PIL conversion); ``clip`` (clip-anytorch, imported by ``k_diffusion.evaluation`` for
its CLIP feature extractor, which downloads weights) needs ``pkg_resources``, gone from the
installed setuptools, so an empty ``clip`` module stands in: nothing here uses it.
``K_DIFFUSION_USE_COMPILE`` is set to 0 (the library's own switch; its default wraps three
small functions of the transformer in ``torch.compile``): the ``compiled`` variant, not run by
default, runs with it on. ``torch.randint_like`` (``log_likelihood``'s Rademacher probe) is
routed through ``torch.randint`` so that the comparison harness shares its draws.
"""

import copy
import io
import json
import os
import sys
import tempfile
import types

if "compiled" not in sys.argv[1:]:
    os.environ.setdefault("K_DIFFUSION_USE_COMPILE", "0")
os.environ.setdefault("K_DIFFUSION_USE_FLASH_2", "0")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn, optim  # noqa: E402
from torch.nn import functional as F  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

if "torchvision" not in sys.modules and torch is not sys.modules.get("jtorch"):
    for _name in ("torchvision._meta_registrations", "torchvision._autograd_registrations"):
        sys.modules.setdefault(_name, types.ModuleType(_name))
sys.modules.setdefault("clip", types.ModuleType("clip"))

import k_diffusion as K  # noqa: E402
import safetensors.torch  # noqa: E402
from PIL import Image  # noqa: E402

torch.randint_like = lambda input, high, **kw: torch.randint(  # noqa: E731
    0, high, tuple(input.shape), dtype=input.dtype)

S = 8  # image size
VARIANTS = {}
DEFAULT = []


def variant(name, f64=True, default=True):
    """Registers ``name`` and, with ``f64``, ``name_f64``: the same under float64 defaults."""
    def register(build):
        def run32():
            build(torch.float32)

        def run64():
            build(torch.float64)
        VARIANTS[name] = run32
        if default:
            DEFAULT.append(name)
        if f64:
            VARIANTS[name + "_f64"] = run64
            if default:
                DEFAULT.append(name + "_f64")
        return build
    return register


def checksum(x):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements) and
    the largest magnitude, in float64."""
    t = np.asarray(x.detach().cpu().double().numpy() if isinstance(x, torch.Tensor) else x,
                   dtype=np.float64).ravel()
    w = 1.0 + (np.arange(t.size) % 7) / 6
    return (f"abssum {float(np.abs(t).sum())!r} wsum {float((t * w).sum())!r} "
            f"absmax {float(np.abs(t).max()) if t.size else 0.0!r}")


def show(name, x):
    dtype = f" {str(x.dtype).replace('torch.', '')}" if isinstance(x, torch.Tensor) else ""
    print(f"{name}{dtype} {checksum(x)}")


def show_params(name, module):
    flat = torch.cat([p.detach().reshape(-1).double() for p in module.parameters()])
    print(f"{name} params {sum(p.numel() for p in module.parameters())} {checksum(flat)}")


def show_grads(name, module):
    flat = torch.cat([p.grad.reshape(-1).double() for p in module.parameters()
                      if p.grad is not None])
    print(f"{name} grads {checksum(flat)}")


class TinyNet(nn.Module):
    """A small convolutional inner model: two 3x3 convolutions and a GELU, conditioned on the
    noise level (or timestep) through k-diffusion's ``FourierFeatures`` embedding."""

    def __init__(self, channels=3, hidden=16, log_cond=True):
        super().__init__()
        self.log_cond = log_cond
        self.embed = K.layers.FourierFeatures(1, hidden)
        self.conv1 = nn.Conv2d(channels, hidden, 3, padding=1)
        self.conv2 = nn.Conv2d(hidden, channels, 3, padding=1)

    def forward(self, x, sigma):
        c = sigma.log() / 4 if self.log_cond else sigma
        e = self.embed(c[:, None])
        return self.conv2(F.gelu(self.conv1(x) + e[:, :, None, None]))


class Counting(nn.Module):
    """Counts calls of the wrapped denoiser (the number of function evaluations)."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.nfe = 0

    def forward(self, x, sigma, **kwargs):
        self.nfe += 1
        return self.model(x, sigma, **kwargs)


def images(n, seed=0, size=S):
    """``n`` small RGB PIL images: smooth colour gradients and a square, from a NumPy
    generator."""
    rng = np.random.default_rng(seed)
    out = []
    yy, xx = np.mgrid[0:size, 0:size] / (size - 1)
    for _ in range(n):
        a = rng.uniform(0, 1, (3, 3))
        img = a[:, 0, None, None] * xx + a[:, 1, None, None] * yy + 0.3 * a[:, 2, None, None]
        y0, x0 = rng.integers(0, size // 2, 2)
        img[:, y0:y0 + size // 3, x0:x0 + size // 3] = rng.uniform(0, 1, (3, 1, 1))
        arr = np.clip(img.transpose(1, 2, 0) * 255, 0, 255).astype(np.uint8)
        out.append(Image.fromarray(arr, "RGB"))
    return out


def image_batch(n, dtype, seed=0):
    """The images as a (n, 3, S, S) tensor in [-1, 1] (k-diffusion's ``from_pil_image``)."""
    return torch.stack([K.utils.from_pil_image(im) for im in images(n, seed)]).to(dtype)


SAMPLERS = [
    ("euler", K.sampling.sample_euler, {}),
    ("euler_churn", K.sampling.sample_euler, {"s_churn": 2.0, "s_tmin": 0.05, "s_tmax": 10.0}),
    ("euler_ancestral", K.sampling.sample_euler_ancestral, {}),
    ("heun", K.sampling.sample_heun, {}),
    ("heun_churn", K.sampling.sample_heun, {"s_churn": 1.0}),
    ("dpm_2", K.sampling.sample_dpm_2, {}),
    ("dpm_2_ancestral", K.sampling.sample_dpm_2_ancestral, {"eta": 0.7}),
    ("lms", K.sampling.sample_lms, {}),
    ("dpmpp_2s_ancestral", K.sampling.sample_dpmpp_2s_ancestral, {}),
    ("dpmpp_sde", K.sampling.sample_dpmpp_sde, {}),
    ("dpmpp_2m", K.sampling.sample_dpmpp_2m, {}),
    ("dpmpp_2m_sde", K.sampling.sample_dpmpp_2m_sde, {}),
    ("dpmpp_2m_sde_heun", K.sampling.sample_dpmpp_2m_sde, {"solver_type": "heun", "eta": 0.5}),
    ("dpmpp_3m_sde", K.sampling.sample_dpmpp_3m_sde, {}),
]


def run_samplers(tag, model, sigmas, shape, names=None, extra_args=None, seeded_tree=False):
    """Every sampler of SAMPLERS (or those in ``names``) from the same seeded noise, printing
    the sample and the number of model evaluations; ``seeded_tree`` gives the SDE samplers a
    ``BrownianTreeNoiseSampler`` with one seed per batch item."""
    counting = Counting(model)
    for name, sampler, kwargs in SAMPLERS:
        if names is not None and name not in names:
            continue
        torch.manual_seed(11)
        x = torch.randn(shape) * sigmas[0]
        kwargs = dict(kwargs)
        if seeded_tree and name in ("dpmpp_sde", "dpmpp_2m_sde", "dpmpp_3m_sde"):
            smin, smax = sigmas[sigmas > 0].min(), sigmas.max()
            kwargs["noise_sampler"] = K.sampling.BrownianTreeNoiseSampler(
                x, smin, smax, seed=list(range(100, 100 + shape[0])))
        counting.nfe = 0
        steps = []

        def record(d, steps=steps):
            steps.append(float(d["denoised"].abs().sum()))
        out = sampler(counting, x, sigmas, extra_args=extra_args, disable=True,
                      callback=record, **kwargs)
        show(f"{tag} {name} nfe {counting.nfe} sample", out)
        print(f"{tag} {name} denoised abssum per step {[round(s, 6) for s in steps]!r}")


@variant("schedules")
def run_schedules(dtype):
    """The noise schedules, the ancestral step split and append_zero/to_d."""
    torch.set_default_dtype(dtype)
    for n, smin, smax, rho in [(10, 0.002, 80.0, 7.0), (25, 0.03, 14.6, 3.0),
                               (4, 0.1, 10.0, 1.0)]:
        show(f"karras {n} {smin} {smax} rho {rho}",
             K.sampling.get_sigmas_karras(n, smin, smax, rho))
        show(f"exponential {n} {smin} {smax}", K.sampling.get_sigmas_exponential(n, smin, smax))
        show(f"polyexponential {n} {smin} {smax} rho {rho}",
             K.sampling.get_sigmas_polyexponential(n, smin, smax, rho))
    for n, beta_d, beta_min in [(10, 19.9, 0.1), (30, 10.0, 0.5)]:
        show(f"vp {n} {beta_d} {beta_min}", K.sampling.get_sigmas_vp(n, beta_d, beta_min))
    sigmas = K.sampling.get_sigmas_karras(6, 0.01, 20.0)
    for eta in (1.0, 0.5, 0.0):
        downs, ups = [], []
        for i in range(len(sigmas) - 1):
            down, up = K.sampling.get_ancestral_step(sigmas[i], sigmas[i + 1], eta)
            downs.append(float(down))
            ups.append(float(up))
        print(f"ancestral eta {eta} down {downs!r} up {ups!r}")
    coeffs = [K.sampling.linear_multistep_coeff(3, sigmas.numpy(), 4, j) for j in range(3)]
    print(f"lms coeffs {coeffs!r}")
    x = torch.linspace(-1, 1, 24).reshape(2, 3, 2, 2)
    show("to_d", K.sampling.to_d(x, torch.tensor([0.5, 2.0]), x * 0.3))
    show("append_dims", K.utils.append_dims(torch.tensor([1.0, 2.0]), 4).expand(2, 3, 1, 1))


@variant("samplers")
def run_sampler_suite(dtype):
    """Every sampler on a small conv denoiser (layers.Denoiser, sigma_data 0.5) over a Karras
    schedule of 8 steps, then DPM-Solver fast and adaptive, and the SDE samplers with
    per-item-seeded Brownian trees."""
    torch.set_default_dtype(dtype)
    torch.manual_seed(0)
    model = K.layers.Denoiser(TinyNet(), sigma_data=0.5).eval()
    show_params("tinynet", model)
    sigmas = K.sampling.get_sigmas_karras(8, 0.02, 20.0, device="cpu")
    run_samplers("karras", model, sigmas, (2, 3, S, S))
    run_samplers("karras seeded", model, sigmas, (2, 3, S, S),
                 names=("dpmpp_sde", "dpmpp_2m_sde", "dpmpp_3m_sde"), seeded_tree=True)
    sigmas = K.sampling.get_sigmas_exponential(6, 0.05, 10.0)
    run_samplers("exponential", model, sigmas, (2, 3, S, S),
                 names=("euler", "heun", "lms", "dpmpp_2m", "dpmpp_2m_sde"))
    counting = Counting(model)
    for nfe, eta in ((12, 0.0), (10, 0.0), (11, 0.5)):
        torch.manual_seed(12)
        x = torch.randn(2, 3, S, S) * 20.0
        counting.nfe = 0
        out = K.sampling.sample_dpm_fast(counting, x, 0.02, 20.0, nfe, eta=eta, disable=True)
        show(f"dpm_fast nfe {nfe} eta {eta} calls {counting.nfe} sample", out)
    for order, rtol, eta in ((3, 0.05, 0.0), (2, 0.1, 0.0), (3, 0.05, 0.5)):
        torch.manual_seed(13)
        x = torch.randn(2, 3, S, S) * 20.0
        out, info = K.sampling.sample_dpm_adaptive(model, x, 0.02, 20.0, order=order, rtol=rtol,
                                                   eta=eta, disable=True, return_info=True)
        show(f"dpm_adaptive order {order} rtol {rtol} eta {eta} {info} sample", out)


@variant("vdenoiser")
def run_vdenoiser(dtype):
    """external.VDenoiser (v-prediction, timesteps t = atan(sigma) * 2 / pi) around the small
    conv net: its loss under rand_v_diffusion sigmas, four Adam steps, and six samplers."""
    torch.set_default_dtype(dtype)
    torch.manual_seed(1)
    model = K.external.VDenoiser(TinyNet(log_cond=False))
    reals = image_batch(4, dtype, seed=1)
    opt = optim.Adam(model.parameters(), lr=2e-3)
    for step in range(4):
        sigma = K.utils.rand_v_diffusion([4], sigma_data=1.0, min_value=1e-2, max_value=80.0,
                                         dtype=dtype)
        noise = torch.randn_like(reals)
        losses = model.loss(reals, noise, sigma)
        losses.mean().backward()
        print(f"vdenoiser step {step} sigma {sigma.tolist()!r} losses {losses.tolist()!r}")
        opt.step()
        opt.zero_grad()
    show_params("vdenoiser trained", model)
    t = model.sigma_to_t(torch.tensor([0.01, 1.0, 80.0]))
    print(f"vdenoiser sigma_to_t {t.tolist()!r} back {model.t_to_sigma(t).tolist()!r}")
    model.eval()
    sigmas = K.sampling.get_sigmas_polyexponential(7, 0.02, 40.0, rho=1.5)
    run_samplers("vdenoiser", model, sigmas, (2, 3, S, S),
                 names=("euler_ancestral", "heun", "dpm_2", "dpmpp_2s_ancestral", "dpmpp_2m",
                        "dpmpp_3m_sde"))


class EpsNet(TinyNet):
    """An eps-predicting net of integer-or-fractional DDPM timesteps (0..T-1)."""

    def __init__(self, steps):
        super().__init__(log_cond=False)
        self.steps = steps

    def forward(self, x, t):
        return super().forward(x, t.to(x.dtype) / self.steps)


@variant("discrete")
def run_discrete(dtype):
    """The discrete-schedule wrappers of external.py: DiscreteEpsDDPMDenoiser (quantized and
    interpolated timesteps) and DiscreteVDDPMDenoiser, over a linear-beta DDPM schedule of 100
    steps: sigma<->t maps, get_sigmas, losses, and LMS/Euler/DPM++ 2M samples."""
    torch.set_default_dtype(dtype)
    torch.manual_seed(2)
    steps = 100
    betas = torch.linspace(1e-4, 0.02, steps, dtype=torch.float64)
    alphas_cumprod = torch.cumprod(1 - betas, 0).to(dtype)
    net = EpsNet(steps)
    reals = image_batch(3, dtype, seed=2)
    for quantize in (False, True):
        model = K.external.DiscreteEpsDDPMDenoiser(net, alphas_cumprod, quantize=quantize)
        sig = torch.tensor([0.02, 0.5, 1.3, 3.0, 9.0])
        t = model.sigma_to_t(sig)
        print(f"eps quantize {quantize} sigma_to_t {t.tolist()!r} "
              f"t_to_sigma {model.t_to_sigma(t).tolist()!r}")
        show(f"eps quantize {quantize} get_sigmas(6)", model.get_sigmas(6))
        print(f"eps quantize {quantize} sigma_min {float(model.sigma_min)!r} "
              f"sigma_max {float(model.sigma_max)!r}")
        torch.manual_seed(3)
        noise = torch.randn_like(reals)
        sigma = torch.tensor([0.1, 1.0, 5.0])
        print(f"eps quantize {quantize} loss {model.loss(reals, noise, sigma).tolist()!r}")
        sigmas = model.get_sigmas(6)
        run_samplers(f"eps quantize {quantize}", model, sigmas, (2, 3, S, S),
                     names=("euler", "lms", "dpmpp_2m"))
    vmodel = K.external.DiscreteVDDPMDenoiser(net, alphas_cumprod, quantize=False)
    torch.manual_seed(4)
    noise = torch.randn_like(reals)
    print(f"v loss {vmodel.loss(reals, noise, torch.tensor([0.2, 2.0, 7.0])).tolist()!r}")
    run_samplers("v", vmodel, vmodel.get_sigmas(5), (2, 3, S, S), names=("heun", "dpmpp_2m"))


def unet_config(**model):
    """A CPU-sized image_v1 config in k-diffusion's JSON format, with its defaults merged in."""
    base = {
        "type": "image_v1", "input_channels": 3, "input_size": [S, S], "patch_size": 1,
        "mapping_out": 16, "depths": [1, 1], "channels": [8, 16],
        "self_attn_depths": [False, True], "dropout_rate": 0.0, "augment_prob": 0.5,
        "sigma_data": 0.5, "sigma_min": 1e-2, "sigma_max": 80,
        "sigma_sample_density": {"type": "lognormal", "mean": -1.2, "std": 1.2},
    }
    base.update(model)
    return K.config.load_config({
        "model": base,
        "dataset": {"type": "imagefolder", "location": "unused"},
        "optimizer": {"type": "adamw", "lr": 2e-3, "betas": [0.95, 0.999], "eps": 1e-6,
                      "weight_decay": 1e-3},
        "lr_sched": {"type": "inverse", "inv_gamma": 20.0, "power": 1.0, "warmup": 0.5},
        "ema_sched": {"type": "inverse", "power": 0.6667, "max_value": 0.9999},
    })


class AugmentedImages(torch.utils.data.Dataset):
    """PIL images through KarrasAugmentationPipeline: (augmented, original, aug_cond)."""

    def __init__(self, n, a_prob, seed=0):
        self.images = images(n, seed)
        self.pipeline = K.augmentation.KarrasAugmentationPipeline(a_prob)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.pipeline(self.images[i])


def scheduler(cls, optimizer, **hparams):
    """``cls(optimizer, **hparams)``, k-diffusion's InverseLR or ExponentialLR. Their
    ``__init__`` ends in ``super().__init__(optimizer, last_epoch, verbose)``: PyTorch 2.13's
    LRScheduler no longer takes ``verbose`` (TypeError, printed; the same in both frameworks),
    so, as a user of this release on a recent PyTorch must, the driver then does what that
    ``__init__`` does without it: set the hyperparameters, then ``LRScheduler.__init__``. The
    schedules themselves (``get_lr``/``_get_closed_form_lr``) are the library's."""
    try:
        return cls(optimizer, **hparams)
    except TypeError as e:
        print(f"{cls.__name__}: TypeError: {e}")
    sched = cls.__new__(cls)
    for key, value in hparams.items():
        setattr(sched, key, value)
    optim.lr_scheduler.LRScheduler.__init__(sched, optimizer)
    return sched


def train(tag, config, dtype, steps, batch_size=4, n_images=8, extra=lambda reals: {},
          checkpointing=False):
    """train.py's loop, CPU-sized: AdamW over the model's param_groups, the config's LR and EMA
    schedules, ``Denoiser.loss`` at sigmas from the config's sample density, ``ema_update``
    after every step; returns the model, its EMA copy and the optimizer state holders."""
    mcfg = config["model"]
    inner = K.config.make_model(config).to(dtype)
    show_params(f"{tag} init", inner)
    model = K.config.make_denoiser_wrapper(config)(inner)
    model_ema = copy.deepcopy(model)
    ocfg = config["optimizer"]
    groups = inner.param_groups(ocfg["lr"])
    opt = optim.AdamW(groups, lr=ocfg["lr"], betas=tuple(ocfg["betas"]), eps=ocfg["eps"],
                      weight_decay=ocfg["weight_decay"])
    lcfg = config["lr_sched"]
    if lcfg["type"] == "inverse":
        sched = scheduler(K.utils.InverseLR, opt, inv_gamma=lcfg["inv_gamma"],
                          power=lcfg["power"], warmup=lcfg["warmup"], min_lr=0.0)
    else:
        sched = scheduler(K.utils.ExponentialLR, opt, num_steps=lcfg["num_steps"],
                          decay=lcfg["decay"], warmup=lcfg["warmup"], min_lr=0.0)
    ecfg = config["ema_sched"]
    ema_sched = K.utils.EMAWarmup(power=ecfg["power"], max_value=ecfg["max_value"])
    density = K.config.make_sample_density(mcfg)
    data = AugmentedImages(n_images, mcfg["augment_prob"])
    loader = torch.utils.data.DataLoader(data, batch_size=batch_size, shuffle=True,
                                         drop_last=True)
    step = 0
    while step < steps:
        for reals, _, aug_cond in loader:
            reals, aug_cond = reals.to(dtype), aug_cond.to(dtype)
            noise = torch.randn_like(reals)
            sigma = density([reals.shape[0]], dtype=dtype)
            kwargs = extra(reals)
            if mcfg.get("augment_wrapper"):
                kwargs["aug_cond"] = aug_cond
            with K.models.checkpointing(checkpointing):
                losses = model.loss(reals, noise, sigma, **kwargs)
            loss = losses.mean()
            loss.backward()
            gnorm = nn.utils.clip_grad_norm_(model.parameters(), 10.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            decay = ema_sched.get_value()
            K.utils.ema_update(model, model_ema, decay)
            ema_sched.step()
            print(f"{tag} step {step} sigma {sigma.tolist()!r} aug {checksum(aug_cond)}")
            print(f"{tag} step {step} loss {loss.item()!r} grad norm {gnorm.item()!r} "
                  f"lr {sched.get_last_lr()!r} ema decay {decay!r}")
            step += 1
            if step == steps:
                break
    show_params(f"{tag} trained", model)
    show_params(f"{tag} ema", model_ema)
    return model, model_ema, opt, sched, ema_sched


@variant("unet")
def run_unet(dtype):
    """ImageDenoiserModelV1 (two stages, self-attention at the second, KarrasAugmentWrapper),
    six training steps on augmented images, then the EMA model's samples with four samplers,
    and a checkpoint (train.py's layout) through torch.save/torch.load into a fresh model."""
    torch.set_default_dtype(dtype)
    torch.manual_seed(3)
    config = unet_config()
    model, model_ema, opt, sched, ema_sched = train("unet", config, dtype, steps=6)
    model_ema.eval()
    sigmas = K.sampling.get_sigmas_karras(6, 1e-2, 80.0, rho=7.0)
    run_samplers("unet ema", model_ema, sigmas, (2, 3, S, S),
                 names=("euler_ancestral", "heun", "dpmpp_2m", "dpmpp_2m_sde"))
    suffix = "" if dtype == torch.float32 else "_f64"
    path = f"kdiff_unet{suffix}.pt"
    torch.save({"model": model.inner_model.state_dict(),
                "model_ema": model_ema.inner_model.state_dict(),
                "opt": opt.state_dict(), "sched": sched.state_dict(),
                "ema_sched": ema_sched.state_dict(), "step": 6, "config": config}, path)
    ckpt = torch.load(path, weights_only=False)
    fresh = K.config.make_denoiser_wrapper(ckpt["config"])(
        K.config.make_model(ckpt["config"]).to(dtype))
    fresh.inner_model.load_state_dict(ckpt["model_ema"])
    fresh.eval()
    opt2 = optim.AdamW(fresh.inner_model.param_groups(2e-3), lr=2e-3)
    opt2.load_state_dict(ckpt["opt"])
    sched2 = scheduler(K.utils.InverseLR, opt2, inv_gamma=20.0, power=1.0, warmup=0.5,
                       min_lr=0.0)
    sched2.load_state_dict(ckpt["sched"])
    ema2 = K.utils.EMAWarmup()
    ema2.load_state_dict(ckpt["ema_sched"])
    print(f"unet loaded last_epoch {sched2.last_epoch} lr {sched2.get_last_lr()!r} "
          f"ema {ema2.get_value()!r} opt steps "
          f"{sorted({float(s['step']) for s in opt2.state_dict()['state'].values()})!r}")
    torch.manual_seed(5)
    x = torch.randn(2, 3, S, S) * 10.0
    sigma = torch.tensor([10.0, 0.5])
    a, b = model_ema(x, sigma), fresh(x, sigma)
    print(f"unet loaded ema equal {bool(torch.equal(a, b))}")
    show("unet ema denoised", a)


@variant("unet_features")
def run_unet_features(dtype):
    """The other paths of ImageDenoiserModelV1 and the loss variants: cross-attention with a
    padding mask, U-Net conditioning channels, patch size 2, skip_stages, a variance head
    (DenoiserWithVariance), the simple loss (SimpleLossDenoiser), soft-min-SNR and SNR weighting
    and the DCT frequency-scale loss; each loss, its gradients, and a denoiser output."""
    torch.set_default_dtype(dtype)
    reals = image_batch(2, dtype, seed=4)
    cases = [
        ("cross", {"cross_cond_dim": 6, "cross_attn_depths": [False, True],
                   "augment_wrapper": False, "self_attn_depths": [True, False]}),
        ("unet_cond", {"unet_cond_dim": 2, "mapping_cond_dim": 5, "augment_wrapper": False}),
        ("patch2", {"patch_size": 2, "depths": [1, 1, 1], "channels": [8, 8, 16],
                    "self_attn_depths": [False, False, True], "skip_stages": 1}),
        ("variance", {"has_variance": True}),
        ("simple", {"loss_config": "simple"}),
        ("soft_min_snr", {"loss_weighting": "soft-min-snr"}),
        ("snr_scales", {"loss_weighting": "snr", "loss_scales": 2}),
        ("dropout", {"dropout_rate": 0.2, "self_attn_depths": [False, False]}),
    ]
    for name, overrides in cases:
        torch.manual_seed(20)
        config = unet_config(**overrides)
        inner = K.config.make_model(config).to(dtype)
        for p in inner.parameters():  # zero-initialised output layers: make outputs nonzero
            if p.abs().sum() == 0:
                with torch.no_grad():
                    p.normal_(0.0, 0.05)
        model = K.config.make_denoiser_wrapper(config)(inner)
        kwargs = {}
        if "cross_cond_dim" in overrides:
            kwargs["cross_cond"] = torch.randn(2, 5, 6)
            kwargs["cross_cond_padding"] = torch.tensor([[0.0, 0.0, 0.0, 1.0, 1.0],
                                                         [0.0, 0.0, 0.0, 0.0, 0.0]])
        if "unet_cond_dim" in overrides:
            kwargs["unet_cond"] = torch.randn(2, 2, S, S)
            kwargs["mapping_cond"] = torch.randn(2, 5)
        if config["model"]["augment_wrapper"]:
            kwargs["aug_cond"] = torch.randn(2, 9) * 0.1
        noise = torch.randn_like(reals)
        sigma = torch.tensor([0.3, 4.0])
        losses = model.loss(reals, noise, sigma, **kwargs)
        losses.sum().backward()
        print(f"{name} losses {losses.tolist()!r}")
        show_grads(name, inner)
        with torch.no_grad():
            model.eval()
            show(f"{name} denoised", model(reals + noise, sigma, **kwargs))


@variant("transformer")
def run_transformer(dtype):
    """ImageTransformerDenoiserModelV1 (width 64, two blocks, 2x2 patches, three classes:
    AdaRMSNorm, QK-norm, axial RoPE, GEGLU), six training steps with v-diffusion ("cosine")
    sigmas, the ExponentialLR schedule and class conditioning, the last three under gradient
    checkpointing (torch.utils.checkpoint, reentrant), then class-conditional samples."""
    torch.set_default_dtype(dtype)
    torch.manual_seed(6)
    config = K.config.load_config({
        "model": {"type": "image_transformer_v1", "input_channels": 3, "input_size": [S, S],
                  "patch_size": [2, 2], "width": 64, "depth": 2, "dropout_rate": 0.1,
                  "sigma_data": 0.5, "sigma_min": 1e-2, "sigma_max": 80,
                  "sigma_sample_density": {"type": "cosine"}},
        "dataset": {"type": "imagefolder", "location": "unused", "num_classes": 3},
        "optimizer": {"type": "adamw", "lr": 1e-3},
        "lr_sched": {"type": "exponential", "num_steps": 4, "decay": 0.5, "warmup": 0.3},
    })
    print(f"transformer d_ff {config['model']['d_ff']}")
    classes = lambda reals: {"class_cond": torch.arange(reals.shape[0]) % 4}  # noqa: E731
    model, model_ema, *_ = train("transformer", config, dtype, steps=3, extra=classes)
    model.train()
    torch.manual_seed(7)
    model2, _, *_ = train("transformer ckpt", config, dtype, steps=3, extra=classes,
                          checkpointing=True)
    scales = [b.self_attn.qk_norm.scale.tolist() for b in model2.inner_model.blocks]
    print(f"transformer qk scales {scales!r}")
    model_ema.eval()
    sigmas = K.sampling.get_sigmas_karras(6, 1e-2, 80.0)
    run_samplers("transformer ema", model_ema, sigmas, (2, 3, S, S),
                 names=("euler_ancestral", "dpmpp_2m_sde", "dpmpp_3m_sde"),
                 extra_args={"class_cond": torch.tensor([1, 2])})


@variant("compiled", f64=False, default=False)
def run_compiled(dtype):
    """The transformer with K_DIFFUSION_USE_COMPILE at its default (1): rms_norm, geglu and
    apply_rotary_emb through torch.compile (not run by default)."""
    run_transformer(dtype)


@variant("likelihood")
def run_likelihood(dtype):
    """sampling.log_likelihood (the probability-flow ODE with a Hutchinson trace estimate,
    torchdiffeq's dopri5, autograd.grad inside), the DPM solver's ``log_likelihood``-free
    pieces, and the gradient noise scale over micro-batch gradients."""
    torch.set_default_dtype(dtype)
    torch.manual_seed(8)
    model = K.layers.Denoiser(TinyNet(hidden=8), sigma_data=0.5)
    x = image_batch(2, dtype, seed=5)[:, :, :4, :4]
    ll, info = K.sampling.log_likelihood(model, x, 0.05, 10.0, atol=1e-3, rtol=1e-3)
    print(f"log_likelihood {ll.tolist()!r} fevals {info['fevals']}")
    gns = K.gns.GradientNoiseScale(beta=0.9)
    opt = optim.SGD(model.parameters(), lr=0.01)
    reals = image_batch(8, dtype, seed=6)
    for step in range(3):
        small = []
        total = None
        for micro in reals.split(2):
            opt.zero_grad()
            sigma = K.utils.rand_log_normal([2], -1.0, 1.0, dtype=dtype)
            model.loss(micro, torch.randn_like(micro), sigma).mean().backward()
            g = torch.cat([p.grad.reshape(-1) for p in model.parameters()])
            small.append(g.pow(2).sum().item())
            total = g if total is None else total + g
        large = (total / 4).pow(2).sum().item()
        value = gns.update(sum(small) / 4, large, 2, 8)
        print(f"gns step {step} small {small!r} large {large!r} gns {value!r} "
              f"stats {gns.get_stats()!r}")
        opt.step()


@variant("densities")
def run_densities(dtype):
    """utils' sigma samplers (log-normal, log-logistic, log-uniform, v-diffusion, split
    log-normal, interpolated cosine), plain and stratified, and the layers' DCT weights,
    Fourier features and down/upsampling."""
    torch.set_default_dtype(dtype)
    torch.manual_seed(9)
    shape = [16]
    show("rand_log_normal", K.utils.rand_log_normal(shape, -1.2, 1.2, dtype=dtype))
    show("rand_log_logistic", K.utils.rand_log_logistic(shape, 0.0, 0.5, 0.01, 80.0, dtype=dtype))
    show("rand_log_uniform", K.utils.rand_log_uniform(shape, 0.01, 80.0, dtype=dtype))
    show("rand_v_diffusion", K.utils.rand_v_diffusion(shape, 0.5, 1e-3, 1e3, dtype=dtype))
    show("rand_split_log_normal", K.utils.rand_split_log_normal(shape, -1.0, 1.0, 2.0, dtype=dtype))
    show("rand_cosine_interpolated",
         K.utils.rand_cosine_interpolated(shape, 32, 8, 32, 0.5, dtype=dtype))
    with K.utils.enable_stratified(group=1, groups=4):
        show("stratified rand_log_normal", K.utils.rand_log_normal(shape, -1.2, 1.2, dtype=dtype))
        show("stratified_uniform", K.utils.stratified_with_settings([2, 8], dtype=dtype))
    show("freq_weight_nd", K.layers.freq_weight_nd((4, 6), scales=2, dtype=dtype))
    show("dct", K.layers.dct(torch.randn(2, 3, 4, 6)))
    ff = K.layers.FourierFeatures(2, 8, std=2.0)
    show("fourier features", ff(torch.randn(3, 2)))
    x = torch.randn(1, 2, 8, 8)
    for kernel in ("linear", "cubic", "lanczos3"):
        down = K.layers.Downsample2d(kernel)(x)
        show(f"down {kernel}", down)
        show(f"up {kernel}", K.layers.Upsample2d(kernel)(down))


@variant("augment", f64=False)
def run_augment(dtype):
    """KarrasAugmentationPipeline on PIL images (its torch-built affine matrix, scikit-image's
    warp) at augmentation probabilities 1 and 0.3, and disable_all."""
    torch.manual_seed(10)
    for a_prob in (1.0, 0.3):
        pipe = K.augmentation.KarrasAugmentationPipeline(a_prob)
        for i, im in enumerate(images(3, seed=7)):
            image, orig, cond = pipe(im)
            show(f"augment p {a_prob} image {i} {image.dtype}", image)
            print(f"augment p {a_prob} image {i} cond {cond.tolist()!r}")
    image, orig, cond = K.augmentation.KarrasAugmentationPipeline(disable_all=True)(images(1)[0])
    print(f"augment disabled equal {bool(torch.equal(image, orig))} cond {cond.tolist()!r}")
    print(f"rotate2d {K.augmentation.rotate2d(torch.tensor(0.3)).tolist()!r}")
    pil = K.utils.to_pil_image(image_batch(1, torch.float32, seed=8)[0])
    print(f"to_pil_image {pil.size} {np.asarray(pil).astype(np.int64).sum()}")


@variant("safetensors")
def run_safetensors(dtype):
    """A model saved as k-diffusion distributes them: safetensors with its config in the
    metadata, read back with ``utils.get_safetensors_metadata``/``config.load_config`` and
    ``safetensors.torch.load_file`` into a fresh model; plus a state_dict round trip through
    an in-memory torch.save."""
    torch.set_default_dtype(dtype)
    torch.manual_seed(14)
    config = unet_config(depths=[1, 2], self_attn_depths=[True, True])
    inner = K.config.make_model(config).to(dtype)
    for p in inner.parameters():
        with torch.no_grad():
            p.add_(torch.randn_like(p) * 0.01)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.safetensors")
        safetensors.torch.save_file(inner.state_dict(), path,
                                    metadata={"config": json.dumps(config)})
        meta = K.utils.get_safetensors_metadata(path)
        config2 = K.config.load_config(path)
        print(f"safetensors metadata keys {sorted(meta)} same config {config2 == config}")
        fresh = K.config.make_model(config2).to(dtype)
        missing = fresh.load_state_dict(safetensors.torch.load_file(path))
        print(f"safetensors load {missing}")
    buf = io.BytesIO()
    torch.save(inner.state_dict(), buf)
    buf.seek(0)
    fresh2 = K.config.make_model(config).to(dtype)
    fresh2.load_state_dict(torch.load(buf))
    model = K.layers.Denoiser(inner, sigma_data=0.5).eval()
    x = torch.randn(2, 3, S, S)
    sigma = torch.tensor([0.7, 7.0])
    aug = torch.zeros(2, 9)
    out = model(x, sigma, aug_cond=aug)
    for name, m in (("safetensors", fresh), ("torch.save", fresh2)):
        other = K.layers.Denoiser(m, sigma_data=0.5).eval()(x, sigma, aug_cond=aug)
        print(f"{name} round trip equal {bool(torch.equal(out, other))}")
    show("safetensors denoised", out)
    print(f"n_params {K.utils.n_params(inner)}")


def main(argv):
    names = DEFAULT if not argv else list(VARIANTS) if argv == ["all"] else argv
    for name in names:
        print(f"== {name}")
        default = torch.get_default_dtype()
        try:
            VARIANTS[name]()
        finally:
            torch.set_default_dtype(default)


if __name__ == "__main__":
    main(sys.argv[1:])
