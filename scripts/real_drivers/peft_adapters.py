"""Driver of Hugging Face PEFT (``peft`` 0.21, docs/real-programs.md): the installed package,
unchanged, on tiny ``transformers`` models built from configs (2 layers, width 32, vocabulary
100; nothing downloaded). Each variant wraps a fresh model with ``get_peft_model``, prints the
trainable and total parameter counts, takes three AdamW steps (printing every loss), then
prints checksums of the logits at full precision: adapted, under ``disable_adapter()``, after
``merge_adapter``/``unmerge_adapter``, after a ``save_pretrained`` (safetensors) +
``PeftModel.from_pretrained`` round trip into a temporary directory, and after
``merge_and_unload``.

Variants (each reseeds with ``torch.manual_seed``, so a subset prints what the full run prints
for it):

- ``lora_llama``: LoRA on a LlamaForCausalLM (q/k/v/o and gate projections, r 4, alpha 8).
- ``lora_gpt2``: LoRA with rsLoRA and DoRA on GPT2's ``Conv1D`` layers (``fan_in_fan_out``),
  ``bias="lora_only"``.
- ``lora_bert``: LoRA on a BertForSequenceClassification (``SEQ_CLS``: the classifier in
  ``modules_to_save``), ``bias="all"``, random B init (``init_lora_weights=False``), a
  cross-entropy loss.
- ``ia3``, ``loha``, ``lokr``, ``adalora``: those adapters on the llama (AdaLoRA's
  ``update_and_allocate`` after every step, its orthogonality regularizer in the loss).
- ``prefix``, ``prompt``: prefix tuning (with its projection) and prompt tuning on the llama:
  training and ``generate``.
- ``vera``, ``oft``, ``oft_cayley``, ``boft``, ``hra``, ``fourierft``, ``vblora``,
  ``lntuning``, ``c3a``, ``miss``, ``randlora``, ``trainable_tokens``: more tuners on the
  llama; ``lora_embed``, ``lora_dora_embed``, ``lora_patterns``, ``pissa``, ``olora``: LoRA on
  embeddings and heads, rank/alpha patterns, SVD (PiSSA) and QR (OLoRA) initialisations.
- ``ptuning`` (P-tuning, MLP and LSTM prompt encoders), ``prefix_bert`` (prefix tuning of the
  classifier).
- ``mixed_batch``: two LoRA adapters and the base model in one batch (``adapter_names``), with
  LoRA dropout and gradient checkpointing; ``custom``: LoRA/DoRA on Conv2d, Conv1d, Embedding
  and Linear of a plain module, ``inject_adapter_in_model``.
- ``multi``: two LoRA adapters on the llama, ``set_adapter``, ``add_weighted_adapter``
  (linear, cat and svd combinations), ``delete_adapter``.

    python scripts/shared_rng_run.py peft_adapters.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py peft_adapters.py [VARIANT ... | all]   # jtorch
"""

import os
import sys
import tempfile
import time
import warnings

# transformers imports torchvision when it is installed; the venv's torchvision (a CUDA build)
# cannot load its operators under the CPU PyTorch, and nothing here needs it: hide it from both
sys.modules["torchvision"] = None

import torch  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import peft  # noqa: E402
import transformers  # noqa: E402

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()

V = 100
LLAMA = {"num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
         "hidden_size": 32, "intermediate_size": 64, "vocab_size": V,
         "max_position_embeddings": 64}
GPT2 = {"n_layer": 2, "n_head": 2, "n_embd": 32, "vocab_size": V, "n_positions": 64,
        "attn_pdrop": 0.0, "resid_pdrop": 0.0, "embd_pdrop": 0.0}
