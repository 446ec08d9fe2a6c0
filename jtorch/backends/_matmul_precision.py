"""The float32 matmul precision (``torch.set_float32_matmul_precision``) and its legacy switch
``torch.backends.cuda.matmul.allow_tf32``, applied to JAX's ``jax_default_matmul_precision``.

PyTorch's three settings map onto JAX's: "highest" -> "float32" (full float32 products),
"high" -> "tensorfloat32" (TF32 on GPUs that have it), "medium" -> "bfloat16". jtorch applies
PyTorch's default, "highest", when it is imported (JAX's own default lets XLA use TF32 on GPU).
On the CPU XLA computes float32 products in float32 under every setting, as PyTorch does.

Differences from PyTorch:
    - JAX has one default precision for matmuls AND convolutions, so convolutions follow this
      setting; ``torch.backends.cudnn.allow_tf32`` is kept and reported but changes nothing.
    - PyTorch's newer per-backend ``fp32_precision`` attributes are not there.
"""

from __future__ import annotations

import warnings

import jax

__all__ = ["set_float32_matmul_precision", "get_float32_matmul_precision"]

_JAX_NAME = {"highest": "float32", "high": "tensorfloat32", "medium": "bfloat16"}
_current = ["highest"]


def set_float32_matmul_precision(precision):
    """Set the internal precision of float32 matrix multiplications (and, in jtorch,
    convolutions): "highest", "high" or "medium".

    Args:
        precision (str): "highest" (float32), "high" (TF32 where the GPU has it) or "medium"
            (bfloat16). Any other value warns and changes nothing, as in PyTorch.
    """
    if precision not in _JAX_NAME:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", stacklevel=2)
        return
    _current[0] = precision
    jax.config.update("jax_default_matmul_precision", _JAX_NAME[precision])


def get_float32_matmul_precision():
    """The current float32 matmul precision: "highest", "high" or "medium"."""
    return _current[0]


def allow_tf32():
    """``torch.backends.cuda.matmul.allow_tf32``: any precision below "highest"."""
    return _current[0] != "highest"


def set_allow_tf32(flag):
    """Setting ``allow_tf32`` is setting the precision to "high" (True) or "highest"."""
    set_float32_matmul_precision("high" if flag else "highest")


set_float32_matmul_precision("highest")
