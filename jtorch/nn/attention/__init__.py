"""torch.nn.attention: the backend switches of ``F.scaled_dot_product_attention``.

``sdpa_kernel(backends)`` (a context manager and a decorator) enables only the given
:class:`SDPBackend` s for its block, with PyTorch's argument checks, and restores the previous
switches after it. jtorch has ONE attention kernel (XLA's, with PyTorch's math backend
semantics), so the switches do not change what runs or its numbers; they decide only whether a
call may run: where PyTorch would find no viable backend (on the CPU: neither MATH nor
FLASH_ATTENTION enabled), jtorch raises PyTorch's error, "No viable backend for
scaled_dot_product_attention was found...". See jtorch/_ops/sdp_backends.py.

Differences from PyTorch:
    - On a GPU, PyTorch may refuse a fused backend for inputs it does not support ("No
      available kernel. Aborting execution."); jtorch's kernel runs any input, so only switching
      off every backend raises there.
    - The flash-attention implementation registry (``register_flash_attention_impl`` and
      friends) and the submodules ``bias``, ``varlen`` and ``experimental`` raise
      NotImplementedError. ``flex_attention`` is a dense implementation (see
      jtorch/nn/attention/flex_attention.py).
"""

from __future__ import annotations

import contextlib
import enum

from ..._core.errors import MissingModule, missing_function
from ..._ops import sdp_backends
from . import flex_attention  # the submodule (torch.nn.attention.flex_attention)

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS",
           "register_flash_attention_impl", "activate_flash_attention_impl",
           "list_flash_attention_impls", "current_flash_attention_impl",
           "restore_flash_attention_impl"]

# PyTorch warns, when True, why its fused kernels cannot run for a call; jtorch has no fused
# kernels to refuse, so setting it changes nothing
WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.Enum):
    """The backends of scaled dot product attention (PyTorch's values): ERROR, MATH,
    FLASH_ATTENTION, EFFICIENT_ATTENTION, CUDNN_ATTENTION, OVERRIDEABLE. As PyTorch's, a member
    converts with ``int()`` but does not equal its int."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self):
        return self.value

    __index__ = __int__


SDPBackend.__module__ = __name__

# PyTorch's flag name of each backend
_backend_names = {
    "cudnn": "CUDNN_ATTENTION",
    "flash": "FLASH_ATTENTION",
    "mem_efficient": "EFFICIENT_ATTENTION",
    "math": "MATH",
    "overrideable": "OVERRIDEABLE",
}


def _cur_sdpa_kernel_backends(with_priority=False):
    backends = [SDPBackend[val] for name, val in _backend_names.items()
                if sdp_backends.ENABLED[name]]
    if with_priority:
        backends.sort(key=lambda b: sdp_backends.PRIORITY.index(int(b)))
    return backends


def _sdpa_kernel(backends, set_priority=False):
    for name, val in _backend_names.items():
        sdp_backends.ENABLED[name] = SDPBackend[val] in backends
    if set_priority:
        user_priority = [int(b) for b in backends]
        user_priority += [b for b in sdp_backends.PRIORITY if b not in user_priority]
        sdp_backends.PRIORITY[:] = user_priority


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Enable only ``backends`` (an :class:`SDPBackend` or a list of them) for
    scaled dot product attention in the block (or the decorated function).

    Args:
        backends: the backend(s) to enable; the others are switched off.
        set_priority: the list's order is the backends' priority.

    Example:
        >>> from torch.nn.attention import SDPBackend, sdpa_kernel
        >>> with sdpa_kernel(SDPBackend.MATH):
        ...     out = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    """
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend "
                             f"instances, got {type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(dict.fromkeys(backends))
    previous = _cur_sdpa_kernel_backends(with_priority=set_priority)
    try:
        _sdpa_kernel(backends, set_priority)
        yield {}
    finally:
        _sdpa_kernel(previous, set_priority)


register_flash_attention_impl = missing_function(
    "torch.nn.attention.register_flash_attention_impl")
activate_flash_attention_impl = missing_function(
    "torch.nn.attention.activate_flash_attention_impl")
list_flash_attention_impls = missing_function("torch.nn.attention.list_flash_attention_impls")
current_flash_attention_impl = missing_function(
    "torch.nn.attention.current_flash_attention_impl")
restore_flash_attention_impl = missing_function(
    "torch.nn.attention.restore_flash_attention_impl")

bias = MissingModule("torch.nn.attention.bias")
varlen = MissingModule("torch.nn.attention.varlen")
experimental = MissingModule("torch.nn.attention.experimental")
