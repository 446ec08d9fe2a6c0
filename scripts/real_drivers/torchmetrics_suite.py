"""Driver of TorchMetrics (docs/real-programs.md): the installed package, unchanged, computing a
broad set of its metrics on deterministic predictions and targets (seeded NumPy, converted to
tensors), each both in its functional form (``torchmetrics.functional``) and as a stateful
``Metric`` updated over several batches, then ``compute()`` and ``reset()``: classification,
regression, retrieval, image, audio, text, clustering, nominal, pairwise and segmentation
metrics, aggregation, ``MetricCollection``, the wrappers, and a metric's ``state_dict``,
``merge_state`` and ``forward`` with and without ``full_state_update``. Every result is printed
at full precision (a large tensor as its checksum).

    python scripts/shared_rng_run.py drive_torchmetrics.py [VARIANT ... | all]             # PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_torchmetrics.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant. Each variant draws its data from its own NumPy
generator, so a subset prints what the full run prints for it. torchvision is hidden from
torchmetrics (none of these metrics needs it; the ones that do download weights).
"""

import os
import sys
import time
import warnings

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from lightning_utilities.core import imports as _lu_imports  # noqa: E402

_check_requirement = _lu_imports.RequirementCache._check_requirement


def _without_torchvision(self):
    _check_requirement(self)
    if (self.requirement or "").startswith("torchvision"):
        self.available = False


_lu_imports.RequirementCache._check_requirement = _without_torchvision

import torchmetrics  # noqa: E402
import torchmetrics.clustering  # noqa: E402
import torchmetrics.functional.clustering  # noqa: E402
import torchmetrics.functional.segmentation  # noqa: E402
import torchmetrics.segmentation  # noqa: E402

TF = torchmetrics.functional
FA, FC, FCL = TF.audio, TF.classification, TF.clustering
FI, FS, FT = TF.image, TF.segmentation, TF.text
A, C, CL = torchmetrics.audio, torchmetrics.classification, torchmetrics.clustering
I, R = torchmetrics.image, torchmetrics.regression
RT, S, T, W = (torchmetrics.retrieval, torchmetrics.segmentation, torchmetrics.text,
               torchmetrics.wrappers)

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def rng(seed):
    return np.random.default_rng(seed)


def t(array, dtype=None):
    """A tensor from a NumPy array: float64 arrays become float32 unless ``dtype`` says."""
    array = np.asarray(array)
    if dtype is None:
        dtype = torch.float32 if array.dtype.kind == "f" else torch.int64
    return torch.tensor(array.tolist(), dtype=dtype)


def fmt(value):
    if isinstance(value, torch.Tensor):
        # a large tensor as its checksum: the sum of the finite magnitudes, a weighted sum
        # (weights 1 to 2, so a gradient summing to zero gives no cancellation noise), the
        # largest finite magnitude and the count of the others
        v = value.detach()
        head = f"{str(v.dtype).replace('torch.', '')}{list(v.shape)}"
        if v.is_floating_point():
            v = v.double()
        if v.numel() <= 24:
            return f"{head} {v.flatten().tolist()!r}"
        v = v.double().flatten()
        w = 1.0 + (torch.arange(v.numel(), dtype=torch.float64) % 7) / 6
        finite = v[torch.isfinite(v)]
        return (f"{head} abssum {finite.abs().sum().item()!r} wsum {(v * w).sum().item()!r} "
                f"absmax {finite.abs().max().item()!r} nonfinite {v.numel() - finite.numel()}")
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {fmt(value[k])}" for k in sorted(value)) + "}"
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(fmt(v) for v in value) + ")"
    return repr(value)


def show(label, value):
    print(f"{label}: {fmt(value)}")


def stateful(name, metric, batches, extra=None):
    """Update ``metric`` over ``batches`` (argument tuples), printing each forward value, the
    computed value, and after ``reset()`` the value of the first batch alone."""
    for i, args in enumerate(batches):
        show(f"{name} forward {i}", metric(*args))
    show(f"{name} compute", metric.compute())
    metric.reset()
    metric.update(*batches[0])
    show(f"{name} after reset", metric.compute())
    metric.reset()


def batches_of(n, *arrays):
    """Split the tensors into ``n`` batches along dim 0."""
    return list(zip(*[a.chunk(n) for a in arrays]))


# ---------------------------------------------------------------------------------------------
# classification


def binary_data(g, n=96):
    target = g.integers(0, 2, n)
    preds = np.clip(0.35 * target + 0.65 * g.random(n), 0, 1)
    return t(preds), t(target)


@variant("binary")
def _():
    g = rng(1)
    preds, target = binary_data(g)
    logits = t(g.normal(0, 2, preds.shape[0]))
    for name in ("accuracy", "precision", "recall", "f1_score", "specificity", "jaccard_index",
                 "hamming_distance", "matthews_corrcoef", "cohen_kappa", "stat_scores",
                 "confusion_matrix", "negative_predictive_value", "auroc",
                 "average_precision", "roc", "precision_recall_curve", "calibration_error"):
        fn = getattr(FC, "binary_" + name)
        show(f"binary_{name}", fn(preds, target))
    show("binary_fbeta_score b=0.5", FC.binary_fbeta_score(preds, target, beta=0.5))
    show("binary_accuracy threshold=0.7", FC.binary_accuracy(preds, target, threshold=0.7))
    show("binary_accuracy logits", FC.binary_accuracy(logits, target))
    show("binary_auroc logits", FC.binary_auroc(logits, target))
    show("binary_auroc max_fpr", FC.binary_auroc(preds, target, max_fpr=0.3))
    show("binary_auroc thresholds=7", FC.binary_auroc(preds, target, thresholds=7))
    show("binary_roc thresholds=5", FC.binary_roc(preds, target, thresholds=5))
    show("binary_precision_recall_curve thresholds=[.2,.5,.8]",
         FC.binary_precision_recall_curve(preds, target, thresholds=[0.2, 0.5, 0.8]))
    show("binary_average_precision thresholds=9",
         FC.binary_average_precision(preds, target, thresholds=9))
    show("binary_calibration_error l2", FC.binary_calibration_error(preds, target, norm="l2"))
    show("binary_calibration_error max", FC.binary_calibration_error(preds, target,
                                                                     norm="max", n_bins=10))
    show("binary_confusion_matrix normalize=true",
         FC.binary_confusion_matrix(preds, target, normalize="true"))
    ignored = target.clone()
    ignored[::5] = -1
    show("binary_accuracy ignore_index", FC.binary_accuracy(preds, ignored, ignore_index=-1))
    show("binary_auroc ignore_index", FC.binary_auroc(preds, ignored, ignore_index=-1))
    show("binary_stat_scores samplewise",
         FC.binary_stat_scores(preds.view(8, 12), target.view(8, 12),
                               multidim_average="samplewise"))
    show("binary_hinge_loss", FC.binary_hinge_loss(logits, target))
    show("binary_hinge_loss squared", FC.binary_hinge_loss(logits, target, squared=True))
    show("binary_eer", FC.binary_eer(preds, target))
    show("binary_logauc", FC.binary_logauc(preds, target))
    show("binary_recall_at_fixed_precision",
         FC.binary_recall_at_fixed_precision(preds, target, min_precision=0.6))
    show("binary_precision_at_fixed_recall",
         FC.binary_precision_at_fixed_recall(preds, target, min_recall=0.5))
    show("binary_sensitivity_at_specificity",
         FC.binary_sensitivity_at_specificity(preds, target, min_specificity=0.5))
    show("binary_specificity_at_sensitivity",
         FC.binary_specificity_at_sensitivity(preds, target, min_sensitivity=0.5))
    show("accuracy task=binary", TF.accuracy(preds, target, task="binary"))
    show("critical_success_index", TF.critical_success_index(preds, target, 0.5))
    parts = batches_of(4, preds, target)
    for metric in (C.BinaryAccuracy(), C.BinaryF1Score(), C.BinaryAUROC(),
                   C.BinaryAUROC(thresholds=11), C.BinaryAveragePrecision(),
                   C.BinaryROC(), C.BinaryPrecisionRecallCurve(thresholds=6),
                   C.BinaryConfusionMatrix(), C.BinaryCalibrationError(),
                   C.BinaryCohenKappa(), C.BinaryMatthewsCorrCoef(), C.BinaryJaccardIndex(),
                   C.BinaryStatScores(), C.BinarySpecificity(), C.BinaryHammingDistance(),
                   torchmetrics.Precision(task="binary"), torchmetrics.Recall(task="binary")):
        stateful(type(metric).__name__, metric, parts)


