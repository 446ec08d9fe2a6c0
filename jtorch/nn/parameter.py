"""nn.Parameter, nn.Buffer and the uninitialized (lazy) forms.

A Parameter is a Tensor subclass that a Module registers as a parameter when assigned. It
holds the array of the tensor it was made from but, unlike PyTorch, does not share that
tensor's storage afterwards (jtorch tensors share storage only through views): in-place
writes to the source tensor after ``Parameter(t)`` are not seen by the parameter.
"""

from __future__ import annotations

from .._core.state import STATE
from .._core.tensor_base import instance_dict
from .._core.torch_function import _disabled_torch_function_impl
from .._ops.creation import empty
from .._tensor import Tensor, TensorMeta, set_obj_state

__all__ = ["Parameter", "UninitializedParameter", "is_lazy", "Buffer", "UninitializedBuffer",
           "UninitializedTensorMixin"]


class _ParameterMeta(TensorMeta):
    def __instancecheck__(cls, instance):
        # like PyTorch, a plain tensor flagged ``_is_param`` counts as a Parameter
        if cls is Parameter and isinstance(instance, Tensor) and instance._is_param:
            return True
        return super().__instancecheck__(instance)


def _wrap(cls, data, requires_grad):
    """A new ``cls`` instance holding ``data``'s array (detached), requires_grad as given."""
    if not isinstance(data, Tensor):
        raise TypeError(f"Parameter(): argument 'data' must be Tensor, not "
                        f"{type(data).__name__}")
    return Tensor._make_subclass(cls, data, requires_grad)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """``torch.nn.Parameter(data=None, requires_grad=True)``: a leaf tensor a Module owns.

    Ops on a Parameter return plain Tensors, as in PyTorch: it takes no part in the
    ``__torch_function__`` protocol.
    """

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        return _wrap(cls, data, requires_grad)

    def __deepcopy__(self, memo):
        # as PyTorch: a fresh parameter holding a copy of the data (no grad, no extra attrs)
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self, *, tensor_contents=None):
        return "Parameter containing:\n" + super().__repr__(tensor_contents=tensor_contents)

    def __reduce_ex__(self, proto):
        if STATE.saving is not None:   # in torch.save, from a subclass's own __reduce_ex__
            return STATE.saving.reduce_tensor(self)
        return (_rebuild_parameter, (self.detach(), self.requires_grad, type(self),
                                     self.__getstate__()))


def _rebuild_parameter(data, requires_grad, cls=Parameter, state=None):
    # as PyTorch: the state's attributes set (a property takes its own)
    return set_obj_state(_wrap(cls, data, requires_grad), state)


class UninitializedTensorMixin:
    """Shared by the uninitialized parameter/buffer of lazy modules: no shape until
    ``materialize(shape)`` turns it into ``cls_to_become``. (PyTorch's raises, through
    ``__torch_function__``, for most ops on it; jtorch's take no part in the protocol.)"""

    __torch_function__ = _disabled_torch_function_impl

    def materialize(self, shape, device=None, dtype=None):
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error "
            "usually happens in `load_state_dict` when trying to load an uninitialized "
            "parameter into an initialized one. Call `forward` to initialize the parameters "
            "before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self, *, tensor_contents=None):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param):
    """Whether ``param`` is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet (lazy modules)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _wrap(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result


class _BufferMeta(TensorMeta):
    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and \
                instance_dict(instance).get("_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """``torch.nn.Buffer(data=None, *, persistent=True)``: marks a tensor to be registered as
    a buffer when assigned to a Module attribute. Returns a plain Tensor (a detached alias of
    ``data``) flagged as a buffer, as PyTorch does."""

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (lazy modules)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = _wrap(cls, empty(0, device=device, dtype=dtype), requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass
