"""Driver of OpenCLIP (``open_clip_torch``, docs/real-programs.md): the installed package,
unchanged, on tiny models built from its own configs (registered with
``open_clip.add_model_config``, nothing downloaded): a ViT CLIP made by
``create_model_and_transforms``, a ModifiedResNet CLIP (QuickGELU, attention pooling) by
``create_model``, a ``CustomTextCLIP`` (NormFormer-style custom attention blocks with QK norm and
head scales, a class-token text tower with padding masks, a logit bias) trained on SigLIP's
loss, and a CoCa (attentional poolers, a multimodal decoder) on its captioning loss. Captions go
through open_clip's ``SimpleTokenizer`` (its BPE vocabulary ships in the wheel); PIL images
through ``open_clip.image_transform`` (bicubic resizes, crops, the training transform's
``RandomResizedCrop``, colour jitter and grayscale). Each model encodes images and texts, prints
features, logits and its loss, then takes three AdamW steps (open_clip's training recipe:
no weight decay on gains and biases, ``logit_scale`` clamped to log 100).

    python scripts/shared_rng_run.py drive_open_clip.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_open_clip.py [VARIANT ... | all]   # jtorch

Without arguments (or with ``all``) it runs every variant but ``bf16`` (bfloat16 autocast,
run only when named). Every variant reseeds (``torch.manual_seed``), so a subset prints what the
full run prints for it. Numbers are printed at full precision (``repr`` of float64 sums).
``OPEN_CLIP_FLOAT64=1`` makes float64 the default dtype (models, images and the transforms'
tensors), to tell float32 rounding from a bug.
"""

import json
import math
import os
import sys
import tempfile

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import open_clip  # noqa: E402
from PIL import Image  # noqa: E402

CAPTIONS = ["a diagram", "a photo of a dog", "a cat sitting on a mat, by the window",
            "Hello, world! 123"]
CONTEXT = 16
TEXT = {"context_length": CONTEXT, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 2}
CONFIGS = {
    "tiny-vit": {"embed_dim": 16, "vision_cfg": {"image_size": 32, "layers": 2, "width": 32,
                                                 "head_width": 16, "patch_size": 8},
                 "text_cfg": TEXT},
    "tiny-rn": {"embed_dim": 16, "quick_gelu": True,
                "vision_cfg": {"image_size": 64, "layers": [1, 1, 1, 1], "width": 8,
                               "head_width": 16, "patch_size": None},
                "text_cfg": TEXT},
    "tiny-custom": {"embed_dim": 16, "custom_text": True, "init_logit_bias": -10.0,
                    "init_logit_scale": math.log(10.0),
                    "vision_cfg": {"image_size": 32, "layers": 2, "width": 32, "head_width": 16,
                                   "patch_size": 8, "block_type": "custom", "qk_norm": True,
                                   "scale_heads": True, "scale_attn": True, "scale_fc": True,
                                   "ls_init_value": 0.1, "pool_type": "avg",
                                   "final_ln_after_pool": True},
                    "text_cfg": dict(TEXT, embed_cls=True, pool_type="last", proj_bias=True,
                                     scale_attn_inner=True, block_type="custom")},
    "tiny-coca": {"embed_dim": 32, "custom_text": True,
                  "vision_cfg": {"image_size": 32, "layers": 2, "width": 32, "head_width": 16,
                                 "patch_size": 8, "attentional_pool": True, "attn_pooler_heads": 2,
                                 "attn_pooler_queries": 8, "output_tokens": True},
                  "text_cfg": dict(TEXT, embed_cls=True, output_tokens=True),
                  "multimodal_cfg": dict(TEXT, attn_pooler_heads=2)},
    "tiny-cosine": {"embed_dim": 16, "custom_text": True,
                    "vision_cfg": {"image_size": 32, "layers": 2, "width": 32, "head_width": 16,
                                   "patch_size": 8, "qk_norm": True,
                                   "pos_embed_type": "sin_cos_2d", "no_ln_pre": True,
                                   "attentional_pool": True, "attn_pooler_heads": 2,
                                   "attn_pooler_queries": 4, "pool_type": "avg"},
                    "text_cfg": dict(TEXT, no_causal_mask=True, pool_type="eos", eos_id=49407,
                                     scale_attn=True, mlp_ratio=2.0,
                                     final_ln_after_pool=True)},
}

