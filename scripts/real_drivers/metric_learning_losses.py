"""Driver of pytorch-metric-learning (docs/real-programs.md): the installed package (2.9),
unchanged, run on seeded embeddings (32 of 8 dimensions, 8 classes of 4) and printing, at full
precision, every loss value with the checksum of its gradient with respect to the embeddings and
to the loss's own parameters (proxies, class weights, learned margins).

Variants (each reseeds with ``torch.manual_seed``, so a subset prints what the full run prints
for it):

- ``losses``: every loss of ``pytorch_metric_learning.losses`` that takes embeddings (34; the
  four wrappers and VICReg are in ``wrappers``), with its default distance and reducer.
- ``distances``: LpDistance (p, power, unnormalized), CosineSimilarity, DotProductSimilarity,
  SNRDistance and BatchedDistance matrices, and pair and triplet losses over each.
- ``miners``: MultiSimilarityMiner, TripletMarginMiner (all, hard, semihard, easy),
  BatchHardMiner, BatchEasyHardMiner, PairMarginMiner, AngularMiner, DistanceWeightedMiner,
  HDCMiner, UniformHistogramMiner: the tuples they mine (count and index sums) and the
  losses over them.
- ``reducers``: ContrastiveLoss and TripletMarginLoss through every reducer.
- ``regularizers``: embedding and weight regularizers on losses.
- ``wrappers``: CrossBatchMemory over three batches, SelfSupervisedLoss, VICRegLoss,
  MultipleLosses, ref_emb/ref_labels, the utils' tuple builders.
- ``train``: a tiny embedding net (Linear-ReLU-Linear) trained 6 Adam steps with
  TripletMarginLoss over MultiSimilarityMiner's pairs, and 6 SGD steps with ArcFaceLoss,
  whose weights have their own optimizer.
- ``accuracy``: AccuracyCalculator with its default faiss k-NN and with CustomKNN.

    python scripts/shared_rng_run.py drive_pml.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_pml.py [VARIANT ... | all]   # jtorch

``PML_FLOAT64=1`` runs everything in float64 (to tell float32 rounding from a bug).
"""

import os
import sys
import time
import warnings

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from pytorch_metric_learning import (  # noqa: E402
    distances,
    losses,
    miners,
    reducers,
    regularizers,
)
from pytorch_metric_learning.utils import loss_and_miner_utils as lmu  # noqa: E402

warnings.filterwarnings("ignore")

N, D, C = 32, 8, 8  # embeddings, their size, classes (4 of each)
VARIANTS = {}


def variant(name):
    def register(fn):
        VARIANTS[name] = fn
        return fn
    return register


def dtype():
    return torch.get_default_dtype()


