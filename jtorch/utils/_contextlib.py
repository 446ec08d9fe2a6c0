"""torch.utils._contextlib: PyTorch's helpers that make a context manager a decorator too
(tensordict's and torchrl's option setters subclass ``_DecoratorContextManager``)."""

from __future__ import annotations

from .._core.context_decorator import (
    context_decorator,
    decorate_with_clones,
    wrap_generator as _wrap_generator,
)

__all__ = ["_DecoratorContextManager", "_NoParamDecoratorContextManager", "_wrap_generator",
           "context_decorator"]


class _DecoratorContextManager:
    """Allow a context manager to be used as a decorator: each call runs under ``clone()``."""

    def __call__(self, orig_func):
        return decorate_with_clones(self, orig_func)

    def __enter__(self):
        raise NotImplementedError

    def __exit__(self, exc_type, exc_value, traceback):
        raise NotImplementedError

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Allow a context manager to be used as a decorator without parentheses."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)
