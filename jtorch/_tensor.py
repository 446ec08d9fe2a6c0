"""The public ``jtorch.Tensor``: the core's Tensor data type with PyTorch's methods.

The fields live in :class:`~jtorch._core.tensor_base.TensorBase`. This class adds what a user
calls: conversions to Python and NumPy, autograd entry points, indexing, printing, pickling,
device and dtype conversions, and (generated from the op table, see the end of the class) every
op method, in-place variant and operator.
"""

from __future__ import annotations

import functools
import numbers
import warnings

import numpy as np

from . import autograd
from ._core import dtypes, torch_function
from ._core.errors import missing_attribute, torch_names
from ._core.hooks import (
    grad_assign_error,
    register_post_accumulate_hook,
    register_tensor_hook,
    retain_grad,
)
from ._core.layout import sparse_coo, strided
from ._core.removed import removed_function
from ._core.state import STATE
from ._core.strides import is_contiguous, strides
from ._core.tensor_base import (
    FIELDS,
    MetaStorage,
    Size,
    TensorBase,
    UserAttributes,
    instance_dict,
    register_tensor_class,
    to_numpy,
    wrap_dim,
)
from ._core.views import check_inplace, deepcopy_tensor, detached_alias, storage_alias
from ._core.warn_once import warn_once
from ._ops import convert
from ._ops._registry import OPERANDS
from ._ops.creation import empty, place, tensor
from ._ops.indexing import getitem
from ._ops.indexing_put import setitem
from ._ops.pointwise import set_imag, set_real
from ._ops.shape import hermitian_H, matrix_H, matrix_T, numpy_T
from ._ops.sparse import sparse_detach, sparse_to
from ._ops.typed_storage import is_storage, storage_tensor
from ._tensor_ops import TensorOps
from ._tensor_str import tensor_repr

# private Tensor names that third-party libraries call: PyTorch Geometric's EdgeIndex and Index
# are __torch_dispatch__ subclasses made by _make_wrapper_subclass (jtorch has no
# __torch_dispatch__: its ops run JAX kernels, not aten ones)
_PRIVATE_MISSING = {"_make_wrapper_subclass": "torch.Tensor._make_wrapper_subclass (a "
                    "__torch_dispatch__ subclass; jtorch has no __torch_dispatch__)"}


class TensorMeta(type):
    """Tensor's class: a class-level read of a ``torch.Tensor`` name jtorch lacks
    (``torch.Tensor.int_repr``, ``torch.Tensor._make_wrapper_subclass``) raises
    NotImplementedError naming it, as an instance's read does (see ``Tensor.__getattr__``);
    anything else Python's AttributeError. A subclass that lists a plain class before its
    tensor base (MONAI's ``MetaTensor(MetaObj, torch.Tensor)``) gets Tensor's ``__dict__``,
    which the plain class's ``__dict__`` slot would otherwise shadow, exposing jtorch's
    fields to code that copies ``__dict__`` between tensors."""

    def __new__(mcls, name, bases, namespace, **kwargs):
        first = next((i for i, b in enumerate(bases) if isinstance(b, TensorMeta)), 0)
        if "__dict__" not in namespace and any(
                "__dict__" in vars(k) for b in bases[:first] for k in b.__mro__[:-1]):
            namespace = {**namespace, "__dict__": vars(Tensor)["__dict__"]}
        return super().__new__(mcls, name, bases, namespace, **kwargs)

    def __getattr__(cls, name):
        if name in _PRIVATE_MISSING:
            raise missing_attribute(_PRIVATE_MISSING[name])
        if name in torch_names("torch.Tensor") and not name.startswith("__"):
            raise missing_attribute(f"torch.Tensor.{name}")
        raise AttributeError(f"type object '{cls.__name__}' has no attribute '{name}'")


def _check_tensor_class(cls):
    if not isinstance(cls, type):
        raise TypeError(f"cls must be a type (got {type(cls).__name__})")
    if not issubclass(cls, Tensor):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")


class Tensor(TensorBase, TensorOps, metaclass=TensorMeta):
    """A multi-dimensional array with PyTorch's semantics, backed by a ``jax.Array``."""

    def __new__(cls, *args, **kwargs):
        if cls is Tensor or not args or not isinstance(args[0], TensorBase):
            return _legacy_new(cls, *args, **kwargs)
        return super().__new__(cls)

    # device kinds and layouts a jtorch tensor never has (PyTorch's properties; always False)
    is_ipu = is_maia = is_mkldnn = is_mps = is_mtia = is_vulkan = is_xla = is_xpu = \
        is_nested = is_sparse_csr = property(lambda self: False)

    # the op table's read-only properties, with PyTorch's setters (``x.imag = y``)
    real = property(TensorOps.real.fget, set_real)
    imag = property(TensorOps.imag.fget, set_imag)

    @property
    def _cdata(self):
        """PyTorch's address of the C++ tensor behind this Python object: one per object (a
        Python tensor and its C++ tensor are one-to-one), so here the object's ``id`` (pyro
        compares it to tell a module's parameter from the param store's)."""
        return id(self)

    def is_pinned(self, device=None):
        """False: a jtorch tensor lives in a jax.Array (no page-locked host memory)."""
        return False

    def is_shared(self):
        """False: a jtorch tensor is never in shared memory."""
        return False

    def is_distributed(self):
        return False

    @property
    def __dict__(self):
        """The attributes a program set on this tensor, without jtorch's own fields (PyTorch
        keeps its fields in C: its ``__dict__`` holds only those); writes go through."""
        return UserAttributes(instance_dict(self))

    @__dict__.setter
    def __dict__(self, attributes):
        own = instance_dict(self)
        for key in [k for k in own if k not in FIELDS]:
            del own[key]
        own.update(attributes)

    def __getattr__(self, name):
        """Only for names the class does not define: a ``torch.Tensor`` attribute jtorch lacks
        raises NotImplementedError naming it, anything else Python's AttributeError."""
        if name in torch_names("torch.Tensor") and not hasattr(type(self), name):
            gone = removed_function(f"torch.Tensor.{name}")
            if gone is not None:   # Tensor.solve...: PyTorch's removal error when called
                return functools.partial(gone, self)
            raise missing_attribute(f"torch.Tensor.{name}")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    # ---------------------------------------------------------------- reflected division
    def __rdiv__(self, other):
        """``other / self`` as PyTorch computes it: ``self.reciprocal() * other`` (its values
        are not always the exact quotient's; grad_fn ``MulBackward0``)."""
        if not isinstance(other, OPERANDS):
            return NotImplemented
        return self.reciprocal() * other

    __rtruediv__ = __rdiv__   # as PyTorch's (a subclass's __torch_function__ sees __rdiv__)

    # ---------------------------------------------------------------- subclasses
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """The default of the ``__torch_function__`` protocol (jtorch/_core/torch_function.py):
        ``func`` run with the protocol off, tensor results returned as ``cls`` instances."""
        return torch_function.default(cls, func, types, args, kwargs)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        torch_function.subclass_defined(cls, torch_names("torch.Tensor"))

    def as_subclass(self, cls):
        """This tensor as a ``cls`` instance: an alias of it (writes to either show in the
        other) that stays in the autograd graph (``AliasBackward0``), as PyTorch's."""
        _check_tensor_class(cls)
        if torch_function.ACTIVE[0]:
            with torch_function.DisableTorchFunctionSubclass():
                alias = getitem(self, Ellipsis)
        else:
            alias = getitem(self, Ellipsis)
        alias.__class__ = cls
        return alias

    @staticmethod
    def _make_subclass(cls, data, require_grad=False, dispatch_strides=False,
                       dispatch_device=False, dispatch_layout=False, _extra_dispatch_keys=None,
                       storage_size=None):
        """A new leaf ``cls`` instance holding ``data``'s values (detached), requiring grad
        as ``require_grad`` says: how PyTorch's Parameter and parameter-like subclasses are
        made. As jtorch's Parameter, it does not share ``data``'s storage afterwards
        (docs/differences.md). The dispatch_* options (for ``__torch_dispatch__`` subclasses,
        which jtorch does not have) change nothing."""
        if not isinstance(data, TensorBase):
            raise TypeError("_make_subclass(): argument 'data' (position 2) must be Tensor, "
                            f"not {type(data).__name__}")
        _check_tensor_class(cls)
        if require_grad and data.dtype.category < dtypes.FLOAT:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t = TensorBase._make(data._value, data._device)
        t.__class__ = cls
        if require_grad:
            t._requires_grad = True
        return t

    # ---------------------------------------------------------------- storage and views
    @property
    def data(self):
        if self._sparse is not None:
            return sparse_detach(self)
        return detached_alias(self)

    @data.setter
    def data(self, other):
        if not isinstance(other, TensorBase):
            raise TypeError(f"data must be a Tensor, got {type(other).__name__}")
        if other._base is not None and not self._has_views and \
                self._sparse is None and other._sparse is None:
            # ``a.data = b.data`` (or a view of b): a shares b's storage, as PyTorch's
            # set_data, keeping its own autograd state and version (a .data alias of it)
            alias = detached_alias(other)
            for field in ("_array", "_device", "_base", "_chain", "_layout", "_base_version",
                          "_overlap", "_detached", "_detach_alias", "_data_alias"):
                setattr(self, field, getattr(alias, field))
            return
        self._array = other._value
        self._device = other._device
        if self._base is not None:  # becomes its own storage, as PyTorch's set_data
            self._base, self._chain, self._layout = None, (), None
        self._version_counter += 1
        self._data_writes += 1  # views re-read the storage, but PyTorch's version stays the same

    def set_(self, source=None, storage_offset=0, size=None, stride=None):
        """``t.set_(source)``: ``t`` takes ``source``'s storage, shape and strides (an empty
        storage without one), in place: it stays the same object (a Parameter stays one),
        its version is bumped, and writes through either tensor show in the other.

        Differences from PyTorch: a Storage ``source``, ``storage_offset``, ``size`` and
        ``stride``, and a ``t`` that has views of its own raise NotImplementedError."""
        if source is None:
            source = empty(0, dtype=self.dtype, device=self.device)
        if not isinstance(source, TensorBase) or storage_offset or size is not None or \
                stride is not None:
            raise NotImplementedError("jtorch does not implement torch.Tensor.set_ with a "
                                      "storage, storage_offset, size or stride yet")
        if source.dtype is not self.dtype:
            raise RuntimeError(f"Could not set tensor of type {source.dtype.cpp_name} to a "
                               f"tensor of type {self.dtype.cpp_name}")
        if source is self:
            return self
        check_inplace(self)
        if self._has_views:
            raise NotImplementedError("jtorch does not implement torch.Tensor.set_ on a tensor "
                                      "that has views yet; call it before making them")
        alias = storage_alias(source)
        for field in ("_array", "_device", "_base", "_chain", "_layout", "_base_version",
                      "_overlap"):
            setattr(self, field, getattr(alias, field))
        self._base._version_counter += 1   # (the version of the storage, which t now views)
        self._base_version = self._base._version_counter
        return self

    def stride(self, dim=None):
        s = strides(self)[0]
        return s if dim is None else s[wrap_dim(dim, self.ndim)]

    def storage_offset(self):
        return strides(self)[1]

    def is_contiguous(self, memory_format=None):
        return is_contiguous(self)

    @property
    def layout(self):
        return strided if self._sparse is None else sparse_coo

    @property
    def is_sparse(self):
        return self._sparse is not None

    @property
    def is_quantized(self):
        return False

    @property
    def is_meta(self):
        return type(self._array) is MetaStorage

    def is_inference(self):
        return self._inference

    @property
    def T(self):  # noqa: N802 - PyTorch's names
        return numpy_T(self)

    @property
    def mT(self):  # noqa: N802
        return matrix_T(self)

    @property
    def H(self):  # noqa: N802
        return hermitian_H(self)

    @property
    def mH(self):  # noqa: N802
        return matrix_H(self)

    # ---------------------------------------------------------------- autograd
    def requires_grad_(self, requires_grad=True):
        if requires_grad and self._node is None and self.dtype.category < dtypes.FLOAT:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

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
            if not isinstance(g, TensorBase):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad "
                                f"of type {type(g).__name__}")
            if g.dtype != self.dtype or tuple(g.shape) != tuple(self.shape):
                raise grad_assign_error(self, g)
        self._grad = g

    def retain_grad(self):
        retain_grad(self)

    def _is_view(self):
        """Whether this tensor is a view of another (``_base``); the aliases ``detach()`` and
        ``.data`` make are not, as in PyTorch (a view of one is)."""
        return self._base is not None and not self._detach_alias

    def register_hook(self, hook):
        return register_tensor_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        return register_post_accumulate_hook(self, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        if self._sparse is not None:
            return sparse_detach(self)
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
        return to_numpy(self._value).reshape(()).item()

    def tolist(self):
        return to_numpy(self._value).tolist()

    def numpy(self, *, force=False):
        # PyTorch's order: the device first, then a gradient (only while grad mode is on)
        if self._device.type != "cpu" and not force:
            where = "meta" if self.is_meta else f"{self._device.type}:{self._device.index or 0}"
            raise TypeError(f"can't convert {where} device type tensor to numpy. Use "
                            "Tensor.cpu() to copy the tensor to host memory first.")
        if self._requires_grad and STATE.grad_enabled and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return to_numpy(self._value)

    def __array__(self, dtype=None, copy=None):
        a = to_numpy(self._value)
        return a if dtype is None else a.astype(dtype)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __reversed__(self):
        """``reversed(t)``: ``t`` flipped along dim 0 (a 0-d tensor itself), as PyTorch's."""
        return self if self.ndim == 0 else self.flip(0)

    def __contains__(self, element, /):
        """``element in t``: whether any value of ``t`` equals ``element``, as PyTorch's."""
        if isinstance(element, (TensorBase, numbers.Number)):
            return bool((element == self).any().item())
        raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed "
                           f"in a {type(element)}.")

    def __bool__(self):
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"Boolean value of Tensor with "
                               f"{'more than one value' if n else 'no values'} is ambiguous")
        return bool(self.item())

    def __float__(self):
        if self._requires_grad and STATE.grad_enabled:   # as PyTorch 2.13 (TORCH_WARN_ONCE)
            warn_once("float of requires_grad", "Converting a tensor with requires_grad=True "
                      "to a scalar may lead to unexpected behavior.\nConsider using "
                      "tensor.detach() first.")
        return float(self.item())

    def __int__(self):
        return int(self.item())

    __long__ = __int__   # PyTorch keeps Python 2's name (functorch.dim lists it)

    def __complex__(self):
        return complex(self.item())

    def __index__(self):
        if self.dtype.category > dtypes.INT or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    __hash__ = TensorBase.__hash__

    def __repr__(self, *, tensor_contents=None):
        return tensor_repr(self, tensor_contents, plain=type(self) is Tensor)

    def __format__(self, spec):
        if self.ndim == 0 and type(self) is Tensor:   # as PyTorch's: not a subclass's
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, proto):
        """Plain ``pickle`` / ``copy`` / multiprocessing: the values as a NumPy array, with
        dtype, requires_grad and device. (``jtorch.save`` keeps shared storage and writes
        PyTorch's format; plain pickling, like PyTorch's across processes, gives each tensor
        its own copy here.)"""
        if STATE.saving is not None:   # in torch.save, from a subclass's own __reduce_ex__
            return STATE.saving.reduce_tensor(self)
        dev = self._device
        args = (np.asarray(self.detach()._value), self.requires_grad,
                None if dev.type == "cpu" and dev.index is None else str(dev))
        state = self.__getstate__()
        if type(self) is Tensor and not state:
            return (_unpickle, args)
        # as PyTorch's _rebuild_from_type_v2: a subclass and attributes come back too
        return (_unpickle_typed, (args, type(self), state))

    def __getstate__(self):
        """The attributes a program set on this tensor, ``None`` when there are none (Python's
        default for an object, as PyTorch's tensors give; jtorch's own fields are left out)."""
        return dict(self.__dict__) or None

    def __deepcopy__(self, memo):
        return deepcopy_tensor(self, memo)

    def __getitem__(self, index):
        return getitem(self, index)

    def __setitem__(self, index, value):
        setitem(self, index, value)

    # ---------------------------------------------------------------- devices and dtypes
    def to(self, *args, **kwargs):
        if self._sparse is not None:
            return sparse_to(self, *args, **kwargs)
        return convert.to(self, *args, **kwargs)

    def cpu(self, memory_format=None):
        return self.to("cpu")

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        return convert.cuda(self, device, non_blocking)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        return convert.type_(self, dtype, non_blocking)

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


