"""torch.distributed.fsdp.wrap: FSDP1's auto-wrap policies and the ``enable_wrap``/``wrap``
context.

A policy is called as ``policy(module, recurse, nonwrapped_numel)``: with ``recurse=True`` it
says whether to descend into ``module``'s children, with ``recurse=False`` whether to wrap
``module`` itself. The policies are plain functions and work as in PyTorch (libraries import
them at module level: diffusers' ``training_utils`` imports ``transformer_auto_wrap_policy``);
jtorch's ``FullyShardedDataParallel`` does not apply an ``auto_wrap_policy`` (it raises
``NotImplementedError`` naming it; wrap submodules by hand, or use ``fully_shard``).
``enable_wrap(wrapper_cls=..., **kwargs)`` makes ``wrap(module, **overrides)`` return
``wrapper_cls(module, **kwargs, **overrides)``; outside it ``wrap`` returns ``module``.
"""

from __future__ import annotations

import contextlib

from ... import nn

__all__ = ["CustomPolicy", "ModuleWrapPolicy", "always_wrap_policy", "enable_wrap",
           "lambda_auto_wrap_policy", "size_based_auto_wrap_policy",
           "transformer_auto_wrap_policy", "wrap"]


def always_wrap_policy(*args, **kwargs) -> bool:
    """Wrap every module (and descend into every one)."""
    return True


def _wrap_instances(module, recurse, classes):
    return True if recurse else isinstance(module, tuple(classes))


def lambda_auto_wrap_policy(module, recurse, nonwrapped_numel, lambda_fn) -> bool:
    """Descend everywhere; wrap the modules for which ``lambda_fn(module)`` is true."""
    return True if recurse else bool(lambda_fn(module))


def transformer_auto_wrap_policy(module, recurse, nonwrapped_numel,
                                 transformer_layer_cls) -> bool:
    """Descend everywhere; wrap the instances of ``transformer_layer_cls`` (a set of classes)."""
    return _wrap_instances(module, recurse, transformer_layer_cls)


def size_based_auto_wrap_policy(module, recurse, nonwrapped_numel, min_num_params=int(1e8),
                                force_leaf_modules=None, exclude_wrap_modules=None) -> bool:
    """Descend into, and wrap, modules holding at least ``min_num_params`` parameters not yet
    wrapped; never descend into ``force_leaf_modules`` (``nn.MultiheadAttention`` by default)
    nor wrap ``exclude_wrap_modules`` (``ModuleList``, ``ModuleDict``)."""
    if force_leaf_modules is None:
        force_leaf_modules = size_based_auto_wrap_policy.FORCE_LEAF_MODULES
    if exclude_wrap_modules is None:
        exclude_wrap_modules = size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES
    if nonwrapped_numel < min_num_params:
        return False
    skip = force_leaf_modules if recurse else exclude_wrap_modules
    return not isinstance(module, tuple(skip))


size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES = {nn.ModuleList, nn.ModuleDict}
size_based_auto_wrap_policy.FORCE_LEAF_MODULES = {nn.MultiheadAttention}


class ModuleWrapPolicy:
    """Wrap every instance of ``module_classes``."""

    def __init__(self, module_classes):
        self._module_classes = set(module_classes)
        self._module_classes_str = str(self._module_classes)

    def __call__(self, module, recurse, *args, **kwargs):
        return _wrap_instances(module, recurse, self._module_classes)

    def __repr__(self):
        return f"{super().__repr__()}({self._module_classes_str})"


class CustomPolicy:
    """Wrap the modules for which ``lambda_fn(module)`` is true (or a dict of the wrapper's
    keyword arguments for that module)."""

    def __init__(self, lambda_fn):
        self._lambda_fn = lambda_fn


_WRAP_CONTEXT = []  # the (wrapper_cls, kwargs) of the open enable_wrap, if any


@contextlib.contextmanager
def enable_wrap(*, wrapper_cls, **wrapper_kwargs):
    """Within the block, ``wrap(module)`` wraps ``module`` in ``wrapper_cls(module,
    **wrapper_kwargs)``."""
    if _WRAP_CONTEXT:
        raise NotImplementedError(
            "You are already within an autowrap context and we currently do not supported "
            "nested autowrap.")
    _WRAP_CONTEXT.append((wrapper_cls, wrapper_kwargs))
    try:
        yield
    finally:
        _WRAP_CONTEXT.clear()


def wrap(module, **wrap_overrides):
    """``module`` in the wrapper of the open ``enable_wrap`` (its keyword arguments updated by
    ``wrap_overrides``), or ``module`` itself outside one."""
    if not _WRAP_CONTEXT:
        return module
    wrapper_cls, kwargs = _WRAP_CONTEXT[0]
    return wrapper_cls(module, **{**kwargs, **wrap_overrides})
