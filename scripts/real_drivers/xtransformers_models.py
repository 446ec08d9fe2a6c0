"""Driver of the installed x-transformers 2.31, vit-pytorch 1.26 and rotary-embedding-torch 0.9
(docs/real-programs.md), unchanged, at a tiny size (dim 32, depth 1-2, 8-16 tokens, 16x16
images, batch 2). ``rotary``: ``RotaryEmbedding`` on queries and keys (plain, xpos scaled,
learned frequencies with their gradient, interpolation, a KV-cache offset, axial pixel
frequencies through ``apply_rotary_emb``). ``decoder``: two ``TransformerWrapper`` decoders
through ``AutoregressiveWrapper`` (rotary + GLU + RMSNorm + ``attn_flash`` + memory tokens;
ALiBi + residual attention + memory key/values), Adam steps, sampling with a fixed seed
(``generate`` by top-k and greedily) and a ``torch.save``/``torch.load`` state_dict round trip.
``encdec``: an ``XTransformer`` with a masked source, and an ``Encoder`` classifier. ``vit``:
vit-pytorch's ``ViT``, ``SimpleViT``, ``CaiT`` and ``CrossViT`` classifiers, ``MAE`` and
``Dino`` (its random crops and EMA teacher) self-supervision. Each trains a few Adam steps,
printing losses, gradient norms and output checksums at full precision.

    python scripts/shared_rng_run.py drive_xtransformers.py [VARIANT ...]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_xtransformers.py [VARIANT ...]   # jtorch

Each variant reseeds (``torch.manual_seed``), so a subset prints what the full run prints for
it. ``XTM_FLOAT64=1`` runs the models in float64 (to tell float32 rounding from a bug).
"""

import io
import os
import sys
import warnings

import torch
import torch.nn.functional as F

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import rotary_embedding_torch as ret  # noqa: E402
import x_transformers as xt  # noqa: E402

warnings.filterwarnings("ignore")
DTYPE = torch.float64 if os.environ.get("XTM_FLOAT64") else torch.float32
B, N, V, DIM = 2, 12, 32, 32

VARIANTS = {}


def variant(build):
    VARIANTS[build.__name__] = build
    return build


def cs(t):
    """Checksum of a tensor: sum, sum of magnitudes, a weighted sum and the largest magnitude."""
    t = t.detach().double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"sum {t.sum().item():.10g} abs {t.abs().sum().item():.10g} "
            f"w {(t * w).sum().item():.10g} max {t.abs().max().item():.10g}")


def grad_norm(model):
    return torch.sqrt(sum((p.grad.double() ** 2).sum() for p in model.parameters()
                          if p.grad is not None)).item()


def train(name, model, loss_fn, steps=3, lr=1e-3):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for step in range(steps):
        loss = loss_fn()
        opt.zero_grad()
        loss.backward()
        print(f"{name} step {step} loss {loss.item():.10g} grad norm {grad_norm(model):.10g}")
        opt.step()


def roundtrip(name, model, fresh, forward):
    """torch.save the state_dict to memory, load it into ``fresh`` and compare outputs."""
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    fresh.load_state_dict(torch.load(buf))
    model.eval()
    fresh.eval()
    with torch.no_grad():
        a, b = forward(model), forward(fresh)
    print(f"{name} reloaded {cs(b)} equal {torch.equal(a, b)} bytes>0 {buf.getbuffer().nbytes > 0}")


