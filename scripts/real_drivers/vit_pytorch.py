"""Driver of lucidrains/vit-pytorch (docs/real-programs.md): the package ``vit_pytorch``,
imported unchanged from the tree on PYTHONPATH, builds many Vision Transformer variants at a
tiny size (dim 32, depth 1-2, 32x32 images, batch 2), trains each for a few Adam steps on
cross-entropy against random labels (the self-supervised wrappers, MAE, SimMIM, MPP and MP3,
on their own losses) and runs one eval forward under ``no_grad``.

    python scripts/shared_rng_run.py drive_vit.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_vit.py [VARIANT ... | all]   # jtorch

Without arguments it runs the twenty variants of ``DEFAULT``; ``all`` runs the 33 registered.

Each variant reseeds (``torch.manual_seed``), so a subset prints what the full run prints for
it. A variant whose module imports a package that is not installed is skipped (named on
stderr, nothing on stdout). ``VIT_FLOAT64=1`` runs everything in float64.
"""

import importlib
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

# run in place, this file's folder would shadow the package it drives (same name)
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

B, NC, STEPS = 2, 10, 3


def images(size=32, channels=3, batch=B):
    return torch.randn(batch, channels, size, size)


def video(size=32, frames=4, batch=B):
    return torch.randn(batch, 3, frames, size, size)


VARIANTS = {}


def variant(name, module, kind="cls"):
    """Register ``build(module) -> (model, make_input)``; ``kind`` "cls": the model returns
    logits for NC classes; "loss": the model (a self-supervised wrapper) returns its loss."""
    def register(build):
        VARIANTS[name] = (module, build, kind)
        return build
    return register


VIT = {"num_classes": NC, "dim": 32, "depth": 2, "heads": 2, "dim_head": 16, "mlp_dim": 64}


@variant("vit", "vit")
def _(m):
    return m.ViT(image_size=32, patch_size=8, **VIT), images


@variant("simple_vit", "simple_vit")
def _(m):
    return m.SimpleViT(image_size=32, patch_size=8, **VIT), images


@variant("simple_vit_1d", "simple_vit_1d")
def _(m):
    return m.SimpleViT(seq_len=64, patch_size=8, **VIT), lambda: torch.randn(B, 3, 64)


@variant("vit_1d", "vit_1d")
def _(m):
    return m.ViT(seq_len=64, patch_size=8, **VIT), lambda: torch.randn(B, 3, 64)


@variant("vit_3d", "vit_3d")
def _(m):
    return m.ViT(image_size=16, frames=4, image_patch_size=8, frame_patch_size=2, **VIT), \
        lambda: video(16)


@variant("simple_vit_3d", "simple_vit_3d")
def _(m):
    return m.SimpleViT(image_size=16, frames=4, image_patch_size=8, frame_patch_size=2,
                       **VIT), lambda: video(16)


@variant("vivit", "vivit")
def _(m):
    kw = {k: v for k, v in VIT.items() if k != "depth"}
    return m.ViViT(image_size=16, frames=4, image_patch_size=8, frame_patch_size=2,
                   spatial_depth=1, temporal_depth=1, variant="factorized_encoder", **kw), \
        lambda: video(16)


@variant("deepvit", "deepvit")
def _(m):
    return m.DeepViT(image_size=32, patch_size=8, **VIT), images


@variant("cait", "cait")
def _(m):
    return m.CaiT(image_size=32, patch_size=8, cls_depth=1, layer_dropout=0.0, **VIT), images


@variant("t2t", "t2t")
def _(m):
    return m.T2TViT(image_size=32, dim=32, depth=1, heads=2, dim_head=16, mlp_dim=64,
                    num_classes=NC, t2t_layers=((7, 4), (3, 2))), images


@variant("cross_vit", "cross_vit")
def _(m):
    return m.CrossViT(image_size=32, num_classes=NC, depth=1, sm_dim=32, sm_patch_size=8,
                      sm_enc_depth=1, sm_enc_heads=2, sm_enc_mlp_dim=64, sm_enc_dim_head=16,
                      lg_dim=48, lg_patch_size=16, lg_enc_depth=1, lg_enc_heads=2,
                      lg_enc_mlp_dim=64, lg_enc_dim_head=16, cross_attn_depth=1,
                      cross_attn_heads=2, cross_attn_dim_head=16), images


