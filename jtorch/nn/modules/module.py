"""nn.Module: parameters, buffers and submodules registered by attribute assignment; hooks
around ``__call__``; conversions (``to``, ``float``...) that keep parameter identity.

Hook running, state dicts and conversions live in ``_hooks.py``, ``_state_dict.py`` and
``_conversions.py``. ``__call__`` with
no hooks anywhere is one test of four dicts and the global hook dicts, then ``forward``.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TypeVar

from ..._core.errors import not_implemented
from ..._core.state import structure_changed
from ..._ops.typeinfo import typename
from ..._tensor import Tensor
from ..parameter import Buffer, Parameter
from . import _hooks as module_hooks
from ._conversions import ConversionsMixin
from ._hooks import (
    RemovableHandle,  # noqa: F401
    _global_backward_hooks,
    _global_backward_pre_hooks,
    _global_flag,
    add_hook,
    call_with_hooks,
    register_module_backward_hook,  # noqa: F401 - torch.nn.modules.module's names
    register_module_buffer_registration_hook,  # noqa: F401
    register_module_forward_hook,  # noqa: F401
    register_module_forward_pre_hook,  # noqa: F401
    register_module_full_backward_hook,  # noqa: F401
    register_module_full_backward_pre_hook,  # noqa: F401
    register_module_module_registration_hook,  # noqa: F401
    register_module_parameter_registration_hook,  # noqa: F401
)
from ._state_dict import _EXTRA_STATE_KEY_SUFFIX, StateDictMixin, _IncompatibleKeys  # noqa: F401

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_backward_hook",
           "register_module_full_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook",
           "register_module_parameter_registration_hook", "Module"]


def _addindent(s, n):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join((n * " ") + ln if ln.strip() else "" for ln in lines)


def _forward_unimplemented(self, *input):
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function')


def _registration_hooks(hooks, module, name, value):
    """``value`` after the global registration ``hooks`` (each may return a replacement)."""
    for hook in hooks.values():
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value


class Module(StateDictMixin, ConversionsMixin):
    """Base class for all neural network modules (``torch.nn.Module``)."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False
    _compiled_call_impl = None
    _has_hooks = False   # set by the register_*_hook methods: __call__ tests only this flag
    T_destination = TypeVar("T_destination", bound=dict)

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if self.call_super_init is False and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                            f"but {len(args) + 1} were given")
        s = object.__setattr__
        s(self, "training", True)
        s(self, "_parameters", {})
        s(self, "_buffers", {})
        s(self, "_non_persistent_buffers_set", set())
        s(self, "_backward_pre_hooks", OrderedDict())
        s(self, "_backward_hooks", OrderedDict())
        s(self, "_is_full_backward_hook", None)
        s(self, "_forward_hooks", OrderedDict())
        s(self, "_forward_hooks_with_kwargs", OrderedDict())
        s(self, "_forward_hooks_always_called", OrderedDict())
        s(self, "_forward_pre_hooks", OrderedDict())
        s(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        s(self, "_state_dict_hooks", OrderedDict())
        s(self, "_state_dict_pre_hooks", OrderedDict())
        s(self, "_load_state_dict_pre_hooks", OrderedDict())
        s(self, "_load_state_dict_post_hooks", OrderedDict())
        s(self, "_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # ------------------------------------------------------------ call
    def __call__(self, *args, **kwargs):
        if self._has_hooks or _global_flag[0]:
            return self._hooked_call(args, kwargs)
        return self.forward(*args, **kwargs)

    def _hooked_call(self, args, kwargs):
        own = (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
               or self._backward_pre_hooks)
        glob = module_hooks.any_global_hooks()
        if own or glob:
            return call_with_hooks(self, self.forward, args, kwargs)
        # every hook was removed since: back to the fast path
        object.__setattr__(self, "_has_hooks", False)
        _global_flag[0] = False
        return self.forward(*args, **kwargs)

    def _slow_forward(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    _call_impl = __call__
    _wrapped_call_impl = __call__

    def compile(self, *args, **kwargs):
        """``Module.compile()``: from now on, calling this module runs it compiled (as
        ``jtorch.compile(self, *args, **kwargs)``); its state_dict keys do not change."""
        from ... import compiler  # the compiler is a layer above nn, needed only here

        compiled = compiler.compile(self, *args, **kwargs)
        cls = type(self)
        sub = type(cls.__name__, (cls,), {
            "__call__": lambda m, *a, **k: compiled(*a, **k),
            "__module__": cls.__module__, "__qualname__": cls.__qualname__,
            "_jtorch_compiled_from": cls})
        object.__setattr__(self, "__class__", sub)

    # ------------------------------------------------------------ registration
    def register_buffer(self, name, tensor, persistent=True):
        """Add a buffer (a tensor that is state but not a parameter); non-persistent
        buffers are left out of state_dict."""
        structure_changed()
        self._check_new_name("buffer", "_buffers", name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = _registration_hooks(
            module_hooks._global_buffer_registration_hooks, self, name, tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add a parameter (a Parameter or None) under ``name``."""
        structure_changed()
        self._check_new_name("parameter", "_parameters", name)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as "
                             "a function of another Tensor, compute the value in the "
                             "forward() method.")
        self._parameters[name] = _registration_hooks(
            module_hooks._global_parameter_registration_hooks, self, name, param)

    def _check_new_name(self, kind, store, name):
        """PyTorch's checks of a new buffer or parameter name (``store``: its dict)."""
        if store not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[store]:
            raise KeyError(f"attribute '{name}' already exists")

    def add_module(self, name, module):
        """Add a child module (or None) under ``name``."""
        structure_changed()
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = _registration_hooks(
            module_hooks._global_module_registration_hooks, self, name, module)

    def register_module(self, name, module):
        """Alias for add_module."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """The submodule at dotted path ``target`` ("" is self)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Replace (or, unless ``strict``, add) the submodule at dotted path ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target):
        """The parameter at dotted path ``target``."""
        _, name, param = self._get_attribute(target)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at dotted path ``target``."""
        owner, name, buf = self._get_attribute(target)
        if name not in owner._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return buf

    def _get_attribute(self, target):
        """(owning submodule, name, value) of the attribute at dotted path ``target``."""
        path, _, name = target.rpartition(".")
        owner = self.get_submodule(path)
        if not hasattr(owner, name):
            raise AttributeError(owner._get_name() + " has no attribute `" + name + "`")
        return owner, name, getattr(owner, name)

    # ------------------------------------------------------------ attributes
    def __getattr__(self, name):
        d = self.__dict__
        if "_parameters" in d:
            p = d["_parameters"]
            if name in p:
                return p[name]
        if "_buffers" in d:
            b = d["_buffers"]
            if name in b:
                return b[name]
        if "_modules" in d:
            m = d["_modules"]
            if name in m:
                return m[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__

        def remove_from(*stores):
            for s in stores:
                if name in s:
                    if isinstance(s, dict):
                        del s[name]
                    else:
                        s.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module) or (modules is not None and name in modules):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            if isinstance(value, Module):
                remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            elif value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = _registration_hooks(
                module_hooks._global_module_registration_hooks, self, name, value)
            structure_changed()
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        structure_changed()
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = (dir(self.__class__) + list(self.__dict__) + list(self._parameters)
                + list(self._modules) + list(self._buffers))
        return sorted(k for k in keys if not k[0].isdigit())

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs",
                     "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                     "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                     "_load_state_dict_post_hooks", "_backward_pre_hooks"):
            if name not in self.__dict__:
                object.__setattr__(self, name, OrderedDict())
        if "_non_persistent_buffers_set" not in self.__dict__:
            object.__setattr__(self, "_non_persistent_buffers_set", set())
        if "_is_full_backward_hook" not in self.__dict__:
            object.__setattr__(self, "_is_full_backward_hook", None)
        object.__setattr__(self, "_has_hooks", bool(
            self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
            or self._backward_pre_hooks))

    # ------------------------------------------------------------ hooks
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` (or ``hook(module, args, kwargs)`` with ``with_kwargs``)
        before forward; it may return new args (and kwargs)."""
        object.__setattr__(self, "_has_hooks", True)
        h = add_hook(self._forward_pre_hooks, hook, prepend,
                     extra_dict=self._forward_pre_hooks_with_kwargs)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[h.id] = True
        return h

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)``) after
        forward; it may return a new output. ``always_call`` runs it even if forward
        raised."""
        object.__setattr__(self, "_has_hooks", True)
        h = add_hook(self._forward_hooks, hook, prepend,
                     extra_dict=[self._forward_hooks_with_kwargs,
                                 self._forward_hooks_always_called])
        if with_kwargs:
            self._forward_hooks_with_kwargs[h.id] = True
        if always_call:
            self._forward_hooks_always_called[h.id] = True
        return h

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` when the gradients of the outputs are known; it may
        return new grad_output."""
        object.__setattr__(self, "_has_hooks", True)
        return add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` when the gradients of the inputs are
        known; it may return new grad_input."""
        return self._add_backward_hook(hook, prepend, full=True)

    def register_backward_hook(self, hook):
        """Deprecated: hook on the grad_fn of the module's (first) output."""
        return self._add_backward_hook(hook, False, full=False)

    def _add_backward_hook(self, hook, prepend, full):
        if self._is_full_backward_hook is (not full):
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = full
        object.__setattr__(self, "_has_hooks", True)
        return add_hook(self._backward_hooks, hook, prepend)

    def _get_backward_hooks(self):
        full, legacy = [], []
        if module_hooks._global_is_full[0] is True:
            full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        if module_hooks._global_is_full[0] is False:
            legacy += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            legacy += self._backward_hooks.values()
        return full, legacy

    def _get_backward_pre_hooks(self):
        return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    # ------------------------------------------------------------ iteration
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(dotted name, parameter) pairs; shared parameters once unless
        ``remove_duplicate=False``."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                       remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self):
        memo = set()
        for name, m in self._modules.items():
            if m is not None and m not in memo:
                memo.add(m)
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, m in self._modules.items():
            if m is None:
                continue
            yield from m.named_modules(memo, prefix + ("." if prefix else "") + name,
                                       remove_duplicate)

    def modules(self, remove_duplicate=True):
        for _, m in self.named_modules(remove_duplicate=remove_duplicate):
            yield m

    def apply(self, fn):
        """Call ``fn`` on every submodule (children first), then on self."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------ modes
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def share_memory(self):
        """Not implemented: raises NotImplementedError.

        Differences from PyTorch: jtorch's parameters are JAX buffers, which other processes
        cannot write into, so updates made in child processes (Hogwild training) could never
        reach this module; a no-op would let such a program run and silently train nothing.
        """
        raise not_implemented(
            "torch.nn.Module.share_memory",
            instead="one process, or sending state_dict() between processes with a Queue")

    # ------------------------------------------------------------ repr
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """Extra text shown in this module's repr (override in subclasses)."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(m), 2)
                       for key, m in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
