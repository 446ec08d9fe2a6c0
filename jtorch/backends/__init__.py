"""torch.backends: the switches of PyTorch's backends, with their effect on JAX where one
exists (``cuda.matmul.allow_tf32``: JAX's default matmul precision; see each module).

Modules: ``cpu``, ``cuda``, ``cudnn``, ``mkl``, ``mkldnn``, ``mps``, ``openmp``.

Differences from PyTorch:
    - ``cusparselt``, ``kleidiai``, ``mha``, ``miopen``, ``nnpack``, ``opt_einsum``,
      ``python_native`` and ``quantized`` raise NotImplementedError when used.
"""

from __future__ import annotations

from .._core.errors import MissingModule, torch_name_fallback
from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp"]

cusparselt = MissingModule("torch.backends.cusparselt")
kleidiai = MissingModule("torch.backends.kleidiai")
mha = MissingModule("torch.backends.mha")
miopen = MissingModule("torch.backends.miopen")
nnpack = MissingModule("torch.backends.nnpack")
opt_einsum = MissingModule("torch.backends.opt_einsum")
python_native = MissingModule("torch.backends.python_native")
quantized = MissingModule("torch.backends.quantized")

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.backends")
