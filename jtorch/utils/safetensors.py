"""safetensors-format helpers for state_dicts (``jtorch.utils.safetensors``).

The same functions as ``safetensors.torch`` (``save_file``, ``load_file``, ``save``, ``load``)
for jtorch tensors, written without the package: an 8-byte little-endian header length, a
JSON header ``{name: {"dtype", "shape", "data_offsets"}, "__metadata__": {...}}`` padded with
spaces to 8 bytes, then the tensors' bytes. Files are readable by the ``safetensors`` package.
Every tensor is written as its own contiguous copy (safetensors has no shared storage).
"""

from __future__ import annotations

import json
import os
import struct

import numpy as np

from .._core import dtypes
from .._core.device import to_host
from .._tensor import Tensor
from ..serialization import atomic_file

_CODES = {"float64": "F64", "float32": "F32", "float16": "F16", "bfloat16": "BF16",
          "int64": "I64", "int32": "I32", "int16": "I16", "int8": "I8", "uint8": "U8",
          "bool": "BOOL"}
_DTYPES = {v: k for k, v in _CODES.items()}


def save(tensors, metadata=None):
    """The safetensors bytes of a ``{name: Tensor}`` dict."""
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name]
        if not isinstance(t, Tensor):
            raise ValueError(f"Key `{name}` is invalid, expected torch.Tensor but received "
                             f"{type(t)}")
        if t.dtype.name not in _CODES:
            raise ValueError(f"safetensors cannot store dtype {t.dtype}")
        data = np.ascontiguousarray(np.asarray(t.detach()._value)).astype(
            np.dtype(t.dtype.np).newbyteorder("<")).tobytes()
        header[name] = {"dtype": _CODES[t.dtype.name], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata is not None:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise ValueError("safetensors metadata must map str to str")
        header["__metadata__"] = dict(metadata)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(blobs)


def save_file(tensors, filename, metadata=None):
    """Write ``tensors`` to ``filename`` (through a temporary file and a rename)."""
    data = save(tensors, metadata)
    with atomic_file(os.fspath(filename)) as f:
        f.write(data)


def load(data, device="cpu"):
    """A ``{name: Tensor}`` dict from safetensors bytes."""
    if len(data) < 8:
        raise ValueError("safetensors: the data is too short to hold a header")
    (n,) = struct.unpack("<Q", data[:8])
    if 8 + n > len(data):
        raise ValueError("safetensors: the header is truncated")
    header = json.loads(bytes(data[8:8 + n]))
    header.pop("__metadata__", None)
    body = memoryview(data)[8 + n:]
    out = {}
    for name, info in header.items():
        dt = getattr(dtypes, _DTYPES[info["dtype"]] if info["dtype"] != "BOOL" else "bool_")
        b, e = info["data_offsets"]
        if e > len(body):
            raise ValueError(f"safetensors: tensor {name!r} lies past the end of the data")
        arr = np.frombuffer(body[b:e], dtype=np.dtype(dt.np).newbyteorder("<"))
        arr = arr.astype(np.dtype(dt.np)).reshape(info["shape"])
        t = Tensor._make(to_host(arr))
        out[name] = t if str(device) == "cpu" else t.to(device)
    return out


def load_file(filename, device="cpu"):
    """A ``{name: Tensor}`` dict from a safetensors file."""
    with open(filename, "rb") as f:
        return load(f.read(), device)
