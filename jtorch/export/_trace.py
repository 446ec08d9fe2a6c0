"""A jtorch module as a pure function of arrays, and that function through ``jax.export``.

The module's parameters and buffers are lifted into arguments (``torch.func.functional_call``
puts them back into the module for one call), the Tensor leaves of the call's inputs are the
other arguments; every non-Tensor input is a constant of the program, as in PyTorch's export.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import export as jax_export

from .._core.state import grad_mode
from .._ops.creation import as_tensor
from .._tensor import Tensor
from ..func._modules import functional_call
from ..utils import _pytree as pt


class InputSpec:
    """The structure of a call's ``(args, kwargs)``: its pytree spec, and per leaf either
    ``None`` (a Tensor, an input of the program) or the constant it was at export."""

    def __init__(self, args, kwargs):
        leaves, self.tree = pt.tree_flatten((tuple(args), dict(kwargs)))
        self.constants = [None if isinstance(x, Tensor) else x for x in leaves]
        self.paths = [f"args[{i}]" for i in range(len(args))] + \
            [f"kwargs['{k}']" for k in kwargs]

    def tensors(self, args, kwargs):
        """The Tensor leaves of a new call, checked against the exported structure (keyword
        inputs in any order)."""
        order = self.tree.children()[1].context or ()
        if set(kwargs) == set(order):
            kwargs = {k: kwargs[k] for k in order}
        leaves, tree = pt.tree_flatten((tuple(args), dict(kwargs)))
        if tree != self.tree:
            raise ValueError("Trying to flatten user inputs with exported input tree spec: \n"
                             f"{self.tree}\nbut actually got inputs with tree spec of: \n"
                             f"{tree}")
        out = []
        for i, (x, c) in enumerate(zip(leaves, self.constants)):
            if c is None:
                if not isinstance(x, Tensor):
                    raise RuntimeError(f"Expected input at leaf {i} to be a tensor, but got "
                                       f"{type(x)}")
                out.append(x)
            elif type(x) is not type(c) or x != c:
                raise RuntimeError(f"Expected input at leaf {i} to be equal to {c}, but got {x}")
        return out

    def rebuild(self, tensors):
        it = iter(tensors)
        args, kwargs = pt.tree_unflatten([next(it) if c is None else c for c in self.constants],
                                    self.tree)
        return args, kwargs


def pure_function(mod, names, spec):
    """``fn(state_arrays, input_arrays) -> list of output arrays`` computing ``mod`` with the
    state named ``names``; also returns a one-element list that receives the output's pytree
    spec when ``fn`` is traced."""
    out_spec = []

    def fn(state, inputs):
        with grad_mode(False):
            params = {k: as_tensor(v) for k, v in zip(names, state)}
            args, kwargs = spec.rebuild([as_tensor(x) for x in inputs])
            out = functional_call(mod, params, args, kwargs)
        leaves, tree = pt.tree_flatten(out)
        bad = [type(x).__name__ for x in leaves if not isinstance(x, Tensor)]
        if bad:
            raise RuntimeError(f"jtorch.export: the module returned a {bad[0]} among its "
                               "outputs; an exported program returns Tensors only")
        out_spec[:] = [tree]
        return [jnp.asarray(x) for x in leaves]

    return fn, out_spec


def export_function(fn, state, avals):
    """``jax.export`` of ``fn(state, inputs)`` for the state's arrays and the input avals."""
    state_avals = [jax.ShapeDtypeStruct(jnp.shape(a), jnp.asarray(a).dtype) for a in state]
    return jax_export.export(jax.jit(fn))(state_avals, list(avals))
