"""torch.func: composable function transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap,
linearize) on JAX's transforms, and ``functional_call``/``stack_module_state`` for running
modules as functions of their parameters; ``functionalize``. See docs/func.md."""

from __future__ import annotations

from .._core.errors import torch_name_fallback
from ._autodiff import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._functionalize import functionalize
from ._modules import functional_call, replace_all_batch_norm_modules_, stack_module_state
from ._vmap import vmap

__all__ = ["functional_call", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd",
           "jacrev", "jvp", "linearize", "replace_all_batch_norm_modules_",
           "stack_module_state", "vjp", "vmap"]


# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.func")
