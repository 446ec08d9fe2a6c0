"""torch.jit on jtorch: TorchScript's eager-mode API, with ``trace`` and ``script`` made into
``jtorch.compile``.

jtorch has no TorchScript; its compiler is ``jtorch.compile`` (one XLA program per function).
So, as in eager PyTorch, ``is_scripting()`` and ``is_tracing()`` are False, ``ignore``,
``unused`` and ``export`` mark and return the function (PyTorch's ``_torchscript_modifier``),
``annotate`` returns the value, ``Attribute`` is PyTorch's eager named tuple, ``Final`` is
``typing.Final``; and:

- ``trace(func, example_inputs)`` runs ``func`` once on the example inputs (as PyTorch's trace
  does) and returns it compiled (a function is compiled as a module holding it, so the result
  is differentiable in its inputs, as PyTorch's traced function); where a traced function
  reads tensor values in Python, jtorch.compile warns and runs it eagerly, so results stay
  right (PyTorch's trace would bake in the branch taken).
- ``script(fn_or_module)`` returns ``jtorch.compile(fn_or_module)``; a call that the compiler
  cannot make into one program (Python control flow on tensor values, ``int()`` of a tensor,
  data-dependent shapes, all of which TorchScript compiles) runs eagerly with jtorch.compile's
  warning, so it returns what PyTorch's scripted code returns (torchkbnufft scripts its
  NUFFT kernels at import; TorchANI scripts its models). Scripting a class returns the class,
  as PyTorch does (which also compiles it for TorchScript callers; PyTorch Geometric scripts
  its dataclasses at import), after PyTorch's checks: an ``nn.Module`` subclass or a class
  that inherits from anything but ``object`` (an Enum excepted) raises PyTorch's RuntimeError.

Differences from PyTorch:
    - ``is_tracing()`` is False also while ``trace`` runs the function (jtorch.compile traces
      with JAX, not with PyTorch's tracer).
    - Scripted and traced objects are jtorch.compile's compiled modules (no ``.graph``,
      ``.code``, ``save``). A scripted module is a ``ScriptModule`` (``RecursiveScriptModule``;
      a scripted function a ``ScriptFunction``) that has the module's own parameters, buffers
      and submodules, so its ``state_dict`` keys are the module's, as PyTorch's; its
      ``train``/``eval`` set the module's mode too (PyTorch's scripted copy has its own). A
      traced module's keys carry ``jtorch.compile``'s ``_orig_mod.`` prefix. A class that
      subclasses ``ScriptModule`` (with ``@script_method``s) is an eager module. ``save``,
      ``load``, ``freeze`` and the other TorchScript tools raise NotImplementedError naming
      ``torch.export``/``jtorch.save`` or ``jtorch.compile``.
    - ``fork`` runs the function at once and ``wait`` returns its result, as PyTorch's fork
      does outside TorchScript (``Future`` is jtorch/futures.py's).
"""

from __future__ import annotations

import builtins
import collections
import enum
import functools
import typing
import warnings

from .._compile.module import OptimizedModule
from .._compile.step import CompileError
from .._core.errors import (
    MissingModule,
    missing_class,
    missing_function,
    not_implemented,
    torch_name_fallback,
)
from ..futures import Future as Future
from ..nn.modules.module import Module
from ._overload import _overload as _overload, _overload_method as _overload_method

__all__ = ["Attribute", "CompilationUnit", "Error", "Future", "ScriptFunction", "ScriptModule",
           "annotate", "enable_onednn_fusion", "export", "export_opnames", "fork", "freeze",
           "interface", "ignore", "isinstance", "load", "onednn_fusion_enabled",
           "optimize_for_inference", "save", "script", "script_if_tracing",
           "set_fusion_strategy", "strict_fusion", "trace", "trace_module", "unused", "wait",
           "is_scripting", "is_tracing", "Final"]

Final = typing.Final

_INSTEAD = "jtorch.compile (torch.compile), which compiles functions and modules to XLA"


