"""``torch.use_deterministic_algorithms`` and its queries, applied to XLA's GPU determinism
flag (``--xla_gpu_deterministic_ops``, read from ``XLA_FLAGS`` when JAX starts its backends).

XLA's CPU programs are deterministic already. On a GPU the flag makes XLA choose deterministic
kernels (scatter-adds, reductions, autotuning off); XLA reads it once, when JAX starts its
backends, so a change after that warns and applies to the next process.

Differences from PyTorch:
    - No op raises "... does not have a deterministic implementation": XLA has a deterministic
      form of every kernel under the flag.
    - ``torch.backends.cudnn.deterministic`` is kept and reported; the flag above is the one
      switch XLA has.
"""

from __future__ import annotations

import os
import warnings

from jax._src import xla_bridge  # backends_are_initialized: whether XLA_FLAGS can still apply

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode"]

_FLAG = "--xla_gpu_deterministic_ops=true"
_state = {"enabled": False, "warn_only": False}


def _apply_xla_flag(enabled):
    flags = [f for f in os.environ.get("XLA_FLAGS", "").split() if f != _FLAG]
    if enabled:
        flags.append(_FLAG)
    new = " ".join(flags)
    if new == os.environ.get("XLA_FLAGS", ""):
        return
    if xla_bridge.backends_are_initialized():
        warnings.warn("jtorch: JAX's backends have started, so XLA's GPU determinism flag "
                      f"({_FLAG}) applies from the next process only", stacklevel=3)
    os.environ["XLA_FLAGS"] = new


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Make operations use deterministic algorithms (on GPU: XLA's deterministic kernels).

    Args:
        mode (bool): use deterministic algorithms.
        warn_only (bool): in PyTorch, ops without a deterministic form warn instead of
            raising; jtorch has none, so it is only reported back.
    """
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    _state["enabled"], _state["warn_only"] = mode, bool(warn_only) and mode
    _apply_xla_flag(mode)


def are_deterministic_algorithms_enabled():
    """Whether ``use_deterministic_algorithms(True)`` is in force."""
    return _state["enabled"]


def is_deterministic_algorithms_warn_only_enabled():
    """Whether it was set with ``warn_only=True``."""
    return _state["warn_only"]


_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    """0/"default": off; 1/"warn": deterministic, warn only; 2/"error": deterministic."""
    if isinstance(debug_mode, str):
        if debug_mode not in _MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _MODES[debug_mode]
    if not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError("invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """2 when deterministic, 1 when deterministic with warn_only, else 0."""
    if not _state["enabled"]:
        return 0
    return 1 if _state["warn_only"] else 2
