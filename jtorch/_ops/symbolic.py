"""The symbolic-shape helpers (``torch.sym_int``, ``sym_max``...) on plain Python numbers.

PyTorch's versions also accept ``SymInt``/``SymFloat``/``SymBool`` (the symbolic sizes of
``torch.compile`` and ``torch.export``); jtorch traces with concrete sizes, so only the plain
forms exist and these are what PyTorch does outside tracing: Python's own int/float/max/min/
not/sqrt/sum/conditional, with PyTorch's promotion and checks.
"""

from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

from .._core import dtypes
from .._core.tensor_base import TensorBase
from ._registry import export

_ALL = (np.integer, np.floating, builtins.int, builtins.float)
_FLOATS = (np.floating, builtins.float)


@export()
def sym_int(a):
    """``int(a)`` (truncating a float), usable where a size may be symbolic."""
    return builtins.int(a)


@export()
def sym_float(a):
    """``float(a)``, usable where a size may be symbolic."""
    if hasattr(a, "__sym_float__"):
        return a.__sym_float__()
    return builtins.float(a)


def _check_number(x):
    if not isinstance(x, _ALL):
        raise AssertionError(f"expected {_ALL}, got {type(x)}")


def _extremum(pick, a, b):
    _check_number(a)
    _check_number(b)
    if isinstance(a, _FLOATS) or isinstance(b, _FLOATS):
        return builtins.float(pick(a, b))
    return pick(a, b)


@export()
def sym_max(a, b):
    """``max(a, b)`` of two ints or floats: a float when either is a float."""
    return _extremum(builtins.max, a, b)


@export()
def sym_min(a, b):
    """``min(a, b)`` of two ints or floats: a float when either is a float."""
    return _extremum(builtins.min, a, b)


@export()
def sym_not(a):
    """``not a``."""
    if hasattr(a, "__sym_not__"):
        return a.__sym_not__()
    return not a


@export()
def sym_sqrt(a):
    """``math.sqrt(a)``."""
    if hasattr(a, "__sym_sqrt__"):
        return a.__sym_sqrt__()
    return math.sqrt(a)


@export()
def sym_sum(*args):
    """``sum(args)``; takes ``sym_sum(a, b, c)`` or ``sym_sum([a, b, c])``."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return builtins.sum(args)


@export()
def sym_ite(b, t, f):
    """``t if b else f``: ``b`` a bool, ``t`` and ``f`` of one type."""
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


_CHECK_DEFAULT = ("Expected cond to be True, but got False. (Could this error message be "
                  "improved? If so, please report an enhancement request to PyTorch.)")


@export()
def _check_with(error_type, cond, message=None):
    """``torch._check_with``: raise ``error_type(message())`` (or PyTorch's default text) when
    the Python bool ``cond`` is False; ``message`` is a callable, called only then."""
    if not isinstance(cond, builtins.bool):
        if isinstance(cond, TensorBase):
            raise TypeError("cond must be a bool, but got a Tensor. For tensor conditions, use "
                            "torch._check_tensor_all() to assert that all elements are true.")
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    if not issubclass(error_type, Exception) or issubclass(error_type, Warning):
        raise AssertionError(f"error_type must be a subclass of Exception but not Warning, "
                             f"got {error_type}")
    if message is not None and not callable(message):
        raise TypeError("message must be a callable")
    raise error_type(_CHECK_DEFAULT if message is None else str(message()))


def _checker(error_type, name):
    def check(cond, message=None):
        _check_with(error_type, cond, message)
    check.__name__ = check.__qualname__ = name
    check.__doc__ = (f"``torch.{name}``: raise {error_type.__name__} (``message()``, or "
                     f"PyTorch's default text) when the bool ``cond`` is False.")
    return export(name)(check)


_check = _checker(RuntimeError, "_check")
_check_index = _checker(IndexError, "_check_index")
_check_value = _checker(ValueError, "_check_value")
_check_type = _checker(TypeError, "_check_type")
_check_not_implemented = _checker(NotImplementedError, "_check_not_implemented")


@export()
def _check_tensor_all_with(error_type, cond, message=None):
    """``torch._check_tensor_all_with``: :func:`_check_with` of "every element of the bool
    tensor ``cond`` is True" (read on the host)."""
    if not isinstance(cond, TensorBase):
        raise TypeError(f"cond must be a tensor, but got {type(cond)}")
    if cond.dtype != dtypes.bool_:
        raise TypeError(f"cond tensor must have dtype torch.bool, but got {cond.dtype}")
    _check_with(error_type, builtins.bool(cond.all().item()), message)


@export()
def _check_tensor_all(cond, message=None):
    """``torch._check_tensor_all``: RuntimeError unless every element of ``cond`` is True."""
    _check_tensor_all_with(RuntimeError, cond, message)


@export()
def _check_is_size(i, message=None, *, max=None):  # noqa: A002 - PyTorch's keyword
    """``torch._check_is_size`` (deprecated in PyTorch, with its FutureWarning): ``i >= 0``
    (and ``i <= max``), as :func:`_check`."""
    warnings.warn("_check_is_size will be removed in a future PyTorch release along with "
                  "guard_size_oblivious.     Use _check(i >= 0) instead.", FutureWarning,
                  stacklevel=2)
    _check(i >= 0, message)
    if max is not None:
        _check(i <= max, message)
