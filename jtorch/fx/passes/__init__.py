"""torch.fx.passes: the graph passes jtorch has (``shape_prop``; ``utils.matcher_utils``)."""

from . import shape_prop as shape_prop, utils as utils
