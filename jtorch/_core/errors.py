"""jtorch's own errors: what a trace cannot do, and the PyTorch APIs jtorch does not have.

Errors that PyTorch also raises keep PyTorch's type and wording where they are raised. The ones
here exist only in jtorch, so they say what happened, why, and what to do instead.
"""

from __future__ import annotations

import types


class TraceError(RuntimeError):
    """A jtorch operation that needs a concrete value ran while being traced by jax.jit."""


def concretization_error(what: str) -> TraceError:
    return TraceError(
        f"jtorch: {what} inside a traced function (jtorch.compile, jax.jit, vmap...).\n"
        "While tracing, a Tensor holds a placeholder, not numbers, so its value cannot reach "
        "Python.\nFix: keep the value as a Tensor (use jtorch.where instead of an `if` on a "
        "tensor, return the tensor and call .item() outside the compiled function), or run "
        "this part eagerly.")


# ------------------------------------------------------------------ what jtorch does not have
def not_implemented(api: str, instead: str | None = None) -> NotImplementedError:
    """The error for PyTorch's ``api`` (its full name, e.g. ``"torch.nn.functional.ctc_loss"``),
    naming what to use instead where jtorch or JAX has an alternative."""
    msg = f"jtorch does not implement {api} yet"
    if instead:
        msg += f"; use {instead} instead"
    return NotImplementedError(msg)


def missing_function(api: str, instead: str | None = None):
    """A stand-in for PyTorch function ``api``: calling it raises :func:`not_implemented`."""
    name = api.rsplit(".", 1)[-1]

    def missing(*args, **kwargs):
        raise not_implemented(api, instead)

    missing.__name__ = missing.__qualname__ = name
    missing.__doc__ = f"Not implemented in jtorch: ``{api}``" + (f" (use {instead})."
                                                              if instead else ".")
    return missing


def missing_class(api: str, instead: str | None = None, bases: tuple = ()):
    """A stand-in for PyTorch class ``api``: it can be named, subclassed and used in
    ``isinstance``; making an instance raises :func:`not_implemented`."""
    name = api.rsplit(".", 1)[-1]

    def __init__(self, *args, **kwargs):
        raise not_implemented(api, instead)

    return type(name, bases, {"__init__": __init__, "__doc__": f"Not implemented: ``{api}``.",
                              "__module__": api.rsplit(".", 1)[0]})


class MissingModule(types.ModuleType):
    """A stand-in for PyTorch submodule ``api``: any public name read from it raises
    :func:`not_implemented` for that name."""

    def __init__(self, api: str, instead: str | None = None):
        super().__init__(api)
        self._instead = instead

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise not_implemented(f"{self.__name__}.{name}", self._instead)
