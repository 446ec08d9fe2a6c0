"""torch.optim."""

from . import lr_scheduler  # noqa: F401