BERT = {"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 32,
        "intermediate_size": 64, "vocab_size": V, "max_position_embeddings": 64,
        "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0, "num_labels": 3}
VARIANTS = {}


def variant(name):
    def register(fn):
        VARIANTS[name] = fn
        return fn
    return register


def checksum(t):
    t = t.detach().double()
    return (f"sum {t.sum().item()!r} abssum {t.abs().sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def close(a, b):
    """Whether two outputs agree to float32 rounding (their exact difference is rounding noise,
    which the comparison with PyTorch would read as a relative difference)."""
    return f"close {bool((a - b).abs().max().item() < 1e-5)}"


def build(kind):
    """A fresh tiny model; reseeded, so every call gives the same weights."""
    torch.manual_seed(1)
    if kind == "llama":
        return transformers.LlamaForCausalLM(transformers.LlamaConfig(**LLAMA))
    if kind == "gpt2":
        return transformers.GPT2LMHeadModel(transformers.GPT2Config(**GPT2))
    return transformers.BertForSequenceClassification(transformers.BertConfig(**BERT))


def batch(kind):
    ids = torch.randint(3, V, (2, 10))
    mask = torch.ones(2, 10, dtype=torch.long)
    if kind == "bert":
        mask[1, 7:] = 0
        return {"input_ids": ids, "attention_mask": mask, "labels": torch.randint(0, 3, (2,))}
    return {"input_ids": ids, "attention_mask": mask, "labels": ids}


def counts(model):
    trainable, total = model.get_nb_trainable_parameters()
    print(f"trainable {trainable} total {total}")
    names = sorted(n for n, p in model.named_parameters() if p.requires_grad)
    print(f"trainable tensors {len(names)} first {names[:2]} last {names[-1:]}")


def train(model, kind, steps=3, lr=1e-2, extra=None):
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)
    model.train()
    for step in range(steps):
        out = model(**batch(kind))
        loss = out.loss
        if extra is not None:
            loss = extra(model, out, step)
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} loss {out.loss.item()!r}")
    model.eval()


def logits(model, inputs):
    with torch.no_grad():
        return model(**inputs).logits


def lifecycle(model, kind, merge=True, save=True, disable=True):
    """The adapted, disabled, merged/unmerged, reloaded and merged-and-unloaded logits."""
    inputs = batch(kind)
    inputs.pop("labels")
    adapted = logits(model, inputs)
    print(f"adapted {checksum(adapted)}")
    if disable:
        with model.disable_adapter():
            print(f"disabled {checksum(logits(model, inputs))}")
    if merge:
        model.merge_adapter()
        merged = logits(model, inputs)
        print(f"merged {checksum(merged)} {close(merged, adapted)}")
        model.unmerge_adapter()
        print(f"unmerged {checksum(logits(model, inputs))}")
    if save:
        with tempfile.TemporaryDirectory() as d:
            model.save_pretrained(d)
            files = sorted(os.listdir(d))
            print(f"saved {files}")
            again = peft.PeftModel.from_pretrained(build(kind), d).eval()
            reloaded = logits(again, inputs)
            print(f"reloaded {close(reloaded, adapted)} {checksum(reloaded)}")
    if merge:
        plain = model.merge_and_unload()
        print(f"merge_and_unload {type(plain).__name__} {checksum(logits(plain, inputs))}")


def lora(kind, config, merge=True):
    model = peft.get_peft_model(build(kind), config)
    counts(model)
    train(model, kind)
    lifecycle(model, kind, merge=merge)


@variant("lora_llama")
def lora_llama():
    lora("llama", peft.LoraConfig(task_type="CAUSAL_LM", r=4, lora_alpha=8, lora_dropout=0.0,
                                  target_modules=["q_proj", "k_proj", "v_proj", "o_proj",
                                                  "gate_proj"]))


@variant("lora_gpt2")
def lora_gpt2():
    lora("gpt2", peft.LoraConfig(task_type="CAUSAL_LM", r=4, lora_alpha=16, lora_dropout=0.0,
                                 target_modules=["c_attn", "c_proj"], fan_in_fan_out=True,
                                 use_rslora=True, use_dora=True, bias="lora_only"))


@variant("lora_bert")
def lora_bert():
    lora("bert", peft.LoraConfig(task_type="SEQ_CLS", r=8, lora_alpha=8, lora_dropout=0.0,
                                 target_modules=["query", "value", "dense"], bias="all",
                                 init_lora_weights=False))


@variant("ia3")
def ia3():
    lora("llama", peft.IA3Config(task_type="CAUSAL_LM", target_modules=["k_proj", "v_proj",
                                                                        "down_proj"],
                                 feedforward_modules=["down_proj"]))


