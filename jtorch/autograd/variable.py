"""torch.autograd.variable: the legacy ``Variable``."""

from __future__ import annotations

from .._core.tensor_base import TensorBase

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, TensorBase)


class Variable(metaclass=_VariableMeta):
    """The legacy ``torch.autograd.Variable``: ``Variable(t, requires_grad)`` is a new leaf
    Tensor sharing ``t``'s storage (``t`` itself is left as it was), as PyTorch's."""

    def __new__(cls, data, requires_grad=False, volatile=False):
        if not isinstance(data, TensorBase):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)
