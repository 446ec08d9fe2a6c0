"""``torch.autograd.profiler_util``: the profiler's events, their averages and the summary table.

:class:`FunctionEvent` is one recorded interval (an op call, a ``record_function`` range or a
profiler step), :class:`FunctionEventAvg` the sum of events grouped by key, :class:`EventList`
a list of either with ``key_averages()``, ``table()`` and ``export_chrome_trace()``. Times are
in microseconds (floats), as in PyTorch. The table's layout (columns, header text, widths,
number formats, the ``Self CPU time total`` footer) is PyTorch's ``_build_table`` for CPU
events.

Differences from PyTorch:
    No device (CUDA) time columns: jtorch records host time only. Memory columns
    (``profile_memory=True``) read 0 bytes: JAX does not report per-op allocations.
    ``with_stack=True`` records the Python frame that called the op (file, line, function).
"""

from __future__ import annotations

import enum
import json
import os
from collections import defaultdict


def _time_str(attr):
    """A read-only property: the time attribute ``attr`` formatted as the table prints it."""
    return property(lambda self: _format_time(getattr(self, attr)))


class DeviceType(enum.IntEnum):
    """``torch.autograd.DeviceType`` (PyTorch's ``c10::DeviceType`` numbering)."""

    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    MTIA = 19
    PrivateUse1 = 20


class FormattedTimesMixin:
    """The ``*_str`` forms of an event's times (``1.593ms``, ``44.746us``) used by the table."""

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else 1.0 * self.cpu_time_total / self.count

    @property
    def device_time(self):
        return 0.0 if self.count == 0 else 1.0 * self.device_time_total / self.count

    cpu_time_str = _time_str("cpu_time")
    cpu_time_total_str = _time_str("cpu_time_total")
    self_cpu_time_total_str = _time_str("self_cpu_time_total")
    device_time_str = _time_str("device_time")
    device_time_total_str = _time_str("device_time_total")
    self_device_time_total_str = _time_str("self_device_time_total")


class FunctionEvent(FormattedTimesMixin):
    """One recorded interval: ``name`` ran on thread ``thread`` from ``start_us`` to ``end_us``
    (microseconds since the epoch); ``input_shapes`` (when recorded) has one list per argument,
    ``[]`` for a non-tensor argument, as PyTorch's ``Input Shapes``."""

    def __init__(self, id, name, thread, start_us, end_us, input_shapes=None, stack=None,
                 is_user_annotation=False, concrete_inputs=None, input_types=None,
                 trace_name=None):
        self.id = id
        self.node_id = -1
        self.name = name
        self.trace_name = trace_name if trace_name is not None else name
        self.overload_name = ""
        self.thread = thread
        self.start_us = start_us
        self.end_us = end_us
        self.input_shapes = input_shapes
        self.input_types = input_types
        self.stack = stack if stack is not None else []
        self.is_user_annotation = is_user_annotation
        self.cpu_children = []
        self.cpu_parent = None
        self.count = 1
        self.device_type = DeviceType.CPU
        self.use_device = None
        self.is_legacy = False
        self.is_async = False
        self.is_remote = False
        self.scope = 0
        self.flops = 0
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.device_time_total = 0
        self.self_device_time_total = 0
        self.concrete_inputs = concrete_inputs

    @property
    def key(self):
        return self.name

    @property
    def cpu_time_total(self):
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self):
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_device_memory_usage(self):
        return 0

    def append_cpu_child(self, child):
        """Record ``child`` (an interval inside this one, on the same thread) as a child."""
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
                f"cpu_time={self.cpu_time_total_str} start_us={self.start_us} "
                f"end_us={self.end_us} input_shapes={self.input_shapes}>")


