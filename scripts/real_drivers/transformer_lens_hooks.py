"""Driver of TransformerLens (docs/real-programs.md): the installed package (4.3), unchanged, on
tiny randomly initialised models built from configs, tokenizer-free and offline (integer token
tensors): ``TransformerBridge.boot_native`` models (TransformerLens 4's HookedTransformer: LN,
LNPre, RMS, RMSPre; standard and rotary positions; attn-only; gated MLPs; grouped-query
attention; soft caps; several activations), bridges around tiny Hugging Face models
(``build_bridge_from_module``: GPT-2, LLaMA, BERT, GPT-NeoX, Gemma 2, Qwen2, Mistral, Phi, OPT,
BLOOM, GPT-J, GPT-Neo, OLMo 2, Mixtral, Mamba), ``run_with_cache`` and ``ActivationCache``
(residual decompositions, logit attribution, head and neuron results, ``apply_ln_to_stack``),
``run_with_hooks``/``add_hook``/``hooks()`` with forward and backward hooks, activation
patching (``transformer_lens.patching``), ``generate`` (greedy and sampling), ``loss_fn``,
training (``transformer_lens.tools.training.train`` and a manual Adam loop),
``enable_compatibility_mode`` (folded LayerNorms, centred weights), ``FactoredMatrix`` (OV and QK
circuits: SVD, eigenvalues, norms), composition scores, the head detector, ``SVDInterpreter``,
``HookedRootModule``/``HookPoint`` on a module of one's own, attention masks, a state_dict
round trip, per-head results, bfloat16, and ``utilities``. Every result is
printed as a checksum (sums and largest magnitude) at full precision, with gradients.

    python scripts/shared_rng_run.py drive_tl.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_tl.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``), so a subset prints what the full run prints for it. ``TL_FLOAT64=1``
runs everything in float64 (to tell float32 rounding from a bug).
"""

import logging
import os
import sys
import time
import warnings

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import transformer_lens  # noqa: E402
import transformer_lens.model_bridge.sources.native  # noqa: E402,F401  # boot_native
from transformer_lens import (  # noqa: E402
    ActivationCache,
    FactoredMatrix,
    HookedRootModule,
    TransformerBridge,
    TransformerBridgeConfig,
    patching,
    utilities,
)
from transformer_lens.hook_points import HookPoint  # noqa: E402

logging.disable(logging.WARNING)
warnings.filterwarnings("ignore")

V, CTX, B, T = 50, 16, 2, 10

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements, so
    that values summing to zero by construction give no cancellation noise) and the largest
    magnitude, in float64."""
    t = t.detach()
    if t.is_complex():
        t = torch.view_as_real(t)
    t = t.double().flatten()
    if t.numel() == 0:
        return "empty"
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def grads(model):
    """A checksum of every parameter's gradient, together (the parameter order is the
    model's)."""
    gs = [p.grad.flatten() for p in model.parameters() if p.grad is not None]
    return torch.cat(gs) if gs else torch.zeros(0)


def config(**kw):
    base = {"d_model": 32, "d_head": 8, "n_layers": 2, "n_ctx": CTX, "n_heads": 4, "d_mlp": 64,
            "d_vocab": V, "act_fn": "gelu", "normalization_type": "LN", "seed": 0,
            "dtype": torch.get_default_dtype()}
    return TransformerBridgeConfig(**{**base, **kw})


def native(**kw):
    model = TransformerBridge.boot_native(config(**kw))
    model.eval()
    return model


def tokens(batch=B, length=T):
    return torch.randint(0, V, (batch, length))


