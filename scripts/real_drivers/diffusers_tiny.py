"""Driver of Hugging Face diffusers (docs/real-programs.md): the installed ``diffusers`` package,
unchanged, builds its models from configs at a tiny size (no downloads) and runs them:

- ``unet2d``: a ``UNet2DModel`` (block_out_channels (8, 16), an attention block, 8x8 RGB
  images) trained 3 AdamW steps on ``DDPMScheduler.add_noise`` noised images with an MSE loss,
  clipped gradients, ``get_cosine_schedule_with_warmup``, diffusers' ``EMAModel`` (warmup
  decay) and ``compute_snr``, then the EMA weights copied in and restored, the model's state
  dict saved (``diffusers_out/unet2d.pt``);
- ``ddpm_pipeline``/``ddim_pipeline``: ``DDPMPipeline`` and ``DDIMPipeline`` (eta 0 and 1),
  5 steps, ``generator=torch.Generator().manual_seed(0)``, ``output_type`` "np", "pt" and
  "pil" (saved as ``diffusers_out/ddpm.png``);
- ``schedulers``: a hand-written sampling loop (``scale_model_input``, ``step``) with 17
  schedulers at 5 steps (DDIM, DDPM, Euler, Euler ancestral, DPM-Solver++ multistep and
  singlestep, PNDM, Heun, UniPC, DEIS, KDPM2, LMS, EDM Euler, flow-matching Euler);
- ``unet2d_condition``: a ``UNet2DConditionModel`` with cross-attention on random encoder
  states, trained 3 steps, then run again with the classic ``AttnProcessor`` (baddbmm and
  softmax instead of ``scaled_dot_product_attention``);
- ``vae``: an ``AutoencoderKL`` (encode, the latent distribution's sample, mode and KL,
  decode) trained 3 steps on reconstruction plus KL, then sliced encoding;
- ``unet2d_condition_sdxl``: SDXL's added conditioning (text embeddings, time ids) under
  gradient checkpointing, then fused QKV projections; ``controlnet``:
  ``ControlNetModel.from_unet`` feeding its residuals to the UNet, one backward;
- ``vq_and_tiny_vae``: ``VQModel`` (commitment loss, straight-through gradients) and
  ``AutoencoderTiny``; ``transformers_2d``: SD3's, Flux's and PixArt's transformers;
- ``sd_pipeline``: ``StableDiffusionPipeline`` from the tiny UNet, VAE and a DDIM scheduler,
  given prompt embeddings (no text encoder, tokenizer or safety checker), classifier-free
  guidance 3.0, then ``StableDiffusionImg2ImgPipeline`` from a PIL image;
- ``dit``: a ``DiTTransformer2DModel`` (adaLN-zero, class labels) trained 3 steps;
- ``compiled``: the UNet under ``torch.compile`` (backend "aot_eager"), trained and sampled;
- ``save_load``: ``save_pretrained`` (safetensors) of a UNet, the VAE, a scheduler and a whole
  ``DDPMPipeline``, ``from_pretrained`` from that directory, outputs compared.

Each variant prints its losses, gradient norms and checksums (sum, mean, largest magnitude) at
full precision.

    python scripts/shared_rng_run.py drive_diffusers.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_diffusers.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``), so a subset prints what the full run prints for it. The wrapper's
``torch.randn``, given a ``generator=`` (diffusers' ``randn_tensor`` passes it on), draws from
a NumPy stream of that generator's seed, so the pipelines' noise is the same in both frameworks.
``DIFFUSERS_FLOAT64=1`` builds the models in float64 (the schedulers keep their own float32
tables, as in PyTorch), to tell float32 rounding from a bug.
"""

import math
import os
import shutil
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

B, SIZE, STEPS, T = 4, 8, 3, 50
OUT = "diffusers_out"  # the trained UNet2DModel's state dict (torch.save), a sampled PNG

UNET2D = {"sample_size": SIZE, "in_channels": 3, "out_channels": 3, "layers_per_block": 1,
          "block_out_channels": (8, 16), "norm_num_groups": 4, "attention_head_dim": 8,
          "down_block_types": ("DownBlock2D", "AttnDownBlock2D"),
          "up_block_types": ("AttnUpBlock2D", "UpBlock2D")}

