"""``torch.nn.LinearCrossEntropyOptions``: how ``F.linear_cross_entropy`` chunks its batch.

The same fields, defaults, validation and call-time resolution (``_adjust``) as PyTorch 2.13's,
so a chunk size comes out the same. What jtorch does with each field is in
jtorch/_ops/nn_linear_ce.py: ``batch_chunk_size`` / ``chunking_method`` set the chunks,
``acc_dtype`` the dtype of the intermediates; ``acc_policy`` and ``allow_retain_graph`` change
nothing here (docs/differences.md).
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from ..._core import dtypes

__all__ = ["LinearCrossEntropyOptions"]


class _AutoDefault(NamedTuple):
    acc_policy: str
    chunking_method: str


# PyTorch's picks for acc_policy="auto" / chunking_method="auto", by (device type, dtype)
_AUTO_DEFAULTS = {
    ("cuda", dtypes.bfloat16): _AutoDefault("compact", "aspect_ratio:2"),
    ("cuda", dtypes.float16): _AutoDefault("compact", "aspect_ratio:2"),
    ("cpu", dtypes.bfloat16): _AutoDefault("accurate", "aspect_ratio"),
    ("cpu", dtypes.float16): _AutoDefault("accurate", "aspect_ratio"),
}
_AUTO_FALLBACK = _AutoDefault("compact", "aspect_ratio:2")
_ACC_DTYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Options of the chunked :func:`~jtorch.nn.functional.linear_cross_entropy`.

    Args:
        allow_retain_graph: PyTorch lets a second backward raise unless True; jtorch's
            backward can always run again (accepted, no effect). Default ``False``.
        batch_chunk_size: rows per chunk; ``None``: one chunk, or what ``chunking_method``
            gives. Default ``None``.
        chunking_method: ``"auto"``, ``"aspect_ratio"``, ``"aspect_ratio:N"`` or ``None``.
        acc_policy: ``"auto"``, ``"accurate"``, ``"balanced"`` or ``"compact"`` (accepted; XLA
            plans the buffers).
        acc_dtype: the dtype of the intermediates; ``None`` picks float32 for float16/bfloat16
            input under ``acc_policy="auto"``, else the input's dtype.
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: dtypes.dtype | None = None

    def __post_init__(self):
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if not (size is None or (isinstance(size, int) and size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in _ACC_DTYPES:
            raise ValueError(
                "acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, "
                f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op "
                "pick automatically.")

    @staticmethod
    def _auto_acc_dtype(dtype, device):
        if device is None or dtype not in (dtypes.float16, dtypes.bfloat16):
            return None
        return dtypes.float32 if device.type in ("cpu", "cuda") else None

    @staticmethod
    def _chunk_for(method, num_batches, in_features, num_classes):
        """PyTorch's ``aspect_ratio[:N]`` chunk size."""
        factor = int(method.split(":", 1)[1]) if ":" in method else 1
        inc = -(-num_classes // in_features)
        target = -(-num_batches // inc)
        size = 1 << (target - 1).bit_length()   # the next power of 2 >= target
        return min(size // factor, num_batches)

    def _adjust(self, num_batches, in_features, num_classes, dtype, device=None):
        """These options with ``"auto"`` and ``None`` resolved for one call (PyTorch's
        rules, including its error when an explicit size and a method disagree)."""
        acc_policy, method = self.acc_policy, self.chunking_method
        if method == "auto" and self.batch_chunk_size is not None:
            method = None
        if acc_policy == "auto" or method == "auto":
            pick = (_AUTO_DEFAULTS.get((device.type, dtype), _AUTO_FALLBACK)
                    if device is not None else _AUTO_FALLBACK)
            acc_policy = pick.acc_policy if acc_policy == "auto" else acc_policy
            method = pick.chunking_method if method == "auto" else method
        size = num_batches if self.batch_chunk_size is None else min(self.batch_chunk_size,
                                                                     num_batches)
        if method is not None:
            size = self._chunk_for(method, num_batches, in_features, num_classes)
            if self.batch_chunk_size is not None and self.batch_chunk_size != size:
                raise ValueError(
                    f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method "
                    f"('{method}') give different chunk sizes ({self.batch_chunk_size} vs "
                    f"{size}); pass only one.")
        acc_dtype = self.acc_dtype
        if acc_dtype is None:
            auto = self._auto_acc_dtype(dtype, device) if self.acc_policy == "auto" else None
            acc_dtype = auto if auto is not None else dtype
        return dataclasses.replace(self, acc_policy=acc_policy, chunking_method=method,
                                   batch_chunk_size=max(1, size), acc_dtype=acc_dtype)