CONFIGS = {
    "ln_gelu": {},
    "lnpre_relu_rotary": {"normalization_type": "LNPre", "act_fn": "relu",
                          "positional_embedding_type": "rotary", "rotary_dim": 8},
    "rms_silu_gated_gqa": {"normalization_type": "RMS", "act_fn": "silu", "gated_mlp": True,
                           "n_key_value_heads": 2, "positional_embedding_type": "rotary",
                           "rotary_dim": 4},
    "attn_only": {"attn_only": True, "n_layers": 3},
    "rmspre_gelu_new_final_rms": {"normalization_type": "RMSPre", "act_fn": "gelu_new",
                                  "final_rms": True},
    "solu_ln": {"act_fn": "solu_ln"},
    "softcap": {"act_fn": "gelu_new", "attn_scores_soft_cap": 5.0, "output_logits_soft_cap": 3.0},
    "no_norm": {"normalization_type": None, "act_fn": "relu"},
}


@variant("configs")
def _():
    out = []
    for name, kw in CONFIGS.items():
        model = native(**kw)
        toks = tokens()
        n = sum(p.numel() for p in model.parameters())
        logits = model(toks)
        loss = model(toks, return_type="loss")
        per_token = model.loss_fn(logits, toks, per_token=True)
        loss.backward()
        out += [(f"{name} params {n} logits", logits), (f"{name} loss", f"{loss.item()!r}"),
                (f"{name} per_token", per_token), (f"{name} grads", grads(model))]
    return out


@variant("cache")
def _():
    model = native()
    toks = tokens()
    logits, cache = model.run_with_cache(toks)
    out = [("logits", logits), ("n_keys", str(len(cache.keys())))]
    for key in ("hook_embed", "hook_pos_embed", "blocks.0.attn.hook_pattern",
                "blocks.1.attn.hook_attn_scores", "blocks.0.ln1.hook_scale",
                "blocks.1.mlp.hook_post", "blocks.1.hook_resid_post", "ln_final.hook_normalized"):
        out.append((key, cache[key]))
    acc, labels = cache.accumulated_resid(incl_mid=True, return_labels=True)
    out += [("accumulated_resid " + " ".join(labels), acc),
            ("accumulated_resid_ln", cache.accumulated_resid(apply_ln=True, pos_slice=-1)),
            ("accumulated_resid_l1", cache.accumulated_resid(layer=1, mlp_input=True))]
    dec, labels = cache.decompose_resid(return_labels=True)
    out += [("decompose_resid " + " ".join(labels), dec),
            ("decompose_resid_mlp_ln", cache.decompose_resid(mode="mlp", apply_ln=True,
                                                             pos_slice=-1)),
            ("decompose_resid_attn_l1", cache.decompose_resid(layer=1, mode="attn"))]
    heads, labels = cache.stack_head_results(return_labels=True, incl_remainder=True)
    out += [("stack_head_results " + " ".join(labels), heads),
            ("stack_head_results_ln", cache.stack_head_results(layer=1, apply_ln=True,
                                                               pos_slice=-1))]
    neurons = cache.stack_neuron_results(1, pos_slice=-1, neuron_slice=(0, 8))
    out += [("stack_neuron_results", neurons),
            ("get_neuron_results", cache.get_neuron_results(0, neuron_slice=[1, 3, 5]))]
    stack = cache.decompose_resid(pos_slice=-1)
    out.append(("apply_ln_to_stack", cache.apply_ln_to_stack(stack, pos_slice=-1)))
    full, labels = cache.get_full_resid_decomposition(return_labels=True, expand_neurons=False)
    out.append((f"full_resid_decomposition {len(labels)} labels", full))
    answer = toks[:, -1]
    wrong = (answer + 1) % V
    out += [("logit_attrs", cache.logit_attrs(stack, answer, pos_slice=-1)),
            ("logit_attrs_diff", cache.logit_attrs(stack, answer, incorrect_tokens=wrong,
                                                   pos_slice=-1))]
    small = cache.apply_slice_to_batch_dim(0)
    out.append(("sliced resid_post", small["blocks.0.hook_resid_post"]))
    return out