def multiclass_data(g, n=90, k=5):
    target = g.integers(0, k, n)
    logits = g.normal(0, 1, (n, k))
    logits[np.arange(n), target] += 1.2
    probs = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    return t(probs), t(target), t(logits)


@variant("multiclass")
def _():
    g = rng(2)
    k = 5
    probs, target, logits = multiclass_data(g, k=k)
    labels = probs.argmax(1)
    for name in ("accuracy", "precision", "recall", "f1_score", "specificity", "jaccard_index",
                 "hamming_distance", "negative_predictive_value", "stat_scores"):
        fn = getattr(FC, "multiclass_" + name)
        for average in ("micro", "macro", "weighted", "none"):
            show(f"multiclass_{name} {average}", fn(probs, target, num_classes=k,
                                                   average=average))
    show("multiclass_accuracy top_k=2", FC.multiclass_accuracy(probs, target, k, top_k=2))
    show("multiclass_f1 top_k=3 none", FC.multiclass_f1_score(probs, target, k, top_k=3,
                                                              average="none"))
    show("multiclass_accuracy labels", FC.multiclass_accuracy(labels, target, k))
    show("multiclass_accuracy logits", FC.multiclass_accuracy(logits, target, k))
    show("multiclass_fbeta b=2", FC.multiclass_fbeta_score(probs, target, 2.0, k))
    show("multiclass_confusion_matrix", FC.multiclass_confusion_matrix(probs, target, k))
    for norm in ("true", "pred", "all"):
        show(f"multiclass_confusion_matrix {norm}",
             FC.multiclass_confusion_matrix(probs, target, k, normalize=norm))
    show("multiclass_matthews_corrcoef", FC.multiclass_matthews_corrcoef(probs, target, k))
    for weights in (None, "linear", "quadratic"):
        show(f"multiclass_cohen_kappa {weights}",
             FC.multiclass_cohen_kappa(probs, target, k, weights=weights))
    for average in ("macro", "weighted", "none"):
        show(f"multiclass_auroc {average}", FC.multiclass_auroc(probs, target, k,
                                                                average=average))
        show(f"multiclass_average_precision {average}",
             FC.multiclass_average_precision(probs, target, k, average=average))
    show("multiclass_auroc thresholds=6", FC.multiclass_auroc(probs, target, k, thresholds=6))
    show("multiclass_roc", FC.multiclass_roc(probs, target, k))
    show("multiclass_roc thresholds=4", FC.multiclass_roc(probs, target, k, thresholds=4))
    show("multiclass_precision_recall_curve", FC.multiclass_precision_recall_curve(probs,
                                                                                    target, k))
    show("multiclass_precision_recall_curve micro", FC.multiclass_precision_recall_curve(
        probs, target, k, thresholds=5, average="micro"))
    show("multiclass_calibration_error", FC.multiclass_calibration_error(probs, target, k))
    show("multiclass_calibration_error l2", FC.multiclass_calibration_error(
        probs, target, k, n_bins=8, norm="l2"))
    show("multiclass_hinge_loss", FC.multiclass_hinge_loss(logits, target, k))
    show("multiclass_hinge_loss one-vs-all", FC.multiclass_hinge_loss(
        logits, target, k, multiclass_mode="one-vs-all"))
    show("multiclass_eer", FC.multiclass_eer(probs, target, k))
    show("multiclass_recall_at_fixed_precision",
         FC.multiclass_recall_at_fixed_precision(probs, target, k, min_precision=0.5))
    ignored = target.clone()
    ignored[::7] = 2
    show("multiclass_accuracy ignore_index=2", FC.multiclass_accuracy(probs, ignored, k,
                                                                      ignore_index=2))
    show("multiclass_jaccard ignore_index=2", FC.multiclass_jaccard_index(probs, ignored, k,
                                                                          ignore_index=2))
    # multidim: (N, C, extra) and exact match over the extra dimension
    md_target = t(g.integers(0, 3, (12, 6)))
    md_preds = t(g.integers(0, 3, (12, 6)))
    md_preds[:4] = md_target[:4]
    show("multiclass_exact_match", FC.multiclass_exact_match(md_preds, md_target, 3))
    show("multiclass_exact_match samplewise", FC.multiclass_exact_match(
        md_preds, md_target, 3, multidim_average="samplewise"))
    show("multiclass_stat_scores samplewise", FC.multiclass_stat_scores(
        md_preds, md_target, 3, multidim_average="samplewise", average="macro"))
    show("multiclass_accuracy samplewise", FC.multiclass_accuracy(
        md_preds, md_target, 3, multidim_average="samplewise"))
    show("f1_score task=multiclass", TF.f1_score(probs, target, task="multiclass",
                                                num_classes=k))
    parts = batches_of(3, probs, target)
    for metric in (C.MulticlassAccuracy(k), C.MulticlassAccuracy(k, average="micro", top_k=2),
                   C.MulticlassF1Score(k, average="none"), C.MulticlassPrecision(k),
                   C.MulticlassRecall(k, average="weighted"), C.MulticlassAUROC(k),
                   C.MulticlassAUROC(k, thresholds=5), C.MulticlassAveragePrecision(k),
                   C.MulticlassROC(k), C.MulticlassPrecisionRecallCurve(k, thresholds=4),
                   C.MulticlassConfusionMatrix(k), C.MulticlassCalibrationError(k),
                   C.MulticlassCohenKappa(k, weights="quadratic"),
                   C.MulticlassMatthewsCorrCoef(k), C.MulticlassJaccardIndex(k),
                   C.MulticlassSpecificity(k), C.MulticlassStatScores(k, average=None),
                   C.MulticlassHammingDistance(k)):
        stateful(type(metric).__name__, metric, parts)
    stateful("MulticlassExactMatch", C.MulticlassExactMatch(3),
             batches_of(3, md_preds, md_target))


def multilabel_data(g, n=80, labels=4):
    target = g.integers(0, 2, (n, labels))
    probs = np.clip(0.3 * target + 0.7 * g.random((n, labels)), 0, 1)
    return t(probs), t(target)


