"""Driver of lucidrains/x-transformers (docs/real-programs.md): the package ``x_transformers``,
imported unchanged from the tree on PYTHONPATH, builds many transformer variants at a tiny
size (dim 32, depth 1-2, heads 2-4, sequences of 16 tokens over a vocabulary of 64, batch 2):
decoder-only language models through ``AutoregressiveWrapper`` (loss, then ``generate``
greedily, by top-k sampling and by top-p sampling), encoders with padding masks,
``CrossAttender`` on a masked context, the encoder-decoder ``XTransformer``,
``ContinuousTransformerWrapper`` through ``ContinuousAutoregressiveWrapper`` and
``ViTransformerWrapper``, across a spread of the README's attention and feedforward options.
Each trains a few Adam steps, printing every loss and gradient norm in full precision, then
runs an eval forward (and a generation) under ``no_grad``, printing checksums.

    python scripts/shared_rng_run.py drive_xt.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_xt.py [VARIANT ... | all]   # jtorch

Without arguments it runs the variants of ``DEFAULT``; ``all`` runs every registered one.
Each variant reseeds (``torch.manual_seed``), so a subset prints what the full run prints for
it. ``XT_FLOAT64=1`` runs everything in float64 (to tell float32 rounding from a bug).
"""

import math
import os
import sys
import time
import traceback

import torch
import torch.nn.functional as F

# run in place, this file's folder would shadow the package it drives (same name)
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

B, N, V, DIM, STEPS = 2, 16, 64, 32, 3

VARIANTS = {}


def variant(name, kind):
    """Register ``build(xt) -> model`` (or ``(model, forward_kwargs)``). ``kind``: "ar" a
    TransformerWrapper decoder trained and sampled through AutoregressiveWrapper; "lm" a
    TransformerWrapper called with a padding mask, cross-entropy on random targets; "cross"
    a CrossAttender (or Encoder/Decoder with cross_attend) on a masked context, MSE; "xt" an
    XTransformer; "cont" a ContinuousTransformerWrapper through
    ContinuousAutoregressiveWrapper; "vit" a ViTransformerWrapper classifier."""
    def register(build):
        VARIANTS[name] = (build, kind)
        return build
    return register


def decoder_lm(xt, depth=2, heads=4, wrapper=None, **layer_kw):
    return xt.TransformerWrapper(num_tokens=V, max_seq_len=N, **(wrapper or {}),
                                 attn_layers=xt.Decoder(dim=DIM, depth=depth, heads=heads,
                                                        **layer_kw))


def encoder_lm(xt, depth=2, heads=4, wrapper=None, **layer_kw):
    wrapper = {"num_tokens": V, **(wrapper or {})}
    return xt.TransformerWrapper(max_seq_len=N, **wrapper,
                                 attn_layers=xt.Encoder(dim=DIM, depth=depth, heads=heads,
                                                        **layer_kw))


# decoder-only language models (AutoregressiveWrapper: loss and generate)

@variant("decoder", "ar")
def _(xt):
    return decoder_lm(xt)


@variant("decoder_rotary", "ar")
def _(xt):
    return decoder_lm(xt, rotary_pos_emb=True, wrapper={"use_abs_pos_emb": False})


@variant("decoder_rotary_xpos", "ar")
def _(xt):
    return decoder_lm(xt, rotary_xpos=True, wrapper={"use_abs_pos_emb": False})


@variant("decoder_alibi", "ar")
def _(xt):
    return decoder_lm(xt, alibi_pos_bias=True, alibi_num_heads=2,
                      wrapper={"use_abs_pos_emb": False})


@variant("decoder_rel_pos_bias", "ar")
def _(xt):
    return decoder_lm(xt, rel_pos_bias=True, rel_pos_num_buckets=8,
                      rel_pos_max_distance=16)


@variant("decoder_dynamic_pos_bias", "ar")
def _(xt):
    return decoder_lm(xt, dynamic_pos_bias=True, dynamic_pos_bias_log_distance=False)


@variant("decoder_flash", "ar")
def _(xt):  # F.scaled_dot_product_attention
    return decoder_lm(xt, attn_flash=True, rotary_pos_emb=True)