@variant("cache_grad")
def _():
    model = native(normalization_type="RMS", positional_embedding_type="rotary", rotary_dim=8)
    toks = tokens()
    logits, cache = model.run_with_cache(toks, names_filter=lambda n: "resid" in n
                                         or "pattern" in n, incl_bwd=False)
    out = [("filtered keys " + " ".join(sorted(cache.keys())), logits)]
    # gradients through the cache: a run with autodiff kept on
    logits, cache = model.run_with_cache(toks, return_cache_object=True)
    cache.toggle_autodiff(True) if hasattr(cache, "toggle_autodiff") else None
    loss = model.loss_fn(logits, toks)
    loss.backward()
    out += [("loss", f"{loss.item()!r}"), ("grads", grads(model))]
    return out


@variant("hooks")
def _():
    model = native()
    toks = tokens()
    out = []

    def zero_head(z, hook):
        z[:, :, 1] = 0.0
        return z

    def scale_mlp(post, hook):
        return post * 0.5

    logits = model.run_with_hooks(toks, fwd_hooks=[
        ("blocks.0.attn.hook_z", zero_head),
        (lambda n: n.endswith("mlp.hook_post"), scale_mlp)])
    out.append(("run_with_hooks", logits))
    store = {}

    def saver(key):
        def save(value, hook):
            store[key] = value.detach().clone()
        return save

    model.add_hook("blocks.1.hook_resid_pre", saver("bwd"), dir="bwd")
    model.add_hook("blocks.0.attn.hook_pattern", saver("fwd"))
    loss = model(toks, return_type="loss")
    loss.backward()
    model.reset_hooks()
    out += [("loss", f"{loss.item()!r}"), ("bwd resid_pre grad", store["bwd"]),
            ("fwd pattern", store["fwd"]), ("grads", grads(model))]
    model.zero_grad()
    with model.hooks(fwd_hooks=[("blocks.1.hook_mlp_out", lambda a, hook: a * 0)],
                     bwd_hooks=[("blocks.0.hook_resid_post", saver("ctx"))]):
        loss = model(toks, return_type="loss")
        loss.backward()
    out += [("hooks() loss", f"{loss.item()!r}"), ("hooks() bwd", store["ctx"])]
    after = model(toks, return_type="loss")
    out.append(("after hooks loss", f"{after.item()!r}"))
    loss, cache = model.run_with_cache(toks, incl_bwd=True, return_type="loss",
                                       names_filter=lambda n: n.endswith("hook_resid_pre"))
    out += [(f"incl_bwd {key}", cache[key]) for key in sorted(cache.keys())]
    return out


@variant("patching")
def _():
    model = native(n_layers=2)
    clean = tokens()
    corrupted = clean.clone()
    corrupted[:, 3] = (corrupted[:, 3] + 7) % V
    answer, wrong = clean[:, -1], (clean[:, -1] + 1) % V
    clean_logits, clean_cache = model.run_with_cache(clean)

    def metric(logits):
        last = logits[:, -1]
        return (last.gather(-1, answer[:, None]) - last.gather(-1, wrong[:, None])).mean()

    out = [("clean metric", f"{metric(clean_logits).item()!r}")]
    for name in ("get_act_patch_resid_pre", "get_act_patch_resid_mid", "get_act_patch_attn_out",
                 "get_act_patch_mlp_out", "get_act_patch_attn_head_out_all_pos",
                 "get_act_patch_attn_head_v_all_pos", "get_act_patch_attn_head_pattern_all_pos",
                 "get_act_patch_attn_head_out_by_pos", "get_act_patch_block_every",
                 "get_act_patch_attn_head_all_pos_every"):
        fn = getattr(patching, name)
        out.append((name, fn(model, corrupted, clean_cache, metric)))
    return out


