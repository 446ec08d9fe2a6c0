"""``torch.utils.tensorboard``: not implemented in jtorch yet.

The module exists so that ``from torch.utils.tensorboard import SummaryWriter`` names what is
missing: every public name raises NotImplementedError naming the PyTorch API.
"""

from .._core.errors import not_implemented


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(f"module 'jtorch.utils.tensorboard' has no attribute '{name}'")
    raise not_implemented(f"torch.utils.tensorboard.{name}")