@variant("pit", "pit")
def _(m):
    return m.PiT(image_size=32, patch_size=8, dim=32, num_classes=NC, depth=(1, 1), heads=2,
                 dim_head=16, mlp_dim=64), images


@variant("levit", "levit")
def _(m):
    return m.LeViT(image_size=32, num_classes=NC, stages=2, dim=(32, 48), depth=1,
                   heads=(2, 2), mlp_mult=2, dim_key=16, dim_value=16), images


@variant("cvt", "cvt")
def _(m):
    return m.CvT(num_classes=NC, s1_emb_dim=16, s1_depth=1, s2_emb_dim=32, s2_heads=2,
                 s2_depth=1, s3_emb_dim=48, s3_heads=2, s3_depth=1), images


@variant("rvt", "rvt")
def _(m):
    return m.RvT(image_size=32, patch_size=8, **VIT), images


@variant("twins_svt", "twins_svt")
def _(m):
    return m.TwinsSVT(num_classes=NC, s1_emb_dim=16, s1_patch_size=4, s1_local_patch_size=4,
                      s1_global_k=4, s1_depth=1, s2_emb_dim=32, s2_patch_size=2,
                      s2_local_patch_size=2, s2_global_k=2, s2_depth=1, s3_emb_dim=32,
                      s3_patch_size=1, s3_local_patch_size=2, s3_global_k=2, s3_depth=1,
                      s4_emb_dim=48, s4_patch_size=2, s4_local_patch_size=1, s4_global_k=1,
                      s4_depth=1), images


@variant("crossformer", "crossformer")
def _(m):
    # attention heads are dim // 32
    return m.CrossFormer(num_classes=NC, dim=(32, 32, 64, 64), depth=(1, 1, 1, 1),
                         global_window_size=(2, 2, 1, 1), local_window_size=(2, 2, 2, 1)), \
        images


@variant("regionvit", "regionvit")
def _(m):
    return m.RegionViT(dim=(16, 32, 32, 48), depth=(1, 1, 1, 1), window_size=2,
                       num_classes=NC, use_peg=True), lambda: images(64)


@variant("scalable_vit", "scalable_vit")
def _(m):
    return m.ScalableViT(num_classes=NC, dim=16, heads=(1, 2, 2, 2), depth=(1, 1, 1, 1),
                         ssa_dim_key=(16, 16, 16, 16), reduction_factor=(2, 2, 1, 1),
                         window_size=(4, 2, None, None)), images


@variant("sep_vit", "sep_vit")
def _(m):
    # its stages attend in windows of 7 (the window_size argument does not reach them):
    # two stages on 56x56 images make 14x14 and 7x7 maps
    return m.SepViT(num_classes=NC, dim=16, dim_head=16, heads=(1, 2), depth=(1, 1)), \
        lambda: images(56)


@variant("max_vit", "max_vit")
def _(m):
    return m.MaxViT(num_classes=NC, dim_conv_stem=16, dim=32, dim_head=16, depth=(1, 1),
                    window_size=4, dropout=0.0), images


@variant("nest", "nest")
def _(m):
    return m.NesT(image_size=32, patch_size=4, dim=32, heads=2, dim_head=16,
                  num_hierarchies=2, block_repeats=(1, 1), num_classes=NC), images


@variant("mobile_vit", "mobile_vit")
def _(m):
    return m.MobileViT(image_size=(32, 32), dims=[32, 32, 48],
                       channels=[8, 16, 16, 16, 24, 24, 32, 32, 48, 48, 64], num_classes=NC,
                       depths=(1, 1, 1)), lambda: images(64)


@variant("xcit", "xcit")
def _(m):
    return m.XCiT(image_size=32, patch_size=8, cls_depth=1, layer_dropout=0.0, **VIT), images


@variant("cct", "cct")
def _(m):
    return m.CCT(img_size=32, embedding_dim=32, n_conv_layers=1, kernel_size=3, stride=2,
                 padding=1, pooling_kernel_size=3, pooling_stride=2, pooling_padding=1,
                 num_layers=1, num_heads=2, mlp_ratio=2.0, num_classes=NC,
                 attention_dropout=0.0, stochastic_depth_rate=0.0,
                 positional_embedding="learnable"), images


@variant("vit_for_small_dataset", "vit_for_small_dataset")
def _(m):
    return m.ViT(image_size=32, patch_size=8, **VIT), images


