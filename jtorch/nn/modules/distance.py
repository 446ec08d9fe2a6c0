"""PairwiseDistance and CosineSimilarity (``torch.nn.modules.distance``)."""

from __future__ import annotations

from .. import functional as F
from ._generated import functional_module
from .module import Module

__all__ = ["PairwiseDistance", "CosineSimilarity"]


class PairwiseDistance(Module):
    """``||x1 - x2 + eps||_norm`` over the last dim."""

    __constants__ = ["norm", "eps", "keepdim"]

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


@functional_module(F.cosine_similarity, "dim=1, eps=1e-8", inputs="x1, x2", extra_repr="")
class CosineSimilarity(Module):
    """Cosine similarity of ``x1`` and ``x2`` along ``dim``."""
