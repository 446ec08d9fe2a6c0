"""Driver for openai/CLIP's ``clip`` package (imported unchanged; its ``clip.load`` downloads
the released weights). Builds two small CLIPs with ``clip.model.CLIP`` (a ViT image tower and
a ModifiedResNet one), initialised by CLIP's own ``initialize_parameters``; tokenizes captions
with ``clip.tokenize`` (its BPE vocabulary ships in the tree) and preprocesses generated PIL
images with CLIP's ``_transform`` (bicubic Resize, CenterCrop, ToTensor, Normalize). For each
model it prints the image and text features and the logits, trains two Adam steps on CLIP's
symmetric cross-entropy, then saves the state dict, loads it back with ``clip.load(path,
device="cpu")`` (torch.jit.load first, a RuntimeError, then torch.load and ``build_model``, which
converts the weights to float16 and back to float32 on the CPU) and checks the loaded model
computes the same; last, ``build_model`` alone (float16 weights) runs in float16 for the text
tower. Run with the tree on PYTHONPATH:

    python clip_model.py
"""

import os
import tempfile

import clip
import numpy as np
import torch
import torch.nn.functional as F
from clip.model import CLIP, build_model
from PIL import Image

CAPTIONS = ["a diagram", "a dog", "a photo of a cat", "Hello, world!"]
CONTEXT = 16


def show(name, t):
    t = t.detach().float()
    flat = t.flatten()
    print(f"{name} shape {tuple(t.shape)} sum {t.sum().item():.6f} abs {t.abs().sum().item():.6f} "
          f"first {[round(v, 6) for v in flat[:4].tolist()]}")


def images(n, rng):
    out = []
    for _ in range(n):
        h, w = rng.integers(40, 90, 2)
        out.append(Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)))
    return out


def run(name, kwargs, rng):
    print(f"== {name}")
    torch.manual_seed(0)
    model = CLIP(**kwargs)
    print(f"{name} parameters {sum(p.numel() for p in model.parameters())}")
    preprocess = clip.clip._transform(kwargs["image_resolution"])
    pics = images(len(CAPTIONS), rng)
    image = torch.stack([preprocess(p) for p in pics])
    show(f"{name} image", image)
    text = clip.tokenize(CAPTIONS, context_length=CONTEXT)
    print(f"{name} tokens {text.dtype} {text.tolist()}")

    model.eval()
    with torch.no_grad():
        show(f"{name} image features", model.encode_image(image))
        show(f"{name} text features", model.encode_text(text))
        logits_per_image, logits_per_text = model(image, text)
        show(f"{name} logits_per_image", logits_per_image)
        show(f"{name} probs", logits_per_image.softmax(dim=-1))

    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4, betas=(0.9, 0.98), eps=1e-6,
                                 weight_decay=0.2)
    labels = torch.arange(len(CAPTIONS))
    for step in range(2):
        optimizer.zero_grad()
        logits_per_image, logits_per_text = model(image, text)
        loss = (F.cross_entropy(logits_per_image, labels)
                + F.cross_entropy(logits_per_text, labels)) / 2
        loss.backward()
        grads = [p.grad.norm().item() for p in model.parameters() if p.grad is not None]
        print(f"{name} step {step} loss {loss.item():.6f} grad norms sum {sum(grads):.6f} "
              f"logit_scale grad {model.logit_scale.grad.item():.6f}")
        show(f"{name} step {step} token_embedding grad", model.token_embedding.weight.grad)
        optimizer.step()

    model.eval()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "clip.pt")
        torch.save(model.state_dict(), path)
        try:
            loaded, loaded_preprocess = clip.load(path, device="cpu")
        except EOFError as e:  # PyTorch 2.13 (below); jtorch's jit.load leaves the file alone
            print(f"{name} clip.load: {type(e).__name__}")
            # what clip.load does after its torch.jit.load: PyTorch 2.13's jit.load reads the
            # file to its end before failing, so clip.load's torch.load then finds nothing
            with open(path, "rb") as f:
                loaded = build_model(torch.load(f, map_location="cpu")).to("cpu")
            loaded.float()
            loaded_preprocess = clip.clip._transform(loaded.visual.input_resolution)
    print(f"{name} loaded dtype {loaded.dtype} resolution {loaded.visual.input_resolution}")
    with torch.no_grad():
        a, _ = model(image, text)
        b, _ = loaded(image, text)
        show(f"{name} after training logits", a)
        show(f"{name} loaded logits", b)
        show(f"{name} loaded preprocess", loaded_preprocess(pics[0]))

    half = build_model({k: v.clone() for k, v in model.state_dict().items()}).eval()
    print(f"{name} build_model dtype {half.dtype} "
          f"{sorted({str(p.dtype) for p in half.parameters()})}")
    with torch.no_grad():
        show(f"{name} float16 text features", half.encode_text(text))


def main():
    rng = np.random.default_rng(0)
    # build_model infers the text tower's heads as width // 64 and the ViT's as width // 64
    common = {"embed_dim": 32, "context_length": CONTEXT, "vocab_size": 49408,
              "transformer_width": 128, "transformer_heads": 2, "transformer_layers": 2}
    run("vit", dict(common, image_resolution=32, vision_layers=2, vision_width=128,
                    vision_patch_size=8), rng)
    run("resnet", dict(common, image_resolution=64, vision_layers=(1, 1, 1, 1),
                       vision_width=8, vision_patch_size=None), rng)


if __name__ == "__main__":
    main()