@variant("multilabel")
def _():
    g = rng(3)
    L = 4
    probs, target = multilabel_data(g, labels=L)
    for name in ("accuracy", "precision", "recall", "f1_score", "specificity", "jaccard_index",
                 "hamming_distance", "stat_scores"):
        fn = getattr(FC, "multilabel_" + name)
        for average in ("micro", "macro", "weighted", "none"):
            show(f"multilabel_{name} {average}", fn(probs, target, num_labels=L,
                                                   average=average))
    show("multilabel_exact_match", FC.multilabel_exact_match(probs, target, L))
    show("multilabel_confusion_matrix", FC.multilabel_confusion_matrix(probs, target, L))
    show("multilabel_matthews_corrcoef", FC.multilabel_matthews_corrcoef(probs, target, L))
    for average in ("micro", "macro", "weighted", "none"):
        show(f"multilabel_auroc {average}", FC.multilabel_auroc(probs, target, L,
                                                                average=average))
        show(f"multilabel_average_precision {average}",
             FC.multilabel_average_precision(probs, target, L, average=average))
    show("multilabel_roc", FC.multilabel_roc(probs, target, L))
    show("multilabel_precision_recall_curve thresholds=5",
         FC.multilabel_precision_recall_curve(probs, target, L, thresholds=5))
    show("multilabel_coverage_error", FC.multilabel_coverage_error(probs, target, L))
    show("multilabel_ranking_average_precision",
         FC.multilabel_ranking_average_precision(probs, target, L))
    show("multilabel_ranking_loss", FC.multilabel_ranking_loss(probs, target, L))
    show("multilabel_fbeta b=0.5 none", FC.multilabel_fbeta_score(probs, target, 0.5, L,
                                                                  average="none"))
    show("multilabel_accuracy threshold=0.6", FC.multilabel_accuracy(probs, target, L,
                                                                     threshold=0.6))
    ignored = target.clone()
    ignored[::3, 1] = -1
    show("multilabel_f1 ignore_index", FC.multilabel_f1_score(probs, ignored, L,
                                                              ignore_index=-1))
    show("multilabel_auroc ignore_index", FC.multilabel_auroc(probs, ignored, L,
                                                              ignore_index=-1))
    show("multilabel_eer", FC.multilabel_eer(probs, target, L))
    parts = batches_of(4, probs, target)
    for metric in (C.MultilabelAccuracy(L), C.MultilabelF1Score(L, average="none"),
                   C.MultilabelAUROC(L), C.MultilabelAveragePrecision(L, thresholds=7),
                   C.MultilabelROC(L), C.MultilabelConfusionMatrix(L),
                   C.MultilabelExactMatch(L), C.MultilabelHammingDistance(L),
                   C.MultilabelCoverageError(L), C.MultilabelRankingAveragePrecision(L),
                   C.MultilabelRankingLoss(L), C.MultilabelMatthewsCorrCoef(L),
                   C.MultilabelJaccardIndex(L)):
        stateful(type(metric).__name__, metric, parts)


# ---------------------------------------------------------------------------------------------
# regression


@variant("regression")
def _():
    g = rng(4)
    n = 64
    target = g.normal(1.0, 2.0, n)
    preds = target + g.normal(0, 0.8, n)
    pos_t = np.abs(target) + 0.5
    pos_p = np.abs(preds) + 0.5
    tt, pp, pt, ppos = t(target), t(preds), t(pos_t), t(pos_p)
    multi_t = t(g.normal(0, 1, (n, 3)))
    multi_p = multi_t * 0.7 + t(g.normal(0, 0.5, (n, 3)))
    for name in ("mean_squared_error", "mean_absolute_error", "r2_score", "explained_variance",
                 "pearson_corrcoef", "spearman_corrcoef", "kendall_rank_corrcoef",
                 "concordance_corrcoef", "log_cosh_error", "mean_absolute_percentage_error",
                 "symmetric_mean_absolute_percentage_error",
                 "weighted_mean_absolute_percentage_error", "relative_squared_error"):
        show(name, getattr(TF, name)(pp, tt))
    show("mean_squared_error squared=False", TF.mean_squared_error(pp, tt, squared=False))
    show("mean_squared_log_error", TF.mean_squared_log_error(ppos, pt))
    show("normalized_root_mean_squared_error", TF.normalized_root_mean_squared_error(pp, tt))
    show("normalized_root_mean_squared_error std", TF.normalized_root_mean_squared_error(
        pp, tt, normalization="std"))
    show("minkowski_distance p=3", TF.minkowski_distance(pp, tt, 3))
    for power in (0.0, 1.0, 1.5, 2.0, 3.0):
        show(f"tweedie_deviance_score {power}", TF.tweedie_deviance_score(ppos, pt, power))
    show("cosine_similarity", TF.cosine_similarity(multi_p, multi_t))
    show("cosine_similarity none", TF.cosine_similarity(multi_p, multi_t, reduction="none"))
    show("r2_score multioutput raw", TF.r2_score(multi_p, multi_t, multioutput="raw_values"))
    show("r2_score variance_weighted", TF.r2_score(multi_p, multi_t,
                                                   multioutput="variance_weighted"))
    show("r2_score adjusted", TF.r2_score(pp, tt, adjusted=3))
    show("explained_variance raw", TF.explained_variance(multi_p, multi_t,
                                                         multioutput="raw_values"))
    show("pearson_corrcoef multi", TF.pearson_corrcoef(multi_p, multi_t))
    show("spearman_corrcoef multi", TF.spearman_corrcoef(multi_p, multi_t))
    ties_t = t(np.round(target))
    ties_p = t(np.round(preds))
    show("spearman_corrcoef ties", TF.spearman_corrcoef(ties_p, ties_t))
    for variant_ in ("a", "b", "c"):
        show(f"kendall {variant_} ties", TF.kendall_rank_corrcoef(ties_p, ties_t,
                                                                  variant=variant_))
    show("kendall t_test", TF.kendall_rank_corrcoef(pp, tt, t_test=True,
                                                    alternative="two-sided"))
    p_dist = g.random((6, 5)) + 0.1
    q_dist = g.random((6, 5)) + 0.1
    pd_, qd_ = t(p_dist / p_dist.sum(1, keepdims=True)), t(q_dist / q_dist.sum(1, keepdims=True))
    show("kl_divergence", TF.kl_divergence(pd_, qd_))
    show("kl_divergence log_prob none", TF.kl_divergence(pd_.log(), qd_.log(), log_prob=True,
                                                         reduction="none"))
    parts = batches_of(4, pp, tt)
    for metric in (R.MeanSquaredError(), R.MeanAbsoluteError(), R.R2Score(),
                   R.ExplainedVariance(), R.PearsonCorrCoef(), R.SpearmanCorrCoef(),
                   R.KendallRankCorrCoef(), R.ConcordanceCorrCoef(), R.LogCoshError(),
                   R.MeanAbsolutePercentageError(), R.SymmetricMeanAbsolutePercentageError(),
                   R.WeightedMeanAbsolutePercentageError(), R.RelativeSquaredError(),
                   R.MinkowskiDistance(p=1.5), R.NormalizedRootMeanSquaredError()):
        stateful(type(metric).__name__, metric, parts)
    stateful("TweedieDevianceScore", R.TweedieDevianceScore(power=1.5),
             batches_of(4, ppos, pt))
    stateful("MeanSquaredLogError", R.MeanSquaredLogError(), batches_of(4, ppos, pt))
    stateful("CosineSimilarity", R.CosineSimilarity(reduction="mean"),
             batches_of(4, multi_p, multi_t))
    stateful("PearsonCorrCoef(3)", R.PearsonCorrCoef(num_outputs=3),
             batches_of(4, multi_p, multi_t))
    stateful("R2Score(raw)", R.R2Score(multioutput="raw_values"),
             batches_of(4, multi_p, multi_t))
    stateful("KLDivergence", R.KLDivergence(), batches_of(2, pd_, qd_))


# ---------------------------------------------------------------------------------------------
# retrieval


