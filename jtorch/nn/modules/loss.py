"""nn.modules.loss: the loss modules.

Each is one call of its functional: :func:`loss_module` generates its ``__init__`` (PyTorch's
signature; the arguments its base class takes go to it, ``pos_weight`` becomes a buffer, the
others attributes), ``__constants__`` (the names of the non-tensor arguments) and ``forward``
(the functional on the inputs, with those attributes as keyword arguments). A class that
checks its arguments writes its ``__init__`` out.
"""

from __future__ import annotations

import inspect
import warnings

from ..._ops.nn_loss import legacy_get_string
from .. import functional as F
from ._generated import define_method, parameter_names
from .distance import PairwiseDistance
from .module import Module

__all__ = [
    "L1Loss", "NLLLoss", "NLLLoss2d", "PoissonNLLLoss", "GaussianNLLLoss", "KLDivLoss",
    "MSELoss", "BCELoss", "BCEWithLogitsLoss", "HingeEmbeddingLoss", "MultiLabelMarginLoss",
    "SmoothL1Loss", "HuberLoss", "SoftMarginLoss", "CrossEntropyLoss", "MultiLabelSoftMarginLoss",
    "CosineEmbeddingLoss", "MarginRankingLoss", "MultiMarginLoss", "TripletMarginLoss",
    "TripletMarginWithDistanceLoss", "CTCLoss",
]