@variant("generate")
def _():
    model = native()
    prompt = tokens(2, 4)
    out = []
    for label, kw in (("greedy", {"do_sample": False}),
                      ("greedy_nocache", {"do_sample": False, "use_past_kv_cache": False}),
                      ("sample", {"do_sample": True}),
                      ("top_k", {"do_sample": True, "top_k": 5, "temperature": 0.7}),
                      ("top_p", {"do_sample": True, "top_p": 0.8}),
                      ("penalties", {"do_sample": True, "freq_penalty": 1.0,
                                     "repetition_penalty": 1.3})):
        torch.manual_seed(1)
        gen = model.generate(prompt, max_new_tokens=6, stop_at_eos=False, verbose=False, **kw)
        out.append((label, " ".join(str(x) for x in gen.flatten().tolist())))
    torch.manual_seed(2)
    s = utilities.sample_logits(torch.randn(3, V), top_k=10, temperature=0.5)
    out.append(("sample_logits", " ".join(str(x) for x in s.tolist())))
    return out


class TokenDataset(torch.utils.data.Dataset):
    def __init__(self, toks):
        self.toks = toks

    def __len__(self):
        return len(self.toks)

    def __getitem__(self, i):
        return {"tokens": self.toks[i]}


@variant("train")
def _():
    from transformer_lens.tools.training import TrainConfig, train
    out = []
    data = TokenDataset(tokens(16, 12))
    for label, kw in (("adam", {"optimizer_name": "Adam", "lr": 1e-2}),
                      ("adamw_warmup_clip", {"optimizer_name": "AdamW", "lr": 1e-2,
                                             "weight_decay": 0.1, "warmup_steps": 2,
                                             "max_grad_norm": 0.5}),
                      ("sgd", {"optimizer_name": "SGD", "lr": 0.1, "momentum": 0.9})):
        model = native(positional_embedding_type="rotary", rotary_dim=8)
        cfg = TrainConfig(num_epochs=2, batch_size=4, print_every=1, device="cpu", **kw)
        train(model, cfg, data)
        model.eval()
        out.append((f"{label} trained loss", f"{model(data.toks, return_type='loss').item()!r}"))
        out.append((f"{label} params", torch.cat([p.detach().flatten()
                                                   for p in model.parameters()])))
    # a manual Adam loop on an attn-only model, through per-token losses
    model = native(attn_only=True, normalization_type="LNPre")
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    for step in range(5):
        toks = tokens(4, 12)
        logits = model(toks)
        loss = utilities.lm_cross_entropy_loss(logits, toks, per_token=True).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append((f"manual step {step}", f"loss {loss.item()!r}"))
    # without the key biases: their true gradient is zero (softmax ignores a bias added to every
    # key), so Adam moves them by the float rounding of their gradients (noise in both)
    out.append(("manual params but key biases", torch.cat([
        p.detach().flatten() for n, p in model.named_parameters()
        if not n.endswith("k._original_component.bias")])))
    return out


@variant("compat")
def _():
    out = []
    for name in ("ln_gelu", "rms_silu_gated_gqa", "attn_only"):
        model = native(**CONFIGS[name])
        toks = tokens()
        before = model(toks)
        model.enable_compatibility_mode(disable_warnings=True,
                                        refactor_factored_attn_matrices=name == "ln_gelu")
        after = model(toks)
        out += [(f"{name} before", before), (f"{name} after", after),
                (f"{name} log_softmax change", (after.log_softmax(-1)
                                                 - before.log_softmax(-1)).abs().max())]
        logits, cache = model.run_with_cache(toks)
        out.append((f"{name} W_E", model.W_E))
        out.append((f"{name} W_U", model.W_U))
        out.append((f"{name} W_Q", model.W_Q))
        out.append((f"{name} W_O", model.W_O))
        dec = cache.decompose_resid(apply_ln=True, pos_slice=-1)
        out.append((f"{name} decompose_resid_ln", dec))
        out.append((f"{name} logit lens", cache.logit_attrs(dec, toks[:, -1], pos_slice=-1)))
    return out


