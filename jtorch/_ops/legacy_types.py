"""The legacy tensor types: ``torch.FloatTensor``, ``torch.LongTensor``... and their
``torch.cuda.*Tensor`` forms and ``torch.set_default_tensor_type`` (the ``*Storage`` classes are
in typed_storage.py).

Each type is an instance of :class:`tensortype` (PyTorch's metaclass name): ``isinstance(t,
torch.FloatTensor)`` is True for a float32 tensor on the CPU, ``torch.cuda.FloatTensor`` for one
on a CUDA device; the types are not subclasses of Tensor, as in PyTorch. Calling one is
PyTorch's legacy constructor: ``FloatTensor()`` (empty), ``FloatTensor(2, 3)`` or
``FloatTensor(torch.Size([2, 3]))`` (a tensor of that size), ``FloatTensor([1, 2])`` (data
converted to the type's dtype), ``FloatTensor(t)`` (an alias of a tensor of the same type),
``FloatTensor(storage)`` (a 1-d tensor sharing a storage of the type's dtype).
``Tensor.type()`` gives these names; ``Tensor.type(torch.LongTensor)`` casts (convert.py).

``torch.sparse.FloatTensor`` and the other sparse types are the same for sparse COO tensors:
``isinstance`` also checks the layout, and calling one is PyTorch's deprecated sparse
constructor, ``(indices, values[, size])`` (the values' dtype, as PyTorch's, whatever the
type's) or ``(*sizes)`` / ``(Size)`` (no entries), with PyTorch's once-per-process
deprecation warnings (Kipf's pygcn builds its adjacency matrix this way).

Differences from PyTorch:
    - Sized constructors return zeros (PyTorch's memory is uninitialised).
    - ``ComplexFloatTensor``/``ComplexDoubleTensor`` exist here as types; PyTorch 2.13 only
      names them as ``Tensor.type()`` strings.
"""

from __future__ import annotations

import numbers
import warnings

from .._core import dtypes
from .._core.device import device as Device, jax_devices
from .._core.layout import sparse_coo, strided
from .._core.tensor_base import Size, TensorBase
from .._core.warn_once import warn_once
from ._registry import export
from .creation import empty, tensor
from .sparse import empty_sparse, sparse_coo_tensor
from .typed_storage import is_storage, storage_tensor

_BY_NAME = {d.scalar_name: d for d in dtypes.ALL}

_SIGNATURES = (" * (*, torch.device device = None)\n"
               " * (torch.Storage storage)\n"
               " * (Tensor other)\n"
               " * (tuple of ints size, *, torch.device device = None)\n"
               " * (object data, *, torch.device device = None)\n")
_SPARSE_SIGNATURES = (
    " * (*, torch.device device = None)\n"
    " * (Tensor indices, Tensor values, *, torch.device device = None)\n"
    " * (Tensor indices, Tensor values, tuple of ints size, *, torch.device device = None)\n"
    " * (tuple of ints size, *, torch.device device = None)\n")


class tensortype(type):  # noqa: N801 - PyTorch's name (type(torch.FloatTensor))
    """The class of the legacy tensor types: ``isinstance`` checks dtype and device type;
    calling a type runs the legacy constructor."""

    dtype: dtypes.dtype
    is_cuda: bool
    is_sparse: bool

    def __instancecheck__(cls, obj):
        return (isinstance(obj, TensorBase) and obj.dtype is cls.dtype
                and (obj.device.type == "cuda") == cls.is_cuda
                and obj.is_sparse == cls.is_sparse)

    def __call__(cls, *args, **kwargs):
        return (construct_sparse if cls.is_sparse else construct)(cls, args, kwargs)


tensortype.__module__ = "torch"


def _legacy_type(scalar_name, cuda, sparse=False):
    dt = _BY_NAME[scalar_name]
    kind = "sparse COO " if sparse else ""
    return tensortype(scalar_name + "Tensor", (), {
        "dtype": dt, "is_cuda": cuda, "is_sparse": sparse,
        "layout": sparse_coo if sparse else strided,
        "__module__": "torch" + (".cuda" if cuda else "") + (".sparse" if sparse else ""),
        "__doc__": f"The legacy type of {dt} {kind}tensors on "
                   f"{'a CUDA device' if cuda else 'the CPU'}; calling it is the legacy "
                   "constructor."})


def _type_name(cls):
    return f"{cls.__module__}.{cls.__name__}"


def _check_available(cls):
    if cls.is_cuda and not jax_devices("cuda"):
        raise TypeError(f"type {_type_name(cls)} not available. Torch not compiled with CUDA "
                        "enabled.")


