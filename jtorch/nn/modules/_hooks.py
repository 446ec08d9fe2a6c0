"""Module hooks: removable handles, global module hooks, the hooked call path of
``Module.__call__`` and full backward hooks.

Full backward hooks work as PyTorch's ``torch.utils.hooks.BackwardHook``: the module's tensor
inputs and outputs pass through an identity autograd Function (``BackwardHookFunction``) whose
graph nodes capture the gradients with respect to the outputs (running the backward
pre-hooks) and, later in the same backward pass, with respect to the inputs (running the
backward hooks, which may replace them).
"""

from __future__ import annotations

import functools
import warnings
import weakref
from collections import OrderedDict

from ..._core.hooks import RemovableHandle as CoreRemovableHandle
from ..._core.state import STATE
from ..._ops.creation import _caller_level
from ..._tensor import Tensor
from ...autograd.function import Function


class RemovableHandle(CoreRemovableHandle):
    """``torch.utils.hooks.RemovableHandle``: removes a hook (and its flags kept in
    ``extra_dict``, one dict or a list of them) when ``remove()`` is called; also a context
    manager."""

    def __init__(self, hooks_dict, *, extra_dict=None):
        super().__init__(hooks_dict)
        if isinstance(extra_dict, dict):
            self.extra_dicts = (extra_dict,)
        elif isinstance(extra_dict, list):
            self.extra_dicts = tuple(extra_dict)
        else:
            self.extra_dicts = ()

    def remove(self):
        super().remove()
        for d in self.extra_dicts:
            d.pop(self.id, None)


def add_hook(hooks, hook, prepend=False, extra_dict=None):
    handle = RemovableHandle(hooks, extra_dict=extra_dict)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


class _WrappedHook:
    """A hook that gets its (weakly referenced) module as first argument."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if module is not None:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self):
        state = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            state["module"] = self.module()
        return state

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


# ------------------------------------------------------------------ global module hooks
_global_buffer_registration_hooks: dict = OrderedDict()
_global_module_registration_hooks: dict = OrderedDict()
_global_parameter_registration_hooks: dict = OrderedDict()
_global_backward_pre_hooks: dict = OrderedDict()
_global_backward_hooks: dict = OrderedDict()
_global_forward_pre_hooks: dict = OrderedDict()
_global_forward_hooks: dict = OrderedDict()
_global_forward_hooks_always_called: dict = OrderedDict()
_global_forward_hooks_with_kwargs: dict = OrderedDict()
_global_is_full = [None]   # None, True (full backward hooks) or False (legacy ones)
# set when a global forward/backward hook is registered; Module.__call__ tests only this
# (the hooked path re-checks the dicts and clears it once they are empty again)
_global_flag = [False]


def any_global_hooks():
    return bool(_global_forward_pre_hooks or _global_forward_hooks or _global_backward_hooks
                or _global_backward_pre_hooks)


def _add_global(hooks, hook, extra_dict=None):
    _global_flag[0] = True
    return add_hook(hooks, hook, extra_dict=extra_dict)


def register_module_buffer_registration_hook(hook):
    """Global hook ``hook(module, name, buffer) -> None or new buffer`` on register_buffer."""
    return add_hook(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    """Global hook ``hook(module, name, submodule) -> None or new submodule``."""
    return add_hook(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    """Global hook ``hook(module, name, param) -> None or new parameter``."""
    return add_hook(_global_parameter_registration_hooks, hook)


def register_module_forward_pre_hook(hook):
    """Global forward pre-hook, run before every module's own pre-hooks."""
    return _add_global(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """Global forward hook, run before every module's own forward hooks."""
    h = _add_global(_global_forward_hooks, hook,
                 extra_dict=[_global_forward_hooks_always_called,
                             _global_forward_hooks_with_kwargs])
    if with_kwargs:
        _global_forward_hooks_with_kwargs[h.id] = True
    if always_call:
        _global_forward_hooks_always_called[h.id] = True
    return h


def _add_global_backward_hook(hook, full):
    if _global_is_full[0] is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _global_is_full[0] = full
    return _add_global(_global_backward_hooks, hook)


def register_module_backward_hook(hook):
    """Global legacy (non-full) backward hook."""
    return _add_global_backward_hook(hook, full=False)


def register_module_full_backward_pre_hook(hook):
    """Global full backward pre-hook ``hook(module, grad_output)``."""
    return _add_global(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    """Global full backward hook ``hook(module, grad_input, grad_output)``."""
    return _add_global_backward_hook(hook, full=True)


# ------------------------------------------------------------------ full backward hooks
class BackwardHookFunction(Function):
    """Identity on its tensor arguments; its graph node is where module backward hooks
    see and replace gradients."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


def _pack_with_none(indices, values, size):
    res = [None] * size
    for idx, val in zip(indices, values):
        res[idx] = val
    return tuple(res)


class BackwardHook:
    """Runs a module's full backward (pre-)hooks once the gradients with respect to its
    outputs and then its inputs are known (``torch.utils.hooks.BackwardHook``)."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    def _set_user_hook(self, grad_fn):
        def hook(grad_input, _):
            if self.grad_outputs is None:
                return None   # the outputs' gradients never came: nothing to report
            res = _pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of "
                                       f"grad_input, got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return tuple(res[i] for i in self.input_tensors_index)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in idx]
        if not (any(t.requires_grad for t in tensors) and STATE.grad_enabled):
            return args, None
        new = BackwardHookFunction.apply(*tensors)
        if len(new) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input "
                               "Tensors.")
        grad_fns = [t.grad_fn for t in new if t.grad_fn is not None
                    and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if not grad_fns:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue "
                               "with a code sample to reproduce this.")
        fn(grad_fns[0])
        arg_list = list(args)
        for i, v in zip(idx, new):
            arg_list[i] = v
        out = tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)
        return out, idx

    def setup_input_hook(self, args):
        res, idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = idx
        return res

    def setup_output_hook(self, args):
        def fn(grad_fn):
            def hook(_, grad_output):
                self.grad_outputs = _pack_with_none(self.output_tensors_index, grad_output,
                                                    self.n_outputs)
                if self.user_pre_hooks:
                    expected = len(self.grad_outputs)
                    for pre in self.user_pre_hooks:
                        r = pre(self.module, self.grad_outputs)
                        if r is None:
                            continue
                        if len(r) != expected:
                            raise RuntimeError("Backward pre hook returned an invalid number "
                                               f"of grad_output, got {len(r)}, but expected "
                                               f"{expected}")
                        self.grad_outputs = r
                local = self.grad_outputs
                if self.input_tensors_index is None:
                    warnings.warn(
                        "Full backward hook is firing when gradients are computed with "
                        "respect to module outputs since no inputs require gradients. See "
                        "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                        "#torch.nn.Module.register_full_backward_hook for more details.",
                        stacklevel=_caller_level())  # the user's backward(), as in PyTorch
                    grad_inputs = _pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        r = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if r is not None and not (isinstance(r, tuple)
                                                  and all(e is None for e in r)):
                            raise RuntimeError(
                                "Backward hook for Modules where no input requires gradient "
                                "should always return None or None for all gradients.")
                    self.grad_outputs = None
                if local is not None:
                    return tuple(local[i] for i in self.output_tensors_index)
                return None

            grad_fn.register_hook(hook)

        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = idx
        return res if is_tuple else res[0]


