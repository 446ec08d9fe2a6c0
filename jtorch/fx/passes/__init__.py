"""torch.fx.passes: the graph passes jtorch has (``shape_prop``)."""

from . import shape_prop as shape_prop
