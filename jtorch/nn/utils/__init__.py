"""torch.nn.utils. The functions ``spectral_norm`` and ``weight_norm`` shadow their modules'
names here, as in PyTorch."""

from ..._core.errors import torch_name_fallback
from . import (  # noqa: F401
    clip_grad,
    convert_parameters,
    fusion,
    init,
    memory_format,
    parametrizations,
    parametrize,
    prune,
    rnn,
    stateless,
)
from .clip_grad import *  # noqa: F401,F403
from .convert_parameters import *  # noqa: F401,F403
from .fusion import *  # noqa: F401,F403
from .init import skip_init  # noqa: F401
from .memory_format import *  # noqa: F401,F403
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.nn.utils")
