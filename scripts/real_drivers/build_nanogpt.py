"""Driver of karpathy/build-nanogpt's ``train_gpt2.py`` (docs/real-programs.md). The script
fixes its settings in code (GPT-2 124M, 0.5M-token batches of 64 x 1024, 19073 steps on
FineWeb-Edu shards, HellaSwag every 250 steps), so this driver runs the script's own text
with only those constants replaced (each replacement must match exactly once, so the run
fails loudly if the script changes), as ``__main__``, in the working directory:

- a GPT of 2 layers, 4 heads, width 64, block 128, over a padded vocabulary of 320;
- micro-batches of 4 x 64 tokens, 512 tokens a step (2 accumulation steps), 8 steps, 3 of
  warm-up, validation (2 batches), HellaSwag and generation every 4 steps and at the last
  step, where it also saves ``log/model_00007.pt`` (which the driver loads after the run and
  prints tensor by tensor: its ``GPTConfig`` is pickled by reference to ``__main__``).

Everything else runs as written: ``F.scaled_dot_product_attention(is_causal=True)``, tanh
GELU, tied embeddings, the weight-decay parameter groups of AdamW (fused off on a CPU),
``torch.autocast("cpu", dtype=torch.bfloat16)`` around every forward, gradient accumulation,
``clip_grad_norm_``, the warm-up and cosine schedule written into the param groups,
``DataLoaderLite`` over ``.npy`` shards (switching shards), HellaSwag scoring through the
real ``hellaswag.py`` (``render_example``, ``iterate_examples``, ``get_most_likely_row``) and
top-k sampling with ``torch.multinomial(generator=...)``.

Stand-ins: ``tiktoken`` (bytes as tokens; ids past 255 decode as ``<id>``), ``requests``
(where it is not installed; ``hellaswag.py`` downloads with it) and ``transformers``
(``hellaswag.py`` imports ``GPT2LMHeadModel`` for its own evaluation, not used here).
Data it writes in the working directory: ``edu_fineweb10B/`` (a validation shard
and three training shards of 3000 tokens of the tree's ``input.txt``) and
``hellaswag/hellaswag_val.jsonl`` (six short examples), where ``hellaswag.py`` reads them
instead of downloading.

    python [-m jtorch] scripts/shared_rng_run.py build_nanogpt.py [TREE]

(without TREE, the tree is where ``hellaswag`` imports from: put it on PYTHONPATH).

``BNG_FLOAT32=1`` turns the four autocasts off (``enabled=False``): the same run in float32.
"""

import json
import os
import sys
import types

import numpy as np

REPLACE = [
    ("total_batch_size = 524288", "total_batch_size = 512"),
    ("B = 64 # micro batch size", "B = 4 # micro batch size"),
    ("T = 1024 # sequence length", "T = 64 # sequence length"),
    ("model = GPT(GPTConfig(vocab_size=50304))",
     "model = GPT(GPTConfig(block_size=128, vocab_size=320, n_layer=2, n_head=4, n_embd=64))"),
    ("warmup_steps = 715", "warmup_steps = 3"),
    ("max_steps = 19073 #", "max_steps = 8 #"),
    ("val_loss_steps = 20", "val_loss_steps = 2"),
    ("if step % 250 == 0 or last_step:", "if step % 4 == 0 or last_step:"),
    ("if (step % 250 == 0 or last_step) and (not use_compile):",
     "if (step % 4 == 0 or last_step) and (not use_compile):"),
    ("if ((step > 0 and step % 250 == 0) or last_step) and (not use_compile):",
     "if ((step > 0 and step % 4 == 0) or last_step) and (not use_compile):"),
]

HELLASWAG = [
    ("A man is on a roof. he",
     ["wraps skis.", "rips tiles off.", "holds a cube.", "pulls up a roof."], 3),
    ("The cat sat", ["on the mat.", "in a tree.", "and ran.", "quietly."], 0),
    ("She opens the door and", ["walks in.", "sings.", "falls asleep.", "eats."], 0),
    ("Two boys play ball. they", ["kick it.", "eat it.", "run.", "read."], 0),
    ("To bake bread, you", ["knead dough.", "swim.", "fly a kite.", "sleep."], 0),
    ("The river", ["flows.", "sings.", "jumps high.", "writes."], 0),
]


