"""torch._higher_order_ops: operators that take functions. jtorch has ``cond``
(``torch.cond``, jtorch/_higher_order_ops/cond.py), ``while_loop`` (``torch.while_loop``,
jtorch/_higher_order_ops/while_loop.py) and ``associative_scan``
(jtorch/_higher_order_ops/associative_scan.py)."""

from .associative_scan import associative_scan
from .cond import cond
from .while_loop import while_loop

__all__ = ["associative_scan", "cond", "while_loop"]