@variant
def rotary():
    torch.manual_seed(0)
    q = torch.randn(B, 2, N, 16, dtype=DTYPE, requires_grad=True)
    k = torch.randn(B, 2, N, 16, dtype=DTYPE, requires_grad=True)
    rot = ret.RotaryEmbedding(dim=8)
    rq, rk = rot.rotate_queries_or_keys(q), rot.rotate_queries_or_keys(k)
    out = (rq @ rk.transpose(-1, -2)).softmax(-1)
    (out * torch.arange(N, dtype=DTYPE)).sum().backward()
    print(f"rotary q {cs(rq)} attn {cs(out)} grad q {cs(q.grad)} grad k {cs(k.grad)}")
    # offset (a KV cache): the last query rotated at its position
    rlast = rot.rotate_queries_or_keys(q[:, :, -1:], offset=N - 1)
    print(f"rotary offset equal {torch.allclose(rlast, rq[:, :, -1:], atol=1e-6)} {cs(rlast)}")
    # xpos: queries and keys scaled in opposite directions
    xpos = ret.RotaryEmbedding(dim=8, use_xpos=True, xpos_scale_base=64)
    xq, xk = xpos.rotate_queries_and_keys(q, k)
    print(f"xpos q {cs(xq)} k {cs(xk)}")
    # learned frequencies, interpolation, sequence before heads
    learned = ret.RotaryEmbedding(dim=8, learned_freq=True, interpolate_factor=2.0,
                                  seq_before_head_dim=True).to(DTYPE)
    qs = q.detach().transpose(1, 2)
    lq = learned.rotate_queries_or_keys(qs)
    (lq ** 2 * torch.linspace(0, 1, 16, dtype=DTYPE)).sum().backward()
    print(f"learned q {cs(lq)} freqs grad {cs(learned.freqs.grad)}")
    opt = torch.optim.Adam(learned.parameters(), lr=1e-2)
    for step in range(3):
        loss = (learned.rotate_queries_or_keys(qs) - qs.flip(1)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        print(f"learned step {step} loss {loss.item():.10g} freqs {cs(learned.freqs)}")
        opt.step()
    # axial frequencies for an image (pixel frequencies)
    axial = ret.RotaryEmbedding(dim=4, freqs_for="pixel", max_freq=16)
    freqs = axial.get_axial_freqs(4, 6)
    img = torch.randn(B, 2, 4, 6, 16, dtype=DTYPE)
    print(f"axial freqs {cs(freqs)} rotated {cs(ret.apply_rotary_emb(freqs, img))}")
    print(f"rotate_half {cs(ret.rotary_embedding_torch.rotate_half(q.detach()))}")


def ar_decoder(**layer_kw):
    net = xt.TransformerWrapper(num_tokens=V, max_seq_len=N, **layer_kw.pop("wrapper", {}),
                                attn_layers=xt.Decoder(dim=DIM, depth=2, heads=2, **layer_kw))
    return xt.AutoregressiveWrapper(net).to(DTYPE)


DECODERS = {
    "rotary_glu_rms_flash_mem": {"rotary_pos_emb": True, "ff_glu": True, "use_rmsnorm": True,
                                 "attn_flash": True, "wrapper": {"num_memory_tokens": 2}},
    "alibi_residual_memkv": {"alibi_pos_bias": True, "alibi_num_heads": 1, "residual_attn": True,
                             "attn_num_mem_kv": 2, "wrapper": {"use_abs_pos_emb": False}},
}


@variant
def decoder():
    for name, kw in DECODERS.items():
        torch.manual_seed(0)
        model = ar_decoder(**dict(kw))
        data = torch.randint(0, V, (B, N + 1))
        train(name, model, lambda model=model, data=data: model(data))
        model.eval()
        prompt = data[:, :4]
        torch.manual_seed(7)
        sampled = model.generate(prompt, 6, filter_logits_fn="top_k", filter_kwargs={"k": 8})
        greedy = model.generate(prompt, 6, temperature=0.0)
        nocache = model.generate(prompt, 6, temperature=0.0, cache_kv=False)
        print(f"{name} top-k {sampled.tolist()} greedy {greedy.tolist()} "
              f"nocache equal {torch.equal(greedy, nocache)}")
        with torch.no_grad():
            logits = model.net(data[:, :N])
        print(f"{name} eval logits {cs(logits)}")
        torch.manual_seed(1)
        roundtrip(name, model, ar_decoder(**dict(kw)), lambda m, data=data: m.net(data[:, :N]))


@variant
def encdec():
    torch.manual_seed(0)
    model = xt.XTransformer(dim=DIM, enc_num_tokens=V, enc_depth=1, enc_heads=2,
                            enc_max_seq_len=N, dec_num_tokens=V, dec_depth=1, dec_heads=2,
                            dec_max_seq_len=N, enc_rotary_pos_emb=True,
                            dec_cross_attn_num_mem_kv=1).to(DTYPE)
    src = torch.randint(0, V, (B, N))
    tgt = torch.randint(0, V, (B, N))
    mask = torch.ones(B, N, dtype=torch.bool)
    mask[1, N - 3:] = False
    train("xtransformer", model, lambda: model(src, tgt, mask=mask))
    model.eval()
    out = model.generate(src, tgt[:, :1], 5, mask=mask, temperature=0.0)
    print(f"xtransformer greedy {out.tolist()}")
    # an encoder classifier on a padding mask, mean pooled, with residual attention
    torch.manual_seed(1)
    enc = xt.TransformerWrapper(num_tokens=V, max_seq_len=N, logits_dim=3, average_pool_embed=True,
                                attn_layers=xt.Encoder(dim=DIM, depth=2, heads=2,
                                                       residual_attn=True, ff_glu=True,
                                                       use_rmsnorm=True)).to(DTYPE)
    labels = torch.randint(0, 3, (B,))
    train("encoder", enc, lambda: F.cross_entropy(enc(src, mask=mask), labels))
    with torch.no_grad():
        emb = enc(src, mask=mask, return_embeddings=True)
    print(f"encoder embeddings {cs(emb)}")


@variant
def vit():
    from vit_pytorch import MAE, SimpleViT, ViT
    from vit_pytorch.cait import CaiT
    from vit_pytorch.cross_vit import CrossViT
    from vit_pytorch.deepvit import DeepViT
    from vit_pytorch.dino import Dino
    images = None

    def classifier(name, model):
        labels = torch.randint(0, 4, (B,))
        train(name, model, lambda: F.cross_entropy(model(images), labels))
        model.eval()
        with torch.no_grad():
            print(f"{name} eval logits {cs(model(images))}")

    builds = {
        "vit": lambda: ViT(image_size=16, patch_size=4, num_classes=4, dim=DIM, depth=1,
                           heads=2, mlp_dim=64, dim_head=16),
        "simple_vit": lambda: SimpleViT(image_size=16, patch_size=4, num_classes=4, dim=DIM,
                                        depth=1, heads=2, mlp_dim=64, dim_head=16),
        "cait": lambda: CaiT(image_size=16, patch_size=4, num_classes=4, dim=DIM, depth=1,
                             cls_depth=1, heads=2, mlp_dim=64, dim_head=16, layer_dropout=0.1),
        "cross_vit": lambda: CrossViT(image_size=16, num_classes=4, sm_dim=DIM, lg_dim=DIM,
                                      sm_patch_size=4, lg_patch_size=8, sm_enc_depth=1,
                                      sm_enc_heads=2, sm_enc_mlp_dim=32, sm_enc_dim_head=16,
                                      lg_enc_depth=1, lg_enc_heads=2, lg_enc_mlp_dim=32,
                                      lg_enc_dim_head=16, cross_attn_depth=1,
                                      cross_attn_heads=2, cross_attn_dim_head=16, depth=1,
                                      dropout=0.1, emb_dropout=0.1),
    }
    for name, build in builds.items():
        torch.manual_seed(0)
        images = torch.randn(B, 3, 16, 16, dtype=DTYPE)
        classifier(name, build().to(DTYPE))
    if DTYPE != torch.float32:
        # MAE's decoder tokens and Dino's mock image are float32 tensors of their own: in
        # float64 both fail under PyTorch too
        return
    torch.manual_seed(0)
    # MAE slices a 3-D pos_embedding (ViT's is 2-D now, in PyTorch too): DeepViT's is 3-D
    encoder = DeepViT(image_size=16, patch_size=4, num_classes=4, dim=DIM, depth=1, heads=2,
                      mlp_dim=64, dim_head=16)
    mae = MAE(encoder=encoder, decoder_dim=DIM, masking_ratio=0.5, decoder_depth=1,
              decoder_heads=2, decoder_dim_head=16).to(DTYPE)
    images = torch.randn(B, 3, 16, 16, dtype=DTYPE)
    train("mae", mae, lambda: mae(images))
    torch.manual_seed(0)
    net = ViT(image_size=16, patch_size=4, num_classes=4, dim=DIM, depth=1, heads=2,
              mlp_dim=64, dim_head=16).to(DTYPE)
    dino = Dino(net, image_size=16, hidden_layer="to_latent", projection_hidden_size=32,
                num_classes_K=64, projection_layers=2).to(DTYPE)
    images = torch.rand(B, 3, 16, 16, dtype=DTYPE)
    opt = torch.optim.Adam(dino.parameters(), lr=1e-3)
    for step in range(2):
        loss = dino(images)
        opt.zero_grad()
        loss.backward()
        print(f"dino step {step} loss {loss.item():.10g} grad norm {grad_norm(dino):.10g}")
        opt.step()
        dino.update_moving_average()
    print(f"dino teacher centers {cs(dino.teacher_centers)}")


def main(argv):
    for name in argv or list(VARIANTS):
        print(f"== {name}")
        VARIANTS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
