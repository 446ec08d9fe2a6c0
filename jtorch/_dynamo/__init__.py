"""torch._dynamo: the names programs reach for around ``torch.compile`` (``reset``,
``mark_static_address``, ``allow_in_graph``, ``config``...), for jtorch.compile.

jtorch.compile traces whole functions into one XLA program (jtorch/_compile), so the hints
Dynamo takes about graphs, guards and CUDA graphs (``mark_dynamic``, ``mark_static``,
``mark_static_address``, ``allow_in_graph``, ``graph_break``) change nothing in what runs or
its results; they are accepted and return what PyTorch's return. ``optimize``, ``explain``
and ``export`` raise NotImplementedError (use ``torch.compile`` and ``torch.export``).
"""

from __future__ import annotations

from .. import compiler as _compiler
from .._core.errors import missing_names
from . import config as config, eval_frame as eval_frame, exc as exc
from .eval_frame import OptimizedModule as OptimizedModule

__all__ = ["OptimizedModule", "allow_in_graph", "assume_constant_result", "config", "disable",
           "eval_frame", "exc", "graph_break", "is_compiling", "mark_dynamic", "mark_static",
           "mark_static_address", "maybe_mark_dynamic", "reset"]

allow_in_graph = _compiler.allow_in_graph
assume_constant_result = _compiler.assume_constant_result
disable = _compiler.disable
is_compiling = _compiler.is_compiling
reset = _compiler.reset


def mark_dynamic(t, index, *, min=None, max=None, specialize_on=None):  # noqa: A002
    """A hint for Dynamo's symbolic shapes; jtorch compiles each shape it meets."""


def maybe_mark_dynamic(t, index):
    """A hint for Dynamo's symbolic shapes; jtorch compiles each shape it meets."""


def mark_static(t, index=None):
    """A hint for Dynamo's symbolic shapes; jtorch's shapes are always static."""


def mark_static_address(t, guard=True):
    """A hint for CUDA graphs (the tensor keeps its memory); jtorch records none."""


def graph_break(msg=""):
    """A split point for Dynamo; jtorch.compile traces the whole function as one program."""


__getattr__ = missing_names("torch._dynamo", ("explain", "export", "optimize",
                                              "optimize_assert", "run"))
