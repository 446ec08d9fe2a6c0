"""torch.func.functional_call and stack_module_state."""

from __future__ import annotations

from collections.abc import Sequence

from .._ops.shape import stack
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.utils.stateless import _functional_call


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module`` with the given parameters and buffers standing in for its own (one
    dict, or a sequence of dicts with distinct keys); ``args`` that is not a tuple is one
    positional argument."""
    if isinstance(parameter_and_buffer_dicts, dict):
        named = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                             "dictionaries")
        counts = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        named = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    return _functional_call(module, named, args, kwargs, tie_weights=tie_weights,
                            strict=strict)


def check_ensemble_models(models, api):
    """PyTorch's checks of the models an ensemble API stacks (``api`` names it in the error):
    at least one, all in the same training/eval mode, all of one class."""
    if len(models) == 0:
        raise RuntimeError(f"{api}: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError(f"{api}: Expected all models to have the same training/eval mode.")
    typ = type(models[0])
    if not all(type(m) is typ for m in models):
        raise RuntimeError(f"{api}: Expected all models to be of the same class.")


def stack_module_state(models):
    """``(params, buffers)``: each parameter/buffer of the same-class ``models`` stacked along
    a new leading dimension (stacked parameters are new leaves, for ensembling with vmap)."""
    check_ensemble_models(models, "stack_module_state")

    def stacked(tensors, name):
        rg = [t.requires_grad for t in tensors]
        if any(rg) and not all(rg):
            raise RuntimeError(f"Expected {name} from each model to have the same "
                               ".requires_grad")
        out = stack([t.detach() for t in tensors])
        return out.requires_grad_() if all(rg) else out

    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: stacked([p[k] for p in all_params], k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: stacked([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers


def replace_all_batch_norm_modules_(root):
    """Make every BatchNorm in ``root`` (``root`` too) use batch statistics only: running
    statistics None and ``track_running_stats`` False, in place (for vmap over a model)."""
    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
