"""Driver of sentence-transformers (docs/real-programs.md): the installed package (6.0), used
unchanged, on a tiny BERT built here (2 layers, hidden 32, 2 heads, a WordPiece vocabulary
written from a small word list; no downloads), saved to a temporary directory:

- ``encode``: ``SentenceTransformer(modules=[Transformer, Pooling, Normalize])`` encodes
  sentences to tensors and NumPy arrays (batch sizes 2 and 16, ``normalize_embeddings``,
  ``precision``), then each pooling mode (cls, max, mean, mean_sqrt_len_tokens, weightedmean,
  lasttoken, and mean+max concatenated), a ``Dense`` head and ``truncate_dim``;
- ``util``: ``cos_sim``, ``dot_score``, ``pairwise_cos_sim``, ``semantic_search``,
  ``paraphrase_mining``, ``community_detection`` and ``model.similarity``;
- ``losses``: 3 steps of ``SentenceTransformerTrainer`` (a ``datasets.Dataset`` built with
  ``from_dict``, AdamW, linear warmup) with each of MultipleNegativesRankingLoss,
  CosineSimilarityLoss, TripletLoss, ContrastiveLoss, MatryoshkaLoss (around MNRL), CoSENTLoss,
  AnglELoss, OnlineContrastiveLoss, symmetric and cached MNRL; then a manual loop (the loss
  modules called directly, ``loss.backward()``);
- ``evaluators``: EmbeddingSimilarityEvaluator, InformationRetrievalEvaluator,
  TripletEvaluator, BinaryClassificationEvaluator, ParaphraseMiningEvaluator;
- ``cross_encoder``: a ``CrossEncoder`` (BertForSequenceClassification, 1 label) predicting
  and ranking, trained 3 steps with BinaryCrossEntropyLoss by ``CrossEncoderTrainer``;
- ``save_load``: ``save`` of a trained model, ``SentenceTransformer(folder)`` loads it back,
  embeddings compared.

Each variant prints checksums of embeddings (sum, mean, largest magnitude), scores and
losses at full precision.

    python scripts/shared_rng_run.py drive_st.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_st.py [VARIANT ... | all]   # jtorch

Each variant reseeds (``torch.manual_seed``) and rebuilds the tiny BERT, so a subset prints what
the full run prints for it. ``ST_FLOAT64=1`` runs the models in float64.
"""

import logging
import os
import shutil
import sys
import tempfile
import time

# transformers imports torchvision when it is installed; this driver needs no vision code, and
# a torchvision built for another PyTorch fails to import (find_spec returns None for it now)
sys.modules.setdefault("torchvision", None)
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
os.environ.setdefault("WANDB_DISABLED", "true")

import numpy as np  # noqa: E402
import torch  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

HIDDEN, STEPS = 32, 3
WORDS = ("the a cat dog sat on mat ran in park man woman is playing guitar piano eating food "
         "bread apple car fast slow red blue sky sun rain today weather nice bad good happy "
         "sad child children kitchen cooking music loud quiet train station city river house "
         "big small ##s ##ing ##ed").split()
SENTENCES = [
    "the cat sat on the mat", "a dog ran in the park", "the man is playing guitar",
    "a woman is playing piano", "the child is eating bread", "a man is eating food",
    "the sky is blue today", "the weather is nice today", "a red car is fast",
    "the blue car is slow", "the children are playing music", "a woman is cooking in the kitchen",
    "the train station is big", "a small house by the river", "the sun is happy",
    "rain is bad weather",
]
ANCHORS = SENTENCES[0:16:2]
POSITIVES = SENTENCES[1:16:2]
NEGATIVES = POSITIVES[1:] + POSITIVES[:1]
VARIANTS = {}


def variant(build):
    VARIANTS[build.__name__] = build
    return build


