"""Module.state_dict / load_state_dict and their hooks (mixed into nn.Module).

Same keys, ``_metadata``, hooks, override points (``_save_to_state_dict``,
``_load_from_state_dict``) and error texts as PyTorch. One difference: a load that fails
(missing/unexpected keys with ``strict=True``, size mismatches, bad values) leaves every
parameter and buffer as it was; PyTorch copies the entries it could before raising. Writes
made by the default ``_load_from_state_dict`` are logged and undone on failure.
"""

from __future__ import annotations

import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ..._tensor import Tensor
from ...autograd import no_grad
from ..parameter import Parameter, is_lazy
from ._hooks import _WrappedHook, add_hook

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


_UNDO: list = []   # stack of undo logs, one per load_state_dict in progress


def _record(undo_fn):
    if _UNDO:
        _UNDO[-1].append(undo_fn)


def _copy_into(param, value):
    old = Tensor._make(param._value, param._device)
    with no_grad():
        param.copy_(value)

    def undo():
        with no_grad():
            param.copy_(old)

    _record(undo)


def _assign(module, name, value):
    store = module._parameters if name in module._parameters else module._buffers
    old = store[name]
    setattr(module, name, value)

    def undo():
        store[name] = old

    _record(undo)


def _overrides(module, method):
    return getattr(type(module), method) is not getattr(StateDictMixin, method)


class StateDictMixin:
    """state_dict, load_state_dict and the hooks around them."""

    def _register_state_dict_hook(self, hook):
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via "
                               "register_state_dict_post_hook")
        return add_hook(self._state_dict_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata) -> None`` after state_dict."""
        hook._from_public_api = True
        return add_hook(self._state_dict_hooks, hook)

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars) -> None`` before state_dict."""
        return add_hook(self._state_dict_pre_hooks, hook)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        return add_hook(self._load_state_dict_pre_hooks,
                        _WrappedHook(hook, self if with_module else None))

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs) -> None`` before this module's entries are loaded."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys) -> None`` after load_state_dict; it may edit the
        key lists in place."""
        return add_hook(self._load_state_dict_post_hooks, hook)

    def get_extra_state(self):
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
            "bug-report.yml to report this bug.")

    def set_extra_state(self, state):
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
            "bug-report.yml to report this bug.")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # an uninitialized entry of a lazy module is saved as it is (detaching gives it a shape)
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars or is_lazy(param) \
                    else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars or is_lazy(buf) else buf.detach()
        if _overrides(self, "get_extra_state"):
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of every parameter and persistent buffer (detached unless
        ``keep_vars``), keyed by dotted name, with ``_metadata`` (module versions)."""
        if args:
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.state_dict for details.", FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            r = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if r is not None:
                    destination = r
            elif r is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Load this module's own entries (not its children's) from ``state_dict``."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        persistent = {k: v for k, v in self._buffers.items()
                      if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(),
                                                        persistent.items()) if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected '
                                  "torch.Tensor or Tensor-like object from checkpoint but "
                                  f"received {type(value)}")
                continue
            lazy = is_lazy(param)
            if not lazy and param.ndim == 0 and value.ndim == 1 and value.shape[0] == 1:
                value = value[0]
            if not lazy and value.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{value.shape} from checkpoint, the shape in current model "
                                  f"is {param.shape}.")
                continue
            try:
                if assign:
                    if isinstance(param, Parameter):
                        if not isinstance(value, Parameter):
                            value = Parameter(value, requires_grad=param.requires_grad)
                        else:
                            value.requires_grad_(param.requires_grad)
                    _assign(self, name, value)
                elif lazy:
                    param.materialize(value.shape)
                    _copy_into(param, value)
                else:
                    if param.is_meta and not value.is_meta:
                        warnings.warn(
                            f"for {key}: copying from a non-meta parameter in the checkpoint to "
                            "a meta parameter in the current model, which is a no-op. (Did you "
                            "mean to pass `assign=True` to assign items in the state dictionary "
                            "to their corresponding key in the module instead of copying them "
                            "in place?)", stacklevel=4)
                    _copy_into(param, value)
            except (RuntimeError, TypeError, ValueError) as ex:
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions '
                                  f"in the model are {param.size()} and whose dimensions in the "
                                  f"checkpoint are {value.size()}, an exception occurred : "
                                  f"{ex.args}.")
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if _overrides(self, "set_extra_state"):
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head = key[len(prefix):].split(".", 1)
                    if len(head) > 1:
                        if head[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif head[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy ``state_dict``'s entries into this module's parameters and buffers (or, with
        ``assign=True``, make them the parameters). Returns ``_IncompatibleKeys``; raises
        RuntimeError with PyTorch's text on any error, leaving the module unchanged."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items()
                                 if k.startswith(child_prefix)}, child_prefix)
            keys = _IncompatibleKeys(missing, unexpected)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, keys) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace.")

        log = []
        _UNDO.append(log)
        try:
            load(self, state_dict)
            if strict:
                if unexpected:
                    errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected)))
                if missing:
                    errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in missing)))
            if errors:
                raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                    type(self).__name__, "\n\t".join(errors)))
        except BaseException:
            for undo in reversed(log):
                undo()
            raise
        finally:
            _UNDO.pop()
        if _UNDO:   # a load nested in another: the outer one may still have to undo ours
            _UNDO[-1].extend(log)
        return _IncompatibleKeys(missing, unexpected)