@variant("decoder_flash_alibi", "ar")
def _(xt):  # F.scaled_dot_product_attention with a float bias
    return decoder_lm(xt, attn_flash=True, alibi_pos_bias=True,
                      wrapper={"use_abs_pos_emb": False})


@variant("decoder_ff_glu", "ar")
def _(xt):
    return decoder_lm(xt, ff_glu=True, ff_swish=True, ff_no_bias=True)


@variant("decoder_ff_relu_squared", "ar")
def _(xt):
    return decoder_lm(xt, ff_relu_squared=True, ff_post_act_ln=True)


@variant("decoder_sandwich_norm", "ar")
def _(xt):
    return decoder_lm(xt, sandwich_norm=True)


@variant("decoder_rmsnorm", "ar")
def _(xt):
    return decoder_lm(xt, use_rmsnorm=True)


@variant("decoder_scalenorm", "ar")
def _(xt):
    return decoder_lm(xt, use_scalenorm=True)


@variant("decoder_simple_rmsnorm", "ar")
def _(xt):
    return decoder_lm(xt, use_simple_rmsnorm=True)


@variant("decoder_post_norm", "ar")
def _(xt):
    return decoder_lm(xt, pre_norm=False, residual_attn=True)


@variant("decoder_residual_attn", "ar")
def _(xt):
    return decoder_lm(xt, residual_attn=True)


@variant("decoder_gate_residual", "ar")
def _(xt):
    return decoder_lm(xt, gate_residual=True)


@variant("decoder_scale_residual", "ar")
def _(xt):
    return decoder_lm(xt, scale_residual=True, use_layerscale=True, layerscale_init_value=0.1)


@variant("decoder_mem_kv", "ar")
def _(xt):
    return decoder_lm(xt, attn_num_mem_kv=4)


@variant("decoder_memory_tokens", "ar")
def _(xt):
    return decoder_lm(xt, wrapper={"num_memory_tokens": 3})


@variant("decoder_shift_tokens", "ar")
def _(xt):
    return decoder_lm(xt, shift_tokens=1)


@variant("decoder_talking_heads", "ar")
def _(xt):
    return decoder_lm(xt, attn_pre_talking_heads=True, attn_post_talking_heads=True)


@variant("decoder_qk_norm", "ar")
def _(xt):
    return decoder_lm(xt, attn_qk_norm=True, attn_qk_norm_dim_scale=True)


@variant("decoder_qk_norm_groups", "ar")
def _(xt):
    return decoder_lm(xt, attn_qk_norm=True, attn_qk_norm_groups=2, attn_qk_norm_scale=8)


@variant("decoder_macaron", "ar")
def _(xt):
    return decoder_lm(xt, macaron=True)


@variant("decoder_gqa", "ar")
def _(xt):
    return decoder_lm(xt, attn_kv_heads=2, rotary_pos_emb=True)


@variant("decoder_one_kv_head_flash", "ar")
def _(xt):
    return decoder_lm(xt, attn_one_kv_head=True, attn_flash=True)


@variant("decoder_sparse_topk", "ar")
def _(xt):
    return decoder_lm(xt, attn_sparse_topk=4)


@variant("decoder_head_scale_on_attn", "ar")
def _(xt):
    return decoder_lm(xt, attn_head_scale=True, attn_on_attn=True)


@variant("decoder_gate_values", "ar")
def _(xt):
    return decoder_lm(xt, attn_gate_values=True, attn_zero_init_output=False)


@variant("decoder_value_residual", "ar")
def _(xt):
    return decoder_lm(xt, add_value_residual=True)


@variant("decoder_mask_prob", "ar")
def _(xt):  # AutoregressiveWrapper(mask_prob=...) called with lens
    return decoder_lm(xt, rotary_pos_emb=True)


@variant("decoder_dropout", "ar")
def _(xt):  # nn.Dropout in attention (not flash), feedforward and embedding
    return decoder_lm(xt, attn_dropout=0.1, ff_dropout=0.1, layer_dropout=0.0,
                      wrapper={"emb_dropout": 0.1})


