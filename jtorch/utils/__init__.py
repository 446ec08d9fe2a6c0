"""torch.utils."""

from . import checkpoint, data, safetensors  # noqa: F401
