"""The process-wide switches of scaled-dot-product attention's backends (PyTorch's
``at::globalContext()`` flags, set by ``torch.nn.attention.sdpa_kernel`` and
``torch.backends.cuda.enable_*_sdp``), and the check that some enabled backend can run.

jtorch has one attention kernel (XLA's, with the math backend's semantics), so the switches
choose nothing; they only decide, as in PyTorch, whether a call may run at all: on the CPU
PyTorch has the math and the flash backends, so a call with both switched off raises PyTorch's
error; on a GPU any enabled backend counts (PyTorch may still refuse a fused backend for inputs
it does not support, where jtorch's kernel runs).
"""

from __future__ import annotations

# backend name (PyTorch's flag name) -> enabled; PyTorch enables all of them by default
ENABLED = {"math": True, "flash": True, "mem_efficient": True, "cudnn": True,
           "overrideable": True}
# PyTorch's default priority of the fused backends: flash, efficient, math, cudnn, overrideable
PRIORITY = [1, 2, 0, 3, 4]

_CPU_BACKENDS = ("math", "flash")
_GPU_BACKENDS = ("math", "flash", "mem_efficient", "cudnn")


def check_viable(device_type):
    """Raise PyTorch's error when no enabled backend can run on ``device_type``."""
    names = _CPU_BACKENDS if device_type == "cpu" else _GPU_BACKENDS
    if not any(ENABLED[n] for n in names):
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This "
                           "is likely due to turning off both the math kernel and the fused "
                           "kernels.")
