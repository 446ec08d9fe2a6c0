"""Tensor: a mutable PyTorch-style facade over an immutable jax.Array.

State lives in plain attributes with class-level defaults, so making a Tensor sets only what
differs (this is on every op's path). Views keep a reference to their base and the chain of
view steps from it; ``_value`` re-derives a view from its base after the base was written to.
"""

from __future__ import annotations

import math
import warnings

import jax
import numpy as np

from ._core import dtypes
from ._core.device import default_device, from_jax, to_jax

_CPU = None

from ._compile.context import CTX as _CTX  # noqa: E402


class Size(tuple):
    """torch.Size: a tuple of ints with PyTorch's repr."""

    def __repr__(self):
        return f"torch.Size([{', '.join(str(int(s)) for s in self)}])"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))


class Tensor:
    """A multi-dimensional array with PyTorch's semantics, backed by a ``jax.Array``."""

    # defaults for every tensor; instances set only what differs
    _requires_grad = False
    _grad = None
    _node = None         # grad_fn
    _out_idx = 0         # which output of _node this is
    _version_counter = 0              # version counter (a view reads its base's)
    _base = None         # for views: the tensor whose storage this views
    _chain = ()          # view steps from _base: ((Kernel, output index or None), ...)
    _base_version = 0    # the base version this view's _array was derived at
    _detached = False    # views made by detach()/.data: writes do not record autograd
    _overlap = False     # expanded views: in-place writes are an error
    _acc = None          # AccumulateGrad node of a leaf
    _hooks = None        # hooks on a leaf's gradient
    _post_hooks = None   # post-accumulate-grad hooks
    _retains = False
    _is_param = False
    _data_writes = 0              # writes made through .data aliases: not counted in _version
    _data_alias = False  # made by .data (or a view of one): PyTorch gives it its own version
    _in_trace = False    # created while jtorch.compile traced a function (see _compile/)

    __array_priority__ = 1000

    def __new__(cls, *args, **kwargs):
        if cls is Tensor or not args or not isinstance(args[0], Tensor):
            return _legacy_new(cls, *args, **kwargs)
        return super().__new__(cls)

    @classmethod
    def _make(cls, arr, device=None):
        t = object.__new__(Tensor)
        t._array = arr
        t._device = device if device is not None else _cpu()
        if _CTX.tracing:
            t._in_trace = True
        return t

    # ---------------------------------------------------------------- value and views
    @property
    def _value(self):
        b = self._base
        if b is not None and self._base_version != b._version_counter:
            from ._core.views import refresh

            refresh(self)
        return self._array

    @property
    def _version(self):
        b = self if self._base is None else self._base
        return b._version_counter if self._data_alias else b._version_counter - b._data_writes

    @property
    def data(self):
        from ._core.views import detached_alias

        return detached_alias(self)

    @data.setter
    def data(self, other):
        if not isinstance(other, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(other).__name__}")
        self._array = other._value
        self._device = other._device
        if self._base is not None:  # becomes its own storage, as PyTorch's set_data
            self._base, self._chain = None, ()
        self._version_counter += 1
        self._data_writes += 1  # views re-read the storage, but PyTorch's version stays the same

    def _edge(self):
        """The graph edge gradients for this tensor flow into: (grad_fn, output index), or a
        leaf's AccumulateGrad."""
        if self._base is not None and self._base_version != self._base._version_counter:
            self._value  # noqa: B018 - re-derive a stale view: its history follows its base's
        if self._node is not None:
            return (self._node, self._out_idx)
        acc = self._acc
        if acc is None:
            from ._core.graph import AccumulateGrad

            acc = self._acc = AccumulateGrad(self)
        return (acc, 0)

    # ---------------------------------------------------------------- metadata
    @property
    def shape(self):
        return Size(self._array.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._array.shape)
        return self._array.shape[_wrap_dim(dim, self._array.ndim)]

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

    def stride(self, dim=None):
        from ._core.views import strides

        s = strides(self)[0]
        return s if dim is None else s[_wrap_dim(dim, self.ndim)]

    def storage_offset(self):
        from ._core.views import strides

        return strides(self)[1]

    def is_contiguous(self, memory_format=None):
        from ._core.views import is_contiguous

        return is_contiguous(self)

    @property
    def T(self):  # noqa: N802 - PyTorch's names
        from ._ops.shape import numpy_T

        return numpy_T(self)

    @property
    def mT(self):  # noqa: N802
        from ._ops.shape import matrix_T

        return matrix_T(self)

    @property
    def H(self):  # noqa: N802
        from ._ops.shape import hermitian_H

        return hermitian_H(self)

    @property
    def mH(self):  # noqa: N802
        from ._ops.shape import matrix_H

        return matrix_H(self)

    def is_floating_point(self):
        return self.dtype.category == dtypes.FLOAT

    def is_complex(self):
        return self.dtype.category == dtypes.COMPLEX

    def is_signed(self):
        return self.dtype.is_signed

    @property
    def layout(self):
        from . import strided

        return strided

    @property
    def is_sparse(self):
        return False

    @property
    def is_quantized(self):
        return False

    @property
    def is_meta(self):
        return False

    def get_device(self):
        return -1 if self._device.type == "cpu" else (self._device.index or 0)

    def is_inference(self):
        return False

    # ---------------------------------------------------------------- autograd state
    @property
    def requires_grad(self):
        return self._requires_grad

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
        self._requires_grad = flag

    def requires_grad_(self, requires_grad=True):
        if requires_grad and self._node is None and self.dtype.category < dtypes.FLOAT:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self):
        return self._node is None

    @property
    def grad_fn(self):
        if self._base is not None and self._base_version != self._base._version_counter:
            self._value  # noqa: B018 - a stale view's grad_fn follows its base's writes
        return self._node

    @property
    def grad(self):
        if self._node is not None and not self._retains:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                "mistake, make sure you access the leaf Tensor instead. See "
                "github.com/pytorch/pytorch/pull/30531 for more informations.",
                UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, g):
        if g is not None:
            if not isinstance(g, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad "
                                f"of type {type(g).__name__}")
            if g.dtype != self.dtype or tuple(g.shape) != tuple(self.shape):
                from ._core.hooks import grad_assign_error

                raise grad_assign_error(self, g)
        self._grad = g

    @property
    def retains_grad(self):
        return self._retains

    def retain_grad(self):
        from ._core.hooks import retain_grad

        retain_grad(self)

    def register_hook(self, hook):
        from ._core.hooks import register_tensor_hook

        return register_tensor_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        from ._core.hooks import register_post_accumulate_hook

        return register_post_accumulate_hook(self, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        from .autograd import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        from ._core.views import detached_alias

        return detached_alias(self, share_version=True)

    def detach_(self):
        if self._base is not None and not self._detached:
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are "
                               "using DistributedDataParallel (DDP) for training, and "
                               "gradient_as_bucket_view is set as True, gradients are views of "
                               "DDP buckets, and hence detach_() cannot be called on these "
                               "gradients. To fix this error, please refer to the "
                               "Optimizer.zero_grad() function in torch/optim/optimizer.py as "
                               "the solution.")
        self._node, self._out_idx, self._requires_grad = None, 0, False
        return self

    # ---------------------------------------------------------------- to Python / NumPy
    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to "
                               "Scalar")
        return _to_numpy(self._value).reshape(()).item()

    def tolist(self):
        return _to_numpy(self._value).tolist()

    def numpy(self, *, force=False):
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self._device.type != "cpu" and not force:
            raise TypeError(f"can't convert {self._device.type}:"
                            f"{self._device.index or 0} device type tensor to numpy. Use "
                            "Tensor.cpu() to copy the tensor to host memory first.")
        return _to_numpy(self._value)

    def __array__(self, dtype=None, copy=None):
        a = _to_numpy(self._value)
        return a if dtype is None else a.astype(dtype)

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._array.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"Boolean value of Tensor with {'more than one' if n else 'no'} "
                               "value is ambiguous")
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __complex__(self):
        return complex(self.item())

    def __index__(self):
        if self.dtype.category > dtypes.INT or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    __hash__ = object.__hash__

    def __repr__(self, *, tensor_contents=None):
        from ._tensor_str import tensor_repr

        return tensor_repr(self, tensor_contents)

    __str__ = __repr__

    def __format__(self, spec):
        if self.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, proto):
        from .serialization import reduce_tensor

        return reduce_tensor(self, proto)

    def __deepcopy__(self, memo):
        from ._core.views import deepcopy_tensor

        return deepcopy_tensor(self, memo)

    def __getitem__(self, index):
        from ._ops.indexing import getitem

        return getitem(self, index)

    def __setitem__(self, index, value):
        from ._ops.indexing import setitem

        setitem(self, index, value)

    # ---------------------------------------------------------------- devices and dtypes
    def to(self, *args, **kwargs):
        from ._ops.convert import to

        return to(self, *args, **kwargs)

    def cpu(self, memory_format=None):
        return self.to("cpu")

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        from ._ops.convert import cuda

        return cuda(self, device, non_blocking)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        from ._ops.convert import type_

        return type_(self, dtype, non_blocking)

    def type_as(self, other):
        return self.to(other.dtype)

    def float(self, memory_format=None):
        return self.to(dtypes.float32)

    def double(self, memory_format=None):
        return self.to(dtypes.float64)

    def half(self, memory_format=None):
        return self.to(dtypes.float16)

    def bfloat16(self, memory_format=None):
        return self.to(dtypes.bfloat16)

    def long(self, memory_format=None):
        return self.to(dtypes.int64)

    def int(self, memory_format=None):
        return self.to(dtypes.int32)

    def short(self, memory_format=None):
        return self.to(dtypes.int16)

    def char(self, memory_format=None):
        return self.to(dtypes.int8)

    def byte(self, memory_format=None):
        return self.to(dtypes.uint8)

    def bool(self, memory_format=None):
        return self.to(dtypes.bool_)

    def cfloat(self, memory_format=None):
        return self.to(dtypes.complex64)

    def cdouble(self, memory_format=None):
        return self.to(dtypes.complex128)

    def __jax_array__(self):
        return self._value


