"""Run public PyTorch programs unchanged under real PyTorch and under jtorch and compare what
they print (docs/real-programs.md).

    python scripts/run_real_programs.py /tmp/progs                 # every program
    python scripts/run_real_programs.py /tmp/progs --only nanogpt mnist

The directory holds the fetched trees, one per repository, named as the repository
(``nanoGPT``, ``minGPT``, ``examples``, ``pytorch-tutorial``), each with an optional ``COMMIT``
file naming the commit it was extracted from (docs/real-programs.md shows the commands). Data
sets are generated locally (no network): small character and word corpora, an MNIST subset cut
from ``--mnist`` (the gzipped IDX files) and folders of generated images.

Each program runs through ``scripts/shared_rng_run.py`` in both frameworks, so both draw the
same initial weights, batches, shuffles and dropout masks from one NumPy generator. The
program's output lines that carry results (losses, accuracies, generated text) are compared:
the text with numbers blanked must be equal and every number is compared; image files the
program writes are compared pixel by pixel, checkpoints it saves tensor by tensor. The table
ends the output; ``--markdown`` prints it as a Markdown table.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import gzip
import os
import pickle
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SHARED_RNG = os.path.join(HERE, "shared_rng_run.py")
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
# timings the programs print: not compared
TIMING = re.compile(r",?\s*(time:?|Time:|time/call:|iter_dt|ms/batch|mfu)\s*[-+\d.]+\s*"
                    r"(ms|sec|s|%)?;?"
                    r"|^\d+ tokens/sec$"  # LLMs-from-scratch's generation speed
                    r"|\s*[\d.]+ms\b"  # llama2.c's step time
                    r"|\(?\d+m \d+s\)?(?: \(- \d+m \d+s\))?"  # pytorch/tutorials' timeSince
                    r"|\s*\|?\s*tok/sec: [\d.]+"  # build-nanogpt's throughput
                    r"|\(\d+\.\d+s\)"  # gcn's and gat's epoch times
                    r"|\b(Time|Data)\s+[\d.]+\s+\(\s*[\d.]+\)")  # imagenet's meters


@dataclasses.dataclass
class Program:
    """One program: the repository tree it lives in, the commands (script and arguments, run
    in order in one working directory), the lines of its output that carry results, the
    files it writes to compare, and how to prepare its working directory."""

    name: str
    tree: str
    slug: str
    steps: list
    results: str = ""  # a regex selecting the compared stdout lines; all lines when empty
    cwd: str = "work"  # "work": a fresh directory per framework; "tree": the repository tree
    prepare: object = None
    images: tuple = ()
    texts: tuple = ()
    checkpoints: tuple = ()  # files torch.save wrote: every tensor compared (rtol)
    env: dict = dataclasses.field(default_factory=dict)
    path: tuple = ()  # tree-relative directories added to PYTHONPATH
    rtol: float = 1e-3
    stop: str = ""  # a regex: a step ends at its first stdout line matching it (a long run)
    note: str = ""


def _words(seed, words, lines, per_line):
    rng = np.random.default_rng(seed)
    return "\n".join(" ".join(rng.choice(words, per_line)) for _ in range(lines)) + "\n"


CHAR_WORDS = ("the quick brown fox jumps over lazy dog and then runs away into forest where "
              "tall trees grow near river banks").split()


def prepare_nanogpt_data(tree, work):
    """nanoGPT's data/<dataset>/{train,val}.bin and meta.pkl, as its shakespeare_char
    prepare.py writes them, from a generated character corpus."""
    text = _words(0, CHAR_WORDS, 3000, 12)
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    ids = np.array([stoi[c] for c in text], dtype=np.uint16)
    out = os.path.join(tree, "data", "tiny_char")
    os.makedirs(out, exist_ok=True)
    n = int(len(ids) * 0.9)
    ids[:n].tofile(os.path.join(out, "train.bin"))
    ids[n:].tofile(os.path.join(out, "val.bin"))
    with open(os.path.join(out, "meta.pkl"), "wb") as f:
        pickle.dump({"vocab_size": len(chars), "itos": dict(enumerate(chars)), "stoi": stoi}, f)
    # sample.py imports tiktoken (used only without meta.pkl): a stand-in if it is missing
    _stub(work, "tiktoken",
          "def get_encoding(name):\n    raise NotImplementedError('tiktoken stand-in')\n")


def prepare_mingpt_text(tree, work):
    words = ("to be or not that is the question whether tis nobler in mind suffer slings "
             "arrows of outrageous fortune O God, God!").split()
    with open(os.path.join(work, "input.txt"), "w") as f:
        f.write(_words(1, words, 500, 10))


def prepare_word_corpus(tree, work):
    words = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron "
             "pi rho sigma tau upsilon phi chi psi omega").split()
    os.makedirs(os.path.join(work, "corpus"), exist_ok=True)
    for seed, name, lines in ((2, "train", 400), (3, "valid", 60), (4, "test", 60)):
        with open(os.path.join(work, "corpus", f"{name}.txt"), "w") as f:
            f.write(_words(seed, words, lines, 12))


MNIST_FILES = (("train-images-idx3-ubyte", 1024), ("train-labels-idx1-ubyte", 1024),
               ("t10k-images-idx3-ubyte", 512), ("t10k-labels-idx1-ubyte", 512))
MNIST_SOURCE = ["/work/shared/data/mnist"]


def prepare_mnist(tree, work, up=1, train=None, folder="data", dataset="MNIST", test=None):
    """``../data/MNIST/raw/`` (``up`` levels above the working directory: ``./data`` for 0,
    ``../../data`` for 2; ``folder`` instead of ``data``): the first 1024 (or ``train``)
    training and 512 test images of MNIST, as uncompressed IDX files (torchvision's layout,
    so its download step finds them). ``dataset="FashionMNIST"`` writes the same digits as
    a stand-in FashionMNIST (the same IDX format, in ``data/FashionMNIST/raw/``); ``test``
    instead of 512 test images."""
    root = work
    for _ in range(up):
        root = os.path.dirname(root)
    raw = os.path.join(root, folder, dataset, "raw")
    os.makedirs(raw, exist_ok=True)
    for name, n in MNIST_FILES:
        n = train if train and name.startswith("train") else n
        n = test if test and name.startswith("t10k") else n
        with gzip.open(os.path.join(MNIST_SOURCE[0], name + ".gz")) as f:
            data = f.read()
        ndim = data[3]
        shape = list(struct.unpack(f">{ndim}i", data[4:4 + 4 * ndim]))
        item = int(np.prod(shape[1:]))
        shape[0] = n
        with open(os.path.join(raw, name), "wb") as f:
            f.write(data[:4] + struct.pack(f">{ndim}i", *shape)
                    + data[4 + 4 * ndim:4 + 4 * ndim + n * item])
    os.makedirs(os.path.join(work, "results"), exist_ok=True)


def prepare_tutorial_corpus(tree, work):
    """``data/train.txt`` for pytorch-tutorial's language model (it reads Penn Treebank's
    file, not in the repository snapshot): 150 generated lines of words."""
    words = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
             "fifteen sixteen").split()
    os.makedirs(os.path.join(work, "data"))
    with open(os.path.join(work, "data", "train.txt"), "w") as f:
        f.write(_words(6, words, 150, 12))


def prepare_bsds300(tree, work):
    """``dataset/BSDS300/images/{train,test}/*.png`` (super_resolution downloads BSDS300 unless
    that folder exists): 8 training and 2 test images of smooth random colour fields, 272 x
    272 (the program crops 255 x 255), and a stand-in ``six`` module (the program imports
    ``six.moves.urllib`` for the download it then skips)."""
    from PIL import Image  # optional heavy dependency: only the image programs need it
    rng = np.random.default_rng(7)
    for split, n in (("train", 8), ("test", 2)):
        folder = os.path.join(work, "dataset", "BSDS300", "images", split)
        os.makedirs(folder)
        for i in range(n):
            coarse = rng.integers(0, 256, (9, 9, 3), dtype=np.uint8)
            image = Image.fromarray(coarse).resize((272, 272), Image.BICUBIC)
            image.save(os.path.join(folder, f"{i}.png"))
    _stub(work, "six", "import sys, types, urllib\n\nmoves = types.ModuleType('six.moves')\n"
          "moves.urllib = urllib\nsys.modules['six.moves'] = moves\n")


CORA_CLASSES = ("Case_Based", "Genetic_Algorithms", "Neural_Networks",
                "Probabilistic_Methods", "Reinforcement_Learning", "Rule_Learning", "Theory")


def _cora_content(path, ids, rng):
    """Cora's ``cora.content`` for the papers ``ids``: about 18 of the 1433 binary word
    features set per paper, and a class name."""
    with open(path, "w") as f:
        for pid in ids:
            words = (rng.random(1433) < 18 / 1433).astype(int)
            f.write(f"{pid}\t" + "\t".join(map(str, words)) + f"\t{rng.choice(CORA_CLASSES)}\n")


def prepare_cora(tree, work, nodes=2708, edges=5429):
    """``cora/cora.content`` and ``cora/cora.cites`` in Cora's format (a paper id, 1433 binary
    word features and a class name per line; cited-citing id pairs), generated: ``nodes``
    papers (Cora's counts; the programs split off 1000-1600 test and validation nodes),
    about 18 words each, ``edges`` citations (repeats and self-citations possible, as
    in Cora). gcn downloads ``cora.tgz`` with ``requests`` even when the files exist: a
    stand-in ``requests`` serves the same files packed (gat skips its download)."""
    import tarfile  # (only this program's preparation packs an archive)
    rng = np.random.default_rng(11)
    ids = rng.choice(np.arange(1000, 1000000), nodes, replace=False)
    folder = os.path.join(work, "cora")
    os.makedirs(folder)
    _cora_content(os.path.join(folder, "cora.content"), ids, rng)
    with open(os.path.join(folder, "cora.cites"), "w") as f:
        for a, b in rng.choice(ids, (edges, 2)):
            f.write(f"{a}\t{b}\n")
    with tarfile.open(os.path.join(work, "cora.tgz"), "w:gz") as tgz:
        tgz.add(folder, arcname="cora")
    _stub(work, "requests", "import contextlib\n\n\n@contextlib.contextmanager\n"
          "def get(url, stream=False):\n    class Response:\n"
          "        raw = open('cora.tgz', 'rb')\n    yield Response\n    Response.raw.close()\n")


def prepare_cora_of_tree(tree, work):
    """``WORK/data/cora``: the repository's ``data/cora/cora.cites`` (its ``cora.content`` is
    not in the snapshot) with a generated ``cora.content`` for the same paper ids (pyGAT
    reads ``./data/cora/``)."""
    folder = os.path.join(work, "data", "cora")
    os.makedirs(folder)
    cites = os.path.join(tree, "data", "cora", "cora.cites")
    shutil.copy(cites, folder)
    ids = np.unique(np.loadtxt(cites, dtype=np.int64))
    _cora_content(os.path.join(folder, "cora.content"), ids, np.random.default_rng(12))


def prepare_pygcn(tree, work):
    """Kipf's pygcn reads ``../data/cora/`` from the directory it runs in: the data of
    :func:`prepare_cora_of_tree` and a launcher that runs ``pygcn/train.py`` unchanged from
    ``WORK/pygcn``."""
    prepare_cora_of_tree(tree, work)
    os.makedirs(os.path.join(work, "pygcn"))
    with open(os.path.join(work, "run_pygcn.py"), "w") as f:
        f.write("import os\nimport runpy\nimport sys\n\n"
                "os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pygcn'))\n"
                f"sys.argv[0] = {os.path.join(tree, 'pygcn', 'train.py')!r}\n"
                "runpy.run_path(sys.argv[0], run_name='__main__')\n")


NAME_SYLLABLES = "ka li mo ra ne so ta vi el an ja de ro mi lu be ca ny zo ha".split()


def prepare_names(tree, work):
    """``names.txt`` for makemore: 2000 distinct generated names of one to four syllables,
    one a line (the repository's 32,000 real names would only make the runs longer)."""
    rng = np.random.default_rng(8)
    names = {}
    while len(names) < 2000:
        names["".join(rng.choice(NAME_SYLLABLES, rng.integers(1, 5)))] = None
    with open(os.path.join(work, "names.txt"), "w") as f:
        f.write("\n".join(names) + "\n")


def prepare_shakespeare_text(tree, work):
    """``input.txt`` for ng-video-lecture (tiny Shakespeare in the repository, 1.1 MB): 2000
    generated lines of words, about 100 KB."""
    with open(os.path.join(work, "input.txt"), "w") as f:
        f.write(_words(9, CHAR_WORDS + ["KING:", "QUEEN:", "O", "thee,", "thou!"], 2000, 8))


TIKTOKEN_STANDIN = r'''import re


class Encoding:
    """Word-level ids in order of first appearance (ids never seen decode as <id>)."""

    def __init__(self):
        self.ids, self.words = {}, []

    def encode(self, text, allowed_special=()):
        words = re.findall(r"\s*\S+|\s+", text)
        for word in words:
            if word not in self.ids:
                self.ids[word] = len(self.words)
                self.words.append(word)
        return [self.ids[w] for w in words]

    def decode(self, ids):
        return "".join(self.words[i] if i < len(self.words) else f" <{i}>" for i in ids)


_ENCODING = Encoding()


def get_encoding(name):
    return _ENCODING
'''


def prepare_verdict(tree, work):
    """``the-verdict.txt`` for LLMs-from-scratch's ``gpt_train.py`` (it downloads it with
    ``requests``, unless the file exists; a stand-in ``requests`` and a word-level stand-in
    ``tiktoken``, one id per word in order of appearance, since GPT-2's BPE files are a
    download): its first 90% (the training split) 900 long words, three 256-token windows,
    its last 10% 1000 one-letter words, so one training batch of the hard-coded 124M model
    per epoch and three validation windows."""
    rng = np.random.default_rng(10)
    long_words = ["".join(rng.choice(list("abcdefghij"), 19)) for _ in range(40)]
    train = "".join(" " + w for w in rng.choice(long_words, 900))
    val = "".join(" " + w for w in rng.choice(list("klmnopqrstuvwxyz"), 1000))
    with open(os.path.join(work, "the-verdict.txt"), "w") as f:
        f.write(train + val)
    prepare_tiktoken(tree, work)
    _stub(work, "requests", "")


def prepare_gutenberg(tree, work):
    """``gutenberg/data/book{0,1}.txt`` for LLMs-from-scratch's ``pretraining_simple.py``
    (Project Gutenberg's books are a download): 600 generated words each; the stand-ins as
    for ``gpt_train.py`` (its package's ``ch05`` imports ``requests``)."""
    folder = os.path.join(work, "gutenberg", "data")
    os.makedirs(folder)
    for i in range(2):
        with open(os.path.join(folder, f"book{i}.txt"), "w") as f:
            f.write(_words(12 + i, CHAR_WORDS, 60, 10))
    prepare_tiktoken(tree, work)
    _stub(work, "requests", "")


PYTORCH_LLAMA_DRIVER = """\
# the driver of hkproj/pytorch-llama's model.py (its inference.py needs Meta's weights and
# sentencepiece): a small LLaMA 2 (grouped-query attention, rotary embeddings as complex
# numbers through view_as_complex/view_as_real, a KV cache written through slice views),
# one backward through a prompt, then greedy decoding token by token
import torch
from model import ModelArgs, Transformer

args = ModelArgs(dim=64, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=97, multiple_of=32,
                 max_batch_size=2, max_seq_len=32, device="cpu")
model = Transformer(args)
tokens = torch.tensor([[5], [17]])
logits = model(tokens, 0)
loss = torch.nn.functional.cross_entropy(logits[:, -1], torch.tensor([3, 4]))
loss.backward()
print(f"loss {loss.item():.6f} grad wv {model.layers[0].attention.wv.weight.grad.norm():.6f} "
      f"grad emb {model.tok_embeddings.weight.grad.norm():.6f}")
with torch.no_grad():
    for pos in range(24):
        logits = model(tokens, pos)
        tokens = logits[:, -1].argmax(-1, keepdim=True)
        print(f"pos {pos} logits sum {logits.sum().item():.5f} max {logits.max().item():.5f} "
              f"next {tokens.flatten().tolist()}")
"""


def prepare_pytorch_llama(tree, work):
    """The driver above, written into the working directory."""
    with open(os.path.join(work, "drive_llama.py"), "w") as f:
        f.write(PYTORCH_LLAMA_DRIVER)


def prepare_pytorch_cifar(tree, work):
    """The driver of kuangliu/pytorch-cifar's models, ``scripts/real_drivers/pytorch_cifar.py``
    (its main.py downloads CIFAR-10), copied into the working directory."""
    shutil.copy(os.path.join(HERE, "real_drivers", "pytorch_cifar.py"),
                os.path.join(work, "drive_cifar.py"))


def prepare_vit_pytorch(tree, work):
    """The driver of lucidrains/vit-pytorch (``scripts/real_drivers/vit_pytorch.py``), copied
    into the working directory as ``drive_vit.py``."""
    shutil.copy(os.path.join(HERE, "real_drivers", "vit_pytorch.py"),
                os.path.join(work, "drive_vit.py"))


def prepare_denoising_diffusion(tree, work):
    """The driver of lucidrains/denoising-diffusion-pytorch
    (``scripts/real_drivers/denoising_diffusion.py``), copied into the working directory as
    ``drive_ddpm.py``; it writes the Trainer's 100 PNGs itself."""
    shutil.copy(os.path.join(HERE, "real_drivers", "denoising_diffusion.py"),
                os.path.join(work, "drive_ddpm.py"))


def prepare_x_transformers(tree, work):
    """The driver of lucidrains/x-transformers (``scripts/real_drivers/x_transformers.py``),
    copied into the working directory as ``drive_xt.py``."""
    shutil.copy(os.path.join(HERE, "real_drivers", "x_transformers.py"),
                os.path.join(work, "drive_xt.py"))


def prepare_build_nanogpt(tree, work):
    """The driver of karpathy/build-nanogpt's ``train_gpt2.py``
    (``scripts/real_drivers/build_nanogpt.py``: the script's own text at a tiny size; it writes
    its data shards and HellaSwag examples itself), copied in as ``drive_build_nanogpt.py``."""
    shutil.copy(os.path.join(HERE, "real_drivers", "build_nanogpt.py"),
                os.path.join(work, "drive_build_nanogpt.py"))


def prepare_clip(tree, work):
    """The driver of openai/CLIP's ``clip`` package (``scripts/real_drivers/clip_model.py``),
    copied in as ``drive_clip.py`` (``pip install ftfy``: its tokenizer imports it)."""
    shutil.copy(os.path.join(HERE, "real_drivers", "clip_model.py"),
                os.path.join(work, "drive_clip.py"))


def copy_driver(source, name):
    """The ``prepare`` of a program run through a driver of its unchanged, installed library
    (``scripts/real_drivers/<source>``; the program's tree is only a directory): the driver
    copied into the working directory as ``name``. Each driver stands alone, as a user's
    script would."""
    def prepare(tree, work):
        shutil.copy(os.path.join(HERE, "real_drivers", source), os.path.join(work, name))
    return prepare


def prepare_lightning(tree, work):
    """The driver of PyTorch Lightning (``scripts/real_drivers/lightning_mnist.py``; the
    ``lightning`` package installed, its tree only a directory), copied into the working
    directory as ``drive_lightning.py``, and links to MNIST's gzipped IDX files in ``mnist/``
    (it reads the first 1024 training and 256 test images)."""
    shutil.copy(os.path.join(HERE, "real_drivers", "lightning_mnist.py"),
                os.path.join(work, "drive_lightning.py"))
    os.makedirs(os.path.join(work, "mnist"))
    for name, _ in MNIST_FILES:
        os.symlink(os.path.join(MNIST_SOURCE[0], name + ".gz"),
                   os.path.join(work, "mnist", name + ".gz"))


def prepare_d2l(tree, work):
    """The driver of d2l (``scripts/real_drivers/d2l_book.py``) copied in as ``drive_d2l.py``,
    and the first 512 training and 256 test MNIST digits as a stand-in FashionMNIST in
    ``../data/FashionMNIST/raw`` (d2l's default root, ``../data``)."""
    copy_driver("d2l_book.py", "drive_d2l.py")(tree, work)
    prepare_mnist(tree, work, up=1, train=512, dataset="FashionMNIST", test=256)


def prepare_llama2c(tree, work):
    """llama2.c's pretokenized shards for a custom 64-token vocabulary,
    ``data/tok64/data0{0,1,2}.bin`` (shard 0 the validation split) in the tree (its
    ``DATA_CACHE_DIR`` is relative to the working directory, and ``train.py`` reads
    ``configurator.py`` from there), 5000 random tokens each; stand-ins for the
    ``requests`` and ``sentencepiece`` its data module imports (used only to download and
    tokenize TinyStories)."""
    rng = np.random.default_rng(13)
    folder = os.path.join(tree, "data", "tok64")
    os.makedirs(folder, exist_ok=True)
    for i in range(3):
        rng.integers(0, 64, 5000).astype(np.uint16).tofile(os.path.join(folder, f"data{i:02d}.bin"))
    _stub(work, "requests", "")
    _stub(work, "sentencepiece", "class SentencePieceProcessor:\n    pass\n")


def prepare_tiktoken(tree, work):
    """The stand-in ``tiktoken`` alone (LLMs-from-scratch's chapter 4 scripts encode a prompt
    and decode what a randomly initialised model generates)."""
    _stub(work, "tiktoken", TIKTOKEN_STANDIN)


def _stub(work, name, source):
    """A stand-in module ``name`` in ``WORK/stubs`` (put it on the path: ``path=
    ("{work}/stubs",)``) for an import the run does not use."""
    stubs = os.path.join(work, "stubs")
    os.makedirs(stubs, exist_ok=True)
    with open(os.path.join(stubs, name + ".py"), "w") as f:
        f.write(source)


def prepare_pytorch_gan(tree, work):
    """eriklindernoren/PyTorch-GAN's ``../../data/mnist`` (the MNIST subset, in torchvision's
    layout) and a ``sitecustomize`` seeding NumPy's global generator: the programs draw
    their noise, labels and interpolation weights with ``np.random`` and never seed it, so
    both frameworks must start that stream from the same seed (put ``{work}/stubs`` on the
    path)."""
    prepare_mnist(tree, work, up=2, train=512, folder=os.path.join("data", "mnist"))
    _stub(work, "sitecustomize", "import numpy\n\nnumpy.random.seed(0)\n")


def _idx(name, n):
    """The first ``n`` items of one of MNIST's gzipped IDX files, as a NumPy array."""
    with gzip.open(os.path.join(MNIST_SOURCE[0], name + ".gz")) as f:
        data = f.read()
    ndim = data[3]
    shape = list(struct.unpack(f">{ndim}i", data[4:4 + 4 * ndim]))
    shape[0] = n
    return np.frombuffer(data, np.uint8, int(np.prod(shape)), 4 + 4 * ndim).reshape(shape)


def prepare_mnist_pickle(tree, work):
    """``data/mnist/mnist.pkl.gz`` for pytorch/tutorials' nn_tutorial (deeplearning.net's
    pickle: ``((x_train, y_train), (x_valid, y_valid), (x_test, y_test))``, float32 rows of
    784 pixels in [0, 1] and int64 labels): 1024 training and 512 validation images cut from
    MNIST; stand-ins for its unused ``requests`` and ``IPython.core.debugger`` imports."""
    def split(kind, n):
        x = _idx(f"{kind}-images-idx3-ubyte", n).reshape(n, 784).astype(np.float32) / 255
        return x, _idx(f"{kind}-labels-idx1-ubyte", n).astype(np.int64)
    folder = os.path.join(work, "data", "mnist")
    os.makedirs(folder)
    valid = split("t10k", 512)
    with gzip.open(os.path.join(folder, "mnist.pkl.gz"), "wb") as f:
        pickle.dump((split("train", 1024), valid, valid), f)
    _stub(work, "requests", "")
    for package in ("IPython", "IPython/core"):
        os.makedirs(os.path.join(work, "stubs", package))
        open(os.path.join(work, "stubs", package, "__init__.py"), "w").close()
    _stub(work, "IPython/core/debugger", "def set_trace():\n    pass\n")


NAME_LANGUAGES = {  # language: syllables its stand-in surnames are made of
    "Arabic": "ab al ha mad sa id na sr ra ki", "Chinese": "ch an zh ao li wu ng ha ye",
    "Czech": "no vak dvo rak sk ova ce ch", "Dutch": "van de ber gen hui zen aa",
    "English": "smi th wil son jo nes ham ton", "French": "du bois le fe vre ma rt in",
    "German": "sch mid mü ller ber ger hof ma", "Greek": "pa pa do pou los ni ko as",
    "Irish": "o bri en mc car thy ke ll y", "Italian": "ro ssi bi an co ne ri ll ti",
    "Japanese": "sa to ka ta na ki mu ra ya", "Korean": "ki m pa rk le e ch oi ha",
    "Polish": "ko wa lsk nó wak ski cz yk", "Portuguese": "si lva sa ntos fe rre ira",
    "Russian": "iv an ov pe tr ov sky ko va", "Scottish": "mac do na ld ca mp bell",
    "Spanish": "ga rcí a ma rt ín ez lo pe z", "Vietnamese": "ng uy en tr an ph am le"}


def prepare_name_files(tree, work):
    """``data/names/<Language>.txt`` for pytorch/tutorials' char-RNN tutorials (the 18 files
    of download.pytorch.org/tutorial/data.zip): 60 generated surnames per language, two to
    four of its syllables each, some with accents (the tutorials fold them to ASCII)."""
    rng = np.random.default_rng(11)
    folder = os.path.join(work, "data", "names")
    os.makedirs(folder)
    for language, syllables in NAME_LANGUAGES.items():
        parts = syllables.split()
        names = ["".join(rng.choice(parts, rng.integers(2, 5))).capitalize()
                 for _ in range(60)]
        with open(os.path.join(folder, language + ".txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(names) + "\n")


ENG_FRA_SUBJECTS = (("I am", "Je suis"), ("He is", "Il est"), ("She is", "Elle est"),
                    ("You are", "Vous êtes"), ("We are", "Nous sommes"),
                    ("They are", "Ils sont"))
ENG_FRA_WORDS = (("cold", "froid"), ("tired", "fatigué"), ("happy", "heureux"),
                 ("small", "petit"), ("young", "jeune"), ("hungry", "affamé"),
                 ("too cold", "trop froid"), ("too short", "trop petit"),
                 ("very busy", "très occupé"), ("not afraid", "pas effrayé"),
                 ("at home", "à la maison"), ("a director", "un directeur"))
ENG_FRA_EXTRA = ("Go.\tVa !", "Run!\tCours !", "Who are you?\tQui êtes-vous ?",
                 "She is five years younger than me.\tElle a cinq ans de moins que moi.",
                 "I am not scared of dying.\tJe ne crains pas de mourir.",
                 "He is a talented young director.\tC'est un jeune directeur plein de talent.",
                 "I am too cold.\tJe suis trop froid.", "She is too short.\tElle est trop petit.")


def prepare_eng_fra(tree, work):
    """``data/eng-fra.txt`` for pytorch/tutorials' seq2seq translation tutorial (tab-separated
    English and French sentences, as in download.pytorch.org/tutorial/data.zip): every
    subject with every predicate, the sentences the tutorial evaluates at its end, and three
    its filter drops."""
    lines = [f"{en} {e_word}.\t{fr} {f_word}." for en, fr in ENG_FRA_SUBJECTS
             for e_word, f_word in ENG_FRA_WORDS]
    os.makedirs(os.path.join(work, "data"))
    with open(os.path.join(work, "data", "eng-fra.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines + list(ENG_FRA_EXTRA)) + "\n")


LENET_TRAIN = """
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(1)
torch.set_num_threads(1)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)
    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = F.relu(self.fc1(x.view(-1, 320)))
        return F.log_softmax(self.fc2(F.dropout(x, training=self.training)), dim=1)
raw = '../data/MNIST/raw/train-'
x = np.fromfile(raw + 'images-idx3-ubyte', np.uint8, offset=16).reshape(-1, 1, 28, 28)
y = np.fromfile(raw + 'labels-idx1-ubyte', np.uint8, offset=8).astype(np.int64)
data = torch.utils.data.TensorDataset(torch.from_numpy(x / np.float32(255)),
                                      torch.from_numpy(y))
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
for epoch in range(3):
    for x, y in torch.utils.data.DataLoader(data, batch_size=32, shuffle=True):
        opt.zero_grad()
        F.nll_loss(model(x), y).backward()
        opt.step()
torch.save(model.state_dict(), 'lenet_mnist_model.pth')
"""


def prepare_fgsm(tree, work):
    """pytorch/tutorials' fgsm_tutorial: ``../data/MNIST`` (the MNIST subset, 128 test images:
    the attack runs one image at a time, seven times) and its ``lenet_mnist_model.pth`` (the
    pretrained pytorch/examples LeNet it downloads from Google Drive): the tutorial's ``Net``
    trained here by real PyTorch (without torchvision, whose CUDA build may not import on a
    CPU machine), single-threaded and seeded, 3 epochs over the 1024 training images."""
    prepare_mnist(tree, work, up=1, test=128)
    subprocess.run([sys.executable, "-c", LENET_TRAIN], cwd=work, check=True,
                   capture_output=True)


def prepare_imagefolder(tree, work):
    """``data/{train,val}/<class>/*.png`` (torchvision's ImageFolder layout): 16 training and
    8 validation images of random pixels and random sizes in two ImageNet classes."""
    from PIL import Image  # optional heavy dependency: only the image-folder programs need it
    rng = np.random.default_rng(5)
    for split, n in (("train", 8), ("val", 4)):
        for label in ("n01440764", "n01443537"):
            folder = os.path.join(work, "data", split, label)
            os.makedirs(folder)
            for i in range(n):
                h, w = rng.integers(40, 96, 2)
                pixels = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
                Image.fromarray(pixels).save(os.path.join(folder, f"{i}.png"))


NANOGPT_TRAIN = ["train.py", "config/train_shakespeare_char.py", "--dataset=tiny_char",
                 "--device=cpu", "--compile=False", "--n_layer=2", "--n_head=2", "--n_embd=64",
                 "--block_size=64", "--batch_size=8", "--max_iters=20", "--eval_interval=10",
                 "--eval_iters=2", "--log_interval=1", "--dropout=0.0", "--out_dir={work}/out"]
NANOGPT_SAMPLE = ["sample.py", "--init_from=resume", "--out_dir={work}/out", "--device=cpu",
                  "--compile=False", "--num_samples=2", "--max_new_tokens=60", "--start=the",
                  "--dtype=float32"]
MNIST_ARGS = ["--epochs", "1", "--batch-size", "64", "--log-interval", "4"]
TUTORIAL = "tutorials"
MAKEMORE = ["makemore.py", "-i", "names.txt", "-o", "out", "--n-layer", "2", "--n-head", "2",
            "--n-embd", "32", "--n-embd2", "32"]
KV_CACHE_ARGS = ["--emb_dim", "64", "--n_heads", "4", "--n_layers", "2", "--max_new_tokens", "20"]
IMAGENET_ARGS = ["imagenet/main.py", "data", "-b", "8", "--workers", "0", "-p", "1", "--seed",
                 "0", "--lr", "0.001"]

TIMM_TRAIN = ["--data-dir", "data", "--val-split", "val", "--num-classes", "2", "-b", "4",
              "--epochs", "2", "--workers", "1", "--device", "cpu", "--no-prefetcher",
              "--log-interval", "1", "--output", "out", "--experiment", "run",
              "--warmup-epochs", "0", "--seed", "0", "--no-aug"]

FASHION_MNIST = functools.partial(prepare_mnist, up=0, dataset="FashionMNIST")
PT_TUTORIAL_NOTES = {
    "tensorqs": "expected: its 'Bridge with NumPy' section shows a tensor and a NumPy array "
                "sharing memory (t.numpy(), torch.from_numpy); jtorch's tensors are immutable "
                "JAX buffers, so each conversion copies (docs/differences.md)",
    "blitz-tensor": "expected: it prints torch.empty's uninitialized memory, and its NumPy "
                    "bridge shows shared memory (a.numpy(), torch.from_numpy), which jtorch's "
                    "immutable JAX buffers do not share (docs/differences.md)",
    "introyt-modelsyt": "expected: the mean of a BatchNorm1d output, float32 rounding noise "
                        "around 0 (4.8e-08 and 4.1e-08), differs; all else exact",
    "polynomial_custom_function": "expected: a and c stay at float32 rounding noise (about "
                                  "1e-9; their true gradient is 0 for the odd sin fit), which "
                                  "differs in sign; every loss and b, d agree to 3e-7",
}

PYTORCH_GAN_ARGS = ["--n_epochs", "1", "--batch_size", "32", "--sample_interval", "5"]
# vwxyzjn/cleanrl's tiny settings (tyro flags): DQN and C51 on CartPole-v1, 1500 of their
# 2000 steps learning; SAC, TD3 and DDPG on MountainCarContinuous-v0, 300 of 400
CLEANRL_CARTPOLE = ("--total-timesteps 2000 --learning-starts 500 --train-frequency 10 "
                    "--target-network-frequency 100 --batch-size 64")
CLEANRL_MOUNTAINCAR = ("--env-id MountainCarContinuous-v0 --total-timesteps 400 "
                       "--learning-starts 100 --batch-size 32")
PYTORCH_GAN_IMAGES = tuple(f"images/{i}.png" for i in (0, 5, 10, 15))
PYTORCH_GAN_FLOAT32 = ("in float64 both frameworks print the same digits (10 compared); "
                       "in float32 PyTorch's own run is as far from its float64 run as "
                       "jtorch's")
PYTORCH_GAN_NOTES = {
    "dcgan": "expected: the losses agree to 6e-6; from step 10 the generated pixels drift in "
             "float32 (PyTorch's float32 samples are 2.3e-3 from its float64 ones at step 10, "
             "8.9e-3 at step 15; jtorch's 5e-5 and 5e-4), so a few pixels of the step-15 "
             "image differ by 2 levels",
    "cgan": "expected: one pre-activation of the discriminator's second layer is 1.7e-7, "
            "within float32 rounding of 0 (XLA's and PyTorch's dot products round "
            "differently), and takes LeakyReLU's other slope in jtorch; the first "
            "discriminator gradient then differs by 1e-2 of its largest and D's small loss "
            "(0.0145) by 1.3e-4; " + PYTORCH_GAN_FLOAT32,
    "relativistic_gan": "expected: the losses agree to 3.5e-5; the step-15 samples drift in "
                        "float32 as dcgan's (the same generator: PyTorch's float32 samples "
                        "are 4 levels from its float64 ones, jtorch's too); "
                        + PYTORCH_GAN_FLOAT32,
    "infogan": "expected: the losses agree to 2.4e-5; the step-15 samples differ by up to 4 "
               "levels, PyTorch's float32 ones from its float64 ones by up to 5 (jtorch's 3)",
    "aae": "expected: float32 rounding grows through the 16 steps (losses 1.5e-3 apart; "
           "PyTorch's float32 losses are 2e-3 from its float64 ones, jtorch's 1.5e-3); "
           + PYTORCH_GAN_FLOAT32,
    "ebgan": "expected: float32 rounding grows through the 16 steps (losses 2.1e-3 apart; "
             "PyTorch's float32 losses are 1.9e-3 from its float64 ones, jtorch's 1.6e-3, "
             "its step-15 samples 9 and 10 levels); " + PYTORCH_GAN_FLOAT32,
}

PROGRAMS = [
    Program("nanogpt", "nanoGPT", "karpathy/nanoGPT", [NANOGPT_TRAIN, NANOGPT_SAMPLE],
            cwd="tree", prepare=prepare_nanogpt_data, path=("{work}/stubs",)),
    Program("mingpt-chargpt", "minGPT", "karpathy/minGPT",
            [["projects/chargpt/chargpt.py", "--model.model_type=gpt-nano",
              "--data.block_size=32", "--trainer.max_iters=21", "--trainer.batch_size=8",
              "--trainer.num_workers=2", "--trainer.device=cpu", "--system.work_dir=out"]],
            prepare=prepare_mingpt_text, path=(".",)),
    Program("mingpt-adder", "minGPT", "karpathy/minGPT",
            [["projects/adder/adder.py", "--data.ndigit=2", "--trainer.max_iters=21",
              "--trainer.batch_size=32", "--trainer.num_workers=0", "--trainer.device=cpu",
              "--system.work_dir=out"]],
            path=(".",)),
    *(Program(f"makemore-{kind}", "makemore", "karpathy/makemore",
              [[*MAKEMORE, "--type", kind, "-n", workers, "--max-steps", "501"],
               [*MAKEMORE, "--type", kind, "--sample-only", *top_k]],
              prepare=prepare_names, checkpoints=("out/model.pt",),
              note="expected: the attention's key bias has a zero gradient in exact arithmetic "
                   "(softmax ignores a constant per query); AdamW turns its float32 rounding "
                   "noise into full steps, so it alone differs (2e-3; other tensors 2e-5)"
              if kind == "transformer" else "")
      for kind, workers, top_k in (("transformer", "2", ["--top-k", "5"]), ("bigram", "0", []),
                                   ("mlp", "0", []), ("rnn", "0", []), ("gru", "0", []),
                                   ("bow", "0", []))),
    Program("ng-video-lecture-bigram", "ng-video-lecture", "karpathy/ng-video-lecture",
            [["bigram.py"]], prepare=prepare_shakespeare_text),
    Program("llama2c", "llama2.c", "karpathy/llama2.c",
            [["train.py", "--device=cpu", "--compile=False", "--dtype=float32", "--batch_size=8",
              "--max_seq_len=32", "--vocab_source=custom", "--vocab_size=64", "--dim=32",
              "--n_layers=2", "--n_heads=4", "--n_kv_heads=2", "--multiple_of=8",
              "--gradient_accumulation_steps=2", "--max_iters=20", "--eval_interval=10",
              "--eval_iters=2", "--warmup_iters=5", "--always_save_checkpoint=True",
              "--out_dir={work}/out"]],
            cwd="tree", prepare=prepare_llama2c, path=("{work}/stubs",),
            checkpoints=("out/ckpt.pt",)),
    Program("pytorch-llama", "pytorch-llama", "hkproj/pytorch-llama",
            [["{work}/drive_llama.py"]], prepare=prepare_pytorch_llama, path=(".",),
            note="model.py unchanged; the driver (a small model, one backward, greedy decoding) "
                 "is in this script"),
    Program("pytorch-cifar", "pytorch-cifar", "kuangliu/pytorch-cifar",
            # in float64: float32 rounding through train-mode BatchNorm over 4 images, then
            # an lr-0.1 step, moves the step-1 and eval numbers of both frameworks by up to
            # 50% (PyTorch's own float32 run is as far from its float64 run as jtorch's)
            [["{work}/drive_cifar.py", "--float64"]], prepare=prepare_pytorch_cifar,
            path=(".",),
            note="models/ unchanged; the driver (9 models, 2 SGD steps on 4 random images "
                 "each, then eval, in float64) is scripts/real_drivers/pytorch_cifar.py"),
    Program("mnist", "examples", "pytorch/examples",
            [["mnist/main.py", *MNIST_ARGS, "--test-batch-size", "256", "--no-accel"]],
            prepare=prepare_mnist),
    Program("vae", "examples", "pytorch/examples", [["vae/main.py", *MNIST_ARGS, "--no-accel"]],
            prepare=prepare_mnist,
            images=("results/reconstruction_1.png", "results/sample_1.png")),
    Program("mnist_rnn", "examples", "pytorch/examples",
            [["mnist_rnn/main.py", *MNIST_ARGS, "--test-batch-size", "256"]],
            prepare=prepare_mnist),
    Program("siamese_network", "examples", "pytorch/examples",
            [["siamese_network/main.py", *MNIST_ARGS, "--test-batch-size", "256", "--no-accel"]],
            prepare=prepare_mnist,
            note="expected: Adadelta at lr 1 on ResNet-18 diverges (loss 0.85, 3.0, 43) and "
                 "amplifies float32 rounding; in float64 both agree to every printed digit"),
    Program("mnist_forward_forward", "examples", "pytorch/examples",
            [["mnist_forward_forward/main.py", "--epochs", "5", "--train_size", "512",
              "--test_size", "256", "--no_accel", "--log-interval", "1"]],
            prepare=functools.partial(prepare_mnist, up=0)),
    Program("dcgan", "examples", "pytorch/examples",
            [["dcgan/main.py", "--dataset", "fake", "--batchSize", "100", "--niter", "1",
              "--ngf", "8", "--ndf", "8", "--nz", "16", "--workers", "0", "--manualSeed", "1",
              "--outf", "."]],
            images=("fake_samples_epoch_000.png", "real_samples.png")),
    Program("word_language_model", "examples", "pytorch/examples",
            [["word_language_model/main.py", "--data", "corpus", "--emsize", "32", "--nhid",
              "32", "--nlayers", "2", "--epochs", "2", "--bptt", "16", "--batch_size", "8",
              "--dropout", "0.0", "--log-interval", "10", "--lr", "5"],
             ["word_language_model/generate.py", "--data", "corpus", "--words", "40"]],
            prepare=prepare_word_corpus, texts=("generated.txt",)),
    Program("regression", "examples", "pytorch/examples", [["regression/main.py"]],
            note="expected: x^4 features at lr 0.1 amplify 1-ulp differences of mm (K=4) until "
                 "the loss < 1e-3 stop fires at another step"),
    Program("reinforce", "examples", "pytorch/examples",
            [["reinforcement_learning/reinforce.py", "--log-interval", "1"]],
            note="needs gymnasium (pip install gymnasium); expected: episodes 1-64 agree to "
                 "every digit, then a float32 difference flips one sampled action"),
    Program("actor_critic", "examples", "pytorch/examples",
            [["reinforcement_learning/actor_critic.py", "--log-interval", "1"]],
            stop=r"^Episode 71\t",
            note="needs gymnasium; stops at episode 71: from episode 72 a float32 difference "
                 "(Adam at lr 3e-2 grows it from 1e-7 to 2e-2) flips one sampled action"),
    Program("time_sequence_prediction", "examples", "pytorch/examples",
            [["time_sequence_prediction/generate_sine_wave.py"],
             ["time_sequence_prediction/train.py", "--steps", "1"]],
            env={"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}),
    Program("imagenet", "examples", "pytorch/examples",
            [[*IMAGENET_ARGS, "-a", "resnet18", "--epochs", "1"],
             [*IMAGENET_ARGS, "-a", "resnet18", "--resume", "checkpoint.pth.tar", "--evaluate"]],
            prepare=prepare_imagefolder),
    Program("imagenet-efficientnet_b0", "examples", "pytorch/examples",
            [[*IMAGENET_ARGS, "-a", "efficientnet_b0", "--epochs", "1"]],
            prepare=prepare_imagefolder),
    Program("super_resolution", "examples", "pytorch/examples",
            [["super_resolution/main.py", "--upscale_factor", "3", "--batchSize", "4",
              "--testBatchSize", "2", "--nEpochs", "2", "--threads", "0", "--lr", "0.001"]],
            prepare=prepare_bsds300, path=("{work}/stubs",)),
    Program("gcn", "examples", "pytorch/examples",
            [["gcn/main.py", "--epochs", "20", "--val-every", "5", "--no-accel"]],
            prepare=prepare_cora, path=("{work}/stubs",)),
    Program("gat", "examples", "pytorch/examples",
            [["gat/main.py", "--epochs", "10", "--val-every", "5", "--no-accel"]],
            prepare=prepare_cora, path=("{work}/stubs",)),
    # tkipf/pygcn: Kipf and Welling's GCN on Cora, its adjacency matrix a legacy
    # torch.sparse.FloatTensor multiplied with torch.spmm; 200 epochs of Adam with dropout
    Program("pygcn", "pygcn", "tkipf/pygcn", [["{work}/run_pygcn.py"]],
            prepare=prepare_pygcn, path=(".",), env={"PYTHONHASHSEED": "0"},
            results=r"^(?!Total time elapsed)",
            note="encode_onehot numbers the classes in set() order: PYTHONHASHSEED=0 in both"),
    # Diego999/pyGAT: graph attention networks on Cora, the dense layer and the sparse one (a
    # custom autograd.Function saving a sparse COO tensor for its backward), Adam with
    # dropout, a checkpoint per epoch and the best one reloaded for the test
    Program("pygat", "pyGAT", "Diego999/pyGAT",
            [["train.py", "--epochs", "8"], ["train.py", "--epochs", "6", "--sparse"]],
            prepare=prepare_cora_of_tree, path=(".",), results=r"^(?!Total time elapsed)"),
    Program("llms-from-scratch-gpt_train", "LLMs-from-scratch", "rasbt/LLMs-from-scratch",
            [["ch05/01_main-chapter-code/gpt_train.py"]], prepare=prepare_verdict,
            path=("{work}/stubs",), checkpoints=("model.pth",)),
    Program("llms-from-scratch-pretraining_simple", "LLMs-from-scratch", "rasbt/LLMs-from-scratch",
            [["ch05/03_bonus_pretraining_on_gutenberg/pretraining_simple.py", "--debug", "True",
              "--eval_freq", "5", "--print_sample_iter", "10", "--n_epochs", "2",
              "--batch_size", "4", "--output_dir", "ckpt"]],
            results=r"^(?!Book processed|Total time elapsed|ETA for)",
            prepare=prepare_gutenberg, path=("{work}/stubs", "pkg"),
            checkpoints=("ckpt/model_pg_final.pth",)),
    *(Program(f"llms-from-scratch-{name}", "LLMs-from-scratch", "rasbt/LLMs-from-scratch",
              [[f"ch04/{script}", *KV_CACHE_ARGS, *args]], prepare=prepare_tiktoken,
              path=("{work}/stubs",))
      for name, script, args in (
          ("kv_gqa", "04_gqa/gpt_with_kv_gqa.py", []),
          ("kv_mla", "05_mla/gpt_with_kv_mla.py", ["--latent_dim", "16"]),
          ("kv_swa", "06_swa/gpt_with_kv_swa.py", ["--sliding_window_size", "8"]),
          ("kv_moe", "07_moe/gpt_with_kv_moe.py", ["--num_experts", "4", "--hidden_dim", "128"]))),
    *(Program(f"nlp-tutorial-{name}", "nlp-tutorial", "graykode/nlp-tutorial", [[script]],
              env={"PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"})  # vocabularies from set()
      for name, script in (
          ("NNLM", "1-1.NNLM/NNLM.py"), ("TextCNN", "2-1.TextCNN/TextCNN.py"),
          ("TextRNN", "3-1.TextRNN/TextRNN.py"), ("TextLSTM", "3-2.TextLSTM/TextLSTM.py"),
          ("Seq2Seq", "4-1.Seq2Seq/Seq2Seq.py"),
          ("Seq2Seq-Attention", "4-2.Seq2Seq(Attention)/Seq2Seq(Attention).py"),
          ("Bi-LSTM-Attention", "4-3.Bi-LSTM(Attention)/Bi-LSTM(Attention).py"))),
    *(Program(f"nlp-tutorial-{name}", "nlp-tutorial", "graykode/nlp-tutorial", [[script]],
              env={"PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"},
              note="expected: the first step agrees to float32 rounding (gradients to 1e-8 of "
                   "their largest in Bi-LSTM, 3e-6 in BERT); Adam's steps on near-zero "
                   "gradients then amplify it")
      for name, script in (
          ("Bi-LSTM", "3-3.Bi-LSTM/Bi-LSTM.py"), ("Transformer", "5-1.Transformer/Transformer.py"),
          ("BERT", "5-2.BERT/BERT.py"))),
    Program("tutorial-language_model", "pytorch-tutorial", "yunjey/pytorch-tutorial",
            [[f"{TUTORIAL}/02-intermediate/language_model/main.py"]],
            prepare=prepare_tutorial_corpus, texts=("sample.txt",), checkpoints=("model.ckpt",)),
    Program("tutorial-birnn", "pytorch-tutorial", "yunjey/pytorch-tutorial",
            [[f"{TUTORIAL}/02-intermediate/bidirectional_recurrent_neural_network/main.py"]],
            prepare=functools.partial(prepare_mnist, up=2), checkpoints=("model.ckpt",)),
    Program("tutorial-linear_regression", "pytorch-tutorial", "yunjey/pytorch-tutorial",
            [[f"{TUTORIAL}/01-basics/linear_regression/main.py"]], env={"MPLBACKEND": "Agg"},
            checkpoints=("model.ckpt",)),
    # (the GAN reshapes each batch to its batch size, 100: a training set of 1000 images)
    *(Program(f"tutorial-{name}", "pytorch-tutorial", "yunjey/pytorch-tutorial",
              [[f"{TUTORIAL}/{script}/main.py"]],
              prepare=functools.partial(prepare_mnist, up=2,
                                        train=1000 if name == "gan" else None),
              checkpoints=checkpoints, images=images, note=note)
      for name, script, checkpoints, images, note in (
          ("logistic_regression", "01-basics/logistic_regression", ("model.ckpt",), (), ""),
          ("feedforward", "01-basics/feedforward_neural_network", ("model.ckpt",), (), ""),
          ("cnn", "02-intermediate/convolutional_neural_network", ("model.ckpt",), (),
           "expected: the convolutions' biases feed BatchNorm, so their true gradient is 0 and "
           "both compute rounding noise (1e-7 against 1e-2 for the weights); Adam turns that "
           "noise into steps of about lr, so the biases (and the running means) wander apart"),
          ("rnn", "02-intermediate/recurrent_neural_network", ("model.ckpt",), (),
           "expected: weight_ih_l0's column for pixel x=1 (almost always 0 in MNIST) differs "
           "by 5e-4 (its rare tiny gradients, scaled up by Adam), every other column by "
           "under 4e-5"),
          ("gan", "03-advanced/generative_adversarial_network", ("G.ckpt", "D.ckpt"),
           ("samples/real_images.png", "samples/fake_images-1.png",
            "samples/fake_images-25.png", "samples/fake_images-200.png"),
           "expected: the generated images agree within one grey level for 25 epochs (250 "
           "steps of each Adam), then the adversarial game amplifies float32 rounding (mean "
           "pixel difference 0.07 at epoch 25, 0.9 at 50, 20 at 200)"),
          ("vae", "03-advanced/variational_autoencoder", (),
           ("samples/sampled-1.png", "samples/reconst-1.png", "samples/sampled-15.png",
            "samples/reconst-15.png"), ""))),
    # lucidrains/vit-pytorch: a driver of its package (its 20 default variants of 33, each
    # trained three Adam steps at dim 32 on 32x32 images, then one eval forward)
    Program("vit-pytorch", "vit-pytorch", "lucidrains/vit-pytorch", [["{work}/drive_vit.py"]],
            prepare=prepare_vit_pytorch, path=(".",),
            note="expected: levit's and cvt's gradient norms differ by up to 1e-2 (BatchNorm "
                 "over 2 to 8 values of their tiny maps amplifies float32 rounding; PyTorch's "
                 "float32 run is as far from float64 as jtorch's) and max_vit's eval sum by "
                 "1.2% (float32 differences of its training steps); in float64 "
                 "(VIT_FLOAT64=1) both frameworks print the same digits"),
    # lucidrains/denoising-diffusion-pytorch: a driver of its package (19 diffusion variants,
    # three Adam steps and a sampled batch each, then its Trainer with accelerate and EMA;
    # needs ema-pytorch installed)
    Program("denoising-diffusion", "denoising-diffusion-pytorch",
            "lucidrains/denoising-diffusion-pytorch", [["{work}/drive_ddpm.py"]],
            prepare=prepare_denoising_diffusion, path=(".",),
            checkpoints=("results/model-1.pt", "results/model-2.pt"),
            images=("results/sample-1.png", "results/sample-2.png")),
    # lucidrains/x-transformers: a driver of its package (53 variants: decoders through
    # AutoregressiveWrapper with greedy/top-k/top-p generation, masked encoders, cross-attention,
    # XTransformer, continuous and ViT wrappers; three Adam steps and an eval each; needs einx,
    # loguru and torch-einops-utils installed)
    Program("build-nanogpt", "build-nanogpt", "karpathy/build-nanogpt",
            [["{work}/drive_build_nanogpt.py"]], prepare=prepare_build_nanogpt, path=(".",),
            note="expected: under torch.autocast(bfloat16) PyTorch's CPU attention is its "
                 "flash kernel (exponentials by a fast approximate exp, rounded to bfloat16 "
                 "before the product with V; its own backward), jtorch's the exact float32 "
                 "computation rounded once: step 0's loss 3e-6 apart, then within 7e-5, and "
                 "the untrained model's near-ties flip (HellaSwag 1/6 against 2/6, the "
                 "sampled text, from step 4); build-nanogpt-float32 agrees: 240 numbers "
                 "within 1.1e-3 relative, the largest the attention key biases' checkpoint "
                 "sums"),
    Program("build-nanogpt-float32", "build-nanogpt", "karpathy/build-nanogpt",
            [["{work}/drive_build_nanogpt.py"]], prepare=prepare_build_nanogpt, path=(".",),
            env={"BNG_FLOAT32": "1"},
            note="expected: float32 rounding. The one number past 1e-3 relative is the "
                 "checkpoint sum of h.0's c_attn.bias (0.00178 of an absolute sum of 0.283, "
                 "1.9e-6 apart): its key third has a zero true gradient (softmax ignores a "
                 "bias added to every key), so AdamW moves it by float32 noise; every other "
                 "number within 6.2e-5 (2026-11-30; 4.5e-4 before cross_entropy took its "
                 "log-probabilities from jtorch's log_softmax, as accurate as JAX's)"),
    Program("clip", "CLIP", "openai/CLIP", [["{work}/drive_clip.py"]], prepare=prepare_clip,
            path=(".",),
            note="expected: PyTorch 2.13's clip.load of a state-dict file fails (torch.jit.load "
                 "reads the file to its end, then torch.load finds nothing: EOFError), "
                 "jtorch's jit.load raises NotImplementedError (a RuntimeError) first and "
                 "clip.load goes on; the float16 text tower differs by float16 rounding "
                 "(QuickGELU's scalar product and sigmoid, float16 matmuls)"),
    # OpenCLIP 3.3 (pip install "open_clip_torch>=3.3,<3.4"): a driver of tiny ViT,
    # ModifiedResNet, CustomTextCLIP (SigLIP loss) and CoCa models from its own configs, its
    # tokenizer and image transforms, ClipLoss, AdamW steps, checkpoint loading with
    # position-embedding resizing; the tree is an empty directory "open_clip"
    Program("open-clip", "open_clip", "mlfoundations/open_clip", [["{work}/drive_open_clip.py"]],
            prepare=copy_driver("open_clip_tiny.py", "drive_open_clip.py"),
            note="expected: float32 rounding, grown by AdamW's first step (sign-like for "
                 "near-zero gradients) behind the ResNet's BatchNorms: up to 9.4e-5 relative "
                 "(OPEN_CLIP_FLOAT64=1 agrees to 3e-14)"),
    Program("open-clip-bf16", "open_clip", "mlfoundations/open_clip",
            [["{work}/drive_open_clip.py", "bf16"]],
            prepare=copy_driver("open_clip_tiny.py", "drive_open_clip.py"),
            note="expected: bfloat16 autocast (open_clip_train's amp_bf16): logits differ by "
                 "up to 0.07, a few bfloat16 steps (PyTorch's CPU bfloat16 kernels round "
                 "inside, as for build-nanogpt), step 0's loss by 1.4e-4, later ones by 0.8%"),
    Program("x-transformers", "x-transformers", "lucidrains/x-transformers",
            [["{work}/drive_xt.py"]], prepare=prepare_x_transformers, path=(".",)),
    # PyTorch Lightning 2.6 (pip install "lightning>=2.6,<2.7"): a driver of its Trainer
    # (fit, validate, test, predict, resume, load_from_checkpoint, accumulation and clipping,
    # bf16-mixed) and Fabric on an MNIST subset; the tree is an empty directory "lightning"
    Program("lightning", "lightning", "Lightning-AI/pytorch-lightning",
            [["{work}/drive_lightning.py"]], prepare=prepare_lightning,
            env={"MNIST_DIR": "mnist"}, checkpoints=("lightning_out/fabric.ckpt",),
            note="expected: bf16-mixed's losses differ by up to 2e-4, its accuracies not at "
                 "all: PyTorch's CPU bfloat16 convolution backward rounds partial sums, "
                 "jtorch's gradients are the exact ones rounded once"),
    # kornia 0.9 (pip install "kornia>=0.9,<0.10"): a driver of its filters, colour
    # conversions, warps and homographies, enhancements, morphology, losses, feature responses
    # and augmentation pipelines on small random images; the tree is an empty directory "kornia"
    Program("kornia", "kornia", "kornia/kornia", [["{work}/drive_kornia.py"]],
            prepare=copy_driver("kornia_ops.py", "drive_kornia.py")),
    # pytorch-metric-learning 2.9 (pip install "pytorch-metric-learning>=2.9,<2.10" faiss-cpu):
    # a driver of its 38 losses, miners, distances, reducers, regularizers, CrossBatchMemory,
    # a tiny embedding net's training and AccuracyCalculator (faiss and CustomKNN) on seeded
    # embeddings; the tree is an empty directory "pytorch-metric-learning"
    Program("metric-learning", "pytorch-metric-learning",
            "KevinMusgrave/pytorch-metric-learning", [["{work}/drive_pml.py"]],
            prepare=copy_driver("metric_learning_losses.py", "drive_pml.py")),
    # TorchMetrics 1.9 (pip install "torchmetrics>=1.9,<1.10"): a driver of its classification,
    # regression, retrieval, image, audio, text, clustering, nominal, pairwise, segmentation
    # and panoptic metrics, functional and stateful, aggregation, MetricCollection, wrappers,
    # metric state and gradients, on seeded NumPy data; the tree is an empty directory
    # "torchmetrics"
    Program("torchmetrics", "torchmetrics", "Lightning-AI/torchmetrics",
            [["{work}/drive_torchmetrics.py"]],
            prepare=copy_driver("torchmetrics_suite.py", "drive_torchmetrics.py")),
    # GPyTorch 1.15 with linear_operator 0.6 and BoTorch 0.18 (pip install
    # "gpytorch>=1.15,<1.16" "botorch>=0.18,<0.19"): a driver of exact GPs (Cholesky and
    # CG/Lanczos), kernels, multitask, SVGP and classification models, and a BoTorch
    # SingleTaskGP + qLogEI step; the tree is an empty directory "gpytorch"
    Program("gpytorch", "gpytorch", "cornellius-gp/gpytorch",
            [["{work}/drive_gpytorch.py"]],
            prepare=copy_driver("gpytorch_models.py", "drive_gpytorch.py"),
            note="expected: simple32 (float32) differs by float32 rounding, up to 2.6e-4 in a "
                 "hyperparameter (its float64 twin simple64 agrees to 3e-13); cg by up to 3e-6: "
                 "its CG and Lanczos iterate at rounding level (PyTorch run with 1 thread "
                 "differs from itself with 2 by 1.5e-6 there)"),
    # PyTorch Geometric 2.8 (pip install torch_geometric==2.8.0.post1, no pyg-lib,
    # torch-scatter or torch-sparse): a driver of its graph utilities, GCN/GAT/SAGE/GIN and
    # eleven more convolutions, DataLoader batching with global pooling, MessagePassing
    # subclasses, basic models, norms, aggregations, pooling, transforms and HeteroConv on
    # small random graphs; the tree is an empty directory "pyg"
    Program("pyg", "pyg", "pyg-team/pytorch_geometric", [["{work}/drive_pyg.py"]],
            prepare=copy_driver("pyg_models.py", "drive_pyg.py")),
    # torchdata 0.11 (pip install torchdata==0.11.0): StatefulDataLoader (map-style and
    # iterable datasets, 0 and 2 spawn workers, shuffle, drop_last, custom collate, mid-epoch
    # state_dict resumes) and torchdata.nodes pipelines with checkpoints; the tree is an empty
    # directory "torchdata"
    Program("torchdata", "torchdata", "pytorch/data", [["{work}/drive_torchdata.py"]],
            prepare=copy_driver("torchdata_pipelines.py", "drive_torchdata.py")),
    # sentence-transformers 6.0 (pip install "sentence-transformers>=6.0,<6.1" datasets): a
    # driver of encode, pooling, util's search and mining, twelve losses through its trainer and
    # a manual loop, five evaluators, a CrossEncoder and save/load on a tiny BERT built locally;
    # the tree is an empty directory "sentence-transformers"
    Program("sentence-transformers", "sentence-transformers", "UKPLab/sentence-transformers",
            [["{work}/drive_st.py"]],
            prepare=copy_driver("sentence_transformers_tiny.py", "drive_st.py"),
            note="expected: float32 rounding, grown by AdamW's sign-like first steps: losses "
                 "agree to 2e-6 relative, trained parameters' checksums to 5e-4 (PyTorch's own "
                 "float32 run differs from its float64 run as much)"),
    # Hugging Face diffusers 0.42 (pip install "diffusers>=0.42,<0.43"): a driver of its
    # UNets, VAE, DiT, schedulers, pipelines, EMA and save/load at tiny sizes; the tree is an
    # empty directory "diffusers"
    Program("diffusers", "diffusers", "huggingface/diffusers", [["{work}/drive_diffusers.py"]],
            prepare=copy_driver("diffusers_tiny.py", "drive_diffusers.py"),
            checkpoints=("diffusers_out/unet2d.pt",),
            images=("diffusers_out/ddpm.png",)),
    # Hugging Face PEFT 0.21 (pip install "peft==0.21.0"): a driver of LoRA (rsLoRA, DoRA,
    # bias modes, PiSSA/OLoRA inits, embeddings, convolutions, mixed-adapter batches), IA3,
    # LoHa, LoKr, AdaLoRA, VeRA, OFT, BOFT, HRA, FourierFT and more, prefix, prompt and
    # P-tuning on tiny transformers models: training, merge/unmerge, save/load, weighted
    # adapters; the tree is an empty directory "peft"
    Program("peft", "peft", "huggingface/peft", [["{work}/drive_peft.py"]],
            prepare=copy_driver("peft_adapters.py", "drive_peft.py")),
    # torchinfo 1.8 and torchsummary 1.5 (pip install "torchinfo==1.8.0" torchsummary==1.5.1):
    # the model-summary tables tutorials print, from forward hooks, for a CNN, an LSTM, a
    # TransformerEncoder and a frozen model with a buffer; the tree is an empty directory
    # "torchinfo"
    Program("model-summaries", "torchinfo", "TylerYep/torchinfo",
            [["{work}/drive_summaries.py"]],
            prepare=copy_driver("model_summaries.py", "drive_summaries.py")),
    # Captum 0.9 (pip install "captum>=0.9,<0.10"): a driver of its attribution methods
    # (integrated gradients, saliency, DeepLift/DeepLiftShap, GradientShap, guided backprop,
    # GradCAM, layer and neuron conductance, LayerIntegratedGradients on an embedding,
    # occlusion, ablation, permutation, Shapley sampling, KernelShap, Lime, NoiseTunnel),
    # captum.metrics and TracInCP influence on tiny seeded CNN, MLP and embedding+LSTM models;
    # the tree is an empty directory "captum"
    Program("captum", "captum", "pytorch/captum", [["{work}/drive_captum.py"]],
            prepare=copy_driver("captum_attributions.py", "drive_captum.py"),
            note="expected: float32 rounding; the largest relative differences are convergence "
                 "deltas that are zero up to rounding (~1e-8; CAPTUM_FLOAT64=1 agrees to "
                 "9e-16 absolute)"),
    # Stable-Baselines3 2.9 (pip install "stable-baselines3==2.9.2", with gymnasium 1.4): a
    # driver of PPO (plain, gSDE, VecNormalize), A2C, DQN (and DQN with a HER replay buffer
    # on SB3's BitFlippingEnv), SAC (learned and fixed entropy, gSDE), TD3 and DDPG on
    # CartPole-v1 and Pendulum-v1 with [16] nets and a few hundred timesteps: parameters,
    # deterministic actions, evaluate_actions, save/load; the action distributions, the
    # replay and rollout buffers; the tree is an empty directory "sb3"
    Program("sb3", "sb3", "DLR-RM/stable-baselines3", [["{work}/drive_sb3.py"]],
            prepare=copy_driver("sb3_agents.py", "drive_sb3.py")),
    # Pyro 1.9 (pyro-ppl 1.9.2, installed): a driver of pyro.distributions (log_prob, draws,
    # rsample gradients, KL), transforms and normalizing flows, SVI (Trace_ELBO,
    # TraceMeanField_ELBO, TraceEnum_ELBO, RenyiELBO; AutoNormal, AutoDiagonalNormal,
    # AutoMultivariateNormal, AutoLowRankMultivariateNormal, AutoDelta, AutoLaplaceApproximation,
    # AutoIAFNormal), pyro.optim Adam/ClippedAdam, the param store, Predictive, poutine, a VAE
    # with pyro.module, importance sampling, pyro.ops.stats, HMC and NUTS; the tree is an empty
    # directory "pyro"
    Program("pyro", "pyro", "pyro-ppl/pyro", [["{work}/drive_pyro.py"]],
            prepare=copy_driver("pyro_models.py", "drive_pyro.py")),
    # torchdiffeq 0.2.5 (pip install torchdiffeq==0.2.5): a driver of odeint's fixed-grid and
    # adaptive solvers (euler to dopri8, SciPy's), their options, odeint_adjoint against
    # backpropagation through the solver, odeint_event, complex states, a continuous
    # normalizing flow and neural-ODE training, in float64 and float32; the tree is an empty
    # directory "torchdiffeq"
    Program("torchdiffeq", "torchdiffeq", "rtqichen/torchdiffeq",
            [["{work}/drive_torchdiffeq.py"]],
            prepare=copy_driver("torchdiffeq_odes.py", "drive_torchdiffeq.py"),
            note="expected: float32 adaptive solves differ by up to 1.6e-4 (their first small "
                 "steps' error estimates are a few float32 ulps, so rounding steers the "
                 "step-size controller); float64 agrees to 1e-13 but for dopri8 (1.3e-9 in a "
                 "solution, 3.8e-8 in a gradient) and the event time (1.2e-10), where the same "
                 "rounding-level estimates decide (PyTorch moves as much for y0 moved 1 ulp)"),
    # skorch 1.4 with scikit-learn (pip install "skorch>=1.4,<1.5"): a driver of
    # NeuralNetClassifier/Regressor/BinaryClassifier with its callbacks (EpochScoring,
    # BatchScoring, EarlyStopping, Checkpoint, LRScheduler, GradientNormClipping, Freezer,
    # LoadInitState), sklearn's Pipeline and GridSearchCV, and save_params/load_params/pickle
    # on make_classification/make_regression data; the tree is an empty directory "skorch"
    Program("skorch", "skorch", "skorch-dev/skorch", [["{work}/drive_skorch.py"]],
            prepare=copy_driver("skorch_nets.py", "drive_skorch.py")),
    # the optimizer libraries (pip install torch-optimizer==0.3.0 lion-pytorch schedulefree
    # ema-pytorch thop): a driver of torch-optimizer's thirty optimizers, Lion, schedule-free
    # AdamW/SGD/RAdam and ScheduleFreeWrapper (train/eval switching), EMA and PostHocEMA, and
    # thop's MAC counting, on a tiny MLP and conv net in float32 and float64, with state_dict
    # round trips; the tree is an empty directory "optimizers"
    Program("optimizers", "optimizers", "jettify/pytorch-optimizer",
            [["{work}/drive_optimizers.py"]],
            prepare=copy_driver("optimizer_libs.py", "drive_optimizers.py"),
            note="expected: float32 rounding, grown by Shampoo's SVD-based inverse roots (its "
                 "momentum buffer up to 5.4e-3 relative in float32, 7e-11 in float64) and "
                 "Adahessian's division by small Hessian diagonals (5.6e-4; PyTorch's own "
                 "float32 run is 1e-4 from its float64 run); every other number within 3.6e-6"),
    # MONAI 1.6 (pip install "monai>=1.6,<1.7"): a driver of its networks (UNet 2D/3D,
    # BasicUNet, AttentionUnet, SegResNet, DynUNet, UNETR, SwinUNETR, DenseNet121, ResNet,
    # AutoEncoder, VarAutoEncoder) forward and backward, losses, metrics, array transforms,
    # sliding-window inference and a tiny UNet trained on a Dice loss; the tree is an empty
    # directory "monai"
    Program("monai", "monai", "Project-MONAI/MONAI", [["{work}/drive_monai.py"]],
            prepare=copy_driver("monai_nets.py", "drive_monai.py"),
            note="expected: float32 rounding (float64 runs agree but for NormalizeIntensity, "
                 "which computes in float32 and whose mean jtorch sums less exactly)"),
    # piq 0.8 and pytorch-msssim 1.0 (pip install "piq==0.8.0" "pytorch-msssim==1.0.0"): a
    # driver of piq's full- and no-reference metrics and losses that need no downloaded
    # weights, its feature-space metrics, pytorch_msssim's ssim/ms_ssim and modules, with
    # gradients, and Adam steps maximising SSIM, on seeded 64x64 images; the tree is an empty
    # directory "piq"
    Program("piq", "piq", "photosynthesis-team/piq", [["{work}/drive_iq.py"]],
            prepare=copy_driver("image_quality.py", "drive_iq.py"),
            note="expected: float32 rounding (gradient checksums to 3e-5 of their abssum); "
                 "float64 lines to 2e-7 relative where the libraries build windows in float32 "
                 "(pytorch_msssim's Gaussian sum of 11 terms is 1 ulp apart)"),
    # zuko 1.6 and nflows 0.14 (pip install "zuko==1.6.0" "nflows==0.14"): a driver of
    # normalizing flows at tiny sizes: zuko's MAF, NSF, NCSF, NAF, UNAF, RealNVP/NICE, SOSPF,
    # BPF, GF, CNF (its adaptive ODE solver and adjoint; exact and Hutchinson traces), GMM
    # mixtures and BayesianModel, unconditional and with a context; zuko.distributions and
    # zuko.transforms; nflows' masked affine/spline autoregressive and coupling transforms,
    # permutations, LULinear, BatchNorm, ActNorm, SVD/QR linear, 1x1 convolution and its Flow
    # and distributions: log_prob, samples, inverse round trips, log-dets and Adam steps; the
    # tree is an empty directory "flows"
    Program("flows", "flows", "probabilists/zuko", [["{work}/drive_flows.py"]],
            prepare=copy_driver("flow_libs.py", "drive_flows.py")),
    # segmentation_models_pytorch 0.6 (pip install "segmentation-models-pytorch==0.6.0", with
    # timm): a driver of its 12 architectures with small encoders (resnet18, mobilenet_v2,
    # efficientnet-b0, tu-resnet10t, mit_b0, a timm ViT for DPT) and aux heads, smp.losses in
    # three modes, smp.metrics, save/from_pretrained and Adam steps of a Unet, no pretrained
    # weights; the tree is an empty directory "segmentation_models.pytorch"
    Program("smp", "segmentation_models.pytorch", "qubvel-org/segmentation_models.pytorch",
            [["{work}/drive_smp.py"]],
            prepare=copy_driver("smp_models.py", "drive_smp.py"),
            note="expected: float32 rounding: the one large relative difference is a gradient's "
                 "weighted sum that cancels (1.6e-6 absolute against an abs-sum of 133); "
                 "gradients through BatchNorm+ReLU6/ReLU differ by up to 5e-3 of their abs-sum "
                 "where rounding moves an activation across the kink (PyTorch's own float32 "
                 "run is as far from float64); in float64 (SMP_FLOAT64=1) both agree to 2e-12"),
    # Opacus 1.6 and torch-ema 0.3 (pip install "opacus>=1.6,<1.7" "torch-ema==0.3"): a driver
    # of PrivacyEngine.make_private / make_private_with_epsilon (fixed batches and Poisson
    # sampling; flat, per-layer and ghost clipping) on a tiny MLP, CNN and DPLSTM, the
    # per-sample gradients (grad_sample) of GradSampleModule's hooks, functorch and
    # expanded-weights samplers against a loop over the samples, DPOptimizer's clipping and
    # shared noise, the RDP/PRV/GDP accountants, ModuleValidator.fix, save/load_checkpoint and
    # torch-ema's ExponentialMovingAverage; the tree is an empty directory "opacus"
    Program("opacus", "opacus", "pytorch/opacus", [["{work}/drive_opacus.py"]],
            prepare=copy_driver("opacus_dp.py", "drive_opacus.py"),
            note="expected: float32 rounding; the largest relative difference (1.7) is the "
                 "per-sample gradient of DPMultiheadAttention's key bias, which the softmax "
                 "cancels (1.8e-9 absolute, zero up to rounding); every other number within "
                 "2e-4 (a cancelling weighted sum), 8.7e-6 without those; OPACUS_FLOAT64=1 "
                 "agrees to 5.7e-14 absolute"),
    # torchsde 0.2.6, torchcde 0.2.5 and geomloss 0.3.1 (pip install torchsde==0.2.6
    # torchcde==0.2.5 geomloss==0.3.1): a driver of torchsde's Brownian motions and sdeint (Ito
    # and Stratonovich; diagonal, scalar, additive and general noise; euler to reversible_heun,
    # adaptive steps), sdeint_adjoint, a latent SDE and its SDE-GAN example; torchcde's
    # interpolations and cdeint (torchdiffeq and torchsde backends, adjoints); geomloss'
    # SamplesLoss on the tensorized backend and geomloss.ot, with gradients and Hessian-vector
    # products, in float64 (one float32 variant); the tree is an empty directory "sde_cde_ot"
    Program("sde_cde_ot", "sde_cde_ot", "google-research/torchsde",
            [["{work}/drive_sde_cde_ot.py"]],
            prepare=copy_driver("sde_cde_ot.py", "drive_sde_cde_ot.py"),
            note="expected: float32 rounding in the float32 variant (geomloss' energy loss to "
                 "9e-5 of its value: the diagonal of |x|^2+|y|^2-2x.y is exactly 0 in PyTorch "
                 "and 1-2 ulps in XLA, which the square root makes 2e-4 per point); float64 "
                 "agrees to 5.5e-13 but for adaptive Euler-Maruyama (7e-11), whose step-size "
                 "controller follows rounding (PyTorch moves 6e-12 for a parameter moved 1 ulp)"),
    # entmax 1.3, vector-quantize-pytorch 1.32, performer-pytorch 1.1.4 and pytorch-tabnet 4.1
    # (pip install "entmax==1.3" "vector-quantize-pytorch==1.32.0" "performer-pytorch==1.1.4"
    # "pytorch-tabnet==4.1.0"): a driver of sparsemax/entmax15/bisection activations and losses
    # with their autograd.Function backwards; VectorQuantize (EMA codebook updates, commitment
    # loss, k-means init, dead codes, heads, rotation trick...), ResidualVQ, GroupedResidualVQ,
    # FSQ, LFQ, LatentQuantize, SimVQ with gradients and a trained autoencoder; performer's
    # FastAttention, SelfAttention, CrossAttention and PerformerLM (causal with feature
    # redraws, reversible) with Adam steps; TabNetClassifier/Regressor/Pretrainer fitted for two
    # epochs on a seeded table, predict, explain, importances, save/load; the tree is an empty
    # directory "sparse_vq_tabular"
    Program("sparse_vq_tabular", "sparse_vq_tabular", "lucidrains/vector-quantize-pytorch",
            [["{work}/drive_sparse_vq_tabular.py"]],
            prepare=copy_driver("sparse_vq_tabular.py", "drive_sparse_vq_tabular.py"),
            note="expected: float32 rounding grown by TabNet's pretraining (PyTorch's own "
                 "reconstruction moves by 1.6e-4 for a 1-ulp change of the inputs)"),
    # pytorch-ignite 0.5.5 and torch-pruning 1.6.1 (pip install "pytorch-ignite==0.5.5"
    # "torch-pruning==1.6.1"): a driver of ignite's supervised trainer/evaluator, Engine events,
    # metrics, param schedulers, checkpoints and ignite.distributed in serial mode, and of
    # torch-pruning's DependencyGraph, Magnitude/Meta/BNScale/GroupNorm pruners and importances
    # on a small residual CNN, torchvision's resnet18 and a tiny ResNet fine-tuned by ignite;
    # the tree is an empty directory "ignite"
    Program("ignite-pruning", "ignite", "pytorch/ignite", [["{work}/drive_ignite_pruning.py"]],
            prepare=copy_driver("ignite_pruning.py", "drive_ignite_pruning.py"),
            note="expected: float32 rounding grown by training through train-mode BatchNorm "
                 "(a pruned ResNet fine-tuned 8 SGD steps: 1.2e-2 on a loss, where PyTorch's "
                 "own float32 run is 1.7e-2 from its float64 run); everything else within "
                 "5e-4; in float64 the same numbers to 2e-12"),
    # neuraloperator 2.0, POT 0.9.7 and torchquad 0.6 (pip install "neuraloperator==2.0.0"
    # "POT==0.9.7.post1" "torchquad==0.6.0", with tensorly 0.10 and tensorly-torch 0.5): a
    # driver of neuralop's SpectralConv (1-3-D), FNO/TFNO (dense, Tucker, CP) in 1-D and 2-D,
    # UNO, LpLoss/H1Loss, Adam steps on a synthetic Darcy-like problem and checkpoint
    # save/load (float32: neuralop's spectral weights are torch.cfloat); POT's ot.dist, emd/emd2,
    # sinkhorn/sinkhorn2 (plain, log, stabilized), unbalanced Sinkhorn, (entropic)
    # Gromov-Wasserstein and seeded sliced Wasserstein with gradients w.r.t. positions and
    # weights; torchquad's Trapezoid/Simpson/Boole/GaussLegendre/MonteCarlo/VEGAS in 1-3 D and
    # gradients of integrals (float64); the tree is an empty directory "sciml"
    Program("sciml", "sciml", "neuraloperator/neuraloperator", [["{work}/drive_sciml.py"]],
            prepare=copy_driver("sciml_libs.py", "drive_sciml.py"),
            note="expected: float32 rounding in neuralop (up to 7e-6 of a cancelling weighted "
                 "sum of a CP-TFNO gradient, losses within 1.5e-7 relative); POT and "
                 "torchquad in float64 agree to 2.9e-14 relative"),
    # e3nn 0.6, higher 0.2.1 and normflows 1.7.3 (pip install "e3nn==0.6.0" "higher==0.2.1"
    # "normflows==1.7.3"): a driver, in float64, of e3nn's Irreps, spherical harmonics (three
    # normalizations) and their Wigner-D equivariance, soft_one_hot_linspace, BatchNorm,
    # FullyConnectedNet and a tiny equivariant point-cloud network trained with Adam; e3nn's
    # FX-generated Linear/tensor products/Gate with weight and input gradients, jit.compile,
    # deepcopy and save/load; higher's innerloop_ctx
    # (SGD, Adam, MAML meta-gradients, copy_initial_weights, track_higher_grads=False,
    # monkeypatch); normflows RealNVP, neural spline, residual and Glow flows (forward/reverse
    # KLD, Adam steps, sample, log_prob, save/load); the tree is an empty directory "e3nn"
    Program("e3nn-higher-flows", "e3nn", "e3nn/e3nn", [["{work}/drive_e3nn.py"]],
            prepare=copy_driver("e3nn_higher_flows.py", "drive_e3nn.py"),
            note="expected: rounding; all 230 lines agree but for the last digits (e3nn's "
                 "FX-generated tensor products, Linear and Gate: 464 numbers to 1.4e-14 "
                 "absolute, 3.5e-15 relative; the rest to 1.8e-12 absolute but for "
                 "rounding-zero gradients (1e-14) and Glow after an Adam step on 3 "
                 "rounding-level gradients (2.4e-10 of a checksum))"),
    # BackPACK 1.7.1 and laplace-torch 0.3 (pip install "backpack-for-pytorch==1.7.1"
    # "laplace-torch==0.3", with curvlinops-for-pytorch 3.0 and asdl for laplace): a driver
    # of BackPACK's first- and second-order extensions on an extended MLP and CNN (CE and MSE
    # losses) and of laplace's Laplace (last-layer and all weights; diag, kron and full
    # Hessians on the BackPACK GGN/EF and curvlinops GGN backends) fitted on tiny regression
    # and classification loaders, with prior-precision optimisation, predictives, the log
    # marginal likelihood and its gradient, state_dict save/load; float64; the tree is an
    # empty directory "curvature"
    Program("curvature", "curvature", "f-dangel/backpack", [["{work}/drive_curvature.py"]],
            prepare=copy_driver("curvature_libs.py", "drive_curvature.py"),
            note="expected: float64 rounding (max abs 3.6e-12 on a checksum of 358, max rel "
                 "8.7e-14)"),
    # accelerate 1.15, torchensemble 0.2 and kmeans-pytorch 0.3 (pip install
    # "accelerate==1.15.0" "torchensemble==0.2.0" "kmeans-pytorch==0.3"): a driver of
    # accelerate on CPU, one process (prepare of model/optimizer/DataLoader/scheduler, backward,
    # gradient accumulation, clip_grad_norm_/clip_grad_value_, gather_for_metrics, bf16
    # autocast, save_state/load_state resuming, save_model, big-model loading and CPU/disk
    # offload, torch.compile through dynamo_backend, utils), of torchensemble's 13 ensembles
    # (fit 2 epochs, predict/evaluate, save/load via torchensemble.utils.io) and of
    # kmeans/kmeans_predict (euclidean, cosine); float64 where the libraries allow; the tree
    # is an empty directory "accelerate_ensembles"
    Program("accelerate-ensembles", "accelerate_ensembles", "huggingface/accelerate",
            [["{work}/drive_accel.py"]],
            prepare=copy_driver("accelerate_ensembles.py", "drive_accel.py"),
            note="expected: float64 rounding (max abs 2.8e-14, max rel 5.1e-14); kmeans "
                 "computes in float32 (its centres 1 float32 ulp apart, 5.2e-7 of 3.24)"),
    # fastai 2.8.12 (pip install "fastai==2.8.12"): a driver of its DataBlock/DataLoaders
    # (ImageBlock/CategoryBlock, Resize, seeded aug_transforms, Normalize), a small ConvLayer
    # CNN Learner and vision_learner(resnet18, pretrained=False) with fit, fit_one_cycle,
    # lr_find, SaveModelCallback/EarlyStopping, GradientAccumulation, MixUp, accuracy/
    # error_rate/F1Score, get_preds/predict, save/load, export/load_learner, TabularDataLoaders
    # + tabular_learner (Categorify, FillMissing, Normalize) and the TensorBase subclass ops,
    # on 32 seeded 20x20 PNGs and a 48-row DataFrame written to a temporary directory; the tree
    # is an empty directory "fastai"
    Program("fastai", "fastai", "fastai/fastai", [["{work}/drive_fastai.py"]],
            prepare=copy_driver("fastai_learners.py", "drive_fastai.py"),
            note="expected: float32 rounding (largest 5.3e-5 relative, resnet18's predictions "
                 "after an unfrozen epoch; every other line within 8.8e-7)"),
    # DeepXDE 1.15 (PyTorch backend) and pykan 0.2.8 (pip install "deepxde>=1.15,<1.16"
    # pykan==0.2.8): a driver of physics-informed networks (1-D Poisson with Adam then L-BFGS,
    # an ODE system, the heat equation on GeometryXTime, an inverse problem with dde.Variable,
    # Neumann/Robin/PointSet conditions and callbacks, DeepONetCartesianProd, forward-mode
    # derivatives through torch.func.jvp, save/restore) in float64, and of pykan's KAN
    # (create_dataset, LBFGS/Adam fit with grid updates and the regulariser, refine, prune,
    # fix_symbolic/auto_symbolic, saveckpt/loadckpt, a multiplication node); the tree is an
    # empty directory "pinn_kan"
    Program("pinn_kan", "pinn_kan", "lululxvi/deepxde", [["{work}/drive_pinn_kan.py"]],
            prepare=copy_driver("pinn_kan.py", "drive_pinn_kan.py"),
            note="expected: L-BFGS amplifies float64 rounding (DeepXDE's L-BFGS phases to "
                 "1.1e-9 relative, every Adam phase to 2e-14); pykan's LBFGS fit with grid "
                 "updates and auto_symbolic's grid search are chaotic: its symbolic affine "
                 "parameters differ by 9e-2 relative, while two PyTorch runs differ by 0.5"),
    # linear-attention-transformer 0.19.1 and local-attention 1.11.2 (installed, with
    # product_key_memory 0.3.0 and CoLT5-attention 0.11.2 as their dependencies): a driver of
    # LinearAttentionTransformerLM (causal/bidirectional, local heads, reversible, axial,
    # Linformer with context, PKM layers, rotary, shift tokens), AutoregressiveWrapper
    # training and seeded generate, ImageLinearAttention, LocalAttention (causal, look
    # backward/forward, exact window, autopad, masks, shared qk, xpos), LocalMHA and
    # LocalTransformer (kv-cache generate), PKM and CoLT5's routed blocks, coor_descent, topk
    # and ConditionalRoutedViT, in float64; the tree is an empty directory
    # "linear-local-attention"
    Program("linear-local-attention", "linear-local-attention",
            "lucidrains/linear-attention-transformer",
            [["{work}/drive_linear_local_attention.py"]],
            prepare=copy_driver("linear_local_attention.py", "drive_linear_local_attention.py"),
            note="expected: the libraries' rotary/sinusoidal tables are float32 (.float() "
                 "buffers) whose sin/cos differ by 1 float32 ulp between XLA and PyTorch: "
                 "those float64 models agree to 1e-7 relative (to 1e-13 with correctly rounded "
                 "float32 sin/cos in both); the rest to 6e-15; the float32 dynamic-position-bias "
                 "LocalTransformer to 5e-6 after two Adam steps; sampled tokens identical"),
    # lightly 1.6, mambapy 1.2, reformer-pytorch 1.4.4 and jaxtyping 0.3 (installed, with
    # beartype): a driver of lightly's self-supervised losses (NTXent with and without memory
    # bank, BarlowTwins, VICReg, DCL/DCLW, TiCo, KoLeo, MMCR, Hypersphere, MSN/PMSN, W-MSE,
    # FroSSL, DirectCLR, DINO with its center, SwaV with queue and sinkhorn), projection heads
    # and prototypes, SimCLR/BYOL/NNCLR training with momentum encoders and memory banks, its
    # ResNet with split batch norm under LARS and CosineWarmupScheduler, kNN prediction, token
    # masking utilities, FFT and PIL augmentation pipelines; mambapy's pscan, Mamba (parallel,
    # sequential, recurrent step), an LM, VMamba and Jamba; reformer's LSH attention,
    # ReformerLM (axial, GLU chunks, full attention) with TrainingWrapper, ReformerEncDec,
    # Autopadder, generate and Recorder; lightly's MAE on a torchvision ViT;
    # jaxtyping+beartype annotations on tensors; in float64; the tree is an empty
    # directory "lightly-mamba-reformer"
    Program("lightly-mamba-reformer", "lightly-mamba-reformer", "lightly-ai/lightly",
            [["{work}/drive_lightly.py"]],
            prepare=copy_driver("lightly_mamba_reformer.py", "drive_lightly.py"),
            note="expected: float64 models agree to 2e-9 relative where rounding is not "
                 "amplified; the float32 parts (lightly's memory banks, mambapy's A_log, "
                 "reformer's rotary table) to 1e-7, the float32 NNCLR model after three SGD "
                 "steps through batch norm to 2.5e-5; all printed text identical"),
    # sbi 0.27 and torchdyn 1.0.6 (pip install "sbi>=0.27,<0.28" torchdyn==1.0.6; installed
    # with nflows 0.14 and zuko 1.6): a driver of sbi's NPE (MAF/NSF/MDN/zuko MAF, a second
    # atomic-loss round, map, state_dict save/load), NLE with MCMC (slice_np_vectorized) and
    # VI posteriors, NRE_A/B/C and BNRE with rejection, importance and MCMC posteriors, FMPE
    # and NPSE, simulate_for_sbi; and of torchdyn's NeuralODE (rk4/euler/dopri5/tsit5 with
    # autograd, adjoint and interpolated-adjoint sensitivities), Augmenter/DataControl/DepthCat
    # with an Adam loop on ToyDataset moons, torchdyn.numerics.odeint and CNF (exact and
    # Hutchinson trace); the tree is an empty directory "sbi"
    Program("sbi", "sbi", "sbi-dev/sbi", [["{work}/drive_sbi.py"]],
            prepare=copy_driver("sbi_torchdyn.py", "drive_sbi.py"),
            note="expected: float32 rounding (within 2.7e-6 relative), but for NRE_B's logits "
                 "and potentials, offset by a constant 2.8e-3: NRE_B's contrastive loss is "
                 "invariant to a shift of the logits, so the classifier's output bias has a "
                 "zero true gradient that Adam turns from float32 noise into lr-sized steps"),
    # tensordict 0.14 and TorchRL 0.14 (installed: pip install "tensordict>=0.14,<0.15"
    # "torchrl>=0.14,<0.15"): a driver of TensorDict (nested keys, indexing, stack/cat, apply,
    # where/pad/pad_sequence/gather/consolidate, torch.save round trips, tensorclass),
    # TensorDictModule/Sequential and probabilistic modules (TanhNormal), from_module/to_module
    # and from_modules ensembles under vmap, TorchRL's value estimators (TD0, TD(lambda), GAE)
    # and losses (DQN, double DQN, ClipPPO, KL-PPO, A2C, REINFORCE, SAC, discrete SAC, DDPG, TD3,
    # IQL, CQL) trained a few Adam steps with SoftUpdate/HardUpdate, an LSTMModule, replay
    # buffers (LazyTensorStorage/ListStorage, random, without-replacement and slice samplers,
    # state_dict) and the Pendulum env (transforms, specs, rollout, Collector); float64 except
    # the env variant; the tree is an empty directory "torchrl"
    Program("torchrl", "torchrl", "pytorch/rl", [["{work}/drive_torchrl.py"]],
            prepare=copy_driver("torchrl_losses.py", "drive_torchrl.py"),
            note="expected: float64 rounding (max rel 1.5e-14, 1.4e-14 absolute); the float32 "
                 "Pendulum rollouts to 5.7e-7 relative"),
    # pytorch-grad-cam 1.5.7 (pip install "grad-cam==1.5.7"): a driver of its CAM methods
    # (GradCAM, HiResCAM, GradCAMElementWise, GradCAM++, XGradCAM, EigenCAM, EigenGradCAM,
    # LayerCAM, KPCA_CAM, ScoreCAM, AblationCAM, FullGrad, ShapleyCAM, FEM, FinerCAM, SESS,
    # RefineCAM, SegEigenCAM) with aug/eigen smoothing, its targets, guided backprop, the
    # confidence and ROAD metrics and image utilities, on a seeded resnet18, a small CNN, a
    # tiny ViT and a 3D CNN, with SGD steps and a state_dict round trip; the tree is an empty
    # directory "gradcam"
    Program("gradcam", "gradcam", "jacobgil/pytorch-grad-cam", [["{work}/drive_gradcam.py"]],
            prepare=copy_driver("gradcam_cams.py", "drive_gradcam.py"),
            note="expected: float32 rounding (CAMs to 2e-6 relative; ROAD and confidence "
                 "scores, differences of softmax outputs, to 1.7e-8 absolute)"),
    # x-transformers 2.31, vit-pytorch 1.26 and rotary-embedding-torch 0.9 (installed: pip
    # install "x-transformers==2.31.10" "vit-pytorch==1.26.14" "rotary-embedding-torch==0.9.1"):
    # a driver of RotaryEmbedding (plain, xpos, learned frequencies, offsets, axial pixel
    # frequencies), TransformerWrapper decoders through AutoregressiveWrapper (rotary, GLU,
    # RMSNorm, attn_flash, memory tokens; ALiBi, residual attention, memory key/values) with
    # seeded generate and a torch.save/torch.load round trip, an XTransformer and an Encoder
    # classifier, and vit-pytorch's ViT, SimpleViT, CaiT, CrossViT, MAE and Dino (its default
    # augmentations and EMA teacher), each trained a few Adam steps; the tree is an empty
    # directory "xtransformers-pip"
    Program("xtransformers-pip", "xtransformers-pip", "lucidrains/x-transformers",
            [["{work}/drive_xtransformers.py"]],
            prepare=copy_driver("xtransformers_models.py", "drive_xtransformers.py"),
            note="expected: float32 rounding (losses to 1.2e-6, gradient norms to 1.3e-6; "
                 "cross_vit's eval logit sum, 0.10 of magnitudes 8.6, to 1.2e-3 relative, "
                 "1.2e-4 absolute; identical in float64)"),
    # pytorch/examples' fx/ programs (torch.fx's tutorials: a custom tracer, inlining a
    # traced function, inverting a graph, a primitive library, building a graph with proxies,
    # replacing an op, the subgraph rewriter, wrapping outputs); lines holding a function's
    # repr (an address) are not compared. module_tracer.py (torchvision's resnet18) prints
    # its docstring's expected lines under jtorch; it is not listed because torchvision's C
    # ops do not load under the CPU torch here. profiling_tracer.py prints profiler timings.
    Program("fx-examples", "examples", "pytorch/examples",
            [[f"fx/{name}.py"] for name in (
                "custom_tracer", "inline_function", "invert", "primitive_library",
                "proxy_based_graph_creation", "replace_op", "subgraph_rewriter_basic_use",
                "wrap_output_dynamically")],
            results=r"^(?!.*<function )",
            note="expected: invert's graph names torch.arctan as torch.atan (one function "
                 "for both names in jtorch)"),
    # torchcfm 1.0.7 (with POT 0.9.7), torchode 1.0.1 and denoising-diffusion-pytorch 2.3.4
    # (pip install "torchcfm==1.0.7" "torchode==1.0.1" "denoising-diffusion-pytorch==2.3.4"):
    # a driver of torchcfm's five conditional flow matchers on its 2-D toy data (paths, flows,
    # lambda, label-guided OT pairs), OTPlanSampler and wasserstein, MLP training per matcher
    # (score network for the Schrodinger bridge), UNetModelWrapper (attention, checkpointing,
    # float16 blocks) with samples by torchode and torchdyn's NeuralODE; torchode's solve_ivp,
    # AutoDiffAdjoint, Backsolve/JointBacksolveAdjoint, Integral/PID/fixed-step controllers on
    # batched problems with per-sample time spans, gradients through the solve; a tiny Unet
    # and Unet1D with GaussianDiffusion trained and sampled; the tree is an empty directory
    # "torchcfm"
    Program("torchcfm", "torchcfm", "atong01/conditional-flow-matching",
            [["{work}/drive_torchcfm.py"]],
            prepare=copy_driver("torchcfm_flows.py", "drive_torchcfm.py"),
            note="expected: float32 rounding; torchode's adaptive solves to 1.4e-4 relative "
                 "(their first error estimate is float32 rounding noise, which sets the next "
                 "step size; PyTorch moves 1e-4 for y0 moved 1 ulp), everything else within "
                 "1.5e-5; CFM_FLOAT64=1 agrees to 1.3e-12"),
    # TorchANI 2.9 (installed: pip install torchani==2.9.0, with h5py and ase; its compiled
    # cuAEV/MNP/cell-list extensions not built, so the pure-PyTorch paths run): a driver of what
    # someone training their own potential builds (no pretrained models, no downloads):
    # AEVComputer from explicit constants, SpeciesConverter, ANIModel/ANINetworks of per-element
    # networks, EnergyShifter in torchani.nn.Sequential, padded batches, forces by autograd,
    # energy+force training (create_graph=True), state_dict round trips (also TorchANI 1 keys),
    # periodic AEVs/forces/virial (all-pairs and cell-list neighborlists), Assembler-built ANI
    # and ANIq models (xTB repulsion, D3 dispersion, ensembles, QBC, charges, dipoles),
    # Hessians and vibrational analysis, SingleNN/ANISharedNetworks/Ensemble, pair potentials,
    # an HDF5 ANIDataset batched with exact SAEs, utilities and the ASE calculator (BFGS);
    # the tree is an empty directory "torchani"
    Program("torchani", "torchani", "aiqm/torchani", [["{work}/drive_torchani.py"]],
            prepare=copy_driver("torchani_potentials.py", "drive_torchani.py"),
            note="expected: float32 rounding (within 4.2e-6 relative, sums of force "
                 "magnitudes); the data variant's SAE-subtracted energies to 2.5e-3 relative "
                 "(9.2e-5 absolute): exact_saes solves a float32 least-squares problem "
                 "(torch.linalg.lstsq, driver gels), whose solutions differ by float32 "
                 "rounding between LAPACK's QR and jtorch's solver"),
    # PyKEEN 1.11 (pip install "pykeen>=1.11,<1.12"): a driver of knowledge-graph embedding
    # models (TransE, DistMult, ComplEx, RotatE, TuckER, ConvE, TransH through pipeline())
    # trained with the sLCWA (basic and Bernoulli negative samplers) and LCWA loops on a
    # synthetic in-memory graph, with margin-ranking, softplus, BCE and NSSA losses,
    # RankBasedEvaluator, score_hrt/score_t/score_h, predict_target and a state_dict
    # round trip; the tree is an empty directory "pykeen"
    Program("pykeen", "pykeen", "pykeen/pykeen", [["{work}/drive_pykeen.py"]],
            prepare=copy_driver("pykeen_kge.py", "drive_pykeen.py"),
            note="expected: float32 rounding (epoch losses within 1.3e-7 relative; the largest, "
                 "8e-6 relative, is a cancelling parameter sum; PYKEEN_FLOAT64=1 agrees to "
                 "4e-15 for the real-valued models); every metric, ranking and prediction "
                 "is equal"),
    # TorchOpt 0.7.3 (pip install "torchopt>=0.7.3,<0.8"): a driver of its functional and OOP
    # optimizers, MAML through its meta-optimizers and through torch.func, implicit
    # differentiation (custom_root, ImplicitMetaGradientModule), zero-order estimates, linalg,
    # pytree helpers and make_dot on tiny models; the tree is an empty directory "torchopt"
    Program("torchopt", "torchopt", "metaopt/torchopt", [["{work}/drive_torchopt.py"]],
            prepare=copy_driver("torchopt_meta.py", "drive_torchopt.py"),
            results=r"^(?!visual \w+ backward nodes)"),
    # PyPose 0.9.5 (pip install "pypose>=0.9,<0.10"): a driver of its LieTensor groups (SO3,
    # SE3, Sim3, RxSO3 and algebras) and their operations with gradients, cumulative products,
    # camera and point-cloud functions, splines, a pose graph by LM/GN, IMU preintegration,
    # EKF/UKF, LQR/MPC, ICP/EPnP and APE/RPE; the tree is an empty directory "pypose"
    Program("pypose", "pypose", "pypose/pypose", [["{work}/drive_pypose.py"]],
            prepare=copy_driver("pypose_lie.py", "drive_pypose.py"),
            note="expected: float32 rounding, largest in the one float32 pose-graph LM "
                 "(normal equations with an SE3 parameter's zero 7th Jacobian column clamped "
                 "to 1e-6): step 0's loss 5.2e-4 relative, the nodes' abssum 3e-3 of 12.8; "
                 "every other float32 number within 5.8e-5, float64 within 3e-14 absolute"),
    # TransformerLens 4.3 (pip install "transformer-lens>=4.3,<4.4"): a driver of
    # TransformerBridge.boot_native models (TransformerLens 4's HookedTransformer) and bridges
    # around tiny Hugging Face models, run_with_cache/ActivationCache, forward and backward
    # hooks, activation patching, generate, training, compatibility mode, FactoredMatrix and
    # utilities, tokenizer-free and offline; the tree is an empty directory "transformer_lens"
    Program("transformer-lens", "transformer_lens", "TransformerLensOrg/TransformerLens",
            [["{work}/drive_tl.py"]],
            prepare=copy_driver("transformer_lens_hooks.py", "drive_tl.py")),
    # Tianshou 0.5.1 (tianshou==0.5.1, installed, with gymnasium 1.4): a driver of DQN
    # (n-step, prioritized replay), C51, QR-DQN, Rainbow (noisy dueling nets), IQN, REINFORCE,
    # A2C, PPO (discrete and Gaussian), NPG, TRPO, DDPG, TD3, SAC (auto-alpha), REDQ and
    # discrete SAC on CartPole-v1 and Pendulum-v1 with [16] nets and a few hundred steps:
    # Collector/DummyVectorEnv, Off/OnpolicyTrainer and the trainer functions, losses,
    # parameters, the policies' outputs, state_dict save/load; Batch, the replay buffers, GAE
    # and n-step returns; the tree is an empty directory "tianshou"
    Program("tianshou", "tianshou", "thu-ml/tianshou", [["{work}/drive_tianshou.py"]],
            prepare=copy_driver("tianshou_policies.py", "drive_tianshou.py"),
            note="expected: float32 rounding; the largest relative differences are losses "
                 "that are zero up to rounding (TRPO's surrogate at the old policy, <2e-7) "
                 "and NPG/TRPO's conjugate-gradient steps (up to 2e-4 relative; the same "
                 "Hessian-vector products agree exactly in float64)"),
    # geoopt 0.5.1 (pip install "geoopt>=0.5,<0.6"): a driver of its manifolds (Sphere, the
    # Stiefel family, Stereographic/PoincareBall/SphereProjection with learnable curvature,
    # Lorentz, Scaled, Product, Birkhoff, SPD, Siegel), their operations and gradients,
    # ManifoldTensor/ManifoldParameter, linalg, layers, the tree dataset, the samplers and
    # every optimizer (Poincare embeddings, Stiefel PCA, SPD Karcher mean, line search, the
    # sparse optimizers, a state_dict resume), in float32 and float64; the tree is an empty
    # directory "geoopt"
    Program("geoopt", "geoopt", "geoopt/geoopt", [["{work}/drive_geoopt.py"]],
            prepare=copy_driver("geoopt_manifolds.py", "drive_geoopt.py"),
            note="expected: the text is identical and every number not zero up to rounding "
                 "agrees to float32 rounding (float64: 5e-10); the relative differences come "
                 "from values that are exactly zero in theory (a Stiefel gradient of 1e-6 in "
                 "float32, Lorentz logmap0's time coordinate, orthogonality residuals of "
                 "1e-16 in float64) and from SGRHMC, whose samples run toward the ball's "
                 "boundary and grow a 1e-16 difference to 3.6e-6 in float64 (8% in float32)"),
    # nnAudio 0.3.4, julius 0.2.8 and auraloss 0.4.0 (pip install nnAudio==0.3.4 julius==0.2.8
    # auraloss==0.4.0; no librosa: the driver's stand-in librosa.filters.mel is nnAudio's copy of
    # librosa 0.7's): a driver of nnAudio's STFT (windows, centring, pad modes, frequency
    # scales, output formats, trainable kernels, inverse and iSTFT), MelSpectrogram, MFCC, the
    # CQTs, VQT and Gammatonegram; julius's resample_frac/ResampleFrac, FIR low/high/band-pass
    # filters and filter banks, SplitBands, fft_conv1d/FFTConv1d and helpers; auraloss's STFT,
    # multi-resolution, mel, random-resolution and sum-and-difference losses, time-domain
    # losses and FIR pre-emphasis filters, with gradients to the signals and trainable kernels,
    # and a tiny denoiser trained with MultiResolutionSTFTLoss; the tree is an empty directory
    # "audio_dsp"
    Program("audio-dsp", "audio_dsp", "KinWaiCheuk/nnAudio", [["{work}/drive_audio.py"]],
            prepare=copy_driver("audio_dsp.py", "drive_audio.py"),
            results=r"^(?!.*time used)",
            note="expected: float32 rounding (every sum within 5.2e-4 relative, the median "
                 "2e-8; AUDIO_FLOAT64=1 agrees to 7e-13 outside julius's float32 kernels) and "
                 "phases at the branch cut: frames whose spectrum is real up to rounding "
                 "(reflect-padded first frames) have imaginary parts of +-1e-7 whose sign "
                 "differs, so their phase is pi in one framework and -pi in the other "
                 "(nnAudio's Phase output, auraloss's w_phs term)"),
    # torchkbnufft 1.5.2 (pip install torchkbnufft==1.5.2): a driver of KbNufft/KbNufftAdjoint
    # (table and sparse-matrix interpolation, sensitivity maps, radial, spiral and batched
    # trajectories, 2-D and 3-D, complex and view_as_real inputs), KbInterp/KbInterpAdjoint,
    # ToepNufft with calc_toeplitz_kernel, the density compensation, the functional API and
    # complex helpers, gradients to the image, the k-space data and the trajectory, KbModule.to,
    # CG-SENSE and gradient-descent reconstructions on 16x16 images; the tree is an empty
    # directory "torchkbnufft"
    Program("torchkbnufft", "torchkbnufft", "mmuckley/torchkbnufft", [["{work}/drive_tkbn.py"]],
            prepare=copy_driver("torchkbnufft_nufft.py", "drive_tkbn.py"),
            note="expected: float32 rounding; the Toeplitz kernels' imaginary parts are exactly "
                 "0 in PyTorch (pocketfft of a Hermitian-symmetric array) and rounding-sized in "
                 "jtorch (XLA's FFT: 1.2e-5 summed over 1024 entries up to 13; 3.4e-14 in "
                 "float64); differences of two results ('a - b') and cancelling imaginary sums "
                 "differ by up to 1.3e-2 relative; every number above 0.5 in magnitude within "
                 "1.4e-5 relative; TKBN_FLOAT64=1 within 2.3e-13 absolute"),
    # pythae 0.1.2 (pip install pythae==0.1.2, with scikit-learn and cloudpickle): a driver of
    # its 27 autoencoders (default MLP and MNIST benchmark architectures), TrainingPipeline and
    # the four trainers, its ten samplers and model.save/AutoModel.load_from_folder, on 64
    # synthetic 1x8x8 images; the tree is an empty directory "pythae"
    Program("pythae", "pythae", "clementchadebec/benchmark_VAE", [["{work}/drive_pythae.py"]],
            prepare=copy_driver("pythae_models.py", "drive_pythae.py"),
            checkpoints=("pythae_out/VAE/model.pt", "pythae_out/VQVAE/model.pt",
                         "pythae_out/RHVAE/model.pt", "pythae_out/VAE-custom/model.pt"),
            note="expected: the text is identical; SVAE's lines differ because its von "
                 "Mises-Fisher sampler draws Beta variates (torch.distributions.Beta -> "
                 "torch._sample_dirichlet), which come from each framework's own generator, not "
                 "the shared stream (with Beta.sample given shared draws SVAE agrees to 1.5e-5); "
                 "every other number within 3.5e-4: resnet-VAE, where PyTorch's float32 "
                 "convolution gradients are 2e-4 from its own float64 ones and jtorch's 1.3e-6, "
                 "then FactorVAE's weighted parameter sum (2.4e-4 of a cancelling sum over 4M "
                 "parameters after two Adam epochs), the rest 4.2e-5"),
    # pytorch-minimize 0.1.0, cooper-optim 1.0.1, torchjd 0.18.0 and mup 1.0.0 (pip install
    # pytorch-minimize==0.1.0 cooper-optim==1.0.1 torchjd==0.18.0 mup==1.0.0 qpsolvers quadprog):
    # a driver of torchmin's minimize (every method) on Rosenbrock and a logistic regression,
    # least_squares, minimize_constr, Minimizer/ScipyMinimizer; Cooper's constrained logistic
    # regressions (Simultaneous, Alternating, Extrapolation, nuPI, Augmented Lagrangian,
    # QuadraticPenalty, Indexed multipliers); TorchJD's mtl_backward/backward/jac/jac_to_grad under
    # 18 aggregators and the autogram Engine; a muP MLP trained by MuAdam/MuAdamW/MuSGD; float32
    # and float64; the tree is an empty directory "optim2"
    Program("optim2", "optim2", "rfeinman/pytorch-minimize", [["{work}/drive_optim2.py"]],
            prepare=copy_driver("optim2_libs.py", "drive_optim2.py"),
            note="expected: float64 agrees to 1e-12 except torchmin's cg on Rosenbrock (a 1-ulp "
                 "difference at iterate 1 grows to 1e-2 by iterate 60); float32 iterates agree "
                 "to 1e-6 relative, then line searches stop at other evaluations near the "
                 "optimum (nfev/nit differ); TorchJD's autogram Engine agrees to float32 "
                 "rounding with batch_dim=0 and None"),
    # kymatio 0.3.0, ptwt 1.0.1, torch-dct 0.1.6 and torch-harmonics 0.9.3 (pip install
    # kymatio==0.3.0 ptwt==1.0.1 torch-dct==0.1.6 torch-harmonics==0.9.3; the driver puts in
    # scipy.special.sph_harm for kymatio and stand-ins for torch-harmonics' compiled helper
    # modules): a driver of kymatio's Scattering1D/2D and HarmonicScattering3D, ptwt's
    # wavedec/waverec 1-D/2-D/3-D, fswavedec2, swt/iswt, cwt (complex and differentiable
    # wavelets), the sparse-matrix MatrixWavedec/Waverec 1-D/2-D/3-D and wavelet packets,
    # torch-dct's DCTs and LinearDCT, torch-harmonics' real (vector) SHTs on three grids,
    # SpectralConvS2, DISCO convolutions, ResampleS2 and QuadratureS2, in float32 and float64,
    # with reconstruction errors and gradients, and a linear classifier on scattering
    # coefficients trained six Adam steps; the tree is an empty directory "signal_transforms"
    Program("signal-transforms", "signal_transforms", "kymatio/kymatio",
            [["{work}/drive_signal.py"]],
            prepare=copy_driver("signal_transforms.py", "drive_signal.py"),
            note="expected: float32 rounding (every number within 9.2e-7 relative of its "
                 "line's largest; float64 to 1e-13; SpectralConvS2 computes in float32 "
                 "either way: 3.4e-6)"),
    # deepinv 0.5.0 (pip install deepinv==0.5.0, with natsort; torchvision's pure-Python parts
    # in the PyTorch run): a driver of its physics (Blur in five paddings, BlurFFT,
    # Downsampling, Inpainting, CompressedSensing, SinglePixelCamera, MRI, MultiCoilMRI,
    # Tomography, composed/stacked/closure physics) forward, adjoint, A_dagger, prox_l2 and
    # gradients, noise models, random-weight denoisers (DnCNN, DRUNet, UNet, Restormer, SwinIR,
    # SCUNet, GSDRUNet), optim_builder's PGD/HQS/ADMM/DRS/GD and PDCP, plug-and-play, an
    # unfolded PGD trained by Trainer and by Adam, DEQ, its losses and metrics, on 16x16
    # synthetic images in float64; the tree is an empty directory "deepinv"
    Program("deepinv", "deepinv", "deepinv/deepinv", [["{work}/drive_deepinv.py"]],
            prepare=copy_driver("deepinv_recon.py", "drive_deepinv.py"),
            note="expected: the gradients through A_dagger of Blur/Downsampling/composed and "
                 "closure physics (deepinv's CG least squares, relative tolerance 1e-4, and "
                 "its implicit backward) differ by up to 8.6e-8 relative; with tol=1e-10 they "
                 "agree to 7.5e-12. Every other float64 number within 1e-10"),
    # d2l 1.0.3 (pip install --no-deps "d2l==1.0.3"; its pins of numpy/matplotlib/pandas are
    # old, the venv's are used): a driver of "Dive into Deep Learning"'s PyTorch package with
    # the book's notebook code (d2l.Module/Trainer/DataModule, linear and softmax regression
    # from scratch and concise, weight decay, dropout MLPs, LeNet, batch norm from scratch,
    # ResNet/ResNeXt/DenseNet, RNN/GRU/LSTM language models, seq2seq with Bahdanau attention,
    # the attention layers and TransformerEncoder, BERT, anchor boxes, the chapter 12
    # optimizers, the plotting helpers on Agg) on MNIST digits standing in for FashionMNIST
    # and generated text; the tree is an empty directory "d2l"
    Program("d2l", "d2l", "d2l-ai/d2l-en", [["{work}/drive_d2l.py"]],
            prepare=prepare_d2l,
            note="expected: float32 rounding amplified by training (the DenseNet's train "
                 "loss 4.3e-4 relative after 8 SGD steps, its parameters up to 0.63 "
                 "relative; float64 runs of it agree to 8.9e-14); every other line within "
                 "1.6e-4 relative, or a checksum's cancelling weighted sum"),
    # segment-anything 1.0 (pip install segment-anything==1.0, pure Python; no checkpoint): a
    # driver of a seeded random-weight SAM shrunk for speed (ViT encoder of depth 2 with
    # windowed and global attention and relative positions, PromptEncoder, MaskDecoder with
    # its TwoWayTransformer), Sam.forward, SamPredictor, SamAutomaticMaskGenerator (one crop
    # layer, batched_nms, binary-mask and RLE output), SamOnnxModel, ResizeLongestSide, the
    # amg helpers, Adam steps of the mask decoder and the registry's vit_b, in float32 and
    # float64; the tree is an empty directory "segment-anything"
    Program("segment-anything", "segment-anything", "facebookresearch/segment-anything",
            [["{work}/drive_sam.py"]], prepare=copy_driver("sam_models.py", "drive_sam.py"),
            note="expected: float32 rounding; the text is identical (every thresholded mask, "
                 "count, box, RLE and mask-generator annotation) and the float32 numbers agree "
                 "within 1.7e-5 relative; float64 within 7e-7, as SAM computes its random "
                 "Fourier positional encoding in float32 whatever the model's dtype (with it "
                 "patched to float64 both agree to 8e-13)"),
    # karpathy/pytorch-normalizing-flows: its notebook nflib1.ipynb as a script
    # (scripts/real_drivers/karpathy_flows.py), the repository's nflib unchanged: each of the
    # nine flows its model cell offers (RealNVP, NICE, SlowMAF, MAF, IAF, ActNorm + MAF, Glow,
    # neural spline coupling and autoregressive) trained 100 steps on two moons, then forward,
    # backward over the notebook's grid, and sampled from
    Program("karpathy-flows", "nflows_karpathy", "karpathy/pytorch-normalizing-flows",
            [["{work}/drive_flows.py", "100"]],
            prepare=copy_driver("karpathy_flows.py", "drive_flows.py"), path=(".",),
            note="expected: float32 rounding (at most 5.6e-6 relative, the spline flows)"),
    # neuralforecast 3.3 with utilsforecast 0.2 and coreforecast 0.0.20 (pip install --no-deps
    # neuralforecast==3.3.0 utilsforecast coreforecast; Lightning 2.6 already installed, Ray
    # not needed: the driver stands in a `ray` module): a driver of NeuralForecast's fit,
    # predict and cross_validation with MLP, NBEATS, NHITS, RNN/LSTM/GRU, TCN, DeepAR,
    # PatchTST, TFT, TimesNet and iTransformer on a seeded three-series daily panel; the
    # tree is an empty directory "neuralforecast"
    Program("neuralforecast", "neuralforecast", "Nixtla/neuralforecast",
            [["{work}/drive_neuralforecast.py"]],
            prepare=copy_driver("neuralforecast_models.py", "drive_neuralforecast.py"),
            note="expected: float32 rounding; four checksums of attention key biases (PatchTST's "
                 "W_K.bias, iTransformer's key_projection.bias) differ by up to 5.7e-2 "
                 "relative: their true gradient is zero (a bias added to every key leaves the "
                 "softmax unchanged), so Adam moves them by float32 noise; every other number "
                 "within 2e-4 relative, every forecast within 3.1e-7"),
    # DeepCTR-Torch 0.3.0 (pip install deepctr-torch==0.3.0): a driver of its CTR models (WDL,
    # DeepFM, xDeepFM, DCN/DCN-Mix, AutoInt, FiBiNET, NFM, AFM, PNN, ONN, CCPM, IFM, DIFM, AFN,
    # MLR), DIN and DIEN over id sequences and the MMOE/PLE/SharedBottom/ESMM multi-task models,
    # each through its BaseModel.fit (callbacks), predict, evaluate and a state_dict save/load,
    # on seeded synthetic click data; the tree is an empty directory "deepctr"
    Program("deepctr", "deepctr", "shenweichen/DeepCTR-Torch", [["{work}/drive_deepctr.py"]],
            prepare=copy_driver("deepctr_models.py", "drive_deepctr.py"),
            note="expected: float32 rounding grown by Adagrad's and Adam's sign-like first "
                 "steps on parameters whose true gradient is zero (the Linear biases before "
                 "BatchNorm in DeepFM, DIN's softmax-normalised attention net, AFN, CCPM's "
                 "1e-4 embeddings): trained parameters differ by up to 0.85 relative, "
                 "predictions by 1e-3, losses by 5e-5; each framework's float32 run departs "
                 "from a float64 run of the same steps as far (CCPM: PyTorch's by 0.30, "
                 "jtorch's by 9e-7), and PyTorch with 1 thread instead of 2 differs from "
                 "itself as much in DeepFM and AFN; AUCs of near-tied predictions differ by "
                 "up to 7.6e-3 where the logloss agrees to 2e-9"),
    # pytorch-widedeep 1.7.0 (pip install --no-deps pytorch-widedeep==1.7.0: it pins
    # numpy<2; its other dependencies installed as usual): a driver of WidePreprocessor/
    # TabPreprocessor, Wide + TabMlp, TabResnet, TabNet, TabTransformer, FTTransformer, SAINT,
    # TabFastFormer, TabPerceiver and ContextAttentionMLP through its Trainer (per-component
    # optimizers, LR schedulers, callbacks, metrics, fine-tuning, 2 DataLoader workers),
    # predict/predict_proba, Trainer.save and Tab2Vec; the tree is an empty directory "widedeep"
    Program("widedeep", "widedeep", "jrzaurin/pytorch-widedeep", [["{work}/drive_widedeep.py"]],
            prepare=copy_driver("widedeep_models.py", "drive_widedeep.py"),
            checkpoints=("wide_tabmlp.pt", "fttransformer.pt", "saint.pt", "callbacks.pt")),
    # e2cnn (0.2.3; installed: pip install -c /tmp/constraints.txt e2cnn==0.2.3): a driver of
    # rotation/reflection-equivariant CNNs: gspaces (C4, C8, D4, SO(2)), FieldType and
    # GeometricTensor, R2Conv's basis expansion and filters, R2ConvTransposed, the equivariant
    # nonlinearities, pooling, batch norms, upsampling and dropout, check_equivariance, a C8
    # classifier trained with Adam, export() and save/load, in float32 and float64 (the
    # driver sets e2cnn 0.2.3's two NumPy-2 fixes on the library's classes, in both
    # frameworks); the tree is an empty directory "e2cnn"
    Program("e2cnn", "e2cnn", "QUVA-Lab/e2cnn", [["{work}/drive_e2cnn.py"]],
            prepare=copy_driver("e2cnn_equivariant.py", "drive_e2cnn.py"),
            note="4695 numbers: float64 within 2.3e-13 relative, float32 within 4.5e-5 "
                 "(cancelling weighted sums of BatchNorm input gradients)"),
    # snntorch 1.0.0 (pip install snntorch==1.0.0, and pandas for its spikeplot): a driver of
    # its spiking neurons (Leaky, Synaptic, Alpha, Lapicque, RLeaky, RSynaptic, SLSTM,
    # SConv2dLSTM, LeakyParallel), surrogate gradients, spikegen encoders, a convolutional SNN
    # trained by BPTT with each snntorch.functional loss, snntorch.backprop, learnable
    # beta/threshold, init_hidden, reset mechanisms, probes, state_dict save/load and spikeplot
    # (Agg); the tree is an empty directory "snntorch"
    Program("snntorch", "snntorch", "jeshraghian/snntorch", [["{work}/drive_snntorch.py"]],
            prepare=copy_driver("snntorch_snns.py", "drive_snntorch.py"),
            checkpoints=("snn_csnn.pt", "snn_adam.pt"),
            images=("raster.png", "spike_count.png", "traces.png")),
    # k-diffusion 0.1.1.post1 (pip install --no-deps k-diffusion==0.1.1.post1 clean-fid
    # clip-anytorch dctorch, then einops torchdiffeq torchsde jsonmerge scikit-image ftfy:
    # dctorch pins numpy<2): a driver of its noise schedules, every sampler of
    # k_diffusion.sampling (torchsde Brownian trees, DPM-Solver fast/adaptive), Denoiser,
    # VDenoiser and the discrete DDPM wrappers, ImageDenoiserModelV1 and
    # ImageTransformerDenoiserModelV1 from its config functions trained as its train.py does
    # (Karras augmentation, sigma densities, AdamW, InverseLR/ExponentialLR, EMA warmup,
    # checkpointing), the loss variants, log_likelihood, the gradient noise scale, torch.save
    # and safetensors round trips, in float32 and float64; the tree is an empty directory
    # "kdiffusion"
    Program("kdiffusion", "kdiffusion", "crowsonkb/k-diffusion",
            [["{work}/drive_kdiffusion.py"]],
            prepare=copy_driver("kdiffusion_samplers.py", "drive_kdiffusion.py"),
            checkpoints=("kdiff_unet.pt", "kdiff_unet_f64.pt"),
            note="expected: match (float32 within 6e-6 relative, float64 within 4e-14)"),
    # torchattacks 3.5.1 (pip install -c constraints torchattacks==3.5.1; it pins
    # requests~=2.25.1, which it never imports: the venv's idna 3.20 was put back and a
    # current requests installed): a driver of its attacks (the FGSM/PGD family, LGV,
    # APGD/APGDT, FAB, Square, AutoAttack, CW, DeepFool, SparseFool, JSMA, SPSA, OnePixel,
    # Pixle, MultiAttack; EAD only with "all"), the targeted modes,
    # set_normalization_used and Attack.save/load on a small CNN trained on coloured MNIST
    # digits, in float32 and float64; the tree is an empty directory "torchattacks"
    Program("torchattacks", "torchattacks", "Harry24k/adversarial-attacks-pytorch",
            [["{work}/drive_torchattacks.py"]],
            prepare=copy_driver("torchattacks_attacks.py", "drive_torchattacks.py"),
            env={"TQDM_DISABLE": "1"},  # LGV's tqdm bar (PyTorch imports tqdm first)
            note="expected: float32 rounding at the sign thresholds of the attacks (an FGSM "
                 "step is eps * sign(grad), PIFGSM takes the sign of a convolution that "
                 "cancels exactly): every prediction and robust accuracy is the same, the "
                 "float64 runs agree to 1e-13 where torchattacks computes in float64 (its "
                 "float32 pieces: PGDRSL2's delta, Square L2's windows, APGD L2's start; CW "
                 "with set_normalization_used: 1-4 ulp of float64 tanh grown by Adam)"),
    # MACE (mace-torch 0.3.16; installed: pip install --no-deps "mace-torch==0.3.16" with
    # prettytable, matscipy, configargparse, python-hostlist, GitPython and lmdb; it pins e3nn
    # 0.4.4 and runs here on the installed e3nn 0.6.0): a driver of what someone training
    # their own potential builds (no foundation models, no downloads): ase molecules and a
    # periodic Cu/Ni cell labelled by ase's EMT, config_from_atoms, AtomicData.from_config and
    # MACE's DataLoader, MACE (three interaction blocks, correlation 2 and 3) and
    # ScaleShiftMACE in float64 with energies, forces, virials and stress (rotation
    # equivariance, a finite-difference stress), training with tools.train.take_step
    # (weighted energy+forces(+stress) losses, AMSGrad Adam, clipping, torch-ema's EMA) and
    # tools.train.evaluate, Hessians, the ASE MACECalculator, save/load and torch.compile;
    # the tree is an empty directory "mace"
    Program("mace", "mace", "ACEsuit/mace", [["{work}/drive_mace.py"]],
            prepare=copy_driver("mace_potentials.py", "drive_mace.py"),
            note="float64: 537 numbers within 9.8e-15 relative (1.5e-12 absolute); "
                 "rounding-level differences are printed as within-1e-12 checks"),
    # huggingface/pytorch-image-models (timm): its own training script on the image folder
    # (no augmentation: the random crops of its DataLoader workers draw from each framework's
    # own generator), then its validation script on the best checkpoint it saved
    *(Program(f"timm-{name}", "pytorch-image-models", "huggingface/pytorch-image-models",
              [["train.py", *TIMM_TRAIN, "--model", model, *args],
               ["validate.py", "data", "--split", "val", "--model", model, "--num-classes",
                "2", "-b", "4", "--workers", "1", "--device", "cpu", "--no-prefetcher",
                "--checkpoint", "out/run/model_best.pth.tar", *valid]],
              prepare=prepare_imagefolder, path=(".",),
              checkpoints=("out/run/last.pth.tar",), note=note)
      for name, model, args, valid, note in (
          ("resnet18", "resnet18", ["--img-size", "64"], ["--img-size", "64"],
           "expected: the checkpoint's largest differences are in tensors of float32 rounding "
           "noise (layer3.1.bn1.bias, all under 1e-8, and two momentum buffers under 2e-5 "
           "behind BatchNorm); timm's resnet18 run in float64 (a three-step driver) agrees to 12 "
           "digits"),
          # AdamW with layer decay, model EMA, mixup and cutmix, label smoothing, drop path,
          # gradient clipping and accumulation, channels-last
          ("vit", "vit_tiny_patch16_224",
           ["--model-kwargs", "img_size=32", "--img-size", "32", "--warmup-epochs", "1",
            "--opt", "adamw", "--lr", "1e-3", "--weight-decay", "0.05", "--layer-decay",
            "0.75", "--model-ema", "--model-ema-decay", "0.9", "--mixup", "0.2", "--cutmix",
            "0.5", "--smoothing", "0.1", "--drop-path", "0.1", "--clip-grad", "1.0",
            "--grad-accum-steps", "2", "--channels-last"],
           ["--model-kwargs", "img_size=32", "--img-size", "32", "--use-ema"],
           "expected: only the attention's qkv bias differs (2e-3): its key part has a zero "
           "gradient in exact arithmetic (softmax ignores a constant per query), and AdamW "
           "turns the float32 rounding noise into full steps"),
          # timm's ImageNet recipe for MobileNet: RMSprop (TensorFlow's form), step decay
          ("mobilenetv3", "mobilenetv3_small_100",
           ["--img-size", "64", "--opt", "rmsproptf", "--opt-eps", ".001", "--lr", "1e-3",
            "--sched", "step", "--decay-epochs", "1", "--decay-rate", ".97", "--model-ema",
            "--model-ema-decay", "0.9"],
           ["--img-size", "64"],
           "expected: the printed numbers agree to 1e-5; in the checkpoint, BatchNorm running "
           "means of rounding noise (all under 1e-8) differ, every tensor above 1e-6 within "
           "4.4e-4"))),
    # MorvanZhou/PyTorch-Tutorial: small scripts that plot (to nothing, with Agg) and print
    # their nets, batches and values; 201, 304 and 406_conditional_GAN stop with the same
    # error under both (torch.dot of 2-D tensors, torch.load's weights_only default, an
    # in-place update before a second backward), 405 needs gym,
    # 501 draws its sequence lengths from NumPy's unseeded global generator
    *(Program(f"morvan-{name}", "PyTorch-Tutorial", "MorvanZhou/PyTorch-Tutorial",
              [[f"tutorial-contents/{name}.py"]], env={"MPLBACKEND": "Agg"})
      for name in ("202_variable", "301_regression", "302_classification",
                   "303_build_nn_quickly", "305_batch_train", "306_optimizer",
                   "403_RNN_regressor", "503_dropout",
                   "504_batch_normalization", "406_GAN")),
    # pytorch/tutorials: the official tutorials' scripts (each file's code read at its own
    # commit, named in its first line; the prose comments left out), FashionMNIST stood in
    # for by the MNIST subset in torchvision's FashionMNIST layout
    *(Program(f"pt-tutorials-{name}", "tutorials", "pytorch/tutorials", [[script]],
              env={"MPLBACKEND": "Agg"}, prepare=prepare, checkpoints=checkpoints,
              note=PT_TUTORIAL_NOTES.get(name, ""))
      for name, script, prepare, checkpoints in (
          ("quickstart", "beginner_source/basics/quickstart_tutorial.py",
           FASHION_MNIST, ("model.pth",)),
          ("tensorqs", "beginner_source/basics/tensorqs_tutorial.py", None, ()),
          ("autogradqs", "beginner_source/basics/autogradqs_tutorial.py", None, ()),
          ("buildmodel", "beginner_source/basics/buildmodel_tutorial.py", None, ()),
          ("optimization", "beginner_source/basics/optimization_tutorial.py",
           FASHION_MNIST, ()),
          ("blitz-autograd", "beginner_source/blitz/autograd_tutorial.py", None, ()),
          ("blitz-neural_networks", "beginner_source/blitz/neural_networks_tutorial.py", None,
           ()),
          ("polynomial_tensor", "beginner_source/examples_tensor/polynomial_tensor.py", None,
           ()),
          ("polynomial_custom_function",
           "beginner_source/examples_autograd/polynomial_custom_function.py", None, ()),
          ("polynomial_nn", "beginner_source/examples_nn/polynomial_nn.py", None, ()),
          ("polynomial_optim", "beginner_source/examples_nn/polynomial_optim.py", None, ()),
          ("dynamic_net", "beginner_source/examples_nn/dynamic_net.py", None, ()),
          ("defining_a_neural_network",
           "recipes_source/recipes/defining_a_neural_network.py", None, ()),
          ("what_is_state_dict", "recipes_source/recipes/what_is_state_dict.py", None, ()),
          ("general_checkpoint",
           "recipes_source/recipes/saving_and_loading_a_general_checkpoint.py", None,
           ("model.pt",)),
          ("warmstarting", "recipes_source/recipes/"
           "warmstarting_model_using_parameters_from_a_different_model.py", None,
           ("model.pt",)),
          # the second batch: the NLP-from-scratch trilogy on generated data, the spatial
          # transformer and FGSM on the MNIST subset (iterations cut by the tutorials' own
          # constants, each change named in the script's first lines)
          ("char_rnn_classification",
           "intermediate_source/char_rnn_classification_tutorial.py", prepare_name_files, ()),
          ("char_rnn_generation", "intermediate_source/char_rnn_generation_tutorial.py",
           prepare_name_files, ()),
          ("seq2seq_translation", "intermediate_source/seq2seq_translation_tutorial.py",
           prepare_eng_fra, ()),
          ("spatial_transformer", "intermediate_source/spatial_transformer_tutorial.py",
           functools.partial(prepare_mnist, up=0, folder="."), ()),
          ("fgsm", "beginner_source/fgsm_tutorial.py", prepare_fgsm, ()),
          ("polynomial_autograd", "beginner_source/examples_autograd/polynomial_autograd.py",
           None, ()),
          ("blitz-tensor", "beginner_source/blitz/tensor_tutorial.py", None, ()),
          ("introyt-modelsyt", "beginner_source/introyt/modelsyt_tutorial.py", None, ()))),
    # introyt's autograd tutorial: its autograd profiler table (op timings) is not compared
    Program("pt-tutorials-introyt-autogradyt", "tutorials", "pytorch/tutorials",
            [["beginner_source/introyt/autogradyt_tutorial.py"]], env={"MPLBACKEND": "Agg"},
            results=r"^(?!\s*(aten::|Name\b|-{5,})|Self CPU time total)",
            note="expected: d.sum() prints tensor(25., ...) in PyTorch, tensor(25.0000, ...) in "
                 "jtorch: 24.999996 against 25.0, the float32 sum of the same 25 values in "
                 "another order (PyTorch's vectorized reduction is not reproduced)"),
    Program("pt-tutorials-nn_tutorial", "tutorials", "pytorch/tutorials",
            [["beginner_source/nn_tutorial.py"]], env={"MPLBACKEND": "Agg"},
            prepare=prepare_mnist_pickle, path=("{work}/stubs",)),
    # eriklindernoren/PyTorch-GAN: its MNIST GANs, one epoch over 512 images at batch 32 (16
    # steps of each optimizer), saving samples every 5 steps; bgan and dragan stop under both
    # with their own NameError (their loops read an undefined mnist_loader), began with
    # PyTorch's IndexError (``.data[0]`` of a 0-dim tensor), softmax_gan with PyTorch's
    # error for a saved tensor modified in place, and cluster_gan needs CUDA (it makes
    # torch.cuda.FloatTensor unconditionally)
    *(Program(f"pytorch-gan-{name}", "PyTorch-GAN", "eriklindernoren/PyTorch-GAN",
              [[f"implementations/{name}/{name}.py", *PYTORCH_GAN_ARGS]],
              prepare=prepare_pytorch_gan, path=("{work}/stubs",),
              images=tuple(f"images/{kind}/{i}.png" for kind in ("static", "varying_c1",
                                                                 "varying_c2")
                           for i in (0, 5, 10, 15))
              if name == "infogan" else PYTORCH_GAN_IMAGES,
              note=PYTORCH_GAN_NOTES.get(name, ""))
      for name in ("gan", "dcgan", "wgan_gp", "wgan_div", "cgan", "acgan", "infogan", "lsgan",
                   "aae", "wgan", "ebgan", "relativistic_gan", "sgan")),
    # the three that read MNIST from ./mnist (downloading it when the folder is missing)
    *(Program(f"morvan-{name}", "PyTorch-Tutorial", "MorvanZhou/PyTorch-Tutorial",
              [[f"tutorial-contents/{name}.py"]], env={"MPLBACKEND": "Agg"},
              prepare=functools.partial(prepare_mnist, up=0, folder="mnist"))
      for name in ("401_CNN", "402_RNN_classifier", "404_autoencoder")),
    # vwxyzjn/cleanrl: its single-file PyTorch agents, unchanged, at a few hundred timesteps
    # (cleanrl/ and cleanrl_utils/ extracted: the off-policy agents import its ReplayBuffer).
    # At gymnasium 1.4 they print no episodic returns (their "final_info" test is gymnasium
    # 0.29's vector API) and sac/td3/ddpg stop under both at the first truncated episode
    # (infos["final_observation"]), so they run where no episode is truncated within the run
    # (CartPole-v1's 500 steps, MountainCarContinuous-v0's 999), and a second step prints the
    # TensorBoard scalars the run logged to runs/ (losses, Q-values, entropy, KL, learning
    # rate; charts/SPS, a timing, left out, and so are the printed SPS lines).
    # ppo_continuous_action stops under both at gymnasium 1.x (TransformObservation without
    # its observation_space) and --save-model's evaluation never ends (the same "final_info")
    *(Program(f"cleanrl-{name}", "cleanrl", "vwxyzjn/cleanrl",
              [[f"cleanrl/{name}.py", *args.split(), "--seed", "1", "--no-track",
                "--no-capture-video", "--no-cuda"],
               ["{work}/tb_dump.py"]],
              prepare=copy_driver("cleanrl_tb_dump.py", "tb_dump.py"), path=(".",),
              results=r"^(?!SPS:)")
      for name, args in (
          ("ppo", "--total-timesteps 1024 --num-envs 2 --num-steps 128"),
          ("dqn", CLEANRL_CARTPOLE), ("c51", CLEANRL_CARTPOLE),
          ("pqn", "--total-timesteps 512 --num-envs 2 --num-steps 64"),
          ("sac_continuous_action", CLEANRL_MOUNTAINCAR),
          ("td3_continuous_action", CLEANRL_MOUNTAINCAR),
          ("ddpg_continuous_action", CLEANRL_MOUNTAINCAR))),
]


def _commit(tree):
    try:
        with open(os.path.join(tree, "COMMIT")) as f:
            return f.read().strip()[:12]
    except OSError:
        return "unknown"


def _run(program, tree, work, framework, timeout):
    """Run the program's steps under ``framework`` ("torch" or "jtorch") in ``work``; return
    (exit status, output, seconds)."""
    runner = [sys.executable] + (["-m", "jtorch"] if framework == "jtorch" else [])
    env = dict(os.environ, **program.env)
    extra = [p.format(work=work) if "{" in p else os.path.join(tree, p) for p in program.path]
    env["PYTHONPATH"] = os.pathsep.join([*extra, REPO, env.get("PYTHONPATH", "")]).rstrip(":")
    cwd = tree if program.cwd == "tree" else work
    out, err, start = [], [], time.time()
    for step in program.steps:
        script, *args = [a.format(work=work) for a in step]
        cmd = [*runner, SHARED_RNG, os.path.join(tree, script), *args]
        status, stdout, stderr = _step(cmd, cwd, env, timeout, program.stop)
        out.append(stdout.replace(work, "{work}"))
        err.append(stderr)
        if status:
            return status, "".join(out), "".join(err), time.time() - start
    return 0, "".join(out), "".join(err), time.time() - start


def _step(cmd, cwd, env, timeout, stop):
    """(exit status, stdout, stderr) of one command; with ``stop``, it is ended (status 0) after
    its first stdout line matching that regex (unbuffered, so the line comes when printed)."""
    if not stop:
        try:
            done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return 124, "", f"[timed out after {timeout}s]"
        return done.returncode, done.stdout, done.stderr
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, cwd=cwd, env=dict(env, PYTHONUNBUFFERED="1"), text=True,
                                stdout=subprocess.PIPE, stderr=err)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        lines, status = [], None
        for line in proc.stdout:
            lines.append(line)
            if re.search(stop, line):
                proc.kill()
                status = 0
                break
        timed_out = proc.wait() == -9 and status is None
        timer.cancel()
        err.seek(0)
        return (124 if timed_out else proc.returncode if status is None else 0, "".join(lines),
                err.read() + (f"[timed out after {timeout}s]" if timed_out else ""))


ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")  # object reprs (``<AddBackward0 object at 0x7f..>``)


def _result_lines(program, stdout):
    return [ADDRESS.sub("at 0x", TIMING.sub("", line)).strip() for line in stdout.splitlines()
            if re.search(program.results, line)]


def _compare_lines(a_lines, b_lines):
    """(equal text, max abs diff, max rel diff, numbers compared) of two lists of lines."""
    if [NUMBER.sub("#", x) for x in a_lines] != [NUMBER.sub("#", x) for x in b_lines]:
        return False, float("nan"), float("nan"), 0
    a = np.array([float(v) for x in a_lines for v in NUMBER.findall(x)])
    b = np.array([float(v) for x in b_lines for v in NUMBER.findall(x)])
    if a.shape != b.shape:
        return False, float("nan"), float("nan"), 0
    diff = np.abs(a - b)
    rel = np.where(diff == 0, 0.0, diff / np.maximum(np.abs(b), 1e-12))
    return True, float(diff.max(initial=0)), float(rel.max(initial=0)), int(a.size)


def _compare_image(a_path, b_path):
    from PIL import Image  # optional heavy dependency: only image outputs need it
    a = np.asarray(Image.open(a_path), dtype=np.int16)
    b = np.asarray(Image.open(b_path), dtype=np.int16)
    return int(np.abs(a - b).max()) if a.shape == b.shape else None


def _tensors(obj, prefix=""):
    """{path: tensor} of the tensors in a nest of dicts, lists and tuples."""
    if isinstance(obj, dict):
        items = obj.items()
    elif isinstance(obj, (list, tuple)):
        items = enumerate(obj)
    else:
        return {prefix: obj} if hasattr(obj, "numpy") else {}
    return {k: v for key, value in items for k, v in _tensors(value, f"{prefix}/{key}").items()}


def _compare_checkpoint(a_path, b_path):
    """The largest relative difference (a tensor's max abs difference over its max abs value)
    between the tensors of two ``torch.save`` files, read by real PyTorch; None when their
    keys or shapes differ. (timm's checkpoints also hold its argparse Namespace.)"""
    import torch  # optional heavy dependency: only programs that save checkpoints need it
    with torch.serialization.safe_globals([argparse.Namespace]):
        a, b = (_tensors(torch.load(p, map_location="cpu", weights_only=True))
                for p in (a_path, b_path))
    if a.keys() != b.keys() or any(a[k].shape != b[k].shape for k in a):
        return None
    worst = 0.0
    for k in a:
        x, y = a[k].double(), b[k].double()
        diff = float((x - y).abs().max()) if x.numel() else 0.0
        worst = max(worst, diff / max(float(y.abs().max()), 1e-12) if diff else 0.0)
    return worst


def _last(lines, stderr):
    """The line to show for a run: its last line with a loss or an accuracy, else its last
    line, else its last error line."""
    lines = [x for x in lines if x]
    scored = [x for x in lines if re.search(r"[Ll]oss|Accuracy|ppl", x)]
    if scored or lines:
        return (scored or lines)[-1][:70]
    tail = [x for x in stderr.strip().splitlines() if x.strip()]
    return tail[-1][:70] if tail else "(no output)"


def run_program(program, root, workdir, timeout):
    tree = os.path.join(root, program.tree)
    row = {"program": program.name, "repo": f"{program.slug}@{_commit(tree)}",
           "command": " && ".join(" ".join(step) for step in program.steps)}
    outputs = {}
    for framework in ("torch", "jtorch"):
        work = os.path.join(workdir, "runs", f"{program.name}-{framework}")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        if program.prepare:
            program.prepare(tree, work)
        status, stdout, stderr, seconds = _run(program, tree, work, framework, timeout)
        with open(os.path.join(workdir, "runs", f"{program.name}-{framework}.log"), "w") as f:
            f.write(stdout + "\n--- stderr ---\n" + stderr)
        lines = _result_lines(program, stdout)
        outputs[framework] = (status, lines, work)
        row[framework] = _last(lines, stderr) if status == 0 else (
            f"exit {status}: " + _last([], stderr))
        row[f"{framework} s"] = f"{seconds:.0f}"
    (ts, t_lines, t_work), (js, j_lines, j_work) = outputs["torch"], outputs["jtorch"]
    if ts or js:
        row["status"] = "both failed" if ts and js else "torch failed" if ts else \
            "jtorch failed"
        return row
    same_text, dabs, drel, count = _compare_lines(j_lines, t_lines)
    details = [f"{count} numbers in {len(t_lines)} lines: max abs {dabs:.3g}, rel {drel:.3g}"
               if same_text else "printed lines differ"]
    ok = same_text and drel <= program.rtol
    for name in program.texts:
        with open(os.path.join(t_work, name)) as f, open(os.path.join(j_work, name)) as g:
            same = f.read() == g.read()
        ok &= same
        details.append(f"{name} {'identical' if same else 'differs'}")
    for name in program.checkpoints:
        drel = _compare_checkpoint(os.path.join(j_work, name), os.path.join(t_work, name))
        ok &= drel is not None and drel <= program.rtol
        details.append(f"{name} " + ("tensors differ in keys or shapes" if drel is None else
                                     f"max rel diff {drel:.3g}"))
    for name in program.images:
        pixels = _compare_image(os.path.join(j_work, name), os.path.join(t_work, name))
        ok &= pixels is not None and pixels <= 1
        details.append(f"{os.path.basename(name)} max pixel diff {pixels}")
    row["status"] = ("match" if ok else "DIFFERS") + " (" + "; ".join(details) + ")" + (
        f" {program.note}" if program.note and not ok else "")
    return row


COLUMNS = ("program", "repo", "command", "torch", "jtorch", "torch s", "jtorch s", "status")


def print_table(rows, markdown):
    if markdown:
        print("| " + " | ".join(COLUMNS) + " |")
        print("|" + "---|" * len(COLUMNS))
        for r in rows:
            print("| " + " | ".join(str(r.get(c, "")).replace("|", "\\|") for c in COLUMNS)
                  + " |")
        return
    for r in rows:
        print("\n".join(f"{c:>8}: {r.get(c, '')}" for c in COLUMNS) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", help="directory holding the fetched trees (nanoGPT, minGPT, "
                        "examples, pytorch-tutorial)")
    parser.add_argument("--only", nargs="*", help="program names to run (default: all)")
    parser.add_argument("--workdir", default=None,
                        help="where runs write (default: ROOT/jtorch-runs)")
    parser.add_argument("--mnist", default=MNIST_SOURCE[0],
                        help="directory of MNIST's gzipped IDX files")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per step")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)
    MNIST_SOURCE[0] = args.mnist
    root = os.path.abspath(args.root)
    workdir = os.path.abspath(args.workdir or os.path.join(root, "jtorch-runs"))
    known = {p.name for p in PROGRAMS}
    unknown = set(args.only or ()) - known
    if unknown:
        parser.error(f"unknown programs {sorted(unknown)}; known: {sorted(known)}")
    rows = []
    for program in PROGRAMS:
        if args.only and program.name not in args.only:
            continue
        if not os.path.isdir(os.path.join(root, program.tree)):
            rows.append({"program": program.name, "repo": program.slug,
                         "status": f"skipped: no {program.tree}/ in {root}"})
            continue
        rows.append(run_program(program, root, workdir, args.timeout))
        print_table(rows[-1:], False)
        sys.stdout.flush()
    print_table(rows, args.markdown)
    return 0 if all(r["status"].startswith("match") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
