"""``torch.nn.AdaptiveLogSoftmaxWithLoss``: the adaptive softmax of Grave et al. (a head over
the frequent classes plus one entry per tail cluster, and a low-rank projection per cluster).

PyTorch's forward selects each cluster's rows (``nonzero``, data-dependent sizes); here every
cluster's log-probabilities are computed for all rows and each row takes its own cluster's
value with a select, so the shapes are static and the module traces under ``jtorch.compile``.
The values are PyTorch's (a row's log-softmax does not depend on the other rows), and so are
the gradients (the rows of other clusters receive exact zeros).
"""

from __future__ import annotations

from collections import namedtuple

from ..._ops._index_util import concrete
from ..._ops.compare import where
from ..._ops.shape_copy import cat
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """``forward(input, target)`` returns ``(output, loss)``: each row's log-probability of its
    target and their negated mean; ``log_prob(input)`` gives every class's, ``predict(input)``
    the most likely class."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory_kwargs)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            self.tail.append(Sequential(
                Linear(in_features, hidden, bias=False, **factory_kwargs),
                Linear(hidden, self.cutoffs[i + 1] - self.cutoffs[i], bias=False,
                       **factory_kwargs)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def _check(self, input, target):
        if target.dim() == 1:
            if input.size(0) != target.size(0):
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input.size()}")
        elif target.dim() == 0:
            if input.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        values = concrete(target)   # (None while tracing: the check is then skipped)
        if values is not None and values.size and \
                (values.min() < 0 or values.max() > self.n_classes - 1):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{values.min()}, {values.max()}] were found. ")

    def forward(self, input_, target_):
        self._check(input_, target_)
        is_batched = target_.dim() > 0
        input = input_ if is_batched else input_.unsqueeze(0)
        target = target_ if is_batched else target_.unsqueeze(0)
        # each row's cluster: 0 for the shortlist, i for the i-th tail cluster
        cluster = sum((target >= c).long() for c in self.cutoffs[:-1])
        head_index = where(cluster == 0, target, cluster + (self.shortlist_size - 1))
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = head_logprob.gather(1, head_index.unsqueeze(1)).squeeze(1)
        for i, (low, high) in enumerate(zip(self.cutoffs[:-1], self.cutoffs[1:])):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            relative = (target - low).clamp(0, high - low - 1)
            local = cluster_logprob.gather(1, relative.unsqueeze(1)).squeeze(1)
            output = where(cluster == i + 1, local + output, output)
        loss = (-output).mean()
        return _ASMoutput(output if is_batched else output.squeeze(0), loss)

    def _get_full_log_prob(self, input, head_output):
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster_logprob
                         + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return cat(parts, dim=1)

    def log_prob(self, input):
        """Every class's log-probability, ``(batch, n_classes)``."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class of each row: the head's argmax where it is a shortlist class,
        else the argmax over all classes (PyTorch's result, without its data-dependent
        branches)."""
        head_output = self.head(input)
        output = head_output.argmax(dim=1)
        full = self._get_full_log_prob(input, head_output).argmax(dim=1)
        return where(output >= self.shortlist_size, full, output)