@variant("retrieval")
def _():
    g = rng(5)
    queries, docs = 6, 10
    indexes = t(np.repeat(np.arange(queries), docs))
    preds = t(g.random(queries * docs))
    target = t(g.random(queries * docs) < 0.35)
    target[docs * 2:docs * 3] = False  # a query with no relevant document
    graded = t(g.integers(0, 4, queries * docs))
    for q in range(2):
        s = slice(q * docs, (q + 1) * docs)
        show(f"q{q} retrieval_average_precision", TF.retrieval_average_precision(
            preds[s], target[s]))
        show(f"q{q} retrieval_average_precision top_k=4", TF.retrieval_average_precision(
            preds[s], target[s], top_k=4))
        show(f"q{q} retrieval_reciprocal_rank", TF.retrieval_reciprocal_rank(preds[s],
                                                                            target[s]))
        show(f"q{q} retrieval_normalized_dcg", TF.retrieval_normalized_dcg(preds[s],
                                                                          graded[s]))
        show(f"q{q} retrieval_normalized_dcg top_k=5", TF.retrieval_normalized_dcg(
            preds[s], graded[s], top_k=5))
        show(f"q{q} retrieval_precision top_k=3", TF.retrieval_precision(preds[s], target[s],
                                                                        top_k=3))
        show(f"q{q} retrieval_recall top_k=3", TF.retrieval_recall(preds[s], target[s],
                                                                  top_k=3))
        show(f"q{q} retrieval_hit_rate top_k=2", TF.retrieval_hit_rate(preds[s], target[s],
                                                                      top_k=2))
        show(f"q{q} retrieval_fall_out top_k=4", TF.retrieval_fall_out(preds[s], target[s],
                                                                      top_k=4))
        show(f"q{q} retrieval_r_precision", TF.retrieval_r_precision(preds[s], target[s]))
        show(f"q{q} retrieval_precision_recall_curve", TF.retrieval_precision_recall_curve(
            preds[s], target[s], max_k=5))
    for action in ("neg", "skip", "pos"):
        show(f"RetrievalMAP empty={action}", RT.RetrievalMAP(empty_target_action=action)(
            preds, target, indexes=indexes))
    parts = batches_of(3, preds, target, indexes)
    for metric in (RT.RetrievalMAP(), RT.RetrievalMAP(top_k=3), RT.RetrievalMRR(),
                   RT.RetrievalPrecision(top_k=4), RT.RetrievalPrecision(top_k=4, adaptive_k=True),
                   RT.RetrievalRecall(top_k=4), RT.RetrievalHitRate(top_k=2),
                   RT.RetrievalFallOut(top_k=3), RT.RetrievalRPrecision(),
                   RT.RetrievalMRR(aggregation="median"), RT.RetrievalMAP(aggregation="max")):
        name = type(metric).__name__
        for p, tg, ix in parts:
            metric.update(p, tg, indexes=ix)
        show(f"{name} compute", metric.compute())
        metric.reset()
    ndcg = RT.RetrievalNormalizedDCG(top_k=6)
    for p, tg, ix in batches_of(3, preds, graded, indexes):
        ndcg.update(p, tg, indexes=ix)
    show("RetrievalNormalizedDCG compute", ndcg.compute())
    curve = RT.RetrievalPrecisionRecallCurve(max_k=4)
    curve.update(preds, target, indexes=indexes)
    show("RetrievalPrecisionRecallCurve", curve.compute())
    fixed = RT.RetrievalRecallAtFixedPrecision(min_precision=0.3, max_k=6)
    fixed.update(preds, target, indexes=indexes)
    show("RetrievalRecallAtFixedPrecision", fixed.compute())


# ---------------------------------------------------------------------------------------------
# image


@variant("image")
def _():
    g = rng(6)
    target = g.random((2, 3, 48, 48))
    preds = np.clip(target + g.normal(0, 0.08, target.shape), 0, 1)
    tt, pp = t(target), t(preds)
    show("peak_signal_noise_ratio", TF.peak_signal_noise_ratio(pp, tt, data_range=1.0))
    show("peak_signal_noise_ratio dims", FI.peak_signal_noise_ratio(
        pp, tt, data_range=1.0, reduction="none", dim=(1, 2, 3)))
    show("peak_signal_noise_ratio range tuple", FI.peak_signal_noise_ratio(
        pp, tt, data_range=(0.1, 0.9)))
    show("ssim", FI.structural_similarity_index_measure(pp, tt, data_range=1.0))
    show("ssim full", FI.structural_similarity_index_measure(
        pp, tt, data_range=1.0, return_full_image=True, reduction="none"))
    show("ssim uniform kernel 7", FI.structural_similarity_index_measure(
        pp, tt, data_range=1.0, gaussian_kernel=False, kernel_size=7))
    show("ssim contrast sensitivity", FI.structural_similarity_index_measure(
        pp, tt, data_range=1.0, return_contrast_sensitivity=True))
    show("ms_ssim 3 scales", FI.multiscale_structural_similarity_index_measure(
        pp, tt, data_range=1.0, kernel_size=5, betas=(0.2, 0.3, 0.5)))
    show("ms_ssim normalize=simple", FI.multiscale_structural_similarity_index_measure(
        pp, tt, data_range=1.0, kernel_size=5, betas=(0.3, 0.3, 0.4), normalize="simple"))
    show("total_variation", FI.total_variation(pp))
    show("total_variation none", FI.total_variation(pp, reduction="none"))
    show("universal_image_quality_index", FI.universal_image_quality_index(pp, tt))
    show("spectral_angle_mapper", FI.spectral_angle_mapper(pp, tt))
    show("ergas", FI.error_relative_global_dimensionless_synthesis(pp, tt, ratio=4))
    show("relative_average_spectral_error", FI.relative_average_spectral_error(pp, tt))
    show("rmse_sw", FI.root_mean_squared_error_using_sliding_window(pp, tt))
    show("image_gradients", FI.image_gradients(pp))
    show("spectral_distortion_index", FI.spectral_distortion_index(pp, tt))
    show("spatial_correlation_coefficient", FI.spatial_correlation_coefficient(pp, tt))
    show("visual_information_fidelity", FI.visual_information_fidelity(
        t(g.random((1, 1, 48, 48))), t(g.random((1, 1, 48, 48)))))
    parts = batches_of(2, pp, tt)
    for metric in (I.PeakSignalNoiseRatio(data_range=1.0),
                   I.StructuralSimilarityIndexMeasure(data_range=1.0),
                   I.MultiScaleStructuralSimilarityIndexMeasure(
                       data_range=1.0, kernel_size=5, betas=(0.2, 0.3, 0.5)),
                   I.UniversalImageQualityIndex(), I.SpectralAngleMapper(),
                   I.ErrorRelativeGlobalDimensionlessSynthesis(),
                   I.RelativeAverageSpectralError(),
                   I.RootMeanSquaredErrorUsingSlidingWindow()):
        stateful(type(metric).__name__, metric, parts)
    stateful("TotalVariation", I.TotalVariation(), [(pp[:1],), (pp[1:],)])


# ---------------------------------------------------------------------------------------------
# audio


@variant("audio")
def _():
    g = rng(7)
    time_ = np.arange(800) / 8000.0
    clean = np.stack([np.sin(2 * np.pi * f * time_) * a
                      for f, a in ((220, 1.0), (330, 0.7), (440, 0.5), (125, 0.9))])
    noisy = clean + g.normal(0, 0.3, clean.shape)
    tt, pp = t(clean), t(noisy)
    show("signal_noise_ratio", FA.signal_noise_ratio(pp, tt))
    show("signal_noise_ratio zero_mean", FA.signal_noise_ratio(pp, tt, zero_mean=True))
    show("scale_invariant_signal_noise_ratio", FA.scale_invariant_signal_noise_ratio(pp, tt))
    show("scale_invariant_signal_distortion_ratio",
         FA.scale_invariant_signal_distortion_ratio(pp, tt))
    show("si_sdr zero_mean", FA.scale_invariant_signal_distortion_ratio(pp, tt,
                                                                         zero_mean=True))
    show("signal_distortion_ratio", FA.signal_distortion_ratio(pp, tt, filter_length=64))
    show("signal_distortion_ratio load_diag", FA.signal_distortion_ratio(
        pp, tt, filter_length=32, load_diag=1e-3, zero_mean=True))
    show("source_aggregated_sdr", FA.source_aggregated_signal_distortion_ratio(
        pp.view(2, 2, -1), tt.view(2, 2, -1)))
    spk_t = tt.view(2, 2, -1)
    spk_p = torch.stack([pp.view(2, 2, -1)[0].flip(0), pp.view(2, 2, -1)[1]])
    for mode in ("speaker-wise", "permutation-wise"):
        best, perm = FA.permutation_invariant_training(
            spk_p, spk_t, FA.scale_invariant_signal_distortion_ratio, mode=mode)
        show(f"pit {mode}", (best, perm))
        show(f"pit_permutate {mode}", FA.pit_permutate(spk_p, perm))
    best, perm = FA.permutation_invariant_training(
        spk_p, spk_t, FA.signal_noise_ratio, mode="speaker-wise", eval_func="max")
    show("pit snr", (best, perm))
    spec = torch.stack([pp.view(4, 40, 20), tt.view(4, 40, 20)], -1)
    spec_t = torch.stack([tt.view(4, 40, 20), pp.view(4, 40, 20).flip(-1)], -1)
    show("complex_scale_invariant_snr", FA.complex_scale_invariant_signal_noise_ratio(
        spec, spec_t))
    parts = batches_of(2, pp, tt)
    for metric in (A.SignalNoiseRatio(), A.ScaleInvariantSignalNoiseRatio(),
                   A.ScaleInvariantSignalDistortionRatio(),
                   A.SignalDistortionRatio(filter_length=64)):
        stateful(type(metric).__name__, metric, parts)
    pit = A.PermutationInvariantTraining(FA.scale_invariant_signal_noise_ratio,
                                       mode="speaker-wise", eval_func="max")
    stateful("PermutationInvariantTraining", pit, [(spk_p[:1], spk_t[:1]),
                                                  (spk_p[1:], spk_t[1:])])