UNET_COND = {"sample_size": SIZE, "in_channels": 4, "out_channels": 4, "layers_per_block": 1,
             "block_out_channels": (8, 16), "norm_num_groups": 4, "cross_attention_dim": 16,
             "attention_head_dim": 4,
             "down_block_types": ("CrossAttnDownBlock2D", "DownBlock2D"),
             "up_block_types": ("UpBlock2D", "CrossAttnUpBlock2D")}

VAE = {"in_channels": 3, "out_channels": 3, "latent_channels": 4, "block_out_channels": (8, 16),
       "layers_per_block": 1, "norm_num_groups": 4, "sample_size": 16,
       "down_block_types": ("DownEncoderBlock2D", "DownEncoderBlock2D"),
       "up_block_types": ("UpDecoderBlock2D", "UpDecoderBlock2D")}

VARIANTS = {}


def variant(build):
    VARIANTS[build.__name__] = build
    return build


def checksum(t):
    if not isinstance(t, torch.Tensor):
        t = torch.from_numpy(t)
    t = t.double()
    return (f"shape {list(t.shape)} sum {t.sum().item()!r} mean {t.mean().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def params_checksum(model):
    return checksum(torch.cat([p.detach().flatten() for p in model.parameters()]))


def grad_norms(model):
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    total = math.sqrt(sum(float(g.double().pow(2).sum()) for g in grads))
    return total, float(grads[0].double().norm())


def generator(seed=0):
    return torch.Generator().manual_seed(seed)


def images(batch=B, size=SIZE, channels=3):
    return torch.rand(batch, channels, size, size) * 2 - 1


def _unet2d(**kw):
    from diffusers import UNet2DModel
    return UNet2DModel(**{**UNET2D, **kw})


def ddpm_scheduler(**kw):
    from diffusers import DDPMScheduler
    return DDPMScheduler(**{"num_train_timesteps": T, **kw})


@variant
def unet2d():
    from diffusers.optimization import get_cosine_schedule_with_warmup, get_scheduler
    from diffusers.training_utils import EMAModel, compute_snr
    model = _unet2d()
    sched = ddpm_scheduler(beta_schedule="squaredcos_cap_v2")
    print(f"unet2d parameters {sum(p.numel() for p in model.parameters())} "
          f"{params_checksum(model)}")
    ema = EMAModel(model.parameters(), decay=0.9, use_ema_warmup=True, inv_gamma=1.0,
                   power=0.75, model_cls=type(model), model_config=model.config)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)
    lr_sched = get_cosine_schedule_with_warmup(opt, num_warmup_steps=1,
                                               num_training_steps=STEPS)
    model.train()
    for step in range(STEPS):
        clean = images()
        noise = torch.randn(clean.shape)
        timesteps = torch.randint(0, T, (B,)).long()
        noisy = sched.add_noise(clean, noise, timesteps)
        pred = model(noisy, timesteps).sample
        snr = compute_snr(sched, timesteps)
        weights = torch.clamp(snr, max=5.0) / snr
        loss = (F.mse_loss(pred, noise, reduction="none").mean(dim=(1, 2, 3)) * weights).mean()
        opt.zero_grad()
        loss.backward()
        total, first = grad_norms(model)
        clipped = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        lr = lr_sched.get_last_lr()[0]
        lr_sched.step()
        ema.step(model.parameters())
        print(f"unet2d step {step} timesteps {timesteps.tolist()} loss {loss.item()!r} "
              f"grad norm {total!r} first grad norm {first!r} clipped {clipped.item()!r} "
              f"lr {lr!r} ema decay {ema.cur_decay_value!r}")
    print(f"unet2d snr {checksum(snr)}")
    print(f"unet2d model {params_checksum(model)}")
    ema.store(model.parameters())
    ema.copy_to(model.parameters())
    print(f"unet2d ema weights {params_checksum(model)}")
    ema.restore(model.parameters())
    print(f"unet2d restored {params_checksum(model)}")
    os.makedirs(OUT, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(OUT, "unet2d.pt"))
    state = ema.state_dict()
    print(f"unet2d ema state decay {state['decay']} optimization_step "
          f"{state['optimization_step']} shadow {len(state['shadow_params'])}")
    # another schedule through the generic factory
    opt2 = torch.optim.AdamW(model.parameters(), lr=1e-3)
    poly = get_scheduler("polynomial", opt2, num_warmup_steps=2, num_training_steps=6)
    lrs = []
    for _ in range(6):
        lrs.append(poly.get_last_lr()[0])
        opt2.step()
        poly.step()
    print(f"unet2d polynomial lrs {lrs!r}")


