"""``torch.profiler.schedule`` and ``ProfilerAction``: which steps a profiler records."""

from __future__ import annotations

import enum
import warnings

__all__ = ["ProfilerAction", "schedule"]


class ProfilerAction(enum.Enum):
    """What the profiler does at a step: nothing, warm up, record, or record and then hand the
    cycle's trace to ``on_trace_ready`` (``DEVICE_STOPPED`` is PyTorch's internal state and
    never returned by a schedule)."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):
    """A schedule for :class:`~jtorch.profiler.profile`: skip ``skip_first`` steps, then
    cycles of ``wait`` idle steps, ``warmup`` steps and ``active`` recorded steps, the last
    of which ends the cycle (``RECORD_AND_SAVE``: ``on_trace_ready`` is called); ``repeat``
    cycles (0: until profiling ends). ``skip_first_wait`` skips the first cycle's wait.

    Returns:
        A callable ``step -> ProfilerAction``.

    Example:
        >>> sched = schedule(wait=1, warmup=1, active=3, repeat=1)
        >>> [sched(i).name for i in range(6)]
        ['NONE', 'WARMUP', 'RECORD', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 \
            else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)
    return schedule_fn


def default_schedule_fn(_: int) -> ProfilerAction:
    """Without a schedule the profiler records every step."""
    return ProfilerAction.RECORD
