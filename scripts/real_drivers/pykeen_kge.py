"""Driver of PyKEEN (docs/real-programs.md): the ``pykeen`` package (1.11), installed and used
unchanged, trains knowledge-graph embedding models on a small synthetic graph built in memory
(no downloads) and prints every epoch loss, the rank-based metrics on the test split, scores,
predictions and checksums of the learned embeddings at full precision.

The graph: 24 entities and 4 relations with a deterministic structure (a successor relation,
its inverse, a symmetric "sibling" relation and a many-to-one "group" relation), as label
triples in a NumPy array; ``TriplesFactory.from_labeled_triples`` maps it and
``split([0.8, 0.1, 0.1], random_state=...)`` splits it.

Variants (each reseeds with ``torch.manual_seed`` and passes pykeen's ``random_seed``, so a
subset prints what the full run prints for it):

- ``data``: the factory's counts, the split sizes and checksums of the mapped triples.
- ``transe``: TransE (L1), MarginRankingLoss, the basic negative sampler, sLCWA.
- ``distmult``: DistMult, SoftplusLoss, the Bernoulli negative sampler, sLCWA.
- ``complex``: ComplEx, BCEWithLogitsLoss, LCWA (1-n scoring with label smoothing).
- ``rotate``: RotatE, NSSALoss (self-adversarial), two negatives per positive, sLCWA.
- ``tucker``: TuckER (batch norm, dropout), BCEAfterSigmoidLoss, LCWA.
- ``conve``: ConvE (2-D convolution, batch norm, dropout), BCEWithLogitsLoss, LCWA, SGD
  (Adam's sign-like first steps turn the float32 noise in the near-zero gradients of the
  parameters that batch norm cancels, the input BatchNorm's scale and the conv bias, into
  1e-3 differences in the model and ranking ties; the other variants use Adam).
- ``pipeline``: ``pykeen.pipeline.pipeline`` of a TransH with early-stopping-free training.

Every model variant then evaluates with RankBasedEvaluator (filtered by the training and
validation triples), scores triples with ``score_hrt``/``score_t``, ranks targets with
``pykeen.predict.predict_target`` and saves/loads its ``state_dict`` (``torch.save`` to a
buffer, a fresh model loads it, its scores must be equal).

    python scripts/shared_rng_run.py pykeen_kge.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py pykeen_kge.py [VARIANT ... | all]   # jtorch

With ``PYKEEN_FLOAT64=1`` the default dtype is float64 (the real-valued models' parameters
follow it; ComplEx and RotatE keep complex64 embeddings, and TuckER's BCEAfterSigmoidLoss
then fails on float32 labels, in PyTorch too).
"""

import io
import logging
import os
import sys
import time
import warnings

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

# a torchvision built for another PyTorch fails to import (pykeen.nn.vision catches ImportError)
sys.modules.setdefault("torchvision", None)

from pykeen.evaluation import RankBasedEvaluator  # noqa: E402
from pykeen.models import ComplEx, ConvE, DistMult, RotatE, TransE, TuckER  # noqa: E402
from pykeen.pipeline import pipeline  # noqa: E402
from pykeen.predict import predict_target  # noqa: E402
from pykeen.training import LCWATrainingLoop, SLCWATrainingLoop  # noqa: E402
from pykeen.triples import TriplesFactory  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

VARIANTS = {}
SEED = 0


def variant(name):
    def register(fn):
        VARIANTS[name] = fn
        return fn
    return register