@variant("decoder_tied_embedding", "ar")
def _(xt):
    return decoder_lm(xt, wrapper={"tie_embedding": True, "l2norm_embed": True})


@variant("decoder_scaled_sinu", "ar")
def _(xt):
    return decoder_lm(xt, wrapper={"scaled_sinu_pos_emb": True, "post_emb_norm": True})


@variant("decoder_softclamp", "ar")
def _(xt):
    return decoder_lm(xt, attn_softclamp_logits=True, attn_logit_softclamp_value=5.0,
                      softclamp_output=True)


@variant("decoder_sigmoid_attn", "ar")
def _(xt):
    return decoder_lm(xt, attn_sigmoid=True)


@variant("decoder_hyper_connections", "ar")
def _(xt):
    return decoder_lm(xt, num_residual_streams=2)


@variant("decoder_weight_tie_layers", "ar")
def _(xt):
    return decoder_lm(xt, depth=2, weight_tie_layers=True)


@variant("decoder_unet_skips", "ar")
def _(xt):
    return decoder_lm(xt, depth=4, unet_skips=True)


# encoders with a padding mask

@variant("encoder_masked", "lm")
def _(xt):
    return encoder_lm(xt)


@variant("encoder_rel_pos_bias", "lm")
def _(xt):
    return encoder_lm(xt, rel_pos_bias=True, rel_pos_num_buckets=8, rel_pos_max_distance=16)


@variant("encoder_flash", "lm")
def _(xt):  # F.scaled_dot_product_attention with a boolean mask
    return encoder_lm(xt, attn_flash=True)


@variant("encoder_mem_kv_cls", "lm")
def _(xt):
    return encoder_lm(xt, attn_num_mem_kv=2, wrapper={"num_memory_tokens": 2})


@variant("decoder_masked_rotary", "lm")
def _(xt):
    return decoder_lm(xt, rotary_pos_emb=True)


# cross-attention

@variant("cross_attender", "cross")
def _(xt):
    return xt.CrossAttender(dim=DIM, depth=2, heads=2)


@variant("cross_attender_flash", "cross")
def _(xt):
    return xt.CrossAttender(dim=DIM, depth=1, heads=2, attn_flash=True)


@variant("encoder_cross_attend", "cross")
def _(xt):
    return xt.Encoder(dim=DIM, depth=2, heads=2, cross_attend=True, cross_attn_dim_context=24,
                      ff_glu=True)


@variant("xtransformer", "xt")
def _(xt):
    return xt.XTransformer(dim=DIM, enc_num_tokens=V, enc_depth=1, enc_heads=2,
                           enc_max_seq_len=N, dec_num_tokens=V, dec_depth=2, dec_heads=2,
                           dec_max_seq_len=N, tie_token_emb=True)


@variant("xtransformer_rotary", "xt")
def _(xt):
    return xt.XTransformer(dim=DIM, enc_num_tokens=V, enc_depth=1, enc_heads=2,
                           enc_max_seq_len=N, enc_rotary_pos_emb=True, dec_num_tokens=V,
                           dec_depth=1, dec_heads=2, dec_max_seq_len=N,
                           dec_rotary_pos_emb=True, dec_attn_flash=True)


# continuous inputs

@variant("continuous", "cont")
def _(xt):
    return xt.ContinuousTransformerWrapper(
        dim_in=8, dim_out=8, max_seq_len=N,
        attn_layers=xt.Decoder(dim=DIM, depth=2, heads=2, rotary_pos_emb=True))


@variant("continuous_memory_tokens", "cont")
def _(xt):
    return xt.ContinuousTransformerWrapper(
        dim_in=8, dim_out=8, max_seq_len=N, num_memory_tokens=2, post_emb_norm=True,
        attn_layers=xt.Decoder(dim=DIM, depth=1, heads=2, use_rmsnorm=True))


@variant("vit", "vit")
def _(xt):
    return xt.ViTransformerWrapper(image_size=16, patch_size=4, num_classes=10,
                                   attn_layers=xt.Encoder(dim=DIM, depth=1, heads=2))


