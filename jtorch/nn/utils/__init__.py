"""torch.nn.utils."""

from ..._core.errors import torch_name_fallback
from . import (  # noqa: F401
    clip_grad,
    convert_parameters,
    parametrizations,
    parametrize,
    prune,
    rnn,
    stateless,
)
from .clip_grad import *  # noqa: F401,F403
from .convert_parameters import *  # noqa: F401,F403

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.nn.utils")
