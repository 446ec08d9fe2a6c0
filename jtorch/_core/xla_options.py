"""XLA compiler options for the programs jtorch compiles (op kernels, jtorch.compile steps).

Two options of XLA:CPU's and one of XLA:GPU's (issue 11):

- every program: XLA hands convolutions to YNNPACK by default, which is slower than XLA's own
  convolutions on the training steps measured; jtorch keeps YNNPACK for dots and reductions only;
- not taken: LLVM's -O2 instead of XLA's default -O3 (``xla_backend_optimization_level=2``)
  compiles transcendental kernels in a sixth to a third of the time, but its bits are not
  always -O3's: with op kernels at -O2 and the fused backward at -O3, an eager MNIST run's
  weights depended on which steps the fused program ran (tests/test_examples.py's exact
  resume failed), and compiled CNN steps ran 3.5% slower at -O2 (bench/bench_opt_level.py);
- op kernels and eager collectives only (one op each, compiled per shape and dtype): XLA's older
  elemental emitters instead of its fusion emitters. The test suite's kernels compile in about
  60% of the time with them (per kernel 0.5-0.9x, but 2x for a lone tanh or exp), and the
  kernels measured run as fast or faster (softmax's up to 1.2x slower), with the same bits
  (docs/benchmarks.md, "Op kernels' compiler options"). Whole programs (jtorch.compile steps,
  the fused backward) keep the fusion emitters: the compiled MLP step ran 13% slower without.
- GPU, op kernels and the programs eager mode compiles as it runs (the fused backward): no
  autotuning (``xla_gpu_autotune_level=0``: cuBLAS's and cuDNN's own
  choice of algorithm, as PyTorch eager makes by default). XLA:GPU times candidate kernels
  for every matmul and convolution it compiles; on an H200 that made the MLP's first eager
  step take 17.9 s, 3.2 s without (docs/benchmarks.md, "Where a GPU step's time goes").
  jtorch.compile's programs keep autotuning: they are compiled once and run many times.

Options are passed per compilation (``jax.jit(..., compiler_options=...)``), never through
XLA_FLAGS, so the user's own JAX code is unchanged. An option is left out when:

- the default backend is not the one it is for;
- the user's XLA_FLAGS already mention it (their choice wins);
- this jaxlib rejects it: tiny programs are compiled with the options on first use, and an
  option that fails is left out from then on.

JAX accepts compiler options only on a top-level jit: a kernel called while an outer jit is
tracing (jtorch.compile, the user's jax.jit), tensor arguments or not, runs a plain jit of
the same function instead (``jit`` below); its options are the outer program's.
"""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np

from .state import STATE

try:  # whether a JAX transform is tracing: JAX keeps it private; a JAX that moved it gets
    # the try-and-fall-back path alone (_TRACE_CTX None)
    from jax._src.core import eval_trace as _EVAL_TRACE, trace_ctx as _TRACE_CTX
except ImportError:
    _TRACE_CTX = _EVAL_TRACE = None


def top_level_call(jitted):
    """What runs ``jitted`` (a result of :func:`jit`) for a caller that knows it is at top
    level (no JAX transform or jtorch.compile trace active: :func:`at_top_level`): its
    top-level jit itself, without :class:`_OptionsJit`'s check (eager dispatch, per op)."""
    return jitted.top if type(jitted) is _OptionsJit else jitted


def at_top_level():
    """Whether no JAX transform is tracing, as far as JAX's (private) trace state tells; False
    where it cannot be read. jtorch.compile's trace is ``STATE.trace``, checked apart."""
    return _TRACE_CTX is not None and _TRACE_CTX.trace is _EVAL_TRACE

CPU_OPTIONS = {"xla_cpu_experimental_ynn_fusion_type":
               "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT,LIBRARY_FUSION_TYPE_REDUCE"}
KERNEL_CPU_OPTIONS = {"xla_cpu_use_fusion_emitters": False}
KERNEL_GPU_OPTIONS = {"xla_gpu_autotune_level": 0}

_decided = None   # {"program": options, "kernel": options}, once decided


def compiler_options(kernel=False, eager=False):
    """The ``compiler_options`` for ``jax.jit`` in jtorch, for an op kernel (``kernel=True``),
    a whole program eager mode compiles as it goes (``eager=True``: the fused backward), or a
    whole program (jtorch.compile's): a dict, or None for none. Decided once (on first use, so
    importing jtorch starts no backend)."""
    global _decided
    if _decided is None:
        _decided = _decide()
    return _decided["kernel" if kernel else "eager" if eager else "program"] or None


def jit(fun, kernel=False, eager=False, **kwargs):
    """``jax.jit(fun, **kwargs)`` with jtorch's compiler options where they apply (an op
    kernel's with ``kernel=True``, an eager program's with ``eager=True``)."""
    opts = compiler_options(kernel, eager)
    if opts is None:
        return jax.jit(fun, **kwargs)
    return _OptionsJit(fun, kwargs, opts)


class _OptionsJit:
    """A jitted function compiled with options when called at top level, and a plain nested
    jit when called inside a JAX transform (jit, vjp, vmap...) or jtorch.compile's trace. JAX
    refuses options on a staged jit with a ValueError, after tracing ``fun``: trying first and
    tracing again cost 7% of the time of the test files that run ops under transforms, so a
    call that is not at top level goes to the nested jit at once (kept as the fallback where
    JAX's trace state cannot be read). Attributes (``lower``...) are the top-level jit's."""

    __slots__ = ("top", "nested", "fun", "kwargs")

    def __init__(self, fun, kwargs, opts):
        self.top = jax.jit(fun, compiler_options=opts, **kwargs)
        self.nested = None
        self.fun, self.kwargs = fun, kwargs

    def __call__(self, *args, **kwargs):
        if STATE.trace is None and (_TRACE_CTX is None or _TRACE_CTX.trace is _EVAL_TRACE):
            try:
                return self.top(*args, **kwargs)
            except ValueError as e:  # "`compiler_options` can only be passed to top-level jit"
                if "compiler_options" not in str(e):
                    raise
        if self.nested is None:
            self.nested = jax.jit(self.fun, **self.kwargs)
        return self.nested(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.top, name)


def _decide():
    program, kernel, eager = {}, {}, {}
    backend = jax.default_backend()
    flags = os.environ.get("XLA_FLAGS", "")
    if backend == "cpu":
        wanted = {k: v for k, v in {**CPU_OPTIONS, **KERNEL_CPU_OPTIONS}.items()
                  if k not in flags}
        accepted = _accepted(wanted)
        program = eager = {k: v for k, v in accepted.items() if k in CPU_OPTIONS}
        kernel = accepted
    elif backend == "gpu":
        kernel = eager = _accepted({k: v for k, v in KERNEL_GPU_OPTIONS.items()
                                    if k not in flags})
    return {"program": program, "kernel": kernel, "eager": eager}


def _accepted(wanted):
    """The options of ``wanted`` this jaxlib compiles with (all of them when it can)."""
    return wanted if _compiles(wanted) else \
        {k: v for k, v in wanted.items() if _compiles({k: v})}


def _compiles(options):
    """Whether this jaxlib compiles a tiny program with ``options``."""
    if not options:
        return True
    try:
        jax.jit(jnp.negative, compiler_options=options).lower(np.float32(0)).compile()
    except Exception:  # noqa: BLE001 - any rejection (unknown option or value) means: no
        return False
    return True