@variant("factored")
def _():
    model = native()
    out = []
    ov, qk = model.OV, model.QK
    out += [("OV AB", ov.AB), ("QK AB", qk.AB), ("OV norm", ov.norm()),
            ("QK norm", qk.norm())]
    u, s, vh = ov.svd()
    out += [("OV S", s), ("OV |U|", u.abs()), ("OV |Vh|", vh.abs())]
    ev = ov.eigenvalues
    out.append(("OV eig |.|", ev.abs().sort(-1).values))
    out.append(("QK corner", qk.get_corner(3)))
    torch.manual_seed(3)
    a, b = torch.randn(3, 6, 4), torch.randn(3, 4, 5)
    fm = FactoredMatrix(a, b)
    c = torch.randn(5, 7)
    out += [("fm @ c", (fm @ c).AB), ("c.T @ fm.T", (c.T @ fm.T).AB),
            ("fm.T", fm.T.AB), ("fm S", fm.S),
            # the SVD's singular vectors are unique up to sign: magnitudes
            ("fm |collapse_l|", fm.collapse_l().abs()), ("fm |collapse_r|", fm.collapse_r().abs()),
            ("fm make_even", fm.make_even().AB), ("fm pair", fm.pair[0]),
            ("fm[1]", fm[1].AB), ("fm norm", fm.norm()), ("fm unsqueeze", fm.unsqueeze(0).AB)]
    sq = FactoredMatrix(torch.randn(6, 3), torch.randn(3, 6))
    out += [("square eig |.|", sq.eigenvalues.abs().sort().values), ("square BA", sq.BA)]
    # a gradient through the factored norm and singular values
    a = torch.randn(6, 4, requires_grad=True)
    b = torch.randn(4, 5, requires_grad=True)
    f = FactoredMatrix(a, b)
    (f.norm() + f.S.sum()).backward()
    out += [("fm grad a", a.grad), ("fm grad b", b.grad)]
    scores = model.all_composition_scores("Q")
    out.append(("composition Q", scores if torch.is_tensor(scores) else scores.scores))
    for mode in ("K", "V"):
        scores = model.all_composition_scores(mode)
        out.append((f"composition {mode}",
                    scores if torch.is_tensor(scores) else scores.scores))
    out.append(("composition_scores fn", utilities.composition_scores(fm[0], fm[1].T)))
    return out


@variant("analysis")
def _():
    from transformer_lens import head_detector as hd
    from transformer_lens.SVDInterpreter import SVDInterpreter
    model = native()
    toks = tokens(1, 6).repeat(1, 2)  # a repeated sequence: induction and duplicate heads
    _, cache = model.run_with_cache(toks)
    out = []
    for kind in ("previous_token", "duplicate_token", "induction"):
        pattern = getattr(hd, f"get_{kind}_head_detection_pattern")(toks.cpu())
        for measure in ("mul", "abs"):
            scores = [hd.compute_head_attention_similarity_score(
                cache["pattern", layer][0, head], pattern, exclude_bos=False,
                exclude_current_token=measure == "abs", error_measure=measure)
                for layer in range(2) for head in range(4)]
            out.append((f"{kind} {measure}", torch.tensor(scores, dtype=torch.float64)))
    interp = SVDInterpreter(model)
    for kind in ("OV", "w_in", "w_out"):
        vecs = interp.get_singular_vectors(kind, layer_index=1, head_index=2, num_vectors=3)
        out.append((f"svd {kind} |.|", vecs.abs()))
    out.append(("accumulated_bias", model.accumulated_bias(1, mlp_input=True)))
    out.append(("tokens_to_residual_directions", model.tokens_to_residual_directions(
        torch.tensor([1, 2, 3]))))
    return out


class TinyHooked(HookedRootModule):
    """A module of one's own with HookPoints."""

    def __init__(self):
        super().__init__()
        self.lin1 = torch.nn.Linear(6, 8)
        self.lin2 = torch.nn.Linear(8, 3)
        self.hook_pre = HookPoint()
        self.hook_mid = HookPoint()
        self.hook_out = HookPoint()
        self.setup()

    def forward(self, x, reduce=False):
        h = self.hook_mid(torch.tanh(self.lin1(self.hook_pre(x))))
        y = self.hook_out(self.lin2(h))
        return y.pow(2).mean() if reduce else y


