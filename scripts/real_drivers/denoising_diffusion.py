"""Driver of lucidrains/denoising-diffusion-pytorch (docs/real-programs.md): the package
``denoising_diffusion_pytorch``, imported unchanged from the tree on PYTHONPATH, builds its
diffusion models at a tiny size (Unet dim 8, dim_mults (1, 2), 8x8 RGB images, 20 timesteps,
batch 4), trains each a few Adam steps on random images, then samples a small batch under
``no_grad``/``inference_mode`` (its own sampling loops: DDPM ancestral, DDIM, Karras' Heun
sampler, DPM++, the continuous-time samplers), printing every loss, the gradient norms and the
samples' checksums (sum, mean, largest magnitude) at full precision. ``trainer`` runs its
``Trainer`` (accelerate, ema-pytorch, a DataLoader over a folder of generated PNGs, gradient
accumulation and clipping, checkpoint save and load, a sampled image grid).

    python scripts/shared_rng_run.py drive_ddpm.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_ddpm.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``, which the wrapper also passes to Python's ``random``, which
self-conditioning draws from), so a subset prints what the full run prints for it.
``DDPM_FLOAT64=1`` runs the models in float64 (the package keeps its schedule buffers in
float32 on purpose; the trainer, whose images are float32, is skipped).
"""

import math
import os
import sys
import time

import torch

# run in place, this file's folder would shadow nothing, but keep the driver's folder off the
# path as vit_pytorch.py does
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

B, SIZE, T, STEPS = 4, 8, 20, 3
UNET = {"dim": 8, "dim_mults": (1, 2), "channels": 3, "attn_dim_head": 8, "attn_heads": 2}

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def images(batch=B, size=SIZE, channels=3):
    return torch.rand(batch, channels, size, size)


def unet(**kw):
    from denoising_diffusion_pytorch import Unet
    return Unet(**{**UNET, **kw})


def gaussian(model, **kw):
    from denoising_diffusion_pytorch import GaussianDiffusion
    return GaussianDiffusion(model, image_size=SIZE, **{"timesteps": T, **kw})


# each build returns (diffusion, make_batch, sample): make_batch() -> the images, or
# ((args...), {kwargs}) of the diffusion's forward; sample(diffusion) -> images, or None


def sample_gd(d):
    return d.sample(batch_size=2)


@variant("pred_noise")
def _():
    # the linear schedule reaches beta 1 (alphas_cumprod 0, a NaN loss weight) below 21 steps
    return gaussian(unet(), objective="pred_noise", beta_schedule="linear", timesteps=40), \
        images, sample_gd


@variant("pred_x0")
def _():
    return gaussian(unet(), objective="pred_x0", beta_schedule="cosine"), images, sample_gd


@variant("pred_v")
def _():
    return gaussian(unet(), objective="pred_v", beta_schedule="sigmoid",
                    min_snr_loss_weight=True), images, sample_gd


@variant("ddim")
def _():
    return gaussian(unet(), objective="pred_v", sampling_timesteps=5), images, sample_gd


@variant("ddim_eta")
def _():
    return gaussian(unet(), objective="pred_noise", sampling_timesteps=7,
                    ddim_sampling_eta=1.0), images, sample_gd


@variant("self_condition")
def _():
    return gaussian(unet(self_condition=True), objective="pred_noise",
                    sampling_timesteps=5), images, sample_gd


@variant("flash_attn")
def _():
    return gaussian(unet(flash_attn=True), objective="pred_v"), images, sample_gd


@variant("full_attn_dropout")
def _():
    # full attention at every stage, dropout in the resnet blocks
    return gaussian(unet(full_attn=(True, True), dropout=0.1), objective="pred_noise"), \
        images, sample_gd


@variant("offset_noise")
def _():
    return gaussian(unet(), objective="pred_noise", offset_noise_strength=0.1), images, \
        sample_gd


@variant("immiscible")
def _():
    # scipy's linear_sum_assignment over torch.cdist of images and noise
    return gaussian(unet(), objective="pred_noise", immiscible=True), images, sample_gd


@variant("learned_variance")
def _():
    from denoising_diffusion_pytorch import LearnedGaussianDiffusion
    model = unet(learned_variance=True)
    return LearnedGaussianDiffusion(model, image_size=SIZE, timesteps=T,
                                    objective="pred_noise"), images, sample_gd