@variant
def ddpm_pipeline():
    from diffusers import DDPMPipeline
    pipe = DDPMPipeline(unet=_unet2d(), scheduler=ddpm_scheduler())
    pipe.set_progress_bar_config(disable=True)
    out = pipe(batch_size=2, generator=generator(0), num_inference_steps=5,
               output_type="np").images
    print(f"ddpm_pipeline np {checksum(out)}")
    out = pipe(batch_size=2, generator=generator(1), num_inference_steps=5,
               output_type="pt").images
    print(f"ddpm_pipeline pt {checksum(out)}")
    pil = pipe(batch_size=1, generator=generator(2), num_inference_steps=5).images
    os.makedirs(OUT, exist_ok=True)
    pil[0].resize((32, 32), 0).save(os.path.join(OUT, "ddpm.png"))  # (0: nearest)
    print(f"ddpm_pipeline pil {pil[0].size} {pil[0].mode}")


@variant
def ddim_pipeline():
    from diffusers import DDIMPipeline, DDIMScheduler
    pipe = DDIMPipeline(unet=_unet2d(), scheduler=DDIMScheduler(num_train_timesteps=T))
    pipe.set_progress_bar_config(disable=True)
    for eta in (0.0, 1.0):
        out = pipe(batch_size=2, generator=generator(0), eta=eta, num_inference_steps=5,
                   output_type="np").images
        print(f"ddim_pipeline eta {eta} {checksum(out)}")


def _schedulers():
    import diffusers as d
    return [
        ("ddim", d.DDIMScheduler, {}),
        ("ddpm", d.DDPMScheduler, {"variance_type": "fixed_small_log"}),
        ("euler", d.EulerDiscreteScheduler, {}),
        ("euler_karras", d.EulerDiscreteScheduler, {"use_karras_sigmas": True}),
        ("euler_ancestral", d.EulerAncestralDiscreteScheduler, {}),
        ("dpmpp_2m", d.DPMSolverMultistepScheduler, {}),
        ("dpmpp_2m_sde", d.DPMSolverMultistepScheduler, {"algorithm_type": "sde-dpmsolver++"}),
        ("dpm_singlestep", d.DPMSolverSinglestepScheduler, {}),
        ("pndm", d.PNDMScheduler, {"skip_prk_steps": True}),
        ("pndm_prk", d.PNDMScheduler, {}),
        ("heun", d.HeunDiscreteScheduler, {}),
        ("unipc", d.UniPCMultistepScheduler, {}),
        ("deis", d.DEISMultistepScheduler, {}),
        ("kdpm2", d.KDPM2DiscreteScheduler, {}),
        ("lms", d.LMSDiscreteScheduler, {}),
        ("edm_euler", d.EDMEulerScheduler, {}),
        ("flow_match_euler", d.FlowMatchEulerDiscreteScheduler, {}),
    ]


@variant
def schedulers():
    model = _unet2d().eval()
    for name, cls, kw in _schedulers():
        torch.manual_seed(1)
        sched = cls(**kw) if name == "edm_euler" else cls(num_train_timesteps=T, **kw)
        sched.set_timesteps(5)
        # (flow matching starts from unscaled noise: it has no init_noise_sigma)
        latents = torch.randn(2, 3, SIZE, SIZE) * getattr(sched, "init_noise_sigma", 1.0)
        g = generator(0)
        with torch.no_grad():
            for t in sched.timesteps:
                inp = sched.scale_model_input(latents, t) if hasattr(
                    sched, "scale_model_input") else latents
                eps = model(inp, t).sample
                step_kw = {"generator": g} if name in (
                    "ddpm", "euler_ancestral", "dpmpp_2m_sde", "edm_euler") else {}
                latents = sched.step(eps, t, latents, **step_kw).prev_sample
        steps = [round(float(t), 4) for t in sched.timesteps]
        print(f"schedulers {name} timesteps {steps} {checksum(latents)}")