@variant("hooked_root")
def _():
    model = TinyHooked()
    x = torch.randn(5, 6, requires_grad=True)
    out, cache = model.run_with_cache(x)
    res = [("out", out)] + [(k, v) for k, v in sorted(cache.items())]
    store = {}

    def bwd(grad, hook):
        store[hook.name] = grad.detach().clone()

    y = model.run_with_hooks(x, fwd_hooks=[("hook_mid", lambda a, hook: a.relu())],
                             bwd_hooks=[("hook_mid", bwd), ("hook_pre", bwd)])
    y.pow(2).sum().backward()
    res += [("hooked out", y), ("bwd hook_mid", store["hook_mid"]),
            ("bwd hook_pre", store["hook_pre"]), ("x grad", x.grad),
            ("lin1 grad", model.lin1.weight.grad)]
    out, cache = model.run_with_cache(x, reduce=True, incl_bwd=True)
    res += [(k, v) for k, v in sorted(cache.items()) if k.endswith("_grad")]
    cache = ActivationCache({"hook_mid": cache["hook_mid"]}, model)
    res.append(("ActivationCache", cache["hook_mid"]))
    return res


def _hf_models():
    from transformers import (
        BertConfig,
        BertForMaskedLM,
        GPT2Config,
        GPT2LMHeadModel,
        LlamaConfig,
        LlamaForCausalLM,
    )
    gpt2 = GPT2LMHeadModel(GPT2Config(vocab_size=V, n_positions=CTX, n_embd=32, n_layer=2,
                                      n_head=4, attn_implementation="eager"))
    llama = LlamaForCausalLM(LlamaConfig(vocab_size=V, hidden_size=32, intermediate_size=64,
                                         num_hidden_layers=2, num_attention_heads=4,
                                         num_key_value_heads=2, max_position_embeddings=CTX,
                                         attn_implementation="eager"))
    bert = BertForMaskedLM(BertConfig(vocab_size=V, hidden_size=32, num_hidden_layers=2,
                                      num_attention_heads=4, intermediate_size=64,
                                      max_position_embeddings=CTX,
                                      attn_implementation="eager"))
    return (("gpt2", gpt2, "GPT2LMHeadModel"), ("llama", llama, "LlamaForCausalLM"),
            ("bert", bert, "BertForMaskedLM"))


@variant("hf")
def _():
    from transformer_lens.model_bridge.sources._bridge_builder import build_bridge_from_module
    out = []
    for name, hf, arch in _hf_models():
        hf.eval()
        model = build_bridge_from_module(hf, arch, hf_config=hf.config)
        toks = tokens()
        logits, cache = model.run_with_cache(toks)
        out += [(f"{name} logits", logits), (f"{name} n_keys", str(len(cache.keys())))]
        for key in sorted(cache.keys()):
            if key.endswith(("hook_pattern", "hook_resid_post", "hook_z")):
                out.append((f"{name} {key}", cache[key]))
        store = {}

        def bwd(grad, hook, store=store):
            store["g"] = grad.detach().clone()

        logits = model.run_with_hooks(toks, bwd_hooks=[("blocks.0.hook_resid_post", bwd)])
        loss = logits.log_softmax(-1).gather(-1, toks[..., None]).mean()
        loss.backward()
        out += [(f"{name} loss", f"{loss.item()!r}"), (f"{name} bwd", store["g"]),
                (f"{name} grads", grads(model))]
    return out