# ------------------------------------------------------------------ the hooked call
def _always_called(module, hook_id):
    return (hook_id in module._forward_hooks_always_called
            or hook_id in _global_forward_hooks_always_called)


def call_with_hooks(module, forward, args, kwargs):
    """``Module.__call__`` when the module or the globals have hooks (PyTorch's order:
    global then module forward pre-hooks, forward, global then module forward hooks)."""
    result = None
    called = set()

    def inner():
        nonlocal result, args, kwargs
        pre_bw = []
        if module._backward_pre_hooks or _global_backward_pre_hooks:
            pre_bw = [*_global_backward_pre_hooks.values(),
                      *module._backward_pre_hooks.values()]
        full, legacy = [], []
        if module._backward_hooks or _global_backward_hooks:
            full, legacy = module._get_backward_hooks()
        for hook_id, hook in (*_global_forward_pre_hooks.items(),
                              *module._forward_pre_hooks.items()):
            if hook_id in module._forward_pre_hooks_with_kwargs:
                r = hook(module, args, kwargs)
                if r is not None:
                    if isinstance(r, tuple) and len(r) == 2:
                        args, kwargs = r
                    else:
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {r}.")
            else:
                r = hook(module, args)
                if r is not None:
                    args = r if isinstance(r, tuple) else (r,)
        bw_hook = None
        if full or pre_bw:
            bw_hook = BackwardHook(module, full, pre_bw)
            args = bw_hook.setup_input_hook(args)
        result = forward(*args, **kwargs)
        for hook_id, hook in (*_global_forward_hooks.items(), *module._forward_hooks.items()):
            if _always_called(module, hook_id):
                called.add(hook_id)
            if hook_id in module._forward_hooks_with_kwargs or \
                    hook_id in _global_forward_hooks_with_kwargs:
                r = hook(module, args, kwargs, result)
            else:
                r = hook(module, args, result)
            if r is not None:
                result = r
        if bw_hook:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a "
                              f"Tensor or a tuple of Tensors but received {type(result)}",
                              stacklevel=2)
            result = bw_hook.setup_output_hook(result)
        if legacy:
            var = result
            while not isinstance(var, Tensor):
                if isinstance(var, dict):
                    var = next(v for v in var.values() if isinstance(v, Tensor))
                else:
                    var = var[0]
            if var.grad_fn is not None:
                for hook in legacy:
                    var.grad_fn.register_hook(_WrappedHook(hook, module))
        return result

    try:
        return inner()
    except Exception:
        for hook_id, hook in (*_global_forward_hooks.items(), *module._forward_hooks.items()):
            if not _always_called(module, hook_id) or hook_id in called:
                continue
            is_global = hook_id in _global_forward_hooks
            try:
                if not is_global and hook_id in module._forward_hooks_with_kwargs:
                    r = hook(module, args, kwargs, result)
                else:
                    r = hook(module, args, result)
                if r is not None:
                    result = r
            except Exception as e:  # noqa: BLE001 - PyTorch silences it with a warning
                what = "global module" if is_global else "module"
                warnings.warn(f"{what} forward hook with ``always_call=True`` raised an "
                              "exception that was silenced as another error was raised in "
                              f"forward: {str(e)}", stacklevel=2)
        raise