_LEGACY = ("size_average", "reduce")   # folded into ``reduction``, not passed to forward
_BUFFERS = ("weight", "pos_weight")    # tensors kept as buffers


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = legacy_get_string(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


def loss_module(functional, signature=None, inputs="input, target", constants=()):
    """Class decorator: ``cls(<signature>)`` (``None``: the class writes its ``__init__``) and
    ``forward(<inputs>)`` = ``functional(<inputs>, name=self.name, ...)`` for each argument
    (``reduction`` standing for the legacy ``size_average``/``reduce``). ``constants``: PyTorch's
    ``__constants__`` where they are not the non-tensor arguments (``None``: it has none)."""

    def decorate(cls):
        if signature is None:
            names = list(inspect.signature(cls.__init__).parameters)[1:]
        else:
            names = parameter_names(signature)
            base = cls.__mro__[1]
            taken = [n for n in names if n in inspect.signature(base.__init__).parameters]
            body = [f"super(cls, self).__init__({', '.join(f'{n}={n}' for n in taken)})"]
            for n in names:
                if n not in taken:
                    body.append(f"self.register_buffer({n!r}, {n})" if n in _BUFFERS
                                else f"self.{n} = {n}")
            define_method(cls, "__init__", signature, body, {"cls": cls})
        keywords = "".join(f", {n}=self.{n}" for n in names if n not in _LEGACY)
        define_method(cls, "forward", inputs, [f"return functional({inputs}{keywords})"],
                      {"functional": functional})
        if constants is not None:
            cls.__constants__ = list(constants) or [n for n in names
                                                    if n not in _LEGACY + _BUFFERS]
        return cls

    return decorate


_REDUCTION = "size_average=None, reduce=None, reduction='mean'"


@loss_module(F.l1_loss, _REDUCTION)
class L1Loss(_Loss):
    """Mean (or sum) absolute error."""


@loss_module(F.nll_loss, "weight=None, size_average=None, ignore_index=-100, reduce=None, "
                         "reduction='mean'")
class NLLLoss(_WeightedLoss):
    """Negative log likelihood of the target classes, given log-probabilities."""


class NLLLoss2d(NLLLoss):
    """Deprecated alias of :class:`NLLLoss`."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean") -> None:
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
                      "drop-in replacement and see https://pytorch.org/docs/main/nn.html#torch."
                      "nn.NLLLoss for more details.", FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


@loss_module(F.cross_entropy, "weight=None, size_average=None, ignore_index=-100, reduce=None, "
                              "reduction='mean', label_smoothing=0.0")
class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy between logits and target classes (or class probabilities)."""


@loss_module(F.poisson_nll_loss, "log_input=True, full=False, size_average=None, eps=1e-8, "
                                 "reduce=None, reduction='mean'", inputs="log_input, target")
class PoissonNLLLoss(_Loss):
    """Negative log likelihood of a Poisson-distributed target."""


@loss_module(F.gaussian_nll_loss, "*, full=False, eps=1e-6, reduction='mean'",
             inputs="input, target, var")
class GaussianNLLLoss(_Loss):
    """Negative log likelihood of a Gaussian-distributed target with predicted variance."""


@loss_module(F.kl_div, "size_average=None, reduce=None, reduction='mean', log_target=False",
             constants=["reduction"])
class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of the target from the input (log-probabilities)."""


@loss_module(F.mse_loss, _REDUCTION)
class MSELoss(_Loss):
    """Mean (or sum) squared error."""


@loss_module(F.binary_cross_entropy, "weight=None, " + _REDUCTION)
class BCELoss(_WeightedLoss):
    """Binary cross entropy between probabilities and targets."""


@loss_module(F.binary_cross_entropy_with_logits,
             "weight=None, " + _REDUCTION + ", pos_weight=None", constants=None)
class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy on logits (a sigmoid folded in, numerically stable)."""


@loss_module(F.hinge_embedding_loss, "margin=1.0, " + _REDUCTION)
class HingeEmbeddingLoss(_Loss):
    """``x`` for target 1, ``max(0, margin - x)`` for target -1."""


@loss_module(F.multilabel_margin_loss, _REDUCTION)
class MultiLabelMarginLoss(_Loss):
    """Multi-class multi-label hinge loss."""


@loss_module(F.smooth_l1_loss, _REDUCTION + ", beta=1.0", constants=["reduction"])
class SmoothL1Loss(_Loss):
    """Squared error below ``beta``, absolute error above."""


@loss_module(F.huber_loss)
class HuberLoss(_Loss):
    """Squared error below ``delta``, ``delta``-scaled absolute error above."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        if not isinstance(delta, (float, int)):
            raise TypeError(f"delta must be a float or int, got: {type(delta)}")
        super().__init__(reduction=reduction)
        self.delta = delta


@loss_module(F.soft_margin_loss, _REDUCTION)
class SoftMarginLoss(_Loss):
    """Two-class logistic loss ``log(1 + exp(-y * x))``."""


@loss_module(F.multilabel_soft_margin_loss, "weight=None, " + _REDUCTION)
class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Multi-label one-versus-all logistic loss."""


@loss_module(F.cosine_embedding_loss, "margin=0.0, " + _REDUCTION, inputs="input1, input2, target")
class CosineEmbeddingLoss(_Loss):
    """``1 - cos(x1, x2)`` for target 1, ``max(0, cos(x1, x2) - margin)`` for target -1."""


@loss_module(F.margin_ranking_loss, "margin=0.0, " + _REDUCTION, inputs="input1, input2, target")
class MarginRankingLoss(_Loss):
    """``max(0, -y * (x1 - x2) + margin)``."""


@loss_module(F.multi_margin_loss)
class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss (``p`` 1 or 2)."""

    def __init__(self, p: int = 1, margin: float = 1.0, weight=None, size_average=None,
                 reduce=None, reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError("MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{weight.dim()}D instead")
        self.p = p
        self.margin = margin


def _check_margin(cls, margin):
    if margin <= 0:
        raise ValueError(f"{cls.__name__}: expected margin to be greater than 0, got {margin} "
                         "instead")


@loss_module(F.triplet_margin_loss, inputs="anchor, positive, negative")
class TripletMarginLoss(_Loss):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with the ``p``-norm distance ``d``."""

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                 swap: bool = False, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        _check_margin(TripletMarginLoss, margin)
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap


@loss_module(F.triplet_margin_with_distance_loss, inputs="anchor, positive, negative",
             constants=["margin", "swap", "reduction"])
class TripletMarginWithDistanceLoss(_Loss):
    """:class:`TripletMarginLoss` with any ``distance_function`` (default
    :class:`PairwiseDistance`)."""

    def __init__(self, *, distance_function=None, margin: float = 1.0, swap: bool = False,
                 reduction: str = "mean") -> None:
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        _check_margin(TripletMarginWithDistanceLoss, margin)
        self.distance_function = (distance_function if distance_function is not None
                                  else PairwiseDistance())
        self.margin = margin
        self.swap = swap


@loss_module(F.ctc_loss, "blank=0, reduction='mean', zero_infinity=False",
             inputs="log_probs, targets, input_lengths, target_lengths",
             constants=["blank", "reduction"])
class CTCLoss(_Loss):
    """Connectionist temporal classification loss."""