@variant("parallel_vit", "parallel_vit")
def _(m):
    return m.ViT(image_size=32, patch_size=8, num_parallel_branches=2, **VIT), images


@variant("learnable_memory_vit", "learnable_memory_vit")
def _(m):
    vit = m.ViT(image_size=32, patch_size=8, **VIT)
    return m.Adapter(vit=vit, num_classes=NC, num_memories_per_layer=3), images


@variant("na_vit", "na_vit")
def _(m):
    model = m.NaViT(image_size=32, patch_size=8, token_dropout_prob=0.25, **VIT)

    def make():  # four images of different resolutions packed into two sequences
        return [[torch.randn(3, 32, 32), torch.randn(3, 16, 16)],
                [torch.randn(3, 16, 32), torch.randn(3, 32, 16)]]
    return model, make


def encoder():
    """The encoder of the self-supervised wrappers: a ViT with the attributes they read
    (``pos_embedding`` and ``cls_token`` of shape (1, n, dim), ``to_patch_embedding`` as
    Rearrange, LayerNorm, Linear, LayerNorm); vit.ViT's now lack that shape (2-D), so
    MAE, SimMIM and MPP at this commit fail with it in PyTorch too."""
    from vit_pytorch.deepvit import DeepViT
    return DeepViT(image_size=32, patch_size=8, **VIT)


@variant("mae", "mae", kind="loss")
def _(m):
    vit = encoder()
    return m.MAE(encoder=vit, masking_ratio=0.75, decoder_dim=32, decoder_depth=1,
                 decoder_heads=2, decoder_dim_head=16), images


@variant("simmim", "simmim", kind="loss")
def _(m):
    vit = encoder()
    return m.SimMIM(encoder=vit, masking_ratio=0.5), images


@variant("mpp", "mpp", kind="loss")
def _(m):
    vit = encoder()
    model = m.MPP(transformer=vit, patch_size=8, dim=32, mask_prob=0.5,
                  random_patch_prob=0.3, replace_prob=0.5)
    return model, lambda: torch.rand(B, 3, 32, 32)


@variant("mp3", "mp3", kind="loss")
def _(m):
    vit = m.ViT(num_classes=NC, image_size=32, patch_size=8, dim=32, depth=2, heads=2,
                dim_head=16, mlp_dim=64)
    return m.MP3(vit=vit, masking_ratio=0.5), images


def grad_norms(model):
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    total = math.sqrt(sum(float(g.pow(2).sum()) for g in grads))
    return total, float(grads[0].norm())


def run(name):
    module_name, build, kind = VARIANTS[name]
    try:
        module = importlib.import_module(f"vit_pytorch.{module_name}")
    except ImportError as e:
        print(f"skipped {name}: {e}", file=sys.stderr)
        return
    torch.manual_seed(0)
    model, make_input = build(module)
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"== {name} ({type(model).__name__}, {n_params} parameters)")
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    model.train()
    for step in range(STEPS):
        x = make_input()
        if kind == "cls":
            logits = model(x)
            labels = torch.randint(0, NC, (logits.shape[0],))
            loss = F.cross_entropy(logits, labels)
        else:
            loss = model(x)
        opt.zero_grad()
        loss.backward()
        total, first = grad_norms(model)
        opt.step()
        print(f"{name} step {step} loss {loss.item():.6f} grad norm {total:.6f} "
              f"first grad norm {first:.6f}")
    model.eval()
    x = make_input()
    with torch.no_grad():
        out = model(x)
    what = "logits" if kind == "cls" else "loss"
    print(f"{name} eval {what} sum {out.sum().item():.6f} shape {list(out.shape)}")


# run when no variant is named (about ten minutes of jtorch's first-use compilation on a
# 2-core CPU); "all" runs every registered variant
DEFAULT = ("vit", "simple_vit", "simple_vit_1d", "vit_3d", "vivit", "deepvit", "cait", "t2t",
           "cross_vit", "pit", "levit", "cvt", "rvt", "crossformer", "sep_vit", "max_vit",
           "nest", "mobile_vit", "na_vit", "mae")


def main(argv):
    if os.environ.get("VIT_FLOAT64"):  # to tell float32 rounding from a real difference
        torch.set_default_dtype(torch.float64)
    names = list(VARIANTS) if argv == ["all"] else argv or list(DEFAULT)
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        run(name)
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