class FunctionModifiers:
    """How TorchScript treats a function (PyTorch's markers, set by export/ignore/unused)."""

    UNUSED = "unused (ignored and replaced with raising of an exception)"
    IGNORE = "ignore (leave as a call to Python, cannot be torch.jit.save'd)"
    EXPORT = "export (compile this function even if nothing calls it)"
    DEFAULT = "default (compile if called from an exported function / forward)"


def is_scripting() -> bool:
    """False: jtorch never runs TorchScript."""
    return False


def is_tracing() -> bool:
    """False: jtorch has no TorchScript tracer (see the module's differences)."""
    return False


def export(fn):
    """Mark a method to compile even if nothing calls it; returns ``fn``."""
    fn._torchscript_modifier = FunctionModifiers.EXPORT
    return fn


def unused(fn):
    """Mark a function (or a property's accessors) that TorchScript replaces with a raise;
    returns it."""
    if builtins.isinstance(fn, property):
        fn.fget._torchscript_modifier = FunctionModifiers.UNUSED
        if fn.fset:
            fn.fset._torchscript_modifier = FunctionModifiers.UNUSED
        return fn
    fn._torchscript_modifier = FunctionModifiers.UNUSED
    return fn


def ignore(drop=False, **kwargs):
    """Mark a function that TorchScript leaves as a Python call; usable as ``@ignore`` and
    ``@ignore(drop=...)`` (PyTorch's deprecation warnings and argument check)."""
    if callable(drop):
        drop._torchscript_modifier = FunctionModifiers.IGNORE
        return drop
    if not builtins.isinstance(drop, bool):
        raise RuntimeError(
            f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}")
    drop_on_export = kwargs.pop("drop_on_export", None)
    if drop_on_export:
        warnings.warn("ignore(drop_on_export=True) has been deprecated. TorchScript will now "
                      "drop the function call on compilation. Use torch.jit.unused now. {}",
                      stacklevel=2, category=FutureWarning)
        drop = drop_on_export
    elif drop:
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function "
                      "call on compilation. Use torch.jit.unused now. {}", stacklevel=2,
                      category=FutureWarning)

    def decorator(fn):
        fn._torchscript_modifier = (FunctionModifiers.UNUSED if drop
                                    else FunctionModifiers.IGNORE)
        return fn

    return decorator


def annotate(the_type, the_value):
    """TorchScript's type hint for ``the_value``; returns ``the_value``."""
    return the_value


# TorchScript's attribute type hint; in eager PyTorch a named tuple (value, type)
Attribute = collections.namedtuple("Attribute", ["value", "type"])


def script_method(fn):
    """``torch.jit.script_method``: marks a method of a :class:`ScriptModule` subclass for
    TorchScript; jtorch runs it as Python (the module is eager), so this returns ``fn``."""
    return fn


