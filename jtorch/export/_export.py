"""``torch.export.export``: a module's forward, traced once with its example inputs, as a
``jax.export`` (StableHLO) program."""

from __future__ import annotations

from jax import export as jax_export

from ..nn.modules.module import Module
from ._dims import _arg_names, input_avals
from ._program import ExportedProgram, input_labels
from ._trace import InputSpec, export_function, pure_function


def lifted_state(mod):
    """``(names, tensors, persistent names)`` of the module's parameters and buffers."""
    named = dict(mod.named_parameters())
    persistent = set(named)
    for prefix, sub in mod.named_modules():
        for name, b in sub._buffers.items():
            if b is not None and name not in sub._non_persistent_buffers_set:
                persistent.add(f"{prefix}.{name}" if prefix else name)
    named.update(mod.named_buffers())
    return list(named), list(named.values()), persistent


def check_call(mod, args, kwargs):
    """PyTorch's checks of ``export``'s ``mod`` and ``args``."""
    if not isinstance(mod, Module):
        raise ValueError(f"Expected `mod` to be an instance of `torch.nn.Module`, got "
                         f"{type(mod)}.")
    if not isinstance(args, tuple):
        raise RuntimeError("Expecting `args` to be a tuple of example positional inputs, got "
                           f"{type(args)}")
    return dict(kwargs or {})


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False,
           preserve_module_call_signature=(), prefer_deferred_runtime_asserts_over_guards=False):
    """Trace ``mod(*args, **kwargs)`` once into an :class:`ExportedProgram` (StableHLO through
    ``jax.export``) with the parameters and buffers lifted into inputs.

    Args:
        mod (nn.Module): the module to export; its forward is traced in its current mode.
        args (tuple): example positional inputs.
        kwargs (dict, optional): example keyword inputs.
        dynamic_shapes (dict, tuple or list, optional): per input, a dict ``{dim: Dim}`` or a
            tuple with a :class:`Dim`/``Dim.AUTO``/``Dim.DYNAMIC``/``Dim.STATIC``/``None`` per
            dimension; a dict is keyed by the forward's argument names.
        strict (bool): accepted; jtorch always traces the Python forward with JAX.
        preserve_module_call_signature (tuple): must be empty.
        prefer_deferred_runtime_asserts_over_guards (bool): accepted, no effect.

    Returns:
        ExportedProgram: ``ep.module()`` runs it; ``ep.stablehlo()`` is its StableHLO text.

    Example::

        >>> ep = torch.export.export(model, (x,), dynamic_shapes={"x": {0: Dim("batch")}})
        >>> y = ep.module()(x)
        >>> print(ep.stablehlo())

    Differences from PyTorch: a program whose Python depends on a symbolic size in a way JAX
    cannot decide fails with JAX's error (PyTorch adds guards or specialises); buffers that the
    forward mutates keep their old value (the mutation is not an output of the program).
    """
    kwargs = check_call(mod, args, kwargs)
    if preserve_module_call_signature:
        raise NotImplementedError("jtorch does not implement "
                                  "torch.export.export(preserve_module_call_signature=...) yet")
    names, state, persistent = lifted_state(mod)
    spec = InputSpec(args, kwargs)
    avals = input_avals(mod, args, kwargs, dynamic_shapes)
    fn, out_spec = pure_function(mod, names, spec)
    exported = export_function(fn, [s.detach() for s in state], avals)
    arg_names = _arg_names(mod, args, kwargs)
    labels = input_labels(arg_names, spec)
    bounds = {}
    for a in avals:
        for d in a.shape:
            if jax_export.is_symbolic_dim(d):
                bounds[str(d)] = _bounds(dynamic_shapes, str(d))
    ep = ExportedProgram(exported, state, names, persistent, spec, out_spec[0], labels,
                         (tuple(args), kwargs), bounds, labels)
    ep._source = (mod, dynamic_shapes)   # what torch.onnx.export of this program traces again
    return ep


def _bounds(dynamic_shapes, name):
    """``(min, max)`` of the Dim called ``name`` in ``dynamic_shapes`` (``max`` None: none)."""
    stack = [dynamic_shapes]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (tuple, list)):
            stack.extend(x)
        elif getattr(x, "__name__", None) == name and hasattr(x, "max"):
            return (x.min, x.max if x.max < 2 ** 63 - 1 else None)
    return (0, None)
