"""``torch.export.Dim`` and ``dynamic_shapes``: which input dimensions an exported program
leaves symbolic, turned into ``jax.export`` symbolic shapes (one scope, shared names).

Differences from PyTorch: a symbolic dimension is at least 1 (JAX's rule); ``Dim.AUTO`` and
``Dim.DYNAMIC`` always give a symbolic dimension (PyTorch may specialise an AUTO dimension that
the program forces to a constant; here such a program fails to export with JAX's error).
"""

from __future__ import annotations

import inspect
import itertools

import jax
from jax import export as jax_export

from .._tensor import Tensor
from ..utils import _pytree as pt

_INT_OO = 2 ** 63 - 1   # PyTorch's "no upper bound" (int_oo)


class _DimHint:
    """``Dim.AUTO`` / ``Dim.DYNAMIC`` / ``Dim.STATIC``."""

    def __init__(self, kind):
        self.kind = kind

    def __repr__(self):
        return f"DimHint({self.kind})"


class Dim:
    """A symbolic dimension for ``dynamic_shapes`` (``torch.export.Dim``).

    Args:
        name (str): a Python identifier; equal names in one export are one dimension.
        min (int, optional): the smallest size (PyTorch's default 0; JAX's sizes are >= 1).
        max (int, optional): the largest size (no bound by default).

    Example::

        >>> batch = Dim("batch", max=64)
        >>> ep = torch.export.export(model, (x,), dynamic_shapes={"x": {0: batch}})
    """

    AUTO = _DimHint("AUTO")
    DYNAMIC = _DimHint("DYNAMIC")
    STATIC = _DimHint("STATIC")

    def __init__(self, name, *, min=None, max=None):
        if not (isinstance(name, str) and name.isidentifier()):
            raise AssertionError(f"Dim name must be a valid identifier, got {name}")
        lo = 0 if min is None else min
        hi = _INT_OO if max is None else max
        if hi < lo:
            raise AssertionError(f"Cannot create Dim with inconsistent min={min}, max={max}")
        self.__name__ = name
        self.min, self.max = lo, hi

    def __repr__(self):
        bounds = "".join(f", {k}={v}" for k, v, d in (("min", self.min, 0),
                                                      ("max", self.max, _INT_OO)) if v != d)
        return f"Dim('{self.__name__}'{bounds})"


def dims(*names, min=None, max=None):
    """One :class:`Dim` per name, all with the same bounds (``torch.export.dims``)."""
    return tuple(Dim(n, min=min, max=max) for n in names)


def arg_names(mod, args, kwargs):
    """The forward's parameter names bound to ``args``/``kwargs``, in call order."""
    bound = inspect.signature(mod.forward).bind(*args, **kwargs)
    return list(bound.arguments)


def _per_input(mod, args, kwargs, dynamic_shapes):
    """``dynamic_shapes`` as one spec per top-level input, in ``(args..., kwargs...)`` order."""
    n = len(args) + len(kwargs)
    if isinstance(dynamic_shapes, dict):
        names = arg_names(mod, args, kwargs)
        if sorted(dynamic_shapes) != sorted(names):
            raise RuntimeError(
                "When `dynamic_shapes` is specified as a dict, its top-level keys must be the "
                f"arg names {names} of `inputs`, but here they are {list(dynamic_shapes)}. "
                "Alternatively, you could also ignore arg names entirely and specify "
                "`dynamic_shapes` as a list/tuple matching `inputs`. For more information "
                "about this error, see: https://pytorch.org/docs/main/generated/exportdb/"
                "index.html#dynamic-shapes-validation")
        # positional inputs by their parameter's name, keyword inputs in the call's order
        return [dynamic_shapes[k] for k in names[:len(args)] + list(kwargs)]
    if isinstance(dynamic_shapes, (tuple, list)):
        specs = list(dynamic_shapes)
        if len(specs) != n:
            raise RuntimeError(
                f"When `dynamic_shapes` is specified as a list/tuple, its length must match "
                f"the number of inputs ({n}), but got {len(specs)}.")
        return specs
    raise RuntimeError(f"Unexpected dynamic_shape {dynamic_shapes} of type "
                       f"{type(dynamic_shapes)}; expected a dict, tuple or list")


