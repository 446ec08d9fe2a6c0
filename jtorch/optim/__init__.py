"""torch.optim: optimizers whose arithmetic is optax transformations (one jitted program per
parameter group and step), and learning-rate schedulers."""

from .._core.errors import torch_name_fallback
from . import lr_scheduler, swa_utils  # noqa: F401
from .adafactor import Adafactor
from .adam import Adam, Adamax, AdamW, NAdam, RAdam, SparseAdam
from .adaptive import Adadelta, Adagrad, RMSprop, Rprop
from .lbfgs import LBFGS
from .muon import Muon
from .optimizer import (
    Optimizer,
    register_optimizer_step_post_hook,
    register_optimizer_step_pre_hook,
)
from .sgd import ASGD, SGD

__all__ = ["ASGD", "LBFGS", "SGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax",
           "Muon", "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SparseAdam", "lr_scheduler",
           "register_optimizer_step_post_hook", "register_optimizer_step_pre_hook", "swa_utils"]

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.optim")
