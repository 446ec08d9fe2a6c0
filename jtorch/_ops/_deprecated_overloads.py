"""PyTorch's deprecated positional overloads of pointwise ops (its ``deprecated.yaml``):
``add(input, 2, other)`` for ``add(input, other, alpha=2)``, ``sub`` likewise, and
``addcmul(input, 0.5, t1, t2)`` / ``addcdiv`` for ``value=0.5``, in every form (function,
method, in-place method). Old programs use them (``p.data.add_(-lr, p.grad.data)``, Adam's
``exp_avg_sq.addcmul_(1 - beta2, grad, grad)``). PyTorch still accepts them, with one
UserWarning per process (its TORCH_WARN_ONCE is shared by every deprecated overload).

Each op passes ``legacy=scalar_first(...)`` to ``@op``; the registry calls it with the
positional and keyword arguments before binding them.
"""

from __future__ import annotations

import numbers

from .._core.tensor_base import TensorBase
from .._core.warn_once import warn_once

WARNING_KEY = "deprecated overload"   # one warning for all of them, as PyTorch's


def _message(name, scalar, tensors, inplace):
    operands = ", ".join(f"Tensor {t}" for t in tensors)
    if inplace:
        old = f"{name}_(Number {scalar}, {operands})"
        new = f"{name}_({operands}, *, Number {scalar} = 1)"
    else:
        old = f"{name}(Tensor input, Number {scalar}, {operands}, *, Tensor out = None)"
        new = f"{name}(Tensor input, {operands}, *, Number {scalar} = 1, Tensor out = None)"
    return (f"This overload of {name}{'_' if inplace else ''} is deprecated:\n\t{old}\n"
            "Consider using one of the following signatures instead:\n\t" + new)


def scalar_first(name, scalar, tensors):
    """The argument rewrite of op ``name``'s deprecated overload, where the keyword
    ``scalar`` (``"alpha"``, ``"value"``) comes positionally before the tensor operands
    ``tensors``: ``rewrite(args, kwargs, inplace=False) -> (args, kwargs)``, the arguments
    unchanged unless they are that overload (``self``, a number, then only tensors)."""
    count = 2 + len(tensors)

    def rewrite(args, kwargs, inplace=False):
        if (len(args) != count or scalar in kwargs
                or not isinstance(args[1], numbers.Number)
                or not all(isinstance(a, TensorBase) for a in (args[0], *args[2:]))):
            return args, kwargs
        warn_once(WARNING_KEY, lambda: _message(name, scalar, tensors, inplace),
                  stacklevel=3)
        return (args[0], *args[2:]), {**kwargs, scalar: args[1]}

    return rewrite
