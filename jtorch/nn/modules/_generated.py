"""Methods generated from a constructor signature, for modules whose forward is one call of a
functional (the activations, the losses, Fold, PixelShuffle...).

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


def describe(module, names):
    """PyTorch's usual extra_repr: ``name=value`` for each argument, then ``inplace=True`` only
    when set."""
    shown = [f"{n}={getattr(module, n)}" for n in names if n != "inplace"]
    if "inplace" in names and module.inplace:
        shown.append("inplace=True")
    return ", ".join(shown)


def changed_options(module, defaults):
    """The part of a PyTorch extra_repr format string that names the options differing from
    their ``defaults`` (name -> default, in repr order): ``", name={name}"`` each. A
    True/False/None default is compared by identity, any other by value, as PyTorch's do."""
    return "".join(f", {name}={{{name}}}" for name, default in defaults.items()
                   if _differs(getattr(module, name), default))


def _differs(value, default):
    if default is None or isinstance(default, bool):
        return value is not default
    return value != default


def functional_module(functional, signature="", *, inputs="input", extra_repr=None):
    """Class decorator for a module that stores its arguments and calls ``functional``:
    ``cls(<signature>)`` keeps each argument as an attribute of that name (and lists the names
    in ``__constants__``); ``forward(<inputs>)`` is ``functional(<inputs>, <the arguments in
    order>)`` (``functional=None``: ``self._functional``, for a :class:`CallsFunctional`
    family); ``extra_repr`` is :func:`describe`, or this format string of the attributes.
    What the class body defines is kept."""

    def decorate(cls):
        names = parameter_names(signature)
        arguments = "".join(f", self.{n}" for n in names)
        call = "self._functional" if functional is None else "functional"
        define_method(cls, "forward", inputs, [f"return {call}({inputs}{arguments})"],
                      {"functional": functional})
        if not names:
            return cls
        define_method(cls, "__init__", signature,
                      ["super(cls, self).__init__()", *(f"self.{n} = {n}" for n in names)],
                      {"cls": cls})
        if extra_repr is None:
            define_method(cls, "extra_repr", "", ["return describe(self, names)"],
                          {"describe": describe, "names": tuple(names)})
        else:
            define_method(cls, "extra_repr", "", ["return text.format(**self.__dict__)"],
                          {"text": extra_repr})
        if "__constants__" not in cls.__dict__:
            cls.__constants__ = names
        return cls

    return decorate


class CallsFunctional:
    """Base of a family of modules that differ only in the functional they call: a member
    names it in its class statement (``class Softmax(_SoftmaxBase, functional=F.softmax)``)
    and its methods call ``self._functional``."""

    _functional = None

    def __init_subclass__(cls, functional=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if functional is not None:
            cls._functional = staticmethod(functional)
