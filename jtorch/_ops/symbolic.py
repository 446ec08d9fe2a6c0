"""The symbolic-shape helpers (``torch.sym_int``, ``sym_max``...) on plain Python numbers.

PyTorch's versions also accept ``SymInt``/``SymFloat``/``SymBool`` (the symbolic sizes of
``torch.compile`` and ``torch.export``); jtorch traces with concrete sizes, so only the plain
forms exist and these are what PyTorch does outside tracing: Python's own int/float/max/min/
not/sqrt/sum/conditional, with PyTorch's promotion and checks.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

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
