"""How many compiled XLA programs a process keeps: a bound, so an eager loop whose shapes
change every step does not crash.

Eager mode compiles each op once per shape. A loop whose shapes keep changing (reinforcement
learning episodes of varying length, text generation that grows the sequence by one token)
compiles new kernels every step, and JAX keeps them: its caches hold thousands of executables.
On the CPU each executable maps about six memory regions, and Linux stops a process at
``vm.max_map_count`` regions (65530 by default): LLVM then fails ("Cannot allocate memory") and
the process crashes. pytorch/examples' REINFORCE on CartPole did, after about 160 episodes.

So every ``CHECK_EVERY`` compilations (JAX's monitoring event, any program of the process) the
process's map count is read (``/proc/self/maps``; where there is none, nothing is done); above
``SHARE`` of the limit, the next op dispatched outside a jtorch.compile trace clears JAX's
caches (``jax.clear_caches``; the fused backward's programs are dropped first, after their
background compilations finish). What is used again compiles again: a jtorch.compile step
traces its Python function once more, as after a recompile. A loop with fixed shapes stops
compiling after its first steps and never gets here.
"""

from __future__ import annotations

import jax
import jax.monitoring

from . import fused_backward

CHECK_EVERY = 64   # compilations between two reads of the map count (about 20 ms at 40k maps)
SHARE = 0.6         # of vm.max_map_count, above which JAX's caches are cleared
_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


def _map_limit():
    try:
        with open("/proc/sys/vm/max_map_count") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def map_count():
    """How many memory regions this process maps (None where /proc is missing)."""
    try:
        with open("/proc/self/maps", "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return None


class ProgramBudget:
    """The compilation counter and the flag the dispatcher reads (``over``)."""

    __slots__ = ("over", "compiles", "releases", "limit")

    def __init__(self):
        self.over = False      # JAX's caches are to be cleared at the next safe dispatch
        self.compiles = 0      # compilations seen (every program of the process)
        self.releases = 0      # times JAX's caches were cleared
        self.limit = _map_limit()

    def on_compile(self, event, duration, **_):
        if event != _COMPILE_EVENT or self.limit is None:
            return
        self.compiles += 1
        if self.compiles % CHECK_EVERY == 0:
            count = map_count()
            if count is not None and count > SHARE * self.limit:
                self.over = True

    def release(self):
        """Clear JAX's caches (called by the dispatcher outside any trace)."""
        self.over = False
        fused_backward.forget_programs()
        jax.clear_caches()
        self.releases += 1


BUDGET = ProgramBudget()
jax.monitoring.register_event_duration_secs_listener(BUDGET.on_compile)
