"""``torch.is_inference`` and ``torch.empty_permuted``."""

from __future__ import annotations

import operator

from .._core.tensor_base import TensorBase
from ._registry import export
from .creation import empty
from .shape import permute


@export()
def is_inference(input):
    """Whether ``input`` was made under ``torch.inference_mode()`` (an inference tensor).

    Differences from PyTorch: jtorch marks every tensor made under inference mode but does not
    enforce PyTorch's restrictions on inference tensors (in-place updates outside the mode,
    saving them for backward)."""
    if not isinstance(input, TensorBase):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input._inference


@export()
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An uninitialised (zero) tensor of shape ``size`` whose dims lie in memory in the order
    ``physical_layout`` (outermost first): ``empty_permuted((N, C, H, W), (0, 2, 3, 1))`` has
    channels-last strides."""
    size = tuple(operator.index(s) for s in size)
    perm = tuple(operator.index(p) for p in physical_layout)
    n = len(size)
    if len(perm) != n:
        raise RuntimeError("Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {n} is not equal to "
                           f"len(physical_layout) = {len(perm)}")
    seen = set()
    for i, p in enumerate(perm):
        if not 0 <= p < n:
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {n - 1}, "
                               f"but got {p} at index {i}).  NB: negative dims not currently "
                               "supported; file an issue if you want it.")
        if p in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(p)
    inverse = [0] * n
    for i, p in enumerate(perm):
        inverse[p] = i
    phys = empty(tuple(size[p] for p in perm), dtype=dtype, layout=layout, device=device)
    res = permute(phys, inverse)
    if requires_grad:
        res.requires_grad_()
    return res
