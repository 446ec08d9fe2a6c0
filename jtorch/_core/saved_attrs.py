"""``grad_fn._saved_<name>``: PyTorch's debugging access to the values a node saved.

PyTorch names a node's saved values after the op's schema: ``_saved_self`` / ``_saved_other``
for the tensor inputs its formula reads (``MulBackward0``), ``_saved_result`` for an output it
reads (``ExpBackward0``), ``_saved_<arg>`` for the other arguments (``PowBackward0``'s
``_saved_exponent``). jtorch's nodes keep the op's arguments and which of its tensors PyTorch's
formula saves (``OpDef.saves``), so these are answered from them:

* a tensor input PyTorch saves is returned as the very tensor object (``_saved_self is a``), or
  None where it was not saved (``mul``'s ``self`` when ``other`` needs no gradient); under
  ``saved_tensors_hooks`` each read calls the unpack hook on what the pack hook returned;
* ``_saved_result`` is a new tensor of the output's value (not the output object), computed
  again from the node's inputs when the output no longer exists;
* a non-tensor argument is returned as given.

A name made of a parameter of the op (``self`` for its first tensor) or ``result`` that jtorch
cannot answer (a saved output of an op whose formula jtorch does not know reads it; a value its
hooks did not pack; ``_raw_saved_*``'s SavedTensor objects) raises NotImplementedError naming
it; any other name is an AttributeError, as in PyTorch. Reading after the graph was freed is
PyTorch's RuntimeError.
"""

from __future__ import annotations

import re

from .errors import missing_attribute
from .tensor_base import TensorBase

_RESULT = re.compile(r"result(\d*)$")


class _SlotMarker:
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


def _unsupported(node, name, why):
    # an AttributeError too, so that ``hasattr(grad_fn, "_saved_start")`` (torch-pruning's test
    # of a node's kind) answers False rather than raising
    return missing_attribute(f"{type(node).__name__}.{name} ({why})")


_UINT64 = (1 << 64) - 1
_INT64_MAX = (1 << 63) - 1


def _index_saved(node, name):
    """``_saved_*`` of a basic-index view node (``x[:, 1:-1]``): PyTorch runs the index as one
    select/slice/unsqueeze per item, and the node is the last one's, saving its raw arguments
    (a negative one read back as its unsigned 64-bit value, as PyTorch's binding shows it; an
    omitted end as INT64_MAX). ``node.index_args``: (input shape, the static index)."""
    shape, index = node.index_args
    sizes, d, last = list(shape), 0, {}
    for it in index:
        if it is None:
            last = {"dim": d}
            sizes.insert(d, 1)
            d += 1
        elif isinstance(it, slice):
            if it != slice(None) or len(index) == 1:
                step = 1 if it.step is None else int(it.step)
                last = {"dim": d, "start": 0 if it.start is None else int(it.start) & _UINT64,
                        "end": _INT64_MAX if it.stop is None else int(it.stop) & _UINT64,
                        "step": step, "self_sym_sizes": tuple(sizes)}
                sizes[d] = len(range(*it.indices(sizes[d])))
            d += 1
        else:
            last = {"dim": d, "index": int(it) & _UINT64, "self_sym_sizes": tuple(sizes)}
            del sizes[d]
    key = name[len("_saved_"):]
    if key not in last:
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '{name}'")
    return last[key]


def saved_attribute(node, name):
    """The value of ``node.<name>`` for a ``_saved_*`` / ``_raw_saved_*`` name."""
    from . import graph, saved_hooks

    raw = name.startswith("_raw_saved_")
    key = name[len("_raw_saved_" if raw else "_saved_"):]
    if node.index_args is not None and name.startswith("_saved_"):
        return _index_saved(node, name)
    kernel = node.kernel
    missing = AttributeError(f"'{type(node).__name__}' object has no attribute '{name}'")
    if kernel is None:
        raise missing
    opdef = kernel.opdef
    spec = kernel.spec
    bound = spec.bind_by_name(opdef.params, [_SlotMarker(i) for i in range(len(spec.slots))])
    if key not in bound and key == "self" and opdef.params:
        key = opdef.params[0]   # PyTorch's schemas call the first tensor ``self``
    result = _RESULT.match(key)
    if key not in bound and result is None:
        if key in opdef.params:
            raise _unsupported(node, name, "the argument was left at its default")
        raise missing
    if raw:
        raise _unsupported(node, name, "SavedTensor objects are not implemented")
    if result is not None:
        if node.freed:
            raise RuntimeError(graph.FREED)
        return _saved_output(node, name, int(result.group(1) or 0))
    value = bound[key]
    if not isinstance(value, _SlotMarker):
        if isinstance(value, (list, tuple)) and any(isinstance(v, _SlotMarker) for v in value):
            raise _unsupported(node, name, "saved tensor lists are not implemented")
        return value   # a static argument, as given (still there after a backward)
    i = value.index
    if node.freed:
        raise RuntimeError(graph.FREED)
    if node.packed is not None:   # under saved_tensors_hooks: the hooks own the values
        unpack_hook, packed, holes = node.packed
        if i in packed:
            return saved_hooks.unpack_tensor(unpack_hook, packed[i])
        if i in holes:
            raise _unsupported(node, name, "jtorch's backward of this op does not save it")
    v = node.vals[i]
    if not hasattr(v, "shape"):
        if opdef.name in graph._WRAPS_NUMBERS:   # PyTorch wraps it in a 0-d tensor input
            import jtorch
            return jtorch.tensor(v)
        return v   # a Python number argument
    slots = node.saved_slots
    if slots is None:
        if node.saved:   # a node not made by Node.create: which slot each entry is, unknown
            raise _unsupported(node, name, "this node does not record its saved slots")
        # the op's formula saves no input tensor (add, sum, views) or only its outputs
        raise missing
    for slot, (t, version) in zip(slots, node.saved):
        if slot == i:
            if t._version != version:
                raise graph._modified_error(t, version)
            return t
    return None   # PyTorch saved it only if another input needed a gradient


def _saved_output(node, name, index):
    from . import graph

    if node.kernel.opdef.saves != "output":
        raise _unsupported(node, name, "jtorch's formula of this op reads its inputs")
    for ref, i, version in node.saved_out or ():
        if i != index:
            continue
        out = ref()
        if out is None:   # the output is gone: its value again from the node's inputs
            outs = node.kernel.forward(*node.vals)
            arr = outs[i] if isinstance(outs, (tuple, list)) else outs
            t = TensorBase._make(arr, graph.device_of(arr))
            t._node, t._out_idx = node, i
            return t
        if out._version != version:
            raise graph._modified_error(out, version, (node, i))
        t = TensorBase._make(out._array, out._device)
        t._node, t._out_idx = node, i
        return t
    if node.packed is not None:
        raise _unsupported(node, name, "jtorch's saved_tensors_hooks pack the op's input")
    raise AttributeError(f"'{type(node).__name__}' object has no attribute '{name}'")