@variant("loha")
def loha():
    lora("llama", peft.LoHaConfig(task_type="CAUSAL_LM", r=4, alpha=8,
                                  target_modules=["q_proj", "v_proj", "up_proj"]))


@variant("lokr")
def lokr():
    lora("llama", peft.LoKrConfig(task_type="CAUSAL_LM", r=4, alpha=8, decompose_both=True,
                                  target_modules=["q_proj", "v_proj", "up_proj"]))


@variant("adalora")
def adalora():
    model = peft.get_peft_model(build("llama"), peft.AdaLoraConfig(
        task_type="CAUSAL_LM", init_r=6, target_r=2, tinit=1, tfinal=1, deltaT=1,
        total_step=4, lora_alpha=8, lora_dropout=0.0, target_modules=["q_proj", "v_proj"]))
    counts(model)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    model.train()
    for step in range(4):
        out = model(**batch("llama"))
        out.loss.backward()
        opt.step()
        model.base_model.update_and_allocate(step)
        opt.zero_grad()
        print(f"step {step} loss {out.loss.item()!r}")
    pattern = model.peft_config["default"].rank_pattern or {}
    print(f"rank pattern {[(k, int(sum(v))) for k, v in sorted(pattern.items())]}")
    model.eval()
    lifecycle(model, "llama")


# more tuners on the llama through the same lifecycle: name -> (config, merge supported)
ZOO = {
    "vera": (lambda: peft.VeraConfig(task_type="CAUSAL_LM", r=8,
                                     target_modules=["q_proj", "v_proj"]), True),
    "oft": (lambda: peft.OFTConfig(task_type="CAUSAL_LM", r=0, oft_block_size=8,
                                   target_modules=["q_proj", "v_proj"]), True),
    "oft_cayley": (lambda: peft.OFTConfig(task_type="CAUSAL_LM", r=0, oft_block_size=8,
                                          use_cayley_neumann=False, coft=True,
                                          target_modules=["q_proj", "up_proj"]), True),
    "boft": (lambda: peft.BOFTConfig(task_type="CAUSAL_LM", boft_block_size=4,
                                     boft_n_butterfly_factor=1,
                                     target_modules=["q_proj", "v_proj"]), True),
    "hra": (lambda: peft.HRAConfig(task_type="CAUSAL_LM", r=4,
                                   target_modules=["q_proj", "v_proj"]), True),
    "fourierft": (lambda: peft.FourierFTConfig(task_type="CAUSAL_LM", n_frequency=50,
                                               scaling=10.0,
                                               target_modules=["q_proj", "v_proj"]), True),
    "vblora": (lambda: peft.VBLoRAConfig(task_type="CAUSAL_LM", r=4, num_vectors=16,
                                         vector_length=8, topk=2,
                                         target_modules=["q_proj", "v_proj"]), True),
    "lntuning": (lambda: peft.LNTuningConfig(task_type="CAUSAL_LM",
                                             target_modules=["input_layernorm"]), True),
    "c3a": (lambda: peft.C3AConfig(task_type="CAUSAL_LM", block_size=8,
                                   target_modules=["q_proj", "up_proj"]), True),
    "miss": (lambda: peft.MissConfig(task_type="CAUSAL_LM", r=4,
                                     target_modules=["q_proj", "v_proj"]), True),
    "randlora": (lambda: peft.RandLoraConfig(task_type="CAUSAL_LM", r=8,
                                             target_modules=["q_proj", "v_proj"]), True),
    "trainable_tokens": (lambda: peft.TrainableTokensConfig(
        task_type="CAUSAL_LM", token_indices=list(range(3, 50)), target_modules=["embed_tokens"]),
        True),
    # LoRA on the embedding and the head, rank and alpha patterns, trainable tokens
    "lora_embed": (lambda: peft.LoraConfig(
        task_type="CAUSAL_LM", r=4, lora_alpha=8, target_modules=["embed_tokens", "lm_head"],
        init_lora_weights="gaussian"), True),
    "lora_dora_embed": (lambda: peft.LoraConfig(
        task_type="CAUSAL_LM", r=4, lora_alpha=8, use_dora=True,
        target_modules=["embed_tokens", "q_proj"]), True),
    "lora_patterns": (lambda: peft.LoraConfig(
        task_type="CAUSAL_LM", r=4, lora_alpha=8,
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "up_proj", "down_proj"],
        rank_pattern={"q_proj": 2}, alpha_pattern={"down_proj": 32}, layers_to_transform=[1],
        trainable_token_indices=[4, 9]), True),
    "pissa": (lambda: peft.LoraConfig(task_type="CAUSAL_LM", r=4, lora_alpha=4,
                                      init_lora_weights="pissa",
                                      target_modules=["q_proj", "o_proj"]), True),
    "olora": (lambda: peft.LoraConfig(task_type="CAUSAL_LM", r=4, lora_alpha=4,
                                      init_lora_weights="olora",
                                      target_modules=["q_proj", "o_proj"]), True),
}
for _name, (_config, _merge) in ZOO.items():
    variant(_name)(lambda config=_config, merge=_merge: lora("llama", config(), merge=merge))


