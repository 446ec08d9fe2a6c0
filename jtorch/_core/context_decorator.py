"""Context managers that are decorators too (PyTorch's torch.utils._contextlib): the grad modes
(jtorch/autograd/grad_mode.py) and torch.utils._contextlib's public helpers share these."""

from __future__ import annotations

import functools
import inspect
import sys
import warnings


def decorate_with_clones(manager, orig_func):
    """``@manager`` on ``orig_func``: each call runs under ``manager.clone()`` (a generator
    function step by step); a class warns as PyTorch's and is wrapped as a function."""
    func = orig_func
    if inspect.isclass(orig_func):
        warnings.warn(
            "Decorating classes is deprecated and will be disabled in future versions. You "
            "should only decorate functions or methods. To preserve the current behavior "
            "of class decoration, you can directly decorate the `__init__` method and "
            "nothing else.", FutureWarning, stacklevel=3)

        def func(*args, **kwargs):
            return orig_func(*args, **kwargs)
    return context_decorator(manager.clone, func)


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
        return wrap_generator(ctx_factory, func)

    @functools.wraps(func)
    def decorate_context(*args, **kwargs):
        with ctx_factory():
            return func(*args, **kwargs)

    return decorate_context


def wrap_generator(factory, fn):
    """Runs every step of the generator under a fresh context (as PyTorch's)."""

    @functools.wraps(fn)
    def generator_context(*args, **kwargs):
        gen = fn(*args, **kwargs)
        try:
            with factory():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with factory():
                        gen.close()
                    raise
                except BaseException:
                    with factory():
                        response = gen.throw(*sys.exc_info())
                else:
                    with factory():
                        response = gen.send(request)
        except StopIteration as e:
            return e.value

    return generator_context