@variant("weighted_objective")
def _():
    from denoising_diffusion_pytorch import WeightedObjectiveGaussianDiffusion
    model = unet(out_dim=3 * 2 + 2)
    # no sampling: its p_mean_variance lacks the x_self_cond argument that the sampling loop
    # passes (TypeError in PyTorch too)
    return WeightedObjectiveGaussianDiffusion(model, image_size=SIZE, timesteps=T), images, \
        None


@variant("elucidated")
def _():
    from denoising_diffusion_pytorch import ElucidatedDiffusion
    model = unet(learned_sinusoidal_cond=True)
    d = ElucidatedDiffusion(model, image_size=SIZE, num_sample_steps=6)
    return d, images, lambda d: d.sample(batch_size=2)


@variant("elucidated_dpmpp")
def _():
    from denoising_diffusion_pytorch import ElucidatedDiffusion
    model = unet(random_fourier_features=True, self_condition=True)
    d = ElucidatedDiffusion(model, image_size=SIZE, num_sample_steps=6)

    def sample(d):
        heun = d.sample(batch_size=2)
        dpmpp = d.sample_using_dpmpp(batch_size=2)
        return torch.cat((heun, dpmpp))
    return d, images, sample


@variant("continuous_time")
def _():
    from denoising_diffusion_pytorch import ContinuousTimeGaussianDiffusion
    model = unet(learned_sinusoidal_cond=True)
    d = ContinuousTimeGaussianDiffusion(model, image_size=SIZE, num_sample_steps=6,
                                        noise_schedule="learned",
                                        learned_schedule_net_hidden_dim=16,
                                        min_snr_loss_weight=True)
    # the times passed (forward's times=) in the default dtype: its own random_times casts
    # them to float32, which DDPM_FLOAT64 could not run (it still draws them, unused)
    return d, lambda: ((images(),), {"times": torch.rand(B)}), sample_gd


@variant("v_param_continuous")
def _():
    from denoising_diffusion_pytorch import VParamContinuousTimeGaussianDiffusion
    model = unet(random_fourier_features=True)
    d = VParamContinuousTimeGaussianDiffusion(model, image_size=SIZE, num_sample_steps=6)
    return d, images, sample_gd


@variant("unet1d")
def _():
    from denoising_diffusion_pytorch import GaussianDiffusion1D, Unet1D
    model = Unet1D(**UNET)
    d = GaussianDiffusion1D(model, seq_length=16, timesteps=T, objective="pred_v")
    return d, lambda: torch.rand(B, 3, 16), lambda d: d.sample(batch_size=2)


@variant("unet1d_ddim")
def _():
    # (not self-conditioned: GaussianDiffusion1D passes Unet1D a self_cond keyword its forward
    # does not take, a TypeError in PyTorch too)
    from denoising_diffusion_pytorch import GaussianDiffusion1D, Unet1D
    model = Unet1D(**UNET)
    d = GaussianDiffusion1D(model, seq_length=16, timesteps=T, sampling_timesteps=5,
                            objective="pred_noise")
    return d, lambda: torch.rand(B, 3, 16), lambda d: d.sample(batch_size=2)


@variant("karras_unet")
def _():
    # the magnitude-preserving Unet of EDM2 (its forward renormalises its weights in place)
    # under Karras' elucidated diffusion
    from denoising_diffusion_pytorch import ElucidatedDiffusion, KarrasUnet
    net = KarrasUnet(image_size=SIZE, dim=8, dim_max=16, channels=3, num_downsamples=1,
                     num_blocks_per_stage=1, attn_res=(4,), attn_dim_head=8, dropout=0.0)
    net.random_or_learned_sinusoidal_cond = True  # what ElucidatedDiffusion asserts
    d = ElucidatedDiffusion(net, image_size=SIZE, num_sample_steps=4)
    return d, images, lambda d: d.sample(batch_size=2)


def grad_norms(model):
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    total = math.sqrt(sum(float(g.double().pow(2).sum()) for g in grads))
    return total, float(grads[0].double().norm())


def checksum(t):
    t = t.double()
    return f"sum {t.sum().item()!r} mean {t.mean().item()!r} absmax {t.abs().max().item()!r}"