VARIANTS = {}


def variant(name):
    def register(run):
        VARIANTS[name] = run
        return run
    return register


def checksum(t):
    """Sum, sum of magnitudes and a weighted sum (weights 1 to 2 in a period of 7, so that values
    summing to zero by construction, a normalised feature's gradient, do not cancel) in float64."""
    t = t.detach().double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"sum {t.sum().item()!r} abssum {t.abs().sum().item()!r} "
            f"wsum {(t * w).sum().item()!r}")


def show(label, t):
    print(f"{label} {tuple(t.shape)} {checksum(t)}")


def register_configs():
    folder = tempfile.mkdtemp(prefix="open_clip_cfg")
    for name, cfg in CONFIGS.items():
        with open(os.path.join(folder, f"{name}.json"), "w") as f:
            json.dump(cfg, f)
    open_clip.add_model_config(folder)


def pil_images(n, seed=0):
    """Generated RGB images of different sizes and aspect ratios (one grayscale)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        h, w = rng.integers(24, 90, 2)
        pixels = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        out.append(Image.fromarray(pixels[..., 0] if i == n - 1 else pixels))
    return out


def optimizer_for(model):
    """open_clip_train's AdamW: no weight decay on gains, biases and logit_scale."""
    exclude = [p for n, p in model.named_parameters()
               if p.ndim < 2 or "bn" in n or "ln" in n or "bias" in n or "logit_scale" in n]
    ids = {id(p) for p in exclude}
    rest = [p for p in model.parameters() if id(p) not in ids]
    return torch.optim.AdamW([{"params": exclude, "weight_decay": 0.0},
                              {"params": rest, "weight_decay": 0.2}],
                             lr=1e-3, betas=(0.9, 0.98), eps=1e-6)


def train(name, model, loss_fn, image, text, steps=3):
    model.train()
    optimizer = optimizer_for(model)
    for step in range(steps):
        optimizer.zero_grad()
        out = model(image, text)
        losses = loss_fn(**out, output_dict=True) if isinstance(out, dict) else {
            "loss": loss_fn(*out)}
        loss = sum(losses.values())
        loss.backward()
        norms = [p.grad.double().norm() for p in model.parameters() if p.grad is not None]
        parts = " ".join(f"{k} {v.item()!r}" for k, v in sorted(losses.items()))
        print(f"{name} step {step} loss {loss.item()!r} ({parts}) "
              f"grad norm {torch.stack(norms).norm().item()!r} "
              f"logit_scale grad {model.logit_scale.grad.item()!r}")
        optimizer.step()
        with torch.no_grad():
            model.logit_scale.clamp_(0, math.log(100))
    show(f"{name} trained logit_scale", model.logit_scale)
    show(f"{name} trained token_embedding", model_token_embedding(model).weight)


def model_token_embedding(model):
    return getattr(model, "token_embedding", None) or model.text.token_embedding


def evaluate(name, model, image, text):
    model.eval()
    with torch.no_grad():
        show(f"{name} image features", model.encode_image(image))
        show(f"{name} text features", model.encode_text(text))
        if hasattr(model, "get_logits"):
            image_logits, text_logits = model.get_logits(image, text)
        else:  # CoCa: the same product from its normalised features
            image_logits = model.logit_scale.exp() * (model.encode_image(image)
                                                      @ model.encode_text(text).T)
        show(f"{name} logits_per_image", image_logits)
        show(f"{name} probs", image_logits.softmax(dim=-1))


@variant("tokenizer")
def _():
    tok = open_clip.get_tokenizer("tiny-vit")
    print(f"tokenizer {type(tok).__name__} context {tok.context_length}")
    tokens = tok(CAPTIONS)
    print(f"tokens {tokens.dtype} {tokens.tolist()}")
    print(f"decoded {[tok.decode(t.tolist()) for t in tokens]}")
    long = open_clip.tokenize(["a " * 100], context_length=8)
    print(f"truncated {long.tolist()}")


