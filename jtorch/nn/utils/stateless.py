"""nn.utils.stateless.functional_call: call a module with some parameters and buffers
temporarily replaced by given tensors (swapped into the module's dicts, then swapped back)."""

from __future__ import annotations

import contextlib
import warnings

from ..._tensor import Tensor

__all__ = ["functional_call"]

_MISSING = object()


def _swap_tensor(module, name, tensor):
    """Put ``tensor`` at ``module.<name>`` (parameter/buffer dicts directly, so any Tensor
    fits); returns what was there (``_MISSING`` if nothing)."""
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    for store in (module._parameters, module._buffers):
        if name in store:
            orig = store[name]
            if tensor is _MISSING:
                del store[name]
            else:
                store[name] = tensor
            return orig
    orig = getattr(module, name) if hasattr(module, name) else _MISSING
    if orig is not _MISSING and orig is not None and not isinstance(orig, Tensor):
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return orig


def _owner(module, path):
    prefix, _, attr = path.rpartition(".")
    mod = module
    if prefix:
        for part in prefix.split("."):
            try:
                mod = getattr(mod, part)
            except AttributeError as ex:
                raise AttributeError(f"{mod._get_name()} has no attribute `{part}`") from ex
    return mod, attr


def _swap_all(module, named):
    done = {}
    try:
        for name, tensor in named.items():
            mod, attr = _owner(module, name)
            done[name] = _swap_tensor(mod, attr, tensor)
    except Exception:
        for name, orig in done.items():
            mod, attr = _owner(module, name)
            _swap_tensor(mod, attr, orig)
        raise
    return done


def _all_named_tensors(module):
    out = dict(module.named_parameters(remove_duplicate=False))
    out.update(module.named_buffers(remove_duplicate=False))
    return out


def _untie(module, given):
    """Extend ``given`` to every name tied (same tensor) to a given name."""
    by_tensor = {}
    for name, t in _all_named_tensors(module).items():
        by_tensor.setdefault(id(t), set()).add(name)
    tied = {n: names for names in by_tensor.values() if len(names) > 1 for n in names}
    given_tied = {n for n in given if n in tied}
    for n in given_tied:
        names = tied[n]
        if len(names & given_tied) > 1 and len({id(given[k]) for k in names & given_tied}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, "
                             "which are tied. Consider using tie_weights=False")
    out = dict(given)
    for n in given_tied:
        for t in tied[n]:
            out[t] = given[n]
    return out


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    named = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        valid = set(_all_named_tensors(module))
        missing, unexpected = sorted(valid - set(named)), sorted(set(named) - valid)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(msgs)))
    orig = {}
    try:
        orig = _swap_all(module, named)
        yield
    finally:
        new = _swap_all(module, orig)
        # tensors the forward re-assigned (e.g. running stats) go back to the caller's dict
        parameters_and_buffers.update({k: new[k] for k in parameters_and_buffers if k in new})


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                     tie_weights=True, strict=False):
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights,
                               strict=strict):
        return module(*args, **kwargs)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Run ``module(*args, **kwargs)`` with the named parameters/buffers in
    ``parameters_and_buffers`` standing in for the module's own (deprecated in PyTorch in
    favour of ``torch.func.functional_call``, which takes the same arguments)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)