def prompt_like(config):
    model = peft.get_peft_model(build("llama"), config)
    counts(model)
    train(model, "llama", lr=3e-2)
    lifecycle(model, "llama", merge=False)
    with torch.no_grad():
        gen = model.generate(input_ids=torch.tensor([[5, 6, 7]]), max_new_tokens=5,
                             do_sample=False)
    print(f"generated {gen.tolist()}")


@variant("prefix")
def prefix():
    prompt_like(peft.PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=4,
                                        prefix_projection=True, encoder_hidden_size=16))


@variant("prompt")
def prompt():
    prompt_like(peft.PromptTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=4))


@variant("multi")
def multi():
    config = peft.LoraConfig(r=4, lora_alpha=8, lora_dropout=0.0, init_lora_weights=False,
                             target_modules=["q_proj", "v_proj"])
    model = peft.get_peft_model(build("llama"), config, adapter_name="a")
    model.add_adapter("b", peft.LoraConfig(r=4, lora_alpha=16, lora_dropout=0.0,
                                           init_lora_weights=False,
                                           target_modules=["q_proj", "v_proj"]))
    inputs = batch("llama")
    inputs.pop("labels")
    model.eval()
    for name in ("a", "b"):
        model.set_adapter(name)
        print(f"adapter {name} active {model.active_adapters} "
              f"{checksum(logits(model, inputs))}")
    model.set_adapter("b")
    train(model, "llama")
    print(f"after training b {checksum(logits(model, inputs))}")
    for combination in ("linear", "cat", "svd"):
        name = f"ab_{combination}"
        model.add_weighted_adapter(["a", "b"], [0.7, 0.5], name,
                                   combination_type=combination)
        model.set_adapter(name)
        rank = model.base_model.model.model.layers[0].self_attn.q_proj.r[name]
        print(f"weighted {combination} r {rank} {checksum(logits(model, inputs))}")
    model.delete_adapter("ab_cat")
    print(f"adapters {sorted(model.peft_config)}")
    with tempfile.TemporaryDirectory() as d:
        model.save_pretrained(d, selected_adapters=["a", "b"])
        print(f"saved {sorted(os.listdir(d))}")
        again = peft.PeftModel.from_pretrained(build("llama"), os.path.join(d, "a"),
                                               adapter_name="a")
        again.load_adapter(os.path.join(d, "b"), adapter_name="b")
        again.set_adapter("b")
        model.set_adapter("b")
        a, b = logits(model, inputs), logits(again.eval(), inputs)
        print(f"reloaded b equal {bool(torch.equal(a, b))} {checksum(b)}")


@variant("ptuning")
def ptuning():
    for kind in ("MLP", "LSTM"):
        prompt_like(peft.PromptEncoderConfig(task_type="CAUSAL_LM", num_virtual_tokens=4,
                                             encoder_hidden_size=16,
                                             encoder_reparameterization_type=kind))


