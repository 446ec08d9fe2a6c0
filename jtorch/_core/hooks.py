"""Hook handles, tensor hooks, retain_grad and the tensor-side helpers of torch.autograd.graph.

A leaf's hooks live on the leaf (run before its AccumulateGrad); a non-leaf's on its grad_fn,
keyed by output index. Retained tensors are found at the start of each backward from a weak
set, so a retained gradient follows its tensor through later in-place ops, as in PyTorch.
"""

from __future__ import annotations

import weakref

from .tensor_base import TensorBase

_RETAINED = weakref.WeakSet()   # non-leaf tensors whose .grad is kept (retain_grad)


class RemovableHandle:
    """Removes a hook from its dict when ``remove()`` is called (also a context manager)."""

    _next_id = 0

    def __init__(self, hooks_dict):
        self.hooks_dict = hooks_dict
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self):
        self.hooks_dict.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _add_hook(d, hook):
    h = RemovableHandle(d)
    d[h.id] = hook
    return h


def register_tensor_hook(t, hook):
    if not t._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t._node is None:
        if t._hooks is None:
            t._hooks = {}
        return _add_hook(t._hooks, hook)
    node = t._node
    if node._pre_hooks is None:
        node._pre_hooks = {}
    return _add_hook(node._pre_hooks.setdefault(t._out_idx, {}), hook)


def register_post_accumulate_hook(t, hook):
    if not t._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t._node is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if t._post_hooks is None:
        t._post_hooks = {}
    return _add_hook(t._post_hooks, hook)


def retain_grad(t):
    """Keep the gradient of non-leaf ``t`` in ``t.grad``; it follows ``t`` through later
    in-place ops and is stored after t's other hooks ran, as in PyTorch."""
    if not t._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if t._node is None or t._retains:
        return
    t._retains = True
    _RETAINED.add(t)


def grad_assign_error(t, g):
    """PyTorch's error for ``t.grad = g`` with a wrong dtype or size."""
    if g.dtype != t.dtype:
        return RuntimeError(
            f"attempting to assign a gradient with dtype '{g.dtype.cpp_name}' to a "
            f"tensor with grad_dtype '{t.dtype.scalar_name}'. The gradient must match the "
            "tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
            "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set "
            "grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may "
            "break downstream systems that assume they match.")
    return RuntimeError(f"attempting to assign a gradient of size '{list(g.shape)}' to a tensor "
                        f"of size '{list(t.shape)}'. Please ensure that the gradient and the "
                        "tensor are the same size")


def increment_version(tensors):
    """``torch.autograd.graph.increment_version``: bump the version counters."""

    for t in (tensors,) if isinstance(tensors, TensorBase) else tensors:
        if t._base is None:
            t._version_counter += 1
        else:
            t._base._version_counter += 1
