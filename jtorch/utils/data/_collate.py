"""default_collate / default_convert with PyTorch's rules, stacking on the host.

Each tensor leaf of a batch is stacked with NumPy and reaches the device in ONE transfer (one
``device_put`` of the stacked array). In a worker process the result stays a host tensor until
the main process unpickles it (see ``_worker``). Batches of tensors that already live on the
device (and may carry autograd history) are stacked with ``jtorch.stack`` instead.
"""

from __future__ import annotations

import collections.abc
import copy
import re

import numpy as np

from ..._ops.shape_copy import stack
from ..._tensor import Tensor
from . import _worker as worker

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}"
)


def _stack_tensors(batch):
    elem = batch[0]
    shape = tuple(elem.shape)
    for i, t in enumerate(batch):
        if tuple(t.shape) != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(shape)} at entry 0 and {list(t.shape)} at entry {i}")
    on_device = not worker.host_mode() and not any(worker.is_host(t) for t in batch)
    if on_device or any(t._requires_grad for t in batch):
        return stack(list(batch), 0)
    arrs = [worker.host_value(t) for t in batch]
    if len({a.dtype for a in arrs}) > 1:  # mixed dtypes: PyTorch's promotion via jtorch
        if worker.host_mode() and worker.get_worker_info() is not None:
            raise TypeError("jtorch's default_collate in a worker needs tensors of one dtype; "
                            f"got {sorted({str(a.dtype) for a in arrs})}")
        return stack([worker.to_device(a) for a in arrs], 0)
    out = np.stack(arrs, 0)
    in_worker = worker.get_worker_info() is not None
    return worker.host_tensor(out) if in_worker else worker.to_device(out)


def _as_leaf(arr):
    """A collated NumPy array as a tensor: host in workers, one transfer otherwise."""
    in_worker = worker.get_worker_info() is not None
    return worker.host_tensor(arr) if in_worker else worker.to_device(arr)


def _same_mapping_type(original, items):
    """``items`` (a dict) in the mapping type of ``original`` (PyTorch's rule: a copy of a
    mutable mapping updated with them, else the type built from them, else the dict)."""
    try:
        if isinstance(original, collections.abc.MutableMapping):
            clone = copy.copy(original)
            clone.update(items)
            return clone
        return type(original)(items)
    except TypeError:
        return items


def _same_sequence_type(original, items):
    """``items`` (a list) in the sequence type of ``original``, by the same rule."""
    try:
        if isinstance(original, collections.abc.MutableSequence):
            clone = copy.copy(original)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(original)(items)
    except TypeError:
        return items


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return _stack_tensors(batch)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([worker.host_tensor(np.array(b)) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return _as_leaf(np.asarray(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    return _as_leaf(np.asarray(batch, dtype=np.float64))


def collate_int_fn(batch, *, collate_fn_map=None):
    return _as_leaf(np.asarray(batch, dtype=np.int64))


def collate_bool_fn(batch, *, collate_fn_map=None):
    return _as_leaf(np.asarray(batch, dtype=np.bool_))


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    bool: collate_bool_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def collate(batch, *, collate_fn_map=None):
    """The general collate: ``collate_fn_map`` maps element types to collate functions."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _same_mapping_type(elem, {key: collate([d[key] for d in batch],
                                                       collate_fn_map=collate_fn_map)
                                          for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return transposed
        return _same_sequence_type(elem, transposed)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def default_collate(batch):
    """Stacks a list of samples into a batch, with PyTorch's rules.

    Tensors are stacked along a new first dimension; NumPy arrays become tensors of their
    dtype; Python floats become float64, ints int64, bools bool; strings and bytes stay lists;
    mappings, namedtuples and sequences are collated element-wise (tuples give lists).
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data):
    """Converts NumPy arrays (not of strings/objects) and scalars into tensors, recursively;
    what the DataLoader applies with ``batch_size=None``."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        if worker.is_host(data) and worker.get_worker_info() is None:
            return worker.to_device(data._array)
        return data
    if isinstance(data, (np.ndarray, np.bool_, np.number)) and elem_type.__name__ != "str_":
        if (elem_type.__name__ == "ndarray"
                and np_str_obj_array_pattern.search(data.dtype.str) is not None):
            return data
        return _as_leaf(np.array(data))
    if isinstance(data, collections.abc.Mapping):
        return _same_mapping_type(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _same_sequence_type(data, [default_convert(d) for d in data])
    return data