# ---------------------------------------------------------------------------------------------
# text


PREDS_TEXT = ["the cat sat on the mat", "a quick brown fox jumps over the lazy dog",
              "there is a cat on the mat", "hello world this is a test"]
TARGET_TEXT = [["the cat is sitting on the mat", "a cat sat on the mat"],
               ["the quick brown fox jumped over the lazy dog", "a fast brown fox leaps"],
               ["the cat is on the mat", "there is a cat on a mat"],
               ["hello there world this is the test", "hello world that was a test"]]


@variant("text")
def _():
    first_refs = [r[0] for r in TARGET_TEXT]
    show("bleu_score", FT.bleu_score(PREDS_TEXT, TARGET_TEXT))
    show("bleu_score n=2 smooth", FT.bleu_score(PREDS_TEXT, TARGET_TEXT, n_gram=2, smooth=True))
    show("bleu_score weights", FT.bleu_score(PREDS_TEXT, TARGET_TEXT, n_gram=3,
                                             weights=[0.5, 0.3, 0.2]))
    show("sacre_bleu_score", FT.sacre_bleu_score(PREDS_TEXT, TARGET_TEXT))
    show("sacre_bleu_score char lowercase", FT.sacre_bleu_score(
        PREDS_TEXT, TARGET_TEXT, tokenize="char", lowercase=True))
    show("chrf_score", FT.chrf_score(PREDS_TEXT, TARGET_TEXT))
    show("chrf_score word_order=2 sentence", FT.chrf_score(
        PREDS_TEXT, TARGET_TEXT, n_word_order=2, return_sentence_level_score=True))
    show("char_error_rate", FT.char_error_rate(PREDS_TEXT, first_refs))
    show("word_error_rate", FT.word_error_rate(PREDS_TEXT, first_refs))
    show("match_error_rate", FT.match_error_rate(PREDS_TEXT, first_refs))
    show("word_information_lost", FT.word_information_lost(PREDS_TEXT, first_refs))
    show("word_information_preserved", FT.word_information_preserved(PREDS_TEXT, first_refs))
    show("edit_distance", FT.edit_distance(PREDS_TEXT, first_refs))
    show("edit_distance none", FT.edit_distance(PREDS_TEXT, first_refs, reduction="none",
                                                substitution_cost=2))
    show("translation_edit_rate", FT.translation_edit_rate(PREDS_TEXT, TARGET_TEXT))
    show("translation_edit_rate sentence", FT.translation_edit_rate(
        PREDS_TEXT, TARGET_TEXT, return_sentence_level_score=True))
    show("extended_edit_distance", FT.extended_edit_distance(PREDS_TEXT, TARGET_TEXT))
    show("squad", FT.squad([{"prediction_text": "1976", "id": "a"},
                            {"prediction_text": "the lazy dog", "id": "b"}],
                           [{"answers": {"answer_start": [97], "text": ["1976"]}, "id": "a"},
                            {"answers": {"answer_start": [5], "text": ["a lazy dog"]},
                             "id": "b"}]))
    g = rng(8)
    logits = t(g.normal(0, 1.5, (3, 7, 11)))
    tokens = t(g.integers(0, 11, (3, 7)))
    tokens[0, 5:] = -100
    show("perplexity", FT.perplexity(logits.softmax(-1), tokens, ignore_index=-100))
    ppl = T.Perplexity(ignore_index=-100)
    stateful("Perplexity", ppl, [(logits[:2].softmax(-1), tokens[:2]),
                                 (logits[2:].softmax(-1), tokens[2:])])
    halves = [(PREDS_TEXT[:2], TARGET_TEXT[:2]), (PREDS_TEXT[2:], TARGET_TEXT[2:])]
    halves1 = [(PREDS_TEXT[:2], first_refs[:2]), (PREDS_TEXT[2:], first_refs[2:])]
    for metric in (T.BLEUScore(), T.SacreBLEUScore(), T.CHRFScore(), T.TranslationEditRate(),
                   T.ExtendedEditDistance()):
        stateful(type(metric).__name__, metric, halves)
    for metric in (T.CharErrorRate(), T.WordErrorRate(), T.MatchErrorRate(), T.WordInfoLost(),
                   T.WordInfoPreserved(), T.EditDistance()):
        stateful(type(metric).__name__, metric, halves1)


# ---------------------------------------------------------------------------------------------
# clustering, nominal, pairwise, segmentation


def noisy_labels(g, n, classes, keep, pred_classes=None):
    """Labels in ``range(classes)`` and a copy of which a fraction ``1 - keep`` is redrawn."""
    truth = g.integers(0, classes, n)
    return truth, np.where(g.random(n) < keep, truth, g.integers(0, pred_classes or classes, n))


@variant("clustering")
def _():
    g = rng(9)
    truth, pred = noisy_labels(g, 60, 4, 0.7, pred_classes=5)
    tt, pp = t(truth), t(pred)
    for name in ("mutual_info_score", "normalized_mutual_info_score",
                 "adjusted_mutual_info_score", "rand_score", "adjusted_rand_score",
                 "completeness_score", "homogeneity_score", "v_measure_score",
                 "fowlkes_mallows_index"):
        show(name, getattr(FCL, name)(pp, tt))
    for method in ("min", "geometric", "max"):
        show(f"normalized_mutual_info {method}", FCL.normalized_mutual_info_score(
            pp, tt, average_method=method))
    show("adjusted_mutual_info max", FCL.adjusted_mutual_info_score(pp, tt, "max"))
    show("v_measure beta=2", FCL.v_measure_score(pp, tt, beta=2.0))
    centers = np.array([[0, 0, 0], [4, 0, 1], [0, 5, 2], [3, 3, -3]], float)
    data = t(centers[truth] + g.normal(0, 1.0, (60, 3)))
    show("calinski_harabasz_score", FCL.calinski_harabasz_score(data, tt))
    show("davies_bouldin_score", FCL.davies_bouldin_score(data, tt))
    show("dunn_index", FCL.dunn_index(data, tt))
    show("dunn_index p=1", FCL.dunn_index(data, tt, p=1))
    parts = batches_of(3, pp, tt)
    for metric in (CL.MutualInfoScore(), CL.NormalizedMutualInfoScore(),
                   CL.AdjustedMutualInfoScore(), CL.RandScore(), CL.AdjustedRandScore(),
                   CL.CompletenessScore(), CL.HomogeneityScore(), CL.VMeasureScore(),
                   CL.FowlkesMallowsIndex()):
        stateful(type(metric).__name__, metric, parts)
    for metric in (CL.CalinskiHarabaszScore(), CL.DaviesBouldinScore(), CL.DunnIndex()):
        stateful(type(metric).__name__, metric, batches_of(3, data, tt))


