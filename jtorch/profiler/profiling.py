"""``torch.profiler.profile``: the profiler context manager, with schedules and
``on_trace_ready``.

Each profiling cycle records into one ``torch.autograd.profiler.profile`` (jtorch's recorder:
op calls by their PyTorch names, ``record_function`` ranges, host times; see
jtorch/autograd/profiler.py for what an op's CPU time is), driven through the schedule's
actions exactly as PyTorch's profiler drives Kineto: the same transitions, the same steps
calling ``on_trace_ready``, the same ``ProfilerStep#<n>`` ranges when a schedule is given.

Differences from PyTorch:
    Host (CPU) time only: no device kernel rows or CUDA time columns (JAX's own trace,
    ``jax.profiler.trace``, has the device kernels; every op and ``record_function`` range is
    a ``TraceAnnotation`` there). ``profile_memory`` reports 0 bytes; ``with_flops`` and
    ``with_modules`` record nothing; ``execution_trace_observer``, ``export_stacks``,
    ``export_memory_timeline`` and ``toggle_collection_dynamic`` raise NotImplementedError.
    With ``on_trace_ready=tensorboard_trace_handler(dir)`` each cycle also runs JAX's own
    trace (``jax.profiler.start_trace(dir)``: ``dir/plugins/profile/<run>/*.xplane.pb``, which
    TensorBoard's profile plugin shows, device kernels included).
"""

from __future__ import annotations

import gzip
import os
import shutil
import tempfile
import uuid
import warnings
from collections.abc import Callable, Iterable

import jax

from .._core.errors import not_implemented
from .._core.warn_once import warn_once
from ..autograd import profiler as _recorder
from ..autograd.profiler import _RecordingOptions
from ..autograd.profiler_util import write_chrome_trace
from .activity import ProfilerActivity, supported_activities
from .schedules import ProfilerAction, default_schedule_fn

__all__ = ["profile"]

_A = ProfilerAction


def _incorrect(prev, action):
    """The transition's warning of a schedule that stops mid-cycle (PyTorch's)."""
    return lambda: warnings.warn(f"Incorrect schedule: {prev} followed by {action}",
                                 stacklevel=4)