# more of the README's options, in "all" only
DEFAULT_COUNT = len(VARIANTS)


@variant("decoder_cope", "ar")
def _(xt):
    return decoder_lm(xt, attn_use_cope=True, attn_cope_max_pos=8,
                      wrapper={"use_abs_pos_emb": False})


@variant("decoder_data_dependent_alibi", "ar")
def _(xt):
    return decoder_lm(xt, attn_data_dependent_alibi=True, wrapper={"use_abs_pos_emb": False})


@variant("decoder_polar_pos_emb", "ar")
def _(xt):
    return decoder_lm(xt, polar_pos_emb=True, wrapper={"use_abs_pos_emb": False})


@variant("decoder_l2_distance", "ar")
def _(xt):
    return decoder_lm(xt, attn_l2_distance=True)


@variant("decoder_dynamic_tanh", "ar")
def _(xt):
    return decoder_lm(xt, use_dynamic_tanh=True)


@variant("decoder_zero_kv_sink", "ar")
def _(xt):
    return decoder_lm(xt, attn_add_zero_kv=True, attn_head_learned_sink=True)


@variant("decoder_laser", "ar")
def _(xt):
    return decoder_lm(xt, attn_laser=True)


@variant("decoder_value_gates", "ar")
def _(xt):
    return decoder_lm(xt, attn_gate_value_heads=True, attn_value_rmsnorm=True,
                      attn_swiglu_values=True)


@variant("decoder_ff_post_act_ln_no_bias", "ar")
def _(xt):
    return decoder_lm(xt, ff_post_act_ln=True, ff_mult=2, ff_no_bias=True,
                      pre_and_post_norm=True)


@variant("decoder_layer_dropout", "ar")
def _(xt):  # drops layers by Python's random (reseeded by manual_seed in the wrapper)
    return decoder_lm(xt, depth=3, layer_dropout=0.5)


@variant("decoder_integrate_layers", "ar")
def _(xt):
    return decoder_lm(xt, integrate_layers=True)


@variant("decoder_beam_search", "beam")
def _(xt):
    return decoder_lm(xt, rotary_pos_emb=True)


@variant("nonautoregressive", "nar")
def _(xt):
    return encoder_lm(xt, wrapper={"num_tokens": V + 1})


def grad_norms(model):
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    total = math.sqrt(sum(float(g.double().pow(2).sum()) for g in grads))
    return total, len(grads)


def tokens(b=B, n=N):
    return torch.randint(0, V, (b, n))


def padding_mask(b=B, n=N):
    lens = torch.tensor([n, n - 5][:b])
    return torch.arange(n)[None, :] < lens[:, None]


def show(x):
    return " ".join(str(v) for v in x.flatten().tolist())


def checksum(name, what, out):
    """Sums without cancellation (a normalised output sums to about 0, where float32 rounding
    is all that is left)."""
    out = out.double()
    print(f"{name} {what} abs sum {out.abs().sum().item()!r} square sum "
          f"{out.pow(2).sum().item()!r} max {out.max().item()!r} shape {list(out.shape)}")


