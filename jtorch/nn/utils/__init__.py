"""torch.nn.utils."""

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
