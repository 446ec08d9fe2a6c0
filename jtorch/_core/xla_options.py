"""XLA compiler options for the programs jtorch compiles (op kernels, jtorch.compile steps).

On CPU, XLA hands convolutions to YNNPACK by default, which is slower than XLA's own
convolutions on the training steps measured (issue 11): jtorch keeps YNNPACK for dots and
reductions only. The option is passed per compilation (``jax.jit(...,
compiler_options=...)``), never through XLA_FLAGS, so the user's own JAX code is unchanged.
It is left out when:

- the default backend is not the CPU (the option is XLA:CPU's);
- the user's XLA_FLAGS already mention it (their choice wins);
- this jaxlib rejects it: one tiny program is compiled with it on first use, and a failure
  means no options from then on.

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

_YNN_OPTION = "xla_cpu_experimental_ynn_fusion_type"
CPU_OPTIONS = {_YNN_OPTION: "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT,LIBRARY_FUSION_TYPE_REDUCE"}

_decided = None   # the options jit calls get, once decided


def compiler_options():
    """The ``compiler_options`` for ``jax.jit`` in jtorch: a dict, or None for none. Decided
    once (on first use, so importing jtorch starts no backend)."""
    global _decided
    if _decided is None:
        _decided = _decide()
    return _decided or None


def jit(fun, **kwargs):
    """``jax.jit(fun, **kwargs)`` with jtorch's compiler options where they apply."""
    opts = compiler_options()
    if opts is None:
        return jax.jit(fun, **kwargs)
    return _OptionsJit(fun, kwargs, opts)


class _OptionsJit:
    """A jitted function compiled with options when called at top level, and a plain nested
    jit when called inside another trace (JAX refuses options there with a ValueError, after
    tracing ``fun`` and before staging anything: the fallback traces it again).
    Attributes (``lower``...) are the top-level jit's."""

    __slots__ = ("top", "nested", "fun", "kwargs")

    def __init__(self, fun, kwargs, opts):
        self.top = jax.jit(fun, compiler_options=opts, **kwargs)
        self.nested = None
        self.fun, self.kwargs = fun, kwargs

    def __call__(self, *args, **kwargs):
        if STATE.trace is None:  # not in jtorch.compile's trace (the user's jit: see below)
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
    if _YNN_OPTION in os.environ.get("XLA_FLAGS", ""):
        return {}
    if jax.default_backend() != "cpu":
        return {}
    try:
        jax.jit(jnp.negative, compiler_options=CPU_OPTIONS).lower(np.float32(0)).compile()
    except Exception:  # noqa: BLE001 - any rejection (unknown option or value) means: none
        return {}
    return dict(CPU_OPTIONS)
