"""Methods generated from a constructor signature, for modules whose forward is one call of a
functional (the activations and the losses).

A module class states PyTorch's constructor signature once, as text (``"alpha=1.0,
inplace=False"``), and the functional it calls, as the function object. Its ``__init__`` and
``forward`` are then compiled from that text, as ``dataclasses`` compiles ``__init__``: real
functions with PyTorch's exact parameters (so ``inspect.signature``, keyword arguments and the
errors for wrong arguments are Python's own), and no per-call overhead over hand-written ones.
"""

from __future__ import annotations

import ast


def parameter_names(signature: str) -> list[str]:
    """The parameter names of ``signature``, the text of a parameter list."""
    args = ast.parse(f"def f({signature}): pass").body[0].args
    return [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]


def define_method(cls, name: str, parameters: str, body: list[str], namespace: dict):
    """Set ``cls.<name>`` to ``def <name>(self, <parameters>): <body lines>``, compiled with
    ``namespace`` as its globals; a method the class body defines itself is kept instead."""
    if name in cls.__dict__:
        return
    source = (f"def {name}(self{', ' if parameters else ''}{parameters}):\n"
              + "".join(f"    {line}\n" for line in body))
    scope: dict = {}
    exec(source, dict(namespace), scope)  # noqa: S102 - fixed text built above
    method = scope[name]
    method.__qualname__ = f"{cls.__qualname__}.{name}"
    method.__module__ = cls.__module__
    setattr(cls, name, method)
