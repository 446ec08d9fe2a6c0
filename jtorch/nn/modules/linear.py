"""Identity, Linear, Bilinear and LazyLinear (``torch.nn.modules.linear``)."""

from __future__ import annotations

import math

from ..._ops.creation import empty
from ...autograd import no_grad
from .. import functional as F, init
from ..parameter import Parameter
from .lazy import LazyModuleMixin, uninitialized_weight_and_bias
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear", "LazyLinear", "NonDynamicallyQuantizableLinear"]


def register_weight_and_bias(module, weight_shape, bias_shape, factory):
    """Register ``module.weight`` and ``module.bias``: new parameters of these shapes
    (uninitialised; ``factory``: their device and dtype), or None where the shape is None."""
    for name, shape in (("weight", weight_shape), ("bias", bias_shape)):
        module.register_parameter(name, None if shape is None
                                  else Parameter(empty(shape, **factory)))


def reset_linear_parameters(module):
    """PyTorch's initialisation of Linear and the convolutions: ``kaiming_uniform_(weight,
    a=sqrt(5))`` (U(-1/sqrt(fan_in), 1/sqrt(fan_in))), and the bias U(-1/sqrt(fan_in),
    1/sqrt(fan_in))."""
    init.kaiming_uniform_(module.weight, a=math.sqrt(5))
    if module.bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(module.weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(module.bias, -bound, bound)


class Identity(Module):
    """Returns its input; constructor arguments are accepted and ignored."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x @ weight.T + bias``; ``weight``: ``(out_features, in_features)``.

    Initialisation as PyTorch: ``kaiming_uniform_(weight, a=sqrt(5))`` (i.e. U(-1/sqrt(in),
    1/sqrt(in))) and bias U(-1/sqrt(in), 1/sqrt(in)).
    """

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        register_weight_and_bias(self, (out_features, in_features),
                                 out_features if bias else None,
                                 {"device": device, "dtype": dtype})
        self.reset_parameters()

    def reset_parameters(self):
        reset_linear_parameters(self)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """``y = x1^T A x2 + b``; ``weight``: ``(out_features, in1_features, in2_features)``."""

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        register_weight_and_bias(self, (out_features, in1_features, in2_features),
                                 out_features if bias else None,
                                 {"device": device, "dtype": dtype})
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose ``in_features`` is inferred from the first input; the module then
    becomes a :class:`Linear` (PyTorch's ``cls_to_become``)."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        # bias=False: no tensor made only to be replaced
        super().__init__(0, 0, False)
        self.out_features = out_features
        uninitialized_weight_and_bias(self, bias, device, dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # parameters loaded from a state_dict: infer it now
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(
                    f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                    f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear (PyTorch's marker subclass for MultiheadAttention's ``out_proj``)."""