HF_MORE = (
    ("neox", "GPTNeoXConfig", "GPTNeoXForCausalLM",
     {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
      "intermediate_size": 64, "rotary_pct": 0.5, "max_position_embeddings": CTX}),
    ("gemma2", "Gemma2Config", "Gemma2ForCausalLM",
     {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
      "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 64,
      "max_position_embeddings": CTX, "sliding_window": 4, "attn_logit_softcapping": 20.0,
      "final_logit_softcapping": 10.0}),
    ("qwen2", "Qwen2Config", "Qwen2ForCausalLM",
     {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
      "num_key_value_heads": 2, "intermediate_size": 64, "max_position_embeddings": CTX}),
    ("mistral", "MistralConfig", "MistralForCausalLM",
     {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
      "num_key_value_heads": 1, "intermediate_size": 64, "max_position_embeddings": CTX,
      "sliding_window": 4}),
    ("phi", "PhiConfig", "PhiForCausalLM",
     {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
      "intermediate_size": 64, "partial_rotary_factor": 0.5, "max_position_embeddings": CTX}),
    ("opt", "OPTConfig", "OPTForCausalLM",
     {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "ffn_dim": 64,
      "word_embed_proj_dim": 32, "max_position_embeddings": CTX}),
    ("bloom", "BloomConfig", "BloomForCausalLM", {"hidden_size": 32, "n_layer": 2, "n_head": 4}),
    ("gptj", "GPTJConfig", "GPTJForCausalLM",
     {"n_embd": 32, "n_layer": 2, "n_head": 4, "rotary_dim": 4, "n_positions": CTX}),
    ("gpt_neo", "GPTNeoConfig", "GPTNeoForCausalLM",
     {"hidden_size": 32, "num_layers": 2, "num_heads": 4,
      "attention_types": [[["global", "local"], 1]], "window_size": 4,
      "max_position_embeddings": CTX}),
    ("olmo2", "Olmo2Config", "Olmo2ForCausalLM",
     {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
      "intermediate_size": 64, "max_position_embeddings": CTX}),
    ("mixtral", "MixtralConfig", "MixtralForCausalLM",
     {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
      "num_key_value_heads": 2, "intermediate_size": 64, "num_local_experts": 4,
      "num_experts_per_tok": 2, "max_position_embeddings": CTX}),
    # transformers' slow (pure torch) selective scan
    ("mamba", "MambaConfig", "MambaForCausalLM",
     {"hidden_size": 32, "num_hidden_layers": 2, "state_size": 4, "expand": 2,
      "conv_kernel": 3}),
)


@variant("hf_more")
def _():
    import transformers
    from transformer_lens.model_bridge.sources._bridge_builder import build_bridge_from_module
    out = []
    for name, config_class, model_class, kw in HF_MORE:
        torch.manual_seed(0)
        hf_config = getattr(transformers, config_class)(vocab_size=V, **kw)
        hf_config._attn_implementation = "eager"
        hf = getattr(transformers, model_class)(hf_config).eval()
        model = build_bridge_from_module(hf, model_class, hf_config=hf.config)
        toks = tokens()
        logits, cache = model.run_with_cache(toks)
        loss = model.loss_fn(logits, toks)
        loss.backward()
        out += [(f"{name} logits", logits), (f"{name} n_keys", str(len(cache.keys()))),
                (f"{name} loss", f"{loss.item()!r}"), (f"{name} grads", grads(model))]
        for key in sorted(cache.keys()):
            if key.endswith(("hook_pattern", "hook_resid_post")):
                out.append((f"{name} {key}", cache[key]))
        torch.manual_seed(1)
        gen = model.generate(toks[:, :4], max_new_tokens=4, stop_at_eos=False, verbose=False,
                             do_sample=False)
        out.append((f"{name} greedy", " ".join(str(x) for x in gen.flatten().tolist())))
    return out


@variant("masks")
def _():
    model = native(positional_embedding_type="rotary", rotary_dim=8)
    toks = tokens()
    mask = torch.ones_like(toks)
    mask[0, :3] = 0  # the first row left-padded by three
    logits = model(toks, attention_mask=mask)
    loss = model.loss_fn(logits, toks, attention_mask=mask, per_token=True)
    out = [("masked logits", logits), ("masked per_token", loss)]
    total = model(toks, attention_mask=mask, return_type="loss")
    total.backward()
    out += [("masked loss", f"{total.item()!r}"), ("masked grads", grads(model))]
    return out