def _options(dt, device):
    return (f"TensorOptions(dtype={dt.cpp_name}, device={device}, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


def _arg_type(x):
    if isinstance(x, dtypes.dtype):
        return "torch.dtype"
    if isinstance(x, Device):
        return "torch.device"
    return "Tensor" if isinstance(x, TensorBase) else type(x).__name__


def _bad_arguments(args, kwargs, signatures=_SIGNATURES):
    got = [_arg_type(a) for a in args] + [f"{k}={_arg_type(v)}" for k, v in kwargs.items()]
    return TypeError(f"new() received an invalid combination of arguments - got "
                     f"({', '.join(got)}), but expected one of:\n{signatures}")


def _is_int(x):
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _device(cls, device):
    """The ``device=`` of a legacy constructor call, which must be of the type's kind."""
    kind = "cuda" if cls.is_cuda else "cpu"
    device = Device(kind) if device is None else Device(device)
    if device.type != kind:
        raise RuntimeError(f"legacy constructor expects device type: {kind} but device type: "
                           f"{device.type} was passed")
    return device


def construct(cls, args, kwargs):
    """PyTorch's legacy_tensor_new: ``()``, ``(*sizes)``, ``(Size)``, ``(tensor)`` or
    ``(data)``; keyword ``device`` (of the type's device type) and ``size``."""
    _check_available(cls)
    unknown = set(kwargs) - {"device", "size"}
    if unknown or ("size" in kwargs and args):
        raise _bad_arguments(args, kwargs)
    kind = "cuda" if cls.is_cuda else "cpu"
    device = _device(cls, kwargs.get("device"))
    if "size" in kwargs:
        return empty(tuple(kwargs["size"]), dtype=cls.dtype, device=device)
    if not args:
        return empty(0, dtype=cls.dtype, device=device)
    if _is_int(args[0]):
        for i, a in enumerate(args[1:], 2):
            if not _is_int(a):
                raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {i} "
                                f'with error "type must be tuple of ints,but got '
                                f'{type(a).__name__}"')
        return empty(tuple(args), dtype=cls.dtype, device=device)
    if len(args) > 1:
        raise _bad_arguments(args, kwargs)
    data = args[0]
    if is_storage(data):
        return storage_tensor(cls.dtype, data)
    if isinstance(data, TensorBase):
        if data.dtype is not cls.dtype or data.device.type != kind:
            raise TypeError(f"expected {_options(cls.dtype, kind)} (got "
                            f"{_options(data.dtype, data.device.type)})")
        return data[...]  # an alias sharing data's storage, as PyTorch's
    if isinstance(data, Size):
        return empty(tuple(data), dtype=cls.dtype, device=device)
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(data, numbers.Number):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    return tensor(data, dtype=cls.dtype, device=device)


def _deprecated_sparse(call, instead):
    warn_once("torch.sparse.SparseTensor" + call,
              f"torch.sparse.SparseTensor{call} is deprecated.  Please use "
              f"torch.sparse_coo_tensor{instead}.", stacklevel=4)


def construct_sparse(cls, args, kwargs):
    """PyTorch's legacy_sparse_tensor_new: ``()`` or ``(*sizes)`` / ``(Size)`` (a sparse
    tensor without entries of the type's dtype), ``(indices, values[, size])`` (the values'
    dtype, whatever the type's, as PyTorch's; no bounds check); keyword ``device`` and
    ``size``."""
    _check_available(cls)
    for name in kwargs:
        if name not in ("device", "size"):
            raise TypeError(f"new() got an unexpected keyword argument '{name}'")
    device = _device(cls, kwargs.get("device"))
    if len(args) >= 2 and all(isinstance(a, TensorBase) for a in args[:2]):
        indices, values, *rest = args
        if len(rest) > 1:
            raise TypeError(f"new() takes 3 positional arguments but {len(args)} were given")
        if rest and "size" in kwargs:
            raise TypeError("new() got multiple values for argument 'size'")
        size = rest[0] if rest else kwargs.get("size")
        if indices.dtype is not dtypes.int64:
            raise RuntimeError("indices must be an int64 tensor")
        if size is None:
            _deprecated_sparse("(indices, values, *, device=)",
                               "(indices, values, dtype=, device=)")
        else:
            _deprecated_sparse("(indices, values, shape, *, device=)",
                               "(indices, values, shape, dtype=, device=)")
        return sparse_coo_tensor(indices, values, size, device=device)
    if "size" in kwargs:
        if args:
            raise TypeError("new() got multiple values for argument 'size'")
        args = (Size(kwargs["size"]),)
    if not args:
        _deprecated_sparse("()", "((0,), dtype=)")
        size = (0,)
    elif all(_is_int(a) for a in args):
        size = args
    elif len(args) == 1 and isinstance(args[0], Size):
        size = tuple(args[0])
    elif len(args) == 1 and isinstance(args[0], tuple):
        raise TypeError("torch.sparse.SparseTensor(sequence) only accepts sizes.  Please use "
                        "torch.sparse_coo_tensor() or construct a strided tensor and convert "
                        "it to sparse via to_sparse.")
    else:
        raise _bad_arguments(args, kwargs, _SPARSE_SIGNATURES)
    if args:
        _deprecated_sparse("(shape, *, device=)", "(shape, dtype=, device=)")
    return empty_sparse(tuple(size), len(size), cls.dtype, device)