def checksum(t):
    if not isinstance(t, torch.Tensor):
        t = torch.from_numpy(np.asarray(t))
    t = t.double()
    # LayerNorm'd and normalized embeddings sum to about 0: a weighted sum tells them apart
    weights = torch.cos(torch.arange(t.numel(), dtype=torch.float64)).reshape(t.shape)
    return (f"shape {list(t.shape)} sum {t.sum().item()!r} weighted {(t * weights).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def params_checksum(model):
    return checksum(torch.cat([p.detach().flatten() for p in model.parameters()]))


def rounded(value, digits=6):
    """Ranks and scores from the library's lists, scores to ``digits`` places (their float32
    rounding is not the point there; the checksums carry full precision)."""
    if isinstance(value, dict):
        return {k: rounded(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(v, digits) for v in value]
    if isinstance(value, float):
        return round(value, digits)
    return value


def build_bert(folder, classifier=False):
    """A tiny BERT with random weights (from the current seed) and its WordPiece tokenizer,
    saved to ``folder`` with ``save_pretrained``."""
    from transformers import BertConfig, BertForSequenceClassification, BertModel, BertTokenizerFast
    os.makedirs(folder, exist_ok=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, "are", "by"]
    tokenizer = BertTokenizerFast(vocab={w: i for i, w in enumerate(vocab)},
                                  do_lower_case=True, model_max_length=32)
    config = BertConfig(vocab_size=len(vocab), hidden_size=HIDDEN, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=32,
                        hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.0, num_labels=1,
                        initializer_range=0.2)
    model = (BertForSequenceClassification if classifier else BertModel)(config)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def sentence_model(folder, pooling="mean", normalize=True, dense=False):
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer import modules as models
    modules = [models.Transformer(folder, max_seq_length=32),
               models.Pooling(HIDDEN, pooling_mode=pooling)]
    if dense:
        modules.append(models.Dense(modules[1].get_embedding_dimension(), 16,
                                    activation_function=torch.nn.Tanh()))
    if normalize:
        modules.append(models.Normalize())
    return SentenceTransformer(modules=modules, device="cpu")


def _tiny(folder, **kw):
    return sentence_model(build_bert(os.path.join(folder, "bert")), **kw)


@variant
def encode(folder):
    model = _tiny(folder, normalize=False)
    print(f"encode parameters {sum(p.numel() for p in model.parameters())} "
          f"{params_checksum(model)}")
    print(f"encode dimension {model.get_embedding_dimension()} "
          f"max_seq_length {model.max_seq_length}")
    tokens = model.tokenize(SENTENCES[:3])
    print(f"encode tokens {tokens['input_ids'].tolist()} mask {tokens['attention_mask'].sum()}")
    t = model.encode(SENTENCES, convert_to_tensor=True, batch_size=16)
    n = model.encode(SENTENCES, convert_to_numpy=True, batch_size=2)
    print(f"encode tensor {type(t).__name__} {t.dtype} {checksum(t)}")
    print(f"encode numpy {type(n).__name__} {n.dtype} {checksum(n)}")
    print(f"encode batch 2 vs 16 max diff {float(np.abs(t.numpy() - n).max())!r}")
    u = model.encode(SENTENCES, normalize_embeddings=True, convert_to_tensor=True)
    print(f"encode normalized {checksum(u)} norms {checksum(u.norm(dim=1))}")
    one = model.encode(SENTENCES[0])
    print(f"encode one {type(one).__name__} {checksum(one)}")
    lst = model.encode(SENTENCES[:3], convert_to_tensor=False, convert_to_numpy=False)
    print(f"encode list {type(lst).__name__} {len(lst)} {checksum(torch.stack(lst))}")
    q = model.encode(SENTENCES[:4], precision="int8")
    b = model.encode(SENTENCES[:4], precision="ubinary")
    print(f"encode int8 {q.dtype} {q.tolist()[0][:8]} ubinary {b.dtype} {b.tolist()}")
    out = model.encode(SENTENCES[:2], output_value="token_embeddings")
    print(f"encode token_embeddings {[tuple(x.shape) for x in out]} "
          f"{checksum(torch.cat(list(out)))}")
    for pooling in ("cls", "max", "mean_sqrt_len_tokens", "weightedmean", "lasttoken",
                    ("mean", "max")):
        model[1] = type(model[1])(HIDDEN, pooling_mode=pooling)
        e = model.encode(SENTENCES, convert_to_tensor=True)
        print(f"encode pooling {pooling} {checksum(e)}")
    torch.manual_seed(1)
    dense = sentence_model(os.path.join(folder, "bert"), dense=True)
    e = dense.encode(SENTENCES, convert_to_tensor=True)
    print(f"encode dense {dense.get_embedding_dimension()} {checksum(e)}")
    e = dense.encode(SENTENCES, convert_to_tensor=True, truncate_dim=8)
    print(f"encode truncate_dim 8 {checksum(e)}")


@variant
def util(folder):
    from sentence_transformers import util as st_util
    model = _tiny(folder)
    emb = model.encode(SENTENCES, convert_to_tensor=True)
    cos = st_util.cos_sim(emb[:4], emb)
    dot = st_util.dot_score(emb[:4], emb)
    print(f"util cos_sim {checksum(cos)}")
    print(f"util dot_score {checksum(dot)}")
    print(f"util pairwise_cos_sim {checksum(st_util.pairwise_cos_sim(emb[:8], emb[8:]))}")
    print(f"util pairwise_dot_score {checksum(st_util.pairwise_dot_score(emb[:8], emb[8:]))}")
    print(f"util model.similarity {checksum(model.similarity(emb[:4], emb[4:]))} "
          f"{model.similarity_fn_name}")
    hits = st_util.semantic_search(emb[:3], emb, top_k=4)
    print(f"util semantic_search {rounded(hits)}")
    hits = st_util.semantic_search(emb[:3], emb, top_k=3, score_function=st_util.dot_score,
                                   corpus_chunk_size=5)
    print(f"util semantic_search dot chunked {rounded(hits)}")
    pairs = st_util.paraphrase_mining(model, SENTENCES, top_k=2, batch_size=4)
    print(f"util paraphrase_mining {len(pairs)} {rounded(pairs[:8])}")
    communities = st_util.community_detection(emb, threshold=0.9, min_community_size=2)
    print(f"util community_detection 0.9 {communities}")
    communities = st_util.community_detection(emb, threshold=0.97, min_community_size=2)
    print(f"util community_detection 0.97 {communities}")
    print(f"util normalize_embeddings {checksum(st_util.normalize_embeddings(emb * 3))}")


def _trainer_run(model, loss, data, name, **args):
    from datasets import Dataset
    from sentence_transformers import (
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )
    from transformers import PrinterCallback
    out = tempfile.mkdtemp(prefix="st_train_")
    try:
        targs = SentenceTransformerTrainingArguments(
            output_dir=out, max_steps=STEPS, per_device_train_batch_size=4, learning_rate=1e-3,
            warmup_steps=1, logging_steps=1, save_strategy="no", report_to="none", seed=0,
            use_cpu=True, disable_tqdm=True, dataloader_drop_last=True, **args)
        trainer = SentenceTransformerTrainer(model=model, args=targs,
                                             train_dataset=Dataset.from_dict(data), loss=loss)
        trainer.remove_callback(PrinterCallback)  # its log lines carry timings
        result = trainer.train()
        losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
        print(f"losses {name} trainer {losses!r} train_loss {result.training_loss!r}")
        print(f"losses {name} params {params_checksum(model)}")
    finally:
        shutil.rmtree(out)


@variant
def losses(folder):
    from sentence_transformers.sentence_transformer import losses as L
    bert = build_bert(os.path.join(folder, "bert"))
    scores = [float(s) for s in torch.rand(8)]
    labels = [int(s > 0.5) for s in scores]
    pairs = {"sentence1": ANCHORS, "sentence2": POSITIVES}
    cases = (
        ("mnrl", lambda m: L.MultipleNegativesRankingLoss(m), pairs),
        ("mnrl_triplets", lambda m: L.MultipleNegativesRankingLoss(m, scale=10.0),
         {"anchor": ANCHORS, "positive": POSITIVES, "negative": NEGATIVES}),
        ("cosine", lambda m: L.CosineSimilarityLoss(m), dict(pairs, score=scores)),
        ("triplet", lambda m: L.TripletLoss(m, triplet_margin=0.5),
         {"anchor": ANCHORS, "positive": POSITIVES, "negative": NEGATIVES}),
        ("triplet_cos", lambda m: L.TripletLoss(
            m, distance_metric=L.TripletDistanceMetric.COSINE, triplet_margin=0.1),
         {"anchor": ANCHORS, "positive": POSITIVES, "negative": NEGATIVES}),
        ("contrastive", lambda m: L.ContrastiveLoss(m, margin=0.5), dict(pairs, label=labels)),
        ("online_contrastive", lambda m: L.OnlineContrastiveLoss(m, margin=0.5),
         dict(pairs, label=labels)),
        ("matryoshka", lambda m: L.MatryoshkaLoss(m, L.MultipleNegativesRankingLoss(m),
                                                  matryoshka_dims=[32, 16, 8]), pairs),
        ("cosent", lambda m: L.CoSENTLoss(m), dict(pairs, score=scores)),
        ("angle", lambda m: L.AnglELoss(m), dict(pairs, score=scores)),
        ("mnrl_symmetric", lambda m: L.MultipleNegativesRankingLoss(
            m, directions=("query_to_doc", "doc_to_query"), partition_mode="per_direction"),
         pairs),
        ("cached_mnrl", lambda m: L.CachedMultipleNegativesRankingLoss(m, mini_batch_size=2),
         pairs),
    )
    for name, make, data in cases:
        torch.manual_seed(2)
        model = sentence_model(bert)
        _trainer_run(model, make(model), data, name)
    # a manual loop: the loss modules called on tokenized features, torch.optim.AdamW
    torch.manual_seed(3)
    model = sentence_model(bert)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    manual = [("mnrl", L.MultipleNegativesRankingLoss(model), None),
              ("cosent", L.CoSENTLoss(model), torch.tensor(scores[:4])),
              ("cosine", L.CosineSimilarityLoss(model), torch.tensor(scores[:4])),
              ("contrastive", L.ContrastiveLoss(model), torch.tensor(labels[:4]))]
    for step, (name, loss_fn, target) in enumerate(manual):
        features = [model.tokenize(ANCHORS[:4]), model.tokenize(POSITIVES[:4])]
        loss = loss_fn(features, target)
        opt.zero_grad()
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        print(f"losses manual {step} {name} loss {loss.item()!r} grad norm {norm.item()!r}")
    print(f"losses manual params {params_checksum(model)}")


@variant
def evaluators(folder):
    from sentence_transformers.sentence_transformer import evaluation as E
    model = _tiny(folder)
    scores = [float(s) for s in torch.rand(8)]
    ev = E.EmbeddingSimilarityEvaluator(ANCHORS, POSITIVES, scores, name="sts")
    print(f"evaluators similarity {rounded(ev(model))}")
    queries = {f"q{i}": s for i, s in enumerate(ANCHORS)}
    corpus = {f"d{i}": s for i, s in enumerate(SENTENCES)}
    relevant = {f"q{i}": {f"d{2 * i + 1}", f"d{2 * i}"} for i in range(len(ANCHORS))}
    ev = E.InformationRetrievalEvaluator(queries, corpus, relevant, name="ir",
                                         mrr_at_k=[3], ndcg_at_k=[3], accuracy_at_k=[1, 3],
                                         precision_recall_at_k=[1, 3], map_at_k=[5])
    print(f"evaluators ir {rounded(ev(model))}")
    ev = E.TripletEvaluator(ANCHORS, POSITIVES, NEGATIVES, name="triplet")
    print(f"evaluators triplet {rounded(ev(model))}")
    labels = [int(s > 0.5) for s in scores]
    ev = E.BinaryClassificationEvaluator(ANCHORS, POSITIVES, labels, name="binary")
    print(f"evaluators binary {rounded(ev(model))}")
    ids = {str(i): s for i, s in enumerate(SENTENCES)}
    ev = E.ParaphraseMiningEvaluator(ids, [("0", "1"), ("2", "3"), ("6", "7")], name="pm")
    print(f"evaluators paraphrase_mining {rounded(ev(model))}")


@variant
def cross_encoder(folder):
    from datasets import Dataset
    from sentence_transformers import CrossEncoder
    from sentence_transformers.cross_encoder import (
        CrossEncoderTrainer,
        CrossEncoderTrainingArguments,
    )
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss
    from transformers import PrinterCallback
    bert = build_bert(os.path.join(folder, "ce"), classifier=True)
    model = CrossEncoder(bert, num_labels=1, device="cpu", max_length=32)
    print(f"cross_encoder parameters {params_checksum(model)}")
    scores = model.predict(list(zip(ANCHORS, POSITIVES)))
    print(f"cross_encoder predict {scores.dtype} {checksum(scores)}")
    ranks = model.rank(ANCHORS[0], SENTENCES, top_k=4, return_documents=True)
    print(f"cross_encoder rank {rounded(ranks)}")
    labels = [float(s > 0.5) for s in torch.rand(8)]
    out = tempfile.mkdtemp(prefix="ce_train_")
    try:
        args = CrossEncoderTrainingArguments(
            output_dir=out, max_steps=STEPS, per_device_train_batch_size=4, learning_rate=1e-3,
            logging_steps=1, save_strategy="no", report_to="none", seed=0, use_cpu=True,
            disable_tqdm=True)
        data = Dataset.from_dict({"query": ANCHORS, "passage": POSITIVES, "label": labels})
        trainer = CrossEncoderTrainer(model=model, args=args, train_dataset=data,
                                      loss=BinaryCrossEntropyLoss(model))
        trainer.remove_callback(PrinterCallback)
        trainer.train()
        history = [h["loss"] for h in trainer.state.log_history if "loss" in h]
        print(f"cross_encoder trainer losses {history!r}")
    finally:
        shutil.rmtree(out)
    print(f"cross_encoder trained {params_checksum(model)}")
    print(f"cross_encoder predict after {checksum(model.predict(list(zip(ANCHORS, NEGATIVES))))}")


@variant
def save_load(folder):
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer import losses as L
    model = _tiny(folder, pooling="cls", dense=True)
    _trainer_run(model, L.MultipleNegativesRankingLoss(model),
                 {"anchor": ANCHORS, "positive": POSITIVES}, "save_load")
    path = os.path.join(folder, "saved")
    model.save(path)
    files = sorted(os.path.relpath(os.path.join(d, f), path)
                   for d, _, fs in os.walk(path) for f in fs if not f.startswith("README"))
    print(f"save_load files {files}")
    loaded = SentenceTransformer(path, device="cpu")
    print(f"save_load modules {[type(m).__name__ for m in loaded]}")
    a = model.encode(SENTENCES, convert_to_tensor=True)
    b = loaded.encode(SENTENCES, convert_to_tensor=True)
    print(f"save_load encode {checksum(a)} max diff {(a - b).abs().max().item()!r}")
    print(f"save_load params equal {params_checksum(model) == params_checksum(loaded)}")


def main(argv):
    if os.environ.get("ST_FLOAT64"):
        torch.set_default_dtype(torch.float64)
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    import sentence_transformers
    import transformers
    transformers.logging.set_verbosity_error()
    logging.getLogger("sentence_transformers").setLevel(logging.ERROR)
    print(f"sentence-transformers {sentence_transformers.__version__}")
    for name in names:
        start = time.time()
        torch.manual_seed(0)
        print(f"== {name}")
        folder = tempfile.mkdtemp(prefix="st_")
        try:
            VARIANTS[name](folder)
        finally:
            shutil.rmtree(folder)
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