@variant("preprocess")
def _():
    pics = pil_images(4, seed=1)
    for mode in ("shortest", "longest", "squash"):
        tf = open_clip.image_transform(32, is_train=False, resize_mode=mode)
        for p in pics:
            show(f"val {mode} {p.size}", tf(p))
    tf = open_clip.image_transform((32, 24), is_train=False, interpolation="bilinear")
    show("val 32x24 bilinear", tf(pics[0]))
    train_tf = open_clip.image_transform(
        32, is_train=True, aug_cfg={"scale": (0.5, 1.0), "color_jitter": (0.4, 0.4, 0.4, 0.1),
                                    "color_jitter_prob": 0.8, "gray_scale_prob": 0.5})
    for p in pics:
        show(f"train {p.size}", train_tf(p))


@variant("vit")
def _():
    model, preprocess_train, preprocess_val = open_clip.create_model_and_transforms("tiny-vit")
    tok = open_clip.get_tokenizer("tiny-vit")
    print(f"vit {type(model).__name__} parameters {sum(p.numel() for p in model.parameters())}")
    pics = pil_images(len(CAPTIONS))
    image = torch.stack([preprocess_val(p) for p in pics])
    show("vit preprocessed", image)
    text = tok(CAPTIONS)
    evaluate("vit", model, image, text)
    loss_fn = open_clip.ClipLoss()
    with torch.no_grad():
        show("vit ClipLoss", loss_fn(*model(image, text)))
    out = model.forward_intermediates(image, text, image_indices=1, text_indices=1,
                                      output_logits=True)
    for key in ("image_intermediates", "text_intermediates"):
        show(f"vit {key}", out[key][0])
    show("vit intermediates image_logits", out["image_logits"])
    train("vit", model, loss_fn, torch.stack([preprocess_train(p) for p in pics]), text)
    evaluate("vit trained", model, image, text)


def build(label, name, **kwargs):
    """``create_model(name)`` and the captions through its tokenizer."""
    model = open_clip.create_model(name, **kwargs)
    print(f"{label} {type(model).__name__} parameters "
          f"{sum(p.numel() for p in model.parameters())}")
    return model, open_clip.get_tokenizer(name)(CAPTIONS)


@variant("resnet")
def _():
    model, text = build("resnet", "tiny-rn")
    image = torch.randn(len(CAPTIONS), 3, 64, 64)
    evaluate("resnet", model, image, text)
    train("resnet", model, open_clip.ClipLoss(), image, text)
    evaluate("resnet trained", model, image, text)
    show("resnet trained bn1 running_mean", model.visual.bn1.running_mean)


@variant("custom_text")
def _():
    model, text = build("custom_text", "tiny-custom", output_dict=True)
    image = torch.rand(len(CAPTIONS), 3, 32, 32)
    evaluate("custom_text", model, image, text)
    loss_fn = open_clip.loss.SigLipLoss()
    with torch.no_grad():
        out = model(image, text)
        show("custom_text SigLipLoss", loss_fn(**out))
    train("custom_text", model, loss_fn, image, text)
    show("custom_text trained logit_bias", model.logit_bias)
    evaluate("custom_text trained", model, image, text)


@variant("coca")
def _():
    model, text = build("coca", "tiny-coca", output_dict=True)
    # open_clip 3.3 never calls the decoder's init_parameters (which would fail: it reads
    # self.transformer.width), so its text_projection is torch.empty's uninitialised memory
    # (NaN at times in PyTorch): initialise it as that method means to
    decoder = model.text_decoder
    torch.nn.init.normal_(decoder.text_projection, std=decoder.width ** -0.5)
    image = torch.rand(len(CAPTIONS), 3, 32, 32)
    evaluate("coca", model, image, text)
    loss_fn = open_clip.CoCaLoss(caption_loss_weight=2.0, clip_loss_weight=1.0,
                                 pad_id=model.pad_id)
    with torch.no_grad():
        out = model(image, text)
        show("coca logits", out["logits"])
        for k, v in sorted(loss_fn(**out, output_dict=True).items()):
            show(f"coca {k}", v)
    train("coca", model, loss_fn, image, text)
    evaluate("coca trained", model, image, text)


