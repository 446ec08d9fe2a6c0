"""``torch.export.export``: a module's forward, traced once with its example inputs, as a
``jax.export`` (StableHLO) program."""

from __future__ import annotations

from ..nn.modules.module import Module
from ._dims import arg_names, input_avals
from ._program import ExportedProgram, input_labels
from ._trace import InputSpec, export_function, pure_function


def lifted_state(mod):
    """``(names, tensors, persistent names)`` of the module's parameters and buffers."""
    named = dict(mod.named_parameters())
    named.update(mod.named_buffers())
    persistent = set(mod.state_dict(keep_vars=True)) & set(named)
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
    avals, bounds = input_avals(mod, args, kwargs, dynamic_shapes)
    fn, out_spec = pure_function(mod, names, spec)
    exported = export_function(fn, [s.detach() for s in state], avals)
    labels = input_labels(arg_names(mod, args, kwargs), spec)
    ep = ExportedProgram(exported, state, names, persistent, spec, out_spec[0], labels,
                         (tuple(args), kwargs), bounds, labels)
    ep._source = (mod, dynamic_shapes)   # what torch.onnx.export of this program traces again
    return ep