def _wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def _to_numpy(arr):
    if isinstance(arr, jax.core.Tracer):
        known = _concrete_value(arr)  # eager grad/jvp tracers know their value (torch.func)
        if known is not None:
            return np.asarray(known)
        from ._core.errors import concretization_error

        raise concretization_error("converting a traced Tensor to a Python value or NumPy")
    return np.asarray(arr)


def _concrete_value(arr):
    try:
        from jax._src.core import to_concrete_value
    except ImportError:  # pragma: no cover - another JAX: treat every tracer as abstract
        return None
    return to_concrete_value(arr)


def _cpu():
    global _CPU
    if _CPU is None:
        _CPU = default_device()
    return _CPU


def _legacy_new(cls, *args, device=None, dtype=None, **kwargs):
    """``torch.Tensor(data)`` / ``torch.Tensor(*sizes)``: the legacy default-dtype constructor."""
    from ._ops.creation import empty, tensor

    if len(args) == 1 and not isinstance(args[0], (int, Size)):
        t = tensor(args[0], dtype=dtype or dtypes.get_default_dtype(), device=device)
    else:
        t = empty(*(args or (0,)), dtype=dtype or dtypes.get_default_dtype(), device=device)
    if cls is not Tensor:
        obj = object.__new__(cls)
        obj.__dict__.update(t.__dict__)
        return obj
    return t


def device_of(arr):
    """The jtorch device holding a concrete jax array."""
    try:
        return from_jax(next(iter(arr.devices())))
    except (AttributeError, jax.errors.ConcretizationTypeError):
        return _cpu()


__all__ = ["Tensor", "Size", "device_of", "to_jax"]
