"""``torch.frombuffer``: a 1-D tensor from the bytes of an object that has the buffer protocol
(``bytes``, ``bytearray``, ``memoryview``, ``array.array``, a NumPy array...).

PyTorch's tensor shares the buffer's memory; a jtorch tensor is a copy of the bytes (JAX's
arrays are immutable), so later writes to the buffer are not seen (docs/differences.md).
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes
from ._registry import export
from .creation import tensor


@export("frombuffer")
def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """``count`` elements of ``dtype`` (all, with -1) read from ``buffer`` after ``offset``
    bytes."""
    dt = dtypes.to_dtype(dtype)
    length, size = memoryview(buffer).nbytes, dt.itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % size:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({size})")
    elif count * size > length - offset:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    values = np.frombuffer(buffer, dtype=dt.np, count=count, offset=offset)
    return tensor(values.copy(), dtype=dt, requires_grad=requires_grad)
