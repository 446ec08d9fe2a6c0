"""torch.compile and torch.compiler for jtorch: whole functions as one XLA program.

``jtorch.compile(fn)`` (also ``torch.compile`` under ``import jtorch as torch``) returns a
function that traces ``fn`` once per guard key into one ``jax.jit`` program, lifting all the
state it reads or writes (see ``jtorch/_compile``). ``jtorch.compile(module)`` and
``module.compile()`` compile a module's forward, with its backward as one compiled vjp.
"""

from __future__ import annotations

from ._compile import stats
from ._compile.module import OptimizedModule
from ._compile.step import CompiledFunction, CompileError
from ._core.errors import torch_name_fallback
from ._core.state import STATE
from .nn.modules.module import Module

__all__ = ["compile", "reset", "counters", "compile_log", "set_logs", "disable",
           "is_compiling", "is_dynamo_compiling", "is_exporting", "allow_in_graph",
           "assume_constant_result", "cudagraph_mark_step_begin", "CompileError"]

_MODES = (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False, state=None):
    """``torch.compile``: compile a function or module; usable as ``@compile`` and
    ``@compile(...)``. ``backend``, ``mode``, ``dynamic`` and ``options`` are accepted for
    compatibility: XLA is the only backend, and shapes are static per compilation (a new
    shape compiles again).

    ``state`` (jtorch's own): the objects holding the function's state (modules, optimizers,
    schedulers, tensors, containers of them). By default jtorch.compile finds the state by
    itself (docs/compile.md); with ``state=`` it searches nothing else, and state the function
    uses but that is not listed is an error naming it."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: "
                           + ", ".join(m for m in _MODES if m))
    kw = {"fullgraph": fullgraph, "dynamic": dynamic, "backend": backend, "mode": mode,
          "options": options, "disable": disable, "state": state}
    if model is None:
        return lambda m: compile(m, **kw)

    if isinstance(model, Module):
        return OptimizedModule(model, **kw)
    if not callable(model):
        raise RuntimeError("torch.compile: model must be a callable or nn.Module")
    return CompiledFunction(model, **kw)


def reset():
    """Forget every compiled program's counters and log (compiled functions keep their own
    caches until they are garbage collected)."""
    for k in stats.COUNTERS:
        stats.COUNTERS[k] = 0
    stats.LOG.clear()


def counters():
    """``{"compiles": n, "hits": n, "fallbacks": n}`` since the last ``reset()``."""
    return dict(stats.COUNTERS)


def compile_log():
    """``[(function name, reason), ...]`` for every compilation since ``reset()``."""
    return list(stats.LOG)


def set_logs(recompiles=True):
    """Print each (re)compilation and its reason to stderr (also: ``JTORCH_LOGS=recompiles``)."""
    stats.VERBOSE[0] = bool(recompiles)


def disable(fn=None, recursive=True):
    """``torch.compiler.disable``: run ``fn`` eagerly even when called from compiled code."""
    if fn is None:
        return lambda f: disable(f, recursive)
    fn._jtorch_compile_disabled = True
    return fn


def is_compiling():
    """True while jtorch.compile traces a function."""
    return STATE.trace is not None


is_dynamo_compiling = is_compiling


def is_exporting():
    """False: ``jtorch.export`` traces with JAX's tracer, not through a flag user code can
    branch on (PyTorch's is True only inside ``torch.export``)."""
    return False


def allow_in_graph(fn):
    """``fn`` itself: jtorch.compile traces every function it calls into the program, so there
    is no graph to let ``fn`` into."""
    return fn


def assume_constant_result(fn):
    """``fn`` itself: jtorch.compile runs ``fn`` while tracing, and a result that depends on no
    tensor is a constant of the program, as PyTorch assumes."""
    return fn


def cudagraph_mark_step_begin():
    """Nothing to do: jtorch records no CUDA graphs whose outputs a new step would overwrite."""

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.compiler")