def data(seed=0, n=N, d=D, classes=C):
    """Embeddings drawn from NumPy (the same in both frameworks without the wrapper) with labels
    of ``n // classes`` samples per class, shuffled; class means spread the classes apart."""
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.arange(n) % classes)
    means = rng.standard_normal((classes, d))
    emb = means[labels] * 0.8 + rng.standard_normal((n, d))
    return (torch.from_numpy(emb).to(dtype()).requires_grad_(),
            torch.from_numpy(labels).long())


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements, so
    that a gradient summing to zero gives no cancellation noise) and the largest magnitude."""
    t = t.detach().double().flatten()
    if t.numel() == 0:
        return "empty"
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    return (f"abssum {t.abs().sum().item()!r} wsum {(t * w).sum().item()!r} "
            f"absmax {t.abs().max().item()!r}")


def report(name, loss, emb, params=(), extra=()):
    """Backward through ``loss``; print it, the embeddings' gradient and each parameter's."""
    loss.backward()
    print(f"{name} loss {loss.item()!r}")
    for label, t in ((("emb", emb),) if emb is not None else ()) + tuple(params) + tuple(extra):
        g = t.grad
        print(f"{name} grad {label} {'none' if g is None else checksum(g)}")


def tuples(name, indices):
    parts = " ".join(f"{len(t)}:{int(t.sum())}" for t in indices)
    print(f"{name} mined {parts}")


def run_loss(name, make, emb_seed=0, **kwargs):
    torch.manual_seed(1)
    loss_fn = make()
    emb, labels = data(emb_seed)
    params = [(n, p) for n, p in loss_fn.named_parameters()]
    for n, p in params:
        print(f"{name} param {n} {list(p.shape)} {checksum(p)}")
    report(name, loss_fn(emb, labels, **kwargs), emb, params)
    return loss_fn


@variant("losses")
def _():
    L = losses
    for name, make in (
        ("AngularLoss", lambda: L.AngularLoss(alpha=40)),
        ("ArcFaceLoss", lambda: L.ArcFaceLoss(C, D, margin=28.6, scale=16)),
        ("CircleLoss", lambda: L.CircleLoss(m=0.4, gamma=20)),
        ("ContrastiveLoss", lambda: L.ContrastiveLoss(pos_margin=0.1, neg_margin=2.0)),
        ("CosFaceLoss", lambda: L.CosFaceLoss(C, D, margin=0.35, scale=16)),
        ("DynamicSoftMarginLoss", lambda: L.DynamicSoftMarginLoss(num_bins=10)),
        ("FastAPLoss", lambda: L.FastAPLoss(num_bins=10)),
        ("GeneralizedLiftedStructureLoss",
         lambda: L.GeneralizedLiftedStructureLoss(neg_margin=1, pos_margin=0)),
        ("HistogramLoss", lambda: L.HistogramLoss(n_bins=10)),
        ("InstanceLoss", lambda: L.InstanceLoss(gamma=16)),
        ("IntraPairVarianceLoss", lambda: L.IntraPairVarianceLoss()),
        ("LargeMarginSoftmaxLoss", lambda: L.LargeMarginSoftmaxLoss(C, D, margin=4)),
        ("LiftedStructureLoss", lambda: L.LiftedStructureLoss(neg_margin=1)),
        ("MarginLoss", lambda: L.MarginLoss(margin=0.2, nu=0.1, beta=1.2)),
        ("MarginLoss_learn_beta",
         lambda: L.MarginLoss(margin=0.2, nu=0.1, learn_beta=True, num_classes=C)),
        ("MultiSimilarityLoss", lambda: L.MultiSimilarityLoss(alpha=2, beta=50, base=0.5)),
        ("NCALoss", lambda: L.NCALoss(softmax_scale=2)),
        ("NormalizedSoftmaxLoss", lambda: L.NormalizedSoftmaxLoss(C, D, temperature=0.1)),
        ("NPairsLoss", lambda: L.NPairsLoss()),
        ("NTXentLoss", lambda: L.NTXentLoss(temperature=0.1)),
        ("P2SGradLoss", lambda: L.P2SGradLoss(D, C)),
        ("PNPLoss", lambda: L.PNPLoss(b=2, alpha=1, anneal=0.1, variant="Ds")),
        ("ProxyAnchorLoss", lambda: L.ProxyAnchorLoss(C, D, margin=0.1, alpha=32)),
        ("ProxyNCALoss", lambda: L.ProxyNCALoss(C, D, softmax_scale=3)),
        ("RankedListLoss", lambda: L.RankedListLoss(margin=0.4, Tn=10, Tp=1, imbalance=0.5)),
        ("SignalToNoiseRatioContrastiveLoss",
         lambda: L.SignalToNoiseRatioContrastiveLoss(pos_margin=0, neg_margin=1)),
        ("SmoothAPLoss", lambda: L.SmoothAPLoss(temperature=0.1)),
        ("SoftTripleLoss", lambda: L.SoftTripleLoss(C, D, centers_per_class=3, la=20)),
        ("SphereFaceLoss", lambda: L.SphereFaceLoss(C, D, margin=4)),
        ("SubCenterArcFaceLoss",
         lambda: L.SubCenterArcFaceLoss(num_classes=C, embedding_size=D, scale=16)),
        ("SupConLoss", lambda: L.SupConLoss(temperature=0.1)),
        ("ThresholdConsistentMarginLoss", lambda: L.ThresholdConsistentMarginLoss()),
        ("TripletMarginLoss", lambda: L.TripletMarginLoss(margin=0.2)),
        ("TripletMarginLoss_swap_smooth",
         lambda: L.TripletMarginLoss(margin=0.2, swap=True, smooth_loss=True)),
        ("TripletMarginLoss_per_anchor",
         lambda: L.TripletMarginLoss(margin=0.2, triplets_per_anchor=3)),
        ("TupletMarginLoss", lambda: L.TupletMarginLoss(margin=5.73, scale=16)),
    ):
        run_loss(name, make)
    # ManifoldLoss takes no labels (its meta-classes are drawn with randint/randperm)
    torch.manual_seed(1)
    loss_fn = losses.ManifoldLoss(l=D, K=8)
    emb, _ = data(0)
    report("ManifoldLoss", loss_fn(emb), emb, [("proxies", loss_fn.proxies)])
    # SubCenterArcFace's outlier detection after the loss
    torch.manual_seed(1)
    loss_fn = losses.SubCenterArcFaceLoss(num_classes=C, embedding_size=D, scale=16)
    emb, labels = data(0)
    outliers, dominant = loss_fn.get_outliers(emb.detach(), labels, threshold=60,
                                              return_dominant_centers=True)
    print(f"SubCenterArcFaceLoss outliers {outliers.tolist()} dominant {checksum(dominant)}")
    # ArcFace's logits (its scaled, margin-free cosines)
    loss_fn = losses.ArcFaceLoss(C, D, scale=16)
    print(f"ArcFaceLoss logits {checksum(loss_fn.get_logits(emb.detach()))}")


@variant("distances")
def _():
    emb, labels = data(1)
    ref, _ = data(2, n=12)
    Dm = distances
    for name, dist in (
        ("Lp2", Dm.LpDistance()),
        ("Lp2_squared", Dm.LpDistance(power=2)),
        ("Lp1_unnormalized", Dm.LpDistance(p=1, normalize_embeddings=False)),
        ("Lp2_unnormalized", Dm.LpDistance(normalize_embeddings=False)),
        ("Cosine", Dm.CosineSimilarity()),
        ("DotProduct", Dm.DotProductSimilarity(normalize_embeddings=False)),
        ("SNR", Dm.SNRDistance()),
    ):
        mat = dist(emb.detach(), ref.detach())
        print(f"distance {name} {list(mat.shape)} {checksum(mat)}")
        pairs = dist.pairwise_distance(emb.detach()[:12], ref.detach())
        print(f"distance {name} pairwise {checksum(pairs)}")
        for lname, make in (("Contrastive", lambda d: losses.ContrastiveLoss(
                pos_margin=0.2 if d.is_inverted else 0, neg_margin=0.5 if d.is_inverted else 1,
                distance=d)),
                ("TripletMargin", lambda d: losses.TripletMarginLoss(margin=0.1, distance=d)),
                ("MultiSimilarity", lambda d: losses.MultiSimilarityLoss(distance=d)),
                ("NTXent", lambda d: losses.NTXentLoss(temperature=0.5, distance=d)),
                ("CircleLoss", lambda d: losses.CircleLoss(gamma=8, distance=d))):
            if (lname in ("MultiSimilarity", "NTXent") and not dist.is_inverted
                    or lname == "CircleLoss" and name != "Cosine"):
                continue  # these need a similarity (CircleLoss the cosine one)
            e = emb.detach().clone().requires_grad_()
            report(f"distance {name} {lname}", make(dist)(e, labels), e)
    batched = []
    Dm.BatchedDistance(Dm.CosineSimilarity(), batch_size=10,
                       iter_fn=lambda mat, s, e: batched.append((s, e, mat.sum().item())))(
        emb.detach(), ref.detach())
    print(f"distance Batched {[(s, e) for s, e, _ in batched]} "
          f"{sum(v for _, _, v in batched)!r}")


@variant("miners")
def _():
    emb, labels = data(3)
    M = miners
    for name, miner, loss_fn in (
        ("MultiSimilarityMiner", M.MultiSimilarityMiner(epsilon=0.1),
         losses.MultiSimilarityLoss()),
        ("TripletMarginMiner_all", M.TripletMarginMiner(margin=0.2), losses.TripletMarginLoss(
            margin=0.2)),
        ("TripletMarginMiner_hard", M.TripletMarginMiner(margin=0.2, type_of_triplets="hard"),
         losses.TripletMarginLoss(margin=0.2)),
        ("TripletMarginMiner_semihard", M.TripletMarginMiner(
            margin=0.2, type_of_triplets="semihard"), losses.TripletMarginLoss(margin=0.2)),
        ("TripletMarginMiner_easy", M.TripletMarginMiner(margin=0.2, type_of_triplets="easy"),
         losses.TripletMarginLoss(margin=0.2)),
        ("BatchHardMiner", M.BatchHardMiner(), losses.TripletMarginLoss(margin=0.2)),
        ("BatchHardMiner_cosine", M.BatchHardMiner(distance=distances.CosineSimilarity()),
         losses.TripletMarginLoss(margin=0.1, distance=distances.CosineSimilarity())),
        ("BatchEasyHardMiner", M.BatchEasyHardMiner(pos_strategy="easy",
                                                    neg_strategy="semihard"),
         losses.TripletMarginLoss(margin=0.2)),
        ("BatchEasyHardMiner_pairs", M.BatchEasyHardMiner(pos_strategy="hard",
                                                          neg_strategy="hard",
                                                          allowed_neg_range=[0.3, 1.6]),
         losses.ContrastiveLoss()),
        ("PairMarginMiner", M.PairMarginMiner(pos_margin=0.3, neg_margin=0.9),
         losses.ContrastiveLoss()),
        ("PairMarginMiner_cosine", M.PairMarginMiner(pos_margin=0.8, neg_margin=0.3,
                                                     distance=distances.CosineSimilarity()),
         losses.ContrastiveLoss(pos_margin=1, neg_margin=0,
                                distance=distances.CosineSimilarity())),
        ("AngularMiner", M.AngularMiner(angle=35), losses.AngularLoss(alpha=35)),
        ("HDCMiner", M.HDCMiner(filter_percentage=0.5), losses.ContrastiveLoss()),
        # (0.25: at 0.3 the last kept negative pair is one of two of equal cosine, (10, 31)
        # and (31, 10), and which of tied values topk keeps is PyTorch's CPU kernel's choice)
        ("HDCMiner_cosine", M.HDCMiner(filter_percentage=0.25,
                                       distance=distances.CosineSimilarity()),
         losses.ContrastiveLoss(pos_margin=1, neg_margin=0,
                                distance=distances.CosineSimilarity())),
        ("DistanceWeightedMiner", M.DistanceWeightedMiner(cutoff=0.5, nonzero_loss_cutoff=1.4),
         losses.MarginLoss()),
        ("UniformHistogramMiner", M.UniformHistogramMiner(num_bins=10, pos_per_bin=3,
                                                          neg_per_bin=6),
         losses.ContrastiveLoss()),
    ):
        torch.manual_seed(2)
        e = emb.detach().clone().requires_grad_()
        indices = miner(e, labels)
        tuples(name, indices)
        stats = {k: getattr(miner, k) for k in getattr(miner, "_record_these_stats", ())}
        if stats:
            print(f"{name} stats " + " ".join(f"{k} {float(v)!r}" for k, v in
                                             sorted(stats.items())))
        report(name, loss_fn(e, labels, indices), e)


@variant("reducers")
def _():
    emb, labels = data(4)
    R = reducers
    weights = torch.linspace(0.5, 2.0, C, dtype=dtype())
    for name, reducer in (
        ("MeanReducer", R.MeanReducer()),
        ("AvgNonZeroReducer", R.AvgNonZeroReducer()),
        ("SumReducer", R.SumReducer()),
        ("ThresholdReducer", R.ThresholdReducer(low=0.1, high=1.0)),
        ("ClassWeightedReducer", R.ClassWeightedReducer(weights)),
        ("PerAnchorReducer", R.PerAnchorReducer(R.AvgNonZeroReducer())),
        ("MultipleReducers", R.MultipleReducers({"pos_loss": R.SumReducer()},
                                                default_reducer=R.MeanReducer())),
    ):
        for lname, make in (("Contrastive", lambda r: losses.ContrastiveLoss(
                pos_margin=0.1, neg_margin=1.2, reducer=r)),
                ("TripletMargin", lambda r: losses.TripletMarginLoss(margin=0.3, reducer=r))):
            if name == "PerAnchorReducer" and lname == "TripletMargin":
                continue
            e = emb.detach().clone().requires_grad_()
            report(f"{name} {lname}", make(reducer)(e, labels), e)
    # DivisorReducer: a loss dict with a divisor (what a custom loss returns)
    e = emb.detach().clone().requires_grad_()
    per = e.norm(dim=1)
    loss = R.DivisorReducer()({"loss": {"losses": per, "indices": torch.arange(N),
                                        "reduction_type": "element", "divisor": 7}}, e, labels)
    report("DivisorReducer", loss, e)
    # DoNothingReducer: the unreduced per-pair losses
    e = emb.detach().clone().requires_grad_()
    out = losses.ContrastiveLoss(reducer=R.DoNothingReducer())(e, labels)
    pos, neg = out["pos_loss"], out["neg_loss"]
    print(f"DoNothingReducer pos {checksum(pos['losses'])} {len(pos['indices'][0])} "
          f"neg {checksum(neg['losses'])}")
    report("DoNothingReducer", pos["losses"].sum() + neg["losses"].sum(), e)


@variant("regularizers")
def _():
    emb, labels = data(5)
    Rg = regularizers
    for name, make in (
        ("Contrastive+Lp", lambda: losses.ContrastiveLoss(
            embedding_regularizer=Rg.LpRegularizer(), embedding_reg_weight=0.1)),
        ("Triplet+ZeroMean", lambda: losses.TripletMarginLoss(
            embedding_regularizer=Rg.ZeroMeanRegularizer(), embedding_reg_weight=0.5)),
        ("ArcFace+RegularFace", lambda: losses.ArcFaceLoss(
            C, D, scale=16, weight_regularizer=Rg.RegularFaceRegularizer(),
            weight_reg_weight=0.3)),
        ("CosFace+CenterInvariant", lambda: losses.CosFaceLoss(
            C, D, scale=16, weight_regularizer=Rg.CenterInvariantRegularizer())),
        ("NormalizedSoftmax+Lp", lambda: losses.NormalizedSoftmaxLoss(
            C, D, weight_regularizer=Rg.LpRegularizer(p=1, power=2), weight_reg_weight=0.01)),
        ("SoftTriple+SparseCenters", lambda: losses.SoftTripleLoss(
            C, D, centers_per_class=3, weight_regularizer=Rg.SparseCentersRegularizer(C, 3))),
    ):
        torch.manual_seed(3)
        loss_fn = make()
        e = emb.detach().clone().requires_grad_()
        params = list(loss_fn.named_parameters())
        report(name, loss_fn(e, labels), e, params)


@variant("wrappers")
def _():
    # CrossBatchMemory: three batches through a memory of 48, with and without a miner
    for name, make in (("CrossBatchMemory_contrastive", lambda: losses.CrossBatchMemory(
            losses.ContrastiveLoss(), D, memory_size=48)),
            ("CrossBatchMemory_ntxent_miner", lambda: losses.CrossBatchMemory(
                losses.NTXentLoss(temperature=0.2), D, memory_size=48,
                miner=miners.MultiSimilarityMiner()))):
        loss_fn = make()
        for step in range(3):
            e, labels = data(10 + step, n=16)
            report(f"{name} step {step}", loss_fn(e, labels), e)
        print(f"{name} memory {checksum(loss_fn.embedding_memory)} "
              f"labels {loss_fn.label_memory.tolist()} queue_idx {loss_fn.queue_idx}")
    # enqueue_mask: half the batch is reference only
    loss_fn = losses.CrossBatchMemory(losses.TripletMarginLoss(), D, memory_size=48)
    e, labels = data(20, n=16)
    mask = torch.arange(16) % 2 == 0
    report("CrossBatchMemory_enqueue_mask", loss_fn(e, labels, enqueue_mask=mask), e)
    # self-supervised: two views
    a, _ = data(21, n=16)
    b = (a.detach() + 0.3 * data(22, n=16)[0].detach()).requires_grad_()
    for name, make in (("SelfSupervised_NTXent", lambda: losses.SelfSupervisedLoss(
            losses.NTXentLoss(temperature=0.2))),
            ("SelfSupervised_Triplet_asym", lambda: losses.SelfSupervisedLoss(
                losses.TripletMarginLoss(), symmetric=False)),
            ("VICRegLoss", lambda: losses.VICRegLoss())):
        a.grad = b.grad = None
        loss_fn = make()
        loss = loss_fn(a, ref_emb=b) if name == "VICRegLoss" else loss_fn(a, b)
        report(name, loss, a, extra=[("ref", b)])
    # MultipleLosses with miners and weights
    e, labels = data(23)
    loss_fn = losses.MultipleLosses(
        [losses.ContrastiveLoss(), losses.TripletMarginLoss(margin=0.3)],
        miners=[miners.PairMarginMiner(), None], weights=[1.0, 0.5])
    report("MultipleLosses", loss_fn(e, labels), e)
    loss_fn = losses.MultipleLosses({"a": losses.SupConLoss(), "b": losses.NTXentLoss()},
                                    weights={"a": 0.3, "b": 0.7})
    e.grad = None
    report("MultipleLosses_dict", loss_fn(e, labels), e)
    # ref_emb / ref_labels
    ref, ref_labels = data(24, n=20)
    for name, make in (("ref Contrastive", losses.ContrastiveLoss),
                       ("ref SupCon", losses.SupConLoss),
                       ("ref Triplet", losses.TripletMarginLoss),
                       ("ref MultiSimilarity", losses.MultiSimilarityLoss)):
        e.grad = ref.grad = None
        report(name, make()(e, labels, ref_emb=ref, ref_labels=ref_labels), e,
               extra=[("ref", ref)])
    # the tuple builders
    torch.manual_seed(4)
    _, labels = data(25)
    pairs = lmu.get_all_pairs_indices(labels)
    tuples("get_all_pairs_indices", pairs)
    tuples("get_all_triplets_indices", lmu.get_all_triplets_indices(labels))
    tuples("convert_to_triplets", lmu.convert_to_triplets(pairs, labels))
    tuples("get_random_triplet_indices",
           lmu.get_random_triplet_indices(labels, t_per_anchor=2))
    tuples("convert_to_pairs", lmu.convert_to_pairs(lmu.get_all_triplets_indices(labels),
                                                    labels))
    tuples("pos_neg_pairs_from_tuple",
           lmu.pos_pairs_from_tuple(pairs) + lmu.neg_pairs_from_tuple(pairs))


class EmbeddingNet(torch.nn.Module):
    def __init__(self, d_in=16, hidden=32, d_out=D):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(d_in, hidden), torch.nn.ReLU(),
                                       torch.nn.Linear(hidden, d_out))

    def forward(self, x):
        return self.net(x)


def features(seed, n=N, d_in=16):
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.arange(n) % C)
    x = rng.standard_normal((C, d_in))[labels] + 0.7 * rng.standard_normal((n, d_in))
    return torch.from_numpy(x).to(dtype()), torch.from_numpy(labels).long()


def params_line(name, model):
    for n, p in model.named_parameters():
        print(f"{name} {n} {checksum(p)}")


@variant("train")
def _():
    torch.manual_seed(5)
    model = EmbeddingNet()
    params_line("init", model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    miner = miners.MultiSimilarityMiner(epsilon=0.1)
    loss_fn = losses.TripletMarginLoss(margin=0.2, distance=distances.CosineSimilarity(),
                                       reducer=reducers.ThresholdReducer(low=0))
    for step in range(6):
        x, labels = features(100 + step)
        opt.zero_grad()
        emb = model(x)
        indices = miner(emb, labels)
        loss = loss_fn(emb, labels, indices)
        loss.backward()
        print(f"triplet step {step} loss {loss.item()!r} mined {miner.num_pos_pairs} "
              f"{miner.num_neg_pairs} grad {checksum(model.net[0].weight.grad)}")
        opt.step()
    params_line("triplet", model)
    # ArcFace: the loss's weights have their own optimizer
    torch.manual_seed(6)
    model = EmbeddingNet()
    loss_fn = losses.ArcFaceLoss(C, D, margin=28.6, scale=16)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_opt = torch.optim.SGD(loss_fn.parameters(), lr=0.1)
    for step in range(6):
        x, labels = features(200 + step)
        opt.zero_grad()
        loss_opt.zero_grad()
        loss = loss_fn(model(x), labels)
        loss.backward()
        print(f"arcface step {step} loss {loss.item()!r} "
              f"W grad {checksum(loss_fn.W.grad)}")
        opt.step()
        loss_opt.step()
    params_line("arcface", model)
    print(f"arcface W {checksum(loss_fn.W)}")


@variant("accuracy")
def _():
    from pytorch_metric_learning.utils.accuracy_calculator import AccuracyCalculator
    from pytorch_metric_learning.utils.inference import CustomKNN

    emb, labels = data(30, n=100, classes=5)  # queries and references of the same classes
    q, ql, r, rl = emb.detach()[:40], labels[:40], emb.detach()[40:], labels[40:]
    for name, make in (("custom_cosine", lambda: AccuracyCalculator(
            k="max_bin_count", knn_func=CustomKNN(distances.CosineSimilarity()),
            exclude=("NMI", "AMI"))),
            ("custom_lp", lambda: AccuracyCalculator(
                k=15, knn_func=CustomKNN(distances.LpDistance(), batch_size=16),
                exclude=("NMI", "AMI"))),
            ("faiss", lambda: AccuracyCalculator(k="max_bin_count", exclude=("NMI", "AMI")))):
        try:
            calc = make()
            acc = calc.get_accuracy(q, ql, r, rl)
            print(f"accuracy {name} " + " ".join(f"{k} {v!r}" for k, v in sorted(acc.items())))
            acc = calc.get_accuracy(r, rl)
            print(f"accuracy {name} self " + " ".join(f"{k} {v!r}"
                                                      for k, v in sorted(acc.items())))
        except ImportError as e:
            print(f"accuracy {name} unavailable: {type(e).__name__}", file=sys.stderr)


def main(argv):
    if os.environ.get("PML_FLOAT64"):  # to tell float32 rounding from a bug
        torch.set_default_dtype(torch.float64)
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        torch.manual_seed(0)
        print(f"== {name}")
        VARIANTS[name]()
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