def run(name):
    torch.manual_seed(0)
    diffusion, make_batch, sample = VARIANTS[name]()
    params = [p for p in diffusion.parameters() if p.requires_grad]
    print(f"== {name} ({type(diffusion).__name__}, {sum(p.numel() for p in params)} "
          f"parameters)")
    opt = torch.optim.Adam(params, lr=1e-3)
    diffusion.train()
    for step in range(STEPS):
        batch = make_batch()
        args, kwargs = batch if isinstance(batch, tuple) else ((batch,), {})
        loss = diffusion(*args, **kwargs)
        opt.zero_grad()
        loss.backward()
        total, first = grad_norms(diffusion)
        opt.step()
        print(f"{name} step {step} loss {loss.item()!r} grad norm {total!r} "
              f"first grad norm {first!r}")
    if sample is None:
        return
    diffusion.eval()
    with torch.no_grad():
        out = sample(diffusion)
    print(f"{name} sample shape {list(out.shape)} {checksum(out)}")


# the Trainer: accelerate + ema-pytorch over a folder of PNGs

def write_images(folder, n=100, size=SIZE):
    """n random RGB PNGs (the Trainer asserts at least 100), the same in every run."""
    import numpy as np
    from PIL import Image
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(1234)
    for i in range(n):
        pixels = rng.integers(0, 256, (size, size, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(os.path.join(folder, f"img{i:03d}.png"))


def run_trainer():
    from denoising_diffusion_pytorch import Trainer
    write_images("ddpm_images")
    torch.manual_seed(0)
    diffusion = gaussian(unet(), objective="pred_v", sampling_timesteps=5)
    print(f"== trainer ({sum(p.numel() for p in diffusion.parameters())} parameters)")
    # batch 4 x 4 accumulated (it asserts an effective batch of 16), a checkpoint and a 2x2
    # sample grid every 2 steps; shuffling draws from the shared stream (RandomSampler), the
    # images are read in DataLoader workers (they draw nothing)
    trainer = Trainer(diffusion, "ddpm_images", train_batch_size=4, gradient_accumulate_every=4,
                      augment_horizontal_flip=False, train_lr=1e-3, train_num_steps=4,
                      ema_update_every=1, ema_decay=0.9, save_and_sample_every=2, num_samples=4,
                      results_folder="./results", amp=False, calculate_fid=False)
    trainer.train()
    print(f"trainer model {checksum(torch.cat([p.flatten() for p in diffusion.parameters()]))}")
    ema = trainer.ema.ema_model
    print(f"trainer ema {checksum(torch.cat([p.flatten() for p in ema.parameters()]))}")
    # reload the first checkpoint into a fresh trainer and sample from its EMA model
    torch.manual_seed(1)
    fresh = Trainer(gaussian(unet(), objective="pred_v", sampling_timesteps=5), "ddpm_images",
                    train_batch_size=4, gradient_accumulate_every=4,
                    augment_horizontal_flip=False, train_num_steps=4, save_and_sample_every=2,
                    num_samples=4, results_folder="./results", calculate_fid=False)
    fresh.load(1)
    print(f"trainer loaded step {fresh.step} opt steps "
          f"{sorted({int(s['step']) for s in fresh.opt.state_dict()['state'].values()})}")
    model = fresh.accelerator.unwrap_model(fresh.model)
    print(f"trainer loaded model {checksum(torch.cat([p.flatten() for p in model.parameters()]))}")
    fresh.ema.ema_model.eval()
    with torch.inference_mode():
        out = fresh.ema.ema_model.sample(batch_size=2)
    print(f"trainer loaded ema sample {checksum(out)}")


# what the package itself keeps in float32 (DDPM_FLOAT64 would mix dtypes, in PyTorch too)
FLOAT32_ONLY = {"trainer": "its images are float32 (ToTensor)"}


def main(argv):
    float64 = bool(os.environ.get("DDPM_FLOAT64"))  # to tell float32 rounding from a bug
    if float64:
        torch.set_default_dtype(torch.float64)
    known = [*VARIANTS, "trainer"]
    names = known if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in known]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(known)}")
    for name in names:
        start = time.time()
        if float64 and name in FLOAT32_ONLY:
            print(f"skipped {name} in float64: {FLOAT32_ONLY[name]}", file=sys.stderr)
            continue
        if name == "trainer":
            run_trainer()
        else:
            run(name)
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