@variant("prefix_bert")
def prefix_bert():
    model = peft.get_peft_model(build("bert"), peft.PrefixTuningConfig(
        task_type="SEQ_CLS", num_virtual_tokens=3))
    counts(model)
    train(model, "bert", lr=3e-2)
    # peft's disable_adapter() fails for prompt learning on sequence classification (an
    # unbound local in PeftModel.disable_adapter), under PyTorch too
    lifecycle(model, "bert", merge=False, disable=False)


@variant("mixed_batch")
def mixed_batch():
    """Two LoRA adapters and the base model in one batch (``adapter_names``), LoRA dropout,
    and gradient checkpointing (``torch.utils.checkpoint``) with input gradients enabled."""
    base = build("llama")
    base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": True})
    model = peft.get_peft_model(base, peft.LoraConfig(
        task_type="CAUSAL_LM", r=4, lora_alpha=8, lora_dropout=0.1,
        target_modules=["q_proj", "v_proj", "down_proj"]), adapter_name="x")
    model.add_adapter("y", peft.LoraConfig(task_type="CAUSAL_LM", r=2, lora_alpha=8,
                                           init_lora_weights=False, target_modules=["q_proj"]))
    counts(model)
    train(model, "llama")
    inputs = {"input_ids": torch.randint(3, V, (3, 8))}
    with torch.no_grad():
        mixed = model(**inputs, adapter_names=["x", "y", "__base__"]).logits
        for row, name in enumerate(("x", "y", None)):
            if name is None:
                with model.disable_adapter():
                    alone = model(input_ids=inputs["input_ids"][row:row + 1]).logits
            else:
                model.set_adapter(name)
                alone = model(input_ids=inputs["input_ids"][row:row + 1]).logits
            print(f"mixed row {row} {name} {checksum(mixed[row])} {close(mixed[row], alone[0])}")
        model.set_adapter("x")
        gen = model.generate(input_ids=inputs["input_ids"][:, :3], max_new_tokens=4,
                             do_sample=False, adapter_names=["x", "y", "__base__"])
    print(f"generated {gen.tolist()}")


class ConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv1d = torch.nn.Conv1d(8, 8, 3, padding=1)
        self.emb = torch.nn.Embedding(10, 8)
        self.lin = torch.nn.Linear(8, 4)

    def forward(self, x, ids):
        h = torch.relu(self.conv(x)).flatten(2)
        h = self.conv1d(h).mean(-1) + self.emb(ids)
        return self.lin(h)


@variant("custom")
def custom():
    """``inject_adapter_in_model`` and ``get_peft_model`` on a plain module: LoRA and DoRA on
    Conv2d, Conv1d, Embedding and Linear; a custom-model save/load round trip."""
    x, ids, target = torch.randn(4, 3, 6, 6), torch.randint(0, 10, (4,)), torch.randn(4, 4)
    for dora in (False, True):
        torch.manual_seed(2)
        config = peft.LoraConfig(r=2, lora_alpha=4, use_dora=dora, init_lora_weights=False,
                                 target_modules=["conv", "conv1d", "emb", "lin"])
        model = peft.get_peft_model(ConvNet(), config)
        counts(model)
        opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
        for step in range(3):
            loss = torch.nn.functional.mse_loss(model(x, ids), target)
            loss.backward()
            opt.step()
            opt.zero_grad()
            print(f"dora {dora} step {step} loss {loss.item()!r}")
        with torch.no_grad():
            out = model(x, ids)
            print(f"dora {dora} out {checksum(out)}")
            with tempfile.TemporaryDirectory() as d:
                model.save_pretrained(d)
                torch.manual_seed(2)
                again = peft.PeftModel.from_pretrained(ConvNet(), d)
                print(f"reloaded {close(again(x, ids), out)}")
            merged = model.merge_and_unload()(x, ids)
            print(f"merged {close(merged, out)} {checksum(merged)}")
    torch.manual_seed(2)
    net = peft.inject_adapter_in_model(peft.LoraConfig(r=2, target_modules=["lin"],
                                                       init_lora_weights=False), ConvNet())
    state = peft.get_peft_model_state_dict(net)
    print(f"injected {sorted(state)} {checksum(net(x, ids))}")


def main(argv):
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    print(f"peft {peft.__version__} transformers {transformers.__version__}")
    for name in names:
        start = time.time()
        torch.manual_seed(0)
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
