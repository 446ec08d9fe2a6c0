"""Activation modules (``torch.nn.modules.activation``, except MultiheadAttention, which lives
in attention.py).

Most are one call of their functional: :func:`activation_module` generates their ``__init__``
(PyTorch's signature, each argument kept under its name), ``forward`` (the functional on the
input and those arguments, in order) and ``extra_repr``. The others are written out.
"""

from __future__ import annotations

import warnings

from ..._ops.creation import empty
from .. import functional as F, init
from ..parameter import Parameter
from ._generated import define_method, parameter_names
from .module import Module

__all__ = ["Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh",
           "SiLU", "Mish", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink",
           "LeakyReLU", "LogSigmoid", "Softplus", "Softshrink", "PReLU", "Softsign",
           "Tanhshrink", "Softmin", "Softmax", "Softmax2d", "LogSoftmax"]


def describe(module, names):
    """PyTorch's extra_repr of an activation: ``name=value`` for each argument, then
    ``inplace=True`` only when set."""
    shown = [f"{n}={getattr(module, n)}" for n in names if n != "inplace"]
    if "inplace" in names and module.inplace:
        shown.append("inplace=True")
    return ", ".join(shown)


def activation_module(functional, signature=""):
    """Class decorator: ``cls(<signature>)`` keeps each argument as an attribute of that name;
    ``forward(input)`` is ``functional(input, <the arguments in order>)``. Methods the class
    body defines are kept."""

    def decorate(cls):
        names = parameter_names(signature)
        if names:
            define_method(cls, "__init__", signature,
                          ["super(cls, self).__init__()", *(f"self.{n} = {n}" for n in names)],
                          {"cls": cls})
        arguments = "".join(f", self.{n}" for n in names)
        define_method(cls, "forward", "input", [f"return functional(input{arguments})"],
                      {"functional": functional})
        if names:
            define_method(cls, "extra_repr", "", ["return describe(self, names)"],
                          {"describe": describe, "names": tuple(names)})
        return cls

    return decorate


@activation_module(F.threshold, "threshold, value, inplace=False")
class Threshold(Module):
    """``value`` where ``input <= threshold``, else ``input``."""

    __constants__ = ["threshold", "value", "inplace"]


@activation_module(F.relu, "inplace=False")
class ReLU(Module):
    """``max(0, x)``."""

    __constants__ = ["inplace"]


@activation_module(F.rrelu, "lower=1.0 / 8, upper=1.0 / 3, inplace=False")
class RReLU(Module):
    """Leaky ReLU with a random slope in ``[lower, upper]`` while training, their mean in
    evaluation."""

    __constants__ = ["lower", "upper", "inplace"]

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)


class Hardtanh(Module):
    """``x`` clamped to ``[min_val, max_val]`` (``min_value``/``max_value``: their deprecated
    names)."""

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val "
                                 f"({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return describe(self, ("min_val", "max_val", "inplace"))


class ReLU6(Hardtanh):
    """``min(max(0, x), 6)``."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return describe(self, ("inplace",))


@activation_module(F.sigmoid)
class Sigmoid(Module):
    """``1 / (1 + exp(-x))``."""


@activation_module(F.hardsigmoid, "inplace=False")
class Hardsigmoid(Module):
    """``relu6(x + 3) / 6``."""

    __constants__ = ["inplace"]

    def extra_repr(self):   # PyTorch shows no arguments
        return ""


@activation_module(F.tanh)
class Tanh(Module):
    """``tanh(x)``."""


@activation_module(F.silu, "inplace=False")
class SiLU(Module):
    """``x * sigmoid(x)``."""

    __constants__ = ["inplace"]


@activation_module(F.mish, "inplace=False")
class Mish(Module):
    """``x * tanh(softplus(x))``."""

    __constants__ = ["inplace"]


@activation_module(F.hardswish, "inplace=False")
class Hardswish(Module):
    """``x * relu6(x + 3) / 6``."""

    __constants__ = ["inplace"]

    def extra_repr(self):   # PyTorch shows no arguments
        return ""


@activation_module(F.elu, "alpha=1.0, inplace=False")
class ELU(Module):
    """``x`` if ``x > 0`` else ``alpha * (exp(x) - 1)``."""

    __constants__ = ["alpha", "inplace"]


@activation_module(F.celu, "alpha=1.0, inplace=False")
class CELU(Module):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""

    __constants__ = ["alpha", "inplace"]


@activation_module(F.selu, "inplace=False")
class SELU(Module):
    """``scale * elu(x, alpha)`` with the self-normalizing constants."""

    __constants__ = ["inplace"]


@activation_module(F.glu, "dim=-1")
class GLU(Module):
    """``a * sigmoid(b)`` of the two halves ``a, b`` of ``input`` along ``dim``."""

    __constants__ = ["dim"]


@activation_module(F.gelu, "approximate='none'")
class GELU(Module):
    """``x * Phi(x)`` (``approximate='tanh'``: its tanh approximation)."""

    __constants__ = ["approximate"]

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


@activation_module(F.hardshrink, "lambd=0.5")
class Hardshrink(Module):
    """``x`` where ``|x| > lambd``, else 0."""

    __constants__ = ["lambd"]

    def extra_repr(self):
        return f"{self.lambd}"


@activation_module(F.leaky_relu, "negative_slope=1e-2, inplace=False")
class LeakyReLU(Module):
    """``max(0, x) + negative_slope * min(0, x)``."""

    __constants__ = ["inplace", "negative_slope"]


@activation_module(F.logsigmoid)
class LogSigmoid(Module):
    """``log(sigmoid(x))``."""


@activation_module(F.softplus, "beta=1.0, threshold=20.0")
class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta`` (linear above ``threshold``)."""

    __constants__ = ["beta", "threshold"]


@activation_module(F.softshrink, "lambd=0.5")
class Softshrink(Module):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""

    __constants__ = ["lambd"]

    def extra_repr(self):
        return f"{self.lambd}"


class PReLU(Module):
    """``max(0, x) + weight * min(0, x)`` with a learnt ``weight`` of ``num_parameters``
    entries (1, or the number of channels), initialised to ``init``."""

    __constants__ = ["num_parameters"]

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


@activation_module(F.softsign)
class Softsign(Module):
    """``x / (1 + |x|)``."""


@activation_module(F.tanhshrink)
class Tanhshrink(Module):
    """``x - tanh(x)``."""


class _SoftmaxBase(Module):
    """A softmax-like function along ``dim`` (``None``: PyTorch's legacy choice, with a
    warning)."""

    __constants__ = ["dim"]
    functional = None   # set by each subclass (a staticmethod)

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        self.__dict__.update(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input):
        dim = self.dim
        if dim is None:  # PyTorch's legacy rule, warning on every call (not only at trace)
            warnings.warn(f"Implicit dimension choice for {self.functional.__name__} has been "
                          "deprecated. Change the call to include dim=X as an argument.",
                          stacklevel=2)
            dim = 0 if input.dim() in (0, 1, 3) else 1
        return self.functional(input, dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmin(_SoftmaxBase):
    """``softmax(-x)`` along ``dim``."""

    functional = staticmethod(F.softmin)


class Softmax(_SoftmaxBase):
    """``exp(x) / sum(exp(x))`` along ``dim``."""

    functional = staticmethod(F.softmax)


class LogSoftmax(_SoftmaxBase):
    """``log(softmax(x))`` along ``dim``."""

    functional = staticmethod(F.log_softmax)


class Softmax2d(Module):
    """Softmax over the channel dim (-3) of a (C, H, W) or (N, C, H, W) input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3, _stacklevel=5)
