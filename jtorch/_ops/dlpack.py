"""DLPack, the array-exchange protocol: ``torch.from_dlpack`` (anything with ``__dlpack__``,
or a capsule) and ``Tensor.__dlpack__``/``__dlpack_device__`` (so ``numpy.from_dlpack(t)`` and
``jax.numpy.from_dlpack(t)`` read a jtorch tensor).

PyTorch shares memory with the producer. JAX's arrays are immutable and its ``from_dlpack``
copies host buffers, so a jtorch tensor made this way does not see later writes to the array
it came from (documented in docs/differences.md).
"""

from __future__ import annotations

import ctypes

import jax.numpy as jnp

from .._core.device import device_of
from .._core.tensor_base import TensorBase
from ._registry import export

_INVALID_CAPSULE = ("from_dlpack received an invalid capsule. Note that DLTensor capsules can "
                    "be consumed only once, so you might have already constructed a tensor "
                    "from it once.")


@export("from_dlpack")
def from_dlpack(ext_tensor):
    """A tensor with the values of a DLPack producer (an object with ``__dlpack__``, such as a
    NumPy or JAX array, or a DLPack capsule)."""
    if isinstance(ext_tensor, TensorBase):
        return ext_tensor
    if hasattr(ext_tensor, "__dlpack__"):
        arr = jnp.from_dlpack(ext_tensor)
    elif type(ext_tensor).__name__ == "PyCapsule":
        arr = jnp.from_dlpack(_Capsule(ext_tensor))
    else:
        raise RuntimeError(_INVALID_CAPSULE)
    return TensorBase._make(arr, device_of(arr))


class _Capsule:
    """A legacy DLPack capsule (``to_dlpack``'s, named "dltensor") as the producer object
    JAX's ``from_dlpack`` takes: its device read from the DLTensor the capsule points to
    (``void* data`` then ``DLDevice {int32 type, int32 id}``)."""

    def __init__(self, capsule):
        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
        try:
            ptr = get(capsule, b"dltensor")
        except ValueError:
            raise RuntimeError(_INVALID_CAPSULE) from None
        device = (ctypes.c_int32 * 2).from_address(ptr + ctypes.sizeof(ctypes.c_void_p))
        self.capsule, self.device = capsule, (int(device[0]), int(device[1]))

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


def _exportable(self):
    if self._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    return self._value


@export("__dlpack__", namespace=None, method=True)
def dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """The DLPack capsule of the tensor's array (``max_version`` and the rest as the array
    protocol's)."""
    kwargs = {k: v for k, v in (("stream", stream), ("max_version", max_version),
                                ("dl_device", dl_device), ("copy", copy)) if v is not None}
    return _exportable(self).__dlpack__(**kwargs)


@export("__dlpack_device__", namespace=None, method=True)
def dlpack_device(self):
    """(device type, index) as DLPack numbers them: (1, 0) for the CPU."""
    return _exportable(self).__dlpack_device__()