# ------------------------------------------------------------------ the types
BFloat16Tensor = _legacy_type("BFloat16", False)
BoolTensor = _legacy_type("Bool", False)
ByteTensor = _legacy_type("Byte", False)
CharTensor = _legacy_type("Char", False)
ComplexDoubleTensor = _legacy_type("ComplexDouble", False)
ComplexFloatTensor = _legacy_type("ComplexFloat", False)
DoubleTensor = _legacy_type("Double", False)
FloatTensor = _legacy_type("Float", False)
HalfTensor = _legacy_type("Half", False)
IntTensor = _legacy_type("Int", False)
LongTensor = _legacy_type("Long", False)
ShortTensor = _legacy_type("Short", False)
CPU_TYPES = (BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, ComplexDoubleTensor,
             ComplexFloatTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor,
             ShortTensor)
for _t in CPU_TYPES:
    export(_t.__name__)(_t)

# torch.cuda's (jtorch/cuda/__init__.py re-exports them under their own names)
CudaBFloat16Tensor = _legacy_type("BFloat16", True)
CudaBoolTensor = _legacy_type("Bool", True)
CudaByteTensor = _legacy_type("Byte", True)
CudaCharTensor = _legacy_type("Char", True)
CudaDoubleTensor = _legacy_type("Double", True)
CudaFloatTensor = _legacy_type("Float", True)
CudaHalfTensor = _legacy_type("Half", True)
CudaIntTensor = _legacy_type("Int", True)
CudaLongTensor = _legacy_type("Long", True)
CudaShortTensor = _legacy_type("Short", True)

# torch.sparse's (published there under their own names: torch.sparse.FloatTensor)
SparseBFloat16Tensor = _legacy_type("BFloat16", False, sparse=True)
SparseByteTensor = _legacy_type("Byte", False, sparse=True)
SparseCharTensor = _legacy_type("Char", False, sparse=True)
SparseDoubleTensor = _legacy_type("Double", False, sparse=True)
SparseFloatTensor = _legacy_type("Float", False, sparse=True)
SparseHalfTensor = _legacy_type("Half", False, sparse=True)
SparseIntTensor = _legacy_type("Int", False, sparse=True)
SparseLongTensor = _legacy_type("Long", False, sparse=True)
SparseShortTensor = _legacy_type("Short", False, sparse=True)
SPARSE_TYPES = (SparseBFloat16Tensor, SparseByteTensor, SparseCharTensor, SparseDoubleTensor,
                SparseFloatTensor, SparseHalfTensor, SparseIntTensor, SparseLongTensor,
                SparseShortTensor)
for _t in SPARSE_TYPES:
    export(_t.__name__, namespace="sparse")(_t)

CUDA_TYPES = (CudaBFloat16Tensor, CudaBoolTensor, CudaByteTensor, CudaCharTensor,
              CudaDoubleTensor, CudaFloatTensor, CudaHalfTensor, CudaIntTensor, CudaLongTensor,
              CudaShortTensor)

@export("new", namespace=None, method=True)
def new(self, *args, **kwargs):
    """``Tensor.new``: the legacy constructor of ``self``'s dtype and device type (``()``,
    ``(*sizes)``, ``(Size)``, ``(data)`` or ``(tensor)``, keyword ``device`` and ``size``)."""
    types = CUDA_TYPES if self.device.type == "cuda" else CPU_TYPES
    cls = next(c for c in types if c.dtype is self.dtype)
    return construct(cls, args, kwargs)


# ------------------------------------------------------------------ the default type
def _resolve(name):
    for cls in CPU_TYPES + CUDA_TYPES:
        if _type_name(cls) == name:
            return cls
    module, _, attr = name.rpartition(".")
    raise AttributeError(f"module '{module}' has no attribute '{attr}'")


@export()
def set_default_tensor_type(t, /):
    """Deprecated since PyTorch 2.1: set the default floating dtype from a legacy type (or
    its name): ``set_default_tensor_type(torch.DoubleTensor)`` is
    ``set_default_dtype(torch.float64)``.

    Differences from PyTorch:
        A CUDA type raises NotImplementedError (use ``set_default_dtype`` and
        ``set_default_device``) where CUDA is available.
    """
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
                  UserWarning, stacklevel=2)
    if isinstance(t, str):
        t = _resolve(t)
    if not isinstance(t, tensortype):
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    _check_available(t)
    if t.dtype.category != dtypes.FLOAT:
        raise TypeError("only floating-point types are supported as the default type")
    if t.is_cuda:
        raise NotImplementedError("jtorch does not implement torch.set_default_tensor_type with "
                                  "a CUDA type yet; use torch.set_default_dtype and "
                                  "torch.set_default_device instead")
    dtypes.set_default_dtype(t.dtype)
