"""jtorch: PyTorch's API on JAX. ``import jtorch as torch``.

JAX's 64-bit mode is switched on at import (PyTorch has int64 and float64); every jtorch
creation path states its dtype, so float32 stays the default. See docs/differences.md.
"""

from __future__ import annotations

import jax as _jax

_jax.config.update("jax_enable_x64", True)

from . import _ops, _tensor_str, autograd, cuda, random
from ._core import dtypes as _dtype
from ._core.device import device  # noqa: E402
from ._core.dtypes import (
    bfloat16,
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    set_default_dtype,
    uint8,
)
from ._core.dtypes import bool_ as bool  # noqa: E402,A001
from ._core.generator import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from ._core.kernel import return_types
from ._ops import convert as _convert
from ._ops import typeinfo as _typeinfo
from ._ops._registry import NAMESPACES as _NS  # noqa: E402
from ._ops._registry import TENSOR_METHODS as _TM
from ._ops.creation import (
    as_tensor,
    asarray,
    empty,
    empty_like,
    from_numpy,
    full,
    full_like,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from ._tensor import Size, Tensor  # noqa: E402
from .autograd import (  # noqa: E402
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)

globals().update({k: v for k, v in _dtype.ALIASES.items() if k != "bool"})

# the components built on the core; importing them registers their ops (nn.functional...)
from . import (  # noqa: E402,F401
    amp,
    compiler,  # noqa: E402
    cpu,
    func,
    nn,
    optim,
    serialization,
    utils,
    vision,
)
from .compiler import compile  # noqa: E402,F401,A001
from .serialization import load, save  # noqa: E402,F401

for _name, _fn in _TM.items():
    if _name not in Tensor.__dict__ or _name.startswith("__"):
        setattr(Tensor, _name, _fn)
del _name, _fn


def _export(namespaces):
    import types

    g = globals()
    for ns, fns in namespaces.items():
        if ns == "":
            for k, v in fns.items():
                if "." not in k:
                    g.setdefault(k, v)
            continue
        head, *rest = ns.split(".")
        mod = g.get(head)
        if mod is None:
            mod = g[head] = types.ModuleType(f"jtorch.{head}")
        for i, part in enumerate(rest):  # "nn.functional": walk (and make) the submodules
            sub = getattr(mod, part, None)
            if sub is None:
                sub = types.ModuleType(f"jtorch.{'.'.join([head, *rest[:i + 1]])}")
                setattr(mod, part, sub)
            mod = sub
        for k, v in fns.items():
            setattr(mod, k.rsplit(".", 1)[-1], v)


_export(_NS)


class _Layout:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


strided = _Layout("strided")
sparse_coo = _Layout("sparse_coo")


class memory_format:  # noqa: N801 - PyTorch's name
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")

__version__ = "0.1.0"
