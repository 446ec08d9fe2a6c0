"""torch.fx.node: ``Node`` only, the stand-in class ``torch.fx.Node`` is here (jtorch has no
FX), so that libraries naming it at import (opt_einsum_fx, which e3nn imports) load; making a
Node raises NotImplementedError, as do ``map_arg`` and the other FX helpers."""

from .._core.errors import missing_names
from . import __getattr__ as _fx_name

Node = _fx_name("Node")

__getattr__ = missing_names("torch.fx.node", ["map_arg", "map_aggregate", "has_side_effect",
                                              "normalize_function", "normalize_module"])