@variant
def unet2d_condition():
    from diffusers import UNet2DConditionModel
    from diffusers.models.attention_processor import AttnProcessor
    model = UNet2DConditionModel(**UNET_COND)
    sched = ddpm_scheduler(prediction_type="v_prediction")
    print(f"unet2d_condition parameters {sum(p.numel() for p in model.parameters())} "
          f"{params_checksum(model)}")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model.train()
    for step in range(STEPS):
        latents = torch.randn(B, 4, SIZE, SIZE)
        noise = torch.randn(latents.shape)
        timesteps = torch.randint(0, T, (B,))
        context = torch.randn(B, 5, 16)
        noisy = sched.add_noise(latents, noise, timesteps)
        target = sched.get_velocity(latents, noise, timesteps)
        pred = model(noisy, timesteps, encoder_hidden_states=context).sample
        loss = F.mse_loss(pred, target)
        opt.zero_grad()
        loss.backward()
        total, first = grad_norms(model)
        opt.step()
        print(f"unet2d_condition step {step} loss {loss.item()!r} grad norm {total!r} "
              f"first grad norm {first!r}")
    model.eval()
    x = torch.randn(2, 4, SIZE, SIZE)
    context = torch.randn(2, 5, 16)
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])
    with torch.no_grad():
        sdpa = model(x, 7, encoder_hidden_states=context).sample
        masked = model(x, torch.tensor([3, 40]), encoder_hidden_states=context,
                       encoder_attention_mask=mask).sample
        model.set_attn_processor(AttnProcessor())
        classic = model(x, 7, encoder_hidden_states=context).sample
        classic_masked = model(x, torch.tensor([3, 40]), encoder_hidden_states=context,
                               encoder_attention_mask=mask).sample
    print(f"unet2d_condition sdpa {checksum(sdpa)}")
    print(f"unet2d_condition masked {checksum(masked)}")
    print(f"unet2d_condition classic {checksum(classic)}")
    print(f"unet2d_condition classic masked {checksum(classic_masked)}")
    print(f"unet2d_condition processors agree "
          f"{(sdpa - classic).abs().max().item() < 1e-4} "
          f"{(masked - classic_masked).abs().max().item() < 1e-4}")


@variant
def unet2d_condition_sdxl():
    # SDXL's added conditioning (pooled text embeddings and time ids), gradient checkpointing
    # (torch.utils.checkpoint), then the fused QKV projections
    from diffusers import UNet2DConditionModel
    model = UNet2DConditionModel(**UNET_COND, addition_embed_type="text_time",
                                 addition_time_embed_dim=4,
                                 projection_class_embeddings_input_dim=16 + 6 * 4)
    model.enable_gradient_checkpointing()
    model.train()
    x, context, t = torch.randn(2, 4, SIZE, SIZE), torch.randn(2, 5, 16), torch.tensor([3, 7])
    added = {"text_embeds": torch.randn(2, 16), "time_ids": torch.rand(2, 6) * 8}
    out = model(x, t, encoder_hidden_states=context, added_cond_kwargs=added).sample
    out.pow(2).mean().backward()
    total, first = grad_norms(model)
    print(f"unet2d_condition_sdxl checkpointed {checksum(out)} grad norm {total!r} "
          f"first grad norm {first!r}")
    model.eval()
    with torch.no_grad():
        plain = model(x, t, encoder_hidden_states=context, added_cond_kwargs=added).sample
        model.fuse_qkv_projections()
        fused = model(x, t, encoder_hidden_states=context, added_cond_kwargs=added).sample
    print(f"unet2d_condition_sdxl eval {checksum(plain)}")
    print(f"unet2d_condition_sdxl fused qkv {checksum(fused)}")


@variant
def controlnet():
    from diffusers import ControlNetModel, UNet2DConditionModel
    unet = UNet2DConditionModel(**UNET_COND)
    net = ControlNetModel.from_unet(unet, conditioning_embedding_out_channels=(4, 8))
    x, context = torch.randn(2, 4, SIZE, SIZE), torch.randn(2, 5, 16)
    cond = torch.rand(2, 3, 2 * SIZE, 2 * SIZE)
    down, mid = net(x, 5, encoder_hidden_states=context, controlnet_cond=cond,
                    conditioning_scale=0.7, return_dict=False)
    out = unet(x, 5, encoder_hidden_states=context, down_block_additional_residuals=down,
               mid_block_additional_residual=mid).sample
    out.pow(2).mean().backward()
    total, first = grad_norms(net)
    print(f"controlnet residuals {len(down)} mid {checksum(mid)}")
    print(f"controlnet unet {checksum(out)} controlnet grad norm {total!r} "
          f"first grad norm {first!r}")


