"""Compilation counters and reasons (read through ``jtorch.compiler``)."""

from __future__ import annotations

import os
import sys

from .._core.autocast import ACTIVE

COUNTERS = {"compiles": 0, "hits": 0, "fallbacks": 0}
LOG = []            # (function name, reason) per compilation
VERBOSE = [os.environ.get("JTORCH_LOGS", "") in ("recompiles", "1", "all")]

_PARTS = ("the state's structure (new state, .grad set or cleared, train/eval, optimizer "
          "state)", "input shapes, dtypes or static arguments", "input structure",
          "grad mode", "autocast state", "which gradient inputs have no .grad",
          "saved tensors hooks")


def amp_key():
    """The autocast state, as a guard: one object per distinct state (see _core/autocast.py)."""
    a = ACTIVE[0]
    return None if a is None else id(a)


def reason(old, new):
    if old is None:
        return "first call"
    changed = [p for p, a, b in zip(_PARTS, old, new) if a != b]
    return "changed: " + ", ".join(changed) if changed else "a new guard combination"


def record(fn, why):
    name = getattr(fn, "__qualname__", repr(fn))
    COUNTERS["compiles"] += 1
    LOG.append((name, why))
    if VERBOSE[0]:
        print(f"[jtorch.compile] compiling {name}: {why}", file=sys.stderr)
