"""Driver of lucidrains' linear-attention-transformer and local-attention (docs/real-programs.md),
with product-key-memory and CoLT5-attention (installed as their dependencies): the installed
packages, unchanged, on tiny models in float64 (``torch.set_default_dtype``): forward passes,
losses and gradients, Adam steps, seeded generation, save/load through ``state_dict``,
printing each result's checksum (sums and largest magnitude) at full precision.

    python scripts/shared_rng_run.py drive_linear_local_attention.py [VARIANT ... | all]
    python -m jtorch scripts/shared_rng_run.py drive_linear_local_attention.py [VARIANT ...]

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``), so a subset prints what the full run prints for it.
``LLA_FLOAT32=1`` runs in float32 instead.
"""

import io
import os
import sys
import time

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import torch.nn.functional as F  # noqa: E402
from linear_attention_transformer import (  # noqa: E402
    AutoregressiveWrapper,
    ImageLinearAttention,
    LinearAttentionTransformer,
    LinearAttentionTransformerLM,
    LinformerSettings,
)
from local_attention import LocalAttention, LocalMHA, LocalTransformer  # noqa: E402

if not os.environ.get("LLA_FLOAT32"):
    torch.set_default_dtype(torch.float64)

VARIANTS = {}
V, N = 20, 16  # vocabulary, sequence length


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements)
    and the largest magnitude, in float64."""
    t = t.detach().double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def grads(model):
    return torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])


def tokens(b=2, n=N):
    return torch.randint(0, V, (b, n))


def train(model, step_input, steps=3, lr=1e-2):
    """Adam steps on the model's loss; the losses, then the last step's gradients."""
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    out = []
    for i in range(steps):
        opt.zero_grad()
        loss = step_input()
        loss.backward()
        out.append((f"step{i} loss", repr(loss.item())))
        if i == steps - 1:
            out.append((f"step{i} grads", grads(model)))
        opt.step()
    out.append(("params after", torch.cat([p.detach().flatten() for p in model.parameters()])))
    return out


def roundtrip(model, build, x):
    """state_dict saved with torch.save and loaded into a fresh model: the same outputs."""
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    other = build()
    other.load_state_dict(torch.load(buf))
    model.eval()
    other.eval()
    with torch.no_grad():
        a, b = model(x), other(x)
    return [("reloaded max diff", repr((a - b).abs().max().item())), ("reloaded out", b)]


# each variant returns [(label, tensor or text)]; a tensor is printed as its checksum


@variant("lm_causal")
def _():
    def build():
        return LinearAttentionTransformerLM(num_tokens=V, dim=16, heads=2, dim_head=8, depth=2,
                                            max_seq_len=N, causal=True, n_local_attn_heads=1,
                                            local_attn_window_size=4, ff_glu=True,
                                            blindspot_size=2)
    model = AutoregressiveWrapper(build())
    x = tokens(2, N + 1)
    out = [("logits", model(x[:, :-1]))]
    out += train(model, lambda: model(x, return_loss=True))
    mask = torch.ones(2, N + 1, dtype=torch.bool)
    mask[1, -4:] = False
    out.append(("masked loss", repr(model(x, return_loss=True, input_mask=mask).item())))
    torch.manual_seed(1)
    gen = model.generate(x[:, :3], 6, temperature=1.0)
    out.append(("generate", repr(gen.tolist())))
    gen1 = model.generate(x[0, :3], 4, filter_thres=0.5)
    out.append(("generate 1d", repr(gen1.tolist())))
    out += roundtrip(model.net.net, build, x[:, :N])
    return out


@variant("lm_bidirectional")
def _():
    def build():
        return LinearAttentionTransformerLM(num_tokens=V, dim=16, heads=2, dim_head=8, depth=2,
                                            max_seq_len=N, causal=False, n_local_attn_heads=(1, 2),
                                            local_attn_window_size=4, use_rotary_emb=True,
                                            shift_tokens=True, ff_chunks=2)
    model = build()
    x = tokens()
    mask = torch.ones(2, N, dtype=torch.bool)
    mask[0, -5:] = False

    def loss():
        logits = model(x, input_mask=mask)
        return F.cross_entropy(logits.transpose(1, 2), x)
    out = [("logits", model(x, input_mask=mask))]
    out += train(model, loss)
    out += roundtrip(model, build, x)
    return out


@variant("lm_reversible")
def _():
    model = LinearAttentionTransformerLM(num_tokens=V, dim=16, heads=2, dim_head=8, depth=2,
                                         max_seq_len=N, causal=True, reversible=True,
                                         use_axial_pos_emb=False, local_attn_window_size=4,
                                         emb_dim=12, attend_axially=True)
    wrapped = AutoregressiveWrapper(model)
    x = tokens(2, N + 1)
    return [("logits", model(x[:, :-1]))] + train(wrapped, lambda: wrapped(x, return_loss=True))


@variant("linformer_context")
def _():
    model = LinearAttentionTransformer(dim=16, heads=2, depth=1, max_seq_len=N, dim_head=8,
                                       linformer_settings=LinformerSettings(k=4),
                                       receives_context=True)
    x = torch.randn(2, N, 16)
    ctx = torch.randn(2, 6, 16)
    ctx_mask = torch.ones(2, 6, dtype=torch.bool)
    ctx_mask[1, 4:] = False
    y = model(x, context=ctx, context_mask=ctx_mask)
    x2 = x.clone().requires_grad_()
    (model(x2, context=ctx, context_mask=ctx_mask) ** 2).mean().backward()
    return [("out", y), ("x grad", x2.grad), ("param grads", grads(model))]


@variant("pkm")
def _():
    model = LinearAttentionTransformerLM(num_tokens=V, dim=16, heads=2, dim_head=8, depth=2,
                                         max_seq_len=N, causal=True, pkm_layers=(2,),
                                         pkm_num_keys=8, local_attn_window_size=4)
    wrapped = AutoregressiveWrapper(model)
    x = tokens(2, N + 1)
    return [("logits", model(x[:, :-1]))] + train(wrapped, lambda: wrapped(x, return_loss=True))


@variant("image_attention")
def _():
    attn = ImageLinearAttention(chan=4, heads=2, key_dim=8, value_dim=8, kernel_size=3,
                                padding=1)
    img = torch.randn(2, 4, 6, 6, requires_grad=True)
    ctx = torch.randn(2, 5, 4)
    y = attn(img)
    y2 = attn(img, context=ctx)
    (y.pow(2).sum() + y2.sum()).backward()
    return [("out", y), ("out context", y2), ("img grad", img.grad), ("param grads", grads(attn))]


@variant("local_attention")
def _():
    out = []
    q, k, v = (torch.randn(2, 2, 18, 8) for _ in range(3))
    mask = torch.ones(2, 18, dtype=torch.bool)
    mask[1, 12:] = False
    configs = {
        "causal": {"window_size": 6, "causal": True, "dim": 8},
        "causal_exact": {"window_size": 6, "causal": True, "exact_windowsize": True, "dim": 8,
                             "use_xpos": True},
        "bidir": {"window_size": 6, "causal": False, "look_backward": 1, "look_forward": 1,
                  "dim": 8},
        "bidir_exact": {"window_size": 6, "causal": False, "look_backward": 2, "look_forward": 1,
                            "exact_windowsize": True},
        "autopad": {"window_size": 4, "causal": False, "autopad": True, "shared_qk": False,
                    "dim": 8},
        "autopad_causal": {"window_size": 5, "causal": True, "autopad": True, "look_backward": 2},
    }
    for name, cfg in configs.items():
        attn = LocalAttention(**cfg)
        qq, kk, vv = (t.clone().requires_grad_() for t in (q, k, v))
        m = mask if not cfg.get("causal") else None
        if cfg.get("autopad") and not cfg.get("causal"):
            qq2, kk2, vv2 = (t[:, :, :17] for t in (qq, kk, vv))
            y = attn(qq2, kk2, vv2, mask=mask[:, :17])
        else:
            y = attn(qq, kk, vv, mask=m)
        y.pow(2).sum().backward()
        out += [(f"{name} out", y), (f"{name} dq", qq.grad), (f"{name} dk", kk.grad),
                (f"{name} dv", vv.grad)]
    shared = LocalAttention(window_size=6, causal=True, shared_qk=True)
    qk = torch.randn(2, 2, 12, 8)
    out.append(("shared_qk out", shared(qk, qk, v[:, :, :12])))
    mha = LocalMHA(dim=16, window_size=4, dim_head=8, heads=2, causal=False, prenorm=True,
                   qk_rmsnorm=True, gate_values_per_head=True)
    x = torch.randn(2, 12, 16, requires_grad=True)
    y = mha(x, mask=torch.ones(2, 12, dtype=torch.bool))
    y.sum().backward()
    out += [("mha out", y), ("mha x grad", x.grad), ("mha param grads", grads(mha))]
    return out


@variant("local_transformer")
def _():
    out = []
    # (use_dynamic_pos_bias builds its positions in float32: not usable in float64)
    for name, kw in (("plain", {}),
                     ("xpos_single_stream", {"use_xpos": True, "num_residual_streams": 1})):
        torch.manual_seed(0)
        model = LocalTransformer(num_tokens=V, max_seq_len=N, dim=16, depth=2, heads=2,
                                 dim_head=8, local_attn_window_size=4, causal=True, **kw)
        x = tokens(2, N + 1)
        out.append((f"{name} logits", model(x[:, :-1])))
        steps = train(model, lambda m=model, x=x: m(x, return_loss=True), steps=2)
        out += [(f"{name} {k}", t) for k, t in steps]
        torch.manual_seed(1)
        gen = model.generate(x[:, :4], 3)
        torch.manual_seed(1)
        gen_nc = model.generate(x[:, :4], 3, use_kv_cache=False)
        out.append((f"{name} generate", repr(gen.tolist())))
        out.append((f"{name} generate without cache same", repr(gen.tolist() == gen_nc.tolist())))
        out.append((f"{name} greedy", repr(model.generate(x[:, :4], 3, temperature=0.).tolist())))
    return out


@variant("colt5")
def _():
    from colt5_attention import (
        ConditionalRoutedAttention,
        ConditionalRoutedFeedForward,
        ConditionalRoutedTransformerBlock,
    )
    out = []
    x = torch.randn(2, 16, 16)
    mask = torch.ones(2, 16, dtype=torch.bool)
    mask[1, 12:] = False
    ff = ConditionalRoutedFeedForward(16, num_heavy_tokens=4, light_ff_mult=0.5, heavy_ff_mult=2)
    xg = x.clone().requires_grad_()
    y = ff(xg, mask=mask)
    y.pow(2).sum().backward()
    out += [("ff out", y), ("ff x grad", xg.grad), ("ff param grads", grads(ff))]
    attn = ConditionalRoutedAttention(16, num_heavy_tokens_q=4, num_heavy_tokens_kv=8,
                                      light_dim_head=8, light_heads=2, light_window_size=4,
                                      heavy_dim_head=8, heavy_heads=2)
    xg = x.clone().requires_grad_()
    y = attn(xg, mask=mask)
    y.pow(2).sum().backward()
    out += [("attn out", y), ("attn x grad", xg.grad), ("attn param grads", grads(attn))]
    block = ConditionalRoutedTransformerBlock(16, num_heavy_attn_tokens_q=4,
                                              num_heavy_attn_tokens_kv=8, num_heavy_ff_tokens=4,
                                              light_dim_head=8, light_heads=2,
                                              light_window_size=4, heavy_dim_head=8,
                                              heavy_heads=2)
    out += [("block", repr(k)) if not torch.is_tensor(k) else ("block step", k)
            for k in [t for _, t in train(block, lambda: block(x, mask=mask).pow(2).mean(),
                                          steps=2)]]
    return out


@variant("colt5_more")
def _():
    from colt5_attention import (
        ConditionalRoutedAutoregressiveAttention,
        ConditionalRoutedImageAttention,
        ConditionalRoutedViT,
        coor_descent,
        topk,
    )
    out = []
    s = torch.randn(2, 10)
    smask = torch.ones(2, 10, dtype=torch.bool)
    smask[0, 7:] = False
    out.append(("coor_descent", coor_descent(s, n_iters=10, k=3, eps=0.1, mask=smask)))
    sg = s.clone().requires_grad_()
    res = topk(sg, 3, n_iters=10, mask=smask)
    values, indices = res[0], res[1]
    (values * torch.arange(1.0, 4.0)).sum().backward()
    out += [("topk values", values), ("topk indices", repr(indices.tolist())),
            ("topk grad", sg.grad)]
    x = torch.randn(2, 16, 16)
    ar = ConditionalRoutedAutoregressiveAttention(16, num_heavy_tokens_q=2, num_heavy_tokens_kv=2,
                                                  light_dim_head=8, light_heads=2,
                                                  light_window_size=4, heavy_window_size=4,
                                                  heavy_dim_head=8, heavy_heads=2)
    xg = x.clone().requires_grad_()
    y = ar(xg)
    y.pow(2).sum().backward()
    out += [("autoregressive out", y), ("autoregressive x grad", xg.grad)]
    # (ConditionalRoutedCrossAttention is not run: CoLT5-attention 0.11.2's forward reads an
    # undefined name, should_route_queries, NameError in PyTorch too)
    img = ConditionalRoutedImageAttention(8, num_heavy_tokens_q=4, num_heavy_tokens_kv=8,
                                          light_dim_head=4, light_heads=2, light_window_size=4,
                                          heavy_dim_head=4, heavy_heads=2, channel_first=True)
    fmap = torch.randn(2, 8, 4, 4, requires_grad=True)
    y = img(fmap)
    y.sum().backward()
    out += [("image out", y), ("image grad", fmap.grad)]
    vit = ConditionalRoutedViT(image_size=8, patch_size=4, num_classes=3, dim=16, depth=1,
                               attn_num_heavy_tokens_q=2, attn_num_heavy_tokens_kv=2,
                               attn_heavy_dim_head=8, attn_heavy_heads=2,
                               attn_light_dim_head=8, attn_light_heads=2,
                               attn_light_window_size=2, ff_num_heavy_tokens=2,
                               ff_heavy_mult=2, ff_light_mult=1)
    imgs = torch.randn(2, 3, 8, 8)
    labels = torch.tensor([0, 2])
    out += train(vit, lambda: F.cross_entropy(vit(imgs), labels), steps=1)
    return out


@variant("pkm_standalone")
def _():
    from product_key_memory import PKM, fetch_optimizer_parameters
    out = []
    x = torch.randn(2, 6, 16)
    mask = torch.ones(2, 6, dtype=torch.bool)
    mask[1, 4:] = False
    # (use_layernorm=False, the batch-norm variant, fails in PyTorch too in
    # product_key_memory 0.3.0: its BatchNorm1d gets (batch, seq, dim_head) rows)
    for name, kw in (("layernorm", {}),
                     ("concat_combine", {"concat_values_and_combine": True, "norm_output": True,
                                             "pre_layernorm": True}),
                     ("non_competitive", {"non_competitive_gates": True})):
        pkm = PKM(16, heads=2, num_keys=6, topk=4, dim_head=8, **kw)
        groups = fetch_optimizer_parameters(pkm, pkm_learning_rate=1e-2)
        opt = torch.optim.Adam(groups, lr=1e-3)
        m = None if name == "non_competitive" else mask
        xg = x.clone().requires_grad_()
        y = pkm(xg, input_mask=m)
        y.pow(2).sum().backward()
        out += [(f"{name} out", y), (f"{name} x grad", xg.grad), (f"{name} grads", grads(pkm))]
        opt.step()
        with torch.no_grad():
            out.append((f"{name} after step", pkm(x, input_mask=m)))
    return out


@variant("dynamic_pos_bias_float32")
def _():
    # DynamicPositionBias builds its relative positions in float32: a float32 model
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float32)
    try:
        model = LocalTransformer(num_tokens=V, max_seq_len=N, dim=16, depth=1, heads=2,
                                 dim_head=8, local_attn_window_size=4, causal=True,
                                 use_dynamic_pos_bias=True, num_residual_streams=2)
        x = tokens(2, N + 1)
        out = [("logits", model(x[:, :-1]))]
        out += train(model, lambda: model(x, return_loss=True), steps=2)
        torch.manual_seed(1)
        out.append(("generate", repr(model.generate(x[:, :4], 2).tolist())))
    finally:
        torch.set_default_dtype(old)
    return out


def main(argv):
    names = [a for a in argv if a != "all"] or list(VARIANTS)
    for name in names:
        torch.manual_seed(0)
        t0 = time.time()
        for label, value in VARIANTS[name]():
            text = checksum(value) if torch.is_tensor(value) else value
            print(f"{name} {label} {text}", flush=True)
        print(f"# {name} {time.time() - t0:.1f}s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