@variant
def vae():
    from diffusers import AutoencoderKL
    model = AutoencoderKL(**VAE)
    print(f"vae parameters {sum(p.numel() for p in model.parameters())} "
          f"{params_checksum(model)}")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model.train()
    for step in range(STEPS):
        x = images(size=16)
        posterior = model.encode(x).latent_dist
        z = posterior.sample(generator=generator(step))
        rec = model.decode(z).sample
        kl = posterior.kl().mean()
        nll = posterior.nll(z).mean()
        loss = F.mse_loss(rec, x) + 1e-3 * kl
        opt.zero_grad()
        loss.backward()
        total, first = grad_norms(model)
        opt.step()
        print(f"vae step {step} loss {loss.item()!r} kl {kl.item()!r} nll {nll.item()!r} "
              f"grad norm {total!r} first grad norm {first!r}")
    model.eval()
    x = images(size=16)
    with torch.no_grad():
        posterior = model.encode(x).latent_dist
        mode = posterior.mode()
        out = model(x, sample_posterior=True, generator=generator(5)).sample
        dec = model.decode(mode * model.config.scaling_factor / model.config.scaling_factor)
        model.enable_slicing()
        sliced = model.encode(x).latent_dist.mode()
    print(f"vae mode {checksum(mode)}")
    print(f"vae std {checksum(posterior.std)}")
    print(f"vae forward {checksum(out)}")
    print(f"vae decode {checksum(dec.sample)}")
    print(f"vae sliced equal {torch.allclose(sliced, mode, atol=1e-6)}")


@variant
def vq_and_tiny_vae():
    # VQModel (nearest codebook entries, commitment loss, straight-through gradients) and
    # AutoencoderTiny (TAESD)
    from diffusers import AutoencoderTiny, VQModel
    vq = VQModel(**{**VAE, "num_vq_embeddings": 16, "vq_embed_dim": 4})
    x = images(size=16)
    out = vq(x)
    loss = F.mse_loss(out.sample, x) + out.commit_loss.mean()
    loss.backward()
    total, first = grad_norms(vq)
    print(f"vq_and_tiny_vae vq loss {loss.item()!r} grad norm {total!r} "
          f"first grad norm {first!r}")
    tiny = AutoencoderTiny(encoder_block_out_channels=(8, 8), decoder_block_out_channels=(8, 8),
                           num_encoder_blocks=(1, 1), num_decoder_blocks=(1, 1),
                           latent_channels=4)
    with torch.no_grad():
        z = tiny.encode(x).latents
        y = tiny.decode(z).sample
    print(f"vq_and_tiny_vae tiny latents {checksum(z)}")
    print(f"vq_and_tiny_vae tiny decoded {checksum(y)}")


@variant
def transformers_2d():
    # SD3's MMDiT (joint attention), Flux (rotary embeddings over image ids, single and double
    # stream blocks) and PixArt-alpha (caption projection, an attention mask), one backward each
    from diffusers import (
        FluxTransformer2DModel,
        PixArtTransformer2DModel,
        SD3Transformer2DModel,
    )
    sd3 = SD3Transformer2DModel(sample_size=SIZE, patch_size=2, in_channels=4, num_layers=2,
                                attention_head_dim=8, num_attention_heads=2,
                                joint_attention_dim=16, caption_projection_dim=16,
                                pooled_projection_dim=8, out_channels=4, pos_embed_max_size=8)
    out = sd3(torch.randn(2, 4, SIZE, SIZE), encoder_hidden_states=torch.randn(2, 5, 16),
              pooled_projections=torch.randn(2, 8), timestep=torch.tensor([3, 5])).sample
    out.pow(2).mean().backward()
    total, first = grad_norms(sd3)
    print(f"transformers_2d sd3 {checksum(out)} grad norm {total!r} first grad norm {first!r}")
    flux = FluxTransformer2DModel(patch_size=1, in_channels=8, num_layers=1, num_single_layers=1,
                                  attention_head_dim=8, num_attention_heads=2,
                                  joint_attention_dim=16, pooled_projection_dim=8,
                                  axes_dims_rope=(2, 2, 4))
    img_ids = torch.zeros(16, 3)
    img_ids[:, 1] = torch.arange(16) // 4
    img_ids[:, 2] = torch.arange(16) % 4
    out = flux(torch.randn(2, 16, 8), encoder_hidden_states=torch.randn(2, 5, 16),
               pooled_projections=torch.randn(2, 8), timestep=torch.tensor([0.3, 0.5]),
               img_ids=img_ids, txt_ids=torch.zeros(5, 3)).sample
    out.pow(2).mean().backward()
    total, first = grad_norms(flux)
    print(f"transformers_2d flux {checksum(out)} grad norm {total!r} first grad norm {first!r}")
    pixart = PixArtTransformer2DModel(num_attention_heads=2, attention_head_dim=8, in_channels=4,
                                      out_channels=8, num_layers=1, sample_size=SIZE,
                                      patch_size=2, cross_attention_dim=16, caption_channels=12,
                                      norm_num_groups=4, use_additional_conditions=False)
    with torch.no_grad():
        out = pixart(torch.randn(2, 4, SIZE, SIZE), encoder_hidden_states=torch.randn(2, 5, 12),
                     timestep=torch.tensor([3, 5]),
                     added_cond_kwargs={"resolution": None, "aspect_ratio": None},
                     encoder_attention_mask=torch.tensor([[1, 1, 1, 0, 0], [1] * 5])).sample
    print(f"transformers_2d pixart {checksum(out)}")


