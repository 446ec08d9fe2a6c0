"""``torch.jit._overload`` and ``torch.jit._overload_method``: TorchScript's overload
declarations, as in eager PyTorch.

Code written for TorchScript declares a function's typed overloads before its definition
(PyTorch Geometric's ``utils`` and convolutions do)::

    @torch.jit._overload
    def f(x: Tensor) -> Tensor: ...

    def f(x):  # the implementation; in Python this definition replaces the declarations
        ...

In eager PyTorch (and in jtorch, which has no TorchScript) the decorators check that the
declaration's body is ``pass`` or ``...``, record it, and return it unchanged.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import warnings

_overloaded_fns: dict = {}        # qualified name -> [declarations]
_overloaded_methods: dict = {}    # qualified name -> {class name: [declarations]}

_OVERLOAD_EXAMPLE = """
Example usage of overload function:
@torch.jit._overload
def my_function(x: type0) -> type0: # decl 1
    pass

@torch.jit._overload
def my_function(x: type1) -> type1: # decl 2
    pass

def my_function(x):                 # implementation
    if isinstance(x, type0):
        return x
    elif isinstance(x, type1):
        return x
"""


def _qualified_name(obj):
    return f"{obj.__module__}.{obj.__qualname__}"


def _check_overload_body(func):
    """PyTorch's check: a declaration's body is one ``pass`` or ``...`` (RuntimeError
    otherwise; a warning where the source cannot be read)."""
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        warnings.warn(f"Unable to retrieve source for @torch.jit._overload function: {func}.",
                      stacklevel=3)
        return
    body = ast.parse(source).body[0].body
    first = body[0]
    if len(body) != 1 or not (isinstance(first, ast.Pass) or (
            isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and first.value.value is Ellipsis)):
        raise RuntimeError(
            "Only `pass` statement or `...` can be the body of overload declaration:\n"
            + "\n".join(source.split("\n")[:3]) + " <- Expecting `pass` or `...` here!\n"
            + _OVERLOAD_EXAMPLE)


def _overload(func):
    """Record ``func`` as an overload declaration of a function; returns it."""
    _check_overload_body(func)
    _overloaded_fns.setdefault(_qualified_name(func), []).append(func)
    return func


def _overload_method(func):
    """Record ``func`` as an overload declaration of a method; returns it."""
    _check_overload_body(func)
    class_name = func.__qualname__.rsplit(".", 1)[0]
    by_class = _overloaded_methods.setdefault(_qualified_name(func), {})
    by_class.setdefault(class_name, []).append(func)
    return func


def _get_fn_overloads(qual_name):
    """The declarations recorded for function ``qual_name``, or None."""
    return _overloaded_fns.get(qual_name)


def _clear_fn_overloads(qual_name):
    del _overloaded_fns[qual_name]
