"""torch.utils."""

from . import checkpoint, data, hooks, safetensors  # noqa: F401