class FunctionEventAvg(FormattedTimesMixin):
    """The sum of events sharing a key (``key_averages()``'s rows)."""

    # the sums over the key's events (0 in an empty average): what add() adds
    _SUMMED = ("count", "cpu_time_total", "device_time_total", "self_cpu_time_total",
               "self_device_time_total", "cpu_memory_usage", "device_memory_usage",
               "self_cpu_memory_usage", "self_device_memory_usage", "flops")

    def __init__(self):
        for name in self._SUMMED:
            setattr(self, name, 0)
        self.key = None
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.is_user_annotation = False

    def add(self, other):
        """Add ``other``'s times and count (it must have the same key)."""
        if self.key is None:
            for name in ("key", "node_id", "is_async", "is_remote", "cpu_parent",
                         "cpu_children", "overload_name", "input_shapes", "stack", "scope",
                         "device_type", "is_legacy", "use_device", "is_user_annotation"):
                setattr(self, name, getattr(other, name))
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        for name in self._SUMMED:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of :class:`FunctionEvent` (or of :class:`FunctionEventAvg` after
    ``key_averages()``) with PyTorch's summary and export methods."""

    def __init__(self, *args, use_device=None, profile_memory=False, with_flops=False,
                 **kwargs):
        super().__init__(*args, **kwargs)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops

    @property
    def self_cpu_time_total(self):
        return sum(event.self_cpu_time_total for event in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The events as PyTorch's text table.

        Args:
            sort_by (str, optional): the attribute rows are sorted by, largest first:
                ``cpu_time``, ``cpu_time_total``, ``self_cpu_time_total``, ``count``,
                ``cpu_memory_usage``, ``self_cpu_memory_usage`` and the ``cuda``/``xpu``/
                ``device`` forms PyTorch accepts; another raises AttributeError as in PyTorch.
            row_limit (int): at most this many rows.
            top_level_events_only (bool): only events without a parent.
            time_unit (str, optional): ``"s"``, ``"ms"`` or ``"us"`` for every time.

        Returns:
            The table as a string.
        """
        return build_table(self, sort_by=sort_by, row_limit=row_limit,
                           max_src_column_width=max_src_column_width,
                           max_name_column_width=max_name_column_width,
                           max_shapes_column_width=max_shapes_column_width, header=header,
                           profile_memory=self._profile_memory, with_flops=self._with_flops,
                           top_level_events_only=top_level_events_only, time_unit=time_unit)

    def __str__(self):
        return self.table()

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """Sum the events per name (and input shapes / top stack frames when asked).

        Returns:
            An EventList of :class:`FunctionEventAvg`, in the order keys first occur.
        """
        stats = defaultdict(FunctionEventAvg)
        for evt in self:
            key = [str(evt.key), str(evt.node_id), str(evt.device_type), str(evt.is_legacy),
                   str(evt.is_user_annotation)]
            if group_by_input_shapes:
                key.append(str(evt.input_shapes))
            if group_by_stack_n > 0:
                key += evt.stack[:group_by_stack_n]
            stats[tuple(key)].add(evt)
        avg_list = EventList(stats.values(), use_device=self._use_device,
                             profile_memory=self._profile_memory, with_flops=self._with_flops)
        for evt in avg_list:
            evt.stack = evt.stack[:group_by_stack_n]
            if not group_by_input_shapes:
                evt.input_shapes = ""
            if not group_by_overload_name:
                evt.overload_name = ""
        return avg_list

    def total_average(self):
        """All events summed into one :class:`FunctionEventAvg` with key ``"Total"``."""
        total = FunctionEventAvg()
        for evt in self:
            total += evt
            total.key = None
        total.key = "Total"
        return total

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace (``chrome://tracing``, Perfetto) JSON file.

        Each event is a complete (``"ph": "X"``) event with ``name``, ``ts`` and ``dur`` in
        microseconds, ``cat`` ``cpu_op`` (an op) or ``user_annotation`` (``record_function``)
        and, when shapes were recorded, ``args["Input Dims"]``, as PyTorch writes them.
        """
        write_chrome_trace(self, path)


def write_chrome_trace(events, path, extra=None):
    """The Chrome trace JSON of ``events`` (FunctionEvents) written to ``path``."""
    pid = os.getpid()
    trace = []
    for tid in sorted({e.thread for e in events}):
        trace.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                      "args": {"name": f"thread {tid} (python)"}})
    for i, evt in enumerate(events):
        args = {"External id": evt.id, "Ev Idx": i}
        if evt.input_shapes is not None:
            args["Input Dims"] = evt.input_shapes
        if evt.input_types is not None:
            args["Input type"] = evt.input_types
        if evt.concrete_inputs is not None:
            args["Concrete Inputs"] = evt.concrete_inputs
        if evt.stack:
            args["Call stack"] = ";".join(evt.stack)
        trace.append({"ph": "X", "cat": "user_annotation" if evt.is_user_annotation
                      else "cpu_op", "name": evt.trace_name, "pid": pid, "tid": evt.thread,
                      "ts": evt.start_us, "dur": evt.cpu_time_total, "args": args})
    doc = {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms",
           "traceEvents": trace, "traceName": path}
    doc.update(extra or {})
    with open(path, "w") as f:
        json.dump(doc, f)