def run(name, xt):
    build, kind = VARIANTS[name]
    torch.manual_seed(0)
    model = build(xt)
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"== {name} ({type(model).__name__}, {n_params} parameters)")
    if kind == "nar":
        model = xt.NonAutoregressiveWrapper(model, mask_id=V, steps=4)
    if kind in ("ar", "beam"):
        mask_prob = 0.25 if name == "decoder_mask_prob" else 0.0
        model = xt.AutoregressiveWrapper(model, mask_prob=mask_prob)
    elif kind == "cont":
        model = xt.ContinuousAutoregressiveWrapper(model)
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    model.train()
    dtype = torch.get_default_dtype()
    for step in range(STEPS):
        if kind == "nar":
            loss = model(tokens()).loss
        elif kind in ("ar", "beam"):
            extra = {"lens": torch.tensor([N, N - 4])} if name == "decoder_mask_prob" else {}
            loss = model(tokens(), **extra)
        elif kind == "lm":
            x, mask = tokens(), padding_mask()
            logits = model(x, mask=mask)
            loss = F.cross_entropy(logits[mask], tokens()[mask])
        elif kind == "cross":
            x = torch.randn(B, N, DIM)
            dim_ctx = 24 if name == "encoder_cross_attend" else DIM
            ctx, ctx_mask = torch.randn(B, 12, dim_ctx), padding_mask(n=12)
            out = model(x, context=ctx, context_mask=ctx_mask)
            loss = F.mse_loss(out, torch.randn(B, N, DIM))
        elif kind == "xt":
            src, tgt = tokens(), tokens(n=N)
            loss = model(src, tgt, mask=padding_mask())
        elif kind == "cont":
            x = torch.randn(B, N, 8)
            loss = model(x, mask=padding_mask())
        elif kind == "vit":
            logits = model(torch.randn(B, 3, 16, 16))
            loss = F.cross_entropy(logits, torch.randint(0, 10, (B,)))
        opt.zero_grad()
        loss.backward()
        total, count = grad_norms(model)
        opt.step()
        print(f"{name} step {step} loss {loss.item()!r} grad norm {total!r} ({count} grads)")
    model.eval()
    with torch.no_grad():
        if kind == "ar":
            x = tokens()
            checksum(name, "eval logits", model.net(x))
            prompt = tokens(n=4)
            print(f"{name} greedy {show(model.generate(prompt, 8, temperature=0.0))}")
            print(f"{name} top_k {show(model.generate(prompt, 8, filter_kwargs={'k': 5}))}")
            top_p = model.generate(prompt, 6, filter_logits_fn="top_p", cache_kv=False)
            print(f"{name} top_p {show(top_p)}")
        elif kind == "beam":
            prompt = tokens(n=4)
            beams, scores = model.beam_search(prompt, 6, beams=3, return_beams_and_scores=True)
            print(f"{name} beams {show(beams)}")
            checksum(name, "beam scores", scores)
            sampled = model.beam_search(prompt, 6, beams=3, stochastic=True)
            print(f"{name} stochastic beams {show(sampled)}")
        elif kind == "nar":
            print(f"{name} generated {show(model.generate(batch_size=B))}")
        elif kind == "lm":
            x, mask = tokens(), padding_mask()
            checksum(name, "eval logits", model(x, mask=mask)[mask])
        elif kind == "cross":
            x = torch.randn(B, N, DIM)
            dim_ctx = 24 if name == "encoder_cross_attend" else DIM
            ctx, ctx_mask = torch.randn(B, 12, dim_ctx), padding_mask(n=12)
            checksum(name, "eval out", model(x, context=ctx, context_mask=ctx_mask))
        elif kind == "xt":
            src, mask = tokens(), padding_mask()
            start = torch.zeros(B, 1, dtype=torch.long)
            greedy = model.generate(src, start, 8, mask=mask, temperature=0.0)
            print(f"{name} greedy {show(greedy)}")
            top_k = model.generate(src, start, 8, mask=mask, filter_kwargs={"k": 5})
            print(f"{name} top_k {show(top_k)}")
        elif kind == "cont":
            x = torch.randn(B, N, 8)
            checksum(name, "eval out", model.net(x, mask=padding_mask()))
            # with memory tokens its kv cache fails in PyTorch too (an unpack of the cache)
            cache_kv = name != "continuous_memory_tokens"
            checksum(name, "generated", model.generate(x[:, :4], 6, cache_kv=cache_kv))
        elif kind == "vit":
            checksum(name, "eval logits", model(torch.randn(B, 3, 16, 16)))
    assert torch.get_default_dtype() == dtype


# run when no variant is named; "all" runs every registered variant
DEFAULT = tuple(VARIANTS)[:DEFAULT_COUNT]


def main(argv):
    if os.environ.get("XT_FLOAT64"):  # to tell float32 rounding from a real difference
        torch.set_default_dtype(torch.float64)
    import x_transformers as xt
    names = list(VARIANTS) if argv == ["all"] else argv or list(DEFAULT)
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        try:
            run(name, xt)
        except Exception as e:  # noqa: BLE001 - report and go on with the next variant
            traceback.print_exc()
            print(f"{name} failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
