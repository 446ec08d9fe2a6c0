"""``torch.utils.swap_tensors``: two tensor objects exchange everything they are (class,
attributes, data, autograd state), each keeping its identity."""

from __future__ import annotations

import copyreg
import weakref

from .._core.graph import SavedOutputRef
from .._core.tensor_base import instance_dict

_POISONED = (
    "Trying to execute AccumulateGrad node that was poisoned by swap_tensors this can happen "
    "when you try to run backward on a tensor that was swapped. For a module m with "
    "`torch.__future__.set_swap_module_params_on_conversion(True)` you should not change the "
    "device or dtype of the module (e.g. `m.cpu()` or `m.half()`) between running forward and "
    "backward. To resolve this, please only change the device/dtype before running forward (or "
    "after both forward and backward).")


def _poisoned(grad_outputs):
    raise RuntimeError(_POISONED)


def _user_weakrefs(t):
    """The weak references to ``t`` other than the autograd graph's own."""
    return [r for r in weakref.getweakrefs(t) if type(r) is not SavedOutputRef]


def swap_tensors(t1, t2):
    """Swap the contents of tensors ``t1`` and ``t2``: afterwards ``t1`` is what ``t2`` was
    (class, data, ``requires_grad``, ``.grad``, attributes) and the reverse, while every
    reference to either object stays valid. A leaf's gradient accumulator from before the swap
    is poisoned, as in PyTorch: a backward through a graph recorded before the swap raises."""
    if _user_weakrefs(t1):
        raise RuntimeError("Cannot swap t1 because it has weakref associated with it")
    if _user_weakrefs(t2):
        raise RuntimeError("Cannot swap t2 because it has weakref associated with it")
    if set(copyreg._slotnames(t1.__class__)) != set(copyreg._slotnames(t2.__class__)):
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")
    for t in (t1, t2):   # the accumulator's node points at this object: poison, then forget it
        acc = instance_dict(t).pop("_acc", None)
        if acc is not None:
            acc.register_prehook(_poisoned)
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    # the raw instance dicts, jtorch's fields included (Tensor.__dict__ shows only a program's)
    own1, own2 = instance_dict(t1), instance_dict(t2)
    d1, d2 = dict(own1), dict(own2)
    own1.clear()
    own1.update(d2)
    own2.clear()
    own2.update(d1)
