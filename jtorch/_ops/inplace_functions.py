"""PyTorch's in-place functions in the torch namespace: ``torch.exp_(x)`` is ``x.exp_()``.

PyTorch publishes these for some of the ops that have an in-place method (not for all: there is
no ``torch.add_``); each here runs its op's in-place method (``_registry.inplace_method``), so
the writes through views, the version counter and the autograd node are the method's.
"""

from __future__ import annotations

# the op families that define them (imported first: their ops are then in the op table)
from . import bitwise, compare, linalg, pointwise, pointwise_math, special_math  # noqa: F401
from ._registry import PUBLISHED, export, inplace_method


def _torch_inplace(public, name):
    """``torch.<name>_`` for op function ``public`` (``name`` may be an alias: ``arccos``)."""
    fn = inplace_method(public)
    name += "_"
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``torch.{name}(input, ...)``: ``input.{name}(...)``, the in-place form of "
                  f"``torch.{name[:-1]}``; returns ``input``.")
    return export(name)(fn)


# the in-place methods PyTorch also publishes as torch.<name>_ (aliases included)
NAMES = """abs acos acosh addmv arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan atanh
ceil clamp clamp_max clamp_min clip conj_physical cos cosh deg2rad erf erfc exp exp2 expm1 fix
floor frac gcd i0 lcm ldexp log log10 log1p log2 logit nan_to_num neg negative rad2deg
reciprocal round rsqrt sigmoid sin sinc sinh sqrt square tan tanh trunc xlogy""".split()

for _name in NAMES:   # module attributes: the public namespace imports them from here
    globals()[_name + "_"] = _torch_inplace(PUBLISHED[("Tensor", _name + "_")].obj, _name)
del _name
