"""nn.utils.convert_parameters: flatten parameters to one vector and back."""

from __future__ import annotations

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
    import jtorch

    dev = None
    vec = []
    for param in parameters:
        dev = _check_param_device(param, dev)
        vec.append(param.view(-1))
    return jtorch.cat(vec)


def vector_to_parameters(vec, parameters):
    """Copy slices of ``vec`` into ``parameters`` (rebinding each ``param.data``)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    dev = None
    pointer = 0
    for param in parameters:
        dev = _check_param_device(param, dev)
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n


def _typename(obj):
    """``torch.typename`` for a non-tensor."""
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"
