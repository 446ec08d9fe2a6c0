"""nn.utils.convert_parameters: flatten parameters to one vector and back."""

from __future__ import annotations

from ..._ops.shape_copy import cat
from ..._ops.typeinfo import typename
from ..._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param, old):
    """PyTorch's rule: all parameters on one accelerator index, or all on the CPU (-1)."""
    dev = param.device
    idx = -1 if dev.type == "cpu" else dev.index if dev.index is not None else 0
    if old is not None and idx != old:
        raise TypeError("Found two parameters on different devices, this is currently not "
                        "supported.")
    return idx


def parameters_to_vector(parameters):
    """One flat vector of all ``parameters`` (differentiable, as ``torch.cat`` of views)."""
    dev = None
    vec = []
    for param in parameters:
        dev = _check_param_device(param, dev)
        vec.append(param.view(-1))
    return cat(vec)


def vector_to_parameters(vec, parameters):
    """Copy slices of ``vec`` into ``parameters`` (rebinding each ``param.data``)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    dev = None
    pointer = 0
    for param in parameters:
        dev = _check_param_device(param, dev)
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n

