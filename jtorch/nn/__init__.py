"""torch.nn: modules, parameters, functional, init and utils."""

from .._core.errors import torch_name_fallback
from . import (  # noqa: F401
    functional,
    init,
    modules,
    parallel,  # after modules: DDP builds on them
    utils,
)
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from .parallel import DataParallel  # noqa: F401
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401,E501

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.nn")