@variant("nominal")
def _():
    g = rng(10)
    a, b = noisy_labels(g, 120, 4, 0.6)
    aa, bb = t(a), t(b)
    for name in ("cramers_v", "theils_u", "tschuprows_t", "pearsons_contingency_coefficient"):
        show(name, getattr(TF, name)(aa, bb))
    show("cramers_v no correction", TF.cramers_v(aa, bb, bias_correction=False))
    table = t(np.stack([a, b, (a + b) % 4, g.integers(0, 4, 120)], 1))
    show("cramers_v_matrix", TF.cramers_v_matrix(table))
    show("theils_u_matrix", TF.theils_u_matrix(table))
    show("tschuprows_t_matrix", TF.tschuprows_t_matrix(table))
    show("pearsons_contingency_coefficient_matrix",
         TF.pearsons_contingency_coefficient_matrix(table))
    ratings = t(np.stack([np.bincount(row, minlength=3) for row in
                          g.integers(0, 3, (10, 5))]))
    show("fleiss_kappa counts", TF.fleiss_kappa(ratings))
    show("fleiss_kappa probs", TF.fleiss_kappa(t(g.random((10, 3, 5))).softmax(1),
                                               mode="probs"))
    parts = batches_of(3, aa, bb)
    for metric in (torchmetrics.CramersV(4), torchmetrics.TheilsU(4),
                   torchmetrics.TschuprowsT(4), torchmetrics.PearsonsContingencyCoefficient(4)):
        stateful(type(metric).__name__, metric, parts)
    stateful("FleissKappa", torchmetrics.FleissKappa(), [(ratings[:5],), (ratings[5:],)])


@variant("pairwise")
def _():
    g = rng(11)
    x = t(g.normal(0, 1, (6, 4)))
    y = t(g.normal(0, 1, (5, 4)))
    for name in ("pairwise_cosine_similarity", "pairwise_euclidean_distance",
                 "pairwise_linear_similarity", "pairwise_manhattan_distance"):
        fn = getattr(TF, name)
        show(name, fn(x, y))
        show(f"{name} self", fn(x))
        show(f"{name} mean zero_diagonal=False", fn(x, reduction="mean", zero_diagonal=False))
    show("pairwise_minkowski_distance p=3", TF.pairwise_minkowski_distance(x, y, exponent=3))


@variant("segmentation")
def _():
    g = rng(12)
    k = 3
    target = g.integers(0, k, (2, 16, 16))
    preds = np.where(g.random(target.shape) < 0.75, target, g.integers(0, k, target.shape))
    tt, pp = t(target), t(preds)
    show("mean_iou index", FS.mean_iou(pp, tt, num_classes=k, input_format="index"))
    show("mean_iou per_class", FS.mean_iou(pp, tt, num_classes=k, per_class=True,
                                           input_format="index"))
    one_p = torch.nn.functional.one_hot(pp, k).movedim(-1, 1)
    one_t = torch.nn.functional.one_hot(tt, k).movedim(-1, 1)
    show("mean_iou one-hot no background", FS.mean_iou(one_p, one_t, num_classes=k,
                                                        include_background=False))
    show("generalized_dice_score", FS.generalized_dice_score(one_p, one_t, num_classes=k))
    for weight in ("square", "simple", "linear"):
        show(f"generalized_dice_score {weight} per_class", FS.generalized_dice_score(
            one_p, one_t, num_classes=k, per_class=True, weight_type=weight))
    for average in ("micro", "macro", "weighted", "none"):
        show(f"dice_score {average}", FS.dice_score(pp, tt, num_classes=k, average=average,
                                                    input_format="index"))
    show("hausdorff_distance", FS.hausdorff_distance(one_p, one_t, num_classes=k))
    show("hausdorff_distance taxicab", FS.hausdorff_distance(
        one_p, one_t, num_classes=k, distance_metric="taxicab", include_background=True))
    parts = batches_of(2, pp, tt)
    for metric in (S.MeanIoU(num_classes=k, input_format="index"),
                   S.MeanIoU(num_classes=k, input_format="index", per_class=True),
                   S.DiceScore(num_classes=k, input_format="index", average="macro"),
                   S.GeneralizedDiceScore(num_classes=k, input_format="index")):
        stateful(type(metric).__name__, metric, parts)
    stateful("HausdorffDistance", S.HausdorffDistance(num_classes=k),
             batches_of(2, one_p, one_t))


# ---------------------------------------------------------------------------------------------
# aggregation, collections, wrappers, metric state


@variant("aggregation")
def _():
    g = rng(13)
    values = t(g.normal(0, 2, 30))
    weights = t(g.random(30))
    with_nan = values.clone()
    with_nan[[3, 17]] = float("nan")
    for cls in (torchmetrics.MeanMetric, torchmetrics.SumMetric, torchmetrics.MaxMetric,
                torchmetrics.MinMetric, torchmetrics.CatMetric):
        stateful(cls.__name__, cls(), [(v,) for v in values.chunk(3)])
        stateful(f"{cls.__name__} nan=ignore", cls(nan_strategy="ignore"),
                 [(v,) for v in with_nan.chunk(3)])
        stateful(f"{cls.__name__} nan=0.5", cls(nan_strategy=0.5),
                 [(v,) for v in with_nan.chunk(3)])
    stateful("MeanMetric weighted", torchmetrics.MeanMetric(),
             [(v, w) for v, w in zip(values.chunk(3), weights.chunk(3))])
    show("MeanMetric scalar", torchmetrics.MeanMetric()(2.5))
    for cls in (torchmetrics.aggregation.RunningMean, torchmetrics.aggregation.RunningSum):
        running = cls(window=3)
        for i, v in enumerate(values.chunk(6)):
            show(f"{cls.__name__} step {i} forward", running(v))
            show(f"{cls.__name__} step {i} compute", running.compute())
    wrapped = W.Running(torchmetrics.MeanSquaredError(), window=2)
    preds, target = values, values + t(g.normal(0, 0.5, 30))
    for i, (p, tg) in enumerate(batches_of(5, preds, target)):
        wrapped.update(p, tg)
        show(f"Running(MSE) step {i}", wrapped.compute())


