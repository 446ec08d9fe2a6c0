"""``torch.profiler``: which ops a program runs and how long they take, on jtorch's dispatcher.

``profile`` records every op call under its PyTorch name (``aten::linear``) and every
``record_function`` range, prints PyTorch's ``key_averages().table()``, exports Chrome traces
and follows ``schedule``s with ``on_trace_ready`` handlers such as
``tensorboard_trace_handler``. Every event is also a ``jax.profiler.TraceAnnotation`` and a
``jax.named_scope``, so it shows in JAX's own trace and in jitted programs' op names.
docs/profiler.md describes what is measured and how it differs from PyTorch.
"""

from .._core.errors import torch_name_fallback
from ..autograd.profiler import record_function as record_function
from ..optim.optimizer import (  # PyTorch's torch.profiler re-exports both
    Optimizer as Optimizer,
    register_optimizer_step_post_hook as register_optimizer_step_post_hook,
)
from .activity import (
           DeviceType as DeviceType,
           ProfilerActivity as ProfilerActivity,
           kineto_available as kineto_available,
           supported_activities as supported_activities,
)
from .profiling import profile as profile
from .schedules import ProfilerAction as ProfilerAction, schedule as schedule
from .trace_handler import tensorboard_trace_handler as tensorboard_trace_handler

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler",
           "ProfilerAction", "ProfilerActivity", "kineto_available", "DeviceType",
           "record_function"]

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.profiler")
