"""torch.utils._contextlib: PyTorch's helpers that make a context manager a decorator too
(tensordict's and torchrl's option setters subclass ``_DecoratorContextManager``)."""

from __future__ import annotations

import functools
import inspect
import warnings

from ..autograd.grad_mode import _wrap_generator

__all__ = ["_DecoratorContextManager", "_NoParamDecoratorContextManager", "_wrap_generator",
           "context_decorator"]


def context_decorator(ctx, func):
    """Wraps ``func`` (a generator function step by step) in ``ctx``: a multi-shot context
    manager, or a callable that makes one per call. Classes cannot be decorated."""
    if callable(ctx) and hasattr(ctx, "__enter__"):
        raise AssertionError(
            f"Passed in {ctx} is both callable and also a valid context manager (has "
            "__enter__), making it ambiguous which interface to use.  If you intended to pass "
            "a context manager factory, rewrite your call as context_decorator(lambda: "
            "ctx()); if you intended to pass a context manager directly, rewrite your call as "
            "context_decorator(lambda: ctx)")
    ctx_factory = ctx if callable(ctx) else (lambda: ctx)
    if inspect.isclass(func):
        raise RuntimeError(
            "Cannot decorate classes; it is ambiguous whether or not only the constructor or "
            "all methods should have the context manager applied; additionally, decorating a "
            "class at definition-site will prevent use of the identifier as a conventional "
            "type.  To specify which methods to decorate, decorate each of them individually.")
    if inspect.isgeneratorfunction(func):
        return _wrap_generator(ctx_factory, func)

    @functools.wraps(func)
    def decorate_context(*args, **kwargs):
        with ctx_factory():
            return func(*args, **kwargs)

    return decorate_context


class _DecoratorContextManager:
    """Allow a context manager to be used as a decorator: each call runs under ``clone()``."""

    def __call__(self, orig_func):
        func = orig_func
        if inspect.isclass(orig_func):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You "
                "should only decorate functions or methods. To preserve the current behavior "
                "of class decoration, you can directly decorate the `__init__` method and "
                "nothing else.", FutureWarning, stacklevel=2)

            def func(*args, **kwargs):
                return orig_func(*args, **kwargs)
        return context_decorator(self.clone, func)

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