@variant("collection")
def _():
    g = rng(14)
    k = 4
    probs, target, _ = multiclass_data(g, n=64, k=k)
    parts = batches_of(4, probs, target)
    coll = torchmetrics.MetricCollection({
        "acc": C.MulticlassAccuracy(k), "prec": C.MulticlassPrecision(k),
        "rec": C.MulticlassRecall(k), "f1": C.MulticlassF1Score(k, average="none"),
        "auroc": C.MulticlassAUROC(k), "cm": C.MulticlassConfusionMatrix(k)},
        prefix="val_", compute_groups=True)
    for i, (p, tg) in enumerate(parts):
        show(f"collection forward {i}", coll(p, tg))
    show("collection compute_groups", sorted(sorted(v) for v in coll.compute_groups.values()))
    show("collection compute", coll.compute())
    coll.reset()
    coll.update(*parts[0])
    show("collection after reset", coll.compute())
    no_groups = torchmetrics.MetricCollection([C.MulticlassAccuracy(k), C.MulticlassStatScores(k)],
                                              compute_groups=False, postfix="_b")
    for p, tg in parts:
        no_groups.update(p, tg)
    show("collection list", no_groups.compute())
    clone = coll.clone(prefix="test_")
    clone.update(*parts[1])
    show("collection clone", clone.compute())
    labels = ["cat", "dog", "emu", "fox"]
    classwise = W.ClasswiseWrapper(C.MulticlassF1Score(k, average=None), labels=labels)
    stateful("ClasswiseWrapper", classwise, parts)
    classwise_coll = torchmetrics.MetricCollection({
        "f1": W.ClasswiseWrapper(C.MulticlassF1Score(k, average=None), labels=labels,
                                 prefix="f1_"),
        "recall": W.ClasswiseWrapper(C.MulticlassRecall(k, average=None), postfix="_rec")})
    for p, tg in parts:
        classwise_coll.update(p, tg)
    show("classwise collection", classwise_coll.compute())
    multi_t = t(g.normal(0, 1, (40, 3)))
    multi_p = multi_t + t(g.normal(0, 0.4, (40, 3)))
    stateful("MultioutputWrapper(R2)", W.MultioutputWrapper(R.R2Score(), num_outputs=3),
             batches_of(2, multi_p, multi_t))
    minmax = W.MinMaxMetric(C.MulticlassAccuracy(k))
    for i, (p, tg) in enumerate(parts):
        minmax.update(p, tg)
        show(f"MinMaxMetric step {i}", minmax.compute())
        minmax._base_metric.reset()
    tracker = W.MetricTracker(torchmetrics.MetricCollection(
        [R.PearsonCorrCoef(), R.MeanSquaredError()]), maximize=[True, False])
    for epoch, (p, tg) in enumerate(parts):
        tracker.increment()
        tracker.update(p.max(1).values, p[torch.arange(16), tg])
        show(f"tracker epoch {epoch}", tracker.compute())
    show("tracker best", tracker.best_metric(return_step=True))
    show("tracker all", tracker.compute_all())
    task = W.MultitaskWrapper({"cls": C.MulticlassAccuracy(k), "reg": R.MeanSquaredError()})
    reg_p, reg_t = t(g.normal(0, 1, 64)), t(g.normal(0, 1, 64))
    for i in range(4):
        s = slice(16 * i, 16 * (i + 1))
        show(f"MultitaskWrapper forward {i}", task({"cls": probs[s], "reg": reg_p[s]},
                                                   {"cls": target[s], "reg": reg_t[s]}))
    show("MultitaskWrapper compute", task.compute())
    combo = C.MulticlassAccuracy(k) * 2 + C.MulticlassF1Score(k) - 0.5
    for p, tg in parts:
        combo.update(p, tg)
    show("compositional acc*2+f1-0.5", combo.compute())
    show("compositional abs/neg", abs(-(C.MulticlassRecall(k) / 2))(probs, target))


class SumOfSquares(torchmetrics.Metric):
    """A custom metric with a tensor sum state and a list ("cat") state."""

    full_state_update = False

    def __init__(self):
        super().__init__()
        self.add_state("total", torch.tensor(0.0), dist_reduce_fx="sum")
        self.add_state("count", torch.tensor(0), dist_reduce_fx="sum")
        self.add_state("seen", [], dist_reduce_fx="cat")

    def update(self, x):
        self.total += (x ** 2).sum()
        self.count += x.numel()
        self.seen.append(x.max().reshape(1))

    def compute(self):
        return self.total / self.count, torch.cat(self.seen).mean()


class FullStateMean(SumOfSquares):
    full_state_update = True


@variant("state")
def _():
    g = rng(15)
    k = 3
    probs, target, _ = multiclass_data(g, n=48, k=k)
    parts = batches_of(4, probs, target)
    metric = C.MulticlassConfusionMatrix(k)
    for p, tg in parts[:2]:
        metric.update(p, tg)
    metric.persistent(True)
    state = metric.state_dict()
    show("state_dict", dict(state))
    restored = C.MulticlassConfusionMatrix(k)
    restored.persistent(True)
    restored.load_state_dict(state)
    restored.update(*parts[2])
    show("restored compute", restored.compute())
    show("metric_state", metric.metric_state)
    other = C.MulticlassConfusionMatrix(k)
    for p, tg in parts[2:]:
        other.update(p, tg)
    metric.merge_state(other)
    show("merge_state (metric)", metric.compute())
    auroc = C.MulticlassAUROC(k)
    auroc.update(*parts[0])
    auroc2 = C.MulticlassAUROC(k)
    auroc2.update(*parts[1])
    auroc.merge_state(auroc2.metric_state)
    show("merge_state (dict, cat states)", auroc.compute())
    mean = torchmetrics.MeanMetric()
    mean.update(t(g.normal(0, 1, 10)))
    mean.merge_state({"mean_value": torch.tensor(3.0), "weight": torch.tensor(4.0)})
    show("merge_state MeanMetric", mean.compute())
    x = t(g.normal(0, 1, 40))
    for cls in (SumOfSquares, FullStateMean):
        m = cls()
        for i, chunk in enumerate(x.chunk(4)):
            show(f"{cls.__name__} forward {i}", m(chunk))
        show(f"{cls.__name__} compute", m.compute())
        show(f"{cls.__name__} update_count", m.update_count)
        m.persistent(True)
        show(f"{cls.__name__} state_dict", dict(m.state_dict()))
        m.reset()
        show(f"{cls.__name__} after reset", (m.total, m.count, len(m.seen)))
    m = SumOfSquares()
    m.update(x[:10])
    m2 = m.clone()
    m2.update(x[10:])
    show("clone independent", (m.compute(), m2.compute()))
    m.set_dtype(torch.float64)
    show("set_dtype float64", m.total)
    m = C.BinaryAccuracy(compute_on_cpu=True, dist_sync_on_step=False)
    m.update(probs[:, 0], (target == 0).long())
    show("compute_on_cpu", m.compute())
    sync = torchmetrics.MeanSquaredError(compute_with_cache=False)
    sync.update(x, x * 0.9)
    show("compute_with_cache=False", (sync.compute(), sync.compute()))
    try:
        C.MulticlassAccuracy(k).compute()
    except Exception as error:  # noqa: BLE001 - the text is compared
        show("compute before update", type(error).__name__)


@variant("grad")
def _():
    """Gradients through the differentiable metrics (``is_differentiable``)."""
    g = rng(16)
    image_t = t(g.random((2, 3, 40, 40)))
    image_p = (image_t + t(g.normal(0, 0.1, (2, 3, 40, 40)))).clamp(0, 1)
    clean = t(np.sin(np.arange(600) / 9.0)[None] * np.array([[1.0], [0.6]]))
    noisy = clean + t(g.normal(0, 0.3, (2, 600)))
    reg_t = t(g.normal(0, 1, (32, 3)))
    reg_p = reg_t + t(g.normal(0, 0.6, (32, 3)))
    probs = t(g.random((32, 5))).softmax(1)
    labels = t(g.integers(0, 5, 32))
    cases = [
        ("psnr", image_p, lambda p: FI.peak_signal_noise_ratio(p, image_t, data_range=1.0)),
        ("ssim", image_p, lambda p: FI.structural_similarity_index_measure(p, image_t,
                                                                          data_range=1.0)),
        ("ms_ssim", image_p, lambda p: FI.multiscale_structural_similarity_index_measure(
            p, image_t, data_range=1.0, kernel_size=5, betas=(0.5, 0.5))),
        ("uqi", image_p, lambda p: FI.universal_image_quality_index(p, image_t)),
        ("sam", image_p, lambda p: FI.spectral_angle_mapper(p, image_t)),
        ("ergas", image_p, lambda p: FI.error_relative_global_dimensionless_synthesis(
            p, image_t)),
        ("total_variation", image_p, lambda p: FI.total_variation(p)),
        ("snr", noisy, lambda p: FA.signal_noise_ratio(p, clean).sum()),
        ("si_snr", noisy, lambda p: FA.scale_invariant_signal_noise_ratio(p, clean).sum()),
        ("si_sdr", noisy, lambda p: FA.scale_invariant_signal_distortion_ratio(p, clean).sum()),
        ("sdr", noisy, lambda p: FA.signal_distortion_ratio(p, clean, filter_length=32).sum()),
        ("mse", reg_p, lambda p: TF.mean_squared_error(p, reg_t)),
        ("mae", reg_p, lambda p: TF.mean_absolute_error(p, reg_t)),
        ("r2", reg_p, lambda p: TF.r2_score(p, reg_t)),
        ("explained_variance", reg_p, lambda p: TF.explained_variance(p, reg_t)),
        ("pearson", reg_p, lambda p: TF.pearson_corrcoef(p, reg_t).sum()),
        ("concordance", reg_p, lambda p: TF.concordance_corrcoef(p, reg_t).sum()),
        ("cosine", reg_p, lambda p: TF.cosine_similarity(p, reg_t)),
        ("log_cosh", reg_p, lambda p: TF.log_cosh_error(p, reg_t).sum()),
        ("smape", reg_p, lambda p: TF.symmetric_mean_absolute_percentage_error(p, reg_t)),
        ("tweedie", reg_p, lambda p: TF.tweedie_deviance_score(p.abs() + 0.1,
                                                               reg_t.abs() + 0.1, 1.5)),
        ("kl", probs, lambda p: TF.kl_divergence(p, probs.flip(0))),
        ("pairwise_euclidean", reg_p, lambda p: TF.pairwise_euclidean_distance(p).sum()),
        ("hinge", probs, lambda p: FC.multiclass_hinge_loss(p, labels, 5)),
        ("perplexity", probs, lambda p: FT.perplexity(p[None], labels[None])),
    ]
    for name, x, fn in cases:
        x = x.detach().clone().requires_grad_(True)
        value = fn(x)
        value.backward()
        show(f"grad {name} value", value)
        show(f"grad {name}", x.grad)
    metric = torchmetrics.MeanSquaredError()
    x = reg_p.detach().clone().requires_grad_(True)
    value = metric(x, reg_t)
    value.backward()
    show("MeanSquaredError forward grad", x.grad)


