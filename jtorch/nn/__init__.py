"""torch.nn: modules, parameters, functional, init and utils."""

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
