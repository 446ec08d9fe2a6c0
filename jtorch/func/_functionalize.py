"""``torch.func.functionalize``: a function with the same results, whose outputs never alias
its inputs.

PyTorch's functionalize turns a program's in-place and ``out=`` ops (and, with
``remove="mutations_and_views"``, its views) into out-of-place ones, so that transforms and
graph capture see a pure function; mutations of the inputs are applied to them when the call
returns. jtorch's ops are out-of-place JAX computations underneath already (an in-place op
writes a new array into its tensor, and jtorch's transforms trace that as a pure function), so
the function runs as written. What a caller can observe is kept: the same values and
gradients, the inputs mutated as the function mutates them, and PyTorch's aliasing of outputs
and inputs (see ``functionalize``).

Differences from PyTorch: the inputs are mutated while the function runs, not when it returns,
so a function that raises after mutating an input leaves that mutation in place; outputs that
are views of one another (not of an input) stay views of one another.
"""

from __future__ import annotations

import functools

from .._core.tensor_base import TensorBase, storage_root
from ..utils._pytree import tree_flatten, tree_map

_INVALID = (
    "functionalize(f, remove='mutations'): received invalid argument for remove={}. Valid "
    "options are:\n     remove='mutations': all inplace and out= operators will be removed "
    "from the program, and replaced with their out-of-place equivalents.\n     "
    "remove='mutations_and_views': In addition to the above, all aliasing operators {{view}} "
    "will be replaced with their non-aliasing counterparts, {{view}}_copy.\n")


def functionalize(func, *, remove="mutations"):
    """``func`` with the same results, whose tensor outputs alias its inputs only where
    PyTorch's would: an input returned unchanged is returned itself; with
    ``remove="mutations"`` a view of an input the call did not mutate stays a view. Any other
    output sharing an input's storage (a view of a mutated input, any view with
    ``remove="mutations_and_views"``) is returned as a copy."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(_INVALID.format(remove))
    keep_views = remove == "mutations"

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        leaves, _ = tree_flatten((args, kwargs))
        inputs = {id(a) for a in leaves if isinstance(a, TensorBase)}
        roots = [storage_root(a) for a in leaves if isinstance(a, TensorBase)]
        before = {id(r): r._version for r in roots}
        out = func(*args, **kwargs)

        def unaliased(t):
            if not isinstance(t, TensorBase):
                return t
            root = storage_root(t)
            if id(root) not in before:
                return t
            mutated = root._version != before[id(root)]
            if not mutated and (id(t) in inputs or keep_views):
                return t
            return t.clone()

        return tree_map(unaliased, out)

    return wrapped