def _format_time(time_us):
    """PyTorch's time format: ``1.234s``, ``1.234ms`` or ``1.234us``."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _format_memory(nbytes):
    kb, mb, gb = 1024, 1024 ** 2, 1024 ** 3
    if abs(nbytes) >= gb:
        return f"{nbytes * 1.0 / gb:.2f} GB"
    if abs(nbytes) >= mb:
        return f"{nbytes * 1.0 / mb:.2f} MB"
    if abs(nbytes) >= kb:
        return f"{nbytes * 1.0 / kb:.2f} KB"
    return str(nbytes) + " B"


def _in_unit(time_us, default_str, time_unit):
    if time_unit == "s":
        return f"{time_us / 1e6:.3f}s"
    if time_unit == "ms":
        return f"{time_us / 1e3:.3f}ms"
    if time_unit == "us":
        return f"{time_us:.3f}us"
    return default_str


def _sort_attr(sort_by):
    return sort_by.replace("cuda", "device").replace("xpu", "device") \
        .replace("privateuse1", "device")


def build_table(events, sort_by=None, header=None, row_limit=100, max_src_column_width=75,
                max_name_column_width=55, max_shapes_column_width=80, with_flops=False,
                profile_memory=False, top_level_events_only=False, time_unit=None):
    """PyTorch's ``_build_table`` for host (CPU) events: the same columns, header text,
    widths and formats. Returns the table as a string ("" for no events)."""
    if len(events) == 0:
        return ""
    has_input_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0
                           for e in events)
    if sort_by is not None:
        attr = _sort_attr(sort_by)
        events = sorted(events, key=lambda evt: getattr(evt, attr), reverse=True)
    name_width = min(max(len(evt.key) for evt in events) + 4, max_name_column_width)
    shapes_width = min(max(len(str(evt.input_shapes)) for evt in events) + 4,
                       max_shapes_column_width)
    stacks = [evt.stack for evt in events if evt.stack]
    src_width = None
    if stacks:
        src_width = min(max(max(len(s) for s in st) for st in stacks) + 4,
                        max_src_column_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    widths = [(name_width, ">")] + [(12, ">")] * (len(headers) - 1)
    if has_input_shapes:
        headers.append("Input Shapes")
        widths.append((shapes_width, ">"))
    if stacks:
        headers.append("Source Location")
        widths.append((src_width, "<"))
    row_format = "".join("{: " + d + str(w) + "}  " for w, d in widths)
    header_sep = "".join("-" * w + "  " for w, _ in widths)
    total = sum(evt.self_cpu_time_total for evt in events)

    lines = []
    if header is not None:
        line_length = sum(w + 2 for w, _ in widths) - 2
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * (sum(w + 2 for w, _ in widths) - 2),
                  "This report only display top-level ops statistics"]
    lines += [header_sep, row_format.format(*headers), header_sep]

    def trim_path(path):
        if len(path) > src_width:
            path = path[len(path) - src_width:]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    shown = 0
    for evt in events:
        if shown == row_limit:
            break
        if top_level_events_only and evt.cpu_parent is not None:
            continue
        shown += 1
        name = evt.key
        if len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name, _format_time_share(evt.self_cpu_time_total, total),
               _in_unit(evt.self_cpu_time_total, evt.self_cpu_time_total_str, time_unit),
               _format_time_share(evt.cpu_time_total, total),
               _in_unit(evt.cpu_time_total, evt.cpu_time_total_str, time_unit),
               _in_unit(evt.cpu_time, evt.cpu_time_str, time_unit)]
        if profile_memory:
            row += [_format_memory(evt.cpu_memory_usage),
                    _format_memory(evt.self_cpu_memory_usage)]
        row.append(evt.count)
        if has_input_shapes:
            row.append(str(evt.input_shapes)[:shapes_width])
        if stacks:
            row.append(trim_path(evt.stack[0]) if evt.stack else "")
        lines.append(row_format.format(*row))
        if stacks:
            blank = [""] * (len(headers) - 1)
            for entry in evt.stack[1:]:
                lines.append(row_format.format(*(blank + [trim_path(entry)])))
            lines.append(row_format.format(*(blank + [""])))
    lines.append(header_sep)
    lines.append(f"Self CPU time total: {_in_unit(total, _format_time(total), time_unit)}")
    return "".join(line + "\n" for line in lines)