class SymbolTable:
    """The symbolic dimensions of one export: a JAX scope with every Dim's bounds."""

    def __init__(self):
        self.bounds = {}      # name -> (min, max)
        self._fresh = itertools.count()
        self._scope = None

    def name_of(self, entry, path, i, size):
        """The symbol for ``entry`` (a Dim, hint, int or None) at input ``path`` dim ``i``;
        None when the dimension stays static."""
        if entry is None or entry is Dim.STATIC:
            return None
        if isinstance(entry, int):
            if entry != size:
                raise RuntimeError(f"Expected input at {path}.shape[{i}] to be equal to "
                                   f"{entry}, but got {size}")
            return None
        if isinstance(entry, _DimHint):
            name = f"s{next(self._fresh)}"
            self.bounds[name] = (0, _INT_OO)
            return name
        if isinstance(entry, Dim):
            old = self.bounds.setdefault(entry.__name__, (entry.min, entry.max))
            if old != (entry.min, entry.max):
                raise RuntimeError(f"Found different definitions {old} and "
                                   f"{(entry.min, entry.max)} for the same symbolic dimension "
                                   f"{entry.__name__}!")
            if not entry.min <= size <= entry.max:
                raise RuntimeError(f"Expected input at {path}.shape[{i}] to be in range "
                                   f"[{entry.min}, {entry.max}] ({entry.__name__}), but got "
                                   f"{size}")
            return entry.__name__
        raise RuntimeError(f"Unexpected dimension mapped to index {i} in input tensor shape "
                           f"{path}: {entry!r}; expected a Dim, int, None or Dim hint")

    def scope(self):
        if self._scope is None:
            cons = [c for name, (lo, hi) in self.bounds.items()
                    for c in ([f"{name} >= {lo}"] if lo > 1 else [])
                    + ([f"{name} <= {hi}"] if hi < _INT_OO else [])]
            self._scope = jax_export.SymbolicScope(cons)
        return self._scope

    def shape(self, names, concrete):
        """The JAX shape: a symbol where ``names`` has one, else the concrete size."""
        if all(n is None for n in names):
            return tuple(concrete)
        text = ", ".join(n if n is not None else str(s) for n, s in zip(names, concrete))
        return jax_export.symbolic_shape(text, scope=self.scope())


def _dim_names(spec, t, path, table):
    """Per dimension of tensor ``t``: its symbol name or None."""
    if spec is None:
        return [None] * t.dim()
    if isinstance(spec, dict):
        bad = [k for k in spec if not (isinstance(k, int) and -t.dim() <= k < t.dim())]
        if bad:
            raise RuntimeError(f"Dynamic shape spec for {path} names dimension {bad[0]}, but "
                               f"the tensor has {t.dim()} dimensions")
        spec = [spec.get(i, spec.get(i - t.dim())) for i in range(t.dim())]
    if not isinstance(spec, (tuple, list)) or len(spec) != t.dim():
        raise RuntimeError(f"Expected dynamic shape spec {spec} at {path} to have the same "
                           f"length as the actual tensor shape {tuple(t.shape)} (expected "
                           f"{t.dim()}, but got {len(spec) if hasattr(spec, '__len__') else 1} "
                           "instead)")
    return [table.name_of(e, path, i, s) for i, (e, s) in enumerate(zip(spec, t.shape))]


def input_avals(mod, args, kwargs, dynamic_shapes):
    """``jax.ShapeDtypeStruct`` per Tensor leaf of ``(args, kwargs)`` (flattening order),
    with the symbolic dimensions ``dynamic_shapes`` asks for, and ``{name: (min, max)}`` of
    those dimensions (``max`` None: unbounded)."""
    tensors = [x for x in pt.tree_flatten((args, kwargs))[0] if isinstance(x, Tensor)]
    table = SymbolTable()
    if dynamic_shapes is None:
        names = [[None] * t.dim() for t in tensors]
    else:
        names = []
        tops = list(args) + list(kwargs.values())
        for top, spec, path in zip(tops, _per_input(mod, args, kwargs, dynamic_shapes),
                                   _top_paths(args, kwargs)):
            leaves, tree = pt.tree_flatten(top)
            specs = [None] * len(leaves) if spec is None else _spec_leaves(spec, tree, path)
            for j, (leaf, s) in enumerate(zip(leaves, specs)):
                if isinstance(leaf, Tensor):
                    names.append(_dim_names(s, leaf, f"{path}" if len(leaves) == 1
                                            else f"{path}[{j}]", table))
    avals = [jax.ShapeDtypeStruct(table.shape(n, t.shape), t.dtype.np)
             for n, t in zip(names, tensors)]
    bounds = {k: (lo, None if hi == _INT_OO else hi) for k, (lo, hi) in table.bounds.items()}
    return avals, bounds


def _top_paths(args, kwargs):
    return [f"args[{i}]" for i in range(len(args))] + [f"kwargs['{k}']" for k in kwargs]


def _spec_leaves(spec, tree, path):
    """A nested input's spec as one entry per leaf (a tensor's spec is a dict/tuple itself)."""
    if tree.is_leaf():
        return [spec]
    if isinstance(spec, dict) and tree.type is not dict:
        raise RuntimeError(f"Dynamic shape spec at {path} does not match the input's structure")
    kids = list(spec.values()) if isinstance(spec, dict) else list(spec)
    if len(kids) != tree.num_children:
        raise RuntimeError(f"Dynamic shape spec at {path} does not match the input's structure")
    return [s for k, c in zip(kids, tree.children()) for s in _spec_leaves(k, c, path)]
