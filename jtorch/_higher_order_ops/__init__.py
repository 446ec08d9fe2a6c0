"""torch._higher_order_ops: operators that take functions. jtorch has ``cond``
(``torch.cond``); see jtorch/_higher_order_ops/cond.py."""

from .cond import cond

__all__ = ["cond"]
