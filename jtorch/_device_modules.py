"""``torch.get_device_module``: the backend module of a device type (``jtorch.cuda`` for
"cuda", ``jtorch.cpu`` for "cpu"), looked up on the jtorch package when called."""

from __future__ import annotations

import functools
import sys

from . import accelerator
from ._core.device import device as Device


@functools.cache
def get_device_module(device=None):
    """The module of ``device``'s type (a ``torch.device`` or a string), or of the current
    accelerator (the CPU's when there is none) when ``device`` is None."""
    if isinstance(device, Device):
        name = device.type
    elif isinstance(device, str):
        name = Device(device).type
    elif device is None:
        current = accelerator.current_accelerator()
        name = "cpu" if current is None else current.type
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or "
                           "None")
    package = sys.modules[__package__]   # jtorch itself, fully imported by any call
    try:   # a module PyTorch has and jtorch lacks (torch.mps) raises NotImplementedError
        return getattr(package, name)
    except NotImplementedError:
        raise
    except AttributeError:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered "
                           f"as 'torch.{name}'.") from None
