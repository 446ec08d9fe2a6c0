"""nn.Parameter: a Tensor subclass that a Module registers as a parameter when assigned."""

from __future__ import annotations

from .._tensor import Tensor


class Parameter(Tensor):
    """``torch.nn.Parameter(data=None, requires_grad=True)``: a leaf tensor a Module owns.

    It holds the same array as ``data`` (detached from any graph). Ops on a Parameter
    return plain Tensors, as in PyTorch.
    """

    def __new__(cls, data=None, requires_grad=True):
        from .._creation import empty

        if data is None:
            data = empty(0)
        p = object.__new__(cls)
        p._v = data._value
        p._device = data._device
        if requires_grad:
            p._rg = True
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __reduce_ex__(self, proto):
        return (Parameter, (self.detach(), self.requires_grad))
