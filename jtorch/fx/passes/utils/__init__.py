"""torch.fx.passes.utils: the subgraph matcher (``matcher_utils``)."""

from . import matcher_utils as matcher_utils