@variant("cosine")
def _():
    model, text = build("cosine", "tiny-cosine")
    image = torch.rand(len(CAPTIONS), 3, 32, 32)
    show("cosine sin_cos_2d positional_embedding", model.visual.positional_embedding)
    evaluate("cosine", model, image, text)
    train("cosine", model, open_clip.ClipLoss(), image, text)
    evaluate("cosine trained", model, image, text)


@variant("checkpoint")
def _():
    """A trained model saved with torch.save and loaded by create_model(pretrained=path)
    (load_checkpoint), at its own size and at a larger image size (resize_pos_embed's bicubic
    antialiased interpolation); patch dropout, gradient checkpointing, locked towers, a
    zero-shot classifier."""
    model = open_clip.create_model("tiny-vit", force_patch_dropout=0.5)
    tok = open_clip.get_tokenizer("tiny-vit")
    image = torch.rand(len(CAPTIONS), 3, 32, 32)
    text = tok(CAPTIONS)
    model.set_grad_checkpointing(True)
    train("checkpoint dropout", model, open_clip.ClipLoss(), image, text, steps=2)
    model.set_grad_checkpointing(False)
    model.lock_image_tower(unlocked_groups=1)
    model.lock_text_tower(unlocked_layers=1)
    trainable = [n for n, p in model.named_parameters() if p.requires_grad]
    print(f"checkpoint unlocked {len(trainable)} {trainable}")
    train("checkpoint locked", model, open_clip.ClipLoss(), image, text, steps=2)
    evaluate("checkpoint", model, image, text)
    folder = tempfile.mkdtemp(prefix="open_clip_ckpt")
    path = os.path.join(folder, "tiny.pt")
    torch.save({"epoch": 1, "state_dict": {f"module.{k}": v for k, v in
                                           model.state_dict().items()}}, path)
    loaded = open_clip.create_model("tiny-vit", pretrained=path)
    evaluate("checkpoint loaded", loaded, image, text)
    bigger = open_clip.create_model("tiny-vit", pretrained=path, force_image_size=48)
    show("checkpoint resized positional_embedding", bigger.visual.positional_embedding)
    evaluate("checkpoint resized", bigger, torch.rand(len(CAPTIONS), 3, 48, 48), text)
    classifier = open_clip.build_zero_shot_classifier(
        loaded, tok, ["dog", "cat", "diagram"], ["a photo of a {}.", "a drawing of a {}."],
        num_classes_per_batch=2)
    show("checkpoint zero-shot classifier", classifier)
    with torch.no_grad():
        scores = loaded.encode_image(image, normalize=True) @ classifier
    show("checkpoint zero-shot scores", scores)
    print(f"checkpoint zero-shot argmax {scores.argmax(dim=-1).tolist()}")


@variant("bf16")
def _():
    """open_clip_train's --precision amp_bf16: the forward passes and ClipLoss under
    torch.autocast("cpu", dtype=torch.bfloat16), AdamW on the float32 weights. Run only when
    named: bfloat16 rounding inside the ops (PyTorch's CPU kernels) differs between frameworks."""
    model = open_clip.create_model("tiny-vit")
    tok = open_clip.get_tokenizer("tiny-vit")
    image = torch.rand(len(CAPTIONS), 3, 32, 32)
    text = tok(CAPTIONS)
    model.eval()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        image_logits, _ = model.get_logits(image, text)
    print(f"bf16 autocast logits {image_logits.dtype} {image_logits.float().flatten().tolist()}")
    model.train()
    optimizer = optimizer_for(model)
    loss_fn = open_clip.ClipLoss()
    for step in range(3):
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = loss_fn(*model(image, text))
        loss.backward()
        print(f"bf16 step {step} loss {loss.dtype} {loss.item()!r} "
              f"logit_scale grad {model.logit_scale.grad.item()!r}")
        optimizer.step()
    show("bf16 trained token_embedding", model.token_embedding.weight)


def main():
    if os.environ.get("OPEN_CLIP_FLOAT64"):
        torch.set_default_dtype(torch.float64)
    register_configs()
    names = [a for a in sys.argv[1:] if a != "all"] or [n for n in VARIANTS if n != "bf16"]
    for name in names:
        print(f"== {name}")
        torch.manual_seed(0)
        VARIANTS[name]()


if __name__ == "__main__":
    main()