@variant
def sd_pipeline():
    from diffusers import (
        AutoencoderKL,
        DDIMScheduler,
        StableDiffusionPipeline,
        UNet2DConditionModel,
    )
    unet = UNet2DConditionModel(**{**UNET_COND, "sample_size": 4})
    vae = AutoencoderKL(**{**VAE, "sample_size": 8})
    sched = DDIMScheduler(num_train_timesteps=T, beta_schedule="scaled_linear",
                          clip_sample=False, set_alpha_to_one=False)
    pipe = StableDiffusionPipeline(vae=vae, text_encoder=None, tokenizer=None, unet=unet,
                                   scheduler=sched, safety_checker=None,
                                   feature_extractor=None, requires_safety_checker=False)
    pipe.set_progress_bar_config(disable=True)
    prompt = torch.randn(2, 5, 16)
    negative = torch.randn(2, 5, 16)
    out = pipe(prompt_embeds=prompt, negative_prompt_embeds=negative, height=8, width=8,
               num_inference_steps=4, guidance_scale=3.0, generator=generator(0),
               output_type="np").images
    print(f"sd_pipeline cfg {checksum(out)}")
    out = pipe(prompt_embeds=prompt, height=8, width=8, num_inference_steps=3,
               guidance_scale=1.0, generator=generator(1), output_type="pt",
               guidance_rescale=0.0).images
    print(f"sd_pipeline no cfg {checksum(out)}")
    # img2img from a PIL image (VaeImageProcessor: resize, normalise; the VAE encodes it and
    # the noise is added at strength 0.6)
    import numpy as np
    from diffusers import StableDiffusionImg2ImgPipeline
    from PIL import Image
    pipe = StableDiffusionImg2ImgPipeline(**pipe.components)
    pipe.set_progress_bar_config(disable=True)
    image = Image.fromarray(np.random.default_rng(0).integers(0, 256, (12, 12, 3), np.uint8))
    out = pipe(prompt_embeds=prompt[:1], negative_prompt_embeds=negative[:1], image=image,
               strength=0.6, num_inference_steps=5, generator=generator(2),
               output_type="np").images
    print(f"sd_pipeline img2img {checksum(out)}")


@variant
def dit():
    from diffusers import DiTTransformer2DModel
    model = DiTTransformer2DModel(num_attention_heads=2, attention_head_dim=8, in_channels=4,
                                  out_channels=4, num_layers=2, sample_size=SIZE, patch_size=2,
                                  num_embeds_ada_norm=T)
    sched = ddpm_scheduler()
    print(f"dit parameters {sum(p.numel() for p in model.parameters())} "
          f"{params_checksum(model)}")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model.train()
    for step in range(STEPS):
        latents = torch.randn(B, 4, SIZE, SIZE)
        noise = torch.randn(latents.shape)
        timesteps = torch.randint(0, T, (B,))
        labels = torch.randint(0, 10, (B,))
        pred = model(sched.add_noise(latents, noise, timesteps), timestep=timesteps,
                     class_labels=labels).sample
        loss = F.mse_loss(pred, noise)
        opt.zero_grad()
        loss.backward()
        total, first = grad_norms(model)
        opt.step()
        print(f"dit step {step} loss {loss.item()!r} grad norm {total!r} "
              f"first grad norm {first!r}")
    print(f"dit model {params_checksum(model)}")