def checksum(t):
    t = t.detach().double()
    return (f"sum {t.sum().item()!r} mean {t.mean().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def labeled_triples():
    n, groups = 24, 4
    rows = []
    for i in range(n):
        rows.append((f"e{i:02d}", "next", f"e{(i + 1) % n:02d}"))
        rows.append((f"e{(i + 1) % n:02d}", "prev", f"e{i:02d}"))
        rows.append((f"e{i:02d}", "group", f"e{i % groups:02d}"))
        if i % 2 == 0:
            rows.append((f"e{i:02d}", "sibling", f"e{i + 1:02d}"))
            rows.append((f"e{i + 1:02d}", "sibling", f"e{i:02d}"))
    return np.array(rows, dtype=str)


def factories():
    tf = TriplesFactory.from_labeled_triples(labeled_triples())
    return tf, tf.split([0.8, 0.1, 0.1], random_state=1234)


def params(name, model):
    for pname, p in model.named_parameters():
        print(f"{name} param {pname} {list(p.shape)} {checksum(p)}")


def evaluate(name, model, train, valid, test):
    model.eval()
    evaluator = RankBasedEvaluator()
    results = evaluator.evaluate(
        model, test.mapped_triples, batch_size=16, use_tqdm=False,
        additional_filter_triples=[train.mapped_triples, valid.mapped_triples])
    for key in ("hits_at_1", "hits_at_3", "hits_at_10", "mean_reciprocal_rank",
                "arithmetic_mean_rank", "adjusted_arithmetic_mean_rank_index"):
        for side in ("head", "tail", "both"):
            value = results.get_metric(f"{side}.realistic.{key}")
            print(f"{name} eval {side} {key} {float(value)!r}")


def score_and_predict(name, model, tf, train):
    model.eval()
    with torch.no_grad():
        hrt = train.mapped_triples[:6]
        print(f"{name} score_hrt {[round(v, 6) for v in model.score_hrt(hrt).flatten().tolist()]}")
        print(f"{name} score_hrt {checksum(model.score_hrt(train.mapped_triples))}")
        print(f"{name} score_t {checksum(model.score_t(hrt[:, :2]))}")
        print(f"{name} score_h {checksum(model.score_h(hrt[:, 1:]))}")
    pred = predict_target(model=model, head="e03", relation="next", triples_factory=tf)
    df = pred.df
    print(f"{name} predict tail of (e03, next): {df['tail_label'].tolist()[:5]} "
          f"scores {[round(v, 5) for v in df['score'].tolist()[:5]]}")
    pred = predict_target(model=model, relation="group", tail="e01", triples_factory=tf)
    print(f"{name} predict head of (?, group, e01): {pred.df['head_label'].tolist()[:5]}")


def save_load(name, model, make, train):
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    fresh = make()
    fresh.load_state_dict(torch.load(buf))
    fresh.eval()
    model.eval()
    with torch.no_grad():
        a = model.score_hrt(train.mapped_triples)
        b = fresh.score_hrt(train.mapped_triples)
    print(f"{name} save/load {len(buf.getvalue()) > 0} equal {torch.equal(a, b)}")


def run_model(name, make, loop_cls, loop_kwargs, lr, epochs, batch_size, opt=torch.optim.Adam,
              **train_kwargs):
    tf, (train, valid, test) = factories()
    model = make(train)
    params(f"{name} init", model)
    optimizer = opt(model.parameters(), lr=lr)
    loop = loop_cls(model=model, triples_factory=train, optimizer=optimizer, **loop_kwargs)
    losses = loop.train(triples_factory=train, num_epochs=epochs, batch_size=batch_size,
                        use_tqdm=False, use_tqdm_batch=False, pin_memory=False,
                        **train_kwargs)
    for i, loss in enumerate(losses):
        print(f"{name} epoch {i + 1}/{epochs} loss {loss!r}")
    params(f"{name} trained", model)
    evaluate(name, model, train, valid, test)
    score_and_predict(name, model, tf, train)
    save_load(name, model, lambda: make(train), train)


@variant("data")
def data():
    tf, (train, valid, test) = factories()
    print(f"data entities {tf.num_entities} relations {tf.num_relations} triples "
          f"{tf.num_triples}")
    for split, f in (("train", train), ("valid", valid), ("test", test)):
        m = f.mapped_triples
        print(f"data {split} {f.num_triples} sum {m.sum().item()} "
              f"first {m[:3].tolist()}")
    print(f"data relation ids {sorted(tf.relation_to_id.items())}")


@variant("transe")
def transe():
    run_model(
        "transe",
        lambda tf: TransE(triples_factory=tf, embedding_dim=8, scoring_fct_norm=1,
                          loss="marginranking", loss_kwargs={"margin": 1.0},
                          random_seed=SEED),
        SLCWATrainingLoop, {"negative_sampler": "basic"}, lr=0.05, epochs=3, batch_size=16)


@variant("distmult")
def distmult():
    run_model(
        "distmult",
        lambda tf: DistMult(triples_factory=tf, embedding_dim=8, loss="softplus",
                            random_seed=SEED),
        SLCWATrainingLoop, {"negative_sampler": "bernoulli"}, lr=0.05, epochs=3,
        batch_size=16)


@variant("complex")
def complex_():
    run_model(
        "complex",
        lambda tf: ComplEx(triples_factory=tf, embedding_dim=8, loss="bcewithlogits",
                           random_seed=SEED),
        LCWATrainingLoop, {}, lr=0.05, epochs=3, batch_size=16, label_smoothing=0.1)


@variant("rotate")
def rotate():
    run_model(
        "rotate",
        lambda tf: RotatE(triples_factory=tf, embedding_dim=8, loss="nssa",
                          loss_kwargs={"margin": 3.0, "adversarial_temperature": 0.5},
                          random_seed=SEED),
        SLCWATrainingLoop, {"negative_sampler": "basic",
                                "negative_sampler_kwargs": {"num_negs_per_pos": 2}},
        lr=0.05, epochs=3, batch_size=16)


@variant("tucker")
def tucker():
    run_model(
        "tucker",
        lambda tf: TuckER(triples_factory=tf, embedding_dim=8, relation_dim=4,
                          loss="bceaftersigmoid", random_seed=SEED),
        LCWATrainingLoop, {}, lr=0.01, epochs=3, batch_size=16)


@variant("conve")
def conve():
    run_model(
        "conve",
        lambda tf: ConvE(triples_factory=tf, embedding_dim=16, embedding_height=4,
                         embedding_width=4, output_channels=4, loss="bcewithlogits",
                         random_seed=SEED),
        LCWATrainingLoop, {}, lr=0.1, epochs=2, batch_size=16, opt=torch.optim.SGD)


@variant("pipeline")
def pipeline_():
    tf, (train, valid, test) = factories()
    result = pipeline(
        training=train, validation=valid, testing=test, model="TransH",
        model_kwargs={"embedding_dim": 8}, optimizer="Adam", optimizer_kwargs={"lr": 0.05},
        training_kwargs={"num_epochs": 2, "batch_size": 16, "use_tqdm": False, "pin_memory": False},
        negative_sampler="basic", evaluation_kwargs={"batch_size": 16, "use_tqdm": False},
        random_seed=SEED)
    for i, loss in enumerate(result.losses):
        print(f"pipeline epoch {i + 1} loss {loss!r}")
    params("pipeline trained", result.model)
    for key in ("hits_at_1", "hits_at_10", "mean_reciprocal_rank", "arithmetic_mean_rank"):
        print(f"pipeline eval both {key} {float(result.get_metric(f'both.realistic.{key}'))!r}")


def main(argv):
    if os.environ.get("PYKEEN_FLOAT64"):
        torch.set_default_dtype(torch.float64)
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        torch.manual_seed(SEED)
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
