"""Train tiny Hugging Face transformers models (random weights, no download) for a few steps,
then generate, under real PyTorch and under jtorch, and compare (docs/real-programs.md).

    python scripts/hf_tiny_models.py --compare                 # every family, a table
    python scripts/hf_tiny_models.py --compare llama bert      # some families
    python scripts/shared_rng_run.py scripts/hf_tiny_models.py llama              # PyTorch
    python -m jtorch scripts/shared_rng_run.py scripts/hf_tiny_models.py llama    # jtorch

One family per run: its model class built from a small config (``AutoConfig.for_model``),
three AdamW steps with gradient clipping on random batches (a padded attention mask for the
decoders), printing the loss and the gradient norm, then greedy ``generate`` for the decoders
and encoder-decoders, and a ``save_pretrained``/``from_pretrained`` round trip whose logits are
printed; ``trainer`` runs ``transformers.Trainer`` (with accelerate) on the tiny llama. The
Mixture-of-Experts families (mixtral, qwen2_moe, ...: 4 experts, top-2) run transformers'
default experts implementation, ``grouped_mm``; ``mixtral@eager`` or ``gpt_oss@batched_mm``
select another. Runs
through scripts/shared_rng_run.py so both frameworks start from the same weights
and batches. Attention-probability dropout is off (PyTorch's fused attention draws its own
masks); hidden dropout stays on where the config separates the two. Needs ``transformers``
and ``accelerate`` (the test extra's pins).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
V = 100
_DEC = {"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 32,
        "intermediate_size": 64, "vocab_size": V, "max_position_embeddings": 64}
_ENC = dict(_DEC, hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.0)
_IMAGE = {"num_labels": 5, "image_size": 32}
# family -> (task, small config)
FAMILIES = {
    "gpt2": ("causal", {"n_layer": 2, "n_head": 2, "n_embd": 32, "vocab_size": V,
                        "n_positions": 64, "attn_pdrop": 0.0, "resid_pdrop": 0.1,
                        "embd_pdrop": 0.1}),
    "llama": ("causal", dict(_DEC, num_key_value_heads=2)),
    "mistral": ("causal", dict(_DEC, num_key_value_heads=2, sliding_window=8)),
    "qwen2": ("causal", dict(_DEC, num_key_value_heads=2)),
    "gemma": ("causal", dict(_DEC, num_key_value_heads=2, head_dim=8)),
    "phi": ("causal", dict(_DEC, resid_pdrop=0.1, embd_pdrop=0.1, attention_dropout=0.0)),
    "gpt_neox": ("causal", dict(_DEC, hidden_dropout=0.1, attention_dropout=0.0)),
    "opt": ("causal", {"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 32,
                       "ffn_dim": 64, "vocab_size": V, "max_position_embeddings": 64,
                       "word_embed_proj_dim": 32, "dropout": 0.1, "attention_dropout": 0.0}),
    "bert": ("masked", _ENC),
    "roberta": ("masked", dict(_ENC, pad_token_id=1)),
    "electra": ("masked", dict(_ENC, embedding_size=16)),
    "distilbert": ("masked", {"n_layers": 2, "n_heads": 4, "dim": 32, "hidden_dim": 64,
                              "vocab_size": V, "max_position_embeddings": 64, "dropout": 0.1,
                              "attention_dropout": 0.0}),
    "deberta-v2": ("classify", dict(_ENC, num_labels=3, relative_attention=True,
                                    position_buckets=8, pos_att_type=["p2c", "c2p"])),
    # T5's one dropout rate is its attention's too (passed to the fused attention): off
    "t5": ("seq2seq", {"num_layers": 2, "num_heads": 4, "d_model": 32, "d_kv": 8, "d_ff": 64,
                       "vocab_size": V, "dropout_rate": 0.0, "decoder_start_token_id": 0}),
    "bart": ("seq2seq", {"encoder_layers": 2, "decoder_layers": 2, "encoder_attention_heads": 4,
                         "decoder_attention_heads": 4, "d_model": 32, "encoder_ffn_dim": 64,
                         "decoder_ffn_dim": 64, "vocab_size": V, "max_position_embeddings": 64,
                         "dropout": 0.1, "attention_dropout": 0.0}),
    "vit": ("image", dict(_IMAGE, num_hidden_layers=2, num_attention_heads=4, hidden_size=32,
                          intermediate_size=64, image_size=16, patch_size=4,
                          hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.0)),
    "swin": ("image", dict(_IMAGE, embed_dim=16, depths=[1, 1], num_heads=[2, 4], patch_size=4,
                           window_size=4, hidden_dropout_prob=0.1,
                           attention_probs_dropout_prob=0.0, drop_path_rate=0.0)),
    "convnext": ("image", dict(_IMAGE, depths=[1, 1], hidden_sizes=[8, 16], num_stages=2,
                               drop_path_rate=0.0)),
    "resnet": ("image", dict(_IMAGE, embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1])),
}
# Mixture-of-Experts decoders: 4 experts, top-2, the router's auxiliary loss in the loss.
# transformers picks its experts implementation from the config: "grouped_mm" by default
# (F.grouped_mm over the tokens sorted by expert), "eager" (a loop over the experts hit) and
# "batched_mm" (one bmm over every token's gathered expert weights); "family@impl" selects one.
_MOE = dict(_DEC, num_key_value_heads=2, output_router_logits=True)
_MOE_FAMILIES = {
    "mixtral": dict(_MOE, num_local_experts=4, num_experts_per_tok=2),
    "qwen2_moe": dict(_MOE, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                      shared_expert_intermediate_size=64),
    "qwen3_moe": dict(_MOE, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                      head_dim=8),
    "olmoe": dict(_MOE, num_experts=4, num_experts_per_tok=2),
    # granitemoe with output_router_logits fails in PyTorch too (its aux loss is an int 0)
    "granitemoe": dict(_MOE, num_local_experts=4, num_experts_per_tok=2,
                       output_router_logits=False),
    "phimoe": dict(_MOE, num_local_experts=4, num_experts_per_tok=2),
    "gpt_oss": dict(_MOE, num_local_experts=4, num_experts_per_tok=2, head_dim=8,
                    sliding_window=8, layer_types=["sliding_attention", "full_attention"]),
    "deepseek_v3": dict(_MOE, num_key_value_heads=4, n_routed_experts=4, num_experts_per_tok=2,
                        n_group=2, topk_group=1, moe_intermediate_size=32, n_shared_experts=1,
                        kv_lora_rank=16, q_lora_rank=16, qk_rope_head_dim=4,
                        qk_nope_head_dim=4, v_head_dim=8, first_k_dense_replace=1),
}
for _name, _cfg in _MOE_FAMILIES.items():
    FAMILIES[_name] = ("causal", _cfg)
for _name in ("mixtral", "gpt_oss"):
    for _impl in ("eager", "batched_mm"):
        FAMILIES[f"{_name}@{_impl}"] = ("causal", dict(_MOE_FAMILIES[_name],
                                                       experts_implementation=_impl))


def _batch(torch, task, cfg):
    if task == "image":
        size = cfg.image_size
        return {"pixel_values": torch.randn(2, 3, size, size),
                    "labels": torch.randint(0, 5, (2,))}
    ids = torch.randint(3, V, (2, 12))
    mask = torch.ones(2, 12, dtype=torch.long)
    if task == "classify":
        return {"input_ids": ids, "attention_mask": mask, "labels": torch.randint(0, 3, (2,))}
    if task == "seq2seq":
        return {"input_ids": ids, "attention_mask": mask, "labels": torch.randint(3, V, (2, 7))}
    mask[1, :3] = 0   # a left-padded row
    return {"input_ids": ids, "attention_mask": mask, "labels": ids}


def run(family):
    import torch
    import transformers

    transformers.logging.set_verbosity_error()
    task, kwargs = FAMILIES[family]
    auto = getattr(transformers, {"causal": "AutoModelForCausalLM",
                                  "masked": "AutoModelForMaskedLM",
                                  "classify": "AutoModelForSequenceClassification",
                                  "seq2seq": "AutoModelForSeq2SeqLM",
                                  "image": "AutoModelForImageClassification"}[task])
    cfg = transformers.AutoConfig.for_model(family.partition("@")[0], **kwargs)
    torch.manual_seed(0)
    model = auto.from_config(cfg)
    if family in _MOE_FAMILIES or "@" in family:
        print("experts", model.config._experts_implementation)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(3):
        out = model(**_batch(torch, task, cfg))
        out.loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
        print(f"step {step} loss {out.loss.item()} grad_norm {norm.item()}", flush=True)
    model.eval()
    if task in ("causal", "seq2seq"):
        with torch.no_grad():
            gen = model.generate(torch.tensor([[5, 6, 7]]), max_new_tokens=5, do_sample=False)
        print("generated", gen.tolist())
    batch = _batch(torch, task, cfg)
    labels = batch.pop("labels")
    if task == "seq2seq":
        batch["decoder_input_ids"] = labels
    with tempfile.TemporaryDirectory() as d, torch.no_grad():
        model.save_pretrained(d)
        # the experts implementation is not saved with the config: ask for the same again
        impl = {"experts_implementation": kwargs["experts_implementation"]} \
            if "experts_implementation" in kwargs else {}
        again = auto.from_pretrained(d, **impl).eval()
        a, b = model(**batch).logits, again(**batch).logits
        print("reloaded equal", bool(torch.equal(a, b)), "logits sum", a.double().sum().item())


def run_trainer():
    """``transformers.Trainer`` (through accelerate) on a tiny llama: one epoch of 8 steps with
    a cosine schedule, warmup and gradient clipping, logging every 2 steps, then evaluate."""
    import torch
    import transformers

    transformers.logging.set_verbosity_error()
    cfg = transformers.AutoConfig.for_model("llama", **FAMILIES["llama"][1])
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(cfg)
    data = torch.randint(3, V, (32, 12))
    rows = [{"input_ids": x, "labels": x} for x in data]
    with tempfile.TemporaryDirectory() as d:
        args = transformers.TrainingArguments(
            output_dir=d, per_device_train_batch_size=4, num_train_epochs=1,
            learning_rate=1e-3, lr_scheduler_type="cosine", warmup_steps=2, max_grad_norm=1.0,
            logging_steps=2, save_strategy="no", report_to=[], use_cpu=True, seed=0,
            dataloader_num_workers=0, disable_tqdm=True)
        trainer = transformers.Trainer(model=model, args=args, train_dataset=rows,
                                       eval_dataset=rows)
        print("train_loss", trainer.train().training_loss)
        for record in trainer.state.log_history:
            if "loss" in record:
                print("log", {k: record[k] for k in ("step", "loss", "grad_norm",
                                                     "learning_rate")})
        print("eval_loss", trainer.evaluate()["eval_loss"])


RUNS = [*FAMILIES, "trainer"]
# the driver's own lines (transformers' Trainer also prints its timings)
RESULT = re.compile(r"(step|generated|reloaded|train_loss|log|eval_loss|experts) ")
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _outputs(family, jtorch):
    command = ([sys.executable] + (["-m", "jtorch"] if jtorch else [])
               + [os.path.join(HERE, "shared_rng_run.py"), os.path.abspath(__file__), family])
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    if done.returncode:
        return None, done.stderr.strip().splitlines()[-1:]
    return [line for line in done.stdout.splitlines() if RESULT.match(line)], None


def _last_loss(lines):
    line = [x for x in lines if x.startswith(("step", "eval_loss"))][-1]
    return line.split()[3] if line.startswith("step") else line.split()[1]


def compare(families):
    """Each family under both frameworks: the same text, and every number within 1e-5 of
    PyTorch's (relative, or absolute below 1: a sum of logits can be near zero)."""
    print("| family | PyTorch: last loss | jtorch: last loss | max diff | result |")
    print("|---|---|---|---|---|")
    failed = 0
    for family in families:
        ref, err_t = _outputs(family, False)
        got, err_j = _outputs(family, True)
        if ref is None or got is None:
            failed += 1
            print(f"| {family} | {err_t or ''} | {err_j or ''} | | FAILED |", flush=True)
            continue
        worst, same_text = 0.0, len(ref) == len(got)
        for r, g in zip(ref, got):
            same_text &= NUMBER.sub("#", r) == NUMBER.sub("#", g)
            for x, y in zip(NUMBER.findall(r), NUMBER.findall(g)):
                x, y = float(x), float(y)
                worst = max(worst, abs(x - y) / max(abs(x), 1.0))   # relative above 1
        ok = same_text and worst < 1e-5
        failed += not ok
        loss, loss_j = (_last_loss(lines) for lines in (ref, got))
        print(f"| {family} | {loss} | {loss_j} | {worst:.1e} | "
              f"{'equal' if ok else 'DIFFERS'} |", flush=True)
    return 1 if failed else 0


def main(argv):
    if argv and argv[0] == "--compare":
        return compare(argv[1:] or RUNS)
    if len(argv) != 1 or argv[0] not in RUNS:
        print(__doc__)
        return 2
    run_trainer() if argv[0] == "trainer" else run(argv[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