class _Encoding:
    def encode(self, text, allowed_special=()):
        return list(text.encode("utf-8"))

    def decode(self, ids):
        out, run = [], []
        for i in ids:
            if i < 256:
                run.append(i)
            else:
                out.append(bytes(run).decode("utf-8", errors="replace") + f"<{i}>")
                run = []
        return "".join(out) + bytes(run).decode("utf-8", errors="replace")


def _standins():
    tiktoken = types.ModuleType("tiktoken")
    encoding = _Encoding()
    tiktoken.get_encoding = lambda name: encoding
    sys.modules["tiktoken"] = tiktoken
    sys.modules.setdefault("requests", types.ModuleType("requests"))  # only to download
    transformers = types.ModuleType("transformers")
    transformers.GPT2LMHeadModel = None
    sys.modules["transformers"] = transformers


def _data(tree, work):
    with open(os.path.join(tree, "input.txt"), "rb") as f:
        tokens = np.frombuffer(f.read(), dtype=np.uint8).astype(np.uint16)
    shards = os.path.join(work, "edu_fineweb10B")
    os.makedirs(shards, exist_ok=True)
    np.save(os.path.join(shards, "edufineweb_val_000000.npy"), tokens[:3000])
    for i in range(1, 4):
        np.save(os.path.join(shards, f"edufineweb_train_{i:06d}.npy"),
                tokens[3000 * i:3000 * (i + 1)])
    folder = os.path.join(work, "hellaswag")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "hellaswag_val.jsonl"), "w") as f:
        for ctx, endings, label in HELLASWAG:
            f.write(json.dumps({"ctx": ctx, "endings": endings, "label": label}) + "\n")
    return folder


def main():
    work = os.getcwd()
    _standins()
    if len(sys.argv) > 1:
        sys.path.insert(0, os.path.abspath(sys.argv[1]))
    import hellaswag  # the tree's, with the stand-in tiktoken

    tree = os.path.dirname(os.path.abspath(hellaswag.__file__))

    hellaswag.DATA_CACHE_DIR = _data(tree, work)
    with open(os.path.join(tree, "train_gpt2.py")) as f:
        source = f.read()
    replace = list(REPLACE)
    if os.environ.get("BNG_FLOAT32"):  # to tell bfloat16 rounding from a bug: no autocast
        replace.append(("torch.autocast(device_type=device_type, dtype=torch.bfloat16)",
                        "torch.autocast(device_type=device_type, enabled=False)"))
    for old, new in replace:
        count = source.count(old)
        if count != (4 if old.startswith("torch.autocast") else 1):
            raise SystemExit(f"train_gpt2.py has {count} occurrences of {old!r}, not one")
        source = source.replace(old, new)
    path = os.path.join(tree, "train_gpt2.py")
    # a module of its own as __main__, so torch.save can pickle its GPTConfig by reference
    module = types.ModuleType("__main__")
    module.__file__ = path
    sys.modules["__main__"] = module
    exec(compile(source, path, "exec"), module.__dict__)
    # the checkpoint it saved (its GPTConfig pickled by reference: loaded here, not weights-only)
    torch = module.torch
    checkpoint = torch.load(os.path.join("log", "model_00007.pt"), weights_only=False)
    print(f"checkpoint step {checkpoint['step']} val_loss {checkpoint['val_loss']:.6f} "
          f"config {checkpoint['config']}")
    for name, tensor in checkpoint["model"].items():
        total, size = tensor.double().sum().item(), tensor.double().abs().sum().item()
        print(f"checkpoint {name} {tuple(tensor.shape)} {tensor.dtype} "
              f"sum {total:.8f} abs {size:.8f}")


if __name__ == "__main__":
    main()
