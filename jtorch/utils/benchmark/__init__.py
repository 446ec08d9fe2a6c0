"""torch.utils.benchmark: ``Timer`` and its ``Measurement``, as PyTorch's.

The timer waits for the queued work (JAX dispatches asynchronously, as CUDA does) before
reading the clock, as PyTorch's default timer synchronizes CUDA. ``Compare``, ``Fuzzer`` and
the Valgrind-based ``collect_callgrind`` are not provided."""

import enum
import math
import statistics
import textwrap
import time
import timeit
from collections.abc import Callable
from typing import Any, Optional

from ..._core.errors import torch_name_fallback

__all__ = ["Timer", "Measurement", "TaskSpec", "Language", "select_unit", "timer"]


def timer() -> float:
    """PyTorch's default timer: wait for the device, then ``time.perf_counter()``."""
    import jtorch

    if jtorch.cuda.is_available():
        jtorch.cuda.synchronize()
    else:
        jtorch.cpu.synchronize()
    return time.perf_counter()


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


def select_unit(t: float):
    """The unit (and its scale) PyTorch prints a time of ``t`` seconds in."""
    time_unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.log10(t) // 3), "s") if t > 0 else "s"
    time_scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[time_unit]
    return time_unit, time_scale


class TaskSpec:
    def __init__(self, stmt, setup, global_setup="", label=None, sub_label=None,
                 description=None, env=None, num_threads=1):
        self.stmt, self.setup, self.global_setup = stmt, setup, global_setup
        self.label, self.sub_label, self.description = label, sub_label, description
        self.env, self.num_threads = env, num_threads

    @property
    def title(self) -> str:
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return (f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n"
                f"{textwrap.indent(self.stmt, '  ')}")

    def setup_str(self) -> str:
        return ("" if (self.setup == "pass" or not self.setup)
                else f"setup:\n{textwrap.indent(self.setup, '  ')}" if "\n" in self.setup
                else f"setup: {self.setup}")

    def summarize(self) -> str:
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join([f"{i}\n" if "\n" in i else i for i in sections if i])


class Measurement:
    """The times of ``number_per_run`` runs of a task, each element of ``raw_times`` one
    measurement; ``times`` is per run."""

    def __init__(self, number_per_run: int, raw_times: list, task_spec: TaskSpec,
                 metadata: dict | None = None):
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.metadata = metadata

    def __getattr__(self, name):
        if name != "task_spec" and name in ("stmt", "setup", "global_setup", "label",
                                            "sub_label", "description", "env",
                                            "num_threads", "title"):
            return getattr(self.task_spec, name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    @property
    def times(self) -> list:
        return [t / self.number_per_run for t in self.raw_times]

    def _sorted(self):
        return sorted(self.times)

    def _quantile(self, q):
        s = self._sorted()
        if len(s) == 1:
            return s[0]
        pos = q * (len(s) - 1)
        lo = int(math.floor(pos))
        hi = min(lo + 1, len(s) - 1)
        return s[lo] + (s[hi] - s[lo]) * (pos - lo)

    @property
    def median(self) -> float:
        return self._quantile(0.5)

    @property
    def mean(self) -> float:
        return statistics.mean(self.times)

    @property
    def iqr(self) -> float:
        return self._quantile(0.75) - self._quantile(0.25)

    @property
    def significant_figures(self) -> int:
        n = len(self.times)
        if n < 2:
            return 1
        std = statistics.stdev(self.times) / math.sqrt(n)
        if std == 0:
            return 4
        return max(1, min(4, int(-math.floor(math.log10(std / self.median)))))

    @property
    def has_warnings(self) -> bool:
        return bool(self._warnings())

    def _warnings(self):
        n = len(self.times)
        if n < 4 or self.median <= 0:
            return []
        rel_iqr = self.iqr / self.median * 100
        if rel_iqr <= 10:
            return []
        return [f"  WARNING: Interquartile range is {rel_iqr:.1f}% of the median measurement.\n"
                "           This suggests significant environmental influence."
                if rel_iqr > 10 else ""]

    def __repr__(self) -> str:
        n = len(self.times)
        median = self.median
        unit, scale = select_unit(median)
        lines = [object.__repr__(self).replace("jtorch.utils.benchmark", "torch.utils.benchmark"
                                              ".utils.common"),
                 self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} "
                         f"({self._quantile(0.25) / scale:.2f} to "
                         f"{self._quantile(0.75) / scale:.2f})")
        threads = self.task_spec.num_threads
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads} "
                     f"thread{'s' if threads > 1 else ''}")
        lines.extend(self._warnings())
        return "\n".join(lines).strip()


class Timer:
    """``torch.utils.benchmark.Timer``: times a Python statement (C++ is not supported)."""

    def __init__(self, stmt: str = "pass", setup: str = "pass", global_setup: str = "",
                 timer: Callable[[], float] = timer, globals: dict | None = None,
                 label: str | None = None, sub_label: str | None = None,
                 description: str | None = None, env: str | None = None,
                 num_threads: int = 1, language: Any = Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language not in (Language.PYTHON, "py", "python"):
            raise NotImplementedError("torch.utils.benchmark.Timer(language='c++') is not "
                                      "implemented in jtorch")
        self._globals = dict(globals or {})
        stmt = textwrap.dedent(stmt).strip() or "pass"
        setup = textwrap.dedent(setup).strip() or "pass"
        self._task_spec = TaskSpec(stmt, setup, global_setup, label, sub_label, description,
                                   env, num_threads)
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)

    def _timeit(self, number: int) -> float:
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number: int = 1000000) -> Measurement:
        self._timeit(number=max(int(number // 100), 2))  # warm-up, as PyTorch's
        return Measurement(number_per_run=number, raw_times=[self._timeit(number=number)],
                           task_spec=self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _estimate_block_size(self, min_run_time: float) -> int:
        number = 1
        while True:
            if self._timeit(number) >= min_run_time / 1000 or number >= 10 ** 6:
                return number
            number *= 10

    def blocked_autorange(self, callback=None, min_run_time: float = 0.2) -> Measurement:
        number = self._estimate_block_size(min_run_time)
        times, total = [], 0.0
        while total < min_run_time or not times:
            t = self._timeit(number)
            total += t
            if callback is not None:
                callback(number, t)
            times.append(t)
        return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01,
                           max_run_time: float = 10.0, callback=None) -> Measurement:
        number = self._estimate_block_size(min_run_time=0.05)
        times, total = [], 0.0
        while total < max_run_time:
            t = self._timeit(number)
            total += t
            if callback is not None:
                callback(number, t)
            times.append(t)
            if total >= min_run_time and len(times) > 3:
                m = Measurement(number, times, self._task_spec)
                if m.iqr / m.median < threshold:
                    break
        return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)


__getattr__ = torch_name_fallback("torch.utils.benchmark")