class profile(_RecordingOptions):
    """Profiler context manager (``torch.profiler.profile``).

    Args:
        activities (iterable): ``ProfilerActivity`` values (or dicts keyed by them) to
            collect; default ``supported_activities()``.
        schedule (Callable): ``step -> ProfilerAction`` (see :func:`~jtorch.profiler.schedule`);
            default: record every step.
        on_trace_ready (Callable): called with the profiler at the end of each cycle
            (``RECORD_AND_SAVE``), e.g. :func:`~jtorch.profiler.tensorboard_trace_handler`.
        record_shapes (bool): record the ops' input shapes.
        profile_memory (bool): accepted; memory columns read 0 bytes.
        with_stack (bool): record each event's Python call stack.
        with_flops, with_modules, experimental_config, custom_trace_id_callback,
        post_processing_timeout_s: accepted as in PyTorch.
        acc_events (bool): keep the events of every cycle, not just the last.
        use_cuda (bool): deprecated, as in PyTorch.

    Example:
        >>> with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        ...     with record_function("model_inference"):
        ...         model(inputs)
        >>> print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
    """

    def __init__(self, *, activities: Iterable | None = None,
                 schedule: Callable | None = None, on_trace_ready: Callable | None = None,
                 record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config=None,
                 execution_trace_observer=None, acc_events: bool = False,
                 use_cuda: bool | None = None, custom_trace_id_callback=None,
                 post_processing_timeout_s: float | None = None) -> None:
        super().__init__(record_shapes, profile_memory, with_stack, with_flops, with_modules,
                         experimental_config, acc_events, custom_trace_id_callback,
                         post_processing_timeout_s)
        if activities is not None:
            acts = set()
            for item in activities:
                if isinstance(item, ProfilerActivity):
                    acts.add(item)
                elif isinstance(item, dict):
                    acts.update(item.keys())
        else:
            acts = supported_activities()
        if use_cuda is not None:
            warnings.warn("`use_cuda` is deprecated, use `activities` argument instead",
                          FutureWarning, stacklevel=2)
            if use_cuda:
                acts.add(ProfilerActivity.CUDA)
            else:
                acts.discard(ProfilerActivity.CUDA)
        if len(acts) == 0:
            raise AssertionError("No valid profiler activities found")
        if execution_trace_observer is not None:
            raise not_implemented("torch.profiler.profile(execution_trace_observer=...)")
        self.activities = acts
        self.use_device = "cuda" if ProfilerActivity.CUDA in acts else None
        self.profiler = None
        self._metadata = {}
        self._trace_id = None
        self._jax_tracing = False
        self.schedule = schedule if schedule else default_schedule_fn
        self.record_steps = bool(schedule)
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        self.current_action = self._schedule(self.step_num)
        self.action_map = {
            (_A.NONE, _A.NONE): [],
            (_A.NONE, _A.WARMUP): [self.prepare_trace],
            (_A.NONE, _A.RECORD): [self.prepare_trace, self.start_trace],
            (_A.NONE, _A.RECORD_AND_SAVE): [self.prepare_trace, self.start_trace],
            (_A.WARMUP, _A.NONE): [
                _incorrect("WARMUP", "NONE"),
                self._empty_cycle],
            (_A.WARMUP, _A.WARMUP): [],
            (_A.WARMUP, _A.RECORD): [self.start_trace],
            (_A.WARMUP, _A.RECORD_AND_SAVE): [self.start_trace],
            (_A.RECORD, _A.NONE): [
                _incorrect("RECORD", "NONE"),
                self.stop_trace],
            (_A.RECORD, _A.WARMUP): [
                _incorrect("RECORD", "WARMUP"),
                self.stop_trace],
            (_A.RECORD, _A.RECORD): [],
            (_A.RECORD, _A.RECORD_AND_SAVE): [],
            (_A.RECORD_AND_SAVE, _A.NONE): [self.stop_trace, self._trace_ready],
            (_A.RECORD_AND_SAVE, _A.WARMUP): [self.stop_trace, self._trace_ready,
                                              self.prepare_trace],
            (_A.RECORD_AND_SAVE, _A.RECORD): [self.stop_trace, self._trace_ready,
                                              self.prepare_trace, self.start_trace],
            (_A.RECORD_AND_SAVE, _A.RECORD_AND_SAVE): [self.stop_trace, self._trace_ready,
                                                       self.prepare_trace, self.start_trace],
            (_A.WARMUP, None): [self._empty_cycle],
            (_A.RECORD, None): [self.stop_trace, self._trace_ready],
            (_A.RECORD_AND_SAVE, None): [self.stop_trace, self._trace_ready],
        }

    def _schedule(self, step):
        action = self.schedule(step)
        if action == _A.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler "
                             "and must not be returned by a user-provided schedule")
        return action

    # ------------------------------------------------------------------ the cycle's actions
    def prepare_trace(self) -> None:
        """Make the recorder of a new cycle (kept across cycles with ``acc_events``)."""
        if self.profiler is not None and not self.acc_events:
            warn_once("profiler clears events", "Warning: Profiler clears events at the end of "
                      "each cycle. Only events from the current cycle will be reported. To keep "
                      "events across cycles, set acc_events=True.")
        if self.profiler is None or not self.acc_events:
            self.profiler = _recorder.profile(
                use_cpu=ProfilerActivity.CPU in self.activities, use_device=self.use_device,
                use_kineto=True, **self._recording_options())
        cb = self.custom_trace_id_callback
        self._trace_id = cb() if cb is not None else uuid.uuid4().hex.upper()

    def start_trace(self) -> None:
        """Start recording."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before starting trace")
        self.profiler._start()
        jax_dir = getattr(self.on_trace_ready, "jax_trace_dir", None)
        if jax_dir is not None:   # tensorboard_trace_handler: JAX's own trace too
            try:
                jax.profiler.start_trace(jax_dir)
                self._jax_tracing = True
            except RuntimeError as e:   # a JAX trace the program started is running
                warnings.warn(f"jtorch.profiler: JAX's trace is not written to {jax_dir}: {e}",
                              stacklevel=3)

    def stop_trace(self) -> None:
        """Stop recording."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before stopping trace")
        self.profiler._stop()
        if self._jax_tracing:
            self._jax_tracing = False
            jax.profiler.stop_trace()

    def _empty_cycle(self) -> None:
        """A warmup that ends before recording: start and stop with nothing to save, as
        PyTorch does, and no JAX trace (it would write a run directory of its own)."""
        self.profiler._start()
        self.profiler._stop()

    def _trace_ready(self) -> None:
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action) -> None:
        for action in self.action_map.get((prev_action, current_action), ()):
            action()

    # ------------------------------------------------------------------ the public API
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self) -> None:
        """Start profiling (the first step's action)."""
        self._transit_action(_A.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = _recorder.record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self) -> None:
        """Stop profiling (ends the cycle: ``on_trace_ready`` when recording)."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self) -> None:
        """Signals the profiler that the next profiling step has started."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev_action = self.current_action
        action = self._schedule(self.step_num + 1)
        self.step_num += 1
        self.current_action = action
        self._transit_action(prev_action, self.current_action)
        if self.record_steps:
            self.step_rec_fn = _recorder.record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def events(self):
        """The recorded :class:`~jtorch.autograd.profiler_util.FunctionEvent` list."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before accessing events")
        return self.profiler.function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False):
        """The events summed per name (and input shapes / stack when asked): an EventList
        whose ``table()`` prints PyTorch's summary table."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self.profiler.key_averages(group_by_input_shape, group_by_stack_n,
                                          group_by_overload_name)

    def export_chrome_trace(self, path: str, use_python_export: bool = False):
        """Write the events as a Chrome trace JSON file (gzip-compressed when ``path`` ends
        with ``.gz``), with the trace id and ``add_metadata`` entries at the top level."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting chrome trace")
        events = self.profiler._results()
        extra = {"trace_id": self._trace_id, "record_shapes": int(self.record_shapes),
                 **self._metadata}
        if not path.endswith(".gz"):
            return write_chrome_trace(events, path, extra)
        fd, tmp = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        try:
            write_chrome_trace(events, tmp, extra)
            with open(tmp, "rb") as f_in, gzip.open(path, "wb") as f_out:
                shutil.copyfileobj(f_in, f_out)
        finally:
            os.remove(tmp)

    def add_metadata(self, key: str, value: str) -> None:
        """Add a string entry to the exported trace's top level."""
        self._metadata[key] = value

    def add_metadata_json(self, key: str, value: str) -> None:
        """Add an entry (JSON text) to the exported trace's top level."""
        self._metadata[key] = value

    def get_trace_id(self):
        """The current cycle's trace id (None before the first cycle)."""
        return self._trace_id if self.profiler is not None else None

    def set_custom_trace_id_callback(self, callback) -> None:
        """The trace id generator, called at the start of each cycle."""
        self.custom_trace_id_callback = callback

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total"):
        raise not_implemented("torch.profiler.profile.export_stacks")

    def export_memory_timeline(self, path: str, device: str | None = None) -> None:
        raise not_implemented("torch.profiler.profile.export_memory_timeline")

    def toggle_collection_dynamic(self, enable: bool, activities) -> None:
        raise not_implemented("torch.profiler.profile.toggle_collection_dynamic")