@variant
def compiled():
    # torch.compile'd UNet (backend aot_eager: under the wrapper PyTorch's inductor fails to
    # set up its patterns), trained 2 steps, its output a diffusers BaseOutput (a pytree node
    # registered with torch.utils._pytree), then sampled by DDIMPipeline
    from diffusers import DDIMPipeline, DDIMScheduler
    model = _unet2d()
    net = torch.compile(model, backend="aot_eager")
    sched = ddpm_scheduler()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(2):
        clean, noise = images(), torch.randn(B, 3, SIZE, SIZE)
        timesteps = torch.randint(0, T, (B,))
        out = net(sched.add_noise(clean, noise, timesteps), timesteps)
        loss = F.mse_loss(out.sample, noise)
        opt.zero_grad()
        loss.backward()
        total, first = grad_norms(model)
        opt.step()
        print(f"compiled step {step} {type(out).__name__} loss {loss.item()!r} "
              f"grad norm {total!r} first grad norm {first!r}")
    model.eval()
    x = images()
    with torch.no_grad():
        eager, traced = model(x, 4).sample, net(x, 4).sample
    print(f"compiled eval {checksum(traced)} eager agrees "
          f"{(eager - traced).abs().max().item() < 1e-5}")
    pipe = DDIMPipeline(unet=net, scheduler=DDIMScheduler(num_train_timesteps=T))
    pipe.set_progress_bar_config(disable=True)
    out = pipe(batch_size=2, generator=generator(0), num_inference_steps=3,
               output_type="np").images
    print(f"compiled ddim_pipeline {checksum(out)}")


@variant
def save_load():
    from diffusers import AutoencoderKL, DDPMPipeline, DPMSolverMultistepScheduler, UNet2DModel
    model = _unet2d().eval()
    vae_model = AutoencoderKL(**VAE).eval()
    x = images()
    x16 = images(size=16)
    folder = tempfile.mkdtemp(prefix="diffusers_")
    try:
        model.save_pretrained(os.path.join(folder, "unet"))
        vae_model.save_pretrained(os.path.join(folder, "vae"), safe_serialization=True)
        sched = DPMSolverMultistepScheduler(num_train_timesteps=T, solver_order=3)
        sched.save_pretrained(os.path.join(folder, "sched"))
        files = sorted(f for sub in ("unet", "vae", "sched")
                       for f in os.listdir(os.path.join(folder, sub)))
        print(f"save_load files {files}")
        loaded = UNet2DModel.from_pretrained(os.path.join(folder, "unet")).eval()
        loaded_vae = AutoencoderKL.from_pretrained(os.path.join(folder, "vae")).eval()
        loaded_sched = DPMSolverMultistepScheduler.from_pretrained(os.path.join(folder, "sched"))
        with torch.no_grad():
            a = model(x, 3).sample
            b = loaded(x, 3).sample
            va = vae_model(x16).sample
            vb = loaded_vae(x16).sample
        print(f"save_load unet {checksum(a)} max diff {(a - b).abs().max().item()!r}")
        print(f"save_load vae {checksum(va)} max diff {(va - vb).abs().max().item()!r}")
        print(f"save_load scheduler order {loaded_sched.config.solver_order} "
              f"train steps {loaded_sched.config.num_train_timesteps}")
        pipe = DDPMPipeline(unet=model, scheduler=ddpm_scheduler())
        pipe.save_pretrained(os.path.join(folder, "pipe"))
        pipe2 = DDPMPipeline.from_pretrained(os.path.join(folder, "pipe"))
        for p in (pipe, pipe2):
            p.set_progress_bar_config(disable=True)
        torch.manual_seed(3)
        one = pipe(batch_size=1, generator=generator(0), num_inference_steps=3,
                   output_type="np").images
        torch.manual_seed(3)
        two = pipe2(batch_size=1, generator=generator(0), num_inference_steps=3,
                    output_type="np").images
        # (PyTorch's two runs differ by up to 1.2e-7: a bound, not the number)
        print(f"save_load pipeline {checksum(one)} "
              f"max diff below 1e-6 {bool(abs(one - two).max() < 1e-6)}")
        print(f"save_load pipeline components {sorted(pipe2.components)}")
    finally:
        shutil.rmtree(folder)


def main(argv):
    if os.environ.get("DIFFUSERS_FLOAT64"):
        torch.set_default_dtype(torch.float64)
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    import diffusers
    print(f"diffusers {diffusers.__version__}")
    for name in names:
        start = time.time()
        torch.manual_seed(0)
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
