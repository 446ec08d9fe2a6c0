"""InstanceNorm1d/2d/3d: per-sample, per-channel normalization (one fused op per forward)."""

from __future__ import annotations

import warnings

from .. import functional as F
from .batchnorm import _LazyNormBase, _NormBase
from .lazy import lazy_variant

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class _InstanceNorm(_NormBase):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype, bias=bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def _get_no_batch_dim(self):
        raise NotImplementedError

    def _handle_no_batch_input(self, input):
        return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._get_no_batch_dim()
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. "
                          "You can silence this warning by not passing in num_features, which "
                          "is not used because affine=False", stacklevel=2)
        if input.dim() == self._get_no_batch_dim():
            return self._handle_no_batch_input(input)
        return self._apply_instance_norm(input)


def _make(name, no_batch, dims):
    def _get_no_batch_dim(self):
        return no_batch

    def _check_input_dim(self, input):
        if input.dim() not in dims:
            raise ValueError(f"expected {dims[0]}D or {dims[1]}D input (got {input.dim()}D "
                             "input)")

    cls = type(name, (_InstanceNorm,), {"_get_no_batch_dim": _get_no_batch_dim,
                                        "_check_input_dim": _check_input_dim,
                                        "__module__": __name__})
    return cls


InstanceNorm1d = _make("InstanceNorm1d", 2, (2, 3))
InstanceNorm2d = _make("InstanceNorm2d", 3, (3, 4))
InstanceNorm3d = _make("InstanceNorm3d", 4, (4, 5))


LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d = (
    lazy_variant(c, (_LazyNormBase, _InstanceNorm), ("_check_input_dim", "_get_no_batch_dim"))
    for c in (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d))
