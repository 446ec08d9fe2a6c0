"""The Tensor data type: a mutable handle on an immutable jax.Array, with its autograd fields.

``TensorBase`` holds what every layer above needs to know about a tensor and nothing more:
its array, device, gradient fields, version counter and, for a view, the link to its base.
Methods that run ops (``x.sum()``, ``x + y``, ``x.backward()``...) belong to the public
``jtorch.Tensor`` (jtorch/_tensor.py), a subclass defined once the op families exist; it
registers itself here, so every tensor the core makes is a ``jtorch.Tensor``.

Fields have class-level defaults and an instance sets only what differs: making a tensor sets
two attributes (this is on every op's path).
"""

from __future__ import annotations

import math
import operator
from collections.abc import MutableMapping

import jax
import numpy as np

from . import dtypes
from .device import host_commit, host_cpu, is_concrete_array, to_host
from .errors import concretization_error
from .state import STATE


class Size(tuple):
    """torch.Size: a tuple of ints with PyTorch's repr."""

    def __repr__(self):
        return f"torch.Size([{', '.join(str(int(s)) for s in self)}])"

    def numel(self):
        return math.prod(self)

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))


class ShapeOnlyStorage:
    """The ``_array`` of a tensor that has a shape and a dtype but no values: a sparse COO
    tensor's (its values live elsewhere) or a meta tensor's (it has none). Passed to a kernel
    it is not a JAX type, so dispatch hands the op to the handler registered for its class
    (``dispatch.register_storage_handler``); read as NumPy it raises PyTorch's error."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return math.prod(self.shape)


class SparseStorage(ShapeOnlyStorage):
    """A sparse COO tensor's storage: its indices and values are ordinary tensors in its
    ``_sparse`` field (jtorch/_ops/sparse.py)."""

    __slots__ = ()

    def __array__(self, *args, **kwargs):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() "
                        "first.")


class MetaStorage(ShapeOnlyStorage):
    """A tensor on the ``meta`` device: a shape and a dtype, never values (jtorch/_ops/meta.py:
    ops on it compute only their results' shapes and dtypes)."""

    __slots__ = ()

    def __array__(self, *args, **kwargs):
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")


class TensorBase:
    """The fields of a tensor. Instances are always of the public ``jtorch.Tensor`` class (or a
    subclass such as ``nn.Parameter``)."""

    # the storage: a jax.Array (a tracer inside a trace); for a view, as of _base_version
    _array = None
    _device = None
    # autograd
    _requires_grad = False
    _grad = None
    _node = None           # grad_fn: the graph node that produced this tensor
    _out_idx = 0           # which output of _node this is
    _acc = None            # a leaf's AccumulateGrad node, made on first use
    _hooks = None          # hooks on a leaf's gradient
    _post_hooks = None     # post-accumulate-grad hooks
    _retains = False       # retain_grad() was called on this non-leaf
    # versions: in-place writes bump the storage owner's counter (a view reads its base's)
    _version_counter = 0
    _data_writes = 0       # writes made through .data aliases: not counted in _version
    _data_alias = False    # made by .data (or a view of one): PyTorch gives it its own version
    # views (jtorch/_core/views.py)
    _base = None           # the tensor whose storage this views
    _chain = ()            # the view steps from _base: ((Kernel, output index or None), ...)
    _base_version = 0      # the base version this view's _array was derived at
    _layout = None         # (strides, storage offset), computed once when first asked
    _detached = False      # aliases made by detach()/.data: writes record no autograd on the base
    _detach_alias = False  # made by detach()/.data itself: not a view (Tensor._is_view)
    _overlap = False       # expanded views: in-place writes are an error
    _custom_fn_view = False  # a custom Function's output viewing an input (or a view of one):
    #                          in-place writes that autograd records are an error, as PyTorch's
    _has_views = False     # a view of this storage was made (in-place view ops look for them)
    _untyped_storage = None  # Tensor.untyped_storage()'s object, made on first use
    _host_copy = None      # (jax array, its NumPy value): see host_value
    _is_param = False
    _in_trace = False
    _inference = False     # made under inference_mode (Tensor.is_inference)
    _device_neutral = False  # a generator's key: reports cpu, serves (is moved to) any device
    _sparse = None         # a sparse COO tensor's (indices, values, coalesced); _array is then
    #                        a SparseStorage      # made while jtorch.compile traced a function

    __array_priority__ = 1000

    @classmethod
    def _make(cls, arr, device=None):
        t = object.__new__(_TENSOR_CLASS)
        if device is None:   # plain cpu: on a GPU machine, JAX made ``arr`` on the GPU
            device = _cpu()
            if isinstance(arr, jax.Array) and host_commit() is not None:
                arr = to_host(arr)
        t._array = arr
        t._device = device
        if STATE.trace is not None:
            t._in_trace = True
        if STATE.inference:
            t._inference = True
        return t

    # ---------------------------------------------------------------- value and version
    @property
    def _value(self):
        """The current array; a view whose base was written to since is re-derived first."""
        b = self._base
        if b is not None and self._base_version != b._version_counter:
            _refresh_view(self)
        return self._array

    @property
    def _version(self):
        b = self if self._base is None else self._base
        return b._version_counter if self._data_alias else b._version_counter - b._data_writes

    # ---------------------------------------------------------------- metadata
    @property
    def shape(self):
        return Size(self._array.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._array.shape)
        return self._array.shape[wrap_dim(dim, self._array.ndim)]

    @property
    def dtype(self):
        return dtypes.from_np(self._array.dtype)

    @property
    def device(self):
        return self._device

    @property
    def is_cuda(self):
        return self._device.type == "cuda"

    @property
    def is_cpu(self):
        return self._device.type == "cpu"

    @property
    def ndim(self):
        return self._array.ndim

    def dim(self):
        return self._array.ndim

    ndimension = dim

    def numel(self):
        return math.prod(self._array.shape)

    nelement = numel

    def element_size(self):
        return self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self.dtype.itemsize

    def is_floating_point(self):
        return self.dtype.category == dtypes.FLOAT

    def is_complex(self):
        return self.dtype.category == dtypes.COMPLEX

    def is_signed(self):
        return self.dtype.is_signed

    def get_device(self):
        return -1 if self._device.type == "cpu" else (self._device.index or 0)

    def __len__(self):
        if self._array.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._array.shape[0]

    __hash__ = object.__hash__

    def __jax_array__(self):
        return self._value

    # ---------------------------------------------------------------- autograd fields
    @property
    def requires_grad(self):
        # inside torch.func.grad/vjp/jacrev, what depends on the differentiated inputs
        # requires grad, as PyTorch's wrapped tensors report
        return self._requires_grad or (bool(STATE.grad_traces) and getattr(
            self._array, "_trace", None) in STATE.grad_traces)

    @requires_grad.setter
    def requires_grad(self, flag):
        flag = bool(flag)
        if self._node is not None:
            if not flag:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach().")
            return
        if flag and self.dtype.category < dtypes.FLOAT:
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients")
        if self._sparse is not None:
            raise NotImplementedError("jtorch does not implement sparse tensors that require "
                                      "grad as leaves yet (their gradient is sparse); make "
                                      "their values require grad, or use a dense tensor")
        self._requires_grad = flag

    @property
    def is_leaf(self):
        return self._node is None

    @property
    def grad_fn(self):
        b = self._base
        if b is not None and self._base_version != b._version_counter:
            _refresh_view(self)  # a stale view's grad_fn follows its base's writes
        return self._node

    @property
    def retains_grad(self):
        return self._retains


# a tensor's own attribute dict, its fields included (``Tensor.__dict__`` shows only the
# attributes a program set, as PyTorch's, whose fields live in C)
instance_dict = TensorBase.__dict__["__dict__"].__get__
FIELDS = frozenset(k for k in vars(TensorBase) if k.startswith("_") and not k.startswith("__"))


class UserAttributes(MutableMapping):
    """``Tensor.__dict__``: the attributes set on a tensor other than its fields (accelerate
    passes ``param.__dict__`` as keyword arguments to ``Parameter``), written through."""

    __slots__ = ("_d",)

    def __init__(self, d):
        self._d = d

    def __getitem__(self, key):
        if key in FIELDS:
            raise KeyError(key)
        return self._d[key]

    def __setitem__(self, key, value):
        self._d[key] = value

    def __delitem__(self, key):
        if key in FIELDS:
            raise KeyError(key)
        del self._d[key]

    def __iter__(self):
        return (k for k in list(self._d) if k not in FIELDS)

    def __len__(self):
        return sum(k not in FIELDS for k in self._d)

    def __repr__(self):
        return repr(dict(self))

    def __reduce__(self):
        """Copied and pickled as the plain dict PyTorch's ``__dict__`` is (MONAI's
        ``MetaTensor.clone`` deep-copies ``self.__dict__``), not with the fields behind it."""
        return dict, (dict(self),)


def storage_root(t):
    """The tensor whose storage ``t`` uses: its base for a view, else ``t`` itself."""
    return t if t._base is None else t._base


def to_numpy(arr):
    """A jax array as NumPy; inside a trace only when its value is known (torch.func's eager
    transforms), else jtorch's TraceError."""
    if isinstance(arr, jax.core.Tracer):
        known = _concrete_value(arr)
        if known is not None:
            return np.asarray(known)
        raise concretization_error("converting a traced Tensor to a Python value or NumPy")
    return np.asarray(arr)


# the most elements a host copy is kept for (8 MiB of int64): a batch's targets or indices,
# not a dataset moved to the device whole, whose host memory the user expects back
HOST_COPY_MAX = 1 << 20


def keeps_host_copy(dtype, size):
    """Whether a tensor of ``dtype`` and ``size`` elements off the host keeps the host data it
    was made from: integers and booleans (targets and indices, the tensors eager checks read;
    float data is rarely read, and large) of at most ``HOST_COPY_MAX`` elements."""
    return np.dtype(dtype).kind in "biu" and size <= HOST_COPY_MAX


def kept_host_value(t):
    """``t``'s host copy while it is valid (``t`` still holds the array it was made for), or
    None."""
    kept = t._host_copy
    return kept[1] if kept is not None and kept[0] is t._array else None


def host_value(t):
    """The NumPy value of base tensor ``t``'s array, for eager value checks (index bounds,
    class targets). On an accelerator reading it is a device-to-host copy, which waits for
    the array (a copy of an op's output waits for all the work queued before it) and costs a
    round trip even when ready: so the value read, or the host data an integer tensor was
    made from (:func:`keep_host_copy`), is kept with the array it belongs to and used while
    ``t`` still holds that array (jax arrays are immutable). On the default CPU the read is a
    view of the buffer, and nothing is kept (on ``cpu:1`` it is, as on an accelerator)."""
    kept = kept_host_value(t)
    if kept is not None:
        return kept
    arr = t._array
    value = np.asarray(arr)
    if off_host(t._device) and value.size <= HOST_COPY_MAX:
        t._host_copy = (arr, value)
    return value


def off_host(dev):
    """Whether reading an array on jtorch device ``dev`` copies it to the host (any device
    but the default CPU's)."""
    return dev.type != "cpu" or bool(dev.index)


def keep_host_copy(t, value):
    """Remember ``value`` (host data equal to ``t``'s array) as ``t``'s host copy when ``t``
    is off the host and :func:`keeps_host_copy` says its data is kept."""
    arr = t._array
    if off_host(t._device) and is_concrete_array(arr) and \
            keeps_host_copy(arr.dtype, np.size(value)):
        t._host_copy = (arr, np.asarray(value))
    return t


try:
    from jax._src.core import to_concrete_value as _concrete_value
except ImportError:  # pragma: no cover - another JAX: treat every tracer as abstract
    def _concrete_value(arr):
        return None


def wrap_dim(dim, ndim):
    """``dim`` as a non-negative index into ``ndim`` dimensions (a 0-d tensor has one), or
    PyTorch's IndexError; a dim that is not an integer is a TypeError, as PyTorch's."""
    if type(dim) is not int:
        dim = operator.index(dim)   # a float: "'float' object cannot be interpreted as ..."
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


_CPU = []


def _cpu():
    if not _CPU:
        _CPU.append(host_cpu())
    return _CPU[0]


# ------------------------------------------------------------------ registrations from above
_TENSOR_CLASS = TensorBase


def _refresh_view(view):  # replaced by jtorch/_core/views.py at import
    raise RuntimeError("jtorch: views are not available before jtorch._core.views is imported")


def register_tensor_class(cls):
    """jtorch/_tensor.py registers the public Tensor class: every tensor made is one."""
    global _TENSOR_CLASS
    _TENSOR_CLASS = cls


def register_view_refresh(fn):
    """jtorch/_core/views.py registers how a stale view is re-derived from its base."""
    global _refresh_view
    _refresh_view = fn
