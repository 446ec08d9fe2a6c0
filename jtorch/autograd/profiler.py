"""``torch.autograd.profiler``: ``record_function`` and the recording profiler ``profile``.

While a :class:`profile` is recording, jtorch's dispatcher reports every op call to it (the op
observer slot of ``jtorch._core.dispatch``, installed here: the dispatcher never imports the
profiler; when no profiler records, the dispatcher pays one ``is not None`` check). Each op
call becomes a :class:`~jtorch.autograd.profiler_util.FunctionEvent` named as PyTorch's
profiler names it (``aten::linear``, ``aten::relu``; see :func:`op_event_name`), and each call
also runs inside a ``jax.profiler.TraceAnnotation`` and a ``jax.named_scope`` of that name, so
the op shows in a JAX trace (``jax.profiler.trace``) and in the HLO op names of a jitted
program. :class:`record_function` ranges do the same for user labels. ``torch.profiler.profile``
(jtorch.profiler) drives one of these per profiling cycle, as PyTorch's does.

An op's CPU time is the host time of its call, as PyTorch's: from entering the op to having
its result. JAX runs ops asynchronously, so for an op whose output is on the CPU the profiler
waits for the output to be computed before it stops the clock (PyTorch's CPU ops are
synchronous, so their host time includes the computation); for an op on an accelerator it does
not wait (PyTorch's CUDA ops return once queued). This wait serializes host and CPU computation
while profiling, as PyTorch's CPU ops are.

Differences from PyTorch:
    Only the ops a program calls are events: jtorch's ops are whole kernels, so PyTorch's
    nested internal ops (``aten::linear`` calling ``aten::t`` and ``aten::addmm``) do not
    appear, and an op's self time is its whole time. Factories that build an array without
    an op (``torch.ones``, ``torch.tensor``) are not events. In-place calls (``x.add_(y)``)
    show under the op's name (``aten::add``). The backward pass runs compiled vjps, not ops:
    its time shows in the enclosing ``record_function`` / profiler step, not as
    ``autograd::engine::evaluate_function`` rows. Ops traced under ``jtorch.compile`` or
    ``jax.jit`` are not events (tracing is not running them): they carry their names as
    ``jax.named_scope`` into the compiled program, where a JAX trace shows them; a
    ``record_function`` is only a named scope under ``jtorch.compile`` (under a bare
    ``jax.jit`` it is also an event, timing the tracing). ``profile_memory`` is accepted and
    reports 0 bytes; ``with_flops`` and ``with_modules`` are accepted and record nothing.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import threading
import time
import warnings

import jax

from .._core import dispatch as _dispatch
from .._core.errors import not_implemented
from .._core.state import STATE
from .._core.tensor_base import TensorBase
from .profiler_util import EventList, FunctionEvent

__all__ = ["profile", "record_function", "op_event_name", "EventList", "FunctionEvent",
           "emit_nvtx"]

# jtorch ops whose name is not the name of the aten op PyTorch's profiler shows for the call
_EVENT_NAMES = {
    "copy": "aten::copy_", "copy_slices": "aten::copy_", "fill": "aten::fill_",
    "_to_dtype": "aten::to",
    "_fill_scalar": "aten::fill", "_fill_tensor": "aten::fill", "_fill_scalar_": "aten::fill_",
    "_fill_tensor_": "aten::fill_", "_zero_": "aten::zero_", "_uniform_": "aten::uniform_",
    "_normal_": "aten::normal_", "_bernoulli_": "aten::bernoulli_", "_random_": "aten::random_",
    "_exponential_": "aten::exponential_", "_cauchy_": "aten::cauchy_",
    "_geometric_": "aten::geometric_", "_log_normal_": "aten::log_normal_",
    "_embedding": "aten::embedding", "_native_batch_norm": "aten::native_batch_norm",
    "_instance_norm": "aten::instance_norm", "_real": "aten::real", "_imag": "aten::imag",
    "_squeeze_dim": "aten::squeeze", "_squeeze_dims": "aten::squeeze",
    "_multinomial": "aten::multinomial", "_poisson": "aten::poisson",
    "_repeat_interleave_int": "aten::repeat_interleave",
    "_repeat_interleave_tensor": "aten::repeat_interleave",
    "_scaled_dot_product_attention": "aten::scaled_dot_product_attention",
    "_pad_sequence": "aten::pad_sequence", "cross_entropy": "aten::cross_entropy_loss",
    "logsigmoid": "aten::log_sigmoid", "entr": "aten::special_entr",
    "erfcx": "aten::special_erfcx", "i0e": "aten::special_i0e", "i1": "aten::special_i1",
    "i1e": "aten::special_i1e", "log_ndtr": "aten::special_log_ndtr",
    "ndtr": "aten::special_ndtr", "ndtri": "aten::special_ndtri",
    "xlog1py": "aten::special_xlog1py", "zeta": "aten::special_zeta",
}
# a basic index's view kernels are all "getitem": PyTorch's op is the one its gradient names
_VIEW_NAMES = {"SelectBackward0": "aten::select", "SliceBackward0": "aten::slice",
               "UnsqueezeBackward0": "aten::unsqueeze", "AliasBackward0": "aten::alias"}
_NAME_CACHE: dict = {}   # OpDef -> event name


def op_event_name(opdef):
    """The event name of a jtorch op: PyTorch's ``aten::<name>`` (``linalg.det`` ->
    ``aten::linalg_det``), renamed where jtorch's op has another name than PyTorch's aten op
    (an index ``x[0]`` is ``aten::select``, ``x[1:]`` ``aten::slice``, ``x[idx]``
    ``aten::index``); an op of jtorch's own that no aten op matches (``_sample_bits``, the
    bits behind the random factories) is ``jtorch::<name>``."""
    name = _NAME_CACHE.get(opdef)
    if name is None:
        op_name = opdef.name
        if op_name == "getitem":
            name = _VIEW_NAMES.get(opdef.grad_name)
        name = name or _EVENT_NAMES.get(op_name)
        if name is None:
            prefix = "jtorch::" if op_name.startswith("_") else "aten::"
            name = prefix + op_name.replace(".", "_")
        _NAME_CACHE[opdef] = name
    return name


# ------------------------------------------------------------------ the recording sessions
_RECORDING: list[profile] = []      # the profiles recording now (usually one)
_PREV_OBSERVER = [None]             # the op observer the first of them replaced
_IDS = itertools.count()
_LOCK = threading.Lock()
# perf_counter_ns for durations, shifted to the epoch for the trace's timestamps
_EPOCH_SHIFT_NS = time.time_ns() - time.perf_counter_ns()
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _now_us(ns):
    return (ns + _EPOCH_SHIFT_NS) / 1000.0


def _shapes(args, kwargs):
    vals = list(args) + list(kwargs.values())
    return [list(a.shape) if isinstance(a, TensorBase) else [] for a in vals]


# the trace's "Input type" of a tensor: the C++ scalar type name PyTorch writes
_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
               "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
               "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
               "bool": "bool", "complex64": "c10::complex<float>",
               "complex128": "c10::complex<double>"}


def _types(args, kwargs):
    vals = list(args) + list(kwargs.values())
    out = []
    for a in vals:
        if isinstance(a, TensorBase):
            dtype = str(a.dtype).replace("torch.", "")
            out.append(_TYPE_NAMES.get(dtype, dtype))
        else:
            out.append("Scalar" if isinstance(a, (int, float, bool)) else "")
    return out


def _stack():
    """The Python frames of the user's code that led here (innermost first), as PyTorch's
    ``with_stack`` writes them: ``file.py(line): function``."""
    out = []
    frame = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(_PKG_DIR):
            out.append(f"{path}({frame.f_lineno}): {frame.f_code.co_name}")
        frame = frame.f_back
    return out


def _record(name, start_ns, end_ns, args=None, kwargs=None, user=False):
    sessions = list(_RECORDING)
    if not sessions:
        return
    shapes = types = stack = None
    if any(s.record_shapes for s in sessions):   # a range has no inputs: [] as in PyTorch
        shapes, types = ([], []) if args is None else (_shapes(args, kwargs),
                                                       _types(args, kwargs))
    if any(s.with_stack for s in sessions):
        stack = _stack()
    # PyTorch sums the profiler's steps (ProfilerStep#3) as one row: ProfilerStep*
    shown = "ProfilerStep*" if user and name.startswith("ProfilerStep#") else name
    evt = FunctionEvent(next(_IDS), shown, threading.get_ident(), _now_us(start_ns),
                        _now_us(end_ns), shapes, stack, is_user_annotation=user,
                        input_types=types, trace_name=name)
    for s in sessions:
        s._add(evt)


def _outputs_traced(out):
    """Wait for the CPU outputs of an op (see the module's docstring); True when the outputs
    are tracers (the op ran under jtorch.compile or jax.jit: nothing to time)."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    for t in outs:
        if isinstance(t, TensorBase):
            arr = t.__jax_array__()
            if isinstance(arr, jax.core.Tracer):
                return True
            if t.device.type == "cpu":
                arr.block_until_ready()
    return False


def _observe_op(opdef, args, kwargs, run):
    """The dispatcher's op observer while a profile records."""
    name = op_event_name(opdef)
    with jax.profiler.TraceAnnotation(name), jax.named_scope(name):
        start = time.perf_counter_ns()
        out = run(opdef, args, kwargs)
        traced = _outputs_traced(out)
        end = time.perf_counter_ns()
    if not traced:
        _record(name, start, end, args, kwargs)
    return out


def _start_recording(prof):
    with _LOCK:
        if not _RECORDING:
            _PREV_OBSERVER[0] = _dispatch.set_observer(_observe_op)
        _RECORDING.append(prof)


def _stop_recording(prof):
    with _LOCK:
        if prof not in _RECORDING:
            return
        _RECORDING.remove(prof)
        if not _RECORDING:
            _dispatch.set_observer(_PREV_OBSERVER[0])


def _cuda_available():
    try:
        return bool(jax.devices("gpu"))
    except RuntimeError:
        return False


def _build_tree(events):
    """Parents and children by time containment on each thread, as PyTorch builds them."""
    by_thread = {}
    for evt in events:
        by_thread.setdefault(evt.thread, []).append(evt)
    for evts in by_thread.values():
        evts.sort(key=lambda e: (e.start_us, -e.end_us))
        open_ = []
        for evt in evts:
            while open_ and open_[-1].end_us <= evt.start_us:
                open_.pop()
            if open_:
                open_[-1].append_cpu_child(evt)
                evt.set_cpu_parent(open_[-1])
            open_.append(evt)


class record_function(contextlib.ContextDecorator):
    """A labelled range of the program (``torch.autograd.profiler.record_function``): a
    context manager or decorator. While a profiler records, the range is an event
    (``user_annotation``) of the table and trace; it is also always a
    ``jax.profiler.TraceAnnotation`` and ``jax.named_scope``.

    Args:
        name (str): the label.
        args (str, optional): extra text PyTorch attaches to the event (kept, unused).

    Example:
        >>> with profile() as prof:
        ...     with record_function("model_inference"):
        ...         y = model(x)
    """

    def __init__(self, name: str, args: str | None = None):
        self.name = name
        self.args = args
        self._start = None
        self._scopes = None

    def __enter__(self):
        self._scopes = contextlib.ExitStack()
        self._scopes.enter_context(jax.profiler.TraceAnnotation(self.name))
        self._scopes.enter_context(jax.named_scope(self.name))
        self._start = time.perf_counter_ns()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        end = time.perf_counter_ns()
        self._scopes.close()
        if STATE.trace is None:   # under jtorch.compile tracing the range is a named scope
            _record(self.name, self._start, end, user=True)
        return False


class _RecordingOptions:
    """What a profiler records: the options ``torch.autograd.profiler.profile`` and
    ``torch.profiler.profile`` both take, stored under PyTorch's attribute names."""

    def __init__(self, record_shapes, profile_memory, with_stack, with_flops, with_modules,
                 experimental_config, acc_events, custom_trace_id_callback,
                 post_processing_timeout_s):
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.post_processing_timeout_s = post_processing_timeout_s

    def _recording_options(self):
        """The options as keyword arguments of a ``torch.autograd.profiler.profile``."""
        return {"record_shapes": self.record_shapes, "profile_memory": self.profile_memory,
                "with_stack": self.with_stack, "with_flops": self.with_flops,
                "with_modules": self.with_modules,
                "experimental_config": self.experimental_config, "acc_events": self.acc_events,
                "custom_trace_id_callback": self.custom_trace_id_callback,
                "post_processing_timeout_s": self.post_processing_timeout_s}


class profile(_RecordingOptions):
    """``torch.autograd.profiler.profile``: records op calls and ``record_function`` ranges
    while entered.

    Args:
        enabled (bool): False makes the context manager do nothing.
        record_shapes (bool): record each op's input shapes (``Input Shapes``,
            ``key_averages(group_by_input_shape=True)``).
        profile_memory (bool): accepted; memory columns read 0 bytes (see the module's
            Differences).
        with_stack (bool): record the Python call stack of each event.
        use_cuda, use_device, with_flops, with_modules, use_kineto, use_cpu,
        experimental_config, acc_events, custom_trace_id_callback, post_processing_timeout_s,
        activity_filters: accepted as in PyTorch; jtorch records host time only.

    Example:
        >>> with torch.autograd.profiler.profile() as prof:
        ...     y = x * 2
        >>> print(prof.key_averages().table(sort_by="self_cpu_time_total"))
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None, post_processing_timeout_s=None,
                 activity_filters=None):
        super().__init__(record_shapes, profile_memory, with_stack, with_flops, with_modules,
                         experimental_config, acc_events, custom_trace_id_callback,
                         post_processing_timeout_s)
        if use_cuda:
            warnings.warn("The attribute `use_cuda` will be deprecated soon, please use "
                          "``use_device = 'cuda'`` instead.", FutureWarning, stacklevel=2)
            use_device = "cuda"
        if enabled and use_device == "cuda" and not _cuda_available():
            warnings.warn("CUDA is not available, disabling CUDA profiling", stacklevel=2)
            use_device = None
        if enabled and not use_cpu:
            if use_device is None:
                raise AssertionError("No activities specified for the profiler")
            raise not_implemented("torch.autograd.profiler.profile(use_cpu=False)",
                                  "jtorch records host (CPU) time only; keep use_cpu=True")
        if post_processing_timeout_s is not None and post_processing_timeout_s < 0:
            raise ValueError("post_processing_timeout_s must be non-negative")
        self.enabled = enabled
        self.use_device = use_device
        self.entered = False
        self._events = []
        self._function_events = None

    def __enter__(self):
        if not self.enabled:
            return
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._start()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.enabled:
            return
        self._stop()
        return False

    def _start(self):
        """Start recording (again: with ``acc_events`` the earlier events are kept)."""
        self.entered = True
        if not self.acc_events:
            self._events = []
        self._function_events = None
        _start_recording(self)

    def _stop(self):
        _stop_recording(self)
        self._function_events = None

    def _add(self, evt):
        self._events.append(evt)

    def _ensure_function_events(self):
        if self._function_events is None and self.entered:
            events = sorted(self._events, key=lambda e: (e.start_us, -e.end_us))
            _build_tree(events)
            self._function_events = EventList(events, use_device=self.use_device,
                                              profile_memory=self.profile_memory,
                                              with_flops=self.with_flops)

    def _results(self):
        self._ensure_function_events()
        if self._function_events is None:
            raise AssertionError("Expected profiling results")
        return self._function_events

    @property
    def function_events(self):
        """The recorded events (an :class:`EventList`), in start order."""
        self._ensure_function_events()
        return self._function_events

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        """The events' table (:meth:`EventList.table`)."""
        return self._results().table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only)

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace JSON file (:meth:`EventList.export_chrome_trace`)."""
        return self._results().export_chrome_trace(path)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """The events summed per name (:meth:`EventList.key_averages`)."""
        return self._results().key_averages(group_by_input_shape, group_by_stack_n,
                                            group_by_overload_name)

    def total_average(self):
        """All events summed into one row keyed ``"Total"``."""
        return self._results().total_average()

    @property
    def self_cpu_time_total(self):
        """The sum of the events' self CPU times (microseconds)."""
        return self._results().self_cpu_time_total

    def __str__(self):
        self._ensure_function_events()
        if self._function_events is None:
            return "<unfinished torch.autograd.profile>"
        return str(self._function_events)

    __repr__ = __str__


class emit_nvtx:
    """Makes every op emit an NVTX range (for NVIDIA's profilers). Without a GPU, entering it
    enabled raises PyTorch's CPU-only ``AssertionError``; jtorch emits no NVTX ranges on a GPU
    either (JAX's profiler traces XLA's kernels: ``torch.profiler.profile``)."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes

    def __enter__(self):
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("NVTX annotation context manager is not reentrant")
        if not _cuda_available():
            raise AssertionError("Torch not compiled with CUDA enabled")
        raise not_implemented("torch.autograd.profiler.emit_nvtx", "torch.profiler.profile")

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return False
        self.entered = False
        return False