def script_if_tracing(fn):
    """Compile ``fn`` when called during tracing; jtorch never traces with TorchScript, so
    this calls ``fn``."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    wrapper.__original_fn = fn
    wrapper.__script_if_tracing_wrapper = True
    return wrapper


def _cannot_script(name, why):
    return not_implemented(f"torch.jit.script of {name} ({why})", instead=_INSTEAD)


class _Function(Module):
    """A function as a module, so that its compiled form is differentiable in its inputs as
    a compiled module's is (state it reads is found as jtorch.compile finds it)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)

    def forward(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


class ScriptModule(Module):
    """``torch.jit.ScriptModule``: the class of what ``script`` returns for a module (through
    :class:`RecursiveScriptModule`), so ``isinstance(m, torch.jit.ScriptModule)`` holds as in
    PyTorch (e3nn asserts it). A class that subclasses it directly, PyTorch's older way of
    writing a TorchScript module (with ``@script_method``), is an eager module in jtorch."""


class RecursiveScriptModule(ScriptModule):
    """``torch.jit.RecursiveScriptModule``: the class of ``script(module)``'s result."""


class ScriptFunction:
    """``torch.jit.ScriptFunction``: the class of ``script(function)``'s result."""


class _ScriptedModule(OptimizedModule, RecursiveScriptModule):
    """A function or module compiled by ``script``. As PyTorch's
    scripted module, it has the module's own parameters, buffers and submodules (one set,
    shared with the module), so its ``state_dict`` keys are the module's, without the
    ``_orig_mod.`` prefix of ``jtorch.compile``'s modules; ``train``/``eval`` set the module's
    mode."""

    def __init__(self, mod, **kw):
        super().__init__(mod, **kw)
        del self._modules["_orig_mod"]
        object.__setattr__(self, "_orig_mod", mod)
        for name in ("_parameters", "_buffers", "_modules", "_non_persistent_buffers_set"):
            object.__setattr__(self, name, getattr(mod, name))
        self.training = mod.training

    def __getattr__(self, name):
        return getattr(self.__dict__["_orig_mod"], name)

    def train(self, mode=True):
        self._orig_mod.train(mode)
        self.training = mode
        return self

    def __call__(self, *args, **kwargs):
        try:
            return super().__call__(*args, **kwargs)
        except CompileError as e:
            mod = self._orig_mod
            name = mod.__name__ if builtins.isinstance(mod, _Function) else type(mod).__name__
            raise _cannot_script(name, str(e).splitlines()[0]) from e


class _ScriptedFunction(_ScriptedModule, ScriptFunction):
    """A function compiled whole by ``script`` (a module holding it, so that the compiled
    function is differentiable in its inputs)."""


def _script_class(cls):
    """``script`` of a class: PyTorch's checks, then the class itself."""
    if issubclass(cls, Module):
        raise RuntimeError(f"Type '{cls}' cannot be compiled since it inherits from nn.Module, "
                           "pass an instance instead")
    if not issubclass(cls, enum.Enum) and len(cls.mro()) > 2:
        raise RuntimeError("TorchScript classes does not support inheritance yet. Please "
                           "directly inherit from 'object'.")
    return cls


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Compile a function or module as one program (``jtorch.compile(obj)``).

    Args:
        obj: a function, an ``nn.Module``, or a class.
        optimize, example_inputs: accepted for compatibility.

    Returns:
        The compiled function or module. A call that does not compile to one program runs
        eagerly, with jtorch.compile's warning (TorchScript compiles Python control flow on
        tensor values; the results are the same). A class is returned unchanged (see the
        module's notes).
    """
    if builtins.isinstance(obj, type):
        return _script_class(obj)
    if not callable(obj):
        raise _cannot_script(getattr(obj, "__name__", type(obj).__name__),
                             "only functions and modules are compiled")
    if builtins.isinstance(obj, Module):
        return _ScriptedModule(obj)
    return _ScriptedFunction(_Function(obj))


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """Run ``func`` (a function or module) once on ``example_inputs`` and return it compiled
    with ``jtorch.compile``.

    Args:
        func: a function or an ``nn.Module``.
        example_inputs: a tuple of arguments, or one tensor.
        example_kwarg_inputs: keyword arguments, instead of or with ``example_inputs``.
        The other arguments are accepted for compatibility.

    Returns:
        ``jtorch.compile(func)``.
    """
    if example_inputs is None and example_kwarg_inputs is None:
        raise TypeError("'NoneType' object is not iterable")   # PyTorch's error here
    compiled = OptimizedModule(func if builtins.isinstance(func, Module) else _Function(func))
    args = example_inputs if builtins.isinstance(example_inputs, tuple) else (
        () if example_inputs is None else (example_inputs,))
    compiled(*args, **(example_kwarg_inputs or {}))
    return compiled


def interface(obj):
    """Mark a class (or an ``nn.Module`` subclass) as a TorchScript interface type; returns it,
    after PyTorch's checks, with its ``__torch_script_interface__`` name
    (``__torch__.<module>.<name>``), as eager PyTorch does (jtorch compiles no TorchScript)."""
    if not builtins.isinstance(obj, type):
        raise RuntimeError("interface must be applied to a class")
    # PyTorch's test (mro == [obj, Module, object]); jtorch's Module has mixin bases
    is_module_interface = obj.mro()[1:] == Module.mro()
    if not is_module_interface and len(obj.mro()) > 2:
        raise RuntimeError("TorchScript interface does not support inheritance yet. "
                           "Please directly inherit from 'object' or 'nn.Module'.")
    module = obj.__module__
    module = "__torch__" if module == "__main__" else "__torch__." + module
    obj.__torch_script_interface__ = f"{module}.{obj.__name__}"
    return obj


def isinstance(obj, target_type):  # noqa: A001 - PyTorch's name
    """Eager ``torch.jit.isinstance``: plain classes as ``isinstance``; parameterised
    containers (``List[int]``...) raise NotImplementedError."""
    if typing.get_origin(target_type) is not None:
        raise not_implemented("torch.jit.isinstance with a parameterised container type",
                              instead="the builtin isinstance on the elements")
    return builtins.isinstance(obj, target_type)


class Error(RuntimeError):
    """TorchScript's runtime error (``torch.jit.Error``)."""


class TracerWarning(Warning):
    """PyTorch's tracer warning category (so warning filters naming it work)."""


class ScriptWarning(Warning):
    """PyTorch's TorchScript warning category."""


class TracingCheckError(Exception):
    """PyTorch's error of a failed trace check."""


RecursiveScriptClass = missing_class("torch.jit.RecursiveScriptClass", instead=_INSTEAD)
TracedModule = missing_class("torch.jit.TracedModule", instead=_INSTEAD)
TopLevelTracedModule = missing_class("torch.jit.TopLevelTracedModule", instead=_INSTEAD)
ONNXTracedModule = missing_class("torch.jit.ONNXTracedModule", instead=_INSTEAD)
CompilationUnit = missing_class("torch.jit.CompilationUnit", instead=_INSTEAD)
Iterator = missing_class("torch.jit.Iterator")

save = missing_function("torch.jit.save", instead="jtorch.save(model.state_dict(), f) or "
                                                  "torch.export")
load = missing_function("torch.jit.load", instead="jtorch.load of a saved state_dict")
freeze = missing_function("torch.jit.freeze", instead=_INSTEAD)
optimize_for_inference = missing_function("torch.jit.optimize_for_inference", instead=_INSTEAD)
run_frozen_optimizations = missing_function("torch.jit.run_frozen_optimizations")
trace_module = missing_function("torch.jit.trace_module", instead=_INSTEAD)
export_opnames = missing_function("torch.jit.export_opnames")
set_fusion_strategy = missing_function("torch.jit.set_fusion_strategy")
enable_onednn_fusion = missing_function("torch.jit.enable_onednn_fusion")
onednn_fusion_enabled = missing_function("torch.jit.onednn_fusion_enabled")
strict_fusion = missing_class("torch.jit.strict_fusion")
optimized_execution = missing_function("torch.jit.optimized_execution")
last_executed_optimized_graph = missing_function("torch.jit.last_executed_optimized_graph")
set_module = missing_function("torch.jit.set_module")
jit_module_from_flatbuffer = missing_function("torch.jit.jit_module_from_flatbuffer")
save_jit_module_to_flatbuffer = missing_function("torch.jit.save_jit_module_to_flatbuffer")
frontend = MissingModule("torch.jit.frontend")
fuser = missing_function("torch.jit.fuser")

# a real submodule (`from torch.jit.annotations import List`); the __future__ feature this file
# imported under that name goes first, or the import would return it instead
del annotations
def fork(func, *args, **kwargs):
    """``torch.jit.fork``: run ``func(*args, **kwargs)`` and return a ``torch.futures.Future``
    holding its result (``wait`` gives it back). Outside TorchScript PyTorch runs the function
    at once, on the calling thread, and so does jtorch; its exception is raised here, as
    PyTorch's eager fork raises it."""
    fut = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future):
    """``torch.jit.wait``: the result of a ``fork`` (``future.wait()``)."""
    return future.wait()


from . import annotations  # noqa: E402

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.jit")
