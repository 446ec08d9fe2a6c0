"""torch._functorch.make_functional: ``functorch.make_functional(_with_buffers)`` and
``combine_state_for_ensemble``, as PyTorch's: a deep copy of the module, whose parameters
(and buffers) are returned as tuples, and a callable module that runs the copy with the tensors
it is given in their place (``torch.func.functional_call``). A tensor registered under several
names (tied weights) is returned once and given to all of its names."""

from __future__ import annotations

import copy

from .. import nn
from .._ops.shape import stack
from ..func import functional_call
from ..func._modules import check_ensemble_models


def _unique(named):
    """``(tensors, names, names_map)``: each tensor once, in order of first name, its first
    name, and all of its names."""
    tensors, names, names_map, seen = [], [], {}, {}
    for name, t in named:
        first = seen.get(id(t))
        if first is None:
            seen[id(t)] = name
            tensors.append(t)
            names.append(name)
            names_map[name] = [name]
        else:
            names_map[first].append(name)
    return tuple(tensors), tuple(names), names_map


def extract_weights(mod):
    return _unique(mod.named_parameters(remove_duplicate=False))


def extract_buffers(mod):
    return _unique(mod.named_buffers(remove_duplicate=False))


def _run(model, names_map, tensors, args, kwargs):
    state = {}
    for all_names, t in zip(names_map.values(), tensors):
        for name in all_names:
            state[name] = t
    return functional_call(model, state, args, kwargs, tie_weights=False)


class FunctionalModuleWithBuffers(nn.Module):
    """The callable ``make_functional_with_buffers`` returns: ``f(params, buffers, *args)``."""

    def __init__(self, stateless_model, param_names, buffer_names, param_names_map,
                 buffer_names_map):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.buffer_names = buffer_names
        self.all_names_map = dict(param_names_map)
        self.all_names_map.update(buffer_names_map)

    @staticmethod
    def _create_from(model, disable_autograd_tracking=False):
        model_copy = copy.deepcopy(model)
        params, param_names, param_names_map = extract_weights(model_copy)
        buffers, buffer_names, buffer_names_map = extract_buffers(model_copy)
        if disable_autograd_tracking:
            for param in params:
                param.requires_grad_(False)
        return (FunctionalModuleWithBuffers(model_copy, param_names, buffer_names,
                                            param_names_map, buffer_names_map),
                params, buffers)

    def forward(self, params, buffers, *args, **kwargs):
        return _run(self.stateless_model, self.all_names_map,
                    tuple(params) + tuple(buffers), args, kwargs)


class FunctionalModule(nn.Module):
    """The callable ``make_functional`` returns: ``f(params, *args)``."""

    def __init__(self, stateless_model, param_names, names_map):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.names_map = names_map

    @staticmethod
    def _create_from(model, disable_autograd_tracking=False):
        model_copy = copy.deepcopy(model)
        params, param_names, names_map = extract_weights(model_copy)
        if disable_autograd_tracking:
            for param in params:
                param.requires_grad_(False)
        return FunctionalModule(model_copy, param_names, names_map), params

    def forward(self, params, *args, **kwargs):
        return _run(self.stateless_model, self.names_map, tuple(params), args, kwargs)


def make_functional(model, disable_autograd_tracking=False):
    buffers = list(model.buffers())
    if len(buffers) > 0:
        raise RuntimeError("make_functional(model): `model` has buffers. Please use "
                           "make_functional_with_buffers(model) instead.")
    return FunctionalModule._create_from(model, disable_autograd_tracking)


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    return FunctionalModuleWithBuffers._create_from(model, disable_autograd_tracking)


def transpose_stack(tuple_of_tuple_of_tensors):
    return tuple(stack(shards).detach() for shards in zip(*tuple_of_tuple_of_tensors))


def combine_state_for_ensemble(models):
    check_ensemble_models(models, "combine_state_for_ensemble")
    funcs, params, buffers = zip(*[make_functional_with_buffers(model) for model in models])
    return funcs[0], transpose_stack(params), transpose_stack(buffers)