@variant("bootstrap")
def _():
    torch.manual_seed(17)
    g = rng(17)
    probs, target = binary_data(g, n=64)
    boot = W.BootStrapper(C.BinaryAccuracy(), num_bootstraps=8,
                          sampling_strategy="multinomial", quantile=torch.tensor([0.1, 0.9]),
                          raw=True)
    for p, tg in batches_of(4, probs, target):
        boot.update(p, tg)
    show("BootStrapper(multinomial)", boot.compute())


@variant("float64")
def _():
    g = rng(18)
    k = 4
    probs, target, _ = multiclass_data(g, n=72, k=k)
    probs = probs.double()
    show("multiclass_auroc f64", FC.multiclass_auroc(probs, target, k))
    show("multiclass_average_precision f64", FC.multiclass_average_precision(probs, target, k))
    show("multiclass_calibration_error f64", FC.multiclass_calibration_error(probs, target, k))
    x = t(g.normal(0, 1, 50), torch.float64)
    y = x + t(g.normal(0, 0.5, 50), torch.float64)
    for name in ("pearson_corrcoef", "spearman_corrcoef", "kendall_rank_corrcoef", "r2_score",
                 "explained_variance", "concordance_corrcoef"):
        show(f"{name} f64", getattr(TF, name)(x, y))
    metric = R.PearsonCorrCoef().double()
    for a, b in batches_of(5, x, y):
        metric.update(a, b)
    show("PearsonCorrCoef.double()", metric.compute())
    image = t(g.random((1, 3, 32, 32)), torch.float64)
    show("ssim f64", FI.structural_similarity_index_measure(image, image.flip(-1)))
    show("psnr f64", FI.peak_signal_noise_ratio(image, image.flip(-2), data_range=1.0))
    half = C.MulticlassConfusionMatrix(k).half()
    half.update(probs.half(), target)
    show("ConfusionMatrix.half()", half.compute())
    # torchmetrics' bincount takes another path under deterministic algorithms
    torch.use_deterministic_algorithms(True)
    try:
        show("deterministic multiclass_confusion_matrix", FC.multiclass_confusion_matrix(
            probs, target, k))
        show("deterministic multiclass_stat_scores", FC.multiclass_stat_scores(
            probs, target, k, average=None))
    finally:
        torch.use_deterministic_algorithms(False)


@variant("errors")
def _():
    """torchmetrics' input validation: the error types and texts."""
    preds = torch.tensor([0.1, 0.7, 0.4, 0.9])
    cases = [
        ("binary target 2", lambda: FC.binary_accuracy(preds, torch.tensor([0, 1, 2, 1]))),
        ("binary preds >1", lambda: FC.binary_auroc(torch.tensor([0.1, 1.7, 0.4, 0.9]),
                                                    torch.tensor([0, 1, 0, 1]))),
        ("binary float target", lambda: FC.binary_accuracy(preds, preds)),
        ("shape mismatch", lambda: FC.binary_accuracy(preds, torch.tensor([0, 1, 1]))),
        ("multiclass num_classes", lambda: FC.multiclass_accuracy(
            torch.tensor([0, 3, 1]), torch.tensor([0, 1, 1]), num_classes=3)),
        ("multiclass target", lambda: FC.multiclass_accuracy(
            torch.tensor([0, 2, 1]), torch.tensor([0, 5, 1]), num_classes=3)),
        ("multilabel", lambda: FC.multilabel_accuracy(torch.rand(3, 4) * 0 + 0.5,
                                                      torch.tensor([[0, 1, 2, 1]] * 3), 4)),
        ("average", lambda: C.MulticlassAccuracy(3, average="mean")),
        ("retrieval indexes", lambda: TF.retrieval_average_precision(
            preds, torch.tensor([0, 1, 2, 1]))),
        ("psnr shapes", lambda: FI.peak_signal_noise_ratio(torch.ones(1, 3, 8, 8),
                                                           torch.ones(1, 3, 8, 9), 1.0)),
        ("pearson ndim", lambda: TF.pearson_corrcoef(torch.rand(2, 2, 2), torch.rand(2, 2, 2))),
    ]
    for name, fn in cases:
        try:
            fn()
            show(f"error {name}", "no error")
        except Exception as error:  # noqa: BLE001 - the text is compared
            show(f"error {name}", f"{type(error).__name__}: {error}")
    show("binary all-positive auroc", FC.binary_auroc(preds, torch.tensor([1, 1, 1, 1])))
    show("binary all-negative precision", FC.binary_precision(preds, torch.tensor([0, 0, 0, 0])))
    show("multiclass zero_division=1", FC.multiclass_precision(
        torch.tensor([0, 0, 1]), torch.tensor([0, 2, 1]), 3, average="none", zero_division=1))
    show("empty MeanMetric", torchmetrics.MeanMetric().compute())


@variant("panoptic")
def _():
    g = rng(19)
    things, stuffs = {0, 1}, {2}
    cats = np.array([0, 1, 2])
    target = np.stack([cats[g.integers(0, 3, (12, 12))], g.integers(0, 3, (12, 12))], -1)
    preds = target.copy()
    flip = g.random((12, 12)) < 0.2
    preds[flip, 0] = cats[g.integers(0, 3, flip.sum())]
    preds[g.random((12, 12)) < 0.1, 1] = 4
    pp, tt = t(preds[None]), t(target[None])
    show("panoptic_quality", TF.panoptic_quality(pp, tt, things=things, stuffs=stuffs))
    show("panoptic_quality no void", TF.panoptic_quality(pp, tt, things=things, stuffs=stuffs,
                                                         allow_unknown_preds_category=True))
    metric = torchmetrics.PanopticQuality(things=things, stuffs=stuffs, return_per_class=True,
                                          return_sq_and_rq=True)
    stateful("PanopticQuality", metric, [(pp, tt), (pp.flip(1), tt)])
    stateful("ModifiedPanopticQuality", torchmetrics.ModifiedPanopticQuality(
        things=things, stuffs=stuffs), [(pp, tt), (pp.flip(2), tt)])


def main(argv):
    names = [a for a in argv if a != "all"] or list(VARIANTS)
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise SystemExit(f"unknown variants {unknown}; known: {list(VARIANTS)}")
    warnings.filterwarnings("ignore")
    for name in names:
        start = time.time()
        print(f"== {name}", flush=True)
        VARIANTS[name]()
        print(f"{name} time: {time.time() - start:.2f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
