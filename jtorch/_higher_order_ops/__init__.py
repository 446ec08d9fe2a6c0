"""torch._higher_order_ops: operators that take functions. jtorch has ``cond``
(``torch.cond``, jtorch/_higher_order_ops/cond.py) and ``while_loop`` (``torch.while_loop``,
jtorch/_higher_order_ops/while_loop.py)."""

from .cond import cond
from .while_loop import while_loop

__all__ = ["cond", "while_loop"]