@variant("state")
def _():
    import io
    model = native(gated_mlp=True, act_fn="silu", normalization_type="RMS")
    toks = tokens()
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    fresh = native(gated_mlp=True, act_fn="silu", normalization_type="RMS", seed=1)
    before = fresh(toks)
    fresh.load_state_dict(torch.load(buffer))
    out = [("fresh", before), ("loaded", fresh(toks)), ("original", model(toks)),
           ("state keys", str(len(model.state_dict())))]
    # per-head results and split q/k/v inputs: on a bridge of a joint-QKV attention (GPT-2)
    from transformer_lens.model_bridge.sources._bridge_builder import build_bridge_from_module
    hf = _hf_models()[0][1].eval()
    gpt2 = build_bridge_from_module(hf, "GPT2LMHeadModel", hf_config=hf.config)
    gpt2.set_use_attn_result(True)
    gpt2.set_use_split_qkv_input(True)
    logits, cache = gpt2.run_with_cache(toks)
    out.append(("gpt2 split logits", logits))
    for key in sorted(cache.keys()):
        if key.endswith(("hook_result", "hook_q_input", "hook_v_input")):
            out.append((f"gpt2 {key}", cache[key]))
    out.append(("gpt2 stack_head_results", cache.stack_head_results(pos_slice=-1)))
    low = native(dtype=torch.bfloat16)
    low_logits = low(toks)
    out.append(("bfloat16 logits", low_logits.float()))
    out.append(("bfloat16 loss", f"{low(toks, return_type='loss').float().item():.3f}"))
    return out


@variant("utils")
def _():
    u = utilities
    x = torch.randn(3, 7)
    toks = tokens(2, 8)
    logits = torch.randn(2, 8, V)
    names = [u.get_act_name("resid_pre", 1), u.get_act_name("attn", 0), u.get_act_name("q", 1),
             u.get_act_name("scale", 1, "ln2"), u.get_act_name("embed"),
             u.get_act_name("mlp_out", 0)]
    out = [("get_act_name", " ".join(names)),
           ("to_numpy", f"{float(u.to_numpy(x).sum())!r}"),
           ("gelu_new", u.gelu_new(x)), ("gelu_fast", u.gelu_fast(x)), ("solu", u.solu(x)),
           ("lm_cross_entropy_loss", u.lm_cross_entropy_loss(logits, toks)),
           ("per_token", u.lm_cross_entropy_loss(logits, toks, per_token=True)),
           ("lm_accuracy", u.lm_accuracy(logits, toks, per_token=True).float()),
           ("get_corner", u.get_corner(x, 2)),
           ("cumsum", u.get_cumsum_along_dim(x, -1, reverse=True)),
           ("offset_position_ids", u.get_offset_position_ids(
               4, torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]]))),
           ("is_lower_triangular", str(u.is_lower_triangular(torch.tril(x[:, :3])))),
           ("repeat_along_head", u.repeat_along_head_dimension(x[None], 4)),
           ("softcap", u.apply_softcap(x * 10, 5.0))]
    gen = torch.Generator().manual_seed(0)
    ci = u.bootstrap_ci(x.flatten(), n_resamples=50, generator=gen) \
        if "n_resamples" in u.bootstrap_ci.__code__.co_varnames else None
    if ci is not None:
        out.append(("bootstrap_ci", torch.stack([torch.as_tensor(c) for c in ci])))
    logits = torch.randn(2, 8, V, requires_grad=True)
    u.lm_cross_entropy_loss(logits, toks).backward()
    out.append(("lm_cross_entropy_loss grad", logits.grad))
    return out


def show(name, label, value):
    if isinstance(value, torch.Tensor):
        print(f"{name} {label} {list(value.shape)} {checksum(value)}")
    else:
        print(f"{name} {label} {value}")


def run(name):
    torch.manual_seed(0)
    print(f"== {name}")
    for label, value in VARIANTS[name]():
        show(name, label, value)


def main(argv):
    if os.environ.get("TL_FLOAT64"):  # to tell float32 rounding from a bug
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
    print(f"transformer_lens {transformer_lens.__name__}")
    main(sys.argv[1:])
