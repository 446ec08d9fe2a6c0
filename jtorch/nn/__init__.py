"""torch.nn: modules, parameters, functional, init and utils."""

from . import functional, init, modules, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401,E501

# the star import bound ``attention`` to nn.modules.attention; torch.nn.attention is the package
del attention  # noqa: F821
from . import attention  # noqa: E402,F401,I001