def _legacy_new(cls, *args, device=None, dtype=None, **kwargs):
    """``torch.Tensor(data)`` / ``torch.Tensor(*sizes)``: the legacy default-dtype constructor
    (``torch.Tensor(storage)``: a 1-d tensor sharing the storage)."""
    if len(args) == 1 and is_storage(args[0]):
        t = storage_tensor(dtypes.get_default_dtype(), args[0])
    elif len(args) == 1 and not isinstance(args[0], (int, Size)):
        t = tensor(args[0], dtype=dtype or dtypes.get_default_dtype(), device=device)
    else:
        t = empty(*(args or (0,)), dtype=dtype or dtypes.get_default_dtype(), device=device)
    if cls is not Tensor:
        obj = object.__new__(cls)
        obj.__dict__.update(t.__dict__)
        return obj
    return t


def _unpickle(array, requires_grad, device):
    return place(array, device, requires_grad)


def _unpickle_typed(args, cls, state):
    return rebuilt_from_type(_unpickle(*args), cls, state)


def set_obj_state(t, state):
    """PyTorch's ``_set_obj_state``: the attributes pickled with a tensor (a dict, or a
    (dict, slots) pair; None for none) set on it."""
    dict_state, slots_state = state if isinstance(state, tuple) else (state, None)
    for part in (dict_state, slots_state):
        for name, value in (part or {}).items():
            setattr(t, name, value)
    return t


def rebuilt_from_type(t, cls, state):
    """What PyTorch's ``_rebuild_from_type_v2`` does after rebuilding ``t``: make it a ``cls``
    instance (an alias in the graph, as ``as_subclass`` gives) and give it its pickled state,
    through the class's own ``__setstate__`` where it has one."""
    if type(t) is not cls:
        t = t.as_subclass(cls)
    if getattr(cls, "__setstate__", None) is not None:
        t.__setstate__(state)
        return t
    return set_obj_state(t, state)


register_tensor_class(Tensor)
torch_function.PLAIN[0] = Tensor
torch_function.OPERANDS[0] = OPERANDS
